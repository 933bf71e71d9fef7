package importer_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/traces/importer"
)

// TestLiballprofGapNamed: a liballprof folder whose rank files skip a
// rank is diagnosed as such (it was "a directory holding no trace capsim
// recognises"), and so is its rank-0 file.
func TestLiballprofGapNamed(t *testing.T) {
	src := filepath.Join("..", "liballprof", "testdata", "p2p")
	dir := t.TempDir()
	for from, to := range map[string]string{"0": "0", "1": "1", "2": "2", "3": "5"} { // rank 3 renamed 5
		b, err := os.ReadFile(filepath.Join(src, "trace_p2p-"+from+".dat"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "trace_p2p-"+to+".dat"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{dir, filepath.Join(dir, "trace_p2p-0.dat")} {
		_, err := importer.Read(p, importer.Options{})
		if err == nil || !strings.Contains(err.Error(), "the rank file of rank 3 is missing, but trace_p2p-5.dat is there") {
			t.Errorf("Read(%s): %v, want the missing rank named", p, err)
		}
	}
}

// TestChakraGapNamed: a Chakra folder with a gap in its NPU files, or
// without NPU 0's file, is diagnosed by the Chakra reader (it was "a
// directory holding no trace capsim recognises").
func TestChakraGapNamed(t *testing.T) {
	src := testenv.Shared(t, "traces/chakra/pytorch-kineto-1rank/chakra.0.et")
	real, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		files []string
		body  []byte
		want  string
	}{
		{[]string{"chakra.0.et", "chakra.2.et"}, real, "the file of NPU 1 is missing, but chakra.2.et is there"},
		{[]string{"chakra.1.et"}, real, "the file of NPU 0 is missing, but chakra.1.et is there"},
		{[]string{"step.1.et", "step.2.et"}, chakraFile(), "the file of NPU 0 is missing, but step.1.et is there"},
	} {
		dir := t.TempDir()
		for _, n := range tc.files {
			if err := os.WriteFile(filepath.Join(dir, n), tc.body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, err = importer.Read(dir, importer.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Read(%v): %v, want the missing NPU named", tc.files, err)
		}
	}
}
