package policy

import "math"

// RAPLMinDuty is the smallest clock-modulation duty cycle the static-rapl
// policy emulates: Intel's on-demand clock modulation steps by 1/16
// (6.25 %). Below it the limit cannot be met and the rank draws more than
// its share.
const RAPLMinDuty = 1.0 / 16

// RAPLMix is what a per-socket RAPL power limit makes of one region
// (the Static of Bailey et al., SC'15, §4.1): the firmware, not the scheduler,
// picks the P-state, at the fixed thread count the trace was recorded
// with, so that the power averaged over its window stays at the limit.
// ratio[k] and watts[k] are the region's time (a multiple of the
// recorded time) and power at P-state k, fastest first.
//
//   - When the fastest P-state fits (watts[0] ≤ limitW) the region runs
//     there, below the limit.
//   - Otherwise the window alternates between the two adjacent P-states
//     whose powers bracket the limit, spending the share
//     c = (limit − P_lo)/(P_hi − P_lo) of its time at the faster one: the
//     windowed average power is exactly the limit (the LP's own
//     interpolation, Bailey et al., SC'15, Fig. 6), and the work advances at the time-averaged speed,
//     ratio = 1/(c/ratio_hi + (1 − c)/ratio_lo).
//   - Below the slowest P-state's power the firmware modulates the clock
//     (duty cycling, the paper's BT processors at 22 % of the maximum
//     clock): duty δ = (limit − floor)/(P_min − floor) with floorW the
//     power of the gated core, time ratio_min/δ, average power
//     δ·P_min + (1 − δ)·floor = limit. δ is held at RAPLMinDuty or more,
//     where the limit is not met.
//
// It returns the time ratio, the average power and the duty cycle (1
// without clock modulation). The window is taken as short against the
// regions (the steady state of RAPL's controller).
func RAPLMix(ratio, watts []float64, limitW, floorW float64) (r, w, duty float64) {
	n := len(watts)
	if n == 0 {
		return math.NaN(), math.NaN(), 1
	}
	if watts[0] <= limitW {
		return ratio[0], watts[0], 1
	}
	// The fastest P-state that fits, and the slowest faster one that does
	// not: the bracket.
	for k := 1; k < n; k++ {
		if watts[k] > limitW {
			continue
		}
		hi := k - 1 // watts[hi] > limitW ≥ watts[k]
		c := (limitW - watts[k]) / (watts[hi] - watts[k])
		return 1 / (c/ratio[hi] + (1-c)/ratio[k]), limitW, 1
	}
	pmin := watts[n-1]
	duty = 1.0
	if pmin > floorW {
		duty = (limitW - floorW) / (pmin - floorW)
	}
	duty = math.Min(1, math.Max(RAPLMinDuty, duty))
	return ratio[n-1] / duty, duty*pmin + (1-duty)*floorW, duty
}
