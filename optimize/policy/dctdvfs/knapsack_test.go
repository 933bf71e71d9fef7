package dctdvfs

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// A hand-checkable case of critical time and slack (Eqs. 3.4–3.6, 3.20) and
// the wait cap.
func TestT1CriticalTimeAndSlack(t *testing.T) {
	times := [][][]float64{ // task, configuration (cA, cB), phase
		{{3.0, 4.0}, {3.5, 3.0}},
		{{5.0, 4.0}, {4.0, 4.5}},
		{{2.0, 2.0}, {2.5, 2.5}},
	}
	choice, ti, tc, crit, err := DCT(times)
	if err != nil {
		t.Fatal(err)
	}
	if choice[0] != 1 || choice[1] != 1 || choice[2] != 0 || ti[0] != 6.5 || ti[1] != 8.5 || ti[2] != 4.0 {
		t.Errorf("DCT: configurations %v times %v, want [cB cB cA] [6.5 8.5 4]", choice, ti)
	}
	if tc != 8.5 || crit != 1 {
		t.Errorf("t_c = %g (task %d), want 8.5 (task 1)", tc, crit)
	}
	send := []float64{0.2, 0, 0.3}
	for _, c := range []struct {
		task      int
		eps, want float64
	}{{0, 0, 1.7}, {2, 0, 4.1}, {0, 0.2, 1.41667}, {2, 0.2, 3.41667}} {
		if got := Slack(tc, ti[c.task], send[c.task], 0.1, c.eps); !near(got, c.want, 5e-6) {
			t.Errorf("task %d ε %g: slack %.5f, want %.5f", c.task, c.eps, got, c.want)
		}
	}
	s0 := Slack(tc, ti[0], 0.2, 0.1, 0.2)
	if got := CapByWait(s0, 1.2, 0.1); !near(got, 1.1, 1e-12) {
		t.Errorf("wait 1.2 s: dispersed %.5f, want 1.1", got)
	}
	if got := CapByWait(s0, 1.5, 0.1); !near(got, 1.41667, 5e-6) {
		t.Errorf("wait 1.5 s: dispersed %.5f, want 1.41667", got)
	}
}

// T8: the slack eaten by point-to-point communication between groups.
// Model slack 2.0 s, actual wait 1.5 s: the cap disperses 1.4 s, and the
// Allreduce (at 9.0 s, task 2 starting its group at 5.5 s with 2.0 s of
// work) is not delayed; dispersing 2.0 s would delay it by 0.5 s.
func TestT8WaitCap(t *testing.T) {
	model := Slack(4.0, 2.0, 0, 0, 0)
	if model != 2.0 {
		t.Fatalf("model slack %g, want 2", model)
	}
	used := CapByWait(model, 1.5, 0.1)
	if !near(used, 1.4, 1e-12) {
		t.Errorf("dispersed %g, want 1.4", used)
	}
	if late := 5.5 + 2.0 + model - 9.0; !near(late, 0.5, 1e-12) {
		t.Errorf("uncapped delay %g, want 0.5", late)
	}
	if late := 5.5 + 2.0 + used - 9.0; late > 0 {
		t.Errorf("capped run delays the Allreduce by %g s", late)
	}
}

// t2 is the data of T2: two phases, three levels (f_max, f2, f3).
func t2() [][]Level {
	return [][]Level{
		{{4.0, 200}, {4.5, 170}, {5.2, 150}},
		{{2.0, 200}, {2.4, 165}, {2.9, 140}},
	}
}

// T2: the frequency DP with the energy constraint, phase-only objective.
func TestT2FrequencyDP(t *testing.T) {
	for _, c := range []struct {
		slack  float64
		levels [2]int
		energy float64
		used   float64
	}{
		{0.3, [2]int{0, 0}, 1200, 0},
		{0.5, [2]int{1, 0}, 1165, 0.5},
		{1.0, [2]int{1, 1}, 1161, 0.9},
		{2.1, [2]int{1, 1}, 1161, 0.9}, // more slack does not mean lower frequency
	} {
		sel, err := SelectFrequencies(t2(), c.slack, PhaseOnly, 0, 1e-3)
		if err != nil {
			t.Fatal(err)
		}
		if sel.Levels[0] != c.levels[0] || sel.Levels[1] != c.levels[1] || !near(sel.PhaseJ, c.energy, 1e-9) || !near(sel.UsedS, c.used, 1e-9) {
			t.Errorf("W = %g: levels %v, %g J, %g s used; want %v, %g J, %g s", c.slack, sel.Levels, sel.PhaseJ, sel.UsedS, c.levels, c.energy, c.used)
		}
	}
}

// T2's (f_max, f3) = 1206 J fits W = 1.0 but breaks Eq. 3.8 (1206 >
// 1200). Restrict phase A to f_max so that the whole-interval objective
// (wait 120 W) prefers it (1206 J vs 1200 + 108 J): Eq. 3.8 must reject
// it for all-f_max.
func TestT2EnergyConstraintRejects(t *testing.T) {
	ph := t2()
	ph[0] = ph[0][:1]
	ph[1] = []Level{ph[1][0], ph[1][2]}
	sel, err := SelectFrequencies(ph, 1.0, WholeInterval, 120, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	if !sel.Rejects || sel.Levels[0] != 0 || sel.Levels[1] != 0 || sel.PhaseJ != 1200 {
		t.Errorf("selection %+v, want (f_max, f_max) 1200 J after rejecting 1206 J", sel)
	}
}

// T2b: the whole-interval objective (wait power 120 W during unused slack).
func TestT2bWholeInterval(t *testing.T) {
	for _, c := range []struct {
		slack  float64
		levels [2]int
		total  float64
	}{{1.0, [2]int{1, 1}, 1173}, {2.1, [2]int{2, 2}, 1186}} {
		sel, err := SelectFrequencies(t2(), c.slack, WholeInterval, 120, 1e-3)
		if err != nil {
			t.Fatal(err)
		}
		total := sel.PhaseJ + 120*(c.slack-sel.UsedS)
		if sel.Levels[0] != c.levels[0] || sel.Levels[1] != c.levels[1] || !near(total, c.total, 1e-9) {
			t.Errorf("W = %g: levels %v, %g J; want %v, %g J", c.slack, sel.Levels, total, c.levels, c.total)
		}
	}
}

func t2Items() [][]Item {
	var out [][]Item
	for _, lv := range t2() {
		var it []Item
		for _, l := range lv {
			it = append(it, Item{Weight: l.Seconds - lv[0].Seconds, Energy: l.Seconds * l.Watts})
		}
		out = append(out, it)
	}
	return out
}

// T2c: the LP relaxation (split frequencies): 1179 J at W = 0.3 (the DP
// gives 1200 J), 1161 J at W = 1.0 (= DP).
func TestT2cRelaxation(t *testing.T) {
	for _, c := range []struct{ slack, lp, dp float64 }{{0.3, 1179, 1200}, {1.0, 1161, 1161}} {
		lp, err := Relaxed(t2Items(), c.slack)
		if err != nil {
			t.Fatal(err)
		}
		_, dp, ok, err := Knapsack(t2Items(), c.slack, 1e-3)
		if err != nil || !ok {
			t.Fatal(err, ok)
		}
		if !near(lp, c.lp, 1e-9) || !near(dp, c.dp, 1e-9) {
			t.Errorf("W = %g: LP %g J, DP %g J; want %g and %g", c.slack, lp, dp, c.lp, c.dp)
		}
	}
}

// exhaustive is the exhaustive oracle: every combination.
func exhaustive(ph [][]Item, slack float64) (float64, bool) {
	best, found := math.Inf(1), false
	var rec func(i int, w, e float64)
	rec = func(i int, w, e float64) {
		if w > slack+1e-12 {
			return
		}
		if i == len(ph) {
			if e < best {
				best, found = e, true
			}
			return
		}
		for _, it := range ph[i] {
			rec(i+1, w+it.Weight, e+it.Energy)
		}
	}
	rec(0, 0, 0)
	return best, found
}

// The DP equals the exhaustive search on random small cases whose weights
// are whole quanta, and LP ≤ DP always.
func TestKnapsackMatchesExhaustive(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for n := 0; n < 300; n++ {
		M, L := 1+rng.IntN(4), 1+rng.IntN(4)
		ph := make([][]Item, M)
		for i := range ph {
			for k := 0; k < L; k++ {
				w := 0.0
				if k > 0 {
					w = float64(rng.IntN(10)) * 0.01
				}
				ph[i] = append(ph[i], Item{Weight: w, Energy: 50 + float64(rng.IntN(100))})
			}
		}
		slack := float64(rng.IntN(30)) * 0.01
		want, _ := exhaustive(ph, slack)
		_, got, ok, err := Knapsack(ph, slack, 0.01)
		if err != nil || !ok || !near(got, want, 1e-9) {
			t.Fatalf("case %d: DP %g (%v %v), exhaustive %g; phases %v slack %g", n, got, ok, err, want, ph, slack)
		}
		lp, err := Relaxed(ph, slack)
		if err != nil || lp > got+1e-9 {
			t.Fatalf("case %d: LP %g > DP %g (%v)", n, lp, got, err)
		}
	}
}

func TestKnapsackErrors(t *testing.T) {
	if _, _, _, err := Knapsack(t2Items(), 1, 0); err == nil {
		t.Error("zero quantum: want an error")
	}
	if _, _, _, err := Knapsack([][]Item{{}}, 1, 0.1); err == nil {
		t.Error("empty phase: want an error")
	}
	if _, _, ok, err := Knapsack([][]Item{{{Weight: 1, Energy: 1}}}, 0.5, 0.1); ok || err != nil {
		t.Errorf("nothing fits: ok %v err %v, want false, nil", ok, err)
	}
	if _, err := ParseObjective("greedy"); err == nil {
		t.Error("bad objective: want an error")
	}
}
