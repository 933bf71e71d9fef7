package scenarios

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/scenarios/results"
)

func sweepInto(t *testing.T, sc *Scenario, dir string) {
	t.Helper()
	if _, err := Run(context.Background(), sc, Replayer{}, RunOptions{OutDir: dir, Workers: 2}); err != nil {
		t.Fatal(err)
	}
}

// TestReportDefault writes the report of the default sweep and checks what
// a reader sees first: the title is the scenario's name, the summary names
// the machine, network, workload, caps and policies, the headline has a
// row per cap whose best policy is the fastest within the cap in the
// results table, every figure is a 1600 × 900 PNG beside its SVG, and the
// table shows units.
func TestReportDefault(t *testing.T) {
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sweepInto(t, sc, dir)
	files, err := WriteReport(dir, ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(files.Page)
	if err != nil {
		t.Fatal(err)
	}
	h := string(page)
	for _, want := range []string{
		"<title>capsim: stencil-charged-field</title>",
		"<h2>What was simulated</h2>",
		"<td>machine pal</td>", "2 nodes × 2 sockets × 8 cores, 8 ranks per node", "P-states (per active core): 2.1 GHz",
		"<td>network</td><td>LogGOPS L=",
		"<td>workload</td><td>generator stencil2d",
		"<td>power caps</td><td>10 caps, 290 to 380 W</td>",
		"<td>policies</td><td>uncapped, static, conductor, lp</td>",
		"<h2>Headline: the best policy at each cap</h2>",
		"<th>makespan (ms)</th>", "<th>avg_power (W)</th>",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(h, "288.79999999999995") || regexp.MustCompile(`\d\.\d{7,}`).MatchString(h) {
		t.Error("report prints raw floating-point numbers")
	}
	// The headline's best policy per cap against the results table.
	schema, rows, err := results.ReadArrow(filepath.Join(dir, results.ArrowFile))
	if err != nil {
		t.Fatal(err)
	}
	v := newView(schema)
	best := map[float64]string{}
	bestT := map[float64]float64{}
	for _, r := range rows {
		c, ok := v.num(r, v.capW)
		tm, ok2 := v.num(r, v.makespan)
		if !ok || !ok2 || !v.withinCap(r) {
			continue
		}
		if b, seen := bestT[c]; !seen || tm < b {
			best[c], bestT[c] = v.str(r, v.policy), tm
		}
	}
	if len(best) != 10 {
		t.Fatalf("%d caps with a schedule within the cap", len(best))
	}
	for c, pol := range best {
		row := fmt.Sprintf("<tr><td>pal</td><td></td><td>%s</td><td>%s</td><td>%.3f</td>", strconv.FormatFloat(c, 'g', -1, 64), pol, bestT[c]/1e6)
		if !strings.Contains(h, row) {
			t.Errorf("headline lacks %s", row)
		}
	}
	entries, err := os.ReadDir(files.Figures)
	if err != nil {
		t.Fatal(err)
	}
	pngs := 0
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".png" {
			continue
		}
		pngs++
		b, err := os.ReadFile(filepath.Join(files.Figures, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		if sz := img.Bounds().Size(); sz.X < 1600 {
			t.Errorf("%s is %v px, want ≥ 1600 wide", e.Name(), sz)
		}
		if _, err := os.Stat(filepath.Join(files.Figures, strings.TrimSuffix(e.Name(), ".png")+".svg")); err != nil {
			t.Errorf("%s has no SVG: %v", e.Name(), err)
		}
	}
	// The frontier section: every point of the results, none below the
	// frontier (the default sweep's replays keep the trace's order or end
	// above it: the closest, lp at 320 W, 2.69 % above).
	if !strings.Contains(h, "<h2>Energy–time frontier</h2>") {
		t.Error("report lacks the frontier section")
	}
	fr := regexp.MustCompile(`<tr><td>pal</td><td>([a-z-]+)</td><td>([0-9–]+)</td><td>[0-9.]+</td><td>[0-9.]+</td><td>[0-9.]+</td><td>(-?[0-9.]+)</td><td>(-?[0-9.]+)</td></tr>`).FindAllStringSubmatch(h, -1)
	if len(fr) != len(rows) {
		t.Errorf("the frontier table has %d points, the results %d", len(fr), len(rows))
	}
	for _, m := range fr {
		if pct, _ := strconv.ParseFloat(m[4], 64); pct < 0 {
			t.Errorf("%s at %s W: %s %% above the frontier", m[1], m[2], m[4])
		}
	}
	for _, name := range []string{"makespan_0", "gap_0", "energy_0", "frontier_pal", "detail_gantt", "detail_rank_power", "detail_job_power"} {
		if _, err := os.Stat(filepath.Join(files.Figures, name+".png")); err != nil {
			t.Errorf("figure %s missing", name)
		}
	}
	if pngs != files.Count {
		t.Errorf("%d PNGs, report says %d figures", pngs, files.Count)
	}
}

// TestReportCompare compares two sweeps of the default scenario, the
// second on a network with ten times the latency: every speedup printed is
// T_A/T_B of the two results tables, and report A B writes compare.html.
func TestReportCompare(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two sweeps")
	}
	a, b := t.TempDir(), t.TempDir()
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	sweepInto(t, sc, a)
	text := regexp.MustCompile(`(?m)^L_ns = \d+`).ReplaceAll(Default(), []byte("L_ns = 25000"))
	if bytes.Equal(text, Default()) {
		t.Fatal("default scenario has no L_ns line to change")
	}
	sc2, err := Parse("slow-net.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	sweepInto(t, sc2, b)
	files, err := WriteReport(b, ReportOptions{Compare: a, NoDetail: true})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(files.Page) != "compare.html" {
		t.Errorf("page %s", files.Page)
	}
	h, _ := os.ReadFile(files.Page)
	_, ra, _ := results.ReadArrow(filepath.Join(a, results.ArrowFile))
	sb, rb, _ := results.ReadArrow(filepath.Join(b, results.ArrowFile))
	v := newView(sb)
	n := 0
	for i := range rb {
		ta, _ := v.num(ra[i], v.makespan)
		tb, _ := v.num(rb[i], v.makespan)
		if v.str(rb[i], v.policy) != "static" {
			continue
		}
		c, _ := v.num(rb[i], v.capW)
		want := fmt.Sprintf("<td>static</td><td>%s</td><td>pal</td><td>pal</td><td>%.3f×</td>", strconv.FormatFloat(c, 'g', -1, 64), ta/tb)
		if !strings.Contains(string(h), want) {
			t.Errorf("comparison lacks %s", want)
		}
		n++
		if ta/tb >= 1 {
			t.Errorf("cap %g: a 10× latency sped static up (%.3f×)", c, ta/tb)
		}
	}
	if n != 10 {
		t.Errorf("%d static rows compared", n)
	}
}

// TestReportMachines checks the comparison of a scenario's machines with
// its first on the gpu-node example (three machines).
func TestReportMachines(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the gpu-node sweep")
	}
	root := testenv.ModuleRoot(t)
	sc, err := Load(filepath.Join(root, "examples", "scenarios", "gpu-node.toml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sweepInto(t, sc, dir)
	files, err := WriteReport(dir, ReportOptions{NoDetail: true})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := os.ReadFile(files.Page)
	for _, want := range []string{"<h2>Machines compared with cpu-node</h2>", "<td>cpu-node</td><td>gpu-node</td>", "<td>cpu-node</td><td>gpu-node-shared</td>", "accelerator gpu0 ×8 per node"} {
		if !strings.Contains(string(h), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(files.Figures, "machines_speedup.png")); err != nil {
		t.Error(err)
	}
}

// TestReportMissingColumns: a table that is not a sweep's names what it
// lacks.
func TestReportMissingColumns(t *testing.T) {
	dir := t.TempDir()
	st, err := results.Open(dir, "x", 1, results.Schema{{Name: "machine", Type: results.String}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(results.Row{Index: 0, Values: []any{"m"}}, 0); err != nil {
		t.Fatal(err)
	}
	if err := st.Finalize(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, err = WriteReport(dir, ReportOptions{NoDetail: true})
	if err == nil || !strings.Contains(err.Error(), "policy, cap_w, makespan_ns") {
		t.Errorf("error %v, want one naming the missing columns", err)
	}
}

// The headline never shows a bare negative gap: a best schedule below the
// bound carries its below_bound reason, "order changed" in brief.
func TestHeadlineBelowBound(t *testing.T) {
	s := results.Schema{{Name: "machine", Type: results.String}, {Name: "policy", Type: results.String}, {Name: "cap_w", Type: results.Float64},
		{Name: "makespan_ns", Type: results.Int64}, {Name: "bound_ns", Type: results.Int64}, {Name: "over_cap_ns", Type: results.Int64},
		{Name: "below_bound", Type: results.String}}
	rows := []results.Row{
		{Values: []any{"m", "conductor", 230.0, int64(928), int64(1000), int64(0), "order changed: rank 1's receives"}},
		{Values: []any{"m", "static", 230.0, int64(1100), int64(1000), int64(0), nil}},
		{Values: []any{"m", "static", 300.0, int64(1100), int64(1000), int64(0), nil}},
	}
	sec := headline(s, rows, "ns", nil)
	if len(sec.Rows) != 2 {
		t.Fatalf("%d rows, want 2", len(sec.Rows))
	}
	if got := sec.Rows[0][6]; got != "-7.20 (order changed)" {
		t.Errorf("gap below the bound %q, want it tagged", got)
	}
	if got := sec.Rows[1][6]; got != "10.00" {
		t.Errorf("gap above the bound %q", got)
	}
	if got := belowNote("the LP's message model is no bound (bound.messages)"); !strings.HasPrefix(got, " (below the bound: ") {
		t.Errorf("other reason: %q", got)
	}
}

// The report's network row names the topology and that its contention is
// outside the LP.
func TestSummaryTopology(t *testing.T) {
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	sc.Network.Topology = &NetTopology{Kind: "fattree", K: 4, N: 2}
	for _, r := range sc.summary().Rows {
		if r[0] == "network" {
			if !strings.Contains(r[1], "topology fattree (fattree:k=4,n=2)") || !strings.Contains(r[1], "outside the LP") {
				t.Errorf("network row %q", r[1])
			}
			return
		}
	}
	t.Error("no network row")
}
