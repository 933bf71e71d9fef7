package bound

import "math"

// Cuts (Options.CutTasks). The engine LP is one block: under the default
// wait power a rank's power runs from each task to its next, so power
// intervals tile every rank's time and no event is free of them (the LP
// cannot split at separators, see Solver). For a large trace the Solver
// instead solves a relaxation that splits: at cut events, events where no
// task runs (every rank is between two tasks: the last rank's entry into
// a collective over all ranks), it drops every row that passes a cut and
// ends every power interval and load that passes one at the cut. Each
// dropped row and each shortened interval only loosens the LP, so its
// optimum is still at most that of the full LP, a bound, whichever events
// are cut; the cuts are then separators and the LP splits into a block
// per stretch, whose lengths add up.
//
// What the relaxation loses is the precedence of the rows sent before a
// cut and received after it, and the wait power drawn after a cut until
// the rank's next task. Where no task runs, messages can still be in
// flight: on a stencil of 64 ranks exchanging 256 KiB halos, nearly every
// event where no task runs has a rendezvous transfer of 1.57 ms under way
// that the next step waits for, and cutting at each lost 31 % of the
// bound. So the cuts are chosen where the fastest schedule (every task at
// its fastest, as soon as possible: the LP's optimum at any cap that does
// not bind) loses nothing: after cut c the next cut is the first event c'
// that may be cut, lies on a longest path to the last event, and to which
// the longest path from c through the block's own rows and tasks is the
// fastest schedule's time from c to c', to cutSlack of it (the rows the
// block lacks, those from before c, could only have made it longer).
// Then the relaxation's optimum at a cap that does not bind is the
// fastest schedule's makespan, that of the exact LP, to cutSlack; at a
// binding cap it is still a bound (any cut events give one), and close to
// the exact LP where the paths that bind are the fastest schedule's. The
// rows the model leaves out (a shared device's, those against the event
// order) only make it cut less.

// cutSlack is the share of its length in the fastest schedule that a
// block between two cuts may lose to the rows its first cut drops.
const cutSlack = 1e-3

// cutLongest is how many tasks a block may hold (or 4 times Options.
// CutTasks, if more) before, with no cut that loses nothing in sight, the
// least lossy one since its start is taken: it keeps blocks small on a
// trace whose every event where no task runs has a critical row in
// flight.
const cutLongest = 2048

// cutEvents returns the events at which the LP of d under o is cut: key
// events where power changes, at which no task runs (from its start to
// its end) and no row against the event order passes, at least every
// tasks apart, and where the fastest schedule loses nothing (see above;
// every such event, lossy or not, when all is set). g is the event graph
// of d's messages and the chain, tasks the tasks at their fastest.
func cutEvents(d *DAG, o *Order, g *eventGraph, tasks []fixedEdge, key []bool, back []Message, every int, all bool) []bool {
	K := o.Events
	cover := make([]int32, K+1)
	span := func(a, b int) {
		if b > a+1 {
			cover[a+1]++
			cover[b]--
		}
	}
	starts := make([]int32, K)
	for i := range d.Tasks {
		t := &d.Tasks[i]
		span(o.Event[t.Src], o.Event[t.Dst])
		starts[o.Event[t.Src]]++
	}
	for _, m := range back {
		a, b := o.Event[m.Src], o.Event[m.Dst]
		span(min(a, b)-1, max(a, b)+1)
	}
	can := make([]bool, K)
	var run int32
	for k := 0; k < K-1; k++ {
		run += cover[k]
		can[k] = k > 0 && run == 0 && key[k] && o.Chained[k]
	}
	cut := make([]bool, K)
	if all {
		var since int32
		for k := 0; k < K-1; k++ {
			if can[k] && since >= int32(every) {
				cut[k] = true
				since = 0
			}
			since += starts[k]
		}
		return cut
	}
	f := newFastPaths(d, o, g, tasks, key)
	f.pick(cut, can, starts, every)
	return cut
}

// fastPaths measures, from an event c, the longest paths to later events
// through the rows of events from c on and the tasks at their fastest:
// the fastest schedule of the block that starts at a cut at c.
type fastPaths struct {
	g      *eventGraph
	key    []bool      // the events with a time column
	tstart []int32     // tasks by tail: task[tstart[e]:tstart[e+1]]
	task   []fixedEdge // tasks at their fastest, sorted by tail
	t      []float64   // per event, the fastest schedule's time
	slack  []float64   // per event, how much later it could be without delaying the last
	dist   []float64   // per event, its longest path from the origin…
	gen    []int32     // …when gen matches the origin's, 0 otherwise
	cur    int32
}

func newFastPaths(d *DAG, o *Order, g *eventGraph, tasks []fixedEdge, key []bool) *fastPaths {
	K := o.Events
	f := &fastPaths{g: g, key: key, tstart: make([]int32, K+1), task: make([]fixedEdge, len(tasks)),
		t: make([]float64, K), dist: make([]float64, K), gen: make([]int32, K)}
	for v, e := range o.Event {
		f.t[e] = math.Max(f.t[e], o.Times[v])
	}
	for _, r := range tasks {
		f.tstart[r.from+1]++
	}
	for e := range K {
		f.tstart[e+1] += f.tstart[e]
	}
	next := append([]int32(nil), f.tstart[:K]...)
	for _, r := range tasks {
		f.task[next[r.from]] = r
		next[r.from]++
	}
	// Latest times: each event as late as its rows and tasks allow
	// before the last event's time; edges go forward in event order.
	f.slack = make([]float64, K)
	late := f.slack
	for u := K - 1; u >= 0; u-- {
		l := f.t[K-1]
		for _, r := range g.out(int32(u)) {
			l = math.Min(l, late[r.to]-r.w)
		}
		for _, r := range f.task[f.tstart[u]:f.tstart[u+1]] {
			l = math.Min(l, late[r.to]-r.w)
		}
		late[u] = l
	}
	for u := range K {
		f.slack[u] = math.Max(late[u]-f.t[u], 0)
	}
	return f
}

// restart makes the next event the origin: until reached, every later
// key event is at distance 0 (a block's time columns start at its first
// event) and every other event unbounded (the block has no row from
// before its first event, and no column for the event).
func (f *fastPaths) restart() { f.cur++ }

// at returns event u's distance from the origin.
func (f *fastPaths) at(u int) float64 {
	switch {
	case f.gen[u] == f.cur:
		return f.dist[u]
	case f.key[u]:
		return 0
	}
	return math.Inf(-1)
}

// push relaxes the rows and tasks out of u, at distance du.
func (f *fastPaths) push(u int, du float64) {
	if math.IsInf(du, -1) {
		return
	}
	relax := func(r fixedEdge) {
		v := int(r.to)
		if x := du + r.w; x > f.at(v) {
			f.dist[v], f.gen[v] = x, f.cur
		}
	}
	for _, r := range f.g.out(int32(u)) {
		relax(r)
	}
	for _, r := range f.task[f.tstart[u]:f.tstart[u+1]] {
		relax(r)
	}
}

// loss is what a block from origin c to event u loses against the
// fastest schedule, u's distance known.
func (f *fastPaths) loss(c, u int) float64 {
	return f.t[u] - f.t[c] - f.at(u)
}

// lossless reports whether a block from c to u loses at most cutSlack of
// its length.
func (f *fastPaths) lossless(c, u int) bool {
	return f.loss(c, u) <= cutSlack*(f.t[u]-f.t[c])
}

// critical reports whether u is on a longest path to the last event, to
// cutSlack of the time left: a cut there leaves a block after it that
// can lose nothing.
func (f *fastPaths) critical(u int) bool {
	return f.slack[u] <= cutSlack*(f.t[len(f.t)-1]-f.t[u])
}

// pick marks in cut the events where the LP is cut: in one pass over the
// events, from each cut the first event of can at least every tasks on
// (starts: the tasks that start at each event) whose block loses
// nothing; past cutLongest tasks with none, the least lossy one seen. A
// last block that loses merges with the blocks before it while they hold
// under cutLongest tasks.
func (f *fastPaths) pick(cut, can []bool, starts []int32, every int) {
	K := len(cut)
	longest := max(int64(cutLongest), 4*int64(every))
	var cuts []int // the cuts so far, after event 0
	c, best, bestLoss := 0, -1, math.Inf(1)
	var since int64
	f.restart()
	for u := 0; u < K-1; u++ {
		du := f.at(u)
		if u > c && can[u] && since >= int64(every) {
			switch l := f.loss(c, u) + f.slack[u]; {
			case f.critical(u) && f.lossless(c, u):
				cut[u], c, best, bestLoss, since, du = true, u, -1, math.Inf(1), 0, 0
				cuts = append(cuts, u)
				f.restart()
			case l < bestLoss:
				best, bestLoss = u, l
			}
		}
		if best >= 0 && since >= longest {
			// No lossless cut in sight: take the least lossy one and
			// go on from it.
			cut[best], c, u, since = true, best, best-1, 0
			cuts = append(cuts, best)
			best, bestLoss = -1, math.Inf(1)
			f.restart()
			continue
		}
		f.push(u, du)
		since += int64(starts[u])
	}
	// The last block, to event K−1: while it loses, fold it into the
	// block before it.
	var tail int64 = since
	for len(cuts) > 0 && !f.lossless(c, K-1) {
		prev := 0
		if len(cuts) > 1 {
			prev = cuts[len(cuts)-2]
		}
		var more int64
		for u := prev; u < c; u++ {
			more += int64(starts[u])
		}
		if tail+more > longest {
			break
		}
		tail += more
		cut[c] = false
		cuts = cuts[:len(cuts)-1]
		c = prev
		f.restart()
		for u := c; u < K-1; u++ {
			f.push(u, f.at(u))
		}
	}
}
