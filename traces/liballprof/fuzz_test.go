package liballprof

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// FuzzReadRank feeds arbitrary text as rank 0 of a 2-rank trace whose rank 1
// is the p2p test trace's: it must never panic, errors must be *Error (or
// name the file), and what it reads must lower without panicking.
func FuzzReadRank(f *testing.F) {
	for _, p := range []string{"p2p/trace_p2p-0.dat", "colls/trace_colls-1.dat", "epoch/pmpi-trace-rank-0.txt"} {
		if b, err := os.ReadFile(filepath.Join("testdata", p)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("MPI_Init:-:1:2:1.0\nMPI_Waitall:2.0:2:1000:2000:3.0\n"))
	f.Add([]byte("# collprof\nMPI_Init:-:1:2:1.0\nMPI_Bcast:3.0:5:12:13,1,1:0:5641280,0,2:4.0\nMPI_Finalize:5:-\n"))
	other, err := os.ReadFile(filepath.Join("testdata", "p2p", "trace_p2p-1.dat"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Read([]io.Reader{bytes.NewReader(data), bytes.NewReader(other)}, []string{"fuzz-0.dat", "fuzz-1.dat"})
		if err != nil {
			var le *Error
			if !errors.As(err, &le) && !strings.Contains(err.Error(), "fuzz-") {
				t.Fatalf("error of type %T does not name the file: %v", err, err)
			}
			return
		}
		if len(tr.Ranks) != 2 {
			t.Fatalf("%d ranks", len(tr.Ranks))
		}
		for _, e := range tr.Ranks[0].Events {
			if e.Kind == mpi.Compute && e.Duration < 0 {
				t.Fatalf("negative compute %d", e.Duration)
			}
		}
		lower.Lower(tr, lower.Options{Algorithm: lower.SchedgenAlgorithms()}) // errors are fine; panics are not
	})
}
