package bound

import (
	"math"
	"math/rand"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
)

// TestLazyRowsExact checks that the LP which adds the engine's rows on
// demand has the optimum of the LP with every row, at binding caps, on
// random traces: with the default search and with one so short that the
// rows must come from solutions that break them. The last solution meets
// every row of the full graph (check adds none).
func TestLazyRowsExact(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	rng := rand.New(rand.NewSource(7))
	rounds := 0
	for k := 0; k < 40; k++ {
		wait := WaitPower{}
		if k%4 == 3 {
			wait = WaitPower{Constant: true, W: 30}
		}
		c := newNetCase(t, rng, 12, wait)
		n := c.n
		full, err := NewSolver(n.DAG, n.Order, Options{noLazy: true})
		if err != nil {
			t.Fatal(err)
		}
		fast := math.Inf(1)
		minCap, _ := full.MinFeasibleCap()
		fp := fastestPowers(n)
		most := 0.0
		for _, p := range fp {
			most += p
		}
		caps := []float64{minCap + 0.05*(most-minCap), minCap + 0.4*(most-minCap), 1e9}
		for _, visits := range []int{0, 2} {
			lz, err := NewSolver(n.DAG, n.Order, Options{lazyVisits: visits, KeepBasis: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, capW := range caps {
				want, err := full.Solve(capW)
				if err != nil {
					t.Fatalf("case %d, %g W, all rows: %v", k, capW, err)
				}
				got, err := lz.Solve(capW)
				if err != nil {
					t.Fatalf("case %d, %g W, rows on demand: %v", k, capW, err)
				}
				if d := math.Abs(got.Makespan - want.Makespan); d > 1e-6*want.Makespan {
					t.Errorf("case %d, %g W (visits %d): rows on demand give %.9f s, every row %.9f s", k, capW, visits, got.Makespan, want.Makespan)
				}
				if capW == 1e9 {
					fast = got.Makespan
				}
				rounds += got.Stats.Rounds - 1
				v := append([]float64(nil), got.Vertex...)
				if added := lz.lazy.check(v, 1e-6*got.Makespan); added != 0 {
					t.Errorf("case %d, %g W: the last solution breaks %d rows", k, capW, added)
				}
			}
			lz.Close()
		}
		full.Close()
		if math.Abs(fast*1e9-float64(n.Ref.Makespan)) > 1 {
			t.Errorf("case %d: uncapped %.1f ns, fastest replay %d ns", k, fast*1e9, n.Ref.Makespan)
		}
	}
	if rounds == 0 {
		t.Error("no case added rows on demand: the test does not exercise them")
	}
	t.Logf("%d extra solves added rows", rounds)
}

// TestCutsRelax checks that the engine LP cut into blocks (Options.
// CutTasks) is a relaxation: at binding caps its optimum is never above
// the exact LP's, on random traces whose collectives over all ranks leave
// events where no task runs. Cut after every task, small random traces
// lose much (measured: up to 24 % below the exact LP); on the stencils,
// cut every 64 tasks, it loses 0.01 % (scenarios' TestCutsTight).
func TestCutsRelax(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	rng := rand.New(rand.NewSource(11))
	cut, worst := 0, 0.0
	for k := 0; k < 60; k++ {
		c := newNetCase(t, rng, 10, WaitPower{})
		n := c.n
		exact, err := NewSolver(n.DAG, n.Order, Options{CutTasks: -1})
		if err != nil {
			t.Fatal(err)
		}
		relaxed, err := NewSolver(n.DAG, n.Order, Options{CutTasks: 1})
		if err != nil {
			t.Fatal(err)
		}
		if relaxed.Stats().Cuts > 0 {
			cut++
		}
		minCap, _ := exact.MinFeasibleCap()
		most := 0.0
		for _, p := range fastestPowers(n) {
			most += p
		}
		for _, f := range []float64{0.05, 0.3, 0.7} {
			capW := minCap + f*(most-minCap)
			want, err := exact.Solve(capW)
			if err != nil {
				t.Fatal(err)
			}
			got, err := relaxed.Solve(capW)
			if err != nil {
				t.Fatal(err)
			}
			if got.Makespan > want.Makespan*(1+1e-7) {
				t.Errorf("case %d, %g W: cut LP %.9f s above the exact LP's %.9f s", k, capW, got.Makespan, want.Makespan)
			}
			worst = math.Max(worst, 1-got.Makespan/want.Makespan)
		}
		exact.Close()
		relaxed.Close()
	}
	if cut < 10 {
		t.Errorf("only %d of 60 cases had cuts: the test does not exercise them", cut)
	}
	t.Logf("%d cases cut; the cut LP at most %.3f %% below the exact one", cut, 100*worst)
}
