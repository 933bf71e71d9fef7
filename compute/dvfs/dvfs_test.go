package dvfs

import (
	"math"
	"testing"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/power"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestFitTwoRuns(t *testing.T) {
	// T(2 GHz) = 10 s, T(1 GHz) = 16 s ⇒ T = 4 + 12/f: β(2 GHz) = 6/10.
	m, err := Fit([]Run{{2, 10}, {1, 16}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !near(m.Beta, 0.6, 1e-12) || m.RefGHz != 2 || m.MinGHz != 1 || m.MaxGHz != 2 {
		t.Fatalf("model %+v, want β 0.6 at 2 GHz", m)
	}
	// At 1.5 GHz: 4 + 8 = 12 s, i.e. ×1.2 from 2 GHz and ×0.75 from 1 GHz.
	p, err := m.Predict(compute.Work{Seconds: 10, At: compute.Config{CPUFreqGHz: 2}}, compute.Config{CPUFreqGHz: 1.5})
	if err != nil || !near(p.Seconds, 12, 1e-12) {
		t.Errorf("from 2 GHz: %g s (%v), want 12", p.Seconds, err)
	}
	p, _ = m.Predict(compute.Work{Seconds: 16, At: compute.Config{CPUFreqGHz: 1}}, compute.Config{CPUFreqGHz: 1.5})
	if !near(p.Seconds, 12, 1e-12) || p.Flags&compute.NoPower == 0 || p.Flags&compute.Extrapolated != 0 {
		t.Errorf("from 1 GHz: %+v, want 12 s, no power, not extrapolated", p)
	}
	p, _ = m.Predict(compute.Work{Seconds: 10, At: compute.Config{CPUFreqGHz: 2}}, compute.Config{CPUFreqGHz: 3})
	if !near(p.Seconds, 8, 1e-12) || p.Flags&compute.Extrapolated == 0 {
		t.Errorf("at 3 GHz: %+v, want 8 s extrapolated", p)
	}
}

func TestFitMemoryBoundness(t *testing.T) {
	// Anger's thesis §5.1.1: τ(f) = (1 − m)·fmax/f + m; m = 0.25, fmax 2.1 GHz,
	// at the PAL P-states 2.1, 1.9, 1.7, 1.5, 1.4 GHz.
	const mb, fmax, t0 = 0.25, 2.1, 30.0
	var runs []Run
	for _, f := range []float64{2.1, 1.9, 1.7, 1.5, 1.4} {
		runs = append(runs, Run{f, t0 * ((1-mb)*fmax/f + mb)})
	}
	m, err := Fit(runs, fmax)
	if err != nil {
		t.Fatal(err)
	}
	if !near(m.Beta, 1-mb, 1e-12) || !near(m.Fit.R2, 1, 1e-12) || m.Fit.Warning != "" {
		t.Errorf("β = %g (R² %g), want 0.75", m.Beta, m.Fit.R2)
	}
	// 2.1 → 1.4 GHz: τ = 0.75·1.5 + 0.25 = 1.375.
	if r, _ := m.Factor(2.1, 1.4); !near(r, 1.375, 1e-12) {
		t.Errorf("factor %g, want 1.375", r)
	}
}

func TestPower(t *testing.T) {
	ps, _ := power.NewPStates([]power.PState{{GHz: 1.4, Watts: 60}, {GHz: 2.1, Watts: 95}})
	m := Model{Beta: 1, RefGHz: 2.1, Power: ps}
	p, err := m.Predict(compute.Work{Seconds: 1, At: compute.Config{CPUFreqGHz: 2.1}}, compute.Config{CPUFreqGHz: 1.4})
	if err != nil || !near(p.Seconds, 1.5, 1e-12) || p.Watts != 60 || !near(p.Energy(), 90, 1e-12) {
		t.Errorf("%+v %v, want 1.5 s at 60 W", p, err)
	}
}

func TestFitErrors(t *testing.T) {
	for name, runs := range map[string][]Run{
		"one run":        {{2, 1}},
		"same frequency": {{2, 1}, {2, 1.1}},
		"zero time":      {{2, 0}, {1, 1}},
		"negative freq":  {{-2, 1}, {1, 1}},
	} {
		if _, err := Fit(runs, 0); err == nil {
			t.Errorf("%s: want error", name)
		}
	}
	m, err := Fit([]Run{{2, 10}, {1, 9}}, 0) // faster at lower frequency
	if err != nil || m.Fit.Warning == "" {
		t.Errorf("β < 0 must warn: %+v %v", m, err)
	}
}
