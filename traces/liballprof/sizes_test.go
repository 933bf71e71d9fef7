package liballprof

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCollectiveSizes: an allgather or alltoall in which one rank sends
// another more than that rank's call receives (counts or datatype sizes
// that disagree) replayed with the sender's size. It is refused, naming
// both files and lines and both sizes.
func TestCollectiveSizes(t *testing.T) {
	const head = "# collprof 0.9 output file\nMPI_Init:-:1:2:1.0\n"
	for _, tc := range []struct {
		name  string
		calls [2]string // rank 0's and rank 1's call
		want  string
	}{
		{"allgather counts", [2]string{"MPI_Allgather:2.0:5:4:10,4,4:6:4:10,4,4:0,0,2:3.0", "MPI_Allgather:2.0:5:8:10,4,4:6:4:10,4,4:0,1,2:3.0"},
			"rank 0 receives at most 16 bytes from rank 1, which sends it 32"},
		{"alltoall datatype sizes", [2]string{"MPI_Alltoall:2.0:5:4:10,8,8:6:4:10,8,8:0,0,2:3.0", "MPI_Alltoall:2.0:5:4:10,8,8:6:4:11,4,4:0,1,2:3.0"},
			"rank 1 receives at most 16 bytes from rank 0, which sends it 32"},
		{"alltoall agreeing", [2]string{"MPI_Alltoall:2.0:5:4:10,8,8:6:4:10,8,8:0,0,2:3.0", "MPI_Alltoall:2.0:5:8:11,4,4:6:8:11,4,4:0,1,2:3.0"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for r, c := range tc.calls {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("ag-%d.dat", r)), []byte(head+c+"\nMPI_Finalize:35.5:-\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := ReadFile(filepath.Join(dir, "ag-0.dat"))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("read; want %q", tc.want)
			}
			for _, s := range []string{tc.want, "ag-0.dat:3", "ag-1.dat:3", "MPI_ERR_TRUNCATE"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		})
	}
}
