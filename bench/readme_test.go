package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
)

// TestReadmeNamesTheWorkloads checks that the README's performance table
// and the benchmark list name the same workloads: every workload has a
// row whose first cell is its name, and every row of that table is a
// workload, so the README shows what `go run ./bench/run` measures.
func TestReadmeNamesTheWorkloads(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testenv.ModuleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "\n| workload | events | min wall |")
	if i < 0 {
		t.Fatal("README has no benchmark table (| workload | events | min wall | ...)")
	}
	var rows []string
	for _, l := range strings.Split(text[i+1:], "\n")[2:] {
		if !strings.HasPrefix(l, "| ") {
			break
		}
		rows = append(rows, strings.TrimSpace(strings.Split(l, "|")[1]))
	}
	names := map[string]bool{}
	for _, w := range Workloads() {
		names[w.Name] = true
		found := false
		for _, r := range rows {
			found = found || r == w.Name
		}
		if !found {
			t.Errorf("README's benchmark table has no row %q", w.Name)
		}
	}
	for _, r := range rows {
		if !names[r] {
			t.Errorf("README's benchmark row %q is no workload of bench.Workloads", r)
		}
	}
}
