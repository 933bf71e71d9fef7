package dctdvfs

import (
	"math"
	"testing"

	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// testNode is a 16-thread node with the PAL P-states of Anger's thesis and
// per-core powers of the embedded default scenario.
func testNode() Node {
	return Node{Threads: PowersOfTwo(16), IdleW: 90, WaitW: 10, Wait: power.WaitPower{Mode: power.WaitIdle},
		PStates: []power.PState{{GHz: 2.1, Watts: 12}, {GHz: 1.9, Watts: 10.2}, {GHz: 1.7, Watts: 8.7}, {GHz: 1.5, Watts: 7.4}, {GHz: 1.4, Watts: 6.8}}}
}

func TestPowersOfTwo(t *testing.T) {
	if got := PowersOfTwo(12); len(got) != 5 || got[3] != 8 || got[4] != 12 {
		t.Errorf("PowersOfTwo(12) = %v, want [1 2 4 8 12]", got)
	}
}

// Li, 2011, Ch. 3: DVFS saves nothing on balanced loads; DCT saves nothing
// on scalable phases; DCT alone cuts both time and energy for
// non-scalable phases; on an imbalanced load DVFS saves energy at a
// small time loss.
func TestPhenomena(t *testing.T) {
	net := network.DefaultLogGOPS()
	scalable := Profile{Default: Scaling{Serial: 0.05, Beta: 1}}
	nonScalable := Profile{Default: Scaling{Serial: 0.05, Overhead: 0.01, Beta: 1}}
	for _, c := range []struct {
		name    string
		imb     string
		balance float64
		prof    Profile
		check   func(t *testing.T, r *Result)
	}{
		{"balanced_scalable_saves_nothing", gen.ImbalanceNone, 1, scalable, func(t *testing.T, r *Result) {
			if r.EnergySavedPct != 0 || r.TimeLostPct != 0 || r.SlackNs != 0 {
				t.Errorf("saved %g %% energy, lost %g %% time, %d ns slack; want 0", r.EnergySavedPct, r.TimeLostPct, r.SlackNs)
			}
		}},
		{"imbalanced_scalable_dvfs_saves", gen.ImbalanceRandom, 0.3, scalable, func(t *testing.T, r *Result) {
			if r.DCTEnergySavedPct != 0 {
				t.Errorf("DCT alone saved %g %% on scalable phases, want 0", r.DCTEnergySavedPct)
			}
			if r.EnergySavedPct < 1 || r.TimeLostPct > 1 {
				t.Errorf("DCT+DVFS saved %.3f %% energy for %.3f %% time; want ≥ 1 %% saved, ≤ 1 %% lost", r.EnergySavedPct, r.TimeLostPct)
			}
			if r.RelaxedJ > r.KnapsackJ+1e-9 {
				t.Errorf("LP relaxation %g J above the knapsack's %g J", r.RelaxedJ, r.KnapsackJ)
			}
		}},
		{"non_scalable_dct_saves_time_and_energy", gen.ImbalanceNone, 1, nonScalable, func(t *testing.T, r *Result) {
			if r.DCTEnergySavedPct <= 0 || r.DCTTimeLostPct >= 0 {
				t.Errorf("DCT saved %.3f %% energy, lost %.3f %% time; want both gains", r.DCTEnergySavedPct, r.DCTTimeLostPct)
			}
			if r.Threads[0][0][0] >= 16 {
				t.Errorf("DCT kept %d threads on a non-scalable phase", r.Threads[0][0][0])
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, err := gen.Stencil{Dims: []int{2, 2}, Iterations: 8, HaloBytes: 4096, ComputeNs: 10_000_000, Imbalance: c.imb,
				Balance: c.balance, Intensity: 1, AllreduceBytes: 8, Seed: 3}.Generate()
			if err != nil {
				t.Fatal(err)
			}
			g, err := lower.Lower(tr, lower.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(tr, g, net, Options{Node: testNode(), Profile: c.prof, TDVFSNs: 10_000, NoBound: true})
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, res)
		})
	}
}

// The wait cap and ε only ever shrink the slack dispersed.
func TestWaitCapAndEpsilonShrinkSlack(t *testing.T) {
	tr, err := gen.Stencil{Dims: []int{2, 2}, Iterations: 6, HaloBytes: 4096, ComputeNs: 10_000_000, Imbalance: gen.ImbalanceRandom,
		Balance: 0.3, Intensity: 1, AllreduceBytes: 8, Seed: 3}.Generate()
	if err != nil {
		t.Fatal(err)
	}
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Node: testNode(), Profile: Profile{Default: Scaling{Serial: 0.05, Beta: 1}}, TDVFSNs: 10_000, NoBound: true}
	plain, err := Run(tr, g, network.DefaultLogGOPS(), o)
	if err != nil {
		t.Fatal(err)
	}
	o.WaitCap, o.Epsilon = true, 0.2
	capped, err := Run(tr, g, network.DefaultLogGOPS(), o)
	if err != nil {
		t.Fatal(err)
	}
	if capped.SlackNs >= plain.SlackNs || capped.SlackNs <= 0 {
		t.Errorf("slack %d ns with ε 0.2 and the wait cap, %d without; want less but some", capped.SlackNs, plain.SlackNs)
	}
}

func TestRunErrors(t *testing.T) {
	tr := mpi.NewTrace(1)
	tr.AppendCompute(0, "w", 10)
	g, _ := lower.Lower(tr, lower.Options{})
	for name, o := range map[string]Options{
		"no threads":   {Node: Node{PStates: testNode().PStates}},
		"no p-states":  {Node: Node{Threads: []int{1}}},
		"bad scaling":  {Node: testNode(), Profile: Profile{Default: Scaling{Serial: 2}}},
		"bad pattern":  {Node: testNode(), Profile: Profile{Rules: []Rule{{Pattern: "[", Scaling: Scaling{}}}}},
		"dup threads":  {Node: Node{Threads: []int{2, 2}, PStates: testNode().PStates}},
		"negative eps": {Node: testNode(), Epsilon: -1},
	} {
		if _, err := Run(tr, g, network.DefaultLogGOPS(), o); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
	if _, err := ParseStrategy("x"); err == nil {
		t.Error("bad strategy: want an error")
	}
}

// A hand-checkable case of the DCT switch penalty. Two phases per iteration
// under configurations X (16 threads, as recorded: 1.0 s each) and Y (8
// threads: phase 1 0.9 s, phase 2 1.1 s), 0.15 s whenever the thread
// count changes between adjacent phases. Per-phase best (Y, X) costs
// 0.9 + 1.0 + 2·0.15 = 2.2 s per iteration once cycling (the first
// phase pays no switch); one phase per group keeps 2.0 s, so the
// profile-driven mapping is worse, as in the thesis.
func TestT9SwitchPenalty(t *testing.T) {
	const iters = 3
	tr := mpi.NewTrace(2)
	for it := 0; it < iters; it++ {
		for r := 0; r < 2; r++ {
			tr.AppendCompute(r, "p1", 1e9)
			tr.AppendCompute(r, "p2", 1e9)
			tr.Append(r, mpi.Event{Kind: mpi.Barrier})
		}
	}
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// g(c) = s + (1 − s)/c + κ(c − 1): phase 1 (s = 0, κ = 0.06875/6.5)
	// has g(8)/g(16) = 0.9; phase 2 (s = 0.36) has 0.44/0.40 = 1.1.
	prof := Profile{Rules: []Rule{
		{Pattern: "p1", Scaling: Scaling{Overhead: 0.06875 / 6.5, Beta: 1}},
		{Pattern: "p2", Scaling: Scaling{Serial: 0.36, Beta: 1}},
	}}
	node := testNode()
	node.Threads = []int{8, 16}
	free := network.NewLogGOPS(0, 0, 0, 0, 0, 65535)
	for _, c := range []struct {
		name  string
		gran  Granularity
		total float64
	}{
		{"per_phase", PerPhase, iters*2.2 - 0.15},
		{"one_phase", OnePhase, iters * 2.0},
	} {
		res, err := Run(tr, g, free, Options{Node: node, Profile: prof, Granularity: c.gran, SwitchPenaltyNs: 150_000_000, NoBound: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := float64(res.DCT.MakespanNs) / 1e9; !near(got, c.total, 1e-8) {
			t.Errorf("%s: %g s for %d iterations, want %g", c.name, got, iters, c.total)
		}
		if c.gran == PerPhase && (res.Threads[0][0][0] != 8 || res.Threads[0][0][1] != 16) {
			t.Errorf("per phase: threads %v, want (Y, X) = [8 16]", res.Threads[0][0])
		}
	}
}

// TestCoordinationOverhead is the LU-MZ row of Li, 2011, Ch. 3 results: on a
// balanced load of scalable phases no strategy changes a configuration,
// and what remains is the runtime's overhead, 0.736 % of the run. With
// the overhead per coordination round set to 0.736 % of the group's
// critical time, every task's groups grow by that much: the makespan
// grows by exactly the charged time (the load stays balanced), which is
// 0.736 % of the compute and so just under 0.736 % of the run (the
// halo exchanges and allreduces are not charged); combined coordinates
// twice per group (Li, 2011, §3.6) and pays twice.
func TestCoordinationOverhead(t *testing.T) {
	tr, err := gen.Stencil{Dims: []int{2, 2}, Iterations: 8, HaloBytes: 4096, ComputeNs: 10_000_000, Imbalance: gen.ImbalanceNone,
		Balance: 1, Intensity: 1, AllreduceBytes: 8, Seed: 3}.Generate()
	if err != nil {
		t.Fatal(err)
	}
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	scalable := Profile{Default: Scaling{Serial: 0.05, Beta: 1}}
	for _, c := range []struct {
		strat  Strategy
		rounds int
	}{{DCTFirst, 1}, {Combined, 2}} {
		res, err := Run(tr, g, network.DefaultLogGOPS(), Options{Node: testNode(), Profile: scalable, Strategy: c.strat, TDVFSNs: 10_000, Coordination: 0.00736, NoBound: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, grp := range res.Threads {
			for _, rk := range grp {
				for _, th := range rk {
					if th != 16 {
						t.Fatalf("%v: a phase ran %d threads on a balanced scalable load", c.strat, th)
					}
				}
			}
		}
		if res.SlackNs != 0 || res.CoordRounds != c.rounds*res.Groups {
			t.Errorf("%v: slack %d ns, %d rounds over %d groups; want 0 and %d per group", c.strat, res.SlackNs, res.CoordRounds, res.Groups, c.rounds)
		}
		// Each group's critical time is the 10 ms compute at (16, f_max).
		want := int64(res.Groups) * int64(math.Round(float64(c.rounds)*0.00736*10e6))
		if d := res.DCTDVFS.MakespanNs - res.Baseline.MakespanNs; d < want-int64(res.Groups) || d > want+int64(res.Groups) || abs64(res.CoordNs-want) > int64(res.Groups) {
			t.Errorf("%v: makespan grew %d ns, charged %d ns; want %d", c.strat, d, res.CoordNs, want)
		}
		t.Logf("%v: %d groups, lost %.4f %% time, saved %.4f %% energy", c.strat, res.Groups, res.TimeLostPct, res.EnergySavedPct)
		lost := 0.736 * float64(c.rounds)
		if res.TimeLostPct > lost || res.TimeLostPct < 0.95*lost {
			t.Errorf("%v: lost %.4f %% time; want just under %.3f %%", c.strat, res.TimeLostPct, lost)
		}
		if res.EnergySavedPct >= 0 {
			t.Errorf("%v: saved %.4f %% energy; the overhead only costs", c.strat, res.EnergySavedPct)
		}
	}
	if _, err := Run(tr, g, network.DefaultLogGOPS(), Options{Node: testNode(), Profile: scalable, Coordination: 1.5, NoBound: true}); err == nil {
		t.Error("coordination overhead 1.5 accepted")
	}
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
