package models

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/eiger"
	"github.com/capsim/capsim/compute/modelfile"
)

// Input names of an Eiger model that a configuration supplies; every other
// input of the model takes its value from Eiger.Fixed.
const (
	InputCPU      = "cpu_ghz"
	InputThreads  = "threads"
	InputMem      = "mem_ghz"
	InputThrottle = "mem_throttle"
)

// Eiger prices a region with a fitted Eiger model (Anger's thesis §3.1.1)
// by the ratio method (docs/design/models.md): recorded work of w seconds at w.At takes
// w·E(x(target))/E(x(w.At)) under target, where E is the model and x(c)
// the input vector with the configuration inputs (cpu_ghz, threads,
// mem_ghz, mem_throttle) taken from c and the others from Fixed. Power,
// when set, is a second Eiger model of the region's average power in W,
// evaluated at x(target).
type Eiger struct {
	Time  *eiger.Model       `json:"time"`
	Power *eiger.Model       `json:"power,omitempty"`
	Fixed map[string]float64 `json:"fixed,omitempty"`
}

// Kind returns KindEiger.
func (m *Eiger) Kind() compute.Kind { return KindEiger }

// DecodeEiger decodes and validates the parameters of an "eiger" entry.
func DecodeEiger(params json.RawMessage) (*Eiger, error) {
	m := &Eiger{}
	if err := modelfile.DecodeParams(params, m); err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// Validate checks both models and that every input is a configuration
// input or has a finite fixed value.
func (m *Eiger) Validate() error {
	if m.Time == nil {
		return fmt.Errorf("eiger: missing time model")
	}
	for _, e := range []*eiger.Model{m.Time, m.Power} {
		if e == nil {
			continue
		}
		var b strings.Builder
		if err := e.WriteJSON(&b); err != nil {
			return err
		}
		if _, err := eiger.ReadModel(strings.NewReader(b.String()), "eiger model"); err != nil {
			return err
		}
		for _, n := range e.Names {
			if isConfigInput(n) {
				continue
			}
			v, ok := m.Fixed[n]
			if !ok {
				return fmt.Errorf("eiger: input %q is neither a configuration input (%s, %s, %s, %s) nor in fixed",
					n, InputCPU, InputThreads, InputMem, InputThrottle)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("eiger: fixed %s = %g is not finite", n, v)
			}
		}
	}
	return nil
}

func isConfigInput(n string) bool {
	return n == InputCPU || n == InputThreads || n == InputMem || n == InputThrottle
}

// inputs returns the input vector of e under configuration c, with the
// fixed inputs in over replacing Fixed.
func (m *Eiger) inputs(e *eiger.Model, c compute.Config, over map[string]float64) ([]float64, error) {
	x := make([]float64, len(e.Names))
	for i, n := range e.Names {
		var v float64
		switch n {
		case InputCPU:
			v = c.CPUFreqGHz
		case InputThreads:
			v = float64(c.Threads)
		case InputMem:
			v = c.MemFreqGHz
		case InputThrottle:
			v = c.MemThrottle
		default:
			v, ok := over[n]
			if !ok {
				v = m.Fixed[n]
			}
			x[i] = v
			continue
		}
		if v == 0 {
			return nil, fmt.Errorf("eiger: configuration %q sets no %s", c, n)
		}
		x[i] = v
	}
	return x, nil
}

// Eval returns the model's time E(x(c)) in seconds for configuration c.
func (m *Eiger) Eval(c compute.Config) (float64, error) { return m.eval(c, nil) }

func (m *Eiger) eval(c compute.Config, over map[string]float64) (float64, error) {
	x, err := m.inputs(m.Time, c, over)
	if err != nil {
		return 0, err
	}
	return m.Time.NewPredictor().Predict(x)
}

// Predict returns w.Seconds·E(x(target))/E(x(w.At)); the prediction is
// Clamped to 0 when the model's time at target is not positive.
func (m *Eiger) Predict(w compute.Work, target compute.Config) (compute.Prediction, error) {
	return m.PredictWith(w, target, nil)
}

// PredictWith is Predict for work whose non-configuration inputs differ
// from Fixed under target (e.g. a larger problem): over gives their values
// at target, and the recorded work keeps Fixed. Names in over must be
// fixed inputs of the model.
func (m *Eiger) PredictWith(w compute.Work, target compute.Config, over map[string]float64) (compute.Prediction, error) {
	for n, v := range over {
		if _, ok := m.Fixed[n]; !ok {
			return compute.Prediction{}, fmt.Errorf("eiger: %q is not a fixed input of the model", n)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return compute.Prediction{}, fmt.Errorf("eiger: %s = %g is not finite", n, v)
		}
	}
	if !target.IsCPU() {
		return compute.Prediction{}, fmt.Errorf("eiger: no model for device %q", target.Device)
	}
	at, err := m.Eval(w.At)
	if err != nil {
		return compute.Prediction{}, fmt.Errorf("recorded configuration: %w", err)
	}
	if !(at > 0) {
		return compute.Prediction{}, fmt.Errorf("eiger: model time %g s at the recorded configuration %q is not positive", at, w.At)
	}
	to, err := m.eval(target, over)
	if err != nil {
		return compute.Prediction{}, err
	}
	p := compute.Prediction{Seconds: w.Seconds * to / at, Kind: KindEiger}
	if !(p.Seconds > 0) {
		p.Seconds, p.Flags = 0, p.Flags|compute.Clamped
	}
	if m.Power == nil {
		p.Flags |= compute.NoPower
		return p, nil
	}
	x, err := m.inputs(m.Power, target, over)
	if err != nil {
		return compute.Prediction{}, err
	}
	if p.Watts, err = m.Power.NewPredictor().Predict(x); err != nil {
		return compute.Prediction{}, err
	}
	if p.Watts < 0 {
		p.Watts, p.Flags = 0, p.Flags|compute.Clamped
	}
	return p, nil
}
