package bound

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/network/topo"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
)

// randomFlow is a random topology for ranks ranks, with random link
// bandwidths (0.05–5 B/ns, slower and faster than the LogGOPS G of the
// cases), a random flow timing and ranks mapped to random nodes, so that
// some share one.
func randomFlow(rng *rand.Rand, ranks int) *sim.FlowNetwork {
	bw := 0.05 * math.Pow(100, rng.Float64())
	specs := []string{
		"fattree:k=2,n=2,bw=%g,hop_ns=%d",
		"fattree:k=4,n=2,oversub=2,bw=%g,hop_ns=%d",
		"torus:dims=2x2x2,bw=%g,hop_ns=%d",
		"dragonfly:groups=3,routers=2,hosts=2,global=1,bw=%g,hop_ns=%d",
	}
	top, err := topo.Parse(fmt.Sprintf(specs[rng.Intn(len(specs))], bw, rng.Intn(500)))
	if err != nil {
		panic(err)
	}
	f := &sim.FlowNetwork{Topology: top, Mapping: make([]int32, ranks)}
	for r := range f.Mapping {
		f.Mapping[r] = int32(rng.Intn(top.Nodes()))
	}
	switch rng.Intn(4) {
	case 1:
		f.CM02 = true
	case 2:
		f.BytesFirst = true
	case 3:
		f.Neighbours = true
	}
	return f
}

// With a topology, the LP's least schedule at every task's fastest is the
// replay with every message crossing its route alone
// (sim.FlowNetwork.Uncontended), to the ns, and no contended replay at
// the fastest that keeps its orders is faster. (One that changes them
// can be: contention that delays a message can let another go first and
// shorten the run, as in case 24, 291,025 ns against 302,932 ns; the
// LP of its own orders bounds it, TestBoundValidFlow.)
func TestNetFlowFastestIsUncontended(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	rng := rand.New(rand.NewSource(2))
	slower, changed := 0, 0
	for k := 0; k < 60; k++ {
		c := newNetCaseFlow(t, rng, 8, WaitPower{}, func(ranks int) *sim.FlowNetwork { return randomFlow(rng, ranks) })
		n := c.n
		asap, err := InitialOrder(n.DAG)
		if err != nil {
			t.Fatal(err)
		}
		for v, tv := range asap.Times {
			if math.Abs(tv-n.Times[v]) > 1e-9*float64(len(n.TaskOp)+1) {
				t.Fatalf("case %d (%s): %s: the rows' least time %.9f, the uncontended replay's %.9f", k, c.flow.Topology, n.DAG.name(v), tv, n.Times[v])
			}
		}
		rec, pw := c.replay(t, func(i int) frontier.Config { return n.DAG.Tasks[i].Hull[0] })
		cert, err := n.Check(rec, pw, 1e9)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case !cert.Kept:
			changed++
		case rec.Makespan < n.Ref.Makespan:
			t.Fatalf("case %d (%s): the contended replay %d ns beats the uncontended %d ns", k, c.flow.Topology, rec.Makespan, n.Ref.Makespan)
		case rec.Makespan > n.Ref.Makespan:
			slower++
		}
	}
	if slower == 0 {
		t.Errorf("no case kept its orders with contention (%d changed them): the test checks nothing", changed)
	}
}

// TestBoundValidFlow is TestBoundValid with messages over random
// topologies: replays under the contended flow model that keep the LP's
// orders finish no earlier than the bound, the others no earlier than
// the LP of their own orders.
func TestBoundValidFlow(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	cases := 120
	if testing.Short() {
		cases = 30
	}
	var st boundStats
	for seed := int64(0); seed < int64(cases); seed++ {
		checkBoundValidFlow(t, seed, 12, 6, &st, randomFlow)
	}
	t.Logf("%d runs: %d kept the LP's orders, %d kept them but tie events the LP orders, %d changed them; %d LP schedules replayed",
		st.runs, st.kept, st.keptTie, st.changed, st.lpOwn)
	if st.kept == 0 || st.changed == 0 {
		t.Errorf("%d runs kept the orders, %d changed them: want both", st.kept, st.changed)
	}
}

// The LP prices a message over a topology at its uncontended route: on a
// 2-ary 2-tree (hosts 0 and 3 four links apart, 100 ns a hop), rank 0
// computes 10 µs and sends to rank 1, which then computes 10 µs; L = 2.5
// µs, o = 1.5 µs, g = 1 µs, O = 0. The makespan is 10 µs + o + L + the
// route's latency + the bytes over its narrowest link + the receiver's
// o + 10 µs, whatever the network's G (the links carry the bytes), and
// between ranks of one node o + L + (s−1)·G + o + 20 µs.
func TestNetFlowMessagePrice(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	for _, tc := range []struct {
		name    string
		spec    string
		G       int64 // ns/B
		bytes   int64
		nodes   []int32
		variant sim.FlowNetwork
		want    int64
	}{
		// 32,768 B at 12.5 B/ns: 2,622 ns (G = 6 charged 196,602 ns).
		{"G above the links", "fattree:k=2,n=2", 6, 32768, []int32{0, 3}, sim.FlowNetwork{}, 20000 + 1500 + 2500 + 400 + 2622 + 1500},
		// 32,768 B at 0.1 B/ns: 327,680 ns (G = 0 charged nothing).
		{"G = 0, slow links", "fattree:k=2,n=2,bw=0.1", 0, 32768, []int32{0, 3}, sim.FlowNetwork{}, 20000 + 1500 + 2500 + 400 + 327680 + 1500},
		{"one leaf", "fattree:k=2,n=2,bw=0.1", 0, 32768, []int32{0, 1}, sim.FlowNetwork{}, 20000 + 1500 + 2500 + 200 + 327680 + 1500},
		{"rendezvous", "fattree:k=2,n=2", 6, 100000, []int32{0, 3}, sim.FlowNetwork{}, 20000 + 1500 + 2500 + 400 + 8000 + 1500},
		{"CM02", "fattree:k=2,n=2", 6, 32768, []int32{0, 3}, sim.FlowNetwork{CM02: true}, 20000 + 1500 + 2500 + 400 + 2622 + 1500},
		{"bytes first", "fattree:k=2,n=2", 6, 32768, []int32{0, 3}, sim.FlowNetwork{BytesFirst: true}, 20000 + 1500 + 2500 + 400 + 2622 + 1500},
		{"one node", "fattree:k=2,n=2", 6, 32768, []int32{2, 2}, sim.FlowNetwork{}, 20000 + 1500 + 2500 + 32767*6 + 1500},
		{"empty message", "fattree:k=2,n=2,bw=0.1", 0, 0, []int32{0, 3}, sim.FlowNetwork{}, 20000 + 1500 + 2500 + 400 + 1500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := graph.NewBuilder(2)
			a := b.Add(0, graph.CalcOp(10000))
			b.Dep(0, b.Add(0, graph.SendOp(tc.bytes, 1, 0)), a, graph.Requires)
			r := b.Add(1, graph.RecvOp(tc.bytes, 0, 0))
			b.Dep(1, b.Add(1, graph.CalcOp(10000)), r, graph.Requires)
			g, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			top, err := topo.Parse(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			f := tc.variant
			f.Topology, f.Mapping = top, tc.nodes
			net := network.NewLogGOPS(2500, 1500, 1000, tc.G, 0, 65535)
			n, err := FromGraph(g, net, GraphOptions{Configs: func(op int32) []frontier.Config { return testConfigs(g.Size[op]) }, Flow: &f})
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewSolver(n.DAG, n.Order, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			bd, err := s.Solve(1e9)
			if err != nil {
				t.Fatal(err)
			}
			if got := int64(math.Round(bd.Makespan * 1e9)); got != tc.want {
				t.Errorf("the LP's makespan %d ns, want %d", got, tc.want)
			}
			res, err := sim.Run(g, net, sim.Options{Flow: &f})
			if err != nil {
				t.Fatal(err)
			}
			if res.Makespan != tc.want {
				t.Errorf("the replay's makespan %d ns, want %d", res.Makespan, tc.want)
			}
		})
	}
}
