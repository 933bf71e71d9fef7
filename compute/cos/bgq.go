package cos

import (
	"errors"
	"fmt"
	"math"

	"github.com/capsim/capsim/compute"
)

// KneeMode selects how Eq. 10–11 is read above the knee.
type KneeMode string

// Knee modes of the BG/Q model (Li, León, Cameron, HPDC'17, Sec. 4).
const (
	// Hinge is the continuous form T = t0 + b·(fm − a) for fm > a
	// (default; the printed equation jumps by b·a at the knee).
	Hinge KneeMode = "hinge"
	// Literal is Eq. 10–11 as printed: T = b·fm + t0 for fm > a.
	Literal KneeMode = "literal"
)

// BGQ is the COS BG/Q memory-bandwidth-throttling model (Eq. 11) with its
// coefficients and one region's counters. Times are in cycles in the
// paper; Eval works in the unit of t0 (cycles or seconds) and b is
// converted with ClockGHz when t0 is in seconds (see Predict).
//
//	a = AlphaKnee·L2M/INST + C1      (knee, idle cycles)
//	b = Beta·L2M + C2                (slope, cycles per idle cycle)
type BGQ struct {
	AlphaKnee float64  `json:"alpha_knee"`
	C1        float64  `json:"c1"`
	Beta      float64  `json:"beta"`
	C2        float64  `json:"c2"`
	Mode      KneeMode `json:"mode,omitempty"` // "" means Hinge
	L2M       float64  `json:"l2m"`            // region L2 misses (unthrottled run)
	Inst      float64  `json:"inst"`           // region instructions
	ClockGHz  float64  `json:"clock_ghz"`      // core clock converting cycles to seconds (BG/Q: 1.6)
	MaxIdle   float64  `json:"max_idle,omitempty"`
	Watts     float64  `json:"watts,omitempty"`
}

// Knee returns a = AlphaKnee·L2M/INST + C1.
func (m *BGQ) Knee() float64 { return m.AlphaKnee*m.L2M/m.Inst + m.C1 }

// Slope returns b = Beta·L2M + C2 in cycles per idle cycle.
func (m *BGQ) Slope() float64 { return m.Beta*m.L2M + m.C2 }

// Eval returns the time at throttle fm (idle cycles) of a region whose
// unthrottled time is t0, in t0's unit (cycles).
func (m *BGQ) Eval(t0, fm float64) float64 {
	a, b := m.Knee(), m.Slope()
	if fm <= a {
		return t0
	}
	if m.Mode == Literal {
		return b*fm + t0
	}
	return t0 + b*(fm-a)
}

// Kind returns compute.KindCOSBGQ.
func (m *BGQ) Kind() compute.Kind { return compute.KindCOSBGQ }

// Predict prices recorded work at target.MemThrottle. The recorded
// throttle w.At.MemThrottle must be at or below the knee (the flat part,
// normally 0), so the recorded duration is t0.
func (m *BGQ) Predict(w compute.Work, target compute.Config) (compute.Prediction, error) {
	if m.Inst <= 0 || m.ClockGHz <= 0 {
		return compute.Prediction{}, errors.New("cos bgq: inst and clock_ghz must be positive")
	}
	if w.At.MemThrottle > m.Knee() {
		return compute.Prediction{}, fmt.Errorf("cos bgq: recorded throttle %g is above the knee %g", w.At.MemThrottle, m.Knee())
	}
	if target.MemThrottle < 0 || math.IsNaN(target.MemThrottle) {
		return compute.Prediction{}, fmt.Errorf("cos bgq: invalid throttle %g", target.MemThrottle)
	}
	cyc := w.Seconds * m.ClockGHz * 1e9
	p := compute.Prediction{Kind: compute.KindCOSBGQ, Watts: m.Watts}
	p.Seconds = m.Eval(cyc, target.MemThrottle) / (m.ClockGHz * 1e9)
	p.Scaled = w.Seconds
	p.Correction = p.Seconds - w.Seconds
	if m.Watts == 0 {
		p.Flags |= compute.NoPower
	}
	if m.MaxIdle > 0 && target.MemThrottle > m.MaxIdle {
		p.Flags |= compute.Extrapolated
	}
	return p, nil
}

// Line fits y = slope·x + intercept by ordinary least squares; it is used
// for the knee (a on L2M/INST) and slope (b on L2M) regressions.
func Line(x, y []float64) (slope, intercept float64, err error) {
	if len(x) != len(y) || len(x) < 2 {
		return 0, 0, fmt.Errorf("cos: line fit needs ≥ 2 equal-length points, got %d and %d", len(x), len(y))
	}
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	n := float64(len(x))
	mx /= n
	my /= n
	var sxx, sxy float64
	for i := range x {
		sxx += (x[i] - mx) * (x[i] - mx)
		sxy += (x[i] - mx) * (y[i] - my)
	}
	if sxx == 0 {
		return 0, 0, errors.New("cos: line fit: all x equal (rank-deficient)")
	}
	slope = sxy / sxx
	return slope, my - slope*mx, nil
}

// FitKnee finds the knee a and slope b of one threshold sweep (throttle
// fm[i], time t[i]) by trying every split point and fitting the
// continuous hinge t = t0 + b·max(0, fm − a) with t0 = mean of the flat
// part. fm must be ascending. It returns the split with the smallest
// squared error.
func FitKnee(fm, t []float64) (a, b, t0 float64, err error) {
	if len(fm) != len(t) || len(fm) < 3 {
		return 0, 0, 0, fmt.Errorf("cos: knee fit needs ≥ 3 equal-length points")
	}
	for i := 1; i < len(fm); i++ {
		if fm[i] < fm[i-1] {
			return 0, 0, 0, fmt.Errorf("cos: knee fit: throttle values not ascending at point %d", i+1)
		}
	}
	best := math.Inf(1)
	for k := 1; k < len(fm)-1; k++ { // flat: [0,k), linear: [k-1, n)
		var flat float64
		for i := range k {
			flat += t[i]
		}
		flat /= float64(k)
		// slope through (a, flat): b·(fm−a) = t−flat for the tail; a = fm[k-1].
		ak := fm[k-1]
		var num, den float64
		for i := k; i < len(fm); i++ {
			num += (fm[i] - ak) * (t[i] - flat)
			den += (fm[i] - ak) * (fm[i] - ak)
		}
		if den == 0 {
			continue
		}
		bk := num / den
		var sse float64
		for i := range fm {
			d := t[i] - (flat + bk*math.Max(0, fm[i]-ak))
			sse += d * d
		}
		if sse < best {
			best, a, b, t0 = sse, ak, bk, flat
		}
	}
	if math.IsInf(best, 1) {
		return 0, 0, 0, errors.New("cos: knee fit: no valid split")
	}
	return a, b, t0, nil
}

// ErrStats summarizes prediction errors as in the paper's validation
// (HPDC'17, Fig. 5): Err% = |meas − pred|/meas·100 per configuration, their
// mean, and both the population and the sample standard deviation (the
// paper does not say which it used).
type ErrStats struct {
	Err                 []float64
	Mean, PopSD, SampSD float64
}

// Errors computes ErrStats; meas values must be non-zero.
func Errors(meas, pred []float64) (ErrStats, error) {
	if len(meas) != len(pred) || len(meas) == 0 {
		return ErrStats{}, fmt.Errorf("cos: errors need equal, non-empty inputs (got %d and %d)", len(meas), len(pred))
	}
	var s ErrStats
	for i := range meas {
		if meas[i] == 0 {
			return ErrStats{}, fmt.Errorf("cos: measurement %d is zero", i+1)
		}
		e := math.Abs(meas[i]-pred[i]) / math.Abs(meas[i]) * 100
		s.Err = append(s.Err, e)
		s.Mean += e
	}
	n := float64(len(meas))
	s.Mean /= n
	var ss float64
	for _, e := range s.Err {
		ss += (e - s.Mean) * (e - s.Mean)
	}
	s.PopSD = math.Sqrt(ss / n)
	if n > 1 {
		s.SampSD = math.Sqrt(ss / (n - 1))
	}
	return s, nil
}
