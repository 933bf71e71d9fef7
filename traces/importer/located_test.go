//go:build cgo && !nootf2

package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/mpi"
)

// TestLocated: an OTF2 trace is read again for where its events were
// recorded; another format, a trace whose file gives other events, and a
// trace already located are returned as they are.
func TestLocated(t *testing.T) {
	hybrid := filepath.Join("..", "otf2", "testdata", "dialects", "hybrid", "traces.otf2")
	dir := t.TempDir()
	ti := filepath.Join(dir, "x.ti")
	if err := os.WriteFile(ti, []byte("0 init\n0 compute 10\n0 finalize\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(path string) *mpi.Trace {
		it, err := Read(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return it.MPI
	}
	otf := read(hybrid)
	fewer := *otf
	fewer.Ranks = append([]mpi.Rank(nil), otf.Ranks...)
	fewer.Ranks[0].Events = fewer.Ranks[0].Events[1:]
	located := Located(otf, hybrid, Options{})
	for _, tc := range []struct {
		name  string
		t     *mpi.Trace
		path  string
		same  bool   // Located returns t itself
		where string // what event 0 of rank 0 is named by otherwise
	}{
		{"otf2", otf, hybrid, false, hybrid + " location "},
		{"otf2 folder", otf, filepath.Dir(hybrid), false, hybrid + " location "},
		{"otf2 already located", located, hybrid, true, ""},
		{"otf2 file of other events", &fewer, hybrid, true, ""},
		{"simgrid", read(ti), ti, true, ""},
		{"nil", nil, hybrid, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Located(tc.t, tc.path, Options{})
			if (got == tc.t) != tc.same {
				t.Fatalf("Located returned t itself: %v, want %v", got == tc.t, tc.same)
			}
			if tc.same {
				return
			}
			if src := got.Source(0, 0); !strings.HasPrefix(src, tc.where) || !strings.Contains(src, " ticks = ") {
				t.Errorf("event 0 of rank 0 named %q, want %q…", src, tc.where)
			}
			if tc.t.Where != nil {
				t.Error("Located changed t")
			}
		})
	}
}
