package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
)

// TestPerfPageNamesTheWorkloads checks that the workload table of
// docs/perf/README.md (written by `make bench`) and the benchmark list
// name the same workloads: every workload has a row whose first cell is
// its name, and every row of that table is a workload, so the page shows
// what `go run ./bench/run` measures.
func TestPerfPageNamesTheWorkloads(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testenv.ModuleRoot(t), "docs", "perf", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "\n| workload | events | min wall |")
	if i < 0 {
		t.Fatal("docs/perf/README.md has no benchmark table (| workload | events | min wall | ...)")
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
			t.Errorf("docs/perf/README.md's benchmark table has no row %q", w.Name)
		}
	}
	for _, r := range rows {
		if !names[r] {
			t.Errorf("docs/perf/README.md's benchmark row %q is no workload of bench.Workloads", r)
		}
	}
}
