package bound

import (
	"math"

	"github.com/capsim/capsim/optimize/frontier"
)

// compact runs every task of an optimal schedule as fast as the power left
// at its events allows, in task order, keeping the vertex times: each
// task only gets shorter within its window and each event's power stays
// within the cap, so the schedule stays feasible and optimal. LP optima
// are degenerate (the objective ignores tasks off the critical path, note
// 003 §2.7), and an interior-point solution slows those tasks arbitrarily;
// compacting makes the schedule canonical and keeps its as-soon-as-possible
// replay from turning slowed tasks critical.
func compact(d *DAG, o *Order, b *Bound, st *minTree) {
	K := o.Events
	if K == 0 {
		return
	}
	for i, t := range d.Tasks {
		if o.Event[t.Src] >= o.Event[t.PowerEnd()] {
			b.Duration[i], b.Power[i] = t.Hull[0].Time, t.Hull[0].Power // never active
		}
	}
	// Event powers, then the slack to the cap.
	slack := o.Power(d, func(i int) float64 { return b.Power[i] })
	for k := range slack {
		slack[k] = b.CapW - slack[k]
	}
	st.init(slack)
	for i, t := range d.Tasks {
		a, c := o.Event[t.Src], o.Event[t.PowerEnd()]
		h := t.Hull
		if a >= c || b.Power[i] >= h[0].Power {
			continue
		}
		if t.OnDevice != nil {
			continue // a faster mix may take more device time than its stretch has
		}
		room := st.min(a, c) * (1 - 1e-12)
		if !(room > 1e-12) {
			continue
		}
		p := math.Min(h[0].Power, b.Power[i]+room)
		dur := math.Max(h[0].Time, frontier.TimeAt(h, p))
		if dur >= b.Duration[i] {
			continue
		}
		p = frontier.PowerAt(h, dur)
		st.add(a, c, -(p - b.Power[i]))
		b.Duration[i], b.Power[i] = dur, p
	}
}

// minTree is a segment tree with range add and range minimum.
type minTree struct {
	n        int
	mn, lazy []float64
}

// init sets the tree to the values v, reusing its buffers.
func (t *minTree) init(v []float64) {
	t.n = len(v)
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
