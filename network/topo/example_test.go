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

// An oversubscribed fat-tree as SimGrid builds one (FAT_TREE
// "2;4,4;1,2;1,1"): 4 leaves of 4 hosts, each leaf with 2 parents, so
// the 4 hosts of a leaf share 2 up-links. D-mod-k takes host 0's message
// to host 5 up to spine 5 mod 2 = 1.
func ExampleNewXGFT() {
	t, err := topo.NewXGFT([]int{4, 4}, []int{1, 2}, []int{1, 1}, 12.5, 100)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t, "hosts:", t.Nodes(), "links:", t.NumLinks())
	fmt.Println(t.Route(nil, 0, 5))
	// Output:
	// fattree:down=4x4,up=1x2,links=1x1,bw=12.5,hop_ns=100 hosts: 16 links: 48
	// [0 33 43 21]
}
