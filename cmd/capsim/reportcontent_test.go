package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReportContentOfUnusualSweeps: valid but unusual sweeps give a page
// whose every table cell is a number that is not negative where it cannot
// be, and whose headline says why a cap has no best policy rather than
// leaving it out.
func TestReportContentOfUnusualSweeps(t *testing.T) {
	_, def, _ := capsim(t, "scenario", "default")
	small := strings.NewReplacer("iterations = 20", "iterations = 2", `"290:380:10"`, `"300:340:20"`).Replace(def)
	negCell := regexp.MustCompile(`<td>-[0-9.]+(e-?[0-9]+)?</td>`)
	for _, tc := range []struct {
		name string
		edit func(string) string
		want []string // on the page
		not  []string // not on the page
	}{
		// Replays on the frontier, a few nJ off it by the LP's
		// tolerance, were shown below it (-4.8e-09 J, -0.00 %).
		{"microsecond job", strings.NewReplacer("compute_ns = 2000000", "compute_ns = 1", "halo_bytes = 32768", "halo_bytes = 0",
			"iterations = 2", "iterations = 1", `"300:340:20"`, `"290:310:10"`).Replace, nil, nil},
		// Every cap below the least any policy runs at: the headline
		// table was empty, saying nothing.
		{"every cap infeasible", strings.NewReplacer(`caps = "300:340:20"`, `caps_w = [190.0, 200.0]`).Replace,
			[]string{"none within the cap", "lp: no schedule at this cap", "No schedule exists", "pal lp at 190, 200 W"}, nil},
		// A 1 ns job on one rank: the detail said "energy 0.000 J" of
		// its 1.02e-07 J.
		{"nanosecond job", func(s string) string {
			s = strings.NewReplacer("nodes = 2\n", "nodes = 1\n", "ranks_per_node = 8", "ranks_per_node = 1", `"300:340:20"`, `"100:110:5"`).Replace(s)
			return regexp.MustCompile(`(?s)\[workload\].*?\[models\]`).ReplaceAllString(s, "[workload]\ntrace = \"one.goal\"\n\n[models]")
		},
			[]string{"energy 1.02e-07 J"}, []string{"energy 0.000 J"}},
		// Neither static nor uncapped swept: the report failed on its
		// default detail ("policy \"uncapped\" is not one of the
		// sweep's policies").
		{"conductor only", strings.NewReplacer(`policies = ["uncapped", "static", "conductor", "lp"]`, `policies = ["conductor"]`).Replace,
			[]string{"One point in detail: machine pal, policy conductor, cap 320 W"}, nil},
		// One point: the caps read "1 caps, 330 to 330 W".
		{"one point", strings.NewReplacer(`caps = "300:340:20"`, `caps_w = [330.0]`, `policies = ["uncapped", "static", "conductor", "lp"]`, `policies = ["static"]`).Replace,
			[]string{"1 cap, 330 W"}, []string{"1 caps", "330 to 330"}},
		// Only uncapped runs: the page listed the caps as swept, drew an
		// empty headline table and put the detailed run 0 ms above a cap
		// it never had.
		{"uncapped only", strings.NewReplacer(`policies = ["uncapped", "static", "conductor", "lp"]`, `policies = ["uncapped"]`).Replace,
			[]string{"(no policy of this sweep runs under them)", "No point of these results ran under a power cap"}, []string{"above the cap", "<th>best policy</th>"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, p, write := badInputDir(t)
			write("one.goal", "num_ranks 1\nrank 0 {\nl1: calc 1\n}\n")
			write("s.toml", tc.edit(small))
			if code, _, stderr := capsim(t, "sweep", p("s.toml"), "-o", p("out"), "--progress", "never"); code != 0 {
				t.Fatalf("sweep: %d %s", code, stderr)
			}
			if code, _, stderr := capsim(t, "report", p("out")); code != 0 {
				t.Fatalf("report: %d %s", code, stderr)
			}
			b, err := os.ReadFile(filepath.Join(p("out"), "report.html"))
			if err != nil {
				t.Fatal(err)
			}
			page := string(b)
			for _, m := range negCell.FindAllString(page, -1) {
				if !strings.Contains(page, "(order changed)") { // a replay that left the order may end below the bound or frontier
					t.Errorf("negative cell %s on the page", m)
				}
			}
			for _, bad := range []string{"NaN", "Inf", "undefined", "<td>-0.00</td>"} {
				if strings.Contains(page, bad) {
					t.Errorf("page holds %q", bad)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(page, w) {
					t.Errorf("page says %q", w)
				}
			}
			for _, w := range tc.want {
				if !strings.Contains(page, w) {
					t.Errorf("page does not say %q", w)
				}
			}
		})
	}
}
