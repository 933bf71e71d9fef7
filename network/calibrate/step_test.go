package calibrate

import (
	"math"
	"testing"
)

// betaInc against known values: I_x(1, 1) = x, and the two-sided p-values
// of Student's t at its tabled 95 % and 99 % quantiles (t = 12.706 with 1
// degree of freedom, 3.169 with 10), I_{ν/(ν+t²)}(ν/2, 1/2).
func TestBetaInc(t *testing.T) {
	for _, c := range []struct{ a, b, x, want, tol float64 }{
		{1, 1, 0.3, 0.3, 1e-12},
		{0.5, 0.5, 1 / (1 + 12.706*12.706), 0.05, 1e-4},
		{5, 0.5, 10 / (10 + 3.169*3.169), 0.01, 1e-4},
		{2, 3, 0, 0, 0},
		{2, 3, 1, 1, 0},
	} {
		if got := betaInc(c.a, c.b, c.x); math.Abs(got-c.want) > c.tol {
			t.Errorf("I_%g(%g, %g) = %g, want %g", c.x, c.a, c.b, got, c.want)
		}
	}
}

// findStep finds a protocol switch of 8 µs above 16 KiB in one-way times
// with ±200 ns of noise, and nothing where there is no step, too few
// sizes or a step down.
func TestFindStep(t *testing.T) {
	noise := []float64{120, -80, 200, -150, 40, -200, 90, 0, -60, 180, -110}
	times := func(jump float64) []sample {
		var ss []sample
		for i := range 11 {
			s := int64(1024) << i
			ns := 5000 + 0.1*float64(s-1) + noise[i]
			if s > 16384 {
				ns += jump
			}
			ss = append(ss, sample{s, ns})
		}
		return ss
	}
	st := findStep(times(8000))
	if st == nil || st.AfterBytes != 16384 || math.Abs(st.JumpNs-8000) > 400 || math.Abs(st.Slope-0.1) > 0.001 || st.P >= stepAlpha {
		t.Fatalf("step %+v, want one of about 8000 ns after 16384 B", st)
	}
	for _, c := range []struct {
		name string
		ss   []sample
	}{
		{"no step", times(0)},
		{"a step down", times(-8000)},
		{"four sizes", times(8000)[3:7]},
	} {
		if st := findStep(c.ss); st != nil {
			t.Errorf("%s: step %+v", c.name, st)
		}
	}
}
