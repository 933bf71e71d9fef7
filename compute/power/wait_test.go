package power

import (
	"math"
	"testing"

	"github.com/capsim/capsim/traces/graph"
)

func TestParseWaitPower(t *testing.T) {
	for _, c := range []struct {
		in   string
		want WaitPower
		bad  bool
	}{
		{"", WaitPower{}, false},
		{"task", WaitPower{}, false},
		{"idle", WaitPower{Mode: WaitIdle}, false},
		{"3.5", WaitPower{Mode: WaitFixed, Watts: 3.5}, false},
		{"0", WaitPower{Mode: WaitFixed}, false},
		{"-1", WaitPower{}, true},
		{"inf", WaitPower{}, true},
		{"NaN", WaitPower{}, true},
		{"busy", WaitPower{}, true},
	} {
		got, err := ParseWaitPower(c.in)
		if (err != nil) != c.bad || (!c.bad && got != c.want) {
			t.Errorf("ParseWaitPower(%q) = %+v, %v; want %+v, error %v", c.in, got, err, c.want, c.bad)
		}
		if !c.bad {
			if back, _ := ParseWaitPower(got.String()); back != got {
				t.Errorf("%q: String %q does not parse back", c.in, got.String())
			}
		}
	}
}

// One rank: idle 1 W; task A [10, 30) at 20 W, an MPI call busy
// [30, 35), task B [50, 60) at 8 W, job end 100. By hand, in W·ns:
// before A 1·10, A 20·20, the wait [30, 50) 20·w_A, B 8·10, after B
// 40·w_B: task mode 10+400+400+80+320 = 1210, idle 10+400+20+80+40 = 550,
// a 3 W polling power 10+400+60+80+120 = 670.
func TestWaitPowerModes(t *testing.T) {
	b := graph.NewBuilder(2)
	a := b.Add(0, graph.CalcOp(20))
	s := b.Add(0, graph.SendOp(8, 1, 0))
	c := b.Add(0, graph.CalcOp(10))
	b.Add(1, graph.RecvOp(8, 0, 0))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	acct := NewAccountant(g)
	acct.Busy(a, 10, 30)
	acct.Busy(s, 30, 35)
	acct.Busy(c, 50, 60)
	opW := make([]float64, g.NumOps())
	opW[a], opW[c] = 20, 8
	for _, tc := range []struct {
		wait   WaitPower
		energy float64 // W·ns, rank 0 only (rank 1 idles at 1 W: +100)
		peak   float64
		over   int64 // ns above a 20.5 W cap
	}{
		{WaitPower{}, 1210, 21, 40},
		{WaitPower{Mode: WaitIdle}, 550, 21, 20},
		{WaitPower{Mode: WaitFixed, Watts: 3}, 670, 21, 20},
	} {
		m := JobModel{IdleW: 1, ActiveW: []float64{5, 5}, OpW: opW, Wait: tc.wait}
		rep, err := acct.Report(m, 100, 20.5)
		if err != nil {
			t.Fatal(err)
		}
		if want := (tc.energy + 100) * 1e-9; math.Abs(rep.EnergyJ-want) > 1e-18 {
			t.Errorf("%s: energy %g J, want %g", tc.wait, rep.EnergyJ, want)
		}
		if rep.PeakW != tc.peak || rep.OverCapNs != tc.over {
			t.Errorf("%s: peak %g W, over cap %d ns; want %g and %d", tc.wait, rep.PeakW, rep.OverCapNs, tc.peak, tc.over)
		}
		if math.Abs(rep.IdleJ-200e-9) > 1e-18 || math.Abs(rep.IdleJ+rep.DynamicJ-rep.EnergyJ) > 1e-18 {
			t.Errorf("%s: idle %g J dynamic %g J", tc.wait, rep.IdleJ, rep.DynamicJ)
		}
	}
}

// Two ranks each run a task [0, 100) split between 12 W for 40 ns and
// 8 W for 60 ns: 9.6 W on average, 19.2 W together under a 20 W cap.
// Both fast phases first draw 24 W on [0, 40): 40 ns over the cap, which
// the time averages hide. With rank 1's fast phase last the job never
// exceeds 20 W; after the tasks each rank waits at its last phase's power
// (8 W and 12 W: 20 W).
func TestSplitTaskOverCapIsInstantaneous(t *testing.T) {
	g := fourCores()
	fast := []Phase{{40, 12}, {60, 8}}
	late := []Phase{{60, 8}, {40, 12}}
	avg := make([]float64, 4)
	avg[0], avg[1] = 9.6, 9.6
	for _, tc := range []struct {
		name   string
		phases [][]Phase
		over   int64
		peak   float64
	}{
		{"time-averaged", nil, 0, 19.2},
		{"fast phases together", [][]Phase{fast, fast}, 40, 24},
		{"staggered", [][]Phase{fast, late}, 0, 20},
	} {
		a := NewAccountant(g)
		a.Busy(0, 0, 100)
		a.Busy(1, 0, 100)
		m := JobModel{ActiveW: []float64{0, 0, 0, 0}, OpW: avg, OpPhases: tc.phases}
		rep, err := a.Report(m, 150, 20)
		if err != nil {
			t.Fatal(err)
		}
		if rep.OverCapNs != tc.over || math.Abs(rep.PeakW-tc.peak) > 1e-12 {
			t.Errorf("%s: over cap %d ns, peak %g W; want %d and %g", tc.name, rep.OverCapNs, rep.PeakW, tc.over, tc.peak)
		}
		if want := 2 * (9.6*100 + 9.6*50) * 1e-9; tc.phases == nil && math.Abs(rep.EnergyJ-want) > 1e-15 {
			t.Errorf("%s: energy %g J, want %g", tc.name, rep.EnergyJ, want)
		}
		if want := (12*40 + 8*60 + 8*50 + 12*40 + 8*60 + 12*50) * 1e-9; tc.name == "staggered" && math.Abs(rep.EnergyJ-want) > 1e-15 {
			t.Errorf("%s: energy %g J, want %g", tc.name, rep.EnergyJ, want)
		}
	}
}

// Any accepted wait power validates and prints back to itself.
func FuzzParseWaitPower(f *testing.F) {
	for _, s := range []string{"task", "idle", "3.5", "0", "-1", "1e400", "NaN", " idle ", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWaitPower(s)
		if err != nil {
			return
		}
		if err := w.Validate(); err != nil {
			t.Fatalf("%q parsed to invalid %+v: %v", s, w, err)
		}
		back, err := ParseWaitPower(w.String())
		if err != nil || back != w {
			t.Fatalf("%q → %+v → %q → %+v, %v", s, w, w.String(), back, err)
		}
	})
}
