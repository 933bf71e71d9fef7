package bound

import (
	"math/rand"
	"reflect"
	"sync"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
)

// TestCloneSolvesAsBuilt checks that a clone of a Solver solves a chain
// of caps exactly (every vertex time, duration and power) as a fresh
// Solver of the same LP does, though the solver it was cloned from has
// already solved other caps and added rows on demand (a search so short
// that the rows must come from solutions), and while that solver solves
// at the same time in another goroutine.
func TestCloneSolvesAsBuilt(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	rng := rand.New(rand.NewSource(5))
	added := 0
	for k := 0; k < 8; k++ {
		n := newNetCase(t, rng, 10, WaitPower{}).n
		opt := Options{lazyVisits: 2, KeepBasis: true, Workers: 1}
		fresh, err := NewSolver(n.DAG, n.Order, opt)
		if err != nil {
			t.Fatal(err)
		}
		orig, err := NewSolver(n.DAG, n.Order, opt)
		if err != nil {
			t.Fatal(err)
		}
		minCap, _ := fresh.MinFeasibleCap()
		most := 0.0
		for _, p := range fastestPowers(n) {
			most += p
		}
		var caps []float64
		for _, f := range []float64{0.6, 0.3, 0.1, 0.05} {
			caps = append(caps, minCap+f*(most-minCap))
		}
		// The original solves the chain first, adding rows on demand.
		var want []*Bound
		for _, c := range caps {
			b, err := fresh.Solve(c)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, b)
			if _, err := orig.Solve(c); err != nil {
				t.Fatal(err)
			}
		}
		added += orig.lazy.added
		clone, err := orig.Clone()
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // the original goes on solving meanwhile
			defer wg.Done()
			for _, c := range caps {
				if _, err := orig.Solve(c); err != nil {
					t.Error(err)
				}
			}
		}()
		for j, c := range caps {
			got, err := clone.Solve(c)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Vertex, want[j].Vertex) || !reflect.DeepEqual(got.Duration, want[j].Duration) || !reflect.DeepEqual(got.Power, want[j].Power) {
				t.Errorf("case %d, %g W: the clone's schedule (%.9f s) differs from a fresh solver's (%.9f s)", k, c, got.Makespan, want[j].Makespan)
			}
		}
		wg.Wait()
		fresh.Close()
		orig.Close()
		clone.Close()
	}
	if added == 0 {
		t.Error("no case added rows on demand before cloning: the test does not exercise Clone's first rows")
	}
}

// TestForkSolvesAsOriginal checks that a fork of a Solver that has
// solved some caps (adding rows on demand) solves the next caps exactly
// as the solver itself would (every vertex time, duration and power:
// same rows, same basis), and that solving the fork leaves the
// original's next solves unchanged.
func TestForkSolvesAsOriginal(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	rng := rand.New(rand.NewSource(7))
	added := 0
	for k := 0; k < 8; k++ {
		n := newNetCase(t, rng, 10, WaitPower{}).n
		opt := Options{lazyVisits: 2, KeepBasis: true, Workers: 1}
		ref, err := NewSolver(n.DAG, n.Order, opt)
		if err != nil {
			t.Fatal(err)
		}
		orig, err := NewSolver(n.DAG, n.Order, opt)
		if err != nil {
			t.Fatal(err)
		}
		minCap, _ := ref.MinFeasibleCap()
		most := 0.0
		for _, p := range fastestPowers(n) {
			most += p
		}
		var caps []float64
		for _, f := range []float64{0.6, 0.3, 0.1, 0.05, 0.2} {
			caps = append(caps, minCap+f*(most-minCap))
		}
		// ref solves the whole chain; orig its first three caps, then
		// forks, and the fork and orig each solve the rest.
		var want []*Bound
		for _, c := range caps {
			b, err := ref.Solve(c)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, b)
		}
		for _, c := range caps[:3] {
			if _, err := orig.Solve(c); err != nil {
				t.Fatal(err)
			}
		}
		added += orig.lazy.added
		fork, err := orig.Fork()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []*Solver{fork, orig} {
			for j := 3; j < len(caps); j++ {
				got, err := s.Solve(caps[j])
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got.Vertex, want[j].Vertex) || !reflect.DeepEqual(got.Duration, want[j].Duration) || !reflect.DeepEqual(got.Power, want[j].Power) {
					t.Errorf("case %d, %g W: schedule (%.9f s) differs from an unforked solver's (%.9f s)", k, caps[j], got.Makespan, want[j].Makespan)
				}
			}
		}
		for _, s := range []*Solver{ref, orig, fork} {
			s.Close()
		}
	}
	if added == 0 {
		t.Error("no case added rows on demand before forking: the test does not exercise Fork's rows")
	}
}
