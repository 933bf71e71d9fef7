// Package cos implements the COS (Compute-Overlap-Stall) performance model
// of Li, León and Cameron (HPDC'17): the Intel form (Eq. 9) that
// scales non-stall time with CPU frequency and adds a per-application
// linear correction, and the BG/Q memory-throttling knee model (Eq. 10–11).
package cos

import (
	"errors"
	"fmt"
	"math"

	"github.com/capsim/capsim/compute"
)

// Baseline is one measured (averaged) run of a region at configuration At:
// total time T and pure stall time Ts in seconds, and the counters COS
// regresses on. Units of LLCM and TPI are whatever the fit used; Units in
// Intel records them.
type Baseline struct {
	At   compute.Config `json:"at"`
	T    float64        `json:"t"`
	Ts   float64        `json:"ts"`
	LLCM float64        `json:"llcm"`
	TPI  float64        `json:"tpi"`
}

// Domain is the training hull of a model: the ranges of target CPU
// frequency, memory frequency and thread count seen in training. A zero
// range (Min = Max = 0) is not checked.
type Domain struct {
	CPUMin, CPUMax         float64 `json:",omitempty"`
	MemMin, MemMax         float64 `json:",omitempty"`
	ThreadsMin, ThreadsMax int     `json:",omitempty"`
}

// Contains reports whether c lies inside the hull.
func (d Domain) Contains(c compute.Config) bool {
	const eps = 1e-9
	if d.CPUMax != 0 && (c.CPUFreqGHz < d.CPUMin-eps || c.CPUFreqGHz > d.CPUMax+eps) {
		return false
	}
	if d.MemMax != 0 && (c.MemFreqGHz < d.MemMin-eps || c.MemFreqGHz > d.MemMax+eps) {
		return false
	}
	if d.ThreadsMax != 0 && (c.Threads < d.ThreadsMin || c.Threads > d.ThreadsMax) {
		return false
	}
	return true
}

func (d *Domain) add(c compute.Config, first bool) {
	if first {
		*d = Domain{c.CPUFreqGHz, c.CPUFreqGHz, c.MemFreqGHz, c.MemFreqGHz, c.Threads, c.Threads}
		return
	}
	d.CPUMin, d.CPUMax = math.Min(d.CPUMin, c.CPUFreqGHz), math.Max(d.CPUMax, c.CPUFreqGHz)
	d.MemMin, d.MemMax = math.Min(d.MemMin, c.MemFreqGHz), math.Max(d.MemMax, c.MemFreqGHz)
	d.ThreadsMin, d.ThreadsMax = min(d.ThreadsMin, c.Threads), max(d.ThreadsMax, c.Threads)
}

// Intel is the COS model of Eq. 9 for one application or region:
//
//	T' = (T − Ts)·fc/f'c + α1·LLCM + α2·TPI + α3·f'c + α4·f'm [+ Intercept]
//
// where T, Ts, LLCM, TPI and fc come from the baseline and f'c, f'm are the
// target. Frequencies are in GHz. The paper's form has no intercept.
type Intel struct {
	Alpha     [4]float64 `json:"alpha"`
	Intercept float64    `json:"intercept,omitempty"`
	Units     string     `json:"units,omitempty"` // units of LLCM and TPI, for the record
	Domain    Domain     `json:"domain"`
	Fit       *FitStats  `json:"fit,omitempty"`
	// Base is the region baseline used by Predict (the ratio method).
	Base Baseline `json:"base"`
	// Anchor returns the measured T when the target equals Base.At
	// instead of Eq. 9's value, whose fitted correction need not vanish
	// there (see Residual).
	Anchor bool `json:"anchor,omitempty"`
	// Watts is an optional constant power for the region (COS gives none).
	Watts float64 `json:"watts,omitempty"`
}

// ErrFrequency reports a missing or non-positive CPU frequency.
var ErrFrequency = errors.New("cos: CPU frequency must be positive")

// Eval evaluates Eq. 9 for baseline b at target. Seconds is clamped to a
// small positive floor (Flags Clamped) when the correction drives it ≤ 0;
// Scaled and Correction are reported before clamping.
func (m *Intel) Eval(b Baseline, target compute.Config) (compute.Prediction, error) {
	if b.At.CPUFreqGHz <= 0 || target.CPUFreqGHz <= 0 {
		return compute.Prediction{}, ErrFrequency
	}
	p := compute.Prediction{Kind: compute.KindCOSIntel, Watts: m.Watts}
	if m.Watts == 0 {
		p.Flags |= compute.NoPower
	}
	p.Scaled = (b.T - b.Ts) * b.At.CPUFreqGHz / target.CPUFreqGHz
	a := m.Alpha
	p.Correction = a[0]*b.LLCM + a[1]*b.TPI + a[2]*target.CPUFreqGHz + a[3]*target.MemFreqGHz + m.Intercept
	p.Seconds = p.Scaled + p.Correction
	if !m.Domain.Contains(target) {
		p.Flags |= compute.Extrapolated
	}
	if m.Anchor && sameOpPoint(b.At, target) {
		p.Seconds = b.T
		p.Flags |= compute.Anchored
	}
	if floor := 1e-3 * b.T; p.Seconds < floor || p.Seconds <= 0 {
		p.Seconds = math.Max(floor, math.SmallestNonzeroFloat64)
		p.Flags |= compute.Clamped
	}
	return p, nil
}

func sameOpPoint(a, b compute.Config) bool {
	return a.CPUFreqGHz == b.CPUFreqGHz && a.MemFreqGHz == b.MemFreqGHz && a.Threads == b.Threads
}

// Residual returns T' − T at the baseline's own configuration: how far
// Eq. 9 is from the measurement it starts from.
func (m *Intel) Residual(b Baseline) (float64, error) {
	mm := *m
	mm.Anchor = false
	p, err := mm.Eval(b, b.At)
	if err != nil {
		return 0, err
	}
	return p.Scaled + p.Correction - b.T, nil
}

// Kind returns compute.KindCOSIntel.
func (m *Intel) Kind() compute.Kind { return compute.KindCOSIntel }

// Predict applies the ratio method (docs/design/models.md): the region-level
// prediction T'/T at target, from Base, times the recorded duration.
// The recorded configuration should be Base.At; if it differs, the
// prediction is flagged Extrapolated.
func (m *Intel) Predict(w compute.Work, target compute.Config) (compute.Prediction, error) {
	if m.Base.T <= 0 {
		return compute.Prediction{}, fmt.Errorf("cos: baseline time %g must be positive", m.Base.T)
	}
	p, err := m.Eval(m.Base, target)
	if err != nil {
		return p, err
	}
	r := w.Seconds / m.Base.T
	p.Seconds *= r
	p.Scaled *= r
	p.Correction *= r
	if !sameOpPoint(w.At, m.Base.At) {
		p.Flags |= compute.Extrapolated
	}
	return p, nil
}
