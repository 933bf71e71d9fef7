package taskgraph_test

import (
	"fmt"

	"github.com/capsim/capsim/traces/taskgraph"
)

// Generate builds the tiled Cholesky graph of Anger's thesis (Georgia Tech
// 2016, §4.2.2.2); the default
// profiles give each kernel's Pareto frontier.
func Example() {
	d, err := taskgraph.Generate("cholesky:4")
	if err != nil {
		panic(err)
	}
	fmt.Println(d.NumTasks(), "tasks,", d.NumEdges(), "edges")
	for _, s := range d.Successors(0) {
		fmt.Println(d.Label(0), "->", d.Label(s))
	}
	p := taskgraph.DefaultProfiles()
	f := p.Pareto(taskgraph.POTRF)
	cs := p.Kernel(taskgraph.POTRF)
	fmt.Printf("POTRF: %d Pareto points, cheapest %d thread %.2f W, fastest %d threads %.3f ms\n",
		len(f), cs[f[0]].Threads, cs[f[0]].Power, cs[f[len(f)-1]].Threads, cs[f[len(f)-1]].Time*1e3)
	// Output:
	// 20 tasks, 30 edges
	// POTRF(0) -> TRSM(1,0)
	// POTRF(0) -> TRSM(2,0)
	// POTRF(0) -> TRSM(3,0)
	// POTRF: 27 Pareto points, cheapest 1 thread 2.00 W, fastest 27 threads 0.919 ms
}
