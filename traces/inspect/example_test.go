package inspect_test

import (
	"fmt"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/inspect"
	"github.com/capsim/capsim/traces/mpi"
)

// ExampleMPI summarises a two-rank MPI trace whose ranks were recorded
// running 5 µs and 4 µs, with 1 µs of rank 0's time recorded off.
func ExampleMPI() {
	t := mpi.NewTrace(2)
	t.AppendCompute(0, "solve", 2000)
	t.Append(0, mpi.Event{Kind: mpi.Send, Peer: 1, Bytes: 3000, Duration: 500})
	t.Append(1, mpi.Event{Kind: mpi.Recv, Peer: 0, Bytes: 3000, Duration: 2600})
	t.Recorded = &graph.Recorded{SpanNs: []int64{5000, 4000}, OffNs: []int64{1000, 0}}
	rep := inspect.MPI(t)
	m := rep.Messages
	fmt.Printf("%d message of %d bytes (histogram %v)\n", m.Count, m.Total, m.Histogram)
	fmt.Printf("regions %v\n", rep.Regions)
	fmt.Printf("recorded %d ns; %s\n", rep.Recorded.JobNs, rep.Recorded.Note)
	// Output:
	// 1 message of 3000 bytes (histogram [{4096 1}])
	// regions [{solve 1 2000}]
	// recorded 5000 ns; dropped 0.001 ms of measurement gaps (recording off 0.001 ms; before MPI_Init or after MPI_Finalize 0 ms) over 2 ranks
}
