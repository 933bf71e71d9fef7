package models

import (
	"fmt"
	"sort"
	"strings"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/eiger"
)

// EigerSamples are the training samples of one region: one row of Inputs
// per trial, its time in seconds and optionally its average power in W.
type EigerSamples struct {
	Inputs []string
	X      [][]float64
	Time   []float64
	Power  []float64 // nil for no power model
}

// FitEiger fits the time (and power) Eiger models of one region (Anger's
// thesis §3.1.1: zero-variance reduction, k-means, forward selection) and binds
// them as an Eiger compute model. Inputs other than the configuration
// inputs are fixed at the value in fixed, or else at their sample mean.
// The model must give a positive time at the recorded configuration.
// It returns the model and one line of fit statistics per cluster.
func FitEiger(s EigerSamples, opt eiger.Options, recorded compute.Config, fixed map[string]float64) (*Eiger, []string, error) {
	tm, err := eiger.Fit(s.Inputs, s.X, s.Time, opt)
	if err != nil {
		return nil, nil, fmt.Errorf("time model: %w", err)
	}
	m := &Eiger{Time: tm, Fixed: map[string]float64{}}
	lines := describe("time", tm)
	if s.Power != nil {
		pm, err := eiger.Fit(s.Inputs, s.X, s.Power, opt)
		if err != nil {
			return nil, nil, fmt.Errorf("power model: %w", err)
		}
		m.Power = pm
		lines = append(lines, describe("power", pm)...)
	}
	for j, n := range s.Inputs {
		if isConfigInput(n) {
			continue
		}
		if v, ok := fixed[n]; ok {
			m.Fixed[n] = v
			continue
		}
		var sum float64
		for _, x := range s.X {
			sum += x[j]
		}
		m.Fixed[n] = sum / float64(len(s.X))
	}
	for n := range fixed {
		if _, ok := m.Fixed[n]; !ok {
			return nil, nil, fmt.Errorf("fixed input %q is not a non-configuration input of the samples", n)
		}
	}
	if err := m.Validate(); err != nil {
		return nil, nil, err
	}
	at, err := m.Eval(recorded)
	if err != nil {
		return nil, nil, fmt.Errorf("recorded configuration: %w", err)
	}
	if !(at > 0) {
		return nil, nil, fmt.Errorf("the fitted time at the recorded configuration %q is %g s (not positive)", recorded, at)
	}
	if len(m.Fixed) > 0 {
		keys := make([]string, 0, len(m.Fixed))
		for k := range m.Fixed {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s=%g", k, m.Fixed[k])
		}
		lines = append(lines, "fixed inputs: "+b.String())
	}
	return m, lines, nil
}

// describe formats the fit statistics and chosen terms of each cluster.
func describe(what string, m *eiger.Model) []string {
	names := make([]string, len(m.Params))
	for k, j := range m.Params {
		names[k] = m.Names[j]
	}
	var out []string
	for i, c := range m.Clusters {
		var b strings.Builder
		fmt.Fprintf(&b, "%s cluster %d: %d samples, R² %.6g, adjusted R² %.6g, MAPE %.4g%%, %d terms: %.6g", what, i, c.Stats.N, c.Stats.R2, c.Stats.AdjR2, c.Stats.MAPE, len(c.Terms), c.Beta[0])
		for k, t := range c.Terms {
			fmt.Fprintf(&b, " %+.6g·%s", c.Beta[k+1], t.String(names))
		}
		out = append(out, b.String())
	}
	return out
}
