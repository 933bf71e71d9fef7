package simgrid

import (
	"strings"
	"testing"
)

// TestTruncation: a gather, scatter, allgather or alltoall (or v-variant)
// in which a member sends another more bytes than it receives from it
// was replayed with a size of capsim's choosing; SimGrid 3.32's replay
// stops on each refused case here with MPI_ERR_TRUNCATE and replays each
// accepted one (checked with smpirun -replay).
func TestTruncation(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"gatherv root counts", "0 init\n1 init\n0 gatherv 10 10 20 0\n1 gatherv 30 10 20 0\n",
			":3: gatherv: rank 0 receives at most 20 bytes from rank 1, which sends it 30 ("},
		{"gatherv counts fewer than ranks", "0 init\n1 init\n0 gatherv 10 10 0\n1 gatherv 20 10 20 0\n",
			":3: gatherv: rank 0 receives at most 0 bytes from rank 1, which sends it 20"},
		{"allgatherv", "0 init\n1 init\n0 allgatherv 10 10 20\n1 allgatherv 30 10 20\n",
			":3: allgatherv: rank 0 receives at most 20 bytes from rank 1, which sends it 30"},
		{"alltoallv", "0 init\n1 init\n0 alltoallv 30 10 20 30 10 20\n1 alltoallv 30 20 10 30 10 20\n",
			":4: alltoallv: rank 1 receives at most 10 bytes from rank 0, which sends it 20"},
		{"allgather", "0 init\n1 init\n0 allgather 10 10\n1 allgather 20 20\n",
			":3: allgather: rank 0 receives at most 10 bytes from rank 1, which sends it 20"},
		{"scatterv root counts", "0 init\n1 init\n2 init\n0 scatterv 10 40 10 10 0\n1 scatterv 10 20 10 30 0\n2 scatterv 0 0 0 30 0\n",
			":5: scatterv: rank 1 receives at most 30 bytes from rank 0, which sends it 40"},
		{"scatter", "0 init\n1 init\n0 scatter 20 20 0\n1 scatter 10 10 0\n",
			":4: scatter: rank 1 receives at most 10 bytes from rank 0, which sends it 20"},
		{"gather", "0 init\n1 init\n0 gather 10 10 1\n1 gather 10 5 1\n",
			":4: gather: rank 1 receives at most 5 bytes from rank 0, which sends it 10"},
		{"alltoall", "0 init\n1 init\n0 alltoall 10 10\n1 alltoall 20 20\n",
			":3: alltoall: rank 0 receives at most 10 bytes from rank 1, which sends it 20"},
		{"alltoall datatypes", "0 init\n1 init\n0 alltoall 10 10 0 0\n1 alltoall 81 10 2 0\n",
			":3: alltoall: rank 0 receives at most 80 bytes from rank 1, which sends it 81"},
		{"reducescatter counts that differ", "0 init\n1 init\n0 reducescatter 4 4 0\n1 reducescatter 8 8 0\n",
			":3: reducescatter: rank 0 receives at most 4 bytes from rank 1, which sends it 8"},
		{"reducescatter", "0 init\n1 init\n0 reducescatter 4 8 0\n1 reducescatter 4 8 0\n", ""},
		{"gatherv", "0 init\n1 init\n0 gatherv 10 10 20 0\n1 gatherv 20 10 20 0\n", ""},
		{"gatherv counts of a non-root", "0 init\n1 init\n0 gatherv 10 10 20 0\n1 gatherv 20 10 30 0\n", ""},
		{"gatherv non-roots without counts", "0 init\n1 init\n2 init\n0 gatherv 1 0 0 0 2\n1 gatherv 2 0 0 0 2\n2 gatherv 3 1 2 3 2\n", ""},
		{"scatterv receiving more", "0 init\n1 init\n0 scatterv 10 20 10 0\n1 scatterv 10 20 30 0\n", ""},
		{"alltoallv matching", "0 init\n1 init\n0 alltoallv 30 10 20 30 10 20\n1 alltoallv 30 20 10 30 20 10\n", ""},
		{"alltoall receiving more", "0 init\n1 init\n0 alltoall 10 10\n1 alltoall 10 20\n", ""},
		{"scatter receiving more", "0 init\n1 init\n0 scatter 10 10 0\n1 scatter 20 20 0\n", ""},
		{"gather sending less", "0 init\n1 init\n0 gather 10 10 1\n1 gather 5 10 1\n", ""},
		{"allgatherv copy to itself", "0 init\n1 init\n2 init\n0 allgatherv 1 1 2 3\n1 allgatherv 2 1 2 3\n2 allgatherv 3 1 2 2\n", ""},
		{"members of other calls", "0 init\n1 init\n0 gather 10 10 0\n1 allgather 10 10\n", ""}, // the lowering names it
	} {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, c.text)
			_, err := Read(p, Options{})
			if c.want == "" {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "MPI_ERR_TRUNCATE") {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}
