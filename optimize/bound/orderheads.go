package bound

import (
	"math"
	"slices"
)

// The search's combinatorial layer: before a node's LP, the schedule of
// its DAG and decided resource orders with every task at its fastest
// (the heads). No schedule below the node ends before the heads' Fin,
// nor before any resource's one-machine bound (Jackson's preemptive
// schedule over the items' heads, least lengths and tails: Carlier,
// EJOR 1982), so a node whose bound is not below the best found is cut
// without an LP. Where the heads' schedule keeps the cap at every instant
// and runs no two items of a resource at once, it is a schedule of the
// model and the node's optimum: no LP is needed either. Only where the
// cap binds does the search turn to the LPs.

// itemGraph is the free DAG's adjacency at the tasks' fastest times and
// each resource item's least length.
type itemGraph struct {
	out    [][]Message
	itemLn [][]float64 // per resource and item: its least length
}

func newItemGraph(f *OrderFree, lp *longest) *itemGraph {
	g := &itemGraph{out: lp.out}
	for _, items := range f.items {
		ln := make([]float64, len(items))
		for j, it := range items {
			if x := lp.from(int(it.Start))[it.End]; x > 0 {
				ln[j] = x
			}
		}
		g.itemLn = append(g.itemLn, ln)
	}
	return g
}

// heads returns the earliest time of every vertex under n's decisions
// with every task at its fastest, and the node's combinatorial bound;
// ok is false where the decisions make a cycle.
func (s *search) heads(n *node) (h, q []float64, lb float64, ok bool) {
	f, d := s.f, s.f.d
	g := f.graph
	indeg := make([]int32, d.Vertices)
	for _, es := range g.out {
		for _, e := range es {
			indeg[e.Dst]++
		}
	}
	byDec := make(map[int][]int, len(n.dec))
	for k, e := range n.dec {
		indeg[e.Dst]++
		byDec[e.Src] = append(byDec[e.Src], k)
	}
	topo := make([]int, 0, d.Vertices)
	for v := range d.Vertices {
		if indeg[v] == 0 {
			topo = append(topo, v)
		}
	}
	for j := 0; j < len(topo); j++ {
		v := topo[j]
		for _, e := range g.out[v] {
			if indeg[e.Dst]--; indeg[e.Dst] == 0 {
				topo = append(topo, e.Dst)
			}
		}
		for _, k := range byDec[v] {
			w := n.dec[k].Dst
			if indeg[w]--; indeg[w] == 0 {
				topo = append(topo, w)
			}
		}
	}
	if len(topo) != d.Vertices {
		return nil, nil, 0, false
	}
	h = make([]float64, d.Vertices)
	for _, v := range topo {
		for _, e := range g.out[v] {
			h[e.Dst] = math.Max(h[e.Dst], h[v]+e.Time)
		}
		for _, k := range byDec[v] {
			w := n.dec[k].Dst
			h[w] = math.Max(h[w], h[v])
		}
	}
	q = make([]float64, d.Vertices) // tails: the longest path to Fin
	for v := range q {
		q[v] = math.Inf(-1)
	}
	q[d.Fin] = 0
	for j := len(topo) - 1; j >= 0; j-- {
		v := topo[j]
		for _, e := range g.out[v] {
			q[v] = math.Max(q[v], q[e.Dst]+e.Time)
		}
		for _, k := range byDec[v] {
			q[v] = math.Max(q[v], q[n.dec[k].Dst])
		}
	}
	lb = h[d.Fin]
	for k, items := range f.items {
		lb = math.Max(lb, jackson(items, g.itemLn[k], h, q))
	}
	return h, q, lb, true
}

// selected returns the orders that n's heads h and tails q force at a
// cut of the makespan: of two items of a resource that h runs at once,
// if either before the other makes the makespan reach the cut, the
// other comes first (immediate selection: Carlier and Pinson,
// Management Science 1989). cut is false where neither order is below
// it: no schedule below n is.
func (s *search) selected(h, q []float64, cutAt float64) (forced []Message, cut bool) {
	f := s.f
	eps := tol * f.tau
	for k, items := range f.items {
		ln := f.graph.itemLn[k]
		for j, a := range items {
			for l := j + 1; l < len(items); l++ {
				b := items[l]
				if !(h[a.Start] < h[b.End]-eps && h[b.Start] < h[a.End]-eps) {
					continue
				}
				ab := h[a.Start]+ln[j]+ln[l]+q[b.End] >= cutAt
				ba := h[b.Start]+ln[l]+ln[j]+q[a.End] >= cutAt
				switch {
				case ab && ba:
					return nil, true
				case ab:
					forced = append(forced, Message{Src: int(b.End), Dst: int(a.Start)})
				case ba:
					forced = append(forced, Message{Src: int(a.End), Dst: int(b.Start)})
				}
			}
		}
	}
	return forced, false
}

// jackson is the one-machine bound of items with heads h, lengths ln and
// tails q: the least max(end + tail) of a preemptive schedule that
// always runs the released item of the longest tail (Jackson's rule,
// optimal with preemption, so no non-preemptive schedule does better).
func jackson(items []Span, ln, h, q []float64) float64 {
	type job struct{ r, p, q float64 }
	jobs := make([]job, 0, len(items))
	for j, it := range items {
		if ln[j] > 0 {
			jobs = append(jobs, job{h[it.Start], ln[j], q[it.End]})
		}
	}
	slices.SortFunc(jobs, func(a, b job) int { return cmpTime(a.r, b.r) })
	best := math.Inf(-1)
	var ready []int // indices of released, unfinished jobs
	left := make([]float64, len(jobs))
	for j := range jobs {
		left[j] = jobs[j].p
	}
	t, next := 0.0, 0
	for next < len(jobs) || len(ready) > 0 {
		if len(ready) == 0 && t < jobs[next].r {
			t = jobs[next].r
		}
		for next < len(jobs) && jobs[next].r <= t {
			ready = append(ready, next)
			next++
		}
		k := 0 // the ready job of the longest tail
		for i := range ready {
			if jobs[ready[i]].q > jobs[ready[k]].q {
				k = i
			}
		}
		j := ready[k]
		run := left[j]
		if next < len(jobs) && t+run > jobs[next].r {
			run = jobs[next].r - t
		}
		t += run
		if left[j] -= run; left[j] <= 0 {
			best = math.Max(best, t+jobs[j].q)
			ready = append(ready[:k], ready[k+1:]...)
		}
	}
	return best
}

// visit explores node n: cut by its combinatorial bound, settled by its
// heads where they keep the cap, else by its LP (branch).
func (s *search) visit(n *node) error {
	f := s.f
	if err := s.ctx.Err(); err != nil {
		return err
	}
	h, q, lb, ok := s.heads(n)
	for range 8 {
		if !ok || lb >= s.best-tol*f.tau {
			return nil
		}
		forced, cut := s.selected(h, q, s.best-tol*f.tau)
		if cut {
			return nil
		}
		if len(forced) == 0 {
			break
		}
		n = &node{events: n.events, at: n.at, placed: n.placed, dec: append(slices.Clip(n.dec), forced...)}
		h, q, lb, ok = s.heads(n)
	}
	if err := s.count(1); err != nil {
		return err
	}
	if !ok || lb >= s.best-tol*f.tau {
		return nil
	}
	if len(n.events) == 0 {
		s.dive(n, h)
		if a, b, clash := s.widest(h, q); clash {
			return s.branchPair(n, a, b, nil)
		}
		hs := &lpSol{obj: h[f.d.Fin], t: h}
		if ord, ok := s.keepsCap(hs); ok {
			hs.d = make([]float64, len(f.d.Tasks))
			for i, t := range f.d.Tasks {
				hs.d[i] = t.Hull[0].Time
			}
			s.best, s.sol, s.ord = hs.obj, hs, ord
			return nil
		}
	}
	sol, err := s.lp(n)
	if err != nil || sol == nil {
		return err
	}
	return s.branch(n, sol)
}

// widest returns the pair of items of one resource that h runs at once
// whose orders both end latest by their heads and tails: the pair whose
// decision raises the bound most in either branch, a before b the
// branch of the earlier bound.
func (s *search) widest(h, q []float64) (a, b Span, ok bool) {
	f := s.f
	eps := tol * f.tau
	most := math.Inf(-1)
	for k, items := range f.items {
		ln := f.graph.itemLn[k]
		for j, x := range items {
			for l := j + 1; l < len(items); l++ {
				y := items[l]
				if !(h[x.Start] < h[y.End]-eps && h[y.Start] < h[x.End]-eps) {
					continue
				}
				xy := h[x.Start] + ln[j] + ln[l] + q[y.End]
				yx := h[y.Start] + ln[l] + ln[j] + q[x.End]
				if m := math.Min(xy, yx); !ok || m > most {
					most, ok = m, true
					if xy <= yx {
						a, b = x, y
					} else {
						a, b = y, x
					}
				}
			}
		}
	}
	return a, b, ok
}

// dive tries the schedule of n with every resource's items in the order
// of their heads h, every task at its fastest: where it keeps the cap it
// is a schedule of the model, and the best found if faster.
func (s *search) dive(n *node, h []float64) {
	f := s.f
	c := &node{at: n.at, placed: n.placed, dec: s.itemOrder(n.dec, &lpSol{t: h})}
	hc, _, _, ok := s.heads(c)
	if !ok || hc[f.d.Fin] >= s.best-tol*f.tau {
		return
	}
	hs := &lpSol{obj: hc[f.d.Fin], t: hc}
	ord, ok := s.keepsCap(hs)
	if !ok {
		return
	}
	hs.d = make([]float64, len(f.d.Tasks))
	for i, t := range f.d.Tasks {
		hs.d[i] = t.Hull[0].Time
	}
	s.best, s.sol, s.ord = hs.obj, hs, ord
}
