package main

import (
	"strings"
	"testing"
)

// TestMDPage checks the page's title, command line and plot links, which
// are relative to the page.
func TestMDPage(t *testing.T) {
	for _, c := range []struct {
		name, md, plots string
		scaling         bool
		want, not       []string
	}{
		{"plots beside the page", "docs/perf/README.md", "docs/perf", true,
			[]string{"# Performance\n", "`go run ./bench/run -md docs/perf/README.md`", "](scaling_time.png)", "](scaling_memory.png)", "BODY"}, nil},
		{"plots elsewhere", "docs/perf/README.md", "out/plots", true,
			[]string{"](../../out/plots/scaling_time.png)"}, nil},
		{"no plots", "docs/perf/README.md", "", true, []string{"BODY"}, []string{"scaling_time"}},
		{"no scaling table", "docs/perf/README.md", "docs/perf", false, []string{"BODY"}, []string{"scaling_time"}},
	} {
		got := mdPage(c.md, c.plots, c.scaling, []string{"-md", "docs/perf/README.md"}, "BODY\n")
		for _, s := range c.want {
			if !strings.Contains(got, s) {
				t.Errorf("%s: page has no %q:\n%s", c.name, s, got)
			}
		}
		for _, s := range c.not {
			if strings.Contains(got, s) {
				t.Errorf("%s: page has %q:\n%s", c.name, s, got)
			}
		}
	}
}
