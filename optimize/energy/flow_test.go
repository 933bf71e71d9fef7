package energy

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
)

// relNear is equality within 10⁻⁹ relative (the flow's energies against
// CLP's, exact to its tolerances).
func relNear(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// flowCase is one DAG and order the flow and CLP both solve.
type flowCase struct {
	name string
	d    *bound.DAG
	o    *bound.Order
	opt  Options
}

// flowCases are random DAGs (messages relayed through events that only
// pass precedence on, every other one with only its power events
// chained, some with searches of no event), the worked example and the
// Perseus comparison's 1F1B pipeline.
func flowCases(t *testing.T) []flowCase {
	t.Helper()
	rng := rand.New(rand.NewSource(35))
	var cs []flowCase
	for n := range 60 {
		d := randomDAG(rng, 2+rng.Intn(4), 2+rng.Intn(5), 1+rng.Intn(4))
		if n%3 != 0 {
			relayed(rng, d)
		}
		o, err := bound.InitialOrder(d)
		if err != nil {
			t.Fatal(err)
		}
		if n%2 == 1 {
			chainPower(d, o)
		}
		opt := Options{BaseW: float64(rng.Intn(40))}
		if n%4 == 3 {
			opt.visits = -1
		}
		cs = append(cs, flowCase{fmt.Sprintf("dag %d", n), d, o, opt})
	}
	d, o := worked(t)
	cs = append(cs, flowCase{"worked example", d, o, Options{BaseW: 10}})
	curve := func(stage int, back bool) []frontier.Config {
		u := 20.0
		if back {
			u *= 2
		}
		return gpuCurve(u*(1+0.1*float64(stage)), 0.8, 90, 210)
	}
	ops, stages := onef1b(4, 8, curve)
	pd, po, err := pipeDAG(ops, stages, 70)
	if err != nil {
		t.Fatal(err)
	}
	// Its stages' orders run against the event order in places (the
	// least makespan is then CLP's time LP's).
	ref := newFrontier(t, pd, po, Options{BaseW: 30, lp: true})
	cs = append(cs, flowCase{"1F1B pipeline", pd, po, Options{BaseW: 30, LeastMakespan: ref.Fastest()}})
	ref.Close()
	return cs
}

// TestFlowAgreesWithLP checks the minimum-cost flow against CLP's LP on
// every case: the same least makespan, least energy and its deadline,
// the same least energy at deadlines across the frontier and beyond (10⁻⁹
// relative), schedules that meet every row of the full event graph, every
// task's duration and the deadline, whose energy is the frontier's, and
// the same least makespans for budgets.
func TestFlowAgreesWithLP(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	worst := 0.0
	for _, c := range flowCases(t) {
		f := newFrontier(t, c.d, c.o, c.opt)
		lpOpt := c.opt
		lpOpt.lp = true
		ref := newFrontier(t, c.d, c.o, lpOpt)
		if f.nw == nil {
			t.Fatalf("%s: no flow", c.name)
		}
		if !relNear(f.Fastest(), ref.Fastest()) {
			t.Errorf("%s: least makespan %g s, CLP's %g s", c.name, f.Fastest(), ref.Fastest())
		}
		slow, least, err := f.Slowest()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		// CLP's least energy at no deadline is unbounded columns within
		// its tolerances (5·10⁻⁹ below, or unbounded): compare at the
		// deadline found, and that deadline with CLP's where it has one.
		rleast, err := ref.EnergyAt(slow * 1.5)
		if err != nil {
			t.Fatalf("%s: CLP at %g s: %v", c.name, slow, err)
		}
		if !relNear(least, rleast) {
			t.Errorf("%s: least energy %.12g J by %.12g s, CLP's there %.12g J", c.name, least, slow, rleast)
		}
		if rslow, _, err := ref.Slowest(); err == nil && !near(slow, rslow) {
			t.Errorf("%s: least energy by %.12g s, CLP's by %.12g s", c.name, slow, rslow)
		}
		for j := range 9 {
			T := f.Fastest() + (slow-f.Fastest())*float64(j)/8*1.1
			s, err := f.ScheduleAt(T)
			if err != nil {
				t.Fatalf("%s at %g s: %v", c.name, T, err)
			}
			want, err := ref.EnergyAt(T)
			if err != nil {
				t.Fatalf("%s at %g s: CLP: %v", c.name, T, err)
			}
			worst = math.Max(worst, math.Abs(s.Energy-want)/want)
			if !relNear(s.Energy, want) {
				t.Errorf("%s at %g s: energy %.15g J, CLP's %.15g J", c.name, T, s.Energy, want)
			}
			if err := feasible(f, s, c.opt.BaseW); err != nil {
				t.Errorf("%s at %g s: %v", c.name, T, err)
			}
			b := want + (rleast-want)*0.3 + 1e-6*f.Scale()
			tf, err1 := f.TimeFor(b)
			tr, err2 := ref.TimeFor(b)
			if (err1 == nil) != (err2 == nil) || !near(tf, tr) {
				t.Errorf("%s at budget %g J: makespan %g s (%v), CLP's %g s (%v)", c.name, b, tf, err1, tr, err2)
			}
		}
		ref.Close()
	}
	t.Logf("largest difference from CLP's energies: %.2g relative", worst)
}

// feasible checks schedule s of f: every row of the full event graph
// (KeyRows.Check), every task's duration within its gap and at least its
// fastest, the makespan by the deadline, and its energy recomputed from
// the vertex times and the tasks' mixes.
func feasible(f *Frontier, s *Schedule, baseW float64) error {
	d, o := f.d, f.o
	tol := 1e-9 * f.Fastest()
	if s.Makespan > s.Deadline+tol || s.Vertex[d.Fin] > s.Deadline+tol {
		return fmt.Errorf("makespan %g s past the deadline %g s", s.Makespan, s.Deadline)
	}
	t := make([]float64, o.Events)
	for v, e := range o.Event {
		t[e] = s.Vertex[v]
	}
	if n := len(f.keys.Check(t, tol)); n > 0 {
		return fmt.Errorf("the schedule breaks %d rows of the event graph", n)
	}
	e := baseW * s.Vertex[d.Fin]
	for i := range d.Tasks {
		tk, c := &d.Tasks[i], s.Tasks[i]
		if gap := s.Vertex[tk.Dst] - s.Vertex[tk.Src]; c.Time > gap+tol || c.Time < tk.Hull[0].Time-tol {
			return fmt.Errorf("task %d takes %g s in a gap of %g s (fastest %g s)", i, c.Time, gap, tk.Hull[0].Time)
		}
		w := tk.Hull[len(tk.Hull)-1].Power
		e += c.Time*c.Power + w*(s.Vertex[tk.PowerEnd()]-s.Vertex[tk.Src]-c.Time)
	}
	for _, l := range d.Loads {
		e += l.W * (s.Vertex[l.Dst] - s.Vertex[l.Src])
	}
	if !relNear(e, s.Energy) {
		return fmt.Errorf("energy of the schedule %.15g J, the frontier's %.15g J", e, s.Energy)
	}
	return nil
}

// TestFlowDeterministic checks that two frontiers of one DAG give the
// same bits.
func TestFlowDeterministic(t *testing.T) {
	c := flowCases(t)[7]
	var got [2][]Point
	for k := range got {
		f := newFrontier(t, c.d, c.o, c.opt)
		pts, err := f.Curve(7)
		if err != nil {
			t.Fatal(err)
		}
		got[k] = pts
	}
	for j := range got[0] {
		if got[0][j] != got[1][j] {
			t.Fatalf("point %d: %+v, then %+v", j, got[0][j], got[1][j])
		}
	}
}

// BenchmarkFlowDeadlines solves the frontier of a random DAG of 640 tasks
// at deadlines that alternate between two, from the last tree each time.
func BenchmarkFlowDeadlines(b *testing.B) {
	rng := rand.New(rand.NewSource(3))
	d := randomDAG(rng, 16, 40, 4)
	relayed(rng, d)
	o, err := bound.InitialOrder(d)
	if err != nil {
		b.Fatal(err)
	}
	f, err := New(d, o, Options{BaseW: 20})
	if err != nil {
		b.Fatal(err)
	}
	slow, _, err := f.Slowest()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		T := f.Fastest() + (slow-f.Fastest())*float64(1+i%2)/3
		if _, err := f.EnergyAt(T); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(f.Stats().Pivots)/float64(b.N), "pivots/op")
}
