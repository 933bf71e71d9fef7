package energy

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/capsim/capsim/optimize/bound"
)

// relayed splits about half of d's messages at a new vertex that no task
// or load names (a network event of the engine LP), in two of random
// lengths summing to the message's, and adds messages between relays.
func relayed(rng *rand.Rand, d *bound.DAG) {
	var relays []bound.Message
	for i := range d.Messages {
		m := &d.Messages[i]
		if rng.Intn(2) == 0 {
			continue
		}
		v := d.Vertices
		d.Vertices++
		part := m.Time * rng.Float64()
		relays = append(relays, bound.Message{Src: v, Dst: m.Dst, Time: m.Time - part})
		m.Dst, m.Time = v, part
	}
	d.Messages = append(d.Messages, relays...)
}

// TestReducedOrderAgrees checks that eliminating the events that only
// pass precedence on (ReduceOrder) keeps the frontier: the same least
// energy at every deadline and least makespan for every budget as the LP
// over every event, and schedules whose vertex times keep every message;
// both with the rows ReduceOrder's searches find and with searches of no
// event, whose LP lacks every row until its solutions break them
// (settle).
func TestReducedOrderAgrees(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	reduced, lazy := 0, 0
	for n := range 40 {
		d := randomDAG(rng, 4, 4, 3)
		relayed(rng, d)
		o, err := bound.InitialOrder(d)
		if err != nil {
			t.Fatal(err)
		}
		if n%2 == 1 {
			chainPower(d, o)
		}
		full := newFrontier(t, d, o, Options{BaseW: 5, noReduce: true})
		pts, err := full.Curve(5)
		if err != nil {
			t.Fatal(err)
		}
		for _, visits := range []int{0, -1} {
			name := fmt.Sprintf("dag %d, searches of %d events", n, max(visits, 0))
			red := newFrontier(t, d, o, Options{BaseW: 5, visits: visits})
			if red.nkey < full.nkey && visits == 0 {
				reduced++
			}
			if !near(red.Fastest(), full.Fastest()) {
				t.Fatalf("%s: least makespan %g, want %g", name, red.Fastest(), full.Fastest())
			}
			agreeAt(t, name, d, full, red, pts)
			if red.added > 0 {
				lazy++
			}
		}
	}
	if reduced < 20 {
		t.Errorf("%d of 40 DAGs had events eliminated: the test checks too little", reduced)
	}
	if lazy < 20 {
		t.Errorf("%d of 80 reduced LPs had rows added on demand: the test checks too little", lazy)
	}
}

// agreeAt checks red against full at the deadlines of pts and at
// budgets just above their energies.
func agreeAt(t *testing.T, name string, d *bound.DAG, full, red *Frontier, pts []Point) {
	t.Helper()
	for _, p := range pts {
		s, err := red.ScheduleAt(p.Deadline)
		if err != nil {
			t.Fatalf("%s at %g s: %v", name, p.Deadline, err)
		}
		if !near(s.Energy, p.Energy) {
			t.Errorf("%s at %g s: energy %g J, want %g", name, p.Deadline, s.Energy, p.Energy)
		}
		for _, m := range d.Messages {
			if s.Vertex[m.Dst]-s.Vertex[m.Src] < m.Time-1e-6 {
				t.Errorf("%s at %g s: message %d→%d of %g s has %g s", name, p.Deadline, m.Src, m.Dst, m.Time, s.Vertex[m.Dst]-s.Vertex[m.Src])
			}
		}
		b := p.Energy * (1 + 1e-6)
		tf, err1 := full.TimeFor(b)
		tr, err2 := red.TimeFor(b)
		if (err1 == nil) != (err2 == nil) || !near(tr, tf) {
			t.Errorf("%s at budget %g J: makespan %g s (%v), want %g s (%v)", name, b, tr, err2, tf, err1)
		}
	}
}

// TestEarliestIsLeastMakespan checks that the least makespan New takes
// without a cap (the longest path with every task at its fastest,
// bound.KeyRows.Earliest) is the time LP's optimum, over every event and
// over key events with rows found on demand, and that a change of one
// task's fastest time moves it.
func TestEarliestIsLeastMakespan(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for n := range 30 {
		d := randomDAG(rng, 4, 4, 3)
		relayed(rng, d)
		o, err := bound.InitialOrder(d)
		if err != nil {
			t.Fatal(err)
		}
		if n%2 == 1 {
			chainPower(d, o)
		}
		for _, opt := range []Options{{BaseW: 5, noReduce: true, lp: true}, {BaseW: 5, visits: -1, lp: true}, {BaseW: 5, lp: true}} {
			f := newFrontier(t, d, o, opt)
			asap := f.Fastest()
			if err := f.solveFastest(); err != nil {
				t.Fatal(err)
			}
			if !near(asap, f.Fastest()) {
				t.Errorf("dag %d, %+v: longest path %g s, the time LP's least makespan %g s", n, opt, asap, f.Fastest())
			}
		}
	}
}

// TestCrashBasisAgrees checks that the first energy solve from the
// fastest schedule's basis (crashBasis, the primal simplex) gives the
// frontier, the schedules and the budgets' makespans of the LP over every
// event solved from no basis, with the rows ReduceOrder finds and with
// every row found on demand.
func TestCrashBasisAgrees(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	crashed := 0
	for n := range 30 {
		d := randomDAG(rng, 4, 4, 3)
		relayed(rng, d)
		o, err := bound.InitialOrder(d)
		if err != nil {
			t.Fatal(err)
		}
		if n%2 == 1 {
			chainPower(d, o)
		}
		full := newFrontier(t, d, o, Options{BaseW: 5, noReduce: true})
		pts, err := full.Curve(5)
		if err != nil {
			t.Fatal(err)
		}
		for _, opt := range []Options{{BaseW: 5, noReduce: true, crashCols: 1, lp: true}, {BaseW: 5, crashCols: 1, lp: true}, {BaseW: 5, visits: -1, crashCols: 1, lp: true}} {
			f := newFrontier(t, d, o, opt)
			if f.crashBasis() != nil {
				crashed++
			}
			agreeAt(t, fmt.Sprintf("dag %d, %+v", n, opt), d, full, f, pts)
		}
	}
	if crashed < 60 {
		t.Errorf("%d of 90 LPs had a crash basis: the test checks too little", crashed)
	}
}
