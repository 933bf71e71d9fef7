package models

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/modelfile"
	"github.com/capsim/capsim/compute/power"
)

// KindPhaseMLR is Dong Li's phase-time regression with the IPS power
// model (Dong Li, PhD thesis, Virginia Tech 2011, §3.4–3.5), see PhaseMLR.
const KindPhaseMLR compute.Kind = "phase-mlr"

// MLRSample is a phase observed at one sample configuration (Dong Li's
// thesis §3.4): its time, its hardware event rates (occurrences per elapsed
// cycle, in the order of PhaseMLR.Events) and, for the power model, its
// instruction count.
type MLRSample struct {
	Config       compute.Config `json:"config"`
	Seconds      float64        `json:"time_s"`
	Rates        []float64      `json:"rates"`
	Instructions float64        `json:"instructions,omitempty"`
}

// Alpha is α_(t,i) of Eq. 3.17 in the form of Eq. 4.2:
// α = Σ_j (X_j·e_(j,i) + Y_j) + Z. The Y_j and Z are not separately
// identifiable by the regression (they all multiply Time_i); a fit puts
// their sum in Z.
type Alpha struct {
	X []float64 `json:"x"`
	Y []float64 `json:"y,omitempty"`
	Z float64   `json:"z"`
}

// MLRTarget is the coefficient set of one target configuration t (the
// thesis fits one per target): α_(t,i) per sample i, μ_(t,i,j,k) per event
// i and sample pair j < k (pairs in the order (0,1), (0,2), …, (1,2), …),
// μ_(t,j,k,time) per sample pair, l_t and σ_t (Eqs. 3.17–3.18).
type MLRTarget struct {
	Config   compute.Config `json:"config"`
	Alpha    []Alpha        `json:"alpha"`
	MuEvents [][]float64    `json:"mu_events,omitempty"`
	MuTime   []float64      `json:"mu_time,omitempty"`
	L        float64        `json:"l,omitempty"`
	Sigma    float64        `json:"sigma,omitempty"`
}

// PhaseMLR predicts an OpenMP phase's time at a target configuration from
// its times and event rates at the sample configurations (Dong Li's
// thesis Eq. 3.17, with λ_t of Eq. 3.18 and σ_t added once: the thesis
// prints them inside the sum over samples, which would count them |S|
// times):
//
//	Time_t = Σ_i Time_i·α_(t,i)(e_(1..n,i)) + λ_t + σ_t
//	λ_t    = Σ_i Σ_(j<k) μ_(t,i,j,k)·e_(i,j)·e_(i,k) + Σ_(j<k) μ_(t,j,k,time)·Time_j·Time_k + l_t
//
// At a sample configuration the observed time is returned (Anchored).
// Recorded work is priced by the ratio method: w seconds at w.At take
// w·Time(target)/Time(w.At).
//
// With Power set, the average system power is Eq. 3.19,
// P = k1·IPS + k0, where IPS is the instruction count at the target's
// thread count, interpolated linearly between the minimum- and
// maximum-concurrency samples that carry instructions (§2.7), over the
// predicted Time_t.
type PhaseMLR struct {
	Events  []string    `json:"events"`
	Samples []MLRSample `json:"samples"`
	Targets []MLRTarget `json:"targets"`
	Power   *power.IPS  `json:"power,omitempty"`
}

// Kind returns KindPhaseMLR.
func (m *PhaseMLR) Kind() compute.Kind { return KindPhaseMLR }

// DecodePhaseMLR decodes and validates the parameters of a "phase-mlr"
// entry.
func DecodePhaseMLR(params json.RawMessage) (*PhaseMLR, error) {
	m := &PhaseMLR{}
	if err := modelfile.DecodeParams(params, m); err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

func finite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// pairs returns the number of pairs j < k of s samples.
func pairs(s int) int { return s * (s - 1) / 2 }

// Validate checks the shapes of the coefficient sets against the samples
// and events, that every number is finite, that sample times are positive
// and that no configuration appears twice.
func (m *PhaseMLR) Validate() error {
	n, s := len(m.Events), len(m.Samples)
	if s == 0 {
		return errors.New("phase-mlr: no sample configurations")
	}
	seen := map[compute.Config]string{}
	for i, sm := range m.Samples {
		if !(sm.Seconds > 0) || !finite(sm.Seconds, sm.Instructions) || sm.Instructions < 0 {
			return fmt.Errorf("phase-mlr: sample %d (%s): want a positive finite time_s and non-negative instructions", i, sm.Config)
		}
		if len(sm.Rates) != n || !finite(sm.Rates...) {
			return fmt.Errorf("phase-mlr: sample %d (%s): want %d finite event rates, got %d", i, sm.Config, n, len(sm.Rates))
		}
		if prev, dup := seen[sm.Config]; dup {
			return fmt.Errorf("phase-mlr: configuration %s appears twice (%s)", sm.Config, prev)
		}
		seen[sm.Config] = fmt.Sprintf("sample %d", i)
	}
	for ti, t := range m.Targets {
		where := fmt.Sprintf("phase-mlr: target %d (%s)", ti, t.Config)
		if prev, dup := seen[t.Config]; dup {
			return fmt.Errorf("%s: configuration appears twice (%s)", where, prev)
		}
		seen[t.Config] = fmt.Sprintf("target %d", ti)
		if len(t.Alpha) != s {
			return fmt.Errorf("%s: want one alpha per sample (%d), got %d", where, s, len(t.Alpha))
		}
		if err := checkCoefs(where, t.Alpha, t.MuEvents, s, n); err != nil {
			return err
		}
		if t.MuTime != nil && (len(t.MuTime) != pairs(s) || !finite(t.MuTime...)) {
			return fmt.Errorf("%s: mu_time: want %d finite values (one per sample pair)", where, pairs(s))
		}
		if !finite(t.L, t.Sigma) {
			return fmt.Errorf("%s: l and sigma must be finite", where)
		}
	}
	if p := m.Power; p != nil {
		if !finite(p.K1, p.K0) {
			return errors.New("phase-mlr: power k1 and k0 must be finite")
		}
		if _, _, err := m.instrRange(); err != nil {
			return err
		}
	}
	return nil
}

// instrRange returns the samples with instructions at the least and the
// most threads.
func (m *PhaseMLR) instrRange() (lo, hi *MLRSample, err error) {
	for i := range m.Samples {
		sm := &m.Samples[i]
		if sm.Instructions <= 0 {
			continue
		}
		if lo == nil || sm.Config.Threads < lo.Config.Threads {
			lo = sm
		}
		if hi == nil || sm.Config.Threads > hi.Config.Threads {
			hi = sm
		}
	}
	if lo == nil {
		return nil, nil, errors.New("phase-mlr: the power model needs instructions at one sample at least")
	}
	return lo, hi, nil
}

// Time returns the phase's time at configuration c (Eq. 3.17) and
// whether it is an observed sample time.
func (m *PhaseMLR) Time(c compute.Config) (float64, bool, error) {
	for _, sm := range m.Samples {
		if sm.Config == c {
			return sm.Seconds, true, nil
		}
	}
	for i := range m.Targets {
		if m.Targets[i].Config == c {
			return m.eval(&m.Targets[i]), false, nil
		}
	}
	return 0, false, fmt.Errorf("phase-mlr: no sample or coefficient set for configuration %s", c)
}

func (m *PhaseMLR) eval(t *MLRTarget) float64 { return evalMLR(m.Samples, t) }

// evalMLR is the regression of Eq. 3.17 (and of Eq. 4.1, with IPC in
// place of time): Σ_i y_i·α_(t,i) + λ_t + σ_t over the sample
// observations ss, y_i being ss[i].Seconds.
func evalMLR(ss []MLRSample, t *MLRTarget) float64 {
	var tt float64
	for i, sm := range ss {
		a := t.Alpha[i]
		alpha := a.Z
		for j, e := range sm.Rates {
			alpha += a.X[j] * e
			if a.Y != nil {
				alpha += a.Y[j]
			}
		}
		tt += sm.Seconds * alpha
	}
	s := len(ss)
	for i := range t.MuEvents {
		p := 0
		for j := 0; j < s-1; j++ {
			for k := j + 1; k < s; k++ {
				tt += t.MuEvents[i][p] * ss[j].Rates[i] * ss[k].Rates[i]
				p++
			}
		}
	}
	if t.MuTime != nil {
		p := 0
		for j := 0; j < s-1; j++ {
			for k := j + 1; k < s; k++ {
				tt += t.MuTime[p] * ss[j].Seconds * ss[k].Seconds
				p++
			}
		}
	}
	return tt + t.L + t.Sigma
}

// Instructions returns the instruction count at threads by linear
// interpolation between the minimum- and maximum-concurrency samples
// (Dong Li's thesis §3.5).
func (m *PhaseMLR) Instructions(threads int) (float64, error) {
	lo, hi, err := m.instrRange()
	if err != nil {
		return 0, err
	}
	return power.InterpInstructions(threads, lo.Config.Threads, lo.Instructions, hi.Config.Threads, hi.Instructions), nil
}

// Predict returns w.Seconds·Time(target)/Time(w.At) and, with Power, the
// Eq. 3.19 power at target. The time is Clamped to 0 when Eq. 3.17 gives a
// non-positive time, and the power Clamped to 0 when negative; a target
// thread count outside the sampled range is Extrapolated.
func (m *PhaseMLR) Predict(w compute.Work, target compute.Config) (compute.Prediction, error) {
	if !target.IsCPU() {
		return compute.Prediction{}, fmt.Errorf("phase-mlr: no model for device %q", target.Device)
	}
	at, _, err := m.Time(w.At)
	if err != nil {
		return compute.Prediction{}, fmt.Errorf("recorded configuration: %w", err)
	}
	if !(at > 0) {
		return compute.Prediction{}, fmt.Errorf("phase-mlr: time %g s at the recorded configuration %s is not positive", at, w.At)
	}
	tt, anchored, err := m.Time(target)
	if err != nil {
		return compute.Prediction{}, err
	}
	p := compute.Prediction{Kind: KindPhaseMLR}
	if anchored {
		p.Flags |= compute.Anchored
	}
	if !(tt > 0) {
		p.Flags |= compute.Clamped
		return p, nil
	}
	p.Seconds = w.Seconds * tt / at
	if m.Power == nil {
		p.Flags |= compute.NoPower
		return p, nil
	}
	lo, hi, _ := m.instrRange()
	if target.Threads < lo.Config.Threads || target.Threads > hi.Config.Threads {
		p.Flags |= compute.Extrapolated
	}
	instr, err := m.Instructions(target.Threads)
	if err != nil {
		return compute.Prediction{}, err
	}
	p.Watts = m.Power.Watts(instr, tt)
	if p.Watts < 0 {
		p.Watts, p.Flags = 0, p.Flags|compute.Clamped
	}
	return p, nil
}

// checkCoefs checks a coefficient set's α (one per sample, each with n
// finite x, and y if given, and a finite z) and, if given, its μ of the n
// events (one finite value per pair of the s samples); where names the set
// in errors.
func checkCoefs(where string, alpha []Alpha, muEvents [][]float64, s, n int) error {
	for i, a := range alpha {
		if len(a.X) != n || (a.Y != nil && len(a.Y) != n) || !finite(a.X...) || !finite(a.Y...) || !finite(a.Z) {
			return fmt.Errorf("%s: alpha %d: want %d finite x (and y, if given) and a finite z", where, i, n)
		}
	}
	if muEvents != nil {
		if len(muEvents) != n {
			return fmt.Errorf("%s: want mu_events for each of %d events, got %d", where, n, len(muEvents))
		}
		for i, mu := range muEvents {
			if len(mu) != pairs(s) || !finite(mu...) {
				return fmt.Errorf("%s: mu_events %d: want %d finite values (one per sample pair)", where, i, pairs(s))
			}
		}
	}
	return nil
}
