package taskgraph

import (
	"fmt"
	"math"
	"sort"
)

// ProfileConfig is one measured configuration of a kernel: a thread count
// and frequency, the average task time and the peak power over idle (note
// 001 §2.7: the profiling scheduler records "the highest observed power
// and the average task execution time for each thread count").
type ProfileConfig struct {
	Threads int32
	FreqGHz float64 // 0 when the profile has no frequency dimension
	Time    float64 // s
	Power   float64 // W over the node's idle power
}

// Profiles maps kernels to their configurations on one machine.
type Profiles struct {
	// Machine describes where the profiles were taken.
	Machine Machine
	kernels []string
	configs map[string][]ProfileConfig
}

// Machine is the node a profile set belongs to.
type Machine struct {
	Name    string
	Threads int     // hardware threads tasks may use
	IdleW   float64 // idle power, W
}

// NewProfiles returns an empty profile set for machine m.
func NewProfiles(m Machine) *Profiles {
	return &Profiles{Machine: m, configs: map[string][]ProfileConfig{}}
}

// Add adds a configuration of kernel. Times must be positive and finite,
// powers finite and ≥ 0, threads ≥ 1 and frequencies finite and ≥ 0; a
// kernel may not list the same (threads, frequency) twice.
func (p *Profiles) Add(kernel string, c ProfileConfig) error {
	switch {
	case kernel == "":
		return fmt.Errorf("empty kernel name")
	case c.Threads < 1:
		return fmt.Errorf("kernel %s: thread count %d < 1", kernel, c.Threads)
	case p.Machine.Threads > 0 && int(c.Threads) > p.Machine.Threads:
		return fmt.Errorf("kernel %s: thread count %d above the machine's %d", kernel, c.Threads, p.Machine.Threads)
	case !(c.FreqGHz >= 0) || math.IsInf(c.FreqGHz, 0):
		return fmt.Errorf("kernel %s, %d threads: frequency %g GHz is not finite and ≥ 0", kernel, c.Threads, c.FreqGHz)
	case !(c.Time > 0) || math.IsInf(c.Time, 0):
		return fmt.Errorf("kernel %s, %d threads: time %g s is not finite and > 0", kernel, c.Threads, c.Time)
	case !(c.Power >= 0) || math.IsInf(c.Power, 0):
		return fmt.Errorf("kernel %s, %d threads: power %g W is not finite and ≥ 0", kernel, c.Threads, c.Power)
	}
	cs, ok := p.configs[kernel]
	if !ok {
		p.kernels = append(p.kernels, kernel)
		sort.Strings(p.kernels)
	}
	i := sort.Search(len(cs), func(i int) bool {
		return cs[i].Threads > c.Threads || cs[i].Threads == c.Threads && cs[i].FreqGHz >= c.FreqGHz
	})
	if i < len(cs) && cs[i].Threads == c.Threads && cs[i].FreqGHz == c.FreqGHz {
		return fmt.Errorf("kernel %s: %d threads at %g GHz listed twice", kernel, c.Threads, c.FreqGHz)
	}
	cs = append(cs, ProfileConfig{})
	copy(cs[i+1:], cs[i:])
	cs[i] = c
	p.configs[kernel] = cs
	return nil
}

// Kernels returns the kernel names in sorted order.
func (p *Profiles) Kernels() []string { return p.kernels }

// Kernel returns a kernel's configurations ordered by threads, then
// frequency (nil for an unknown kernel). The slice must not be modified.
func (p *Profiles) Kernel(name string) []ProfileConfig { return p.configs[name] }

// NumConfigs returns the number of configurations over all kernels.
func (p *Profiles) NumConfigs() int {
	n := 0
	for _, cs := range p.configs {
		n += len(cs)
	}
	return n
}

// Pareto returns the indices (into Kernel(name)) of the kernel's
// Pareto-optimal configurations, ordered by increasing power (and so
// decreasing time): a configuration is kept unless another is at most as
// slow and at most as powerful, and strictly better in one (Anger, PhD
// thesis, Georgia Tech 2016, §4.2). Of exact duplicates the first is kept.
// The sweep: sort by (power, time) and keep a point iff its time beats
// every cheaper point's.
func (p *Profiles) Pareto(name string) []int {
	return ParetoIndices(p.configs[name])
}

// ParetoIndices is Pareto for a list of configurations.
func ParetoIndices(cs []ProfileConfig) []int {
	idx := make([]int, len(cs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := cs[idx[a]], cs[idx[b]]
		if x.Power != y.Power {
			return x.Power < y.Power
		}
		return x.Time < y.Time
	})
	out := idx[:0]
	best := math.Inf(1)
	for _, i := range idx {
		if cs[i].Time < best {
			out = append(out, i)
			best = cs[i].Time
		}
	}
	return out
}
