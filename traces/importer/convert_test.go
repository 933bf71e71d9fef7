package importer_test

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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

// TestConvertKeepsFormatCollectives: a liballprof trace converted to an
// Arrow MPI trace keeps schedgen's collective algorithms, so that the
// Arrow file lowers to the same program as the trace (its barrier took
// capsim's default, 12 ns shorter per replay of barr4, before); a
// metadata value naming no collective or no algorithm is refused naming
// the file and the key.
func TestConvertKeepsFormatCollectives(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join("..", "liballprof", "testdata", "colls", "trace_colls-0.dat")
	out := filepath.Join(dir, "c.arrow")
	if _, err := importer.Convert(in, out, importer.ConvertOptions{}); err != nil {
		t.Fatal(err)
	}
	orig, err := importer.Read(in, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	conv, err := importer.Read(out, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(orig.Collectives) == 0 || !reflect.DeepEqual(orig.Collectives, conv.Collectives) || !reflect.DeepEqual(orig.MPI.Algorithms, conv.MPI.Algorithms) {
		t.Fatalf("collectives: trace %v, Arrow %v (trace's %v)", orig.Collectives, conv.Collectives, conv.MPI.Algorithms)
	}
	g1, err := orig.Lower(nil)
	if err != nil {
		t.Fatal(err)
	}
	g2, err := conv.Lower(nil)
	if err != nil {
		t.Fatal(err)
	}
	if g1.NumOps() != g2.NumOps() || g1.NumDeps() != g2.NumDeps() {
		t.Errorf("lowered: trace %d ops %d deps, Arrow %d ops %d deps", g1.NumOps(), g1.NumDeps(), g2.NumOps(), g2.NumDeps())
	}
	bad := filepath.Join(dir, "bad.arrow")
	tr := *orig.MPI
	tr.Algorithms = map[mpi.Kind]string{mpi.Barrier: "nope"}
	if err := arrowtrace.WriteMPI(bad, &tr); err != nil {
		t.Fatal(err)
	}
	_, err = importer.Read(bad, importer.Options{})
	if err == nil || !strings.Contains(err.Error(), `no algorithm "nope"`) || !strings.Contains(err.Error(), arrowtrace.MetaCollectives) || !strings.Contains(err.Error(), bad) {
		t.Errorf("err = %v, want the file, %s and the algorithm", err, arrowtrace.MetaCollectives)
	}
}
