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
			var calls, last int // Options.Round's
			lz, err := NewSolver(n.DAG, n.Order, Options{lazyVisits: visits, KeepBasis: true, Round: func(round, added int) {
				calls++
				if round < 2 || added < last {
					t.Errorf("case %d: Round(%d, %d) after %d rows added", k, round, added, last)
				}
				last = added
			}})
			if err != nil {
				t.Fatal(err)
			}
			for _, capW := range caps {
				calls = 0
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
				if calls != got.Stats.Rounds-1 {
					t.Errorf("case %d, %g W: %d solves, Options.Round called %d times", k, capW, got.Stats.Rounds, calls)
				}
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
// events where no task runs, both with the cuts the Solver picks (where
// the fastest schedule loses nothing) and cut at every event it may cut,
// after every task (cutAll: small random traces then lose much, measured
// up to 24 % below the exact LP).
func TestCutsRelax(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	rng := rand.New(rand.NewSource(11))
	var cut [2]int
	var worst [2]float64
	for k := 0; k < 60; k++ {
		c := newNetCase(t, rng, 10, WaitPower{})
		n := c.n
		exact, err := NewSolver(n.DAG, n.Order, Options{CutTasks: -1})
		if err != nil {
			t.Fatal(err)
		}
		minCap, _ := exact.MinFeasibleCap()
		most := 0.0
		for _, p := range fastestPowers(n) {
			most += p
		}
		var want []float64
		for _, f := range []float64{0.05, 0.3, 0.7, 1} {
			b, err := exact.Solve(minCap + f*(most-minCap))
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, b.Makespan)
		}
		exact.Close()
		for j, all := range []bool{false, true} {
			relaxed, err := NewSolver(n.DAG, n.Order, Options{CutTasks: 1, cutAll: all})
			if err != nil {
				t.Fatal(err)
			}
			if relaxed.Stats().Cuts > 0 {
				cut[j]++
			}
			for i, f := range []float64{0.05, 0.3, 0.7, 1} {
				capW := minCap + f*(most-minCap)
				got, err := relaxed.Solve(capW)
				if err != nil {
					t.Fatal(err)
				}
				if got.Makespan > want[i]*(1+1e-7) {
					t.Errorf("case %d, cut all %v, %g W: cut LP %.9f s above the exact LP's %.9f s", k, all, capW, got.Makespan, want[i])
				}
				if f == 1 && !all && got.Makespan < want[i]*(1-2*cutSlack) {
					t.Errorf("case %d, %g W (the fastest schedule's peak): cut LP %.9f s, exact %.9f s: the picked cuts lose", k, capW, got.Makespan, want[i])
				}
				worst[j] = math.Max(worst[j], 1-got.Makespan/want[i])
			}
			relaxed.Close()
		}
	}
	if cut[1] < 10 || cut[0] < 5 {
		t.Errorf("only %d (picked) and %d (all) of 60 cases had cuts: the test does not exercise them", cut[0], cut[1])
	}
	t.Logf("%d cases cut where the fastest schedule loses nothing, %d at every event that may be cut; at most %.3f %% and %.3f %% below the exact LP",
		cut[0], cut[1], 100*worst[0], 100*worst[1])
}
