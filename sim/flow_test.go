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
		for _, neighbours := range []bool{false, true} {
			res, err := Run(g, bwNet, Options{Flow: &FlowNetwork{Topology: top, Neighbours: neighbours}})
			if err != nil {
				t.Fatal(err)
			}
			want := float64(max(15, 12*s)*B) / 10
			if math.Abs(float64(res.Makespan)-want) > 2 {
				t.Errorf("oversub %d (neighbours %v): makespan %d, want %.0f", s, neighbours, res.Makespan, want)
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

// TestFlowTorusCM02Simultaneous is the smallest case found where SimGrid's
// default lazy max-min updates break a link's capacity (docs/design/network.md,
// tor16-a2a), timed by hand for exact CM02 sharing. On a 4×4 torus with
// SimGrid's TORUS cluster (no NIC links, SimGrid's ties), 1 B/ns links and
// 5 µs hops, all three flows of 1 MiB:
//
//	A: 1→3 at 0, over (1,0)→(2,0)→(3,0): 2 hops, bytes from 10 µs;
//	B: 0→2 at 5 µs, over (0,0)→(1,0)→(2,0): 2 hops, bytes from 15 µs;
//	C: 3→5 at 0, over (3,0)→(0,0)→(1,0)→(1,1): 3 hops, bytes from 15 µs.
//
// CM02 weighs flows by 1/latency: A and B 1/10, C 1/15 (per µs). From
// 10 µs A runs alone at 1; from 15 µs link (1,0)→(2,0) (A, B: 1/(1/10 +
// 1/10) = 5 per unit of weight) is the bottleneck before (0,0)→(1,0)
// (B, C: 1/(1/10 + 1/15) = 6): A = B = 0.5 and C takes the 0.5 that B
// leaves on (0,0)→(1,0). A has 2^20 − 5,000 bytes left: it ends at
// 15,000 + 2·1,043,576 = 2,102,152. B and C have 5,000 bytes left each;
// (0,0)→(1,0) now limits B to 0.6 and C to 0.4: B ends after
// ⌈5,000/0.6⌉ = 8,334 ns at 2,110,486; C, with 5,000 − 0.4·8,334 =
// 1,666.4 bytes left, alone at 1, ⌈1,666.4⌉ = 1,667 ns later: 2,112,153.
// With Neighbours, A's end re-rates only B (C shares no link with A), which
// keeps 0.5 beside C's 0.5 on (0,0)→(1,0): both end at 2,112,152.
// (SimGrid with full updates gives these times plus 16 ns for its 16-byte
// MPI envelope; with lazy updates it gives A 1,058,592 and B 1,762,653, A
// running at 1 and B at 0.6 on the same unit link.)
func TestFlowTorusCM02Simultaneous(t *testing.T) {
	const B = 1 << 20
	b := graph.NewBuilder(16)
	b.Add(1, graph.SendOp(B, 3, 0))
	b.Add(3, graph.RecvOp(B, 1, 0))
	c := b.Add(0, graph.CalcOp(5000))
	b.Dep(0, b.Add(0, graph.SendOp(B, 2, 1)), c, graph.Requires)
	b.Add(2, graph.RecvOp(B, 0, 1))
	b.Add(3, graph.SendOp(B, 5, 2))
	b.Add(5, graph.RecvOp(B, 3, 2))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	top, err := topo.Parse("torus:dims=4x4,bw=1,hop_ns=5000,nic=0,tie=simgrid")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		neighbours bool
		a, b, c    int64 // when ranks 3, 2 and 5 receive A, B and C
	}{{false, 2_102_152, 2_110_486, 2_112_153}, {true, 2_102_152, 2_112_152, 2_112_152}} {
		res, err := Run(g, bwNet, Options{Flow: &FlowNetwork{Topology: top, Neighbours: c.neighbours, CM02: true}})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []struct {
			rank int
			at   int64
		}{{3, c.a}, {2, c.b}, {5, c.c}} {
			// ±1 ns: weights such as 1/10,000 are not exact in binary,
			// and completion times are rounded up to whole ns.
			if got := res.Ranks[w.rank].Finish; got < w.at-1 || got > w.at+1 {
				t.Errorf("neighbours=%v: rank %d received at %d, want %d", c.neighbours, w.rank, got, w.at)
			}
		}
	}
}

// TestFlowXGFTOversubscription: SimGrid's way of oversubscribing a
// 4-ary 2-tree, fewer spines (up=1x2: each leaf has 2 up-links for its 4
// hosts) or parallel links to one spine (up=1x1, links=1x2), halves the
// bandwidth out of a leaf as oversub=2 does: a shift by 4 puts 2
// messages on every up- and down-link and takes 2·B/bw; with 4 spines
// (the k-ary n-tree) B/bw.
func TestFlowXGFTOversubscription(t *testing.T) {
	const B = 1 << 20
	src, dst := []int{}, []int{}
	for i := 0; i < 16; i++ {
		src, dst = append(src, i), append(dst, (i+4)%16)
	}
	g := sends(16, src, dst, B)
	for _, c := range []struct {
		spec string
		s    int
	}{
		{"fattree:down=4x4,up=1x4,bw=10,hop_ns=0", 1},
		{"fattree:down=4x4,up=1x2,bw=10,hop_ns=0", 2},
		{"fattree:down=4x4,up=1x1,links=1x2,bw=10,hop_ns=0", 2},
		{"fattree:down=4x4,up=1x1,bw=10,hop_ns=0", 4},
	} {
		res := runFlow(t, g, bwNet, c.spec)
		if want := int64(math.Ceil(float64(c.s*B) / 10)); res.Makespan != want {
			t.Errorf("%s: makespan %d, want %d", c.spec, res.Makespan, want)
		}
	}
}

// TestFlowDragonflySimGridWiring: with SimGrid's wiring one global link
// joins two groups, so the 4 hosts of router 1 of group 0 (the router
// that owns the link to group 1) sending to group 1 share it: 4·B/bw,
// while 4 messages from group 0 to groups 1, 2, 3 and from group 2 to
// group 3 cross distinct global links (B/bw, each host link and local
// link carrying one).
func TestFlowDragonflySimGridWiring(t *testing.T) {
	const B = 1 << 20
	const spec = "dragonfly:groups=4,routers=4,hosts=4,wiring=simgrid,bw=10,hop_ns=0"
	// Hosts 4..7 are on router 1 of group 0; group 1 starts at host 16.
	res := runFlow(t, sends(64, []int{4, 5, 6, 7}, []int{16, 21, 26, 31}, B), bwNet, spec)
	if want := int64(math.Ceil(4 * float64(B) / 10)); res.Makespan != want {
		t.Errorf("4 messages over one global link: makespan %d, want %d", res.Makespan, want)
	}
	res = runFlow(t, sends(64, []int{0, 5, 10, 32}, []int{16, 33, 50, 48}, B), bwNet, spec)
	if want := int64(math.Ceil(float64(B) / 10)); res.Makespan != want {
		t.Errorf("messages on distinct global links: makespan %d, want %d", res.Makespan, want)
	}
}

// arrivals records when each message was matched, by the time it was
// sent (Observer).
type arrivals map[int64]int64

func (arrivals) Busy(op int32, start, end int64)            {}
func (a arrivals) Message(send, recv int32, sent, at int64) { a[sent] = at }

// TestFlowTimingEjection is the smallest case of what made the old
// default timing (BytesFirst: bytes first, latency after) 3 times slower
// than CM02's on ft256-a2a (docs/design/network.md): two messages whose bytes
// never meet on the wire share the receiver's link. On a 4-ary 2-tree of
// 1 B/ns links and 5 µs hops, 100,000 bytes each into host 5:
//
//	A: 4→5 at 0 (same leaf: 2 hops, 10 µs);
//	B: 0→5 at 95 µs (other leaf: 4 hops, 20 µs).
//
// A's bytes reach host 5 until 10 + 100 = 110 µs, B's from 95 + 20 =
// 115 µs: the two never cross host 5's link together. Latency first (the
// default, and CM02), each runs alone: A arrives at 110 µs, B at
// 95 + 20 + 100 = 215 µs. Bytes first, A holds its whole route over
// [0, 100 µs] and B from 95 µs: they share host 5's link from 95 µs, A's
// last 5,000 bytes at 0.5 end at 105 µs (arrival 115 µs), and B, with
// 5,000 bytes sent by then, sends its other 95,000 alone until 200 µs
// (arrival 220 µs).
func TestFlowTimingEjection(t *testing.T) {
	const B = 100_000
	b := graph.NewBuilder(16)
	b.Add(4, graph.SendOp(B, 5, 0))
	b.Add(5, graph.RecvOp(B, 4, 0))
	c := b.Add(0, graph.CalcOp(95_000))
	b.Dep(0, b.Add(0, graph.SendOp(B, 5, 1)), c, graph.Requires)
	b.Add(5, graph.RecvOp(B, 0, 1))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	top, err := topo.Parse("fattree:k=4,n=2,bw=1,hop_ns=5000")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		f        FlowNetwork
		atA, atB int64
	}{
		{"default", FlowNetwork{}, 110_000, 215_000},
		{"neighbours", FlowNetwork{Neighbours: true}, 110_000, 215_000},
		{"CM02", FlowNetwork{CM02: true}, 110_000, 215_000},
		{"bytes first", FlowNetwork{BytesFirst: true}, 115_000, 220_000},
		{"bytes first, neighbours", FlowNetwork{BytesFirst: true, Neighbours: true}, 115_000, 220_000},
	} {
		f := c.f
		f.Topology = top
		obs := arrivals{}
		if _, err := Run(g, bwNet, Options{Flow: &f, Observer: obs}); err != nil {
			t.Fatal(err)
		}
		if obs[0] != c.atA || obs[95_000] != c.atB {
			t.Errorf("%s: A arrived at %d ns, B at %d ns; want %d and %d", c.name, obs[0], obs[95_000], c.atA, c.atB)
		}
	}
}

// TestFlowNonOvertaking: rank 0 sends rank 1 1,000,000 bytes and then
// 1,000 bytes on the same tag, both at once; at 1 byte/ns they share the
// links, so the short message's flow ends first (2,000 ns) and the long
// one's at 1,001,000 ns. MPI matches a channel's messages in the order
// they were sent, so rank 1's first receive takes the long message and
// its computation of 1 ms runs after it: 2,001,000 ns. On another tag the
// short message is matched by its own receive when it arrives.
func TestFlowNonOvertaking(t *testing.T) {
	for _, tc := range []struct {
		name string
		tag  int32 // the short message's tag
		want int64
	}{{"same tag", 5, 2_001_000}, {"other tag", 6, 1_002_000}} {
		b := graph.NewBuilder(2)
		long := b.Add(0, graph.SendOp(1_000_000, 1, 5))
		b.Dep(0, b.Add(0, graph.SendOp(1_000, 1, tc.tag)), long, graph.Requires)
		recvs := [2]graph.Op{graph.RecvOp(1_000_000, 0, 5), graph.RecvOp(1_000, 0, 5)}
		if tc.tag != 5 {
			recvs = [2]graph.Op{graph.RecvOp(1_000, 0, tc.tag), graph.RecvOp(1_000_000, 0, 5)}
		}
		first := b.Add(1, recvs[0])
		calc := b.Add(1, graph.CalcOp(1_000_000))
		b.Dep(1, calc, first, graph.Requires)
		b.Dep(1, b.Add(1, recvs[1]), calc, graph.Requires)
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		net := network.NewLogGOPS(0, 0, 0, 0, 0, 1<<40)
		net.LogGP = true
		if got := runFlow(t, g, net, "crossbar:bw=1,hop_ns=0").Makespan; got != tc.want {
			t.Errorf("%s: makespan %d ns, want %d", tc.name, got, tc.want)
		}
	}
}
