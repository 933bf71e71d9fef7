package energy

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
)

// worked is the example of docs/design/frontier.md: two ranks, one task
// each, two P-states each, no messages, base power 10 W.
//
//	task A: 1 s at 100 W (100 J) or 2 s at 40 W (80 J)
//	task B: 1 s at 100 W (100 J) or 3 s at 20 W (60 J)
func worked(t *testing.T) (*bound.DAG, *bound.Order) {
	t.Helper()
	// Vertices: 0 init, 1 fin; A and B both run from init to fin.
	d := &bound.DAG{Vertices: 2, Init: 0, Fin: 1, Tasks: []bound.Task{
		{Rank: 0, Src: 0, Dst: 1, Hull: []frontier.Config{{Time: 1, Power: 100}, {Time: 2, Power: 40}}},
		{Rank: 1, Src: 0, Dst: 1, Hull: []frontier.Config{{Time: 1, Power: 100}, {Time: 3, Power: 20}}},
	}}
	o, err := bound.InitialOrder(d)
	if err != nil {
		t.Fatal(err)
	}
	return d, o
}

func newFrontier(t *testing.T, d *bound.DAG, o *bound.Order, opt Options) *Frontier {
	t.Helper()
	if !clp.Available() {
		t.Skip("built without cgo: no CLP")
	}
	f, err := New(d, o, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

// TestWorkedExample checks the numbers docs/design/frontier.md derives by
// hand.
func TestWorkedExample(t *testing.T) {
	d, o := worked(t)
	f := newFrontier(t, d, o, Options{BaseW: 10})
	// Fastest: both at 1 s; A and B draw 100 J each, base 10 J.
	if !near(f.Fastest(), 1) || !near(f.FastestEnergy(), 210) {
		t.Fatalf("fastest %g s, %g J; want 1 s, 210 J", f.Fastest(), f.FastestEnergy())
	}
	// E = 140 − 60·c_A − 80·c_B + 70·T with d_A = 1 + c_A ≤ T and
	// d_B = 1 + 2·c_B ≤ T (c the slow P-state's fraction): 240 − 30·T on
	// [1, 2], and no deadline past 2 s saves more (A would wait at 40 W).
	for _, c := range []struct{ T, E float64 }{
		{1, 210},
		{1.05, 208.5},
		{1.5, 195},
		{2, 180},
		{3, 180},
		{math.Inf(1), 180},
	} {
		got, err := f.EnergyAt(c.T)
		if err != nil {
			t.Fatal(err)
		}
		if !near(got, c.E) {
			t.Errorf("E(%g s) = %.9g J, want %g J", c.T, got, c.E)
		}
	}
}

func TestWorkedExampleEnds(t *testing.T) {
	d, o := worked(t)
	f := newFrontier(t, d, o, Options{BaseW: 10})
	slow, e, err := f.Slowest()
	if err != nil {
		t.Fatal(err)
	}
	if !near(slow, 2) || !near(e, 180) {
		t.Errorf("slowest %g s at %g J, want 2 s at 180 J", slow, e)
	}
	for _, c := range []struct{ B, T float64 }{{210, 1}, {195, 1.5}, {180, 2}, {1000, 1}} {
		got, err := f.TimeFor(c.B)
		if err != nil {
			t.Fatal(err)
		}
		if !near(got, c.T) {
			t.Errorf("T(%g J) = %.9g s, want %g s", c.B, got, c.T)
		}
	}
	if _, err := f.TimeFor(179); err == nil {
		t.Error("a budget below the least energy: no error")
	}
	if _, err := f.EnergyAt(0.5); err == nil {
		t.Error("a deadline below the least makespan: no error")
	}
	for _, c := range []struct{ s, pct float64 }{{0, 0}, {0.05, 1.5 / 210 * 100}} {
		got, err := f.SavedPct(c.s)
		if err != nil {
			t.Fatal(err)
		}
		if !near(got, c.pct) {
			t.Errorf("saved at %g slowdown: %.9g %%, want %.9g %%", c.s, got, c.pct)
		}
	}
	pts, err := f.Curve(3)
	if err != nil {
		t.Fatal(err)
	}
	want := []Point{{1, 210}, {1.5, 195}, {2, 180}}
	for j := range want {
		if j >= len(pts) || !near(pts[j].Deadline, want[j].Deadline) || !near(pts[j].Energy, want[j].Energy) {
			t.Fatalf("curve %v, want %v", pts, want)
		}
	}
}

// TestCap: under a task-power cap of 120 W (the fastest schedule draws
// 200 W), 1 + c_A ≤ T, 1 + 2c_B ≤ T and 100 − 60c_A + 100 − 80c_B ≤ 120.
// At T = 1.5 the uncapped optimum (c_A = 0.5, c_B = 0.25) draws 150 W, so
// the cap binds; the least makespan solves 200 − 60(T−1) − 40(T−1) = 120:
// T = 1.8, E = 240 − 54 = 186 J.
func TestCap(t *testing.T) {
	d, o := worked(t)
	f := newFrontier(t, d, o, Options{BaseW: 10, CapW: 120})
	if !near(f.Fastest(), 1.8) {
		t.Fatalf("fastest under the cap %.9g s, want 1.8 s", f.Fastest())
	}
	e, err := f.EnergyAt(1.8)
	if err != nil {
		t.Fatal(err)
	}
	if !near(e, 186) {
		t.Errorf("E(1.8 s) = %.9g J under 120 W, want 186 J", e)
	}
}

// TestCapBelowLeast: below the least cap the order needs (both tasks at
// their slowest, 40 + 20 W; one node each: A's 40 W) New says so and
// names it. At that cap both run slow (3 s); on a node each, A slow and
// B at 100 − 80·c_B ≤ 40, c_B = 3/4 (2.5 s).
func TestCapBelowLeast(t *testing.T) {
	d, o := worked(t)
	for _, tc := range []struct {
		capW, least, fastest float64
		nodeOf               []int
	}{{59, 60, 3, nil}, {30, 40, 2.5, []int{0, 1}}} {
		_, err := New(d, o, Options{BaseW: 10, CapW: tc.capW, NodeOf: tc.nodeOf})
		var ie *bound.InfeasibleError
		if !errors.As(err, &ie) || !near(ie.MinCapW, tc.least) {
			t.Errorf("cap %g W, nodes %v: error %v, want the least feasible cap %g W", tc.capW, tc.nodeOf, err, tc.least)
		}
		f := newFrontier(t, d, o, Options{BaseW: 10, CapW: tc.least, NodeOf: tc.nodeOf})
		if !near(f.Fastest(), tc.fastest) {
			t.Errorf("cap %g W, nodes %v: fastest %.9g s, want %g s", tc.least, tc.nodeOf, f.Fastest(), tc.fastest)
		}
	}
}

// TestBudgetBelowLeast: a budget below the least energy is an error that
// names the least energy, with and without a cap (CLP or the flow).
func TestBudgetBelowLeast(t *testing.T) {
	d, o := worked(t)
	for _, capW := range []float64{0, 120} {
		f := newFrontier(t, d, o, Options{BaseW: 10, CapW: capW})
		least, err := f.EnergyAt(math.Inf(1))
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.TimeFor(least - 10)
		if want := fmt.Sprintf("(the least energy is %.12g J)", least); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("cap %g W: budget %g J: error %v, want one naming %s", capW, least-10, err, want)
		}
	}
}

// TestDeadlineEnds: a deadline past the slowest gives the least energy, one
// below the least makespan or NaN an error that says which.
func TestDeadlineEnds(t *testing.T) {
	d, o := worked(t)
	for _, capW := range []float64{0, 120} {
		f := newFrontier(t, d, o, Options{BaseW: 10, CapW: capW})
		slow, least, err := f.Slowest()
		if err != nil {
			t.Fatal(err)
		}
		for _, T := range []float64{slow * 2, 1e6, math.Inf(1)} {
			if e, err := f.EnergyAt(T); err != nil || math.Abs(e-least) > 1e-9*least {
				t.Errorf("cap %g W: E(%g s) = %g J (%v), want the least %g J", capW, T, e, err, least)
			}
		}
		for _, tc := range []struct {
			T    float64
			want string
		}{{f.Fastest() * 0.9, "below the least makespan"}, {-1, "below the least makespan"}, {math.NaN(), "want a number"}} {
			if _, err := f.EnergyAt(tc.T); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("cap %g W: E(%g s): error %v, want %q", capW, tc.T, err, tc.want)
			}
		}
	}
}

// TestAtLeastMakespanWithinTolerance: a least makespan known from another
// LP (the bound's, Options.LeastMakespan) lies within that LP's tolerance
// of the frontier's own, and may be a little below it; the energy there is
// the frontier's start (186 J at 1.8 s under 120 W), not "infeasible".
func TestAtLeastMakespanWithinTolerance(t *testing.T) {
	d, o := worked(t)
	for _, below := range []float64{0, 1e-9, 5e-7} {
		f := newFrontier(t, d, o, Options{BaseW: 10, CapW: 120, LeastMakespan: 1.8 * (1 - below)})
		if e, err := f.EnergyAt(f.Fastest()); err != nil || math.Abs(e-186) > 1e-4 {
			t.Errorf("least makespan %g below 1.8 s: E = %.9g J (%v), want 186 J", below, e, err)
		}
		s, err := f.ScheduleAt(f.Fastest())
		if err != nil || math.Abs(s.Makespan-1.8) > 1e-5 {
			t.Errorf("least makespan %g below 1.8 s: schedule %v (%v)", below, s, err)
		}
	}
}

// TestNodeCaps: the ranks of TestCap on one node are capped as the job
// was (1.8 s at 120 W). Each on a node of its own at 90 W, 100 − 60c_A ≤
// 90 and 100 − 80c_B ≤ 90 give c_A ≥ 1/6, c_B ≥ 1/8, so T = 1 + 2c_B =
// 1.25 s; there the least energy takes c_A = 0.25 (A's most within T)
// and c_B = 1/8: E = (100 − 20·0.25) + (100 − 40/8) + 10·1.25 = 202.5 J.
func TestNodeCaps(t *testing.T) {
	d, o := worked(t)
	one := newFrontier(t, d, o, Options{BaseW: 10, CapW: 120, NodeOf: []int{0, 0}})
	if !near(one.Fastest(), 1.8) {
		t.Errorf("one node at 120 W: fastest %.9g s, want 1.8 s", one.Fastest())
	}
	two := newFrontier(t, d, o, Options{BaseW: 10, CapW: 90, NodeOf: []int{0, 1}})
	if !near(two.Fastest(), 1.25) {
		t.Errorf("two nodes at 90 W: fastest %.9g s, want 1.25 s", two.Fastest())
	}
	if e, err := two.EnergyAt(1.25); err != nil || !near(e, 202.5) {
		t.Errorf("two nodes at 90 W: E(1.25 s) = %.9g J (%v), want 202.5 J", e, err)
	}
	if _, err := New(d, o, Options{CapW: 90, NodeOf: []int{0}}); err == nil {
		t.Error("nodes for 1 of 2 ranks: no error")
	}
}
