package chakra_test

import (
	"fmt"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/chakra"
)

// Two NPUs each run a 20 µs kernel, then all-reduce 1 MiB of gradients
// (NCCL's ring by default), then a 10 µs kernel; the host thread runs a
// 25 µs operation meanwhile. Under a network of 1 ns per byte the ring
// moves 2(p−1) blocks of S/p bytes.
func ExampleBuild() {
	var files []*chakra.File
	for npu := 0; npu < 2; npu++ {
		gpu := []chakra.Attr{{Name: "is_cpu_op", Int: 0}}
		files = append(files, &chakra.File{Path: fmt.Sprintf("step.%d.et", npu), Nodes: []chakra.Node{
			{ID: 1, Name: "fwd", Type: chakra.CompNode, DurationMicros: 20, Attrs: gpu},
			{ID: 2, Name: "allreduce", Type: chakra.CommCollNode, DataDeps: []uint64{1}, Attrs: []chakra.Attr{
				{Name: "comm_type", Int: int64(chakra.AllReduce)}, {Name: "comm_size", Int: 1 << 20}}},
			{ID: 3, Name: "opt", Type: chakra.CompNode, DurationMicros: 10, DataDeps: []uint64{2}, Attrs: gpu},
			{ID: 4, Name: "host", Type: chakra.CompNode, DurationMicros: 25, Attrs: []chakra.Attr{{Name: "is_cpu_op", Int: 1}}},
		}})
	}
	tr, err := chakra.Build(files, chakra.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := sim.Run(tr.Graph, network.LogGOPS{GapPerByte: network.NsPerByte(1), EagerLimit: 1 << 30}, sim.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d ranks, %d operations, makespan %d ns\n", tr.Graph.NumRanks(), tr.Graph.NumOps(), res.Makespan)
	// Output: 2 ranks, 20 operations, makespan 1078574 ns
}
