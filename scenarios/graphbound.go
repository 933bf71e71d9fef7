package scenarios

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/frontier"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// The LP of an execution-graph workload (a Chakra trace, a GOAL or Arrow
// graph): bound.FromGraph over the graph itself, as the engine runs it.
//
// Its ranks may run several operations at once (a Chakra NPU's host
// thread and GPU streams), so the LP does not chain a rank's waits from
// one task to the next, which needs one CPU per rank. It charges
// instead what every unit draws at least, at every instant of every
// replay:
//
//   - a rank's core draws at least its floor (coreFloor: the least of its
//     idle power, its slowest P-state's and a fixed wait power) over the
//     whole run, a Load from Init to Fin, and each of its tasks the
//     configuration's power above that floor;
//   - a GPU (machine.gpu) draws its idle power over the whole run, in the
//     LP's base power (LPCap), and each kernel its clock's power above
//     idle, one configuration per clock its power limit allows.
//
// A replay draws at least this at every instant, so the LP stays a lower
// bound over the schedules that keep its orders; it is looser than the
// MPI-trace LP where cores wait at their last task's power.

// coreFloor is the least power a rank's core draws at any instant of a
// replay on machine m: idle, waiting or running.
func (m *Machine) coreFloor() float64 {
	w := m.CoreIdlePowerW
	for _, p := range m.PStates {
		w = math.Min(w, p.ActivePowerW)
	}
	if m.WaitPower.Mode == power.WaitFixed {
		w = math.Min(w, m.WaitPower.Watts)
	}
	return w
}

// lpBaseW is what the LP takes off a job cap: the machine's constant
// power and its GPUs' idle power.
func (m *Machine) lpBaseW() float64 { return m.BaseW() + m.gpuIdleW() }

// graphNet builds the LP of execution graph g on machine m over the
// engine's semantics with message classes cls (see the comment above).
func (sc *Scenario) graphNet(g *graph.Graph, m *Machine, net network.LogGOPS, cls *network.Classes) (*bound.Net, error) {
	sp, err := sc.speedsOf(m, g.Regions)
	if err != nil {
		return nil, err
	}
	floor := m.coreFloor()
	var kernel []frontier.Config // a kernel's time ratio and power at each allowed clock
	if m.GPU != nil {
		md := m.GPU.Model()
		for _, c := range m.GPU.Allowed() {
			kernel = append(kernel, frontier.Config{Time: md.Ratio(c.MHz) * m.SpeedFactor, Power: c.PowerW - m.GPU.IdleW, Label: fmt.Sprintf("%s %g MHz", m.GPU.Name, c.MHz)})
		}
	}
	n, err := bound.FromGraph(g, net, bound.GraphOptions{
		Configs: func(op int32) []frontier.Config {
			if g.Size[op] == 0 {
				return nil // a fence: no time, no power of its own
			}
			// Every configuration takes what a replay in it takes (the
			// pricers', speedPricer: the recorded ns times the ratio,
			// rounded to the ns), so that the LP is at most every replay
			// to the ns.
			dur := func(x float64) float64 { return float64(graph.SatNs(float64(g.Size[op])*x)) / 1e9 }
			if kernel != nil && g.CPU[op] != 0 {
				cs := make([]frontier.Config, len(kernel))
				for k, c := range kernel {
					cs[k] = frontier.Config{Time: max(dur(c.Time), 1e-12), Power: c.Power, Label: c.Label} // as configsAt
				}
				return cs
			}
			cs := sp.configsAt(g.Region[op]+1, dur)
			for k := range cs {
				cs[k].Power -= floor
			}
			return cs
		},
		Event:   func(op int32) int { return int(op) }, // graphTaskOp
		Classes: cls,
		Wait:    bound.WaitPower{Constant: true},
	})
	if err != nil {
		return nil, fmt.Errorf("the LP over the engine's semantics: %w", err)
	}
	d := n.DAG
	if floor > 0 {
		for r := 0; r < g.NumRanks(); r++ {
			d.Loads = append(d.Loads, bound.Load{Rank: r, Src: d.Init, Dst: d.Fin, W: floor})
		}
		if n.Order, err = bound.OrderFromTimes(d, n.Times, false); err != nil {
			return nil, err
		}
	}
	return n, d.Validate()
}

// graphTaskOp is the calc operation of a task of graphNet's LP: its
// Event is the operation's index in the graph.
func graphTaskOp(t bound.Task) int32 { return int32(t.Event) }

// graphLift is what graphNet's LP leaves out of the power of calc op of
// g on machine m, which a replay of its schedule adds back: a kernel's
// GPU idle power (a GPU's configurations are its clocks' power above
// idle), a host operation's core floor (coreFloor).
func (m *Machine) graphLift(g *graph.Graph, op int32) float64 {
	if m.GPU != nil && onGPU(g)(op) {
		return m.GPU.IdleW
	}
	return m.coreFloor()
}

// plansOnGraph reports whether policy pol plans on graphNet's LP, so that
// it runs on an execution-graph workload: lp and min-energy.
func plansOnGraph(pol string) bool { return pol == policy.LP || pol == policy.MinEnergy }

// graphLPFits checks that policy pol (plansOnGraph) can plan on the LP of
// an execution graph: only the engine LP (bound.messages = "engine")
// reads one.
func (sc *Scenario) graphLPFits(pol string) error {
	if sc.Bound.Messages != MessagesEngine {
		return fmt.Errorf("%s: policy %s on an execution graph or GOAL file plans on the LP over the engine's semantics: set [bound] messages = %q (it is %q)",
			sc.File, pol, MessagesEngine, sc.Bound.Messages)
	}
	return nil
}

// policyBounder is the bounder policy pol at one point plans on: the LP of
// MPI trace t, or where t is nil of execution graph g with message
// classes cls (graphNet). The caller closes it.
func (sc *Scenario) policyBounder(pol string, t *mpi.Trace, g *graph.Graph, cls *network.Classes, m *Machine, net network.LogGOPS) (*bounder, error) {
	if t != nil {
		return sc.newBounder(t, m, net)
	}
	if err := sc.graphLPFits(pol); err != nil {
		return nil, err
	}
	return sc.newGraphBounder(g, cls, m, net, 0)
}
