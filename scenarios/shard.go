package scenarios

import (
	"fmt"
	"sort"
	"strings"

	"github.com/capsim/capsim/optimize/policy"
)

// Shard selects a deterministic share of a sweep (see Plan).
type Shard struct{ K, Of int }

// ParseShard parses "K/N" with 0 ≤ K < N.
func ParseShard(s string) (Shard, error) {
	var sh Shard
	if _, err := fmt.Sscanf(s, "%d/%d", &sh.K, &sh.Of); err != nil || sh.Of <= 0 || sh.K < 0 || sh.K >= sh.Of ||
		fmt.Sprintf("%d/%d", sh.K, sh.Of) != strings.TrimSpace(s) {
		return Shard{}, fmt.Errorf("shard %q: want K/N with 0 ≤ K < N", s)
	}
	return sh, nil
}

// Estimated cost of a point, in units of one replay of its workload
// (measured on the default sweep: a replay, a warm LP re-solve and a
// Conductor replay cost about the same; a group's first capped point pays
// for the calibration replay and the cold LP solve on top).
const (
	costReplay    = 1.0
	costConductor = 1.3
	costWarmLP    = 1.0
	costGroupLP   = 3.0
)

// pointCost is the estimated cost of evaluating p, in replays.
func pointCost(p Point) float64 {
	switch p.Policy {
	case policy.Uncapped:
		return costReplay
	case policy.Conductor:
		return costConductor + costWarmLP
	}
	return costReplay + costWarmLP
}

// chunk is a run of consecutive points of one group: a shard's unit of
// work. A chunk that starts after its group's first point re-solves the
// LP at the caps before it (as a resumed group does), so its results are
// those of the whole group run in one piece.
type chunk struct {
	group  []Point // the whole group
	lo, hi int     // the chunk's points: group[lo:hi]
	size   float64 // the group's workload size
	cost   float64 // estimated, in units of work (replays × workload size)
}

func newChunk(group []Point, lo, hi int, size float64) chunk {
	c := chunk{group: group, lo: lo, hi: hi, size: size}
	for _, p := range group[lo:hi] {
		c.cost += pointCost(p)
	}
	if group[0].Policy != policy.Uncapped {
		c.cost += costGroupLP + float64(lo)*costWarmLP // the LP path up to lo
	}
	c.cost *= size
	return c
}

// maxShardImbalance is the ratio of the most to the least loaded shard's
// estimated work that Plan aims for.
const maxShardImbalance = 1.25

// Plan deals the points of a sweep to n shards by estimated cost and
// returns, per shard, its chunks. size gives each point's workload size
// (its replay's cost, e.g. the number of operations of its trace).
//
// Whole groups are dealt first, largest first, each to the least loaded
// shard (Graham's LPT rule). While the shards' loads differ by more than
// maxShardImbalance (or a shard is empty), the largest chunk is split in
// two halves, the second re-solving the LP path before it; the deal is
// then redone. The result is a function of the points and sizes alone, so
// every shard computes the same plan.
func Plan(pts []Point, n int, size func(Point) float64) [][]chunk {
	var groups [][]Point
	for _, p := range pts {
		if len(groups) == 0 || groups[len(groups)-1][0].Group != p.Group {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], p)
	}
	var chunks []chunk
	for _, g := range groups {
		chunks = append(chunks, newChunk(g, 0, len(g), size(g[0])))
	}
	deal := func() ([][]chunk, []float64) {
		order := make([]int, len(chunks))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return chunks[order[a]].cost > chunks[order[b]].cost })
		shards := make([][]chunk, n)
		load := make([]float64, n)
		for _, i := range order {
			k := 0
			for j := 1; j < n; j++ {
				if load[j] < load[k] {
					k = j
				}
			}
			shards[k] = append(shards[k], chunks[i])
			load[k] += chunks[i].cost
		}
		return shards, load
	}
	for range 4 * len(pts) { // each split adds a chunk; there are at most len(pts)
		shards, load := deal()
		lo, hi := load[0], load[0]
		for _, l := range load {
			lo, hi = min(lo, l), max(hi, l)
		}
		if lo > 0 && hi <= maxShardImbalance*lo {
			return sortChunks(shards)
		}
		big := -1 // the largest chunk that can be split
		for i, c := range chunks {
			if c.hi-c.lo >= 2 && (big < 0 || c.cost > chunks[big].cost) {
				big = i
			}
		}
		if big < 0 {
			return sortChunks(shards)
		}
		c := chunks[big]
		mid := (c.lo + c.hi + 1) / 2
		chunks[big] = newChunk(c.group, c.lo, mid, c.size)
		chunks = append(chunks, newChunk(c.group, mid, c.hi, c.size))
	}
	shards, _ := deal()
	return sortChunks(shards)
}

// sortChunks orders each shard's chunks by their first point, so that a
// shard runs its points in sweep order.
func sortChunks(shards [][]chunk) [][]chunk {
	for _, s := range shards {
		sort.Slice(s, func(a, b int) bool { return s[a].group[s[a].lo].Index < s[b].group[s[b].lo].Index })
	}
	return shards
}

// shardLoads returns the estimated work of each shard of a plan.
func shardLoads(plan [][]chunk) []float64 {
	out := make([]float64, len(plan))
	for k, s := range plan {
		for _, c := range s {
			out[k] += c.cost
		}
	}
	return out
}

// workloadSizes returns a size function for Plan: the number of
// operations of each point's workload (its machine's scenario axes and
// parameters applied), built once per distinct parameter set. A workload
// that cannot be built counts as size 1 (the sweep reports its error).
func (s *Scenario) workloadSizes() func(Point) float64 {
	cache := map[string]float64{}
	return func(p Point) float64 {
		key := fmt.Sprint(p.Params) // fmt prints maps in sorted key order
		if v, ok := cache[key]; ok {
			return v
		}
		v := 1.0
		sc, params := s.at(p.Params)
		if _, g, err := sc.build(params); err == nil && g.NumOps() > 0 {
			v = float64(g.NumOps())
		}
		cache[key] = v
		return v
	}
}
