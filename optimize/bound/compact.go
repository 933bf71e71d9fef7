package bound

import (
	"math"
	"math/bits"
	"slices"

	"github.com/capsim/capsim/optimize/frontier"
)

// compact runs every task of an optimal schedule as fast as the power left
// at its events allows, in task order, keeping the vertex times: each
// task only gets shorter within its window and each event's power stays
// within the cap, so the schedule stays feasible and optimal. LP optima
// are degenerate (the objective ignores tasks off the critical path,
// Bailey et al., SC'15, Fig. 4), and an interior-point solution slows those tasks arbitrarily;
// compacting makes the schedule canonical and keeps its as-soon-as-possible
// replay from turning slowed tasks critical.
//
// st holds the slack to the cap as tasks speed up (a Solver's slackTree,
// which keeps its buffers between calls).
func compact(d *DAG, o *Order, b *Bound, st taskSlack) {
	K := o.Events
	if K == 0 {
		return
	}
	for i, t := range d.Tasks {
		if o.Event[t.Src] >= o.Event[t.PowerEnd()] {
			b.Duration[i], b.Power[i] = t.Hull[0].Time, t.Hull[0].Power // never active
		}
	}
	// The slack to the cap, on the events where some power starts or ends.
	st.init(d, o, b)
	for i, t := range d.Tasks {
		a, c := o.Event[t.Src], o.Event[t.PowerEnd()]
		h := t.Hull
		if a >= c || b.Power[i] >= h[0].Power {
			continue
		}
		if t.OnDevice != nil {
			continue // a faster mix may take more device time than its stretch has
		}
		room := st.min(i, a, c) * (1 - 1e-12)
		if !(room > 1e-12) {
			continue
		}
		p := math.Min(h[0].Power, b.Power[i]+room)
		dur := math.Max(h[0].Time, frontier.TimeAt(h, p))
		if dur >= b.Duration[i] {
			continue
		}
		p = frontier.PowerAt(h, dur)
		st.add(i, a, c, -(p - b.Power[i]))
		b.Duration[i], b.Power[i] = dur, p
	}
}

// taskSlack is the slack to the cap that task i's power counts against
// over the events a ≤ k < c: the job's (jobSlack) or its node's
// (nodeSlack).
type taskSlack interface {
	init(d *DAG, o *Order, b *Bound)
	min(i, a, c int) float64
	add(i, a, c int, v float64)
}

// jobSlack is the job's slack for every task.
type jobSlack struct{ slackIndex }

func (j jobSlack) min(_, a, c int) float64    { return j.slackIndex.min(a, c) }
func (j jobSlack) add(_, a, c int, v float64) { j.slackIndex.add(a, c, v) }

// slackIndex is the slack of a schedule to its cap over the events of an
// order, as compact reads and lowers it: init sets it from b's powers,
// min returns the least slack on the events a ≤ k < c and add adds v
// there, where a and c are events at which some task's or load's power
// starts or ends.
type slackIndex interface {
	init(d *DAG, o *Order, b *Bound)
	min(a, c int) float64
	add(a, c int, v float64)
}

// slackTree is the slack of a schedule to its cap over the events of an
// order, kept on the events where a task's or a load's power starts or
// ends (the boundaries): the power is constant from one boundary to the
// next, and every window compact asks about starts and ends at one, so a
// window's least slack is the least over the boundaries in it. That makes
// the tree two entries a task where one an event took 64 bytes an event
// (570 MB at 10^5 tasks, kept in each solver), with the same values: the
// power at a boundary is the same sum as Order.Power's, the same deltas
// added in the same order (the events between add zero).
type slackTree struct {
	// keep, when set, counts only the tasks and loads of the ranks it
	// keeps (a node's, nodeSlack).
	keep func(rank int) bool
	mark []uint64 // a bit per event: a boundary
	bnd  []int    // the boundaries, ascending
	d    []float64
	t    minTree
}

// init sets st to the slack of b's powers to b.CapW on o's events.
// counts reports whether the tree counts the tasks and loads of rank
// (keep).
func (st *slackTree) counts(rank int) bool { return st.keep == nil || st.keep(rank) }

func (st *slackTree) init(d *DAG, o *Order, b *Bound) {
	w := (o.Events + 1 + 63) / 64
	if cap(st.mark) < w {
		st.mark = make([]uint64, w)
	}
	st.mark = st.mark[:w]
	clear(st.mark)
	set := func(k int) { st.mark[k>>6] |= 1 << (k & 63) }
	for i := range d.Tasks {
		t := &d.Tasks[i]
		if !st.counts(t.Rank) {
			continue
		}
		if a, c := o.Event[t.Src], o.Event[t.PowerEnd()]; a < c {
			set(a)
			set(c)
		}
	}
	for _, l := range d.Loads {
		if !st.counts(l.Rank) {
			continue
		}
		if a, c := o.Event[l.Src], o.Event[l.Dst]; a < c {
			set(a)
			set(c)
		}
	}
	st.bnd = st.bnd[:0]
	for i, m := range st.mark {
		for m != 0 {
			st.bnd = append(st.bnd, i<<6+bits.TrailingZeros64(m))
			m &= m - 1
		}
	}
	n := len(st.bnd)
	if cap(st.d) < n {
		st.d = make([]float64, n)
	}
	st.d = st.d[:n]
	clear(st.d)
	// As Order.Power: the deltas in task order, then the loads', then
	// their running sum.
	for i := range d.Tasks {
		t := &d.Tasks[i]
		if !st.counts(t.Rank) {
			continue
		}
		if a, c := o.Event[t.Src], o.Event[t.PowerEnd()]; a < c {
			st.d[st.at(a)] += b.Power[i]
			st.d[st.at(c)] -= b.Power[i]
		}
	}
	for _, l := range d.Loads {
		if !st.counts(l.Rank) {
			continue
		}
		if a, c := o.Event[l.Src], o.Event[l.Dst]; a < c {
			st.d[st.at(a)] += l.W
			st.d[st.at(c)] -= l.W
		}
	}
	for j := 1; j < n; j++ {
		st.d[j] += st.d[j-1]
	}
	for j := range st.d {
		st.d[j] = b.CapW - st.d[j]
	}
	st.t.init(st.d)
}

// at is the index of boundary k.
func (st *slackTree) at(k int) int {
	j, _ := slices.BinarySearch(st.bnd, k)
	return j
}

// min returns the least slack on the events a ≤ k < c, boundaries both.
func (st *slackTree) min(a, c int) float64 { return st.t.min(st.at(a), st.at(c)) }

// add adds v to the slack on the events a ≤ k < c, boundaries both.
func (st *slackTree) add(a, c int, v float64) { st.t.add(st.at(a), st.at(c), v) }

// minTree is a segment tree with range add and range minimum.
type minTree struct {
	n        int
	mn, lazy []float64
}

// init sets the tree to the values v, reusing its buffers. An empty v
// (a schedule without powered tasks: a trace of messages only) gives an
// empty tree whose min is +Inf and whose add does nothing.
func (t *minTree) init(v []float64) {
	t.n = len(v)
	if t.n == 0 {
		return
	}
	if cap(t.mn) < 4*t.n {
		t.mn, t.lazy = make([]float64, 4*t.n), make([]float64, 4*t.n)
	}
	t.mn, t.lazy = t.mn[:4*t.n], t.lazy[:4*t.n]
	clear(t.lazy)
	t.build(1, 0, t.n, v)
}

func (t *minTree) build(x, lo, hi int, v []float64) {
	if hi-lo == 1 {
		t.mn[x] = v[lo]
		return
	}
	mid := (lo + hi) / 2
	t.build(2*x, lo, mid, v)
	t.build(2*x+1, mid, hi, v)
	t.mn[x] = math.Min(t.mn[2*x], t.mn[2*x+1])
}

// min returns the least value in [a, b).
func (t *minTree) min(a, b int) float64 { return t.query(1, 0, t.n, a, b) }

func (t *minTree) query(x, lo, hi, a, b int) float64 {
	if b <= lo || hi <= a {
		return math.Inf(1)
	}
	if a <= lo && hi <= b {
		return t.mn[x]
	}
	mid := (lo + hi) / 2
	return t.lazy[x] + math.Min(t.query(2*x, lo, mid, a, b), t.query(2*x+1, mid, hi, a, b))
}

// add adds v to [a, b).
func (t *minTree) add(a, b int, v float64) { t.update(1, 0, t.n, a, b, v) }

func (t *minTree) update(x, lo, hi, a, b int, v float64) {
	if b <= lo || hi <= a {
		return
	}
	if a <= lo && hi <= b {
		t.mn[x] += v
		t.lazy[x] += v
		return
	}
	mid := (lo + hi) / 2
	t.update(2*x, lo, mid, a, b, v)
	t.update(2*x+1, mid, hi, a, b, v)
	t.mn[x] = t.lazy[x] + math.Min(t.mn[2*x], t.mn[2*x+1])
}
