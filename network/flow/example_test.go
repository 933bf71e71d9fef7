package flow_test

import (
	"fmt"

	"github.com/capsim/capsim/network/flow"
)

// Two flows share link 1 (10 bytes/ns); the first is held to 1 byte/ns by
// link 0, so max-min fairness gives the second the other 9.
func ExampleNet() {
	n := flow.New([]float64{1, 10})
	a := n.Start(0, []int32{0, 1}, 100, 1, 0, 0, 0)
	b := n.Start(0, []int32{1}, 900, 1, 0, 0, 0)
	endA, _ := n.End(a)
	endB, _ := n.End(b)
	fmt.Println(n.Rate(a), n.Rate(b), endA, endB)
	// Output: 1 9 100 100
}
