package scenarios

import "github.com/capsim/capsim/traces/graph"

// pairSizes gives every receive of g that names its source and tag the
// size of the message it matches (the k-th send of its channel for the
// channel's k-th receive, in operation order), so that random test graphs
// built with the sizes drawn on the sending side are consistent MPI
// (sim.TruncationError).
func pairSizes(g *graph.Graph) {
	type channel struct{ src, dst, tag int32 }
	sends := map[channel][]int64{}
	for r := 0; r < g.NumRanks(); r++ {
		for id := g.RankStart[r]; id < g.RankStart[r+1]; id++ {
			if g.Kind[id] == graph.Send {
				c := channel{int32(r), g.Peer[id], g.Tag[id]}
				sends[c] = append(sends[c], g.Size[id])
			}
		}
	}
	for r := 0; r < g.NumRanks(); r++ {
		for id := g.RankStart[r]; id < g.RankStart[r+1]; id++ {
			c := channel{g.Peer[id], int32(r), g.Tag[id]}
			if g.Kind[id] != graph.Recv || c.src == graph.AnySource || c.tag == graph.AnyTag || len(sends[c]) == 0 {
				continue
			}
			g.Size[id], sends[c] = sends[c][0], sends[c][1:]
		}
	}
}
