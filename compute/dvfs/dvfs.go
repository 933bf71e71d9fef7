// Package dvfs models how compute time scales with CPU frequency: a share
// m of a region's time (memory-bound work) does not depend on frequency and
// the rest scales with 1/f, so a region recorded as t at frequency f0 takes
//
//	t(f) = t · ((1 − m) · f0/f + m)
//
// at frequency f (the τ(f) of Anger's thesis §5.1, note 001 §3.1 [D]). The
// share m can be fit from the region's times at two or more frequencies.
package dvfs

import (
	"errors"
	"fmt"
	"math"

	"github.com/capsim/capsim/traces/graph"
)

// Model is the frequency-scaling model of a region.
type Model struct {
	// MemoryBoundness is m in [0, 1]: 0 is fully compute bound (time
	// scales with 1/f), 1 is insensitive to frequency.
	MemoryBoundness float64 `json:"memory_boundness"`
	// RefGHz is f0, the frequency the recorded times were measured at.
	RefGHz float64 `json:"ref_ghz"`
}

// Validate checks the model's parameters.
func (m Model) Validate() error {
	if !(m.MemoryBoundness >= 0 && m.MemoryBoundness <= 1) {
		return fmt.Errorf("dvfs: memory boundness %g outside [0, 1]", m.MemoryBoundness)
	}
	if !(m.RefGHz > 0) || math.IsInf(m.RefGHz, 0) {
		return fmt.Errorf("dvfs: reference frequency %g GHz is not positive", m.RefGHz)
	}
	return nil
}

// Factor returns t(f)/t: how much longer the region runs at f than at f0.
func (m Model) Factor(ghz float64) float64 {
	return (1-m.MemoryBoundness)*m.RefGHz/ghz + m.MemoryBoundness
}

// Time returns the duration in ns at ghz of work recorded as ns at RefGHz.
func (m Model) Time(ns int64, ghz float64) int64 {
	return int64(math.Round(float64(ns) * m.Factor(ghz)))
}

// Sample is one measured run of a region: its time at a frequency.
type Sample struct {
	GHz   float64
	TimeS float64
}

// Fit finds the memory boundness m (and keeps refGHz as f0) that best
// explains the samples in the least-squares sense. Writing the model as
// t = a/f + b with a = t0·(1−m)·f0 and b = t0·m, it solves the 2-parameter
// linear regression and returns m = b/(a/f0 + b), clamped to [0, 1]. It
// needs at least two distinct frequencies.
func Fit(refGHz float64, samples []Sample) (Model, error) {
	if len(samples) < 2 {
		return Model{}, errors.New("dvfs: fitting needs samples at two or more frequencies")
	}
	var n, sx, sy, sxx, sxy float64
	distinct := map[float64]bool{}
	for _, s := range samples {
		if !(s.GHz > 0) || !(s.TimeS > 0) {
			return Model{}, fmt.Errorf("dvfs: sample at %g GHz with time %g s is not positive", s.GHz, s.TimeS)
		}
		x := 1 / s.GHz
		n++
		sx += x
		sy += s.TimeS
		sxx += x * x
		sxy += x * s.TimeS
		distinct[s.GHz] = true
	}
	if len(distinct) < 2 {
		return Model{}, errors.New("dvfs: fitting needs two or more distinct frequencies")
	}
	a := (n*sxy - sx*sy) / (n*sxx - sx*sx)
	b := (sy - a*sx) / n
	t0 := a/refGHz + b
	m := Model{MemoryBoundness: math.Min(1, math.Max(0, b/t0)), RefGHz: refGHz}
	return m, m.Validate()
}

// RankPricer prices the calc operations of a graph for the replay engine:
// every calc of rank r runs at GHz[r]. It satisfies sim.CalcPricer.
type RankPricer struct {
	Graph *graph.Graph
	Model Model
	GHz   []float64 // per rank
	Scale float64   // multiplies every recorded duration first; 0 means 1
	rank  []int32   // per op, built on first use
}

// CalcDuration returns the duration of calc op at its rank's frequency.
func (p *RankPricer) CalcDuration(op int32, start int64) int64 {
	if p.rank == nil {
		p.rank = p.Graph.OpRanks()
	}
	f := p.Model.Factor(p.GHz[p.rank[op]])
	if p.Scale > 0 {
		f *= p.Scale
	}
	return int64(math.Round(float64(p.Graph.Size[op]) * f))
}
