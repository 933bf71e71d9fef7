package importer

import (
	"path/filepath"
	"strings"
	"testing"
)

// Files lists every file Read reads, the one the path names first: each
// rank file of a liballprof trace (from its rank-0 file or its folder), a
// SimGrid index and the action files it lists, and the single file of a
// one-file format.
func TestFiles(t *testing.T) {
	lap := filepath.Join("..", "liballprof", "testdata", "p2p")
	ti := filepath.Join("..", "simgrid", "testdata", "ti")
	for _, tc := range []struct {
		path  string
		first string
		n     int
		each  string
	}{
		{filepath.Join(lap, "trace_p2p-0.dat"), filepath.Join(lap, "trace_p2p-0.dat"), 4, "trace_p2p-"},
		{lap, filepath.Join(lap, "trace_p2p-0.dat"), 4, "trace_p2p-"},
		{filepath.Join(ti, "cg.txt"), filepath.Join(ti, "cg.txt"), 0, ""},
		{filepath.Join("..", "..", "examples", "traces", "ti.txt"), filepath.Join("..", "..", "examples", "traces", "ti.txt"), 1, "ti.txt"},
	} {
		files, err := Files(tc.path, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if files[0] != tc.first {
			t.Errorf("%s: first file %s, want %s", tc.path, files[0], tc.first)
		}
		if tc.n > 0 && len(files) != tc.n {
			t.Errorf("%s: %d files, want %d: %v", tc.path, len(files), tc.n, files)
		}
		if tc.n == 0 && len(files) < 3 {
			t.Errorf("%s: %d files, want the index and its action files: %v", tc.path, len(files), files)
		}
		for _, f := range files[1:] {
			if !strings.Contains(filepath.Base(f), tc.each) {
				t.Errorf("%s: lists %s", tc.path, f)
			}
		}
	}
	if _, err := Files(filepath.Join(lap, "trace_p2p-2.dat"), Options{}); err == nil || !strings.Contains(err.Error(), "rank-0 file") {
		t.Errorf("a rank-2 file: err = %v, want the rank-0 file named", err)
	}
}
