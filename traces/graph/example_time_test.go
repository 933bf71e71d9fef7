package graph_test

import (
	"fmt"

	"github.com/capsim/capsim/traces/graph"
)

// Times computed in floating point convert to ns against the one time
// limit, graph.MaxTimeNs: an error past it rather than a wrapped value.
func ExampleSecondsToNs() {
	ns, err := graph.SecondsToNs(1.5e-3)
	fmt.Println(ns, err)
	_, err = graph.SecondsToNs(4e9) // 4·10^18 ns
	fmt.Println(err)
	fmt.Println(graph.SatNs(1e19) == graph.MaxTimeNs+1)
	// Output:
	// 1500000 <nil>
	// time 4e+09 s is not in 0..1000000000000000000 ns (graph.MaxTimeNs, about 31.7 years)
	// true
}
