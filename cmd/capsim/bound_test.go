package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/scenarios"
)

// capsim bound's JSON interface: the stable keys, every baseline filled
// in, the gaps as (T/T_LP − 1)·100, and a cap below the least feasible one
// exiting 1 with the minimum named.
func TestBoundJSON(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	mps := filepath.Join(t.TempDir(), "lp.mps")
	for _, rounding := range []string{"split", "nearest", "power-safe"} {
		code, out, stderr := capsim(t, "bound", "--cap", "330", "--json", "--rounding", rounding, "--mps", mps)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", rounding, code, stderr)
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"bound_ns", "rounded_ns", "static_ns", "conductor_ns", "min_feasible_cap_w", "lp"} {
			if r[k] == nil {
				t.Errorf("%s: %s missing or null", rounding, k)
			}
		}
		b, st := r["bound_ns"].(float64), r["static_ns"].(float64)
		if g := r["gap_static_pct"].(float64); g < (st/b-1)*100-0.01 || g > (st/b-1)*100+0.01 {
			t.Errorf("%s: static gap %v, want %v", rounding, g, (st/b-1)*100)
		}
		if r["rounding"] != rounding {
			t.Errorf("rounding %v, want %s", r["rounding"], rounding)
		}
		// No replay within the cap, whatever order it keeps, beats the
		// order-free lower bound, which is never above the fixed-order
		// bound.
		lo, _ := r["order_free_lower_ns"].(float64)
		if !(lo > 0) || lo > b {
			t.Errorf("%s: order_free_lower_ns %v, bound %v", rounding, r["order_free_lower_ns"], b)
		}
		for _, p := range []string{"rounded", "static", "conductor"} {
			if ns := r[p+"_ns"].(float64); r[p+"_over_cap_ns"].(float64) == 0 && ns < lo {
				t.Errorf("%s: %s replay %v ns below the order-free lower bound %v", rounding, p, ns, lo)
			}
		}
		if rounding == "power-safe" && r["rounded_switches"].(float64) != 0 {
			t.Errorf("power-safe switches %v", r["rounded_switches"])
		}
	}
	code, _, stderr := capsim(t, "bound", "--cap", "250", "--json")
	if code != 1 || !strings.Contains(stderr, "288.8 W") {
		t.Errorf("below the minimum: exit %d, %q", code, stderr)
	}
	if code, _, stderr := capsim(t, "bound", "--cap", "330", "--rounding", "up"); code != 2 || !strings.Contains(stderr, "unknown rounding") {
		t.Errorf("bad rounding: exit %d, %q", code, stderr)
	}
}

// The event order's options (Bailey et al., SC'15, §3.3) reach the output: the slack
// policy and tie tolerance used, and the number of events. Reading (b)
// and a tolerance both leave fewer events on the default scenario; bad
// values are usage errors.
func TestBoundOrderOptions(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	events := map[string]float64{}
	replayLP := filepath.Join(t.TempDir(), "replay.toml")
	if err := os.WriteFile(replayLP, append(scenarios.Default(), "\n[bound]\nmessages = \"replay\"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		args  []string
		order string
	}{
		{"default", nil, "stretch-into-local-slack"},
		{"late", []string{"--slack-policy", "late"}, "as-late-as-possible"},
	} {
		code, out, stderr := capsim(t, append([]string{"bound", "--scenario", replayLP, "--cap", "330", "--json"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r["order"] != c.order {
			t.Errorf("%s: order %v; want %s", c.name, r["order"], c.order)
		}
		events[c.name] = r["events"].(float64)
	}
	if !(events["late"] < events["default"]) {
		t.Errorf("events %v: want fewer with the late policy", events)
	}
	// The engine LP (the default) keeps its reference replay's order.
	for _, args := range [][]string{{"--slack-policy", "alap"}, {"--tie-us", "100"}, {"--slack-policy", "late"}} {
		if code, _, stderr := capsim(t, append([]string{"bound", "--cap", "330"}, args...)...); code != 2 {
			t.Errorf("%v: exit %d (%s), want a usage error", args, code, stderr)
		}
	}
}

// capsim bound --caps reports every infeasible cap with the least feasible
// one and goes on; it fails only when every cap is infeasible (issue 14:
// it stopped at the first).
func TestBoundCapsInfeasible(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	code, out, stderr := capsim(t, "bound", "--caps", "100:400:100", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4", len(rows))
	}
	for i, r := range rows {
		inf := r["infeasible"] == true
		if want := i < 2; inf != want {
			t.Errorf("cap %v: infeasible %v, want %v", r["cap_w"], inf, want)
		}
		if !inf && r["bound_ns"].(float64) <= 0 {
			t.Errorf("cap %v: no bound", r["cap_w"])
		}
	}
	if n := strings.Count(stderr, "below the least power"); n != 2 {
		t.Errorf("stderr names %d infeasible caps, want 2:\n%s", n, stderr)
	}
	if code, _, stderr := capsim(t, "bound", "--caps", "100:200:100"); code != 1 || !strings.Contains(stderr, "every cap") {
		t.Errorf("all infeasible: exit %d, %s", code, stderr)
	}
}

// capsim bound --order-free adds the least makespan over every event order
// (the Flow ILP of Bailey et al., SC'15, §3.4) to each cap: never above the fixed order's bound, its
// excess as order_free_gap_pct, and a search over its node limit stopped
// with the interval it reached. Without the flag the keys are absent.
func TestBoundOrderFree(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	tr := filepath.Join(t.TempDir(), "two.arrow")
	if code, _, stderr := capsim(t, "gen", "stencil", "--dims", "2x1", "--iterations", "2", "--imbalance", "random",
		"--balance", "0.3", "--allreduce-bytes", "0", "-o", tr); code != 0 {
		t.Fatalf("gen: %d %s", code, stderr)
	}
	// The replay-calibrated DAG: 4 tasks and 18 messages. The engine's
	// (the default) writes every CPU and NIC step: 70 messages.
	sc := filepath.Join(t.TempDir(), "replay.toml")
	if err := os.WriteFile(sc, append(scenarios.Default(), "\n[bound]\nmessages = \"replay\"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := capsim(t, "bound", tr, "--scenario", sc, "--caps", "150:350:50", "--order-free", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	strict := 0
	for _, r := range rows {
		if r["infeasible"] == true {
			continue
		}
		b, f := r["bound_ns"].(float64), r["order_free_ns"].(float64)
		if f > b {
			t.Errorf("cap %v: order-free %v above the fixed order's %v", r["cap_w"], f, b)
		}
		if f < b {
			strict++
		}
		if lo := r["order_free_lower_ns"].(float64); lo > f {
			t.Errorf("cap %v: order-free lower bound %v above the order-free optimum %v", r["cap_w"], lo, f)
		}
		if g := r["order_free_gap_pct"].(float64); math.Abs(g-(b/f-1)*100) > 0.01 {
			t.Errorf("cap %v: gap %v, want %v", r["cap_w"], g, (b/f-1)*100)
		}
	}
	if strict == 0 {
		t.Errorf("no cap where a free order beats the traced one:\n%s", out)
	}
	if code, out, _ := capsim(t, "bound", tr, "--cap", "300", "--json"); code != 0 || strings.Contains(out, "order_free_ns") || strings.Contains(out, "order_free_gap") {
		t.Errorf("without --order-free: exit %d, %s", code, out)
	}
	code, _, stderr = capsim(t, "bound", tr, "--cap", "300", "--order-free", "--order-free-nodes", "50")
	if code != 1 || !strings.Contains(stderr, "reached its limit of nodes (") || !strings.Contains(stderr, "the optimum lies between") {
		t.Errorf("--order-free-nodes 50: exit %d, %q", code, stderr)
	}
}

// On a 2×2 stencil of three iterations, 12 tasks (engine messages: every
// CPU and network interface serves one item at a time), the order-free
// optimum also chooses the order of each resource's items:
// order_free_lower_ns ≤ order_free_ns ≤ bound_ns, and no replay within the
// cap beats it, the Conductor replay that leaves the LP's CPU order and
// ends 7.19 % below the bound included.
func TestBoundOrderFreeResources(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	tr := filepath.Join(t.TempDir(), "s.arrow")
	if code, _, stderr := capsim(t, "gen", "stencil", "--dims", "2x2", "--iterations", "3", "--imbalance", "random",
		"--balance", "0.6", "-o", tr); code != 0 {
		t.Fatalf("gen: %d %s", code, stderr)
	}
	code, out, stderr := capsim(t, "bound", tr, "--caps", "230:250:20", "--order-free", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	strict, below := 0, 0
	for _, r := range rows {
		b, f, lo := r["bound_ns"].(float64), r["order_free_ns"].(float64), r["order_free_lower_ns"].(float64)
		if lo > f || f > b {
			t.Errorf("cap %v: lower %v, order-free %v, bound %v: want them in order", r["cap_w"], lo, f, b)
		}
		if f < b {
			strict++
		}
		if p, _ := r["order_free_pairs"].(float64); p == 0 {
			t.Errorf("cap %v: no unordered pairs", r["cap_w"])
		}
		for _, p := range []string{"rounded", "static", "conductor"} {
			ns, ok := r[p+"_ns"].(float64)
			if !ok || r[p+"_over_cap_ns"].(float64) > 0 {
				continue
			}
			if ns < f {
				t.Errorf("cap %v: %s replay %v ns below the order-free optimum %v", r["cap_w"], p, ns, f)
			}
			if ns < b {
				below++
			}
		}
	}
	if strict == 0 || below == 0 {
		t.Errorf("%d caps where a free resource order beats the traced one, %d replays below the bound; want both:\n%s", strict, below, out)
	}
}

// capsim bound's rounded column is by default the sweep's lp policy: the
// LP's schedule with the least headroom that replays within the cap at
// every instant. On docs/guide/bound.md's 32-rank stencil it stays within the cap
// at every cap, where the schedule at the cap itself (staggered) went
// over it at 1300 and 1400 W, and within 1 % of the bound.
func TestBoundRoundingLP(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	code, out, stderr := capsim(t, "bound", "--scenario", "../../examples/bound/stencil32.toml",
		"--table", "../../examples/bound/configs.csv", "--caps", "900:1400:250", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	for _, r := range rows {
		if r["rounding"] != "lp" {
			t.Errorf("cap %v: rounding %v, want lp", r["cap_w"], r["rounding"])
		}
		if oc := r["rounded_over_cap_ns"].(float64); oc != 0 {
			t.Errorf("cap %v: rounded replay over the cap for %v ns", r["cap_w"], oc)
		}
		if gap := r["gap_rounded_pct"].(float64); gap < 0 || gap > 1 {
			t.Errorf("cap %v: rounded %v %% above the bound, want 0–1 %%", r["cap_w"], gap)
		}
	}
}

// The bound table never prints a bare negative gap: a replay below the
// bound is tagged, "order changed" where it left the LP's order, with a
// footnote giving the reason in full.
func TestPrintBoundBelowBound(t *testing.T) {
	rns, cns := int64(1000), int64(928)
	rep := &scenarios.BoundReport{Machine: "m", Ranks: 4, Rows: []scenarios.BoundRow{{
		CapW: 230, BoundNs: 1000, RoundedNs: &rns, StaticNs: 1100, GapStaticPct: 10, ConductorNs: &cns, GapConductorPct: -7.2,
		ConductorBelowBound: "order changed: rank 1's receives", ConductorOrderChanged: true,
	}}}
	var b strings.Builder
	if err := printBound(&b, rep, true, false); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"-7.20 (order changed) [1]", "[1] 230 W, conductor: order changed: rank 1's receives", "10.00"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := printBound(&b, rep, true, true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"conductor_order_changed": true`, `"gap_conductor_pct": -7.2`, `"conductor_below_bound": "order changed: rank 1's receives"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("JSON lacks %s:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "static_order_changed") {
		t.Errorf("JSON flags static, which ended after the bound:\n%s", b.String())
	}
}

// With a topology, capsim bound says that link contention is outside the
// LP and how far the uncapped replay is above the LP's DAG.
func TestBoundTopologyContention(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	sc := filepath.Join(t.TempDir(), "fat.toml")
	text := strings.Replace(string(scenarios.Default()), "[workload]", "[network.topology]\nkind = \"fattree\"\nk = 4\nn = 2\nbw_GBps = 0.1\n\n[workload]", 1)
	if err := os.WriteFile(sc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := capsim(t, "bound", "--scenario", sc, "--cap", "380", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	unc, lp := r["uncapped_ns"].(float64), r["lp_uncapped_ns"].(float64)
	if got, want := r["uncapped_over_lp_pct"].(float64), math.Round(1e4*(unc/lp-1))/100; got != want {
		t.Errorf("uncapped_over_lp_pct %v, want %v", got, want)
	}
	if c, _ := r["contention"].(string); !strings.Contains(c, "fattree") || !strings.Contains(c, "outside the LP") {
		t.Errorf("contention %q", r["contention"])
	}
	if !strings.Contains(r["contention"].(string), "uncontended route") {
		t.Errorf("contention %q does not say how the LP prices a message", r["contention"])
	}
	code, out, _ = capsim(t, "bound", "--scenario", sc, "--cap", "380")
	// The LP prices every message at its uncontended route, so the
	// uncapped replay is above the LP's DAG by the slow links'
	// contention (58.044 ms against 44.778 ms), and no warning says the
	// bounds fail.
	if code != 0 || !strings.Contains(out, "outside the LP") || !strings.Contains(out, "uncapped replay against the LP's DAG: +") ||
		strings.Contains(out, "warning: the uncapped replay beats the LP's DAG") {
		t.Errorf("table: exit %d\n%s", code, out)
	}
}
