package dvfs

import (
	"math"
	"testing"
)

// The scaling τ(f) = c·f_max/f + (1−c) of note 001 §3.1 (c = 1 − m): with
// work 1.0 at 2.1 GHz, the DPS unit test's baseline at 1.7 GHz takes
// 2.1/1.7 = 1.2353 when compute bound, and the c = 0.5 case improves by
// 10.53 % when the critical core moves from 1.7 to 2.1 GHz.
func TestFactorMatchesNoteDPSCases(t *testing.T) {
	cb := Model{MemoryBoundness: 0, RefGHz: 2.1}
	if got := cb.Factor(1.7); math.Abs(got-1.2353) > 5e-5 {
		t.Errorf("compute-bound factor at 1.7 GHz = %.5f, want 1.2353", got)
	}
	half := Model{MemoryBoundness: 0.5, RefGHz: 2.1}
	base, dps := half.Factor(1.7), half.Factor(2.1)
	if imp := 100 * (base - dps) / base; math.Abs(imp-10.53) > 0.005 {
		t.Errorf("c = 0.5 improvement %.3f %%, want 10.53 %%", imp)
	}
	mem := Model{MemoryBoundness: 1, RefGHz: 2.1}
	if mem.Factor(1.4) != 1 {
		t.Error("memory-bound work must not depend on frequency")
	}
	if got := cb.Time(1000, 1.05); got != 2000 {
		t.Errorf("Time = %d, want 2000", got)
	}
}

func TestFitRecoversBoundness(t *testing.T) {
	want := Model{MemoryBoundness: 0.3, RefGHz: 2.6}
	var samples []Sample
	for _, f := range []float64{1.2, 1.6, 2.0, 2.6} {
		samples = append(samples, Sample{GHz: f, TimeS: 4 * want.Factor(f)})
	}
	got, err := Fit(2.6, samples)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.MemoryBoundness-0.3) > 1e-12 {
		t.Errorf("fit m = %v, want 0.3", got.MemoryBoundness)
	}
	for _, bad := range [][]Sample{nil, {{2, 1}}, {{2, 1}, {2, 1.1}}, {{2, 1}, {-1, 1}}} {
		if _, err := Fit(2, bad); err == nil {
			t.Errorf("Fit(%v) succeeded", bad)
		}
	}
}
