package schedplot

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/optimize/sched"
)

func TestWriteFile(t *testing.T) {
	rows := []sched.Row{
		{Graph: "a", Policy: "fs", CapW: 40, RelPerf: 1}, {Graph: "a", Policy: "sas", CapW: 40, RelPerf: 1.2},
		{Graph: "a", Policy: "fs", CapW: 60, RelPerf: 1}, {Graph: "a", Policy: "sas", CapW: 60, RelPerf: 1.1},
		{Graph: "b", Policy: "fs", CapW: 40, RelPerf: 1}, {Graph: "b", Policy: "sas", CapW: 40, RelPerf: 0.9},
	}
	dir := t.TempDir()
	for name, magic := range map[string][]byte{"f.png": []byte("\x89PNG"), "f.svg": []byte("<?xml")} {
		p := filepath.Join(dir, name)
		if err := WriteFile(p, rows, []string{"fs", "sas"}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil || !bytes.HasPrefix(b, magic) {
			t.Errorf("%s: %v, starts %.8q", name, err, b)
		}
	}
	if err := WriteFile(filepath.Join(dir, "f.pdf"), rows, []string{"sas"}); err == nil {
		t.Error("a .pdf plot was written")
	}
}
