package aggregate

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
)

// Replayed is one pattern replayed on the engine.
type Replayed struct {
	// MakespanNs is the replay's makespan, DeltaNs its difference to the
	// reference pattern's (Eq. 4.5 on simulated times), Candidate whether
	// that is within the threshold, EnergyJ the energy of Config.Power
	// over the makespan.
	MakespanNs int64
	DeltaNs    int64
	Candidate  bool
	EnergyJ    float64
}

// Replay replays g (the graph w was read from) on the engine for every
// feasible pattern of res, as the thesis's
// future work (§6.2) asks: each calc scaled by the pattern's IPC
// (IPC[1]/IPC[p]), each message priced by the LogGP parameters of its
// placement class under the pattern's grouping (the engine's own CPU and
// NIC contention in place of the interference table). It returns one
// entry per estimate (zero for infeasible ones) and the index of the
// least-energy pattern within the threshold of the reference's makespan
// (-1 without a power model).
func Replay(g *graph.Graph, cfg Config, res Result) ([]Replayed, int, error) {
	if g.NumRanks() != len(res.Estimates[0].Slots) {
		return nil, -1, fmt.Errorf("aggregate: replay of a %d-rank graph for a what-if of %d tasks", g.NumRanks(), len(res.Estimates[0].Slots))
	}
	thr := cfg.Threshold
	nodes := cfg.Nodes
	if nodes <= 0 {
		nodes = g.NumRanks()
	}
	out := make([]Replayed, len(res.Estimates))
	for i, e := range res.Estimates {
		if e.Err != nil {
			continue
		}
		cl := PlacementClasses(g, e, cfg.Net)
		scale := 1.0
		if cfg.IPC != nil {
			scale = cfg.IPC[1] / cfg.IPC[e.Pattern.ID]
		}
		r, err := sim.Run(g, cfg.Net[InterNode], sim.Options{Pricer: ipcPricer{g, scale}, Classes: cl})
		if err != nil {
			return nil, -1, fmt.Errorf("aggregate: replay of %v: %w", e.Pattern, err)
		}
		out[i].MakespanNs = r.Makespan
		if cfg.Power != (Power{}) {
			out[i].EnergyJ = cfg.Power.energyJ(float64(r.Makespan), e.Nodes, nodes, e.Pattern.TasksPerNode())
		}
	}
	ref := out[0].MakespanNs
	best := -1
	for i := range out {
		if res.Estimates[i].Err != nil {
			continue
		}
		out[i].DeltaNs = out[i].MakespanNs - ref
		out[i].Candidate = float64(out[i].DeltaNs) <= thr*float64(ref)
		if cfg.Power == (Power{}) || !out[i].Candidate {
			continue
		}
		if best < 0 || out[i].EnergyJ < out[best].EnergyJ || (out[i].EnergyJ == out[best].EnergyJ && out[i].MakespanNs < out[best].MakespanNs) {
			best = i
		}
	}
	return out, best, nil
}

// PlacementClasses returns the network classes of g's messages under e's
// placement: each send is priced by the LogGP parameters of its placement
// class (ClassOf the two ranks' nodes and cores), net[class], the class
// number being the index into Params. e must be feasible.
func PlacementClasses(g *graph.Graph, e Estimate, net Classes) *network.Classes {
	node := make([]int, len(e.Slots))
	for n, grp := range e.Groups {
		for _, v := range grp {
			node[v] = n
		}
	}
	params := make([]network.LogGOPS, len(net))
	copy(params, net[:])
	cl := &network.Classes{Of: make([]uint8, g.NumOps()), Params: params}
	ranks := g.OpRanks()
	for op, k := range g.Kind {
		if k == graph.Send {
			a, b := int(ranks[op]), int(g.Peer[op])
			cl.Of[op] = uint8(ClassOf(node[a], e.Slots[a], node[b], e.Slots[b]))
		}
	}
	return cl
}

// ipcPricer scales every calc's recorded duration.
type ipcPricer struct {
	g     *graph.Graph
	scale float64
}

// CalcDuration is the recorded duration times the scale, rounded.
func (p ipcPricer) CalcDuration(op int32, _ int64) int64 {
	return graph.SatNs(math.Round(float64(p.g.Size[op]) * p.scale))
}
