// Package graphcheck checks execution graphs in tests: that their messages
// pair up and that they run to completion.
package graphcheck

import (
	"fmt"

	"github.com/capsim/capsim/traces/graph"
)

type chanKey struct{ src, dst, tag int32 }

// MatchAndRun pairs sends and receives per (source, destination, tag) in
// program order, checks that every send has exactly one receive of the
// same size, and then executes the graph with synchronous (rendezvous)
// messages: a send or receive completes only once its partner has
// started. It returns an error on a mismatch or a deadlock.
func MatchAndRun(g *graph.Graph) error {
	sends := map[chanKey][]int32{}
	recvs := map[chanKey][]int32{}
	for r := 0; r < g.NumRanks(); r++ {
		for id := g.RankStart[r]; id < g.RankStart[r+1]; id++ {
			switch g.Kind[id] {
			case graph.Send:
				k := chanKey{int32(r), g.Peer[id], g.Tag[id]}
				sends[k] = append(sends[k], id)
			case graph.Recv:
				if g.Peer[id] < 0 || g.Tag[id] < 0 {
					return fmt.Errorf("%s: wildcard receive in collective test", g.Describe(id))
				}
				k := chanKey{g.Peer[id], int32(r), g.Tag[id]}
				recvs[k] = append(recvs[k], id)
			}
		}
	}
	partner := make([]int32, g.NumOps())
	for i := range partner {
		partner[i] = -1
	}
	for k, ss := range sends {
		rs := recvs[k]
		if len(rs) != len(ss) {
			return fmt.Errorf("channel %d→%d tag %d: %d sends, %d receives", k.src, k.dst, k.tag, len(ss), len(rs))
		}
		for j := range ss {
			if g.Size[ss[j]] != g.Size[rs[j]] {
				return fmt.Errorf("%s matched with %s: sizes differ", g.Describe(ss[j]), g.Describe(rs[j]))
			}
			partner[ss[j]], partner[rs[j]] = rs[j], ss[j]
		}
	}
	for k, rs := range recvs {
		if len(sends[k]) == 0 {
			return fmt.Errorf("%s has no matching send", g.Describe(rs[0]))
		}
	}
	started := make([]bool, g.NumOps())
	done := make([]bool, g.NumOps())
	ndone := 0
	for changed := true; changed; {
		changed = false
		for id := int32(0); id < int32(g.NumOps()); id++ {
			if !started[id] {
				ok := true
				deps, kinds := g.Deps(id)
				for j, d := range deps {
					if (kinds[j] == graph.Requires && !done[d]) || (kinds[j] == graph.Irequires && !started[d]) {
						ok = false
						break
					}
				}
				if ok {
					started[id], changed = true, true
				}
			}
			if started[id] && !done[id] && (g.Kind[id] == graph.Calc || started[partner[id]]) {
				done[id], changed = true, true
				ndone++
			}
		}
	}
	if ndone != g.NumOps() {
		for id := range done {
			if !done[id] {
				return fmt.Errorf("deadlock: %d of %d ops never complete, e.g. %s", g.NumOps()-ndone, g.NumOps(), g.Describe(int32(id)))
			}
		}
	}
	return nil
}
