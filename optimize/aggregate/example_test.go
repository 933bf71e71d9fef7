package aggregate_test

import (
	"fmt"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/aggregate"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/lower"
)

// A 16-rank 2-D stencil placed on System G nodes: every pattern is
// priced, and the thesis's rule and the energy model each pick one.
func ExampleEvaluate() {
	tr, _ := gen.Stencil{Dims: []int{4, 4}, Iterations: 4, HaloBytes: 4096, ComputeNs: 1_000_000,
		Imbalance: gen.ImbalanceNone, Intensity: 1, AllreduceBytes: 8}.Generate()
	g, _ := lower.Lower(tr, lower.Options{})
	w := aggregate.FromGraph(g)
	intra := network.LogGOPS{Latency: 300, Overhead: 200, GapPerByte: network.NsPerByte(1)}
	cfg := aggregate.Config{
		Topology:  aggregate.SystemG(),
		Threshold: aggregate.DefaultThreshold,
		Net:       aggregate.UniformIntra(network.DefaultLogGOPS(), intra),
		// Four concurrent intra-node flows double a message's time.
		Interference: aggregate.Interference{{Class: aggregate.CrossSocket, Noise: 2, Factor: 2},
			{Class: aggregate.SameSocket, Noise: 2, Factor: 2}, {Class: aggregate.SameDie, Noise: 2, Factor: 2}},
		IPC:   map[int]float64{1: 2.0, 2: 2.0, 3: 2.0, 4: 1.95, 5: 1.95, 6: 1.9, 7: 1.85, 8: 1.6},
		Power: aggregate.Power{BaseW: 200, CoreW: 20, SleepW: 10},
	}
	res, err := aggregate.Evaluate(w, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range res.Estimates {
		fmt.Printf("P%d %2d nodes comp %.3f ms comm %.3f ms Δt %+6.2f %% candidate %-5v %.3f J\n", e.Pattern.ID, e.Nodes,
			e.CompNs/1e6, e.CommNs/1e6, 100*e.DeltaNs/res.Estimates[0].TotalNs(), e.Candidate, e.EnergyJ)
	}
	fmt.Printf("Eq. 4.5 and ranking: P%d; least energy: P%d\n", res.Estimates[res.Chosen].Pattern.ID, res.Estimates[res.ByEnergy].Pattern.ID)
	rep, best, err := aggregate.Replay(g, cfg, res)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, r := range rep {
		if res.Estimates[i].Err == nil {
			fmt.Printf("replayed P%d %.3f ms %.3f J; ", i+1, float64(r.MakespanNs)/1e6, r.EnergyJ)
		}
	}
	fmt.Printf("least energy: P%d\n", res.Estimates[best].Pattern.ID)
	// Output:
	// P1 16 nodes comp 4.000 ms comm 1.140 ms Δt  +0.00 % candidate true  18.091 J
	// P2  8 nodes comp 4.000 ms comm 0.899 ms Δt  -4.69 % candidate true  9.797 J
	// P3  8 nodes comp 4.000 ms comm 0.899 ms Δt  -4.69 % candidate true  9.797 J
	// P4  8 nodes comp 4.103 ms comm 0.899 ms Δt  -2.69 % candidate true  10.003 J
	// P5  4 nodes comp 4.103 ms comm 0.746 ms Δt  -5.67 % candidate true  6.012 J
	// P6  4 nodes comp 4.211 ms comm 0.746 ms Δt  -3.56 % candidate true  6.146 J
	// P7  4 nodes comp 4.324 ms comm 0.746 ms Δt  -1.35 % candidate true  6.287 J
	// P8  2 nodes comp 5.000 ms comm 0.549 ms Δt  +7.97 % candidate false 4.772 J
	// Eq. 4.5 and ranking: P7; least energy: P5
	// replayed P1 4.775 ms 16.808 J; replayed P2 4.618 ms 9.237 J; replayed P3 4.618 ms 9.237 J; replayed P4 4.721 ms 9.442 J; replayed P5 4.531 ms 5.618 J; replayed P6 4.639 ms 5.752 J; replayed P7 4.753 ms 5.893 J; replayed P8 5.278 ms 4.539 J; least energy: P5
}
