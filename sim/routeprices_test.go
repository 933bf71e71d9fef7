package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/network/topo"
	"github.com/capsim/capsim/traces/graph"
)

// matched records, per send op, when its message was matched (Observer).
type matched map[int32]int64

func (matched) Busy(op int32, start, end int64)            {}
func (m matched) Message(send, recv int32, sent, at int64) { m[send] = at }

// RoutePrices.Flight is when the flow model delivers a message that
// crosses its route alone (FlowNetwork.Uncontended, and a replay of that
// message by itself), and no contended replay delivers one sooner; on
// every topology kind and flow timing, with two ranks a node so that some
// messages stay on their node. Every message is sent at time 0 into a
// receive posted then, with o = g = 0 so that it is matched on arrival.
func TestRoutePricesFlight(t *testing.T) {
	net := network.NewLogGOPS(700, 0, 0, 3, 0, 1<<40)
	specs := []string{
		"fattree:k=4,n=2,bw=1.5,hop_ns=50",
		"fattree:k=2,n=3,oversub=2,bw=0.8",
		"fattree:down=4x2,up=1x2,links=1x1,bw=2,hop_ns=30",
		"torus:dims=4x2,bw=0.5,hop_ns=200",
		"dragonfly:groups=3,routers=2,hosts=2,global=1,local_bw=3,global_bw=0.25,hop_ns=80",
	}
	rng := rand.New(rand.NewPCG(7, 11))
	slowed := 0
	for _, spec := range specs {
		top, err := topo.Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		ranks := 2 * top.Nodes()
		for _, variant := range []FlowNetwork{{}, {CM02: true}, {BytesFirst: true}} {
			f := variant
			f.Topology = top
			p, err := NewRoutePrices(&f, ranks)
			if err != nil {
				t.Fatal(err)
			}
			n := 12
			src, dst := make([]int, n), make([]int, n)
			sizes := make([]int64, n)
			b := graph.NewBuilder(ranks)
			for i := range n {
				src[i], dst[i] = rng.IntN(ranks), rng.IntN(ranks)
				for dst[i] == src[i] {
					dst[i] = rng.IntN(ranks)
				}
				sizes[i] = rng.Int64N(100_000)
				b.Add(src[i], graph.SendOp(sizes[i], int32(dst[i]), int32(i)))
				b.Add(dst[i], graph.RecvOp(sizes[i], int32(src[i]), int32(i)))
			}
			g, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			want := map[int32]int64{}
			for op := int32(0); op < int32(g.NumOps()); op++ {
				if g.Kind[op] == graph.Send {
					want[op] = p.Flight(int32(g.RankOf(op)), g.Peer[op], g.Size[op], net.Overhead+net.Latency, net.GapPerByte)
				}
			}
			alone, contended := f, f
			alone.Uncontended = true
			for _, c := range []struct {
				name string
				f    *FlowNetwork
			}{{"uncontended", &alone}, {"contended", &contended}} {
				obs := matched{}
				if _, err := Run(g, net, Options{Flow: c.f, Observer: obs}); err != nil {
					t.Fatal(err)
				}
				for op, w := range want {
					switch got := obs[op]; {
					case got < w:
						t.Errorf("%s %+v %s: %s arrived at %d ns, before its uncontended route's %d", spec, variant, c.name, g.Describe(op), got, w)
					case got > w && c.f == &alone:
						t.Errorf("%s %+v uncontended: %s arrived at %d ns, its route's price is %d", spec, variant, g.Describe(op), got, w)
					case got > w:
						slowed++
					}
				}
			}
			// One message by itself: the contended model's own time.
			one := sends(ranks, []int{src[0]}, []int{dst[0]}, sizes[0])
			obs := matched{}
			if _, err := Run(one, net, Options{Flow: &contended, Observer: obs}); err != nil {
				t.Fatal(err)
			}
			w := p.Flight(int32(src[0]), int32(dst[0]), sizes[0], net.Overhead+net.Latency, net.GapPerByte)
			if len(obs) != 1 || obs[sendOf(one)] != w {
				t.Errorf("%s %+v: a message alone arrived at %v ns, its route's price is %d", spec, variant, obs, w)
			}
		}
	}
	if slowed == 0 {
		t.Error("no contended message took longer than its route's price: the test checks nothing")
	}
}

// A topology without links has no route prices: the engine prices its
// messages with the LogGOPS parameters.
func TestRoutePricesCrossbar(t *testing.T) {
	p, err := NewRoutePrices(&FlowNetwork{Topology: &topo.Crossbar{N: 4}}, 4)
	if p != nil || err != nil {
		t.Errorf("crossbar: %v, %v; want nil, nil", p, err)
	}
	if _, err := NewRoutePrices(&FlowNetwork{Topology: &topo.Crossbar{N: 4}, Mapping: []int32{0}}, 4); err != nil {
		t.Errorf("crossbar with a bad mapping: %v (it has no links: nothing to map)", err)
	}
}

// sendOf returns g's first send.
func sendOf(g *graph.Graph) int32 {
	for op := int32(0); op < int32(g.NumOps()); op++ {
		if g.Kind[op] == graph.Send {
			return op
		}
	}
	return -1
}
