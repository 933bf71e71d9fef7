package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/scenarios"
	"github.com/capsim/capsim/traces/arrowtrace"
)

// TestMinEnergyMatchesSweep sweeps a short run of the default scenario's
// workload under lp and min-energy (5 % slowdown) at two caps, checks
// that min-energy keeps the cap at both, ends within the slowdown of lp
// and uses less energy than lp (380 W: 3.934 J against 4.422 J; 320 W,
// where the cap binds and its schedule needs headroom to replay within
// it: 3.891 J against 3.902 J), and that
// capsim policy min-energy on the same trace replays the sweep's point
// exactly.
func TestMinEnergyMatchesSweep(t *testing.T) {
	dir, sc := lpDefault(t)
	text := string(sc.Text)
	for _, r := range [][2]string{
		{`policies = ["uncapped", "static", "conductor", "lp"]`, `policies = ["lp", "min-energy"]` + "\nslowdown_pct = 5"},
		{`caps = "290:380:10"`, `caps = "320:380:60"`},
		{"iterations = 20", "iterations = 4"},
	} {
		if !strings.Contains(text, r[0]) {
			t.Fatalf("the default scenario has no %q", r[0])
		}
		text = strings.Replace(text, r[0], r[1], 1)
	}
	scFile := filepath.Join(dir, "me.toml")
	if err := os.WriteFile(scFile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	short, err := scenarios.Load(scFile)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := short.Trace(nil)
	if err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "stencil.arrow")
	if err := arrowtrace.WriteMPI(trace, tr); err != nil {
		t.Fatal(err)
	}
	rows := sweepRows(t, scFile, filepath.Join(dir, "sweep"))
	pts := map[string]map[string]string{} // policy cap → row
	for _, r := range rows[1:] {
		row := map[string]string{}
		for i, h := range rows[0] {
			row[h] = r[i]
		}
		pts[row["policy"]+" "+row["cap_w"]] = row
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return v
	}
	for _, capW := range []string{"320", "380"} {
		me, lp := pts["min-energy "+capW], pts["lp "+capW]
		if me == nil || lp == nil {
			t.Fatalf("no lp or min-energy point at %s W: %v", capW, rows)
		}
		if me["over_cap_ns"] != "0" || num(me["peak_power_w"]) > num(capW) {
			t.Errorf("%s W: min-energy over the cap for %s ns, peak %s W", capW, me["over_cap_ns"], me["peak_power_w"])
		}
		if num(me["energy_j"]) >= num(lp["energy_j"]) || num(me["makespan_ns"]) > 1.05*num(lp["makespan_ns"]) {
			t.Errorf("%s W: min-energy %s ns %s J, lp %s ns %s J", capW, me["makespan_ns"], me["energy_j"], lp["makespan_ns"], lp["energy_j"])
		}
	}
	want := pts["min-energy 320"]
	code, js, stderr := capsim(t, "policy", "min-energy", trace, "--cap", "320", "--scenario", scFile, "--json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var r scenarios.PolicyReport
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{"makespan_ns": fmt.Sprint(r.Result.MakespanNs), "bound_ns": fmt.Sprint(r.LP.BoundNs),
		"energy_j": fmt.Sprint(r.Result.EnergyJ), "peak_power_w": fmt.Sprint(r.Result.PeakW)}
	for k, v := range got {
		if want[k] != v {
			t.Errorf("%s: capsim policy min-energy gives %s, the sweep's point %s", k, v, want[k])
		}
	}
	if r.SlowdownPct != 5 {
		t.Errorf("slowdown %g %%, want the scenario's 5", r.SlowdownPct)
	}
	if code, _, stderr := capsim(t, "policy", "min-energy", trace, "--scenario", scFile); code != 2 || !strings.Contains(stderr, "needs --cap") {
		t.Errorf("no cap: exit %d, %s", code, stderr)
	}
	if code, _, stderr := capsim(t, "policy", "min-energy", trace, "--cap", "320", "--slowdown-pct", "-1", "--scenario", scFile); code != 2 || !strings.Contains(stderr, "--slowdown-pct -1") {
		t.Errorf("negative slowdown: exit %d, %s", code, stderr)
	}
}
