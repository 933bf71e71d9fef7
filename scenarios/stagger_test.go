package scenarios

import (
	"testing"

	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
)

// Two tasks [0, 100) each need 40 ns at +4 W on a 16 W floor under a
// 20 W cap: only one can be fast at a time, so the second takes [40, 80).
// With 60 ns each, 120 ns of faster stretch cannot fit in 100: the job that
// starts second by rank loses, keeping what it got.
func TestPlaceFast(t *testing.T) {
	floor := power.Step{Times: []int64{0, 100}, Watts: []float64{16, 8}, End: 150}
	jobs := []fastJob{{task: 0, start: 0, end: 99, need: 40, dw: 4}, {task: 1, start: 0, end: 99, need: 40, dw: 4}}
	placeFast(floor, 20, jobs)
	if jobs[0].need != 0 || jobs[1].need != 0 {
		t.Fatalf("left %d and %d ns unplaced", jobs[0].need, jobs[1].need)
	}
	if p := jobs[0].pieces; len(p) != 1 || p[0] != [2]int64{0, 40} {
		t.Errorf("job 0 pieces %v, want [0 40]", p)
	}
	if p := jobs[1].pieces; len(p) != 1 || p[0] != [2]int64{40, 80} {
		t.Errorf("job 1 pieces %v, want [40 80]", p)
	}
	jobs = []fastJob{{task: 0, start: 0, end: 99, need: 60, dw: 4}, {task: 1, start: 0, end: 99, need: 60, dw: 4}}
	placeFast(floor, 20, jobs)
	if got := jobs[0].need + jobs[1].need; got != 21 {
		t.Errorf("left %d + %d ns unplaced, want 21 in all (120 − 99)", jobs[0].need, jobs[1].need)
	}
	// A cap with room for both: both fast from the start.
	jobs = []fastJob{{task: 0, start: 0, end: 99, need: 60, dw: 4}, {task: 1, start: 10, end: 99, need: 60, dw: 4}}
	placeFast(floor, 24, jobs)
	if jobs[0].pieces[0] != [2]int64{0, 60} || jobs[1].pieces[0] != [2]int64{10, 70} {
		t.Errorf("pieces %v %v", jobs[0].pieces, jobs[1].pieces)
	}
}

// The lp policy's rounding stays within the cap at every instant on the
// default scenario, within 0.5 % of the unstaggered split (whose faster
// stretches, all first, do exceed the cap at some caps).
func TestStaggeredWithinCap(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := sc.Trace(nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := sc.Graph(nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &sc.Machines[0]
	bd, err := sc.newBounder(tr, m, sc.Net())
	if err != nil {
		t.Fatal(err)
	}
	defer bd.close()
	var splitOver int64
	for _, capW := range sc.Sweep.CapsW {
		b, err := bd.solve(capW)
		if err != nil || b == nil {
			t.Fatalf("%g W: %v", capW, err)
		}
		sp, err := sc.ReplayRounded(g, tr, bd.d, b, bound.RoundOptions{Policy: bound.RoundSplit}, m, sc.Net())
		if err != nil {
			t.Fatal(err)
		}
		st, err := sc.ReplayBound(g, tr, bd.d, b, m, sc.Net())
		if err != nil {
			t.Fatal(err)
		}
		splitOver += sp.OverCapNs
		if st.OverCapNs != 0 || st.PeakPowerW > capW+1e-9 {
			t.Errorf("%g W: staggered %d ns over the cap, peak %g W", capW, st.OverCapNs, st.PeakPowerW)
		}
		if r := float64(st.MakespanNs)/float64(sp.MakespanNs) - 1; r > 0.005 {
			t.Errorf("%g W: staggered %d ns, %.2f %% slower than split's %d ns", capW, st.MakespanNs, 100*r, sp.MakespanNs)
		}
	}
	if splitOver == 0 {
		t.Error("split never exceeds the cap: is it still charged its time average?")
	}
}
