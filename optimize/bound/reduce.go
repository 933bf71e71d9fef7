package bound

import (
	"math"
	"math/bits"
	"slices"
)

// Events that no task starts or ends at, and no device row names, only
// pass precedence on: messages and the event chain (14) lead in and out of
// them, with fixed lengths. reduceEvents eliminates their time columns
// and writes, between the remaining key events, one row per pair joined
// through eliminated events, with the longest such path as its length,
// then drops every row another path of rows and fastest tasks already
// implies. The LP keeps its optimum (every eliminated time can be set as
// soon as possible from its key predecessors, see fill). On docs/guide/bound.md's
// 32-rank stencil, with the power rows written only where tasks start
// (build), the LP keeps 2.6k of its 23k rows: the basis every cap
// re-solves from is that much smaller.

// fixedEdge is a precedence of fixed length between two events of a block
// (local event numbers), or between two key events in a reduced row.
type fixedEdge struct {
	from, to int32
	w        float64
	task     bool // a task at its fastest (reduceEvents' key graph only)
}

// eventGraph is a block's events with their fixed edges, by tail.
type eventGraph struct {
	n     int
	start []int32 // out-edges of event e: edges[start[e]:start[e+1]]
	edges []fixedEdge
}

// newEventGraph adds the chain edges (14) to the given edges and sorts
// them by tail: e → e+1, or, when chained is not nil, from each chained
// event to the next chained one.
func newEventGraph(n int, chained []bool, msgs []fixedEdge) *eventGraph {
	edges := make([]fixedEdge, 0, max(n-1, 0))
	prev := int32(-1)
	for e := 0; e < n; e++ {
		if chained != nil && !chained[e] {
			continue
		}
		if prev >= 0 {
			edges = append(edges, fixedEdge{from: prev, to: int32(e)})
		}
		prev = int32(e)
	}
	return byTail(n, edges, msgs)
}

// byTail returns the graph of n events with the given edges (the
// concatenation of the lists), sorted by tail (a stable counting sort:
// edges of one tail keep their order).
func byTail(n int, lists ...[]fixedEdge) *eventGraph {
	m := 0
	for _, l := range lists {
		m += len(l)
	}
	g := &eventGraph{n: n, start: make([]int32, n+1), edges: make([]fixedEdge, m)}
	for _, l := range lists {
		for _, e := range l {
			g.start[e.from+1]++
		}
	}
	for e := 0; e < n; e++ {
		g.start[e+1] += g.start[e]
	}
	next := append([]int32(nil), g.start[:n]...)
	for _, l := range lists {
		for _, e := range l {
			g.edges[next[e.from]] = e
			next[e.from]++
		}
	}
	return g
}

func (g *eventGraph) out(e int32) []fixedEdge { return g.edges[g.start[e]:g.start[e+1]] }

// reduceWork bounds the events a block's reduction may visit, per event,
// before it gives up and keeps every event (a pathological trace whose key
// events all reach the same long runs of others), and the events its
// pruning of implied rows may scan before it keeps the rest.
const reduceWork = 64

// pruneVisits is how many events the search for paths that imply the
// rows from one key event visits; the rows it could not check are kept.
const pruneVisits = 1 << 14

// reduceEvents returns, for the block's event graph g with key events
// marked and its tasks as key-to-key edges at their fastest (lengths they
// can only exceed), the rows between key events that the LP needs, or
// ok false when the reduction would take too long.
func reduceEvents(g *eventGraph, key []bool, tasks []fixedEdge) (rows []fixedEdge, ok bool) {
	return reduceEventsWithin(g, key, tasks, reduceWork)
}

// reduceEventsWithin is reduceEvents with its search visiting at most
// work events per event of g (its pruning, reduceWork).
func reduceEventsWithin(g *eventGraph, key []bool, tasks []fixedEdge, work int) (rows []fixedEdge, ok bool) {
	n := g.n
	dist := make([]float64, n)
	for i := range dist {
		dist[i] = -1
	}
	budget := work*n + 1<<16
	var cand []fixedEdge
	var touched []int32
	// The events reached and not yet taken, a bit each, taken in
	// increasing order (edges go forward, so an event's distance is final
	// when taken): not a scan of every event up to the farthest reached,
	// which on an engine LP's blocks (rows from key events to the next
	// cut, every other event unreached) cost the block's events per key
	// event.
	pend := make([]uint64, (n+63)/64)
	for a := int32(0); a < int32(n); a++ {
		if !key[a] {
			continue
		}
		// Longest paths from a through events that are not key.
		dist[a] = 0
		touched = append(touched[:0], a)
		pend[a>>6] |= 1 << (a & 63)
		left := 1
		for w := a >> 6; left > 0; {
			word := pend[w]
			if word == 0 {
				w++
				continue
			}
			u := w<<6 | int32(bits.TrailingZeros64(word))
			pend[w] &^= 1 << (u & 63)
			left--
			if dist[u] < 0 || (u != a && key[u]) {
				continue
			}
			if budget--; budget < 0 {
				clear(pend)
				return nil, false
			}
			for _, e := range g.out(u) {
				if x := dist[u] + e.w; x > dist[e.to] {
					if dist[e.to] < 0 {
						touched = append(touched, e.to)
					}
					dist[e.to] = x
					// Only forward: an event before u is never taken again.
					if b := &pend[e.to>>6]; e.to > u && *b&(1<<(e.to&63)) == 0 {
						*b |= 1 << (e.to & 63)
						left++
					}
				}
			}
		}
		first := len(cand)
		for _, b := range touched {
			if b != a && key[b] {
				cand = append(cand, fixedEdge{from: a, to: b, w: dist[b]})
			}
			dist[b] = -1
		}
		slices.SortFunc(cand[first:], func(x, y fixedEdge) int { return int(x.to - y.to) })
	}
	return pruneRows(n, cand, tasks, reduceWork*n+1<<16, 1), true
}

// pruneRows returns the candidate rows between key events (sorted by tail,
// then head) that no other path of rows and tasks at their fastest (the
// edges of tasks) implies, visiting at most budget events over all rows
// and at most pruneVisits from one tail; rows it has no time left to
// check are kept. A pruned row is implied by rows of shorter spans, so
// pruning never loses one that matters.
//
// The tails' searches are independent: they run on up to workers
// goroutines, each over a run of tails with about as many candidates,
// and the budget is then applied in order as if they had run one after
// the other (a tail is searched while budget is left before it), so the
// rows do not depend on workers.
func pruneRows(n int, cand, tasks []fixedEdge, budget, workers int) []fixedEdge {
	// The key graph: candidate rows and tasks at their fastest.
	kg := byTail(n, cand, tasks)
	// The tails' runs of candidates: cand[runs[i]:runs[i+1]].
	var runs []int
	for lo := 0; lo < len(cand); {
		runs = append(runs, lo)
		for lo++; lo < len(cand) && cand[lo].from == cand[lo-1].from; lo++ {
		}
	}
	runs = append(runs, len(cand))
	tails := len(runs) - 1
	workers = max(1, min(workers, tails/64)) // a goroutine per 64 tails at most
	// Each run of tails about an equal share of the candidates.
	bounds := []int{0}
	for p, t := 1, 0; p < workers; p++ {
		for t < tails && runs[t] < p*len(cand)/workers {
			t++
		}
		bounds = append(bounds, t)
	}
	bounds = append(bounds, tails)
	rows := cand[:0:0]
	t := inParts(bounds, func() func(int, []fixedEdge) ([]fixedEdge, int) {
		pr := newPruner(n)
		return func(t int, rows []fixedEdge) ([]fixedEdge, int) { return pr.tail(kg, cand[runs[t]:runs[t+1]], rows) }
	}, func(kept []fixedEdge, used int) bool {
		if budget <= 0 {
			return false
		}
		rows = append(rows, kept...)
		budget -= used
		return true
	})
	return append(rows, cand[runs[t]:]...) // out of time: keep the rest
}

// pruner holds one goroutine's work arrays of pruneRows, indexed by
// event; −1 marks an event not reached (edge lengths are not negative).
type pruner struct {
	long    []float64 // longest path from the tail
	two     []float64 // longest path of two or more edges from the tail
	direct  []float64 // longest task from the tail
	h       minHeap
	touched []int32
}

func newPruner(n int) *pruner {
	pr := &pruner{long: make([]float64, n), two: make([]float64, n), direct: make([]float64, n)}
	for i := range pr.long {
		pr.long[i], pr.two[i], pr.direct[i] = -1, -1, -1
	}
	return pr
}

// tail appends to rows the candidates cand (those of one tail, sorted by
// head) that no path of two or more edges of kg, nor a task alone, from
// their tail implies, and returns the events it visited. A row (a, b, L)
// is implied when such a path from a to b is at least L long.
func (pr *pruner) tail(kg *eventGraph, cand, rows []fixedEdge) ([]fixedEdge, int) {
	a := cand[0].from
	reach := a
	for _, e := range cand {
		reach = max(reach, e.to)
	}
	long, two, direct := pr.long, pr.two, pr.direct
	long[a] = 0
	pr.touched = append(pr.touched[:0], a)
	pr.h = append(pr.h[:0], a)
	used := 0
	for left := pruneVisits; len(pr.h) > 0 && left > 0; left-- {
		u := pr.h.pop()
		used++
		for _, e := range kg.out(u) {
			if e.to > reach {
				continue
			}
			w := long[u] + e.w
			if long[e.to] < 0 {
				pr.touched = append(pr.touched, e.to)
				pr.h.push(e.to)
			}
			long[e.to] = max(long[e.to], w)
			switch {
			case u != a:
				two[e.to] = max(two[e.to], w)
			case e.task:
				direct[e.to] = max(direct[e.to], e.w)
			}
		}
	}
	for _, e := range cand {
		if two[e.to] >= e.w || direct[e.to] >= e.w {
			continue
		}
		rows = append(rows, e)
	}
	for _, u := range pr.touched {
		long[u], two[u], direct[u] = -1, -1, -1
	}
	return rows, used
}

// fill sets the time of every event that is not key as soon as its
// predecessors allow, from the key events' times in t: each such time
// then meets every row into and out of it, because the rows between key
// events are the longest paths through them.
func (g *eventGraph) fill(key []bool, t []float64) {
	for u := range g.n {
		if !key[u] {
			t[u] = math.Inf(-1)
		}
	}
	for u := int32(0); u < int32(g.n); u++ {
		for _, e := range g.out(u) {
			if !key[e.to] {
				t[e.to] = math.Max(t[e.to], t[u]+e.w)
			}
		}
	}
}

// eventGraphOf returns newEventGraph(n, chained, msgs) for the edges msgs
// that messageEdges(ms, nil, event, false, key, &msgs) writes, and the
// messages that function returns (against the event order, their events
// marked key), in one pass over ms and without the list msgs between:
// the engine LP's full graph (lazyRows) has millions of messages.
func eventGraphOf(n int, chained []bool, ms []Message, event []int, key []bool) (g *eventGraph, back []int32) {
	g = &eventGraph{n: n, start: make([]int32, n+1)}
	// kept says whether message i makes an edge: messageEdges' tests,
	// where only a message within one event is implied by the chain.
	kept := func(i int) (a, b int32, ok bool) {
		m := &ms[i]
		a, b = int32(event[m.Src]), int32(event[m.Dst])
		return a, b, b > a
	}
	chainFrom := make([]bool, n) // the event has a chain edge (first among its edges)
	prev := int32(-1)
	for e := range int32(n) {
		if chained != nil && !chained[e] {
			continue
		}
		if prev >= 0 {
			chainFrom[prev] = true
			g.start[prev+1]++
		}
		prev = e
	}
	for i := range ms {
		a, b, ok := kept(i)
		switch {
		case ok:
			g.start[a+1]++
		case b < a || ms[i].Time > 0:
			key[a], key[b] = true, true
			back = append(back, int32(i))
		}
	}
	for e := range n {
		g.start[e+1] += g.start[e]
	}
	edges := make([]fixedEdge, g.start[n])
	next := slices.Clone(g.start[:n])
	prev = -1
	for e := range int32(n) {
		if chained != nil && !chained[e] {
			continue
		}
		if prev >= 0 {
			edges[next[prev]] = fixedEdge{from: prev, to: e}
			next[prev]++
		}
		prev = e
	}
	for i := range ms {
		if a, b, ok := kept(i); ok {
			edges[next[a]] = fixedEdge{from: a, to: b, w: ms[i].Time}
			next[a]++
		}
	}
	// One edge per pair of events among each tail's messages, in the
	// place of the pair's first, with the longest length.
	var at map[int32]int32 // head → place, for a tail of many edges
	out := int32(0)
	for e := range int32(n) {
		lo, hi := g.start[e], g.start[e+1]
		g.start[e] = out
		if chainFrom[e] {
			edges[out] = edges[lo]
			out++
			lo++
		}
		first := out
		if hi-lo > 16 {
			at = make(map[int32]int32, hi-lo)
		}
		for j := lo; j < hi; j++ {
			x := edges[j]
			dup := int32(-1)
			if hi-lo <= 16 {
				for k := first; k < out; k++ {
					if edges[k].to == x.to {
						dup = k
						break
					}
				}
			} else if k, ok := at[x.to]; ok {
				dup = k
			} else {
				at[x.to] = out
			}
			if dup >= 0 {
				edges[dup].w = math.Max(edges[dup].w, x.w)
				continue
			}
			edges[out] = x
			out++
		}
	}
	g.start[n] = out
	g.edges = edges[:out]
	return g, back
}
