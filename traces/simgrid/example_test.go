package simgrid_test

import (
	"fmt"
	"log"

	"github.com/capsim/capsim/traces/simgrid"
)

// Read the single-file TI trace that ships with capsim and count what it
// holds; its "# smpi/host-speed: 1Gf" line sets the speed of its flops.
func ExampleRead() {
	t, err := simgrid.Read("../../examples/traces/ti.txt", simgrid.Options{})
	if err != nil {
		log.Fatal(err)
	}
	var computeNs int64
	for _, e := range t.Ranks[1].Events {
		computeNs += e.Duration
	}
	fmt.Printf("%d ranks, %d events, rank 1 computes %.3f ms\n", len(t.Ranks), t.NumEvents(), float64(computeNs)/1e6)
	// Output: 16 ranks, 782 events, rank 1 computes 3.800 ms
}
