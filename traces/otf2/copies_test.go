//go:build cgo && !nootf2

package otf2

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/otf2write"
	"github.com/capsim/capsim/internal/testenv"
)

// copyTrace copies the OTF2 trace folder src into a new temporary folder
// and returns the copy's anchor file.
func copyTrace(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dst, "traces.otf2")
}

// TestCopiedEventFile: a location's event file copied over another's is
// refused, naming both files, whether the two hold as many records (a
// ping-pong, which replayed as a deadlock) or not (which was reported as
// a truncated file); the untouched traces read.
func TestCopiedEventFile(t *testing.T) {
	dir := testenv.Shared(t, "traces/otf2")
	for _, tc := range []struct {
		trace    string
		from, to string // event files: from copied over to ("": none)
	}{
		{"pipit-pingpong", "", ""},
		{"pipit-pingpong", "0", "1"},
		{"pipit-pingpong", "1", "0"},
		{"pipit-pingpong-papi", "1", "0"},
		{"tracer-stencil4d-32", "", ""},
		{"tracer-stencil4d-32", "1", "2"},
		{"tracer-stencil4d-32", "31", "0"},
		{"sstmacro-otf2test", "3", "7"},
	} {
		t.Run(tc.trace+"/"+tc.from+"-over-"+tc.to, func(t *testing.T) {
			anchor := copyTrace(t, filepath.Join(dir, tc.trace))
			evts := filepath.Join(filepath.Dir(anchor), "traces")
			if tc.from != "" {
				data, err := os.ReadFile(filepath.Join(evts, tc.from+".evt"))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(evts, tc.to+".evt"), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Read(anchor, Options{})
			if tc.from == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("read a trace with a copied event file")
			}
			for _, w := range []string{filepath.Join(evts, tc.from+".evt"), filepath.Join(evts, tc.to+".evt"), "copied over"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestSameEventFilesOfCollectives: ranks of collectives alone whose
// event files are the same (a synthetic trace's identical timelines)
// read: whichever file each rank reads, its replay is the same.
func TestSameEventFilesOfCollectives(t *testing.T) {
	dir := t.TempDir()
	w, err := otf2write.Create(dir, otf2write.Defs{Resolution: fxRes, Offset: fxOffset, Ranks: 2, Threads: 1,
		Regions: fxRegions, Comms: []otf2write.Comm{{Name: "MPI_COMM_WORLD", Members: []uint64{0, 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 2; r++ {
		l := &loc{t: t, w: w, id: r}
		l.at(0).enter(fxMain).wait(100)
		l.call(fxAllreduce, 10, otf2write.Event{Kind: otf2write.CollBegin},
			otf2write.Event{Kind: otf2write.CollEnd, Op: opAllreduce, Comm: 0, Root: none, Sent: 8, Recv: 8})
		l.wait(100).leave(fxMain)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	anchor := filepath.Join(dir, "traces.otf2")
	a, _ := os.ReadFile(evtFile(anchor, 0))
	b, _ := os.ReadFile(evtFile(anchor, 1))
	if len(a) == 0 || string(a) != string(b) {
		t.Fatalf("the two event files differ (%d, %d bytes): the test does not test", len(a), len(b))
	}
	tr, err := Read(anchor, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Ranks) != 2 {
		t.Errorf("%d ranks, want 2", len(tr.Ranks))
	}
}
