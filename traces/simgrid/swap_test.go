package simgrid

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSwappedRankFile: every line of a SimGrid rank file starts with its
// rank, so a rank file copied over another is refused at its first line,
// naming both files.
func TestSwappedRankFile(t *testing.T) {
	for _, tc := range []struct {
		trace    string
		from, to int
	}{
		{"jacobi", 1, 2},
		{"jacobi", 15, 0},
		{"alltoall", 0, 3},
	} {
		t.Run(fmt.Sprintf("%s/%d-over-%d", tc.trace, tc.from, tc.to), func(t *testing.T) {
			src := filepath.Join("testdata", "ti", tc.trace)
			dir := t.TempDir()
			ents, err := os.ReadDir(src)
			if err != nil {
				t.Fatal(err)
			}
			var index strings.Builder
			for r := range ents {
				fmt.Fprintf(&index, "%s/rank-%d.txt\n", tc.trace, r)
			}
			if err := os.MkdirAll(filepath.Join(dir, tc.trace), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				data, err := os.ReadFile(filepath.Join(src, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				if e.Name() == fmt.Sprintf("rank-%d.txt", tc.to) {
					if data, err = os.ReadFile(filepath.Join(src, fmt.Sprintf("rank-%d.txt", tc.from))); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(filepath.Join(dir, tc.trace, e.Name()), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			idx := filepath.Join(dir, tc.trace+".txt")
			if err := os.WriteFile(idx, []byte(index.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = Read(idx, Options{})
			if err == nil {
				t.Fatal("read a trace with a rank file copied over another")
			}
			file := func(r int) string { return filepath.Join(dir, tc.trace, fmt.Sprintf("rank-%d.txt", r)) }
			for _, w := range []string{file(tc.to) + ":", fmt.Sprintf("line of rank %d in the file the index lists for rank %d", tc.from, tc.to), file(tc.from), "copied over"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
