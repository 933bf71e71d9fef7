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

// TestFitLineFallingTimes: recorded times that fall with the size give no
// negative per-byte time; the line is the flat one through their mean,
// not the falling line's intercept extrapolated to 1 byte (which priced
// three ~5 µs messages near 2 GB at 10^12 ns).
func TestFitLineFallingTimes(t *testing.T) {
	for _, tc := range []struct {
		name          string
		ss            []sample
		slope, interc float64
	}{
		{"near 2 GB", []sample{{2147483645, 5000}, {2147483646, 4500}, {2147483647, 4000}}, 0, 4500},
		{"small", []sample{{100, 300}, {200, 200}}, 0, 250},
		{"rising", []sample{{1, 100}, {101, 300}}, 2, 100},
	} {
		l, ok := fitLine(tc.ss)
		if !ok || l.Slope != tc.slope || l.Intercept != tc.interc {
			t.Errorf("%s: slope %g intercept %g, want %g and %g", tc.name, l.Slope, l.Intercept, tc.slope, tc.interc)
		}
	}
}
