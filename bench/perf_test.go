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

// TestReadmeQuotesPerfPage checks that the line of `make bench` output
// the README's Performance section quotes (its text block) is on
// docs/perf/README.md, the page that run wrote, so the quote stays true
// when the page is rewritten.
func TestReadmeQuotesPerfPage(t *testing.T) {
	root := testenv.ModuleRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "perf", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(readme), "\n## Performance\n")
	sec, _, _ = strings.Cut(sec, "\n## ")
	_, quote, ok2 := strings.Cut(sec, "```text\n")
	quote, _, ok3 := strings.Cut(quote, "```")
	if !ok || !ok2 || !ok3 || strings.TrimSpace(quote) == "" {
		t.Fatal("README.md's Performance section quotes no bench output (a ```text block)")
	}
	for _, l := range strings.Split(strings.TrimSpace(quote), "\n") {
		if !strings.Contains(string(page), l) {
			t.Errorf("README.md quotes %q, which docs/perf/README.md does not have", l)
		}
	}
}
