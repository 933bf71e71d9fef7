package chakra

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPathsNamesGap: NPU files numbered with a gap name the first missing
// NPU and a file after it (it said "2 NPU files but one numbered 2").
func TestPathsNamesGap(t *testing.T) {
	b := encTrace(tnode{id: 1, name: "k", typ: CompNode, dur: 5})
	dir := writeNPUs(t, b, b)
	if err := os.Rename(filepath.Join(dir, "et.1.et"), filepath.Join(dir, "et.2.et")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "et.0.et")} {
		_, err := Paths(p)
		if err == nil || !strings.Contains(err.Error(), "the file of NPU 1 is missing, but et.2.et is there") {
			t.Errorf("Paths(%s): %v, want NPU 1 named missing", p, err)
		}
	}
}
