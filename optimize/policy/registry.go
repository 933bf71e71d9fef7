package policy

import (
	"fmt"
	"strings"
)

// The policies' names, as sweep.policies, results' policy column and
// capsim replay --policy spell them.
const (
	Uncapped   = "uncapped"
	Static     = "static"
	StaticRAPL = "static-rapl"
	LP         = "lp"
	Conductor  = "conductor"
	Steering   = "steering"
	DCTDVFS    = "dct-dvfs"
	MinEnergy  = "min-energy"
)

// Policy is one power policy capsim replays: its name and what it needs.
type Policy struct {
	// Name is the policy's name (Uncapped, Static, ...).
	Name string
	// Summary says in a few words what the policy does.
	Summary string
	// Capped reports whether the policy runs under a job power cap (every
	// policy but Uncapped).
	Capped bool
	// OnDAG reports whether the policy plans on the LP's DAG of an MPI
	// trace (optimize/bound). On an execution graph lp and min-energy
	// plan on the graph's LP (the engine's semantics) and conductor plays
	// on the graph's replays instead.
	OnDAG bool
	// NeedsLP reports whether the policy solves the power-constrained LP,
	// so that it needs the LP solver (optimize/clp).
	NeedsLP bool
	// Sweep reports whether a scenario's sweep.policies accepts it.
	Sweep bool
	// Replay reports whether capsim replay --policy accepts it.
	Replay bool
}

// All returns the policies, the sweep's in the order sweeps list them.
func All() []Policy {
	return []Policy{
		{Name: Uncapped, Summary: "every rank at the fastest P-state", Sweep: true},
		{Name: Static, Summary: "an equal share of the cap per rank, at the fastest P-state that fits (Bailey et al., SC'15, §4.1, discrete)",
			Capped: true, Sweep: true},
		{Name: StaticRAPL, Summary: "an equal share of the cap per rank as a RAPL limit: the two P-states that bracket it, time-averaged, clock modulation below (Bailey et al., SC'15, §4.1)",
			Capped: true, Sweep: true},
		{Name: LP, Summary: "the power-constrained LP's schedule (Bailey et al., SC'15), rounded and staggered within the cap",
			Capped: true, OnDAG: true, NeedsLP: true, Sweep: true, Replay: true},
		{Name: Conductor, Summary: "the Conductor runtime (Marathe et al., ISC'15; Bailey et al., SC'15, §4.2)",
			Capped: true, OnDAG: true, Sweep: true},
		{Name: MinEnergy, Summary: "the energy–time frontier's schedule at the least makespan under the cap slowed by sweep.slowdown_pct: the least energy of the trace's order by that deadline, rounded and staggered within the cap",
			Capped: true, OnDAG: true, NeedsLP: true, Sweep: true, Replay: true},
		{Name: Steering, Summary: "Dynamic Power Steering over the bulk-synchronous phases (optimize/policy/steering)",
			Capped: true, Replay: true},
		{Name: DCTDVFS, Summary: "dynamic concurrency throttling and DVFS per phase (optimize/policy/dctdvfs)",
			Capped: true, Replay: true},
	}
}

// Lookup returns the policy of that name, or an error listing the known
// ones.
func Lookup(name string) (Policy, error) {
	for _, p := range All() {
		if p.Name == name {
			return p, nil
		}
	}
	return Policy{}, fmt.Errorf("unknown policy %q (want one of %s)", name, strings.Join(Names(func(Policy) bool { return true }), ", "))
}

// Names lists the names of the policies that keep says, in All's order.
func Names(keep func(Policy) bool) []string {
	var out []string
	for _, p := range All() {
		if keep(p) {
			out = append(out, p.Name)
		}
	}
	return out
}

// SweepNames lists the policies a sweep accepts.
func SweepNames() []string { return Names(func(p Policy) bool { return p.Sweep }) }

// get is Lookup without the error: the zero Policy for an unknown name.
func get(name string) Policy {
	p, _ := Lookup(name)
	return p
}

// IsCapped reports whether the policy of that name runs under a power
// cap (false for unknown names).
func IsCapped(name string) bool { return get(name).Capped }

// IsOnDAG reports whether the policy of that name plans on the LP's DAG
// of an MPI trace (false for unknown names).
func IsOnDAG(name string) bool { return get(name).OnDAG }

// NeedsSolver reports whether the policy of that name solves the LP
// (false for unknown names).
func NeedsSolver(name string) bool { return get(name).NeedsLP }
