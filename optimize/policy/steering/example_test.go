package steering_test

import (
	"fmt"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/policy/steering"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/lower"
)

// Steering a 4×4 compute-bound stencil with a wavefront load imbalance on
// the DPS machine of Anger, 2016 (budget: every core at 1.7 GHz).
func ExampleRun() {
	tr, _ := gen.Stencil{Dims: []int{4, 4}, Iterations: 20, HaloBytes: 4096, ComputeNs: 2_000_000,
		Imbalance: gen.ImbalanceWavefront, Balance: 0.25, Intensity: 1, AllreduceBytes: 8, Seed: 1}.Generate()
	g, _ := lower.Lower(tr, lower.Options{})
	res, err := steering.Run(tr, g, network.DefaultLogGOPS(), steering.Options{Machine: steering.NoteMachine()})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("budget %g W, %d iterations, baseline all at %g GHz\n", res.BudgetW, res.Phases, res.BaseGHz)
	fmt.Printf("runtime %.3f → %.3f ms (%.2f %% better), energy %.4f → %.4f J (%.2f %% better)\n",
		float64(res.Baseline.MakespanNs)/1e6, float64(res.Steered.MakespanNs)/1e6, res.RuntimePct,
		res.Baseline.EnergyJ, res.Steered.EnergyJ, res.EnergyPct)
	fmt.Printf("iteration 10, ranks 0-3: %v GHz\n", res.GHz[10][:4])
	fmt.Printf("LP bound at %g W: %s, gap %.2f %%\n", res.Gap.CapW, res.Gap.Status, res.Gap.Pct)
	// Output:
	// budget 224 W, 20 iterations, baseline all at 1.7 GHz
	// runtime 52.799 → 43.783 ms (17.08 % better), energy 7.4680 → 6.7395 J (9.75 % better)
	// iteration 10, ranks 0-3: [1.4 1.4 1.7 1.9] GHz
	// LP bound at 224 W: ok, gap 7.84 %
}

// Algorithm 2 on row 1 of the Power Steering table of Anger, 2016: work 1.0, 0.6,
// 0.6, 0.3 at 2.1 GHz, fully compute bound, budget 56 W.
func ExampleAssign() {
	ghz := []float64{2.1, 1.9, 1.7, 1.5, 1.4}
	watts := []float64{20, 17, 14, 12, 11}
	var times [][]float64
	for _, w := range []float64{1.0, 0.6, 0.6, 0.3} {
		var row []float64
		for _, f := range ghz {
			row = append(row, w*2.1/f)
		}
		times = append(times, row)
	}
	states, total, ok := steering.Assign(times, watts, 56, false)
	for _, s := range states {
		fmt.Print(ghz[s], " ")
	}
	fmt.Println(total, ok)
	// Output: 2.1 1.4 1.4 1.4 53 true
}

// The same iteration on two nodes of two cores, 28 W of P-state power
// each: the two most loaded cores share node 0, so the critical core
// slows to 1.9 GHz for its node to fit (17 + 11 W), though the job's
// 56 W would let it run at 2.1 GHz.
func ExampleAssignNodes() {
	ghz := []float64{2.1, 1.9, 1.7, 1.5, 1.4}
	watts := []float64{20, 17, 14, 12, 11}
	var times [][]float64
	for _, w := range []float64{1.0, 0.6, 0.6, 0.3} {
		var row []float64
		for _, f := range ghz {
			row = append(row, w*2.1/f)
		}
		times = append(times, row)
	}
	states, total, ok := steering.AssignNodes(times, watts, []int{0, 0, 1, 1}, 28, false)
	for _, s := range states {
		fmt.Print(ghz[s], " ")
	}
	fmt.Println(total, ok)
	// Output: 1.9 1.4 1.4 1.4 50 true
}
