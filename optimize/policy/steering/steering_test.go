package steering

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// noteTrace is one iteration of the DPS unit test of Anger, 2016, Ch. 5: core i computes
// work[i] seconds at 2.1 GHz, then all meet in a barrier.
func noteTrace(t *testing.T, work []float64) (*mpi.Trace, *graph.Graph) {
	t.Helper()
	tr := mpi.NewTrace(len(work))
	for r, w := range work {
		tr.AppendCompute(r, "work", int64(math.Round(w*1e9)))
		tr.Append(r, mpi.Event{Kind: mpi.Barrier})
	}
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tr, g
}

// A network that costs nothing, so iteration times are the compute times.
var freeNet = network.NewLogGOPS(0, 0, 0, 0, 0, 65535)

// The Power Steering table of Anger, 2016, Ch. 5 (its DPS unit tests): 4 cores,
// P-states 2.1/1.9/1.7/1.5/1.4 GHz at 20/17/14/12/11 W, budget 56 W (all
// at 1.7 GHz), fully compute bound, "≤" rule in step 5. Each case is run
// through the replay engine, so the iteration time is the replayed
// makespan.
func TestNoteTable(t *testing.T) {
	cases := []struct {
		name    string
		work    []float64
		ghz     []float64
		sumW    float64
		iterS   float64
		impPct  float64
		energyJ [2]float64 // baseline, steered (sleep 5 W); 0 = not in the thesis
	}{
		{"row1_le_fix", []float64{1.0, 0.6, 0.6, 0.3}, []float64{2.1, 1.4, 1.4, 1.4}, 53, 1.0, 19.05, [2]float64{52.5, 48.5}},
		{"row2_le_fix", []float64{1.0, 0.8, 0.5, 0.2}, []float64{2.1, 1.7, 1.4, 1.4}, 56, 1.0, 19.05, [2]float64{52.5, 50.1941}},
		{"row3_near_balanced_le_fix", []float64{1.0, 0.9, 0.9, 0.9}, []float64{1.7, 1.7, 1.7, 1.7}, 56, 1.2353, 0, [2]float64{}},
		{"row4_balanced_load_regression_le_fix", []float64{1.0, 1.0, 1.0, 1.0}, []float64{1.7, 1.7, 1.7, 1.7}, 56, 1.2353, 0, [2]float64{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, g := noteTrace(t, c.work)
			res, err := Run(tr, g, freeNet, Options{Machine: NoteMachine(), BudgetW: 56, NoBound: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.BaseGHz != 1.7 || res.Phases != 1 || res.OverPhase != 0 {
				t.Fatalf("baseline %g GHz, %d phases, %d over budget; want 1.7, 1, 0", res.BaseGHz, res.Phases, res.OverPhase)
			}
			var sum float64
			for r, f := range res.GHz[0] {
				if f != c.ghz[r] {
					t.Errorf("core %d at %g GHz, want %g (all: %v)", r, f, c.ghz[r], res.GHz[0])
				}
				sum += map[float64]float64{2.1: 20, 1.9: 17, 1.7: 14, 1.5: 12, 1.4: 11}[f]
			}
			if sum != c.sumW {
				t.Errorf("ΣP = %g W, want %g", sum, c.sumW)
			}
			if got := float64(res.Steered.MakespanNs) / 1e9; math.Abs(got-c.iterS) > 5e-5 {
				t.Errorf("iteration time %.5f s, want %.4f", got, c.iterS)
			}
			if got := float64(res.Baseline.MakespanNs) / 1e9; math.Abs(got-1.2353) > 5e-5 {
				t.Errorf("baseline time %.5f s, want 1.2353", got)
			}
			if math.Abs(res.RuntimePct-c.impPct) > 0.005 {
				t.Errorf("improvement %.3f %%, want %.2f %%", res.RuntimePct, c.impPct)
			}
			if c.energyJ[0] > 0 {
				if math.Abs(res.Baseline.EnergyJ-c.energyJ[0]) > 5e-4 || math.Abs(res.Steered.EnergyJ-c.energyJ[1]) > 5e-4 {
					t.Errorf("energy %.4f → %.4f J, want %g → %g", res.Baseline.EnergyJ, res.Steered.EnergyJ, c.energyJ[0], c.energyJ[1])
				}
			}
		})
	}
}

// The energy improvements for rows 1 and 2 (Anger, 2016, Ch. 5): 7.62 % and 4.39 %.
func TestNoteEnergyImprovement(t *testing.T) {
	for _, c := range []struct {
		work []float64
		pct  float64
	}{{[]float64{1.0, 0.6, 0.6, 0.3}, 7.62}, {[]float64{1.0, 0.8, 0.5, 0.2}, 4.39}} {
		tr, g := noteTrace(t, c.work)
		res, err := Run(tr, g, freeNet, Options{Machine: NoteMachine(), NoBound: true}) // budget 0 = all at the middle P-state = 56 W
		if err != nil {
			t.Fatal(err)
		}
		if res.BudgetW != 56 || math.Abs(res.EnergyPct-c.pct) > 0.005 {
			t.Errorf("%v: budget %g W, energy improvement %.3f %%, want 56 W and %.2f %%", c.work, res.BudgetW, res.EnergyPct, c.pct)
		}
	}
}

// The balanced-load regression of the "<" vs "≤" question (Anger, 2016,
// Algorithm 2): with the printed strict "<" in step 5, a balanced load [1,1,1,1]
// ends with the critical core at 1.5 GHz (the others at 1.7), 13.3 %
// slower than the baseline; with the ≤ fix nothing changes.
func TestBalancedLoadRegressionStrictVersusLeFix(t *testing.T) {
	tr, g := noteTrace(t, []float64{1, 1, 1, 1})
	strict, err := Run(tr, g, freeNet, Options{Machine: NoteMachine(), BudgetW: 56, Strict: true, NoBound: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := strict.GHz[0]; got[0] != 1.5 || got[1] != 1.7 || got[2] != 1.7 || got[3] != 1.7 {
		t.Errorf("strict <: P-states %v, want [1.5 1.7 1.7 1.7]", got)
	}
	if slower := -strict.RuntimePct; math.Abs(slower-13.33) > 0.01 {
		t.Errorf("strict <: %.3f %% slower, want 13.33 %%", slower)
	}
	fixed, err := Run(tr, g, freeNet, Options{Machine: NoteMachine(), BudgetW: 56, NoBound: true})
	if err != nil {
		t.Fatal(err)
	}
	if fixed.RuntimePct != 0 || fixed.EnergyPct != 0 {
		t.Errorf("≤ fix: improvement %g %% time, %g %% energy; want 0", fixed.RuntimePct, fixed.EnergyPct)
	}
}

// Memory-boundness on row 1 (Anger, 2016, Ch. 5): with τ = c·2.1/f + (1 − c)
// the assignment stays 2.1/1.4/1.4/1.4; c = 0.5 improves by 10.53 %,
// c = 0 by 0 %.
func TestNoteMemoryBoundness(t *testing.T) {
	for _, c := range []struct{ beta, pct float64 }{{0.5, 10.53}, {0, 0}} {
		tr, g := noteTrace(t, []float64{1.0, 0.6, 0.6, 0.3})
		m := NoteMachine()
		m.Beta = c.beta
		res, err := Run(tr, g, freeNet, Options{Machine: m, BudgetW: 56, NoBound: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.GHz[0]; got[0] != 2.1 || got[1] != 1.4 || got[2] != 1.4 || got[3] != 1.4 {
			t.Errorf("c = %g: P-states %v, want [2.1 1.4 1.4 1.4]", c.beta, got)
		}
		if math.Abs(res.RuntimePct-c.pct) > 0.005 {
			t.Errorf("c = %g: improvement %.3f %%, want %.2f %%", c.beta, res.RuntimePct, c.pct)
		}
	}
}

func TestAssignInfeasible(t *testing.T) {
	times := [][]float64{{1, 2}, {1, 2}}
	st, total, ok := Assign(times, []float64{10, 8}, 15, false)
	if ok || st[0] != 1 || st[1] != 1 || total != 16 {
		t.Errorf("Assign = %v %g %v, want slowest everywhere (16 W), not ok", st, total, ok)
	}
}

func TestPreviousPrediction(t *testing.T) {
	// Iteration 1 repeats iteration 0's load, so "previous" steers it as
	// the oracle does; iteration 0 runs the baseline.
	tr := mpi.NewTrace(4)
	for it := 0; it < 2; it++ {
		for r, w := range []float64{1.0, 0.6, 0.6, 0.3} {
			tr.AppendCompute(r, "work", int64(w*1e9))
			tr.Append(r, mpi.Event{Kind: mpi.Barrier})
		}
	}
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(tr, g, freeNet, Options{Machine: NoteMachine(), Predict: Previous, NoBound: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.GHz[0][0] != 1.7 || res.GHz[1][0] != 2.1 || res.GHz[1][3] != 1.4 {
		t.Errorf("P-states %v, want baseline then steered", res.GHz)
	}
	// 2 × 1.2353 s → 1.2353 + 1.0 s.
	if got := float64(res.Steered.MakespanNs) / 1e9; math.Abs(got-2.2353) > 5e-5 {
		t.Errorf("makespan %.5f s, want 2.2353", got)
	}
}

func TestRunErrors(t *testing.T) {
	tr := mpi.NewTrace(2)
	tr.AppendCompute(0, "w", 10)
	tr.Append(0, mpi.Event{Kind: mpi.Barrier})
	tr.AppendCompute(1, "w", 10)
	g, err := lower.Lower(mpi.NewTrace(2), lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(tr, g, freeNet, Options{Machine: NoteMachine()}); err == nil {
		t.Error("unbalanced collectives: want an error")
	}
	if _, err := Run(tr, g, freeNet, Options{Machine: Machine{}}); err == nil {
		t.Error("no P-states: want an error")
	}
	if _, err := ParsePrediction("psychic"); err == nil {
		t.Error("bad prediction: want an error")
	}
}

// With two barriers per iteration the phases between them have no
// compute; "previous" then uses the latest phase that has.
func TestPreviousSkipsEmptyPhases(t *testing.T) {
	tr := mpi.NewTrace(4)
	for it := 0; it < 2; it++ {
		for r, w := range []float64{1.0, 0.6, 0.6, 0.3} {
			tr.AppendCompute(r, "work", int64(w*1e9))
			tr.Append(r, mpi.Event{Kind: mpi.Barrier})
			tr.Append(r, mpi.Event{Kind: mpi.Barrier})
		}
	}
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(tr, g, freeNet, Options{Machine: NoteMachine(), Predict: Previous, NoBound: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Phases != 2 || res.GHz[0][0] != 1.7 || res.GHz[1] != nil || res.GHz[2][0] != 2.1 || res.GHz[2][3] != 1.4 {
		t.Errorf("%d phases, P-states %v; want baseline, nothing, steered", res.Phases, res.GHz)
	}
}

// The per-iteration decision cost delays every rank's iteration by it.
func TestDecisionCost(t *testing.T) {
	tr, g := noteTrace(t, []float64{1.0, 0.6, 0.6, 0.3})
	res, err := Run(tr, g, freeNet, Options{Machine: NoteMachine(), DecisionNs: 1_000_000, NoBound: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Steered.MakespanNs != 1_001_000_000 || res.Baseline.MakespanNs != 1235294118 {
		t.Errorf("makespans %d and %d, want 1.001 s steered, 1.2353 s baseline", res.Steered.MakespanNs, res.Baseline.MakespanNs)
	}
	if _, err := Run(tr, g, freeNet, Options{Machine: NoteMachine(), DecisionNs: -1}); err == nil {
		t.Error("negative decision cost: want an error")
	}
}

// AssignEach with one shared list of P-states is Assign, on random loads
// and budgets.
func TestAssignEachIsAssign(t *testing.T) {
	watts := []float64{20, 17, 14, 12, 11}
	ratio := []float64{1, 2.1 / 1.9, 2.1 / 1.7, 2.1 / 1.5, 2.1 / 1.4}
	for seed := range 50 {
		n := 1 + seed%6
		times := make([][]float64, n)
		ws := make([][]float64, n)
		for i := range times {
			w := float64(1 + (seed*7+i*13)%17)
			for _, x := range ratio {
				times[i] = append(times[i], w*x)
			}
			ws[i] = watts
		}
		budget := float64(n) * (11 + float64(seed%10))
		for _, strict := range []bool{false, true} {
			s1, t1, ok1 := Assign(times, watts, budget, strict)
			s2, t2, ok2 := AssignEach(times, ws, budget, strict)
			if ok1 != ok2 || t1 != t2 || fmt.Sprint(s1) != fmt.Sprint(s2) {
				t.Fatalf("seed %d strict %v: Assign %v %g %v, AssignEach %v %g %v", seed, strict, s1, t1, ok1, s2, t2, ok2)
			}
		}
	}
}

// AssignNodes keeps every node's summed P-state power within the budget:
// with every core on one node it is Assign; with the two loaded cores on
// one node the critical core slows until its node fits, though the job's
// total would fit at the fastest level.
func TestAssignNodes(t *testing.T) {
	watts := []float64{20, 17, 14, 12, 11}
	times := [][]float64{{10, 11, 12, 14, 15}, {9, 10, 11, 12, 13}, {2, 3, 4, 5, 6}, {2, 3, 4, 5, 6}}
	for _, tc := range []struct {
		name   string
		nodeOf []int
		budget float64
		want   []int
		ok     bool
	}{
		{"one node is the job", []int{0, 0, 0, 0}, 60, nil, true},
		{"loaded cores apart", []int{0, 1, 0, 1}, 31, []int{0, 1, 4, 4}, true},
		{"loaded cores together", []int{0, 0, 1, 1}, 31, []int{1, 2, 4, 4}, true},
		{"no level fits a node", []int{0, 0, 1, 1}, 21, []int{4, 4, 4, 4}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, total, ok := AssignNodes(times, watts, tc.nodeOf, tc.budget, false)
			want, wantTotal, wantOK := Assign(times, watts, tc.budget, false)
			if tc.want != nil {
				want, wantOK = tc.want, tc.ok
				wantTotal = 0
				for _, s := range want {
					wantTotal += watts[s]
				}
			}
			if !slices.Equal(got, want) || total != wantTotal || ok != wantOK {
				t.Errorf("AssignNodes = %v %g W %v, want %v %g W %v", got, total, ok, want, wantTotal, wantOK)
			}
		})
	}
}
