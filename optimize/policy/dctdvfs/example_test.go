package dctdvfs_test

import (
	"fmt"

	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/policy/dctdvfs"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/lower"
)

// A 2×2 stencil with a random load imbalance, run as hybrid MPI/OpenMP on
// 16-thread nodes whose phases scale by Amdahl's law (5 % serial).
func ExampleRun() {
	tr, _ := gen.Stencil{Dims: []int{2, 2}, Iterations: 8, HaloBytes: 4096, ComputeNs: 10_000_000,
		Imbalance: gen.ImbalanceRandom, Balance: 0.3, Intensity: 1, AllreduceBytes: 8, Seed: 3}.Generate()
	g, _ := lower.Lower(tr, lower.Options{})
	node := dctdvfs.Node{Threads: dctdvfs.PowersOfTwo(16), IdleW: 90, WaitW: 10, Wait: power.WaitPower{Mode: power.WaitIdle},
		PStates: []power.PState{{GHz: 2.1, Watts: 12}, {GHz: 1.9, Watts: 10.2}, {GHz: 1.7, Watts: 8.7}, {GHz: 1.5, Watts: 7.4}, {GHz: 1.4, Watts: 6.8}}}
	res, err := dctdvfs.Run(tr, g, network.DefaultLogGOPS(), dctdvfs.Options{Node: node,
		Profile: dctdvfs.Profile{Default: dctdvfs.Scaling{Serial: 0.05, Beta: 1}}, TDVFSNs: 10_000})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("baseline %.3f ms %.3f J; DCT+DVFS %.3f ms %.3f J\n", float64(res.Baseline.MakespanNs)/1e6, res.Baseline.EnergyJ,
		float64(res.DCTDVFS.MakespanNs)/1e6, res.DCTDVFS.EnergyJ)
	fmt.Printf("energy saved %.2f %%, time lost %.2f %%, knapsack %.3f J vs its LP relaxation %.3f J\n",
		res.EnergySavedPct, res.TimeLostPct, res.KnapsackJ, res.RelaxedJ)
	fmt.Printf("LP bound at the policy's peak %.1f W: %s, gap %.2f %%\n", res.Gap.CapW, res.Gap.Status, res.Gap.Pct)
	// Output:
	// baseline 80.923 ms 72.074 J; DCT+DVFS 80.923 ms 70.328 J
	// energy saved 2.42 %, time lost 0.00 %, knapsack 38.664 J vs its LP relaxation 38.664 J
	// LP bound at the policy's peak 1041.6 W: ok, gap 0.85 %
}

// A hand-checkable case: two phases at f_max, f2 and f3 (time s, power W); with
// 1.0 s of slack the knapsack picks f2 for both (1161 J, 0.9 s used).
func ExampleSelectFrequencies() {
	phases := [][]dctdvfs.Level{
		{{Seconds: 4.0, Watts: 200}, {Seconds: 4.5, Watts: 170}, {Seconds: 5.2, Watts: 150}},
		{{Seconds: 2.0, Watts: 200}, {Seconds: 2.4, Watts: 165}, {Seconds: 2.9, Watts: 140}},
	}
	sel, err := dctdvfs.SelectFrequencies(phases, 1.0, dctdvfs.PhaseOnly, 0, 1e-3)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("levels %v, %.0f J, %.1f s of slack used\n", sel.Levels, sel.PhaseJ, sel.UsedS)
	// Output: levels [1 1], 1161 J, 0.9 s of slack used
}
