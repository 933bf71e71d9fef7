package cos

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/capsim/capsim/compute"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// t1 is a hand case of Eq. 9: baseline T=10 s, Ts=4 s at 1.2 GHz; LLCM 1.5,
// TPI 0.8; α = (2, 1.5, −0.5, −1).
var (
	t1Base  = Baseline{At: compute.Config{CPUFreqGHz: 1.2, MemFreqGHz: 1.333}, T: 10, Ts: 4, LLCM: 1.5, TPI: 0.8}
	t1Model = Intel{Alpha: [4]float64{2.0, 1.5, -0.5, -1.0}}
)

func TestEq9ForwardT1(t *testing.T) {
	p, err := t1Model.Eval(t1Base, compute.Config{CPUFreqGHz: 2.4, MemFreqGHz: 1.6})
	if err != nil {
		t.Fatal(err)
	}
	if !near(p.Scaled, 3.0, 1e-12) || !near(p.Correction, 1.4, 1e-12) || !near(p.Seconds, 4.4, 1e-12) {
		t.Errorf("T1: scaled %g correction %g T' %g, want 3.0, 1.4, 4.4", p.Scaled, p.Correction, p.Seconds)
	}
	if p.Kind != compute.KindCOSIntel {
		t.Errorf("kind %q", p.Kind)
	}
}

// T2 rows: Y = α·x exactly, α from T1.
var t2Rows = []Row{
	{1.0, 1.0, 1.2, 1.333, 1.567},
	{2.0, 1.0, 1.2, 1.333, 3.567},
	{1.0, 2.0, 1.2, 1.333, 3.067},
	{1.0, 1.0, 3.0, 1.333, 0.667},
	{1.0, 1.0, 1.2, 1.866, 1.034},
}

func TestFitRecoversAlphaT2(t *testing.T) {
	m, err := FitIntel(t2Rows, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := [4]float64{2.0, 1.5, -0.5, -1.0}
	for i := range want {
		if !near(m.Alpha[i], want[i], 1e-9) {
			t.Errorf("α%d = %.12g, want %g", i+1, m.Alpha[i], want[i])
		}
	}
	if m.Fit.Rank != 4 || m.Fit.MinNorm || m.Fit.Warning != "" || m.Fit.N != 5 {
		t.Errorf("fit stats %+v, want rank 4, no warning", m.Fit)
	}
	if !near(m.Fit.R2, 1, 1e-12) {
		t.Errorf("R² = %g, want 1", m.Fit.R2)
	}
}

func TestFitRankDeficientWarnsT2(t *testing.T) {
	rows := make([]Row, len(t2Rows))
	for i, r := range t2Rows {
		r.LLCM, r.TPI = 1.5, 0.8 // constant: α1 and α2 collapse
		rows[i] = r
	}
	m, err := FitIntel(rows, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Fit.Rank >= 4 || !m.Fit.MinNorm || !strings.Contains(m.Fit.Warning, ErrRankDeficient.Error()) || !math.IsInf(m.Fit.Cond, 1) {
		t.Errorf("rank-deficient fit stats %+v, want rank < 4 and a warning", m.Fit)
	}
	// The min-norm solution keeps α1 and α2 in the ratio of the columns.
	if !near(m.Alpha[0]/m.Alpha[1], 1.5/0.8, 1e-9) {
		t.Errorf("min-norm α1/α2 = %g, want %g", m.Alpha[0]/m.Alpha[1], 1.5/0.8)
	}
}

func TestFitIntercept(t *testing.T) {
	rows := append([]Row(nil), t2Rows...)
	rows = append(rows, Row{3, 2, 2.0, 1.6, 2*3 + 1.5*2 - 0.5*2 - 1.6})
	for i := range rows {
		rows[i].Y += 0.25
	}
	m, err := FitIntel(rows, FitOptions{Intercept: true})
	if err != nil {
		t.Fatal(err)
	}
	// The Y values of T2 are rounded to 1e-3, so α is recovered to ~1e-2.
	if !near(m.Intercept, 0.25, 0.02) || !near(m.Alpha[0], 2, 1e-2) || m.Fit.Rank != 5 {
		t.Errorf("intercept fit α %v c %g stats %+v", m.Alpha, m.Intercept, m.Fit)
	}
}

func TestFitPairs(t *testing.T) {
	// Synthetic measurements obeying Eq. 9 exactly between every pair is
	// impossible in general; check the pairing itself on T1's numbers.
	target := Baseline{At: compute.Config{CPUFreqGHz: 2.4, MemFreqGHz: 1.6}, T: 4.4}
	r, err := Pair(t1Base, target)
	if err != nil {
		t.Fatal(err)
	}
	if !near(r.Y, 1.4, 1e-12) || r.LLCM != 1.5 || r.TPI != 0.8 || r.CPUGHz != 2.4 || r.MemGHz != 1.6 {
		t.Errorf("pair row %+v, want Y 1.4", r)
	}
	if _, err := FitIntelPairs([]Baseline{t1Base, target}, FitOptions{}); err != nil {
		t.Fatal(err) // 2 rows: rank-deficient but must not fail
	}
}

func TestPureMemoryChangeT8(t *testing.T) {
	lo, err := t1Model.Eval(t1Base, compute.Config{CPUFreqGHz: 1.2, MemFreqGHz: 1.333})
	if err != nil {
		t.Fatal(err)
	}
	hi, err := t1Model.Eval(t1Base, compute.Config{CPUFreqGHz: 1.2, MemFreqGHz: 1.866})
	if err != nil {
		t.Fatal(err)
	}
	if !near(lo.Scaled, 6.0, 1e-12) || !near(hi.Scaled, 6.0, 1e-12) {
		t.Errorf("scaled %g, %g, want 6.0 (no memory scaling of T−Ts)", lo.Scaled, hi.Scaled)
	}
	if !near(hi.Seconds-lo.Seconds, -0.533, 1e-12) {
		t.Errorf("ΔT' = %g, want −0.533", hi.Seconds-lo.Seconds)
	}
}

func TestIdentityResidualT9(t *testing.T) {
	p, err := t1Model.Eval(t1Base, t1Base.At)
	if err != nil {
		t.Fatal(err)
	}
	if !near(p.Seconds, 8.267, 1e-12) {
		t.Errorf("T' at baseline = %g, want 8.267", p.Seconds)
	}
	res, err := t1Model.Residual(t1Base)
	if err != nil {
		t.Fatal(err)
	}
	if !near(res, -1.733, 1e-12) {
		t.Errorf("residual %g, want −1.733", res)
	}
	anchored := t1Model
	anchored.Anchor = true
	p, _ = anchored.Eval(t1Base, t1Base.At)
	if p.Seconds != 10 || p.Flags&compute.Anchored == 0 {
		t.Errorf("anchored T' %g flags %v, want 10 anchored", p.Seconds, p.Flags)
	}
}

func TestDerivativeT10(t *testing.T) {
	f := func(fc float64) float64 {
		p, err := t1Model.Eval(t1Base, compute.Config{CPUFreqGHz: fc, MemFreqGHz: 1.6})
		if err != nil {
			t.Fatal(err)
		}
		return p.Seconds
	}
	const h = 1e-4
	d := (f(2.4+h) - f(2.4-h)) / (2 * h)
	if !near(d, -1.75, 1e-6) {
		t.Errorf("∂T'/∂f'c = %g, want −1.75", d)
	}
}

func TestClampAndExtrapolate(t *testing.T) {
	m := Intel{Alpha: [4]float64{0, 0, 0, -100}, Domain: Domain{CPUMin: 1.2, CPUMax: 2.4, MemMin: 1.333, MemMax: 1.866}}
	p, err := m.Eval(t1Base, compute.Config{CPUFreqGHz: 3.0, MemFreqGHz: 1.6})
	if err != nil {
		t.Fatal(err)
	}
	if p.Seconds <= 0 || p.Flags&compute.Clamped == 0 || p.Flags&compute.Extrapolated == 0 {
		t.Errorf("got %+v, want positive, clamped, extrapolated", p)
	}
	if !near(p.Correction, -160, 1e-9) {
		t.Errorf("correction before clamping %g, want −160", p.Correction)
	}
	if _, err := m.Eval(t1Base, compute.Config{}); !errors.Is(err, ErrFrequency) {
		t.Errorf("zero frequency: err %v", err)
	}
}

func TestPredictRatioMethod(t *testing.T) {
	m := t1Model
	m.Base = t1Base
	// 2.5 s of recorded work: a quarter of the baseline region time 10 s,
	// so 4.4·0.25 = 1.1 s.
	p, err := m.Predict(compute.Work{Seconds: 2.5, At: t1Base.At}, compute.Config{CPUFreqGHz: 2.4, MemFreqGHz: 1.6})
	if err != nil {
		t.Fatal(err)
	}
	if !near(p.Seconds, 1.1, 1e-12) || p.Flags&compute.Extrapolated != 0 {
		t.Errorf("ratio prediction %+v, want 1.1 s", p)
	}
}

// T3: the hinge correction a linear α3·f'c term can only approximate.
func TestMechanisticHingeLimitationT3(t *testing.T) {
	const W, L = 2400.0, 1000.0 // cycles, ns
	iter := func(f float64) (T, Ts float64) {
		c := W / f
		return math.Max(c, L), math.Max(0, L-c)
	}
	T0, Ts0 := iter(1.2)
	base := Baseline{At: compute.Config{CPUFreqGHz: 1.2}, T: T0, Ts: Ts0}
	wantY := map[float64]float64{1.2: 0, 1.6: 0, 2.0: 0, 2.4: 0, 3.0: 200}
	var rows []Row
	for _, f := range []float64{1.2, 1.6, 2.0, 2.4, 3.0} {
		T, _ := iter(f)
		r, err := Pair(base, Baseline{At: compute.Config{CPUFreqGHz: f}, T: T})
		if err != nil {
			t.Fatal(err)
		}
		if !near(r.Y, wantY[f], 1e-9) {
			t.Errorf("Y(%g) = %g, want %g", f, r.Y, wantY[f])
		}
		rows = append(rows, r)
	}
	m, err := FitIntel(rows, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Only f'c varies: LLCM = TPI = f'm = 0 columns ⇒ rank 1, warned.
	if m.Fit.Rank != 1 || m.Fit.Warning == "" {
		t.Errorf("stats %+v, want rank 1 with warning", m.Fit)
	}
	if m.Fit.R2 > 0.99 {
		t.Errorf("linear term fits the hinge too well (R² %g); the test setup is wrong", m.Fit.R2)
	}
}

func TestBGQKneeT4(t *testing.T) {
	m := BGQ{AlphaKnee: 2000, C1: 20, Beta: 1.0, C2: 0, L2M: 5e6, Inst: 5e6 / 0.02, ClockGHz: 1.6}
	if !near(m.Knee(), 60, 1e-9) || m.Slope() != 5e6 {
		t.Fatalf("knee %g slope %g, want 60 and 5e6", m.Knee(), m.Slope())
	}
	tests := []struct {
		fm, literal, hinge float64
	}{
		{50, 1.0e9, 1.0e9},
		{60, 1.0e9, 1.0e9},
		{61, 1.305e9, 1.005e9},
		{100, 1.5e9, 1.2e9},
	}
	for _, tc := range tests {
		lit := m
		lit.Mode = Literal
		if got := lit.Eval(1e9, tc.fm); !near(got, tc.literal, 1) {
			t.Errorf("literal Eq. 11 at %g: %g, want %g", tc.fm, got, tc.literal)
		}
		if got := m.Eval(1e9, tc.fm); !near(got, tc.hinge, 1) {
			t.Errorf("hinge (erratum-corrected continuous Eq. 11) at %g: %g, want %g", tc.fm, got, tc.hinge)
		}
	}
	// Predict in seconds: t0 = 1e9 cycles at 1.6 GHz = 0.625 s.
	p, err := m.Predict(compute.Work{Seconds: 0.625}, compute.Config{MemThrottle: 100})
	if err != nil {
		t.Fatal(err)
	}
	if !near(p.Seconds, 1.2e9/1.6e9, 1e-12) {
		t.Errorf("Predict at 100 idle cycles: %g s, want 0.75", p.Seconds)
	}
}

func TestBGQCoefficientFitsT5(t *testing.T) {
	a, c1, err := Line([]float64{0.01, 0.03}, []float64{40, 80})
	if err != nil || !near(a, 2000, 1e-9) || !near(c1, 20, 1e-9) {
		t.Errorf("knee regression α %g c1 %g err %v, want 2000, 20", a, c1, err)
	}
	b, c2, err := Line([]float64{1e6, 3e6}, []float64{1.2e6, 3.2e6})
	if err != nil || !near(b, 1, 1e-12) || !near(c2, 2e5, 1e-6) {
		t.Errorf("slope regression β %g c2 %g err %v, want 1, 2e5", b, c2, err)
	}
	if _, _, err := Line([]float64{1, 1}, []float64{1, 2}); err == nil {
		t.Error("constant x: want error")
	}
}

func TestFitKnee(t *testing.T) {
	// Hinge of T4: knee 60, slope 5e6, t0 1e9, sampled every 10 idle cycles.
	var fm, tt []float64
	for x := 0.0; x <= 120; x += 10 {
		fm = append(fm, x)
		tt = append(tt, 1e9+5e6*math.Max(0, x-60))
	}
	a, b, t0, err := FitKnee(fm, tt)
	if err != nil {
		t.Fatal(err)
	}
	if a != 60 || !near(b, 5e6, 1e-3) || !near(t0, 1e9, 1e-3) {
		t.Errorf("knee fit a %g b %g t0 %g, want 60, 5e6, 1e9", a, b, t0)
	}
}

func TestErrorStatsT7(t *testing.T) {
	s, err := Errors([]float64{10, 20, 40}, []float64{9.5, 21, 40})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []float64{5, 5, 0} {
		if !near(s.Err[i], w, 1e-12) {
			t.Errorf("err[%d] = %g, want %g", i, s.Err[i], w)
		}
	}
	if !near(s.Mean, 3.333, 1e-3) || !near(s.PopSD, 2.357, 1e-3) || !near(s.SampSD, 2.887, 1e-3) {
		t.Errorf("mean %g pop %g sample %g, want 3.333, 2.357, 2.887", s.Mean, s.PopSD, s.SampSD)
	}
	s, _ = Errors([]float64{10}, []float64{9.3})
	if !near(s.Err[0], 7.0, 1e-9) {
		t.Errorf("7%% bound case: %g", s.Err[0])
	}
}

// A rank-deficient fit (condition number +Inf) survives a JSON round trip.
func TestFitStatsJSONInfiniteCond(t *testing.T) {
	for _, in := range []FitStats{{N: 2, Rank: 1, Cond: math.Inf(1), MinNorm: true, Warning: "w"}, {N: 5, Rank: 4, Cond: 12.5, R2: 1}} {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var out FitStats
		if err := json.Unmarshal(b, &out); err != nil || out != in {
			t.Errorf("round trip of %+v: %s → %+v, %v", in, b, out, err)
		}
	}
}
