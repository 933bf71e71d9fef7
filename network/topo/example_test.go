package topo_test

import (
	"fmt"

	"github.com/capsim/capsim/network/topo"
)

// Route a message across a 4-ary 2-tree with 2:1 oversubscription: up
// from host 0 to its leaf, up to a spine chosen by D-mod-k, down to host
// 9's leaf and to host 9.
func ExampleParse() {
	t, err := topo.Parse("fattree:k=4,n=2,oversub=2,bw=12.5,hop_ns=100")
	if err != nil {
		fmt.Println(err)
		return
	}
	route := t.Route(nil, 0, 9)
	for _, l := range route {
		fmt.Printf("link %d: %g GB/s\n", l, t.Link(l).Bandwidth)
	}
	// Output:
	// link 0: 12.5 GB/s
	// link 33: 6.25 GB/s
	// link 57: 6.25 GB/s
	// link 25: 12.5 GB/s
}
