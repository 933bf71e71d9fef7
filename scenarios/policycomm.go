package scenarios

import (
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// ReplayComm returns the LP communication of trace t (lowered as g with
// event map em) measured on a replay under net, as BoundDAG uses with
// bound.messages = "replay": at machine m's fastest P-state, or with
// pricer's compute times when it is not nil (the schedule the LP's
// unconstrained run should follow). It serves bounds built elsewhere, such
// as the power policies' gap to the LP (optimize/policy).
func (sc *Scenario) ReplayComm(t *mpi.Trace, g *graph.Graph, em *lower.EventMap, m *Machine, net network.LogGOPS, pricer sim.CalcPricer) (bound.Comm, error) {
	cls, err := sc.Classes(g, t)
	if err != nil {
		return nil, err
	}
	c, err := sc.calibrate(t, g, em, m, net, cls, pricer)
	if err != nil {
		return nil, err
	}
	return c, nil
}
