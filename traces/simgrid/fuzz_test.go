package simgrid

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/traces/lower"
)

// FuzzRead feeds arbitrary single-file traces to Read (and what it accepts
// to the lowering): neither may panic. Seeds are in testdata/fuzz/FuzzRead.
func FuzzRead(f *testing.F) {
	f.Add([]byte("0 init\n1 init\n0 isend 1 0 8 0\n1 irecv 0 0 8 0\n0 wait 0 1 0\n1 waitall\n0 allreduce 1 0 0\n1 allreduce 1 0 0\n"))
	f.Add([]byte("0 init\n1 init\n0 alltoallv 2 1 1 2 1 1 0 0\n1 alltoallv 2 1 1 2 1 1\n0 gatherv 1 1 1 0 0 0\n1 gatherv 1 1 1 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "t.txt")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		Sniff(data)
		tr, err := Read(p, Options{Speed: 1e9})
		if err != nil {
			return
		}
		if len(tr.Ranks) > 64 {
			return // the lowering of huge rank counts is not this fuzzer's job
		}
		lower.Lower(tr, lower.Options{})
	})
}
