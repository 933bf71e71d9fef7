package importer_test

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/mpi"
)

func TestConvert(t *testing.T) {
	dir := t.TempDir()
	st := gen.Stencil{Dims: []int{2, 2}, Iterations: 2, HaloBytes: 1024, ComputeNs: 1000, Imbalance: "none", Balance: 1, Intensity: 1, AllreduceBytes: 8}
	tr, err := st.Generate()
	if err != nil {
		t.Fatal(err)
	}
	mpiPath := filepath.Join(dir, "s.arrow")
	if err := arrowtrace.WriteMPI(mpiPath, tr); err != nil {
		t.Fatal(err)
	}
	goalPath := filepath.Join(dir, "p.goal")
	if err := os.WriteFile(goalPath, []byte("num_ranks 2\nrank 0 {\nl1: send 8b to 1\nl2: calc 5\nl1 requires l2\n}\nrank 1 {\nrecv 8b from 0\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outOrder := filepath.Join(dir, "o.goal") // rank blocks out of order: read whole
	if err := os.WriteFile(outOrder, []byte("num_ranks 2\nrank 1 {\nrecv 8b from 0\n}\nrank 0 {\nsend 8b to 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// import goal of x.goal.gz, or of <(gzip -c x.goal): GOAL forced,
	// read as Read reads a gzipped file ("unexpected \x1f\x8b outside a
	// rank block" before).
	gzPath := filepath.Join(dir, "p.goal.gz")
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte("num_ranks 2\nrank 0 {\nl1: send 8b to 1\n}\nrank 1 {\nrecv 8b from 0\n}\n"))
	zw.Close()
	if err := os.WriteFile(gzPath, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		in       string
		o        importer.ConvertOptions
		ranks    int
		mpi      bool
		streamed bool
		kind     arrowtrace.Kind
	}{
		{"MPI stays MPI", mpiPath, importer.ConvertOptions{}, 4, true, false, arrowtrace.KindMPI},
		{"MPI lowered", mpiPath, importer.ConvertOptions{Lower: true, Algorithms: map[mpi.Kind]string{mpi.Allreduce: "ring"}}, 4, false, false, arrowtrace.KindGraph},
		{"GOAL streamed", goalPath, importer.ConvertOptions{}, 2, false, true, arrowtrace.KindGraph},
		{"GOAL out of order", outOrder, importer.ConvertOptions{}, 2, false, false, arrowtrace.KindGraph},
		{"gzipped GOAL forced", gzPath, importer.ConvertOptions{Options: importer.Options{Format: "goal"}}, 2, false, true, arrowtrace.KindGraph},
	} {
		out := filepath.Join(dir, tc.name+".arrow")
		cv, err := importer.Convert(tc.in, out, tc.o)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if cv.MPI != tc.mpi || cv.Streamed != tc.streamed || cv.Ranks != tc.ranks {
			t.Errorf("%s: %+v", tc.name, cv)
		}
		if k, err := arrowtrace.Detect(out); err != nil || k != tc.kind {
			t.Errorf("%s: wrote %v (%v), want %v", tc.name, k, err, tc.kind)
		}
	}
}
