package main

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/scenarios"
)

// TestFrontier runs capsim frontier on a small stencil: the JSON's curve
// starts at the fastest makespan, its energy never rises, the CSV holds
// the same points, the budget view ends at the fastest makespan, and a
// cap above the fastest schedule's peak changes nothing.
func TestFrontier(t *testing.T) {
	_, p, _ := badInputDir(t)
	code, out, stderr := capsim(t, "frontier", p("good.arrow"), "--json", "--points", "5", "--csv", p("f.csv"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep scenarios.FrontierReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Points) == 0 || rep.Points[0].DeadlineNs != rep.FastestNs {
		t.Fatalf("points %v do not start at the fastest makespan %d ns", rep.Points, rep.FastestNs)
	}
	for j := 1; j < len(rep.Points); j++ {
		if rep.Points[j].EnergyJ > rep.Points[j-1].EnergyJ*(1+1e-9) || rep.Points[j].DeadlineNs <= rep.Points[j-1].DeadlineNs {
			t.Errorf("points %v: energy rises or deadlines do not increase", rep.Points)
		}
	}
	if e := rep.Points[0].EnergyJ; e > rep.FastestEnergyJ*(1+1e-9) || rep.SavedPct0 < 0 || rep.SavedPct5 < rep.SavedPct0-1e-6 {
		t.Errorf("at the fastest makespan %g J against the fastest schedule's %g J; saved %g %% and %g %%", e, rep.FastestEnergyJ, rep.SavedPct0, rep.SavedPct5)
	}
	if last := rep.ByBudget[len(rep.ByBudget)-1]; last.DeadlineNs != rep.FastestNs {
		t.Errorf("the fastest schedule's energy %g J needs %d ns, want the fastest makespan %d ns", last.EnergyJ, last.DeadlineNs, rep.FastestNs)
	}
	csv, err := os.ReadFile(p("f.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(csv)), "\n"); len(lines) != len(rep.Points)+1 || lines[0] != "deadline_ns,energy_j" {
		t.Errorf("CSV %q: want a header and %d points", csv, len(rep.Points))
	}
	code, capped, stderr := capsim(t, "frontier", p("good.arrow"), "--json", "--points", "5", "--cap", "1e6")
	if code != 0 {
		t.Fatalf("--cap 1e6: exit %d: %s", code, stderr)
	}
	var crep scenarios.FrontierReport
	if err := json.Unmarshal([]byte(capped), &crep); err != nil {
		t.Fatal(err)
	}
	if crep.FastestNs != rep.FastestNs || len(crep.Points) != len(rep.Points) {
		t.Errorf("a cap of 1 MW changes the frontier: %v, uncapped %v", crep.Points, rep.Points)
	}
	for _, tc := range []struct {
		args []string
		part string
	}{
		{[]string{"--points", "1"}, "--points 1"},
		{[]string{"--cap", "-5"}, "--cap -5"},
	} {
		code, _, stderr := capsim(t, append([]string{"frontier", p("good.arrow")}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.part) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %q", tc.args, code, stderr, tc.part)
		}
	}
}

// TestFrontierCapTooLow: a cap below the least the order needs, above
// the base power or not, is an error naming that least cap (as capsim
// bound's), not the LP solver's "infeasible", and so is it for the
// policies that replay the LP's schedule; at that cap the fastest
// schedule is still the uncapped one, and the frontier starts at the
// least makespan within the cap.
func TestFrontierCapTooLow(t *testing.T) {
	_, p, _ := badInputDir(t)
	least := leastCap(t, p("good.arrow"))
	w, err := strconv.ParseFloat(least, 64)
	if err != nil {
		t.Fatal(err)
	}
	for _, capW := range []float64{1, w - 0.5} {
		c := strconv.FormatFloat(capW, 'g', -1, 64)
		code, _, stderr := capsim(t, "frontier", p("good.arrow"), "--cap", c)
		if code != 1 || !strings.Contains(stderr, "power cap "+c+" W is below the least power the schedule needs: "+least+" W") {
			t.Errorf("--cap %s: exit %d, stderr %q; want 1 naming the least feasible cap %s W", c, code, stderr, least)
		}
	}
	// The policies replay on a machine of as many ranks as the trace.
	if code, _, stderr := capsim(t, "gen", "stencil", "--dims", "4x4", "--iterations", "2", "-o", p("s16.arrow")); code != 0 {
		t.Fatalf("gen: %d %s", code, stderr)
	}
	least16 := leastCap(t, p("s16.arrow"))
	for _, pol := range []string{"min-energy", "lp"} {
		code, _, stderr := capsim(t, "policy", pol, p("s16.arrow"), "--cap", "1")
		if code != 1 || !strings.Contains(stderr, "below the least power the schedule needs, "+least16+" W") {
			t.Errorf("policy %s --cap 1: exit %d, stderr %q; want 1 naming the least feasible cap %s W", pol, code, stderr, least16)
		}
	}
	code, out, stderr := capsim(t, "frontier", p("good.arrow"), "--cap", least, "--json")
	if code != 0 {
		t.Fatalf("--cap %s (the least feasible): exit %d, %s", least, code, stderr)
	}
	code, uout, stderr := capsim(t, "frontier", p("good.arrow"), "--json")
	if code != 0 {
		t.Fatalf("no cap: exit %d, %s", code, stderr)
	}
	var capped, unc scenarios.FrontierReport
	if err := json.Unmarshal([]byte(out), &capped); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(uout), &unc); err != nil {
		t.Fatal(err)
	}
	// The fastest schedule is the same with a cap; the frontier starts
	// later, at the least makespan within the cap.
	if capped.FastestNs != unc.FastestNs || capped.FastestEnergyJ != unc.FastestEnergyJ || unc.LeastNs != unc.FastestNs ||
		capped.LeastNs <= unc.LeastNs || capped.Points[0].DeadlineNs != capped.LeastNs {
		t.Errorf("at %s W: fastest schedule %d ns, %g J, least makespan %d ns, first point %d ns; without a cap %d ns, %g J, %d ns",
			least, capped.FastestNs, capped.FastestEnergyJ, capped.LeastNs, capped.Points[0].DeadlineNs, unc.FastestNs, unc.FastestEnergyJ, unc.LeastNs)
	}
}

// leastCap is the least feasible cap capsim bound names for trace, as it
// prints it.
func leastCap(t *testing.T, trace string) string {
	t.Helper()
	code, _, stderr := capsim(t, "bound", trace, "--cap", "1")
	_, least, ok := strings.Cut(stderr, "needs: ")
	if code == 0 || !ok {
		t.Fatalf("bound --cap 1: exit %d, stderr %q: want the least feasible cap", code, stderr)
	}
	least, _, _ = strings.Cut(least, " W")
	return least
}

// TestFrontierOnePoint: where the least makespan already has the least
// energy (one rank, one task: slowing it costs more base energy than it
// saves), the frontier is one point and the text says why.
func TestFrontierOnePoint(t *testing.T) {
	_, _, write := badInputDir(t)
	g := write("one.goal", "num_ranks 1\n\nrank 0 {\nl1: calc 1000000\n}\n")
	code, out, stderr := capsim(t, "frontier", g, "--points", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	table := out[strings.Index(out, "deadline_ns"):]
	if n := strings.Count(strings.TrimSpace(table), "\n"); n != 1 || !strings.Contains(out, "no later deadline saves any") {
		t.Errorf("one task: %d points, output %q; want one point and why", n, out)
	}
	// Read the other way: one budget, the least energy's, not a first
	// budget above ten equal ones.
	code, out, stderr = capsim(t, "frontier", g, "--json")
	var rep scenarios.FrontierReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("--json: exit %d: %s", code, stderr)
	}
	if len(rep.ByBudget) != 1 || rep.ByBudget[0].DeadlineNs != rep.LeastNs || rep.ByBudget[0].EnergyJ < rep.Points[0].EnergyJ {
		t.Errorf("by budget %+v; want one budget at the least energy %+v", rep.ByBudget, rep.Points)
	}
}

// A graph of more ranks than the machine runs is refused by frontier as
// by bound, naming both counts: frontier priced the 17 ranks of a GOAL
// file on the default machine's 16 and printed a curve.
func TestFrontierGraphTooManyRanks(t *testing.T) {
	_, _, write := badInputDir(t)
	var b strings.Builder
	b.WriteString("num_ranks 17\n")
	for r := range 17 {
		b.WriteString("rank " + strconv.Itoa(r) + " {\nl1: calc 1000\n}\n")
	}
	g := write("wide.goal", b.String())
	for _, args := range [][]string{{"frontier", g}, {"bound", g, "--cap", "3000"}} {
		code, out, stderr := capsim(t, args...)
		if code != 1 || !strings.Contains(stderr, "wide.goal: the workload has 17 ranks but machine") {
			t.Errorf("%s: exit %d, stderr %q, stdout %q; want the ranks refused", args[0], code, stderr, out)
		}
	}
}
