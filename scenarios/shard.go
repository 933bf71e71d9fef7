package scenarios

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/capsim/capsim/optimize/lpchain"
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

// Estimated CPU costs, in µs, per unit of the quantity that the work
// scales with: operations replayed (a workload's NumOps) or the LP's size
// T·B (T compute tasks solved in blocks of B; a simplex on a block costs
// about its size squared, so the blocks of a workload cost T·B). Fitted
// to the spans of one-worker sweeps (CAPSIM_SWEEP_TRACE) of the default
// scenario at 10 to 80 iterations (160 to 1280 tasks, exact and cut LPs)
// and of gpu-node: a replay 0.17–0.20 µs per operation, a Conductor
// replay 0.40–0.42, building the LP 1.0–1.3 µs per T·B. A chain's first
// cap that binds is solved from no basis: 1.4–2.6 µs per T·B on the
// default scenario's workloads and gpu-node's CPU machine (its other
// caps: 0.01). Every later cap that binds is a warm re-solve that costs
// by how deep it binds (weight.depth): 1.1 µs per T·B at full depth,
// falling linearly to 0.2 just below the uncapped run's average power
// (measured 0.15–0.3 there on the default scenario's workloads and
// stencil32, against 0.7–1.0 at three quarters depth), and almost
// nothing at the average and above (0.7 against 220 ms on gpu-node's CPU
// machine); the lp
// policy's point, the largest share of a sweep (55 % of the
// CPU), probes a binding cap at about 7.9 headrooms (each a warm
// re-solve, a rounding and a staggered replay, 1.0 µs per operation and
// 0.025 µs per T·B) and any other once.
const (
	usReplayOp    = 0.18
	usConductorOp = 0.41
	usColdTB      = 2.0
	usChainTB     = 0.9
	usWarmTB      = 0.2
	usFreeTB      = 0.01
	usBuildTB     = 1.1
	lpProbes      = 7.9
	usProbeOp     = 1.0
	usProbeTB     = 0.025
	// usMinEnergyOp is a min-energy point: its own frontier LP, built and
	// solved from no basis, about 100 replays of its workload (3 s of CPU
	// on the default scenario, against some 30 ms for a replay).
	usMinEnergyOp = 100 * usReplayOp
)

// pointCost is the estimated CPU cost of point p, in µs, beside the LP
// chain that solves its cap (chainCost): w gives its workload's size.
func pointCost(p Point, w weight) float64 {
	switch p.Policy {
	case policy.Conductor:
		return usConductorOp * w.replay
	case policy.MinEnergy:
		return usMinEnergyOp * w.replay
	case policy.LP:
		probes := 1.0
		if w.depth(p.CapW) > 0 {
			probes = lpProbes
		}
		return probes * (usProbeOp*w.replay + usProbeTB*w.solve)
	}
	return usReplayOp * w.replay
}

// chainCost is the estimated cost, in µs, of solving the LP of workload w
// at the caps of group g (one point per cap) that a part of its caps
// lo ≤ k < hi needs: in each chain of caps (lpchain.Split) that it
// touches, the caps from the chain's first up to its last one in the part.
// The first cap that binds in a chain is solved from no basis; a later
// cap costs by how deep it binds (weight.depth): the lowest caps of a
// chain cost the most (measured 143 down to 18 ms on a 1280-task
// workload), a cap that binds at all a fifth of the deepest, and caps
// that do not bind almost nothing.
func chainCost(g []Point, lo, hi int, w weight) float64 {
	c := 0.0
	for _, r := range lpchain.Split(len(g)) {
		if r[1] <= lo || r[0] >= hi {
			continue
		}
		cold := true
		for k := r[0]; k < min(hi, r[1]); k++ {
			switch d := w.depth(g[k].CapW); {
			case d > 0 && cold:
				c += usColdTB
				cold = false
			case d > 0:
				c += usFreeTB + usWarmTB + usChainTB*d
			default:
				c += usFreeTB
			}
		}
	}
	return c * w.solve
}

// chunk is a run of consecutive points of one group: a shard's unit of
// work. A chunk that starts after its group's first point re-solves the
// LP at the caps before it (as a resumed group does), so its results are
// those of the whole group run in one piece.
type chunk struct {
	group  []Point // the whole group
	lo, hi int     // the chunk's points: group[lo:hi]
	cost   float64 // estimated, in units of work (replays × workload size); a part's cost is on its first chunk
	path   float64 // the part's serial work (see part.path), on each of its chunks
	first  int     // the first point of the shard's first chunk of the workload, on each of its chunks
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
	// path is the work no second worker can share: building the LP and
	// solving its chains' caps, one after the other.
	path float64
}

// weight is the size of one workload: the operations a replay runs, its
// LP's T·B, and the job powers between which its caps bind (see Weights).
type weight struct{ replay, solve, avgW, floorW float64 }

// depth is how deep cap capW binds the workload, from 0 at the uncapped
// run's average power and above to 1 at the least power of every rank
// busy at the slowest P-state; 0 below that, where the LP has no schedule
// and says so at once (stencil32's LP at 800 W: 0.04 ms, against 39 ms at
// 900 W); 1 where the average is not known.
func (w weight) depth(capW float64) float64 {
	switch {
	case w.avgW <= 0 || math.IsInf(w.avgW, 0):
		return 1
	case capW >= w.avgW || capW < w.floorW:
		return 0
	case w.floorW >= w.avgW:
		return 1
	}
	return (w.avgW - capW) / (w.avgW - w.floorW)
}

// capped reports whether group g has one point per cap (a capped policy).
func capped(g []Point) bool { return g[0].Policy != policy.Uncapped }

// capsGroup returns the longest capped group of groups (one point per
// cap of the workload), nil if none.
func capsGroup(groups [][]Point) []Point {
	var caps []Point
	for _, g := range groups {
		if capped(g) && len(g) > len(caps) {
			caps = g
		}
	}
	return caps
}

func newPart(groups [][]Point, lo, hi int, w weight) part {
	pt := part{groups: groups, lo: lo, hi: hi, w: w}
	for _, g := range groups {
		if !capped(g) {
			if lo == 0 {
				for _, p := range g {
					pt.cost += pointCost(p, w)
				}
			}
			continue
		}
		for _, p := range g[min(lo, len(g)):min(hi, len(g))] {
			pt.cost += pointCost(p, w)
		}
	}
	if caps := capsGroup(groups); len(caps) > 0 && w.solve > 0 {
		pt.path = usBuildTB*w.solve + chainCost(caps, lo, min(hi, len(caps)), w)
		pt.cost += pt.path
	}
	return pt
}

// mergedCost is the estimated cost of parts of one workload run by one
// shard: one LP built, each chain solved from its first cap up to the
// highest cap that a part needs, and every part's points.
func mergedCost(parts []part) float64 {
	if len(parts) <= 1 {
		c := 0.0
		for _, pt := range parts {
			c += pt.cost
		}
		return c
	}
	c := 0.0
	for _, pt := range parts {
		c += pt.cost - pt.path
	}
	w := parts[0].w
	caps := capsGroup(parts[0].groups)
	if len(caps) == 0 || w.solve <= 0 {
		return c
	}
	c += usBuildTB * w.solve
	for _, r := range lpchain.Split(len(caps)) {
		need := r[0]
		for _, pt := range parts {
			if pt.lo < r[1] && pt.hi > r[0] {
				need = max(need, min(pt.hi, r[1]))
			}
		}
		if need > r[0] {
			c += chainCost(caps, r[0], need, w)
		}
	}
	return c
}

// halves splits the part in two halves of its caps.
func (pt part) halves() (part, part) {
	mid := (pt.lo + pt.hi + 1) / 2
	return newPart(pt.groups, pt.lo, mid, pt.w), newPart(pt.groups, mid, pt.hi, pt.w)
}

// split splits the part in two runs of its caps, at the cap that makes
// the larger of the two the least costly (the lowest such cap).
func (pt part) split() (part, part) {
	var a, b part
	for mid := pt.lo + 1; mid < pt.hi; mid++ {
		x, y := newPart(pt.groups, pt.lo, mid, pt.w), newPart(pt.groups, mid, pt.hi, pt.w)
		if a.groups == nil || max(x.cost, y.cost) < max(a.cost, b.cost) {
			a, b = x, y
		}
	}
	return a, b
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
			out = append(out, chunk{group: g, lo: lo, hi: hi, path: pt.path})
		}
	}
	if len(out) > 0 {
		out[0].cost = pt.cost
	}
	return out
}

// Plan prefers plans whose most loaded shard's estimated work is at most
// maxShardImbalance times the least loaded one's, and among them those
// within planImbalance (the estimate errs by up to about 10 %: aiming
// lower keeps the measured ratio within maxShardImbalance); see planScore.
// A plan within maxShardImbalance replaces one tried before it only where
// its most loaded shard is at least planGain lighter: later plans split
// more, and each split adds an LP build and chain re-solves whose
// estimates err by about 10 %.
const (
	planImbalance     = 1.15
	maxShardImbalance = 1.25
	planGain          = 0.03
)

// Plan deals the points of a sweep to n shards by estimated cost and
// returns, per shard, its chunks. size gives each point's workload size,
// taken both as the operations of its replay and as its LP's size (see
// Weights for the two apart).
func Plan(pts []Point, n int, size func(Point) float64) [][]chunk {
	return PlanWeights(pts, n, Weights{Replay: size, Solve: size})
}

// Weights are the sizes Plan estimates a point's work from.
type Weights struct {
	// Replay is the number of operations a replay of the point's
	// workload runs.
	Replay func(Point) float64
	// Solve is the size T·B of the workload's LP (T compute tasks solved
	// in blocks of B), 0 where it has none.
	Solve func(Point) float64
	// Power, where not nil, gives the job power of the point's workload
	// uncapped (its average) and at its least (every rank busy at the
	// slowest P-state): the LP's caps cost by how deep between the two
	// they are, and little at or above the average. Nil: every cap costs
	// as the deepest.
	Power func(Point) (avgW, floorW float64)
}

// PlanWeights is Plan with the sizes of replays and LP solves given apart.
//
// The unit dealt is a workload's whole work (every group of one machine
// and parameter set, which share one LP), largest first, each to the
// least loaded shard (Graham's LPT rule). Then the largest part is split
// into runs of its caps (in two halves, in two of about equal cost, or
// its whole workload into one run more, evenly: the three are tried, see
// explore), a later run re-solving its chains' caps before it and
// building its own LP (both counted in its cost), and the deal is
// redone, until no split can help: the plan kept is the best dealt
// (planScore). Where its shards are still more than planImbalance apart,
// single points move between shards (refiner.improve). Of that plan and
// every plan dealt, the one whose shards stay closest under the
// estimates' known spread is kept (robustPlan). Each shard's chunks come
// in the order it starts them (sortChunks). The result is a function of
// the points and sizes alone (the spread is sampled from a fixed seed),
// so every shard computes the same plan.
func PlanWeights(pts []Point, n int, w Weights) [][]chunk {
	parts, best, sc, cands := planRuns(pts, n, w)
	if sc.ratio > planImbalance {
		r := newRefiner(parts, best)
		r.improve()
		best = r.plan()
	}
	return sortChunks(robustPlan(parts, best, cands))
}

// planRuns is PlanWeights before points move and before robustPlan: the
// workloads as whole parts, the best plan of runs of caps dealt and its
// score, and every plan dealt.
func planRuns(pts []Point, n int, w Weights) ([]part, [][]chunk, planScore, [][][]chunk) {
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
			wt := weight{replay: w.Replay(cur[0]), solve: w.Solve(cur[0])}
			if w.Power != nil {
				wt.avgW, wt.floorW = w.Power(cur[0])
			}
			parts = append(parts, part{w: wt})
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
		parts[i] = newPart(pt.groups, 0, pt.caps(), pt.w)
	}
	// Splitting halves of the caps, splitting at equal cost and cutting
	// a workload into even runs lead to different deals; the best plan
	// of the three is taken.
	var best [][]chunk
	var sc planScore
	var all [][][]chunk
	for _, refine := range []func([]part) []part{splitLargest(part.halves), splitLargest(part.split), evenLargest} {
		b, bsc, dealt := explore(slices.Clone(parts), n, len(pts), refine)
		if best == nil || bsc.better(sc) {
			best, sc = b, bsc
		}
		all = append(all, dealt...)
	}
	return parts, best, sc, all
}

// caps is the number of caps of the part's workload (1 with none).
func (pt part) caps() int {
	n := 1
	for _, g := range pt.groups {
		if capped(g) {
			n = max(n, len(g))
		}
	}
	return n
}

// largest returns the index of the costliest part that can be split, or
// -1.
func largest(parts []part) int {
	big := -1
	for i, pt := range parts {
		if pt.hi-pt.lo >= 2 && (big < 0 || pt.cost > parts[big].cost) {
			big = i
		}
	}
	return big
}

// splitLargest returns a refinement for explore that splits the largest
// part in two with split.
func splitLargest(split func(part) (part, part)) func([]part) []part {
	return func(parts []part) []part {
		big := largest(parts)
		if big < 0 {
			return nil
		}
		a, b := split(parts[big])
		parts[big] = a
		return append(parts, b)
	}
}

// evenLargest is a refinement for explore that cuts the workload of the
// largest part into one run of caps more than it has now, the runs
// chosen so that the costliest is the least costly (evenRuns). Cutting
// the two halves of a split again can leave runs far apart that one cut
// into three from the start balances: a one-workload sweep of 7 caps
// over 4 shards.
func evenLargest(parts []part) []part {
	big := largest(parts)
	if big < 0 {
		return nil
	}
	key := lpKey(parts[big].groups[0][0])
	runs := 1
	out := parts[:0:0]
	for _, pt := range parts {
		if lpKey(pt.groups[0][0]) == key {
			runs++
			continue
		}
		out = append(out, pt)
	}
	pt := parts[big]
	return append(out, evenRuns(pt.groups, pt.caps(), runs, pt.w)...)
}

// evenRuns cuts caps 0…n-1 of a workload's groups into at most runs runs
// of consecutive caps whose costliest is the least costly. A run's cost
// only grows as it takes more caps on either side, so the runs that
// stay within a bound, each taking as many caps as it can, are the
// fewest: the least bound is found by bisection.
func evenRuns(groups [][]Point, n, runs int, w weight) []part {
	cut := func(bound float64) []part {
		var out []part
		for lo := 0; lo < n; {
			// The most caps from lo that stay within bound (at least one).
			a, b := lo+1, n
			for a < b {
				mid := (a + b + 1) / 2
				if newPart(groups, lo, mid, w).cost <= bound {
					a = mid
				} else {
					b = mid - 1
				}
			}
			out = append(out, newPart(groups, lo, a, w))
			lo = a
		}
		return out
	}
	lo, hi := 0.0, newPart(groups, 0, n, w).cost
	best := cut(hi)
	for range 40 {
		mid := (lo + hi) / 2
		if c := cut(mid); len(c) <= runs {
			best, hi = c, mid
		} else {
			lo = mid
		}
	}
	return best
}

// explore deals parts to n shards (Graham's LPT rule), then refines them
// (splits a part, see splitLargest and evenLargest) and deals again, for
// at most 4·npts refinements or until refine returns nil, and returns
// the best plan dealt, its score and every plan dealt.
func explore(parts []part, n, npts int, refine func([]part) []part) ([][]chunk, planScore, [][][]chunk) {
	deal := func() ([][]chunk, []float64) {
		order := make([]int, len(parts))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return parts[order[a]].cost > parts[order[b]].cost })
		shards := make([][]chunk, n)
		load := make([]float64, n)
		held := make([]map[*Point][]part, n) // per shard, the parts of each workload
		for _, i := range order {
			pt := parts[i]
			key := &pt.groups[0][0]
			// The least loaded shard, a part of a workload it holds
			// already counted at what it adds (mergedCost).
			k := 0
			for j := 1; j < n; j++ {
				if load[j] < load[k] {
					k = j
				}
			}
			add := mergedCost(append(held[k][key][:len(held[k][key]):len(held[k][key])], pt)) - mergedCost(held[k][key])
			if held[k] == nil {
				held[k] = map[*Point][]part{}
			}
			held[k][key] = append(held[k][key], pt)
			chunks := pt.chunks()
			if len(chunks) > 0 {
				chunks[0].cost = add
			}
			shards[k] = append(shards[k], chunks...)
			load[k] += add
		}
		return shards, load
	}
	var best [][]chunk
	var bestScore planScore
	var dealt [][][]chunk
	// Each split adds a part; there are at most npts. Past four parts a
	// shard beyond one per workload, a plan splits finer than its
	// estimates tell apart, and each deal costs a pass over the parts
	// (refining a 200-cap workload over 16 shards up to 4·npts parts
	// takes 27 s).
	for range min(4*npts, 4*n+len(parts)) {
		shards, load := deal()
		sc := scorePlan(load)
		dealt = append(dealt, shards)
		if best == nil || sc.better(bestScore) {
			best, bestScore = shards, sc
		}
		// Splits only add work: once the shards' mean is the best plan's
		// most loaded shard, no later plan is better.
		if sc.total/float64(n) >= bestScore.key && bestScore.class == 0 {
			break
		}
		if parts = refine(parts); parts == nil {
			break
		}
	}
	return best, bestScore, dealt
}

// planScore ranks the plans PlanWeights tries: those within
// maxShardImbalance (class 0) by their most loaded shard's work (the
// sharded sweep's time) raised by how far their ratio of most to least
// loaded shard exceeds planImbalance, then the others (class 1) by that
// ratio and then their most loaded shard.
type planScore struct {
	class                 int
	hi, ratio, total, key float64
}

func scorePlan(load []float64) planScore {
	lo, hi, total := load[0], load[0], 0.0
	for _, l := range load {
		lo, hi, total = min(lo, l), max(hi, l), total+l
	}
	sc := planScore{class: 1, hi: hi, ratio: math.Inf(1), total: total, key: hi}
	if lo > 0 {
		sc.ratio = hi / lo
	}
	if sc.ratio <= maxShardImbalance {
		sc.class = 0
		sc.key = hi * max(1, sc.ratio/planImbalance)
	}
	return sc
}

// better reports whether a is a better plan than b.
func (a planScore) better(b planScore) bool {
	switch {
	case a.class != b.class:
		return a.class < b.class
	case a.class == 1 && a.ratio != b.ratio:
		return a.ratio < b.ratio
	case a.class == 1:
		return a.key < b.key
	}
	return a.key < b.key*(1-planGain)
}

// sortChunks orders each shard's chunks by their part's serial work, the
// longest first, then by their first point. Workers start the LPs in
// this order (interleave): a shard whose last LP had the longest chain
// of solves ended with one worker solving it and the other waiting for
// its caps (0.44 s of 3.3 with two workers on the 372-point shape of
// TestShardCostModel); started first, its chain overlaps the others'
// work. The order changes no result.
func sortChunks(shards [][]chunk) [][]chunk {
	for _, s := range shards {
		sort.Slice(s, func(a, b int) bool {
			if s[a].path != s[b].path {
				return s[a].path > s[b].path
			}
			if s[a].first != s[b].first {
				return s[a].first < s[b].first
			}
			return s[a].group[s[a].lo].Index < s[b].group[s[b].lo].Index
		})
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

// workloadWeights returns Plan's weights for the scenario: a replay runs
// the operations of the point's workload, and its LP's size is T·B for T
// compute tasks in blocks of B tasks: B = T for an exact LP, the cut size
// for one relaxed into blocks (bound.cuts; "auto" cuts every 64 tasks
// above 512, which makes larger workloads' LPs cheaper than some smaller
// ones'), and nothing for an execution-graph workload, which has no LP.
// Workloads are built once per distinct parameter set; one that cannot be
// built weighs 1 (the sweep reports its error). The power from which caps
// bind is the average of an uncapped replay, once per machine and
// parameter set (one replay's time, against the hundreds of replays and
// solves the sweep runs per workload).
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
			if t == nil && s.Bound.Messages != MessagesEngine { // an execution graph without its LP
				v = wt{float64(g.NumOps()), 0}
				cache[key] = v
				return v
			}
			for op, k := range g.Kind {
				if k == graph.Calc && (t != nil || g.Size[op] > 0) { // a graph's fences are no tasks (graphNet)
					tasks++
				}
			}
			v = wt{float64(g.NumOps()), float64(tasks) * float64(blockTasks(tasks, s.Bound.CutTasks()))}
		}
		cache[key] = v
		return v
	}
	type pw struct{ avg, floor float64 }
	powers := map[string]pw{}
	power := func(p Point) (float64, float64) {
		key := lpKey(p)
		if v, ok := powers[key]; ok {
			return v.avg, v.floor
		}
		v := pw{math.Inf(1), 0}
		sc, params := s.at(p.Params)
		if p.Machine < len(sc.Machines) {
			m := &sc.Machines[p.Machine]
			if t, g, err := sc.build(params); err == nil && g.NumOps() > 0 {
				if cls, err := sc.Classes(g, t); err == nil {
					if met, _, err := sc.replay(g, m, sc.Net(), cls, policy.Uncapped, 0); err == nil {
						v.avg = float64(met.AvgPowerW)
					}
				}
			}
			least := math.Inf(1)
			for _, ps := range m.PStates {
				least = min(least, ps.ActivePowerW)
			}
			if !math.IsInf(least, 0) {
				v.floor = m.BaseW() + float64(m.Ranks())*least
			}
		}
		powers[key] = v
		return v.avg, v.floor
	}
	return Weights{Replay: func(p Point) float64 { return get(p).replay }, Solve: func(p Point) float64 { return get(p).solve }, Power: power}
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
