package scenarios

import (
	"slices"

	"github.com/capsim/capsim/optimize/lpchain"
)

// A plan of runs of caps (planRuns) deals every policy's point at a cap
// to the shard that holds the cap: a shard that holds a high cap solves
// its chain up to it, and the points of that cap (an lp point costs as
// much as several chain solves) weigh on it together. The refiner moves
// single points: a point at cap k of any group of a workload costs the
// shard that takes it its own work, plus the LP build and the chain
// solves up to cap k where that shard does not solve them already. Every
// cap's point still needs its chain solved from the chain's first cap
// (its bound's last digits follow the basis path, see lpchain), so a
// point never saves the chain before it, only where it is solved.

// unit is what the refiner moves: one point of a capped group, or every
// point of a group without caps (uncapped, aggregation patterns).
type unit struct {
	wl, g int // workload (index into the refiner's wls) and group within it
	k     int // cap index within the group, -1 for a group without caps
	cost  float64
}

// wload is one workload of a plan: the groups that share its LP.
type wload struct {
	groups [][]Point
	caps   []Point // capsGroup(groups)
	w      weight
}

// holding is what one shard holds of one workload: point costs, and
// how many of its capped units are at each cap.
type holding struct {
	points float64
	atCap  []int
	capped int
}

// refiner holds a point-level plan: which shard holds each unit, and
// each shard's holdings and load.
type refiner struct {
	wls   []wload
	units []unit
	where []int          // shard of each unit
	hold  [][]holding    // per shard, per workload
	load  []float64      // per shard
	byKey map[*Point]int // workload of each group's first point
	index map[[3]int]int // unit of each workload, group and cap (−1: none)
}

// cost is the estimated work of a shard's holding h of workload wl: its
// points, and with any capped point, the LP build and each chain solved
// from its first cap to the highest cap held in it.
func (r *refiner) cost(wl int, h holding) float64 {
	return h.points + r.path(wl, h)
}

// path is the serial LP work of holding h of workload wl: the build and
// each chain's solves up to its highest cap held.
func (r *refiner) path(wl int, h holding) float64 {
	w := r.wls[wl]
	if h.capped == 0 || len(w.caps) == 0 || w.w.solve <= 0 {
		return 0
	}
	p := usBuildTB * w.w.solve
	for _, ch := range lpchain.Split(len(w.caps)) {
		top := -1
		for k := ch[0]; k < ch[1]; k++ {
			if h.atCap[k] > 0 {
				top = k
			}
		}
		if top >= 0 {
			p += chainCost(w.caps, ch[0], top+1, w.w)
		}
	}
	return p
}

// add adds unit u to holding h (sign 1) or takes it out (−1).
func (h *holding) add(u unit, sign int) {
	h.points += float64(sign) * u.cost
	if u.k >= 0 {
		h.atCap[u.k] += sign
		h.capped += sign
	}
}

// newRefiner expands plan (chunks per shard, over the workloads parts
// describe) into units.
func newRefiner(parts []part, plan [][]chunk) *refiner {
	r := &refiner{byKey: map[*Point]int{}, load: make([]float64, len(plan))}
	for _, pt := range parts {
		wl := len(r.wls)
		r.wls = append(r.wls, wload{groups: pt.groups, caps: capsGroup(pt.groups), w: pt.w})
		for _, g := range pt.groups {
			r.byKey[&g[0]] = wl
		}
	}
	r.hold = make([][]holding, len(plan))
	for s := range plan {
		r.hold[s] = make([]holding, len(r.wls))
		for wl, w := range r.wls {
			r.hold[s][wl].atCap = make([]int, len(w.caps))
		}
	}
	r.index = map[[3]int]int{}
	index := r.index
	for wl, w := range r.wls {
		for gi, g := range w.groups {
			if !capped(g) {
				c := 0.0
				for _, p := range g {
					c += pointCost(p, w.w)
				}
				index[[3]int{wl, gi, -1}] = len(r.units)
				r.units = append(r.units, unit{wl: wl, g: gi, k: -1, cost: c})
				continue
			}
			for k, p := range g {
				index[[3]int{wl, gi, k}] = len(r.units)
				r.units = append(r.units, unit{wl: wl, g: gi, k: k, cost: pointCost(p, w.w)})
			}
		}
	}
	r.where = make([]int, len(r.units))
	for s, chunks := range plan {
		for _, c := range chunks {
			wl := r.byKey[&c.group[0]]
			gi := slices.IndexFunc(r.wls[wl].groups, func(g []Point) bool { return &g[0] == &c.group[0] })
			if !capped(c.group) {
				r.where[index[[3]int{wl, gi, -1}]] = s
				continue
			}
			for k := c.lo; k < c.hi; k++ {
				r.where[index[[3]int{wl, gi, k}]] = s
			}
		}
	}
	for i, u := range r.units {
		r.hold[r.where[i]][u.wl].add(u, 1)
	}
	for s := range plan {
		for wl := range r.wls {
			r.load[s] += r.cost(wl, r.hold[s][wl])
		}
	}
	return r
}

// move moves unit i to shard b (not its own).
func (r *refiner) move(i, b int) {
	u := r.units[i]
	a := r.where[i]
	ha, hb := &r.hold[a][u.wl], &r.hold[b][u.wl]
	ca, cb := r.cost(u.wl, *ha), r.cost(u.wl, *hb)
	ha.add(u, -1)
	hb.add(u, 1)
	r.load[a] += r.cost(u.wl, *ha) - ca
	r.load[b] += r.cost(u.wl, *hb) - cb
	r.where[i] = b
}

// delta returns the loads of shards a (unit i's) and b were unit i
// moved to b.
func (r *refiner) delta(i, b int) (float64, float64) {
	u := r.units[i]
	a := r.where[i]
	return r.load[a] + r.costAfter(a, u, -1) - r.cost(u.wl, r.hold[a][u.wl]),
		r.load[b] + r.costAfter(b, u, 1) - r.cost(u.wl, r.hold[b][u.wl])
}

// costAfter is the cost of shard s's holding of unit u's workload with u
// added (sign 1) or taken out (−1), computed in place and undone: it
// allocates nothing.
func (r *refiner) costAfter(s int, u unit, sign int) float64 {
	h := &r.hold[s][u.wl]
	h.add(u, sign)
	c := r.cost(u.wl, *h)
	h.add(u, -sign)
	return c
}

// refineGain is the least share of the most loaded shard's work that a
// move must take off it: smaller moves trade an estimate's error for
// another.
const refineGain = 0.005

// maxMoves bounds the moves improve makes, and so its time on a sweep of
// many points: each move looks at every point of the busiest shard.
const maxMoves = 512

// improve moves single units off the most loaded shard, each time the
// move that leaves the two shards it touches the least loaded, while
// that takes at least refineGain of its work off (planGain where the
// shard it goes to would build the workload's LP for it: one more build
// and chain whose estimates err too). The loads sorted from the highest
// fall at every move, so it ends.
func (r *refiner) improve() {
	for range min(4*len(r.units), maxMoves) {
		a := 0
		for s := range r.load {
			if r.load[s] > r.load[a] {
				a = s
			}
		}
		bi, bb, bm := -1, -1, r.load[a]*(1-refineGain)
		for i := range r.units {
			if r.where[i] != a {
				continue
			}
			for b := range r.load {
				if b == a {
					continue
				}
				na, nb := r.delta(i, b)
				m := max(na, nb)
				if u := r.units[i]; u.k >= 0 && r.hold[b][u.wl].capped == 0 {
					// b would build the LP: worth it only for a
					// larger gain (see planGain).
					m += r.load[a] * (planGain - refineGain)
				}
				if m < bm {
					bi, bb, bm = i, b, m
				}
			}
		}
		if bi < 0 {
			return
		}
		r.move(bi, bb)
	}
}

// plan returns the refined plan as chunks: each shard's runs of
// consecutive caps of each group it holds points of, with each
// workload's estimated work on its first chunk in the shard and its
// serial LP work (path) on all of them.
func (r *refiner) plan() [][]chunk {
	out := make([][]chunk, len(r.load))
	for s := range out {
		for wl, w := range r.wls {
			h := r.hold[s][wl]
			first := len(out[s])
			for gi, g := range w.groups {
				held := func(k int) bool { return r.where[r.index[[3]int{wl, gi, k}]] == s }
				if !capped(g) {
					if held(-1) {
						out[s] = append(out[s], chunk{group: g, lo: 0, hi: len(g)})
					}
					continue
				}
				for lo := 0; lo < len(g); {
					if !held(lo) {
						lo++
						continue
					}
					hi := lo + 1
					for hi < len(g) && held(hi) {
						hi++
					}
					out[s] = append(out[s], chunk{group: g, lo: lo, hi: hi})
					lo = hi
				}
			}
			if first == len(out[s]) {
				continue
			}
			p, at := r.path(wl, h), out[s][first].group[out[s][first].lo].Index
			for i := first; i < len(out[s]); i++ {
				out[s][i].path, out[s][i].first = p, at
			}
			out[s][first].cost = r.cost(wl, h)
		}
	}
	return out
}
