package liballprof

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestFilesRefusesGap: rank files numbered with a gap (rank 2 missing,
// rank 3 there) are refused naming the missing rank, given the rank-0
// file or the folder; the ranks after the gap were silently dropped.
func TestFilesRefusesGap(t *testing.T) {
	src := filepath.Join("testdata", "p2p")
	dir := t.TempDir()
	for _, r := range []string{"0", "1", "3"} {
		b, err := os.ReadFile(filepath.Join(src, "trace_p2p-"+r+".dat"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "trace_p2p-"+r+".dat"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{dir, filepath.Join(dir, "trace_p2p-0.dat")} {
		_, err := Files(p)
		var gap *GapError
		if !errors.As(err, &gap) || gap.Missing != 2 || gap.Later != "trace_p2p-3.dat" {
			t.Errorf("Files(%s): %v, want rank 2 missing and trace_p2p-3.dat named", p, err)
		}
		if _, err := ReadFile(p); !errors.As(err, &gap) {
			t.Errorf("ReadFile(%s): %v, want a GapError", p, err)
		}
	}
	// Without the gap, the files are the trace's, and files of another
	// trace in the folder do not count.
	os.WriteFile(filepath.Join(dir, "trace_p2p-2.dat"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "other-7.dat"), []byte("x"), 0o644)
	if fs, err := Files(filepath.Join(dir, "trace_p2p-0.dat")); err != nil || len(fs) != 4 {
		t.Errorf("Files: %v, %v; want 4 files", fs, err)
	}
}
