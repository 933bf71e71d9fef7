package sched_test

import (
	"fmt"

	"github.com/capsim/capsim/optimize/sched"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/taskgraph"
)

// Schedule a 10×10-tile Cholesky graph on the default Xeon Phi node under
// a 60 W cap on incremental power with each policy, relative to Fair.
func Example() {
	d, _ := taskgraph.Cholesky(10)
	w, err := sim.NewTaskWorkload(d, taskgraph.DefaultProfiles())
	if err != nil {
		panic(err)
	}
	node := sim.Node{Cores: 112, Cap: 60, IdleW: 106.9}
	var fair int64
	for _, name := range sched.Names {
		pol, _ := sched.New(name, sched.Options{})
		res, err := sim.RunTasks(w, node, pol)
		if err != nil {
			panic(err)
		}
		if name == "fs" {
			fair = res.Makespan
		}
		fmt.Printf("%-3s makespan %6.2f ms  avg %5.2f W  peak %5.2f W  rel %.3f\n", name,
			float64(res.Makespan)/1e6, res.AvgPower, res.PeakPower, sched.RelativePerformance(fair, res.Makespan))
	}
	// Output:
	// fs  makespan  53.36 ms  avg 45.77 W  peak 59.35 W  rel 1.000
	// ccs makespan  55.13 ms  avg 38.64 W  peak 44.80 W  rel 0.968
	// pas makespan  40.32 ms  avg 53.95 W  peak 60.00 W  rel 1.323
	// sas makespan  38.52 ms  avg 55.80 W  peak 60.00 W  rel 1.385
}
