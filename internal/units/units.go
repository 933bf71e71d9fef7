// Package units rounds the quantities capsim prints (JSON, CSV) to what
// its models resolve, so that the same number always prints as the same
// short decimal (288.8, not 288.79999999999995): power to 1 µW (P-state
// tables give watts to a few decimals), energy to 1 nJ, durations in
// seconds to 1 ns (the engine's clock) and percentages to 1e-6 %. Raw
// data (Arrow tables, the engine's integer nanoseconds) stays exact, and
// FormatNs prints integer nanoseconds as seconds without rounding.
package units

import (
	"fmt"
	"math"
)

// Watts rounds a power to 1e-6 W.
func Watts(x float64) float64 { return round(x, 1e6) }

// Joules rounds an energy to 1e-9 J.
func Joules(x float64) float64 { return round(x, 1e9) }

// Seconds rounds a duration in seconds to 1 ns.
func Seconds(x float64) float64 { return round(x, 1e9) }

// Pct rounds a percentage to 1e-6 %.
func Pct(x float64) float64 { return round(x, 1e6) }

// FormatNs formats ns nanoseconds as seconds with all nine decimals,
// exactly (no float): FormatNs(-1500000000) is "-1.500000000 s".
func FormatNs(ns int64) string {
	sign, u := "", uint64(ns)
	if ns < 0 {
		sign, u = "-", -u
	}
	return fmt.Sprintf("%s%d.%09d s", sign, u/1e9, u%1e9)
}

// round rounds x to 1/scale, leaving values it cannot represent that
// finely (non-finite or beyond 2^53/scale) as they are; a tiny negative
// value (a difference of two equal energies) rounds to +0.
func round(x, scale float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x)*scale >= 1<<53 {
		return x
	}
	r := math.Round(x*scale) / scale
	if r == 0 {
		return 0 // not -0, which prints as "-0" in text and JSON
	}
	return r
}
