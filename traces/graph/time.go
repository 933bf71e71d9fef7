package graph

import (
	"fmt"
	"math"
	"math/bits"
)

// SecondsToNs converts a time in seconds to whole ns, rounded to nearest,
// for times computed in floating point (an LP's solution, a model's
// price). It fails when s is NaN, negative or above MaxTimeNs, rather than
// letting the conversion wrap.
func SecondsToNs(s float64) (int64, error) {
	ns := math.Round(s * 1e9)
	if !(ns >= 0) || ns > float64(MaxTimeNs) {
		return 0, fmt.Errorf("time %g s is not in 0..%d ns (graph.MaxTimeNs, about 31.7 years)", s, MaxTimeNs)
	}
	return int64(ns), nil
}

// SatNs rounds a time in ns computed in floating point to whole ns for a
// pricer: NaN, +Inf and anything above MaxTimeNs give MaxTimeNs+1, which
// the replay engine then reports as a time past the limit, naming the
// operation; negative times give 0.
func SatNs(x float64) int64 {
	x = math.Round(x)
	switch {
	case x <= 0:
		return 0
	case x <= float64(MaxTimeNs):
		return int64(x)
	}
	return MaxTimeNs + 1 // also NaN
}

// MulNs returns a·b for a, b ≥ 0 (a count times a time), or MaxTimeNs+1
// when the product exceeds MaxTimeNs.
func MulNs(a, b int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > uint64(MaxTimeNs) {
		return MaxTimeNs + 1
	}
	return int64(lo)
}
