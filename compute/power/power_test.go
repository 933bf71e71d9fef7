package power

import (
	"fmt"
	"math"
	"testing"

	"github.com/capsim/capsim/compute"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// Test vectors for Anger's thesis Eq. 6 (§4.1.1); the thesis prints s/S_e in the
// denominator, we test the corrected s/S_t.
func TestEnergySpeedupEq6CorrectedErratum(t *testing.T) {
	sts := []float64{1, 2, 4, 8, 12, 16}
	table := map[float64][]float64{
		0:    {1, 1, 1, 1, 1, 1},
		0.25: {1, 1.1429, 1.2308, 1.28, 1.2973, 1.3061},
		0.5:  {1, 1.3333, 1.6, 1.7778, 1.8462, 1.8824},
		0.75: {1, 1.6, 2.2857, 2.9091, 3.2, 3.3684},
		0.9:  {1, 1.8182, 3.0769, 4.7059, 5.7143, 6.4},
		1.0:  {1, 2, 4, 8, 12, 16},
	}
	for s, row := range table {
		for i, st := range sts {
			if got := EnergySpeedup(s, st); !near(got, row[i], 5e-5) {
				t.Errorf("S_e(s=%g, S_t=%g) = %.5f, want %g", s, st, got, row[i])
			}
		}
	}
}

func TestEnergyAccountingEq5(t *testing.T) {
	// E1 = 100 J, s = 0.6, S_t = 4 → E_p = 15 + 40 = 55 J, S_e = 1.818.
	ep := EnergyParallel(100, 0.6, 4)
	if !near(ep, 55, 1e-12) {
		t.Errorf("E_p = %g, want 55", ep)
	}
	if se := 100 / ep; !near(se, EnergySpeedup(0.6, 4), 1e-12) || !near(se, 1.818, 1e-3) {
		t.Errorf("S_e = %g, want 1.818", se)
	}
	if got := Amdahl(0, 8); got != 8 {
		t.Errorf("Amdahl(0, 8) = %g", got)
	}
	if got := Amdahl(0.5, 2); !near(got, 4.0/3, 1e-12) {
		t.Errorf("Amdahl(0.5, 2) = %g, want 4/3", got)
	}
}

// sockets12 is a hand-made (ours) two-socket, 6+6-core node: C7 idle
// 40 W, socket 1 line 70 + 10k, socket 2 line 95 + 8k.
func sockets12() []CoreSample {
	var s []CoreSample
	s = append(s, CoreSample{0, 40})
	for k := 1; k <= 12; k++ {
		w := 70 + 10*float64(k)
		if k > 6 {
			w = 95 + 8*float64(k)
		}
		s = append(s, CoreSample{k, w})
	}
	return s
}

func TestCStateTwoSegmentFit(t *testing.T) {
	m, err := FitSockets(sockets12(), []int{6, 6})
	if err != nil {
		t.Fatal(err)
	}
	if !near(m.Idle, 40, 1e-9) || !near(m.Intercept[0], 70, 1e-9) || !near(m.Slope[0], 10, 1e-9) ||
		!near(m.Intercept[1], 95, 1e-9) || !near(m.Slope[1], 8, 1e-9) {
		t.Fatalf("fit %+v", m)
	}
	if m.ExtrapolatedIdle() != m.Intercept[0] {
		t.Errorf("extrapolated idle %g", m.ExtrapolatedIdle())
	}
	// The 7th core wakes socket 2: 130 W → 151 W.
	p6, _ := m.Power(6)
	p7, _ := m.Power(7)
	if !near(p6, 130, 1e-9) || !near(p7, 151, 1e-9) {
		t.Errorf("P(6) = %g, P(7) = %g, want 130, 151", p6, p7)
	}
	leave, first, wake := m.Increments()
	if !near(leave, 30, 1e-9) || !near(first, 10, 1e-9) || len(wake) != 1 || !near(wake[0], 13, 1e-9) {
		t.Errorf("increments %g %g %v, want 30, 10, [13]", leave, first, wake)
	}
	if p, _ := m.Power(0); p != 40 {
		t.Errorf("P(0) = %g, want 40 (C7)", p)
	}
	if _, err := m.Power(13); err == nil {
		t.Error("13 cores: want error")
	}
	// Application-dependent idle fraction: 70 W extrapolated idle over a
	// 100 W single-thread app → s = 0.7 (vs 0.4 with the 40 W C7 idle).
	s, err := IdleFraction(m.ExtrapolatedIdle(), 100)
	if err != nil || !near(s, 0.7, 1e-12) {
		t.Errorf("s_app = %g (%v), want 0.7", s, err)
	}
}

func TestFitSocketsErrors(t *testing.T) {
	if _, err := FitSockets([]CoreSample{{1, 10}, {7, 20}}, []int{6, 6}); err == nil {
		t.Error("one sample per socket: want error")
	}
	if _, err := FitSockets(append(sockets12(), CoreSample{13, 1}), []int{6, 6}); err == nil {
		t.Error("sample beyond the node: want error")
	}
}

func TestPStates(t *testing.T) {
	ps, err := NewPStates([]PState{{2.4, 120}, {1.2, 60}, {1.8, 84}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ghz, w float64
		extra  bool
	}{
		{1.2, 60, false}, {1.5, 72, false}, {1.8, 84, false}, {2.1, 102, false}, {2.4, 120, false},
		{3.0, 156, true}, {1.0, 52, true},
	}
	for _, tc := range tests {
		w, ex := ps.At(tc.ghz)
		if !near(w, tc.w, 1e-9) || ex != tc.extra {
			t.Errorf("At(%g) = %g, %v; want %g, %v", tc.ghz, w, ex, tc.w, tc.extra)
		}
	}
	if _, err := NewPStates([]PState{{1, 1}, {1, 2}}); err == nil {
		t.Error("duplicate frequency: want error")
	}
}

// The IPS model's hand case (docs/reference/models.md): instructions interpolated
// to 8 threads, then Dong Li's Eq. 3.19.
func TestIPSPowerT3(t *testing.T) {
	i8 := InterpInstructions(8, 1, 1.00e10, 16, 1.15e10)
	if !near(i8, 1.07e10, 1) {
		t.Errorf("I(8) = %g, want 1.07e10", i8)
	}
	m := IPS{K1: 2.0e-8, K0: 150}
	p := m.Watts(i8, 2.0)
	if !near(p, 257, 1e-9) || !near(p*2.0, 514, 1e-9) {
		t.Errorf("P = %g W, E = %g J; want 257, 514", p, p*2)
	}
}

func TestTimelineAndAccounting(t *testing.T) {
	const s = int64(1e9)
	ranks := [][]Interval{
		{{0, 4 * s, 150}, {6 * s, 10 * s, 100}},
		{{2 * s, 8 * s, 200}},
	}
	sp, err := Account(ranks, 50, 10*s)
	if err != nil {
		t.Fatal(err)
	}
	if !near(sp.Idle, 1000, 1e-9) || !near(sp.Dynamic, 1500, 1e-9) || !near(sp.Total(), 2500, 1e-9) {
		t.Errorf("split %+v, want idle 1000 J, dynamic 1500 J", sp)
	}
	var steps []Step
	for r, iv := range ranks {
		st, err := Rank(iv, 50, 10*s)
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, st)
		want := []float64{1100, 1400}[r]
		if !near(st.Energy(), want, 1e-9) {
			t.Errorf("rank %d energy %g, want %g", r, st.Energy(), want)
		}
	}
	job := Job(steps)
	if !near(job.Energy(), 2500, 1e-9) || job.Peak() != 350 || !near(job.Average(), 250, 1e-9) {
		t.Errorf("job energy %g peak %g avg %g, want 2500, 350, 250", job.Energy(), job.Peak(), job.Average())
	}
	wantT := []int64{0, 2 * s, 4 * s, 6 * s, 8 * s}
	wantW := []float64{200, 350, 250, 300, 150}
	if len(job.Times) != len(wantT) {
		t.Fatalf("job steps %v %v", job.Times, job.Watts)
	}
	for i := range wantT {
		if job.Times[i] != wantT[i] || job.Watts[i] != wantW[i] {
			t.Errorf("step %d: (%d, %g), want (%d, %g)", i, job.Times[i], job.Watts[i], wantT[i], wantW[i])
		}
	}
	if _, err := Rank([]Interval{{0, 5, 1}, {3, 6, 1}}, 0, 10); err == nil {
		t.Error("overlap: want error")
	}
}

func TestScalingEnergyRefined(t *testing.T) {
	// E1 = 100 W · 1 s with 60 W idle (s = 0.6), S_t = 4 → 15 + 40 = 55 J.
	sp, err := ScalingEnergy(60, 100, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !near(sp.Idle, 15, 1e-12) || !near(sp.Dynamic, 40, 1e-12) || !near(sp.Total(), 55, 1e-12) {
		t.Errorf("split %+v, want 15 + 40 = 55 J", sp)
	}
	if _, err := ScalingEnergy(120, 100, 1, 4); err == nil {
		t.Error("idle above app power: want error")
	}
}

func TestFromSpans(t *testing.T) {
	ps, _ := NewPStates([]PState{{GHz: 1.2, Watts: 5}, {GHz: 2.4, Watts: 12}})
	iv, err := FromSpans([]Span{
		{Start: 0, End: 1e9, Config: compute.Config{CPUFreqGHz: 2.4, Threads: 4}},
		{Start: 2e9, End: 3e9, Config: compute.Config{CPUFreqGHz: 1.8}},
	}, PStateWatts(ps))
	if err != nil {
		t.Fatal(err)
	}
	if iv[0].Watts != 48 || iv[1].Watts != 8.5 {
		t.Errorf("intervals %+v, want 48 W and 8.5 W", iv)
	}
	sp, _ := Account([][]Interval{iv}, 0, 3e9)
	if !near(sp.Dynamic, 56.5, 1e-9) {
		t.Errorf("dynamic %g J, want 56.5", sp.Dynamic)
	}
	if _, err := FromSpans([]Span{{End: 1}}, PStateWatts(ps)); err == nil {
		t.Error("missing frequency: want error")
	}
}

// TestByNodeAndOver sums 3 ranks onto nodes of 2 by hand, with 10 W of
// base power split over the 2 nodes, and measures time above a cap.
func TestByNodeAndOver(t *testing.T) {
	ranks := []Step{
		{Times: []int64{0, 10}, Watts: []float64{4, 20}, End: 30},
		{Times: []int64{0, 20}, Watts: []float64{4, 15}, End: 30},
		{Times: []int64{0, 5, 25}, Watts: []float64{4, 30, 4}, End: 30},
	}
	nodes, err := ByNode(ranks, 2, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []Step{
		{Times: []int64{0, 10, 20}, Watts: []float64{13, 29, 40}, End: 30},
		{Times: []int64{0, 5, 25}, Watts: []float64{9, 35, 9}, End: 30},
	}
	if fmt.Sprint(nodes) != fmt.Sprint(want) {
		t.Errorf("nodes %v, want %v", nodes, want)
	}
	var sum float64
	for _, n := range nodes {
		sum += n.Energy()
	}
	if job := Job(ranks).Energy() + 10*30e-9; math.Abs(sum-job) > 1e-15 {
		t.Errorf("nodes draw %g J, the job %g J", sum, job)
	}
	// Node 0 is above 28 W from 10 to 30, node 1 above it from 5 to 25.
	if o0, o1 := nodes[0].Over(28), nodes[1].Over(28); o0 != 20 || o1 != 20 {
		t.Errorf("over 28 W: %d and %d ns, want 20 and 20", o0, o1)
	}
	if o := nodes[0].Over(40); o != 0 {
		t.Errorf("over 40 W (its peak): %d ns, want 0", o)
	}
	if _, err := ByNode(ranks, 0, 0); err == nil {
		t.Error("0 ranks per node accepted")
	}
}
