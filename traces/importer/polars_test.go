package importer_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/liballprof"
	"github.com/capsim/capsim/traces/mpi"
)

// polars returns the path of the nodejs-polars writer script, skipping the
// test where node or the npm package is missing (failing under CI, which
// installs it with `npm ci`, see scripts/deps.sh).
func polars(t *testing.T) string {
	t.Helper()
	script, _ := filepath.Abs(filepath.Join("testdata", "js", "write.mjs"))
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not installed"
	} else if _, err := os.Stat(filepath.Join("testdata", "js", "node_modules", "nodejs-polars")); err != nil {
		missing = "nodejs-polars is not installed (run scripts/deps.sh or npm ci in traces/importer/testdata/js)"
	}
	if missing != "" {
		if os.Getenv("CI") != "" {
			t.Fatal(missing)
		}
		t.Skip(missing)
	}
	return script
}

// TestPolarsWrites has nodejs-polars write an MPI trace (the liballprof p2p
// test trace) as it does by default — Int64 integers, its string and list
// types, a Categorical kind, no capsim metadata — as an IPC file, with LZ4
// and ZSTD, and as an IPC stream, and checks that the registry reads each
// back to the same trace.
func TestPolarsWrites(t *testing.T) {
	script := polars(t)
	want, err := liballprof.ReadFile(filepath.Join("..", "liballprof", "testdata", "p2p"))
	if err != nil {
		t.Fatal(err)
	}
	want.Recorded = nil // the table polars writes has no recorded run
	cols := map[string][]any{}
	for r, rk := range want.Ranks {
		for i := range rk.Events {
			e := &rk.Events[i]
			var region any
			if e.Region != mpi.NoRegion {
				region = want.Regions[e.Region]
			}
			var list any
			if e.Kind == mpi.Waitall || e.Kind == mpi.Alltoallv {
				list = want.List(r, e)
			}
			for k, v := range map[string]any{"rank": r, "kind": e.Kind.String(), "region": region, "comm": e.Comm, "peer": e.Peer,
				"tag": e.Tag, "bytes": e.Bytes, "duration": e.Duration, "request": e.Req, "list": list} {
				cols[k] = append(cols[k], v)
			}
		}
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "cols.json")
	data, err := json.Marshal(cols)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("node", script, in, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	t.Logf("polars: %s", out)
	if f, err := os.Open(filepath.Join(dir, "polars.arrow")); err == nil {
		if fr, err := ipc.NewFileReader(f); err == nil {
			t.Logf("polars.arrow schema: %s", fr.Schema()) // what polars chose, for the record
			fr.Close()
		}
		f.Close()
	}
	for _, f := range []string{"polars.arrow", "polars-lz4.arrow", "polars-zstd.arrow", "polars.arrows"} {
		it, err := importer.Read(filepath.Join(dir, f), importer.Options{})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if it.Format != "arrow" || it.MPI == nil {
			t.Errorf("%s: read as %s (MPI %v)", f, it.Format, it.MPI != nil)
			continue
		}
		if !reflect.DeepEqual(it.MPI.WithoutSources(), want.WithoutSources()) {
			t.Errorf("%s: trace differs from the one written", f)
		}
	}
}
