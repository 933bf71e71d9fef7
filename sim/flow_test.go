package sim

import (
	"math"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/network/topo"
	"github.com/capsim/capsim/traces/graph"
)

// bwNet has no endpoint costs, so that a replay on a topology measures
// the links alone.
var bwNet = network.NewLogGOPS(0, 0, 0, 0, 0, 1<<40)

// sends builds a graph in which rank src[i] sends bytes to dst[i] (each
// once, all at time 0).
func sends(ranks int, src, dst []int, bytes int64) *graph.Graph {
	b := graph.NewBuilder(ranks)
	for i := range src {
		b.Add(src[i], graph.SendOp(bytes, int32(dst[i]), int32(i)))
		b.Add(dst[i], graph.RecvOp(bytes, int32(src[i]), int32(i)))
	}
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	return g
}

// pairwiseAlltoall builds an all-to-all by pairwise exchange: in round
// r = 1..p−1 rank i sends to i+r and receives from i−r, each round's send
// waiting for the previous round's receive.
func pairwiseAlltoall(p int, bytes int64) *graph.Graph {
	b := graph.NewBuilder(p)
	for i := 0; i < p; i++ {
		prev := int32(-1)
		for r := 1; r < p; r++ {
			s := b.Add(i, graph.SendOp(bytes, int32((i+r)%p), int32(r)))
			if prev >= 0 {
				b.Dep(i, s, prev, graph.Requires)
			}
			prev = b.Add(i, graph.RecvOp(bytes, int32((i-r+p)%p), int32(r)))
		}
	}
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	return g
}

func runFlow(t testing.TB, g *graph.Graph, net network.LogGOPS, spec string) *Result {
	t.Helper()
	top, err := topo.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(g, net, Options{Flow: &FlowNetwork{Topology: top}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestFlowOneLink: n messages into one host share its ejection link, each
// getting 1/n of it; the endpoint costs o and L are kept.
func TestFlowOneLink(t *testing.T) {
	const B = 1 << 20
	net := network.NewLogGOPS(1000, 200, 0, 0, 0, 1<<40) // L=1000, o=200
	for n := 1; n <= 4; n++ {
		src, dst := []int{}, []int{}
		for i := 1; i <= n; i++ {
			src, dst = append(src, i), append(dst, 0)
		}
		// One switch of 8 hosts; bw 10 B/ns, 50 ns per hop, 2 hops.
		res := runFlow(t, sends(n+1, src, dst, B), net, "fattree:k=8,n=1,bw=10,hop_ns=50")
		// Senders start at 0; the flows share the 10 B/ns ejection link
		// and end together at n·B/10; each message then arrives o + L +
		// 2 hops later and costs the receiver o. The n receives are
		// processed one after the other (o each).
		want := int64(math.Ceil(float64(n*B)/10)) + 200 + 1000 + 100 + int64(n)*200
		if res.Makespan != want {
			t.Errorf("%d flows into one host: makespan %d, want %d", n, res.Makespan, want)
		}
		ej := res.Links[8] // host 0's down-link
		if ej.Peak != int32(n) || ej.Bytes != int64(n)*B {
			t.Errorf("%d flows: ejection link stats %+v", n, ej)
		}
	}
}

// TestFlowOversubscription: on a 4-ary 2-tree, a shift by 4 sends every
// message across the spine; with oversubscription s the up-links run at
// bw/s and the transfer takes s times as long.
func TestFlowOversubscription(t *testing.T) {
	const B = 1 << 20
	src, dst := []int{}, []int{}
	for i := 0; i < 16; i++ {
		src, dst = append(src, i), append(dst, (i+4)%16)
	}
	g := sends(16, src, dst, B)
	for _, s := range []int{1, 2, 4} {
		res := runFlow(t, g, bwNet, "fattree:k=4,n=2,bw=10,hop_ns=0,oversub="+string(rune('0'+s)))
		want := int64(math.Ceil(float64(s*B) / 10))
		if res.Makespan != want {
			t.Errorf("oversub %d: makespan %d, want %d", s, res.Makespan, want)
		}
	}
}

// TestFlowAlltoallOversubscription: a linear all-to-all (every rank
// sends its 15 messages at once) of 16 ranks on a 4-ary 2-tree. Each
// leaf's 4 up-links carry its 4·12 messages to other leaves, 12 each
// (D-mod-k), at bw/s; each host link carries 15 messages at bw. With
// s = 1 the host links are the bottleneck, 15·B/bw; with s ≥ 2 the
// up-links are, 12·s·B/bw: oversubscription s slows the all-to-all by
// s·(N−k)/(N−1) = s·12/15.
func TestFlowAlltoallOversubscription(t *testing.T) {
	const B = 1 << 20
	const p = 16
	src, dst := []int{}, []int{}
	for i := 0; i < p; i++ {
		for r := 1; r < p; r++ {
			src, dst = append(src, i), append(dst, (i+r)%p)
		}
	}
	g := sends(p, src, dst, B)
	for _, s := range []int{1, 2, 3, 4} {
		top, err := topo.Parse("fattree:k=4,n=2,bw=10,hop_ns=0,oversub=" + string(rune('0'+s)))
		if err != nil {
			t.Fatal(err)
		}
		for _, exact := range []bool{false, true} {
			res, err := Run(g, bwNet, Options{Flow: &FlowNetwork{Topology: top, Exact: exact}})
			if err != nil {
				t.Fatal(err)
			}
			want := float64(max(15, 12*s)*B) / 10
			if math.Abs(float64(res.Makespan)-want) > 2 {
				t.Errorf("oversub %d (exact %v): makespan %d, want %.0f", s, exact, res.Makespan, want)
			}
		}
	}
}

// TestFlowTorusHotSpot: on a 4×4 torus, (0,0)→(2,1) goes X first and so
// shares the link (1,0)→(2,0) with (1,0)→(2,0): each gets half of it.
// A third flow (3,3)→(3,2), on links of its own, runs at full rate.
func TestFlowTorusHotSpot(t *testing.T) {
	const B = 1 << 20
	g := sends(16, []int{0, 1, 15}, []int{6, 2, 11}, B)
	res := runFlow(t, g, bwNet, "torus:dims=4x4,bw=10,hop_ns=0")
	if want := int64(math.Ceil(2 * B / 10.0)); res.Makespan != want {
		t.Errorf("makespan %d, want %d", res.Makespan, want)
	}
	tor, _ := topo.NewTorus([]int{4, 4}, 10, 0)
	hot := res.Links[tor.NeighbourLink(1, 0, true)]
	if hot.Peak != 2 || hot.Bytes != 2*B || hot.BusyNs != res.Makespan {
		t.Errorf("hot link stats %+v, want peak 2, %d bytes, busy %d", hot, 2*B, res.Makespan)
	}
	if r := res.Ranks[11].Finish; r != int64(math.Ceil(B/10.0)) {
		t.Errorf("the flow on its own links finished at %d, want %d", r, int64(math.Ceil(B/10.0)))
	}
}

// TestFlowCrossbarUnchanged: a topology without links replays exactly as
// LogGOPS does.
func TestFlowCrossbarUnchanged(t *testing.T) {
	g := ringAllreduce(16, 1<<16)
	plain, err := Run(g, network.DefaultLogGOPS(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(g, network.DefaultLogGOPS(), Options{Flow: &FlowNetwork{Topology: &topo.Crossbar{}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Makespan != plain.Makespan || res.Events != plain.Events {
		t.Errorf("crossbar: makespan %d, %d events; LogGOPS: %d, %d", res.Makespan, res.Events, plain.Makespan, plain.Events)
	}
}

func TestFlowBadMapping(t *testing.T) {
	g := ringAllreduce(4, 64)
	top, _ := topo.Parse("fattree:k=2,n=1")
	for _, m := range [][]int32{{0, 1}, {0, 1, 2, 0}} {
		if _, err := Run(g, bwNet, Options{Flow: &FlowNetwork{Topology: top, Mapping: m}}); err == nil {
			t.Errorf("mapping %v: no error", m)
		}
	}
}
