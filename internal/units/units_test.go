package units

import (
	"math"
	"strconv"
	"testing"
)

func TestRoundsToShortDecimals(t *testing.T) {
	for _, c := range []struct {
		f    func(float64) float64
		in   float64
		want string
	}{
		{Watts, 288.79999999999995, "288.8"},
		{Watts, 319.2000000000003, "319.2"},
		{Watts, 12.3456785, "12.345679"},
		{Joules, 15.953424480000013, "15.95342448"},
		{Seconds, 0.1 + 0.2, "0.3"},
		{Pct, 0.014861408954169875, "0.014861"},
		{Watts, -1.0000004, "-1"},
		{Watts, 1e300, "1e+300"},
		{Watts, math.Inf(1), "+Inf"},
		// A difference of two equal energies, off by an ulp: it printed "-0".
		{Joules, 0.000263712 - 0.00026371200000000004, "0"},
		{Joules, math.Copysign(0, -1), "0"},
	} {
		if got := strconv.FormatFloat(c.f(c.in), 'g', -1, 64); got != c.want {
			t.Errorf("%v → %s, want %s", c.in, got, c.want)
		}
	}
	if !math.IsNaN(Watts(math.NaN())) {
		t.Error("NaN changed")
	}
}

func TestFormatNs(t *testing.T) {
	for _, c := range []struct {
		ns   int64
		want string
	}{
		{0, "0.000000000 s"},
		{1, "0.000000001 s"},
		{1500000000, "1.500000000 s"},
		{-1500000000, "-1.500000000 s"},
		{-999, "-0.000000999 s"},
		{math.MaxInt64, "9223372036.854775807 s"},
		{math.MinInt64, "-9223372036.854775808 s"},
	} {
		if got := FormatNs(c.ns); got != c.want {
			t.Errorf("FormatNs(%d) = %q, want %q", c.ns, got, c.want)
		}
	}
}
