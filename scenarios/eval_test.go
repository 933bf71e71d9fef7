package scenarios

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/scenarios/results"
)

func TestDefaultScenarioSweep(t *testing.T) {
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := Run(context.Background(), sc, Replayer{}, RunOptions{OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Points != 21 || sum.Computed != 21 {
		t.Fatalf("summary %+v", sum)
	}
	schema, rows, err := results.ReadArrow(filepath.Join(dir, results.ArrowFile))
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int { return schema.Index(name) }
	uncapped := rows[0].Values[col("makespan_ns")].(int64)
	peakUncapped := rows[0].Values[col("peak_power_w")].(float64)
	// 16 ranks at 2.1 GHz on 4 sockets: 180 W base, 12 W per busy core.
	if peakUncapped > 180+16*12+1e-9 || peakUncapped < 180+16*1.5 {
		t.Errorf("uncapped peak %.1f W outside [204, 372]", peakUncapped)
	}
	prev := int64(1 << 62)
	for _, r := range rows[1:11] {
		capW := r.Values[col("cap_w")].(float64)
		ms := r.Values[col("makespan_ns")].(int64)
		if ms < uncapped {
			t.Errorf("static at %g W (%d ns) beats the uncapped run (%d ns)", capW, ms, uncapped)
		}
		if ms > prev {
			t.Errorf("static makespan rises from %d to %d ns as the cap rises to %g W", prev, ms, capW)
		}
		prev = ms
		if over := r.Values[col("over_cap_ns")].(int64); capW >= 290 && over != 0 {
			t.Errorf("static at %g W spends %d ns over its cap", capW, over)
		}
	}
	if last := rows[10].Values[col("makespan_ns")].(int64); last != uncapped {
		t.Errorf("static at 380 W (every core fits 2.1 GHz) gives %d ns, uncapped %d ns", last, uncapped)
	}
	// The LP rows: the bound at every cap, and at 380 W (every task fast)
	// the rounded schedule is the uncapped run. Its over-cap time is
	// reported, not asserted: the replay is as soon as possible.
	for _, r := range rows[11:] {
		if r.Values[col("policy")] != "lp" || r.Values[col("bound_ns")] == nil {
			t.Fatalf("lp row %v", r.Values)
		}
		if bnd, ms := r.Values[col("bound_ns")].(int64), r.Values[col("makespan_ns")].(int64); bnd != rows[r.Index-10].Values[col("bound_ns")].(int64) || ms <= 0 {
			t.Errorf("lp row %d: bound %d, makespan %d", r.Index, bnd, ms)
		}
	}
	if last := rows[20].Values[col("makespan_ns")].(int64); last != uncapped {
		t.Errorf("lp at 380 W gives %d ns, uncapped %d ns", last, uncapped)
	}
	// Byte-identical on a second run.
	dir2 := t.TempDir()
	if _, err := Run(context.Background(), sc, Replayer{}, RunOptions{OutDir: dir2, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{results.ArrowFile, results.CSVFile} {
		a, _ := os.ReadFile(filepath.Join(dir, f))
		b, _ := os.ReadFile(filepath.Join(dir2, f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between runs", f)
		}
	}
}

func TestWorkloadParamErrors(t *testing.T) {
	base := string(Default())
	for _, tc := range []struct{ from, to, want string }{
		{"iterations = 20", `iterations = "many"`, "key workload.params.iterations: want an integer"},
		{"iterations = 20", "iterations = 20\ncolour = 3", "key workload.params.colour: unknown parameter"},
		{"ranks = 16", "ranks = 12", "key workload.params.ranks: 12 ranks, but the process grid [4 4] has 16"},
		{`generator = "stencil2d"`, `generator = "lulesh"`, "key workload.generator: unknown generator"},
		{`imbalance = "charged-field"`, `imbalance = "zigzag"`, "unknown imbalance"},
	} {
		sc, err := Parse("s.toml", []byte(strings.Replace(base, tc.from, tc.to, 1)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = sc.Graph(nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "s.toml") {
			t.Errorf("%s: err = %v, want %q", tc.to, err, tc.want)
		}
	}
}

// The conductor policy on the default scenario: at every cap where Static
// stays within its cap, Conductor does too (every rank within its share,
// the shares adding up to the cap), it is never faster than the uncapped
// run, and the LP bound comes along for the gap.
func TestConductorPolicy(t *testing.T) {
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	m := &sc.Machines[0]
	g, err := sc.Graph(nil)
	if err != nil {
		t.Fatal(err)
	}
	unc, err := sc.Replay(g, m, sc.Net(), "uncapped", 0)
	if err != nil {
		t.Fatal(err)
	}
	var pts []Point
	for _, c := range []float64{290, 320, 350, 380} {
		pts = append(pts, Point{Machine: 0, Policy: "conductor", CapW: c})
	}
	var got []Metrics
	err = Replayer{}.Evaluate(context.Background(), sc, pts, func(p Point, met Metrics) error {
		got = append(got, met)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, met := range got {
		if met.OverCapNs != 0 {
			t.Errorf("conductor at %g W spends %d ns over the cap", pts[i].CapW, met.OverCapNs)
		}
		if met.MakespanNs < unc.MakespanNs {
			t.Errorf("conductor at %g W (%d ns) beats the uncapped run (%d ns)", pts[i].CapW, met.MakespanNs, unc.MakespanNs)
		}
		if met.BoundNs <= 0 {
			t.Errorf("conductor at %g W: no bound", pts[i].CapW)
		}
	}
}
