package dvfs

import (
	"math"

	"github.com/capsim/capsim/traces/graph"
)

// RankPricer prices the calc operations of a graph for the replay engine
// when every rank runs at one frequency: calcs recorded at the model's
// RefGHz take Factor(RefGHz, GHz[rank]) times as long. It satisfies
// sim.CalcPricer.
type RankPricer struct {
	Graph *graph.Graph
	Model *Model
	GHz   []float64 // per rank
	Scale float64   // multiplies every recorded duration first; 0 means 1
	rank  []int32
	ratio []float64
}

// CalcDuration returns the duration of calc op at its rank's frequency.
func (p *RankPricer) CalcDuration(op int32, start int64) int64 {
	if p.rank == nil {
		p.rank = p.Graph.OpRanks()
		p.ratio = make([]float64, len(p.GHz))
		for r, f := range p.GHz {
			x, err := p.Model.Factor(p.Model.RefGHz, f)
			if err != nil {
				x = math.NaN()
			}
			if p.Scale > 0 {
				x *= p.Scale
			}
			p.ratio[r] = x
		}
	}
	x := p.ratio[p.rank[op]]
	if math.IsNaN(x) {
		return p.Graph.Size[op]
	}
	return graph.SatNs(float64(p.Graph.Size[op]) * x)
}
