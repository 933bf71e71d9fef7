package bound

import (
	"math"
	"math/rand"
	"testing"

	"github.com/capsim/capsim/optimize/frontier"
)

// compactPerEvent is compact as it was first written: the slack on every
// event of the order, the windows scanned event by event. The tests hold
// compact's tree of boundaries to it.
func compactPerEvent(d *DAG, o *Order, b *Bound) {
	if o.Events == 0 {
		return
	}
	for i, t := range d.Tasks {
		if o.Event[t.Src] >= o.Event[t.PowerEnd()] {
			b.Duration[i], b.Power[i] = t.Hull[0].Time, t.Hull[0].Power
		}
	}
	slack := o.Power(d, func(i int) float64 { return b.Power[i] })
	for k := range slack {
		slack[k] = b.CapW - slack[k]
	}
	for i, t := range d.Tasks {
		a, c := o.Event[t.Src], o.Event[t.PowerEnd()]
		h := t.Hull
		if a >= c || b.Power[i] >= h[0].Power || t.OnDevice != nil {
			continue
		}
		least := math.Inf(1)
		for k := a; k < c; k++ {
			least = math.Min(least, slack[k])
		}
		room := least * (1 - 1e-12)
		if !(room > 1e-12) {
			continue
		}
		p := math.Min(h[0].Power, b.Power[i]+room)
		dur := math.Max(h[0].Time, frontier.TimeAt(h, p))
		if dur >= b.Duration[i] {
			continue
		}
		p = frontier.PowerAt(h, dur)
		for k := a; k < c; k++ {
			slack[k] -= p - b.Power[i]
		}
		b.Duration[i], b.Power[i] = dur, p
	}
}

// TestCompactMatchesPerEvent compacts random schedules of random engine
// LPs (with and without constant wait loads) and trace DAGs, at caps from
// below their peak power to above it, with compact and with the per-event
// reference: every duration and power must be the same but for rounding
// (the tree sums its updates in another order than the scan), and
// no event's power may exceed the cap where the schedule's did not. One
// slackTree serves every case, as a Solver's serves its solves.
func TestCompactMatchesPerEvent(t *testing.T) {
	var st slackTree
	compacted := 0
	for seed := int64(1); seed <= 60; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var d *DAG
		var o *Order
		switch seed % 3 {
		case 0:
			d, o, _, _ = randomLP(t, 2*seed) // a trace's DAG
		case 1:
			c := newNetCase(t, rng, 8, WaitPower{})
			d, o = c.n.DAG, c.n.Order
		default:
			c := newNetCase(t, rng, 8, WaitPower{Constant: true, W: float64(5 + rng.Intn(20))})
			d, o = c.n.DAG, c.n.Order
		}
		for trial := range 4 {
			b := &Bound{Duration: make([]float64, len(d.Tasks)), Power: make([]float64, len(d.Tasks))}
			for i, task := range d.Tasks {
				h := task.Hull
				b.Power[i] = h[len(h)-1].Power + rng.Float64()*(h[0].Power-h[len(h)-1].Power)
				if rng.Intn(4) == 0 {
					b.Power[i] = h[len(h)-1].Power
				}
				b.Duration[i] = frontier.TimeAt(h, b.Power[i])
			}
			peak := 0.0
			for _, w := range o.Power(d, func(i int) float64 { return b.Power[i] }) {
				peak = math.Max(peak, w)
			}
			b.CapW = peak * (0.9 + 0.1*float64(trial))
			want := &Bound{CapW: b.CapW, Duration: append([]float64(nil), b.Duration...), Power: append([]float64(nil), b.Power...)}
			compactPerEvent(d, o, want)
			before := append([]float64(nil), b.Power...)
			compact(d, o, b, &st)
			for i := range d.Tasks {
				if !ulps(b.Duration[i], want.Duration[i]) || !ulps(b.Power[i], want.Power[i]) {
					t.Fatalf("seed %d trial %d task %d: compact gives %v s at %v W, per event %v s at %v W",
						seed, trial, i, b.Duration[i], b.Power[i], want.Duration[i], want.Power[i])
				}
				if b.Power[i] != before[i] {
					compacted++
				}
			}
			if b.CapW >= peak {
				for k, w := range o.Power(d, func(i int) float64 { return b.Power[i] }) {
					if w > b.CapW*(1+1e-9) {
						t.Fatalf("seed %d trial %d: event %d draws %v W over the cap %v W", seed, trial, k, w, b.CapW)
					}
				}
			}
		}
	}
	if compacted < 100 {
		t.Errorf("only %d tasks were sped up over every case: the test does not exercise compact", compacted)
	}
}

// ulps reports whether x and y agree to 1e-12 relative: a few ulps, the
// tree's and the scan's rounding.
func ulps(x, y float64) bool { return math.Abs(x-y) <= 1e-12*math.Max(math.Abs(x), math.Abs(y)) }
