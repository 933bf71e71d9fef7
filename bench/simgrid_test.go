package bench

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/traces/simgrid"
)

// writeTI writes a single-file SimGrid TI trace of ranks ranks, each doing
// iters iterations of a compute, a ring exchange (irecv, isend, waitall)
// and an allreduce: 5 lines per rank and iteration.
func writeTI(b *testing.B, ranks, iters int) (string, int) {
	p := filepath.Join(b.TempDir(), "ring.txt")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	lines := 0
	for r := range ranks {
		fmt.Fprintf(w, "%d init\n", r)
		for i := range iters {
			fmt.Fprintf(w, "%d compute %g\n%d irecv %d 0 1024 0\n%d isend %d 0 1024 0\n%d waitall 2\n%d allreduce 1 0 0\n",
				r, 1e6+float64(i), r, (r+ranks-1)%ranks, r, (r+1)%ranks, r, r)
		}
		lines += 1 + 5*iters
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return p, lines
}

// BenchmarkImportSimGrid reads a 64-rank TI trace of 640,064 lines; it
// reports the time and allocations per line (the allocations are the
// growth of the in-memory trace's per-rank slices and the parsing of
// non-integer flops).
func BenchmarkImportSimGrid(b *testing.B) {
	path, lines := writeTI(b, 64, 2000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := simgrid.Read(path, simgrid.Options{Speed: 1e9}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*lines), "ns/line")
}
