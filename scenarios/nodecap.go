package scenarios

import (
	"fmt"

	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/policy"
)

// Per-node caps (sweep.cap_scope = "node") in the LP and its policies.
//
// A sweep cap is then every node's: the LP caps each node's task power
// (bound.Options.NodeOf), its ranks' cores and GPUs above the node's
// share of the machine's constant power and its GPUs' idle power, and a
// replay is over the cap while some node is (powerMetrics). Rank r is on
// node r / ranks_per_node, as the power accounting and Conductor's
// domains place it.

// nodeScope reports whether the scenario's caps are per node.
func (sc *Scenario) nodeScope() bool { return sc.Sweep.CapScope == CapScopeNode }

// capScopeFits refuses policy pol under per-node caps where the policy
// can only hold a job cap: steering and dct-dvfs on an execution graph
// (their tasks' budget and LP bound are the job's). mpiTrace says the
// workload is an MPI trace rather than an execution graph. Every other
// policy holds each node's cap: static and static-rapl give every rank
// an equal share of its node's, lp and min-energy cap each node's power
// in the LP (lpNodeOf), Conductor moves power only among the ranks of a
// node (its power domains on an execution graph,
// conductor.ScheduleNodes on an MPI trace), and on an MPI trace steering
// steers every node's budget among its own ranks and dct-dvfs solves its
// LP bound with each node capped (policyNodes).
func (sc *Scenario) capScopeFits(pol string, mpiTrace bool) error {
	if !sc.nodeScope() {
		return nil
	}
	switch {
	case (pol == policy.Steering || pol == policy.DCTDVFS) && !mpiTrace:
		return fmt.Errorf("%s: sweep.cap_scope = %q: policy %s on an execution graph plans against the job's power cap, not each node's; "+
			"give it the job's cap (nodes × the node cap) in a scenario with cap_scope = %q, replay an MPI trace, or use the lp or min-energy policy, which holds per-node caps",
			sc.File, CapScopeNode, pol, CapScopeJob)
	}
	return nil
}

// policyNodes is the node caps of steering or dct-dvfs replaying r's MPI
// trace of ranks ranks on machine m, each rank drawing rankBaseW of the
// policy's constant power; nil where the scenario's caps are the job's.
// Rank k is on node k / ranks_per_node, as the sweep places it; the
// ranks fill whole nodes, so that every node draws the same base power
// and the LP takes one cap for every node.
func (sc *Scenario) policyNodes(r PolicyReplay, m *Machine, ranks int, rankBaseW float64) (*policy.NodeCaps, error) {
	if !sc.nodeScope() {
		return nil, nil
	}
	if ranks%m.RanksPerNode != 0 {
		return nil, fmt.Errorf("%s: %d ranks on machine %s of %d ranks_per_node: per-node caps (%s: sweep.cap_scope = %q) need ranks that fill whole nodes",
			r.Trace, ranks, m.Name, m.RanksPerNode, sc.File, CapScopeNode)
	}
	return &policy.NodeCaps{Of: m.nodeOfRanks(ranks), BaseW: rankBaseW * float64(m.RanksPerNode)}, nil
}

// nodeOfRanks is the node of each of ranks ranks on m, rank k on node
// k / ranks_per_node, as the sweep places them.
func (m *Machine) nodeOfRanks(ranks int) []int {
	out := make([]int, ranks)
	for k := range out {
		out[k] = k / m.RanksPerNode
	}
	return out
}

// lpNodeOf is the LP's node of each rank of d under per-node caps
// (bound.Options.NodeOf), nil where the caps are the job's.
func (sc *Scenario) lpNodeOf(m *Machine, d *bound.DAG) []int {
	if !sc.nodeScope() {
		return nil
	}
	ranks := m.Ranks()
	for _, t := range d.Tasks {
		ranks = max(ranks, t.Rank+1)
	}
	for _, l := range d.Loads {
		ranks = max(ranks, l.Rank+1)
	}
	return m.nodeOfRanks(ranks)
}

// lpOptions is opt with the scenario's node caps (lpNodeOf) for the LP
// of d on machine m.
func (sc *Scenario) lpOptions(m *Machine, d *bound.DAG, opt bound.Options) bound.Options {
	opt.NodeOf = sc.lpNodeOf(m, d)
	return opt
}

// lpCapOf is the LP's cap for sweep cap capW on machine m: the job cap
// less the machine's base power (Machine.LPCap), or, per node, the node
// cap less its share of it.
func (sc *Scenario) lpCapOf(m *Machine, capW float64) float64 {
	if sc.nodeScope() {
		return capW - m.nodeLPBaseW()
	}
	return m.LPCap(capW)
}

// nodeLPBaseW is what the LP takes off a node's cap: the node's share of
// the machine's constant power and of its GPUs' idle power.
func (m *Machine) nodeLPBaseW() float64 { return m.lpBaseW() / float64(m.Nodes) }

// lpBaseOf is what the LP took off the scope's cap (lpCapOf): the
// machine's base power, or a node's share of it.
func (sc *Scenario) lpBaseOf(m *Machine) float64 {
	if sc.nodeScope() {
		return m.nodeLPBaseW()
	}
	return m.lpBaseW()
}

// nodeLayout places the units of job model jm on machine m's nodes: a
// rank, then its device (JobModel.DeviceIdleW), on the rank's node, every
// node drawing its share of jm's base power.
func (m *Machine) nodeLayout(jm power.JobModel) power.NodeLayout {
	ranks := len(jm.ActiveW)
	return power.NodeLayout{
		Nodes: m.Nodes,
		NodeOf: func(u int) int {
			if u >= ranks { // a slot's GPU
				u -= ranks
			}
			return u / m.RanksPerNode
		},
		BaseW: jm.BaseW / float64(m.Nodes),
	}
}

// overCap is the time a replay's power under jm stands over sweep cap
// capW: the job's power over it, or some node's where the caps are per
// node (as powerMetrics counts it).
func (sc *Scenario) overCap(acct *power.Accountant, jm power.JobModel, makespan int64, capW float64, m *Machine) (int64, error) {
	if sc.nodeScope() {
		nc, err := acct.NodeCap(jm, makespan, m.nodeLayout(jm), capW)
		if err != nil {
			return 0, fmt.Errorf("node caps: %w", err)
		}
		return nc.OverCapNs, nil
	}
	rep, err := acct.Report(jm, makespan, capW)
	if err != nil {
		return 0, err
	}
	return rep.OverCapNs, nil
}

// nodeCapW is the node cap of sweep cap capW: capW where the caps are
// per node, else 0 (none).
func (sc *Scenario) nodeCapW(capW float64) float64 {
	if sc.nodeScope() {
		return capW
	}
	return 0
}
