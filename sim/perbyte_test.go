package sim

import (
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/network/topo"
	"github.com/capsim/capsim/traces/graph"
)

// A ping-pong of 1 MiB at 100 Gb/s (G = 0.08 ns per byte) takes twice
// the message's cost: each way (2^20 − 1) · 0.08 = 83,886 ns of bytes
// plus o + L + o = 1,000 + 1,500 + 1,000, so 2 · 87,386 = 174,772 ns,
// in both pricings of the bytes. At 3 GB/s (G = 0.333333 ns per byte,
// rounded to the femtosecond) each way's bytes take
// 1,048,575 · 0.333333 = 349,524.650 ns, charged as 349,525.
func TestFractionalGapPingPong(t *testing.T) {
	b := graph.NewBuilder(2)
	const s = 1 << 20
	ping := b.Add(0, graph.SendOp(s, 1, 1))
	b.Dep(0, b.Add(0, graph.RecvOp(s, 1, 2)), ping, graph.Requires)
	got := b.Add(1, graph.RecvOp(s, 0, 1))
	b.Dep(1, b.Add(1, graph.SendOp(s, 0, 2)), got, graph.Requires)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec string
		want int64
	}{
		{"loggops:L=1.5us,o=1us,g=0,bw=100Gb/s,S=1073741824", 174_772},
		{"loggp:L=1.5us,o=1us,g=0,bw=100Gb/s,S=1073741824", 174_772},
		{"loggp:L=1.5us,o=1us,g=0,G=3GB/s,S=1073741824", 2 * (3_500 + 349_525)},
		{"loggops:L=1.5us,o=1us,g=0,bw=100Gb/s,S=0", 174_772}, // rendezvous
	} {
		net, err := network.ParseSpec(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(g, net, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if r.Makespan != tc.want || r.Makespan != 2*net.Cost(s) {
			t.Errorf("%s: makespan %d ns, want %d (2·Cost = %d)", tc.spec, r.Makespan, tc.want, 2*net.Cost(s))
		}
	}
}

// TestHeaderBytes replays a 1 MiB ping-pong at 100 Gb/s with a 16-byte
// header (SMPI's envelope): every price by G counts s + H bytes, so each
// way's bytes take (2^20 + 15) · 0.08 = 83,887.2 ns, charged as 83,887,
// and the makespan is 2·Cost under both pricings. Over a crossbar with a
// private link per node (the flow model, CM02) a flow moves s + H bytes:
// each way o + two links' 1,000 ns + (2^20 + 16) / 12.5 = 83,887.36 ns,
// rounded up to 83,888, + o: 2 · 87,888 = 175,776 ns, against 2 · 87,887
// without the header.
func TestHeaderBytes(t *testing.T) {
	b := graph.NewBuilder(2)
	const s = 1 << 20
	ping := b.Add(0, graph.SendOp(s, 1, 1))
	b.Dep(0, b.Add(0, graph.RecvOp(s, 1, 2)), ping, graph.Requires)
	got := b.Add(1, graph.RecvOp(s, 0, 1))
	b.Dep(1, b.Add(1, graph.SendOp(s, 0, 2)), got, graph.Requires)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	xbar, err := topo.Parse("crossbar:bw=100Gb/s,hop_ns=1000")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec string
		flow bool
		want int64
	}{
		{"loggops:L=1.5us,o=1us,g=0,bw=100Gb/s,S=1073741824,H=16", false, 2 * (3_500 + 83_887)},
		{"loggp:L=1.5us,o=1us,g=0,bw=100Gb/s,S=1073741824,H=16", false, 2 * (3_500 + 83_887)},
		{"loggops:L=1.5us,o=1us,g=0,bw=100Gb/s,S=1073741824,H=0", false, 174_772},
		{"loggp:L=0,o=1us,g=0,G=0,S=1073741824,H=16", true, 175_776},
		{"loggp:L=0,o=1us,g=0,G=0,S=1073741824", true, 175_774},
	} {
		net, err := network.ParseSpec(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		var opt Options
		if tc.flow {
			opt.Flow = &FlowNetwork{Topology: xbar, CM02: true}
		}
		r, err := Run(g, net, opt)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if r.Makespan != tc.want || !tc.flow && r.Makespan != 2*net.Cost(s) {
			t.Errorf("%s (flow %v): makespan %d ns, want %d (2·Cost = %d)", tc.spec, tc.flow, r.Makespan, tc.want, 2*net.Cost(s))
		}
	}
}
