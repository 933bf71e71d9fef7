package compute

import (
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"

	"github.com/capsim/capsim/traces/graph"
)

// Rule binds the regions whose names match a glob Pattern (path.Match
// syntax, e.g. "lulesh_*") to a Model.
type Rule struct {
	Pattern string
	Model   Model
}

// Set maps region names to models: the first Rule whose pattern matches
// wins, else Default (nil Default means Measured{}: recorded durations).
// Recorded is the configuration the trace was recorded at.
type Set struct {
	Recorded Config
	Default  Model
	Rules    []Rule
}

// Lookup returns the model for region name and the pattern that matched
// ("" for the default).
func (s *Set) Lookup(region string) (Model, string, error) {
	for _, r := range s.Rules {
		ok, err := path.Match(r.Pattern, region)
		if err != nil {
			return nil, "", fmt.Errorf("region pattern %q: %w", r.Pattern, err)
		}
		if ok {
			return r.Model, r.Pattern, nil
		}
	}
	if s.Default == nil {
		return Measured{}, "", nil
	}
	return s.Default, "", nil
}

// ConfigRule sets the target configuration of the regions matching Pattern.
type ConfigRule struct {
	Pattern string
	Config  Config
}

// Target is the configuration to price a run at: Default for all regions,
// overridden per region by the first matching rule. Zero fields of a rule
// are taken from Default.
type Target struct {
	Default Config
	Rules   []ConfigRule
}

// For returns the target configuration of region name.
func (t Target) For(region string) (Config, error) {
	for _, r := range t.Rules {
		ok, err := path.Match(r.Pattern, region)
		if err != nil {
			return Config{}, fmt.Errorf("config pattern %q: %w", r.Pattern, err)
		}
		if ok {
			return r.Config.Merge(t.Default), nil
		}
	}
	return t.Default, nil
}

// CheckRules refuses a rule that configures no calc operation of g: its
// pattern matches no region that one of g's calcs is in, or earlier rules
// take every such region it matches (the first match wins). A misspelt
// glob would silently change nothing.
func (t Target) CheckRules(g *graph.Graph) error {
	if len(t.Rules) == 0 {
		return nil
	}
	inUse := make([]bool, len(g.Regions))
	for op := range g.Kind {
		if r := g.Region[op]; g.Kind[op] == graph.Calc && r != graph.NoRegion {
			inUse[r] = true
		}
	}
	var regions []string
	for r, name := range g.Regions {
		if inUse[r] {
			regions = append(regions, name)
		}
	}
	used := make([]bool, len(t.Rules))
	for _, name := range regions {
		for i, r := range t.Rules {
			ok, err := path.Match(r.Pattern, name)
			if err != nil {
				return fmt.Errorf("config pattern %q: %w", r.Pattern, err)
			}
			if ok {
				used[i] = true
				break
			}
		}
	}
	for i, r := range t.Rules {
		if used[i] {
			continue
		}
		names := make([]string, 0, len(regions))
		for _, n := range regions {
			names = append(names, strconv.Quote(n))
		}
		if len(names) > 10 {
			names = append(names[:10], "…")
		}
		if len(names) == 0 {
			names = []string{"none"}
		}
		return fmt.Errorf("config pattern %q configures no compute region of the trace: it matches none, or an earlier pattern takes them (the first match wins); the regions of its compute operations: %s", r.Pattern, strings.Join(names, ", "))
	}
	return nil
}

// CheckUnpriced refuses a set that leaves a region of g's calc operations
// to no model (no pattern matches it and the set has no default, so its
// recorded times pass through with no power) while one of its patterns
// prices no calc region of g: the signature of a misspelt pattern. A set
// with patterns for regions g lacks (a model file of a whole application,
// a trace of part of it) is accepted, as is one without a model for a
// region where every pattern prices one.
func (s *Set) CheckUnpriced(g *graph.Graph) error {
	if s.Default != nil || len(s.Rules) == 0 {
		return nil
	}
	inUse := make([]bool, len(g.Regions))
	for op := range g.Kind {
		if r := g.Region[op]; g.Kind[op] == graph.Calc && r != graph.NoRegion {
			inUse[r] = true
		}
	}
	used := make([]bool, len(s.Rules))
	var unpriced []string
	for r, name := range g.Regions {
		if !inUse[r] {
			continue
		}
		matched := false
		for i, rule := range s.Rules {
			ok, err := path.Match(rule.Pattern, name)
			if err != nil {
				return fmt.Errorf("region pattern %q: %w", rule.Pattern, err)
			}
			if ok {
				used[i], matched = true, true
				break
			}
		}
		if !matched {
			unpriced = append(unpriced, strconv.Quote(name))
		}
	}
	if len(unpriced) == 0 {
		return nil
	}
	if len(unpriced) > 10 {
		unpriced = append(unpriced[:10], "…")
	}
	for i, rule := range s.Rules {
		if !used[i] {
			return fmt.Errorf("model pattern %q prices no compute region of the trace, and no pattern (nor a default) prices its regions %s: is the pattern misspelt? (the first match wins)",
				rule.Pattern, strings.Join(unpriced, ", "))
		}
	}
	return nil
}

// RegionPrice is how a Pricer prices the calc operations of one region.
type RegionPrice struct {
	Name    string
	Pattern string     // model pattern that matched ("" = default)
	Target  Config     // configuration priced at
	Ratio   float64    // predicted / recorded duration
	Pred    Prediction // prediction for one recorded second
}

// Pricer prices the calc operations of one graph under one Target. It
// resolves every region once in NewPricer; CalcDuration then costs one
// multiply per op. A Pricer is immutable and safe for concurrent use.
type Pricer struct {
	g       *graph.Graph
	regions []RegionPrice
	ratio   []float64
	watts   []float64
}

// NewPricer resolves every region of g to a model and prices it at t.
// It fails if a model cannot predict a region's target.
func NewPricer(g *graph.Graph, s *Set, t Target) (*Pricer, error) {
	if err := t.CheckRules(g); err != nil {
		return nil, err
	}
	if err := s.CheckUnpriced(g); err != nil {
		return nil, err
	}
	p := &Pricer{g: g}
	p.regions = make([]RegionPrice, len(g.Regions))
	p.ratio = make([]float64, len(g.Regions))
	p.watts = make([]float64, len(g.Regions))
	for i, name := range g.Regions {
		m, pat, err := s.Lookup(name)
		if err != nil {
			return nil, err
		}
		cfg, err := t.For(name)
		if err != nil {
			return nil, err
		}
		pred, err := m.Predict(Work{Seconds: 1, At: s.Recorded}, cfg)
		if err != nil {
			return nil, fmt.Errorf("region %q (%s model): %w", name, m.Kind(), err)
		}
		if !(pred.Seconds >= 0) || math.IsInf(pred.Seconds, 0) {
			return nil, fmt.Errorf("region %q (%s model): invalid predicted ratio %g", name, m.Kind(), pred.Seconds)
		}
		if !(pred.Watts >= 0) || math.IsInf(pred.Watts, 0) {
			return nil, fmt.Errorf("region %q (%s model): invalid predicted power %g W", name, m.Kind(), pred.Watts)
		}
		p.regions[i] = RegionPrice{Name: name, Pattern: pat, Target: cfg, Ratio: pred.Seconds, Pred: pred}
		p.ratio[i] = pred.Seconds
		p.watts[i] = pred.Watts
	}
	return p, nil
}

// Regions returns how each region of the graph is priced, indexed like
// graph.Regions. The slice must not be modified.
func (p *Pricer) Regions() []RegionPrice { return p.regions }

// Duration returns the priced duration in ns of operation op: calc
// operations with a region are scaled by their region's ratio (rounded to
// the nearest ns); every other operation keeps its recorded Size.
func (p *Pricer) Duration(op int32) int64 {
	g := p.g
	size := g.Size[op]
	if g.Kind[op] != graph.Calc {
		return size
	}
	r := g.Region[op]
	if r < 0 {
		return size
	}
	return graph.SatNs(float64(size) * p.ratio[r])
}

// CalcDuration is Duration in the shape of the replay engine's hook; the
// start time is not used by these (time-invariant) models.
func (p *Pricer) CalcDuration(op int32, start int64) int64 { return p.Duration(op) }

// Watts returns the predicted power of calc operation op, 0 when the op
// is not a calc, has no region, or its model gives no power.
func (p *Pricer) Watts(op int32) float64 {
	if p.g.Kind[op] != graph.Calc {
		return 0
	}
	r := p.g.Region[op]
	if r < 0 {
		return 0
	}
	return p.watts[r]
}
