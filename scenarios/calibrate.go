package scenarios

import (
	"fmt"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// LP message models (bound.messages in a scenario).
const (
	// MessagesEngine writes the engine's LogGOPS semantics
	// as the LP's rows (bound.FromGraph): the lowered graph, collectives
	// as their algorithms' messages, with the order of operations on
	// every CPU and NIC of a replay at every task's fastest configuration.
	// The bound holds for every schedule that keeps those orders.
	MessagesEngine = "engine"
	// MessagesReplay calibrates the LP's communication on a replay at the
	// fastest P-state (bound.ReplayComm): its uncapped schedule then follows
	// the engine's, NIC and CPU serialization and collective algorithms
	// included. Contention is baked in, so this is no bound: another
	// schedule's messages can be faster (docs/design/bound.md).
	MessagesReplay = "replay"
	// MessagesLogGOPS prices each message at its uncontended LogGOPS cost
	// and every call, collectives included, as instantaneous.
	MessagesLogGOPS = "loggops"
)

// calibrate replays trace t (lowered as g with map m and network classes
// cls) at machine m's fastest P-state, or with pricer when it is not nil,
// and returns the measured communication.
func (sc *Scenario) calibrate(t *mpi.Trace, g *graph.Graph, em *lower.EventMap, m *Machine, net network.LogGOPS, cls *network.Classes, pricer sim.CalcPricer) (*bound.ReplayComm, error) {
	// The replay runs without device contention (sim.Options.Device), as
	// the LP has no notion of it: waits for a shared accelerator would
	// otherwise be baked into every schedule's communication, and the LP,
	// optimistic about contention, stays a bound.
	if pricer == nil {
		sp, err := sc.speedsOf(m, g.Regions)
		if err != nil {
			return nil, err
		}
		// Every task at its fastest configuration, as in the LP's initial schedule.
		pricer = sp.uniform(g.NumRanks(), 0, func(i int) bool { return sp.devRatio[0][i] < sp.cpuRatio[0][i] }).pricer(g)
	}
	c, err := bound.NewReplayComm(t, g, em, net, cls, pricer)
	if err != nil {
		return nil, fmt.Errorf("calibrating the LP's messages: %w", err)
	}
	return c, nil
}
