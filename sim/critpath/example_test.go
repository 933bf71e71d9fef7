package critpath_test

import (
	"fmt"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/sim/critpath"
	"github.com/capsim/capsim/traces/graph"
)

// Rank 0 computes 10 µs and sends 1000 B to rank 1, which receives it and
// computes 5 µs, under LogGOPSim's default network parameters.
func ExampleRun() {
	b := graph.NewBuilder(2)
	c := b.Add(0, graph.CalcOp(10000))
	s := b.Add(0, graph.SendOp(1000, 1, 0))
	b.Dep(0, s, c, graph.Requires)
	r := b.Add(1, graph.RecvOp(1000, 0, 0))
	c = b.Add(1, graph.CalcOp(5000))
	b.Dep(1, c, r, graph.Requires)
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	net := network.LogGOPS{Latency: 2500, Overhead: 1500, Gap: 1000, GapPerByte: network.NsPerByte(6), EagerLimit: 65535}
	res, path, err := critpath.Run(g, net, sim.Options{})
	if err != nil {
		panic(err)
	}
	for _, seg := range path.Segments {
		fmt.Printf("rank %d %-8s %-12s %6d ns from %6d\n", seg.Rank, seg.Kind, critpath.Describe(g, seg), seg.Duration(), seg.Start)
	}
	comp, comm, wait := path.Shares()
	fmt.Printf("makespan %d ns: compute %d, communication %d, wait %d\n", res.Makespan, comp, comm, wait)
	// Output:
	// rank 0 compute  calc          10000 ns from      0
	// rank 0 send     1000 B 0→1     1500 ns from  10000
	// rank 0 message  1000 B 0→1     2500 ns from  11500
	// rank 1 recv     1000 B 0→1     7494 ns from  14000
	// rank 1 compute  calc           5000 ns from  21494
	// makespan 26494 ns: compute 15000, communication 11494, wait 0
}
