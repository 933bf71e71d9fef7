// Package dvfs models how a region's time responds to CPU frequency by
// splitting it into a frequency-sensitive part (∝ 1/f) and an insensitive
// part (memory- or I/O-bound): T(f) = T(ref)·(β·ref/f + 1 − β). This is
// the τ(f) = (1 − m)·f_max/f + m slowdown of Dynamic Power Steering
// (Anger, PhD thesis, Georgia Tech 2016, §5.1.1) with β = 1 − m.
package dvfs

import (
	"errors"
	"fmt"
	"math"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/power"
)

// Model is a DVFS time model: Beta is the frequency-sensitive fraction of
// the time at RefGHz. Power optionally gives the active power per P-state
// (without it predictions carry compute.NoPower). MinGHz..MaxGHz is the
// fitted frequency range (0 = unchecked); targets outside it are flagged
// compute.Extrapolated.
type Model struct {
	Beta   float64       `json:"beta"`
	RefGHz float64       `json:"ref_ghz"`
	MinGHz float64       `json:"min_ghz,omitempty"`
	MaxGHz float64       `json:"max_ghz,omitempty"`
	Power  power.PStates `json:"power,omitempty"`
	Fit    *FitStats     `json:"fit,omitempty"`
}

// ErrFrequency reports a missing or non-positive CPU frequency.
var ErrFrequency = errors.New("dvfs: CPU frequency must be positive")

// Factor returns T(to)/T(from) for the model.
func (m *Model) Factor(from, to float64) (float64, error) {
	if !(from > 0) || !(to > 0) || !(m.RefGHz > 0) {
		return 0, ErrFrequency
	}
	// T(f) ∝ (1−β) + β·ref/f.
	t := func(f float64) float64 { return (1 - m.Beta) + m.Beta*m.RefGHz/f }
	return t(to) / t(from), nil
}

// Kind returns compute.KindDVFS.
func (m *Model) Kind() compute.Kind { return compute.KindDVFS }

// Predict scales w.Seconds from w.At.CPUFreqGHz to target.CPUFreqGHz.
func (m *Model) Predict(w compute.Work, target compute.Config) (compute.Prediction, error) {
	r, err := m.Factor(w.At.CPUFreqGHz, target.CPUFreqGHz)
	if err != nil {
		return compute.Prediction{}, err
	}
	p := compute.Prediction{Seconds: w.Seconds * r, Kind: compute.KindDVFS}
	f := target.CPUFreqGHz
	if m.MaxGHz > 0 && (f < m.MinGHz-1e-9 || f > m.MaxGHz+1e-9) {
		p.Flags |= compute.Extrapolated
	}
	if len(m.Power) == 0 {
		p.Flags |= compute.NoPower
	} else {
		w, ex := m.Power.At(f)
		p.Watts = w
		if ex {
			p.Flags |= compute.Extrapolated
		}
	}
	return p, nil
}

// Run is one measured run of a region at a CPU frequency.
type Run struct {
	GHz     float64
	Seconds float64
}

// FitStats describes a DVFS fit.
type FitStats struct {
	N       int     `json:"n"`
	R2      float64 `json:"r2"`       // centred R² (1 with two runs)
	ResidSD float64 `json:"resid_sd"` // sqrt(RSS/(N−2)), 0 with two runs
	Warning string  `json:"warning,omitempty"`
}

// Fit fits T(f) = a + b/f by least squares to two or more runs at
// distinct frequencies and returns the model referenced to refGHz (the
// highest run frequency when refGHz is 0): β = (b/ref)/(a + b/ref).
// β outside [0, 1] (time falling with lower frequency, or super-linear
// sensitivity) is kept but reported in FitStats.Warning.
func Fit(runs []Run, refGHz float64) (*Model, error) {
	if len(runs) < 2 {
		return nil, fmt.Errorf("dvfs: need runs at ≥ 2 frequencies, have %d", len(runs))
	}
	var mx, my, lo, hi float64
	lo = math.Inf(1)
	for i, r := range runs {
		if !(r.GHz > 0) || !(r.Seconds > 0) || math.IsInf(r.Seconds, 0) || math.IsInf(r.GHz, 0) {
			return nil, fmt.Errorf("dvfs: run %d: invalid (%g GHz, %g s)", i+1, r.GHz, r.Seconds)
		}
		mx += 1 / r.GHz
		my += r.Seconds
		lo, hi = math.Min(lo, r.GHz), math.Max(hi, r.GHz)
	}
	if lo == hi {
		return nil, fmt.Errorf("dvfs: all %d runs at %g GHz; need ≥ 2 distinct frequencies", len(runs), lo)
	}
	n := float64(len(runs))
	mx, my = mx/n, my/n
	var sxx, sxy, syy float64
	for _, r := range runs {
		dx, dy := 1/r.GHz-mx, r.Seconds-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	b := sxy / sxx
	a := my - b*mx
	if refGHz == 0 {
		refGHz = hi
	}
	tref := a + b/refGHz
	if !(tref > 0) {
		return nil, fmt.Errorf("dvfs: fitted time at %g GHz is %g s (not positive)", refGHz, tref)
	}
	m := &Model{Beta: (b / refGHz) / tref, RefGHz: refGHz, MinGHz: lo, MaxGHz: hi}
	st := &FitStats{N: len(runs), R2: 1}
	var rss float64
	for _, r := range runs {
		d := r.Seconds - (a + b/r.GHz)
		rss += d * d
	}
	if syy > 0 {
		st.R2 = 1 - rss/syy
	}
	if len(runs) > 2 {
		st.ResidSD = math.Sqrt(rss / (n - 2))
	}
	if m.Beta < 0 || m.Beta > 1 {
		st.Warning = fmt.Sprintf("frequency-sensitive fraction %.4g outside [0, 1]", m.Beta)
	}
	m.Fit = st
	return m, nil
}
