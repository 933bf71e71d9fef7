package mcf_test

import (
	"fmt"

	"github.com/capsim/capsim/optimize/mcf"
)

// Two units from node 0 to node 2, directly at cost 3 a unit (at most
// one unit) or through node 1 at 1 + 1; then the direct arc becomes
// cheaper and the network is solved again from its last tree.
func Example() {
	g := mcf.New(3)
	g.SetSupply(0, 2)
	g.SetSupply(2, -2)
	direct := g.AddArc(0, 2, 1, 3)
	g.AddArc(0, 1, mcf.Inf, 1)
	g.AddArc(1, 2, mcf.Inf, 1)
	if err := g.Solve(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("cost", g.TotalCost(), "direct", g.Flow(direct))
	g.SetCost(direct, 1)
	if err := g.Solve(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("cost", g.TotalCost(), "direct", g.Flow(direct))
	// Output:
	// cost 4 direct 0
	// cost 3 direct 1
}
