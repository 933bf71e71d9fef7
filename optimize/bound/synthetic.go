package bound

import (
	"math/rand/v2"

	"github.com/capsim/capsim/optimize/frontier"
)

// SyncDAG returns the bound's synthetic benchmark DAG: ranks × steps
// compute tasks, each rank running one task a step and every step ending
// in a collective (one vertex that all ranks' tasks of the step end at and
// the next step's start from), each task with configs configurations on a
// convex frontier (time from 1 to 10 units at the fastest, scaled as
// 0.3 + 0.7/f at frequency share f from 1 down to 0.4 + 0.6/configs, power
// 20 + 80·f³ W), drawn from seed: the collective-only, CoMD-like
// structure of CoMD (Bailey et al., SC'15, §6). The LP splits at every collective into
// steps − 1 independent blocks, so it grows linearly in tasks: it is the
// size benchmark of the LP and its solver (bench/run's LP table, README
// Performance), not a workload of any application.
func SyncDAG(ranks, steps, configs int, seed uint64) *DAG {
	rng := rand.New(rand.NewPCG(seed, 9))
	d := &DAG{Vertices: steps + 1, Init: 0, Fin: steps}
	d.Tasks = make([]Task, 0, ranks*steps)
	for m := 0; m < steps; m++ {
		for r := 0; r < ranks; r++ {
			base := 1 + 9*rng.Float64()
			cs := make([]frontier.Config, configs)
			for c := range cs {
				f := 1 - 0.6*float64(c)/float64(configs)
				cs[c] = frontier.Config{Time: base * (0.3 + 0.7/f), Power: 20 + 80*f*f*f}
			}
			h, _ := frontier.Hull(cs)
			d.Tasks = append(d.Tasks, Task{Rank: r, Src: m, Dst: m + 1, Hull: h})
		}
	}
	return d
}
