package bound

import (
	"math"
	"math/rand"
	"testing"

	"github.com/capsim/capsim/optimize/frontier"
)

// perEvent is compact's slack as it was first written: a value on every
// event of the order, windows scanned event by event. The tests hold
// slackTree, its tree of boundaries, to it.
type perEvent struct{ slack []float64 }

func (p *perEvent) init(d *DAG, o *Order, b *Bound) {
	p.slack = o.Power(d, func(i int) float64 { return b.Power[i] })
	for k := range p.slack {
		p.slack[k] = b.CapW - p.slack[k]
	}
}

func (p *perEvent) min(a, c int) float64 {
	least := math.Inf(1)
	for k := a; k < c; k++ {
		least = math.Min(least, p.slack[k])
	}
	return least
}

func (p *perEvent) add(a, c int, v float64) {
	for k := a; k < c; k++ {
		p.slack[k] += v
	}
}

// TestCompactMatchesPerEvent compacts random schedules of random engine
// LPs (with and without constant wait loads) and trace DAGs, at caps from
// below their peak power to above it, on the tree of boundaries and on the
// per-event slack: every duration and power must be the same but for rounding
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
			compact(d, o, want, jobSlack{&perEvent{}})
			before := append([]float64(nil), b.Power...)
			compact(d, o, b, jobSlack{&st})
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
