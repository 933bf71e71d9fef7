package network_test

import (
	"fmt"

	"github.com/capsim/capsim/network"
)

// A network given with units: 1.5 us of latency and a 100 Gb/s link
// (G = 0.08 ns per byte). A 1 MiB message's bytes take 1,048,575 · 0.08
// = 83,886 ns.
func ExampleParseSpec_units() {
	p, err := network.ParseSpec("loggp:L=1.5us,o=1us,g=0,bw=100Gb/s")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p)
	fmt.Println(p.Cost(1<<20), "ns")
	_, err = network.ParseSpec("loggp:G=abc")
	fmt.Println(err)
	// Output:
	// loggp:L=1500,o=1000,g=0,G=0.08,O=0,S=65535
	// 87386 ns
	// network spec "loggp:G=abc": G="abc" is not a number of ns per byte or a bandwidth like 12.5GB/s: "abc" is not a number
}

// Times rounds a product of bytes and a time per byte once, to the
// nearest ns, halves up.
func ExamplePerByte_Times() {
	g, _ := network.ParsePerByte("400Gb/s") // 0.02 ns per byte
	fmt.Println(g, g.Times(999_999))        // 19,999.98 ns
	h, _ := network.ParsePerByte("0.5")
	fmt.Println(h.Times(1), h.Times(2), h.Times(3)) // 0.5, 1, 1.5
	// Output:
	// 0.02 20000
	// 1 1 2
}
