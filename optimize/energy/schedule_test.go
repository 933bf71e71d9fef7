package energy

import (
	"math"
	"testing"

	"github.com/capsim/capsim/optimize/frontier"
)

// TestMixOf checks how the LP's fractions become a task's configurations:
// one or two as they are, more than two as the two of least energy at the
// same duration.
func TestMixOf(t *testing.T) {
	// Energies 100, 110, 60 J at 1, 2, 3 s: the middle point lies above
	// the chord of the others, so the energy hull skips it.
	h := []frontier.Config{{Time: 1, Power: 100}, {Time: 2, Power: 55}, {Time: 3, Power: 20}}
	for _, tc := range []struct {
		name       string
		c          []float64
		fast, slow int
		frac, time float64
	}{
		{"one", []float64{0, 1, 0}, 1, 1, 1, 2},
		{"two", []float64{0.25, 0, 0.75}, 0, 2, 0.25, 2.5},
		{"three at 2 s", []float64{0.25, 0.5, 0.25}, 0, 2, 0.5, 2},
		{"noise below the tolerance", []float64{1, 1e-12, 0}, 0, 0, 1, 1},
	} {
		got := mixOf(h, tc.c)
		if got.Fast != tc.fast || got.Slow != tc.slow || math.Abs(got.Frac-tc.frac) > 1e-12 || math.Abs(got.Time-tc.time) > 1e-12 {
			t.Errorf("%s: %+v, want %d/%d at %g taking %g s", tc.name, got, tc.fast, tc.slow, tc.frac, tc.time)
		}
		if e := got.Power * got.Time; tc.name == "three at 2 s" && math.Abs(e-80) > 1e-9 {
			t.Errorf("%s: %g J, want the hull's 80 J at 2 s", tc.name, e)
		}
	}
}

// TestLeastMakespanGiven: a frontier told its least makespan (as the
// min-energy policy tells it the bound's) solves as one that found it,
// and reads budgets back with the time LP it has not solved yet.
func TestLeastMakespanGiven(t *testing.T) {
	d, o := worked(t)
	ref := newFrontier(t, d, o, Options{BaseW: 10})
	f := newFrontier(t, d, o, Options{BaseW: 10, LeastMakespan: ref.Fastest()})
	if f.Fastest() != ref.Fastest() {
		t.Fatalf("fastest %g, want %g", f.Fastest(), ref.Fastest())
	}
	for _, T := range []float64{1, 1.5, 2, 3} {
		a, err := f.EnergyAt(T)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ref.EnergyAt(T)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(a-b) > 1e-9 {
			t.Errorf("at %g s: %g J, want %g J", T, a, b)
		}
	}
	if got, err := f.TimeFor(195); err != nil || math.Abs(got-1.5) > 1e-9 {
		t.Errorf("195 J needs %g s (%v), want 1.5 s", got, err)
	}
	if _, err := New(d, o, Options{LeastMakespan: math.Inf(1)}); err == nil {
		t.Error("an infinite least makespan is accepted")
	}
}
