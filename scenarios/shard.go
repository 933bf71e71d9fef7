package scenarios

import (
	"fmt"
	"sort"
	"strings"

	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/traces/graph"
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

// Estimated costs, in units of one replay of a point's workload
// (measured on the default sweep: a replay, a warm LP re-solve and a
// Conductor replay cost about the same; the first capped point of a
// workload pays for the calibration replay and the cold LP solve on top).
// The LP of a workload (machine and parameters) is shared by the groups of
// every capped policy in one process, and each cap is solved once for all
// of them (the bound column), so LP work counts once per workload and cap.
const (
	costReplay    = 1.0
	costConductor = 1.3
	costWarmLP    = 1.0
	costGroupLP   = 3.0
	// costMinEnergy is a min-energy point: its own frontier LP, built and
	// solved from no basis (about 3 s of CPU on the default scenario,
	// against some 30 ms for a replay).
	costMinEnergy = 100.0
)

// replayCost is the estimated cost of replaying point p, in replays.
func replayCost(p Point) float64 {
	switch p.Policy {
	case policy.Conductor:
		return costConductor
	case policy.MinEnergy:
		return costMinEnergy
	}
	return costReplay
}

// chunk is a run of consecutive points of one group: a shard's unit of
// work. A chunk that starts after its group's first point re-solves the
// LP at the caps before it (as a resumed group does), so its results are
// those of the whole group run in one piece.
type chunk struct {
	group  []Point // the whole group
	lo, hi int     // the chunk's points: group[lo:hi]
	cost   float64 // estimated, in units of work (replays × workload size); a part's cost is on its first chunk
}

// part is the work of one workload over a range of its caps: for every
// capped group of the workload, its points at caps lo ≤ i < hi, and with
// lo = 0 its groups without caps (uncapped, aggregation patterns). Parts
// keep the groups that share an LP together, so that the LP is built
// once, in one shard, unless the workload alone is too large for one.
type part struct {
	groups [][]Point
	lo, hi int
	w      weight
	cost   float64
}

// weight is what one workload's work costs: a replay, and one solve of
// its LP (in the same unit).
type weight struct{ replay, solve float64 }

// capped reports whether group g has one point per cap (a capped policy).
func capped(g []Point) bool { return g[0].Policy != policy.Uncapped }

func newPart(groups [][]Point, lo, hi int, w weight) part {
	pt := part{groups: groups, lo: lo, hi: hi, w: w}
	lp := false
	for _, g := range groups {
		if !capped(g) {
			if lo == 0 {
				for _, p := range g {
					pt.cost += replayCost(p)
				}
			}
			continue
		}
		lp = true
		for _, p := range g[min(lo, len(g)):min(hi, len(g))] {
			pt.cost += replayCost(p)
		}
	}
	pt.cost *= w.replay
	if lp {
		pt.cost += (costGroupLP + float64(hi)*costWarmLP) * w.solve // the LP path up to hi
	}
	return pt
}

// chunks returns the part's points as chunks of its groups.
func (pt part) chunks() []chunk {
	var out []chunk
	for _, g := range pt.groups {
		lo, hi := pt.lo, min(pt.hi, len(g))
		if !capped(g) {
			if pt.lo > 0 {
				continue
			}
			lo, hi = 0, len(g)
		}
		if lo < hi {
			out = append(out, chunk{group: g, lo: lo, hi: hi})
		}
	}
	if len(out) > 0 {
		out[0].cost = pt.cost
	}
	return out
}

// maxShardImbalance is the ratio of the most to the least loaded shard's
// estimated work that Plan aims for.
const maxShardImbalance = 1.25

// Plan deals the points of a sweep to n shards by estimated cost and
// returns, per shard, its chunks. size gives each point's workload size
// (its replay's cost, e.g. the number of operations of its trace), which
// is also taken as the cost of one LP solve (see Weights for another).
func Plan(pts []Point, n int, size func(Point) float64) [][]chunk {
	return PlanWeights(pts, n, Weights{Replay: size, Solve: size})
}

// Weights are the costs Plan estimates a point's work from.
type Weights struct {
	// Replay is the cost of one replay of the point's workload.
	Replay func(Point) float64
	// Solve is the cost of one solve of the workload's LP.
	Solve func(Point) float64
}

// PlanWeights is Plan with the costs of replays and LP solves given apart.
//
// The unit dealt is a workload's whole work (every group of one machine
// and parameter set, which share one LP), largest first, each to the
// least loaded shard (Graham's LPT rule). While the shards' loads differ
// by more than maxShardImbalance (or a shard is empty), the largest part
// is split in two halves of its caps, the second re-solving the LP path
// before it; the deal is then redone. The result is a function of the
// points and sizes alone, so every shard computes the same plan.
func PlanWeights(pts []Point, n int, w Weights) [][]chunk {
	var parts []part
	byKey := map[string]int{}
	var cur []Point
	flush := func() {
		if len(cur) == 0 {
			return
		}
		k := lpKey(cur[0])
		i, ok := byKey[k]
		if !ok {
			i = len(parts)
			byKey[k] = i
			parts = append(parts, part{w: weight{w.Replay(cur[0]), w.Solve(cur[0])}})
		}
		parts[i].groups = append(parts[i].groups, cur)
		cur = nil
	}
	for _, p := range pts {
		if len(cur) > 0 && cur[0].Group != p.Group {
			flush()
		}
		cur = append(cur, p)
	}
	flush()
	for i, pt := range parts {
		caps := 0
		for _, g := range pt.groups {
			if capped(g) {
				caps = max(caps, len(g))
			}
		}
		parts[i] = newPart(pt.groups, 0, max(caps, 1), pt.w)
	}
	deal := func() ([][]chunk, []float64) {
		order := make([]int, len(parts))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return parts[order[a]].cost > parts[order[b]].cost })
		shards := make([][]chunk, n)
		load := make([]float64, n)
		for _, i := range order {
			k := 0
			for j := 1; j < n; j++ {
				if load[j] < load[k] {
					k = j
				}
			}
			shards[k] = append(shards[k], parts[i].chunks()...)
			load[k] += parts[i].cost
		}
		return shards, load
	}
	for range 4 * len(pts) { // each split adds a part; there are at most len(pts)
		shards, load := deal()
		lo, hi := load[0], load[0]
		for _, l := range load {
			lo, hi = min(lo, l), max(hi, l)
		}
		if lo > 0 && hi <= maxShardImbalance*lo {
			return sortChunks(shards)
		}
		big := -1 // the largest part that can be split
		for i, pt := range parts {
			if pt.hi-pt.lo >= 2 && (big < 0 || pt.cost > parts[big].cost) {
				big = i
			}
		}
		if big < 0 {
			return sortChunks(shards)
		}
		pt := parts[big]
		mid := (pt.lo + pt.hi + 1) / 2
		parts[big] = newPart(pt.groups, pt.lo, mid, pt.w)
		parts = append(parts, newPart(pt.groups, mid, pt.hi, pt.w))
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
	w := s.workloadWeights()
	return w.Replay
}

// lpSolveUnit is the cost of one LP solve per task² of a block, in replayed
// operations (measured on the default workload at 10 to 40 iterations:
// about 7 µs per task² of a block against 1 µs per replayed operation).
const lpSolveUnit = 7

// workloadWeights returns Plan's weights for the scenario: a replay costs
// the number of operations of the point's workload, and an LP solve
// lpSolveUnit × T × B for T compute tasks in blocks of B tasks (a simplex
// on a block costs about its size squared): B = T for an exact LP, the
// cut size for one relaxed into blocks (bound.cuts; "auto" cuts every 64
// tasks above 512, which makes larger workloads' LPs cheaper than some
// smaller ones'), and nothing for an execution-graph workload, which has
// no LP. Workloads are built once per distinct parameter set; one that
// cannot be built weighs 1 (the sweep reports its error).
func (s *Scenario) workloadWeights() Weights {
	type wt struct{ replay, solve float64 }
	cache := map[string]wt{}
	get := func(p Point) wt {
		key := fmt.Sprint(p.Params) // fmt prints maps in sorted key order
		if v, ok := cache[key]; ok {
			return v
		}
		v := wt{1, 1}
		sc, params := s.at(p.Params)
		if t, g, err := sc.build(params); err == nil && g.NumOps() > 0 {
			tasks := 0
			if t == nil { // an execution graph: no LP
				v = wt{float64(g.NumOps()), 0}
				cache[key] = v
				return v
			}
			for _, k := range g.Kind {
				if k == graph.Calc {
					tasks++
				}
			}
			v = wt{float64(g.NumOps()), lpSolveUnit * float64(tasks) * float64(blockTasks(tasks, s.Bound.CutTasks()))}
		}
		cache[key] = v
		return v
	}
	return Weights{Replay: func(p Point) float64 { return get(p).replay }, Solve: func(p Point) float64 { return get(p).solve }}
}

// blockTasks is the size of the blocks an engine LP of tasks compute
// tasks is solved in, under the cut setting cut (ParseCuts: 0 auto, −1
// none, else every cut tasks), as optimize/bound cuts it.
func blockTasks(tasks, cut int) int {
	switch {
	case cut < 0:
		return tasks
	case cut == 0 && tasks > 512:
		return 64
	case cut > 0 && tasks > cut:
		return cut
	}
	return max(tasks, 1)
}
