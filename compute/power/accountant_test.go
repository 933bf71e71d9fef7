package power

import (
	"math"
	"slices"
	"testing"

	"github.com/capsim/capsim/traces/graph"
)

// fourCores is a graph with one calc per rank, so busy intervals can be
// recorded against op ids 0..3.
func fourCores() *graph.Graph {
	b := graph.NewBuilder(4)
	for r := 0; r < 4; r++ {
		b.Add(r, graph.CalcOp(1))
	}
	g, _ := b.Build()
	return g
}

// An energy check of Dynamic Power Steering (Anger's thesis §5.1.1),
// worked out by hand: 4 cores, busy power P(f), 5 W
// while sleeping at the barrier. Baseline (all at 1.7 GHz, 14 W) 52.5 J;
// DPS row 1 (2.1/1.4/1.4/1.4 GHz at 20/11/11/11 W) 48.5 J, 7.62 % better.
// Cores sleep at the barrier: the WaitIdle model.
func TestEnergyMatchesDPSCheck(t *testing.T) {
	g := fourCores()
	work := []float64{1.0, 0.6, 0.6, 0.3}
	run := func(ghz, watts []float64) Report {
		a := NewAccountant(g)
		var T int64
		for r, w := range work {
			ns := int64(math.Round(w * 2.1 / ghz[r] * 1e9))
			a.Busy(int32(r), 0, ns)
			T = max(T, ns)
		}
		rep, err := a.Report(JobModel{IdleW: 5, ActiveW: watts, Wait: WaitPower{Mode: WaitIdle}}, T, 0)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	base := run([]float64{1.7, 1.7, 1.7, 1.7}, []float64{14, 14, 14, 14})
	dps := run([]float64{2.1, 1.4, 1.4, 1.4}, []float64{20, 11, 11, 11})
	if math.Abs(base.EnergyJ-52.5) > 1e-6 || math.Abs(dps.EnergyJ-48.5) > 1e-6 {
		t.Fatalf("energy %.6f J and %.6f J, want 52.5 and 48.5", base.EnergyJ, dps.EnergyJ)
	}
	if imp := 100 * (base.EnergyJ - dps.EnergyJ) / base.EnergyJ; math.Abs(imp-7.62) > 0.005 {
		t.Errorf("improvement %.3f %%, want 7.62 %%", imp)
	}
	if math.Abs(dps.IdleJ-20) > 1e-9 || math.Abs(dps.DynamicJ-28.5) > 1e-6 {
		t.Errorf("idle %.3f J dynamic %.3f J, want 20 and 28.5", dps.IdleJ, dps.DynamicJ)
	}
	if dps.PeakW != 53 || base.PeakW != 56 {
		t.Errorf("peaks %.1f and %.1f W, want 53 and 56 (ΣP of the rows)", dps.PeakW, base.PeakW)
	}
}

func TestOverCapAndProfile(t *testing.T) {
	g := fourCores()
	a := NewAccountant(g)
	a.Busy(0, 0, 100)
	a.Busy(1, 50, 150)
	m := JobModel{BaseW: 10, IdleW: 1, ActiveW: []float64{11, 11, 11, 11}, Wait: WaitPower{Mode: WaitIdle}}
	rep, err := a.Report(m, 200, 30)
	if err != nil {
		t.Fatal(err)
	}
	// floor 14 W; one busy core 24 W; two 34 W during [50, 100)
	if rep.PeakW != 34 || rep.OverCapNs != 50 {
		t.Errorf("peak %.1f W, over cap %d ns; want 34 and 50", rep.PeakW, rep.OverCapNs)
	}
	times, watts := a.Profile(m)
	wantT := []int64{0, 50, 100, 150}
	wantW := []float64{24, 34, 24, 14}
	for i := range wantT {
		if times[i] != wantT[i] || watts[i] != wantW[i] {
			t.Fatalf("profile %v %v", times, watts)
		}
	}
	if _, err := a.Report(JobModel{ActiveW: []float64{1}}, 10, 0); err == nil {
		t.Error("rank without active power accepted")
	}
}

// Per-rank curves add up to the job's profile minus the base power, and
// their energies to the report's (the DPS check above: 48.5 J); tasks of
// one rank that overlap (its several CPUs) add up.
func TestRankProfilesSumToJob(t *testing.T) {
	g := fourCores()
	a := NewAccountant(g)
	a.Busy(0, 0, 100)
	a.Busy(1, 50, 150)
	a.Busy(2, 0, 0) // empty: not recorded
	m := JobModel{BaseW: 10, IdleW: 1, ActiveW: []float64{11, 11, 11, 11}, Wait: WaitPower{Mode: WaitIdle}}
	steps, err := a.RankProfiles(m, 200)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 4 {
		t.Fatalf("%d ranks", len(steps))
	}
	var e float64
	for _, s := range steps {
		e += s.Energy()
	}
	rep, _ := a.Report(m, 200, 0)
	if base := 10 * 200e-9; math.Abs(e+base-rep.EnergyJ) > 1e-15 {
		t.Errorf("rank energies %.3g J + base %.3g J, report %.3g J", e, base, rep.EnergyJ)
	}
	job := Job(steps)
	wantT, wantW := []int64{0, 50, 100, 150}, []float64{14, 24, 14, 4}
	for i := range wantT {
		if job.Times[i] != wantT[i] || job.Watts[i] != wantW[i] {
			t.Fatalf("job of rank steps %v %v, want %v %v", job.Times, job.Watts, wantT, wantW)
		}
	}
	if sp := a.Spans(); len(sp) != 2 || sp[1] != (BusySpan{Op: 1, Rank: 1, Start: 50, End: 150}) {
		t.Errorf("spans %v", sp)
	}
	a.Busy(0, 50, 120) // overlaps rank 0's first interval
	steps, err = a.RankProfiles(m, 200)
	if err != nil {
		t.Fatal(err)
	}
	wantT, wantW = []int64{0, 50, 100, 120}, []float64{11, 22, 11, 1}
	if r0 := steps[0]; !slices.Equal(r0.Times, wantT) || !slices.Equal(r0.Watts, wantW) {
		t.Errorf("rank 0 with overlapping tasks %v %v, want %v %v", r0.Times, r0.Watts, wantT, wantW)
	}
}

// The average power of a run of 0 ns is the power of its one instant,
// its peak (never 0 below its floor, never NaN); otherwise energy/time.
func TestAvgW(t *testing.T) {
	for _, c := range []struct {
		e    float64
		ns   int64
		peak float64
		want float64
	}{
		{0, 0, 48, 48},
		{0, 0, 0, 0},
		{10, 1e9, 12, 10},
		{1, 5e8, 2, 2},
	} {
		if got := AvgW(c.e, c.ns, c.peak); got != c.want {
			t.Errorf("AvgW(%g J, %d ns, peak %g W) = %g, want %g", c.e, c.ns, c.peak, got, c.want)
		}
	}
}
