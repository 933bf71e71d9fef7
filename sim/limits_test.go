package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/graph"
)

// unchecked builds a graph from ops per rank without Validate, as a
// reader that skipped it would, so that the engine's own checks are
// exercised.
func unchecked(ranks [][]graph.Op) *graph.Graph {
	g := &graph.Graph{RankStart: []int32{0}, DepStart: []int32{0}}
	for _, ops := range ranks {
		first := int32(len(g.Kind))
		for i, op := range ops {
			g.Kind = append(g.Kind, op.Kind)
			g.Size = append(g.Size, op.Size)
			g.Peer = append(g.Peer, op.Peer)
			g.Tag = append(g.Tag, op.Tag)
			g.CPU = append(g.CPU, 0)
			g.NIC = append(g.NIC, 0)
			g.Region = append(g.Region, graph.NoRegion)
			if i > 0 { // a chain: each op requires the previous one
				g.DepOp = append(g.DepOp, first+int32(i)-1)
				g.DepKind = append(g.DepKind, graph.Requires)
			}
			g.DepStart = append(g.DepStart, int32(len(g.DepOp)))
		}
		g.RankStart = append(g.RankStart, int32(len(g.Kind)))
	}
	return g
}

type constPricer int64

func (c constPricer) CalcDuration(int32, int64) int64 { return int64(c) }

// Times past graph.MaxTimeNs are errors naming the operation; before the
// checks, three calcs of 4·10^18 ns gave a makespan of 0 and negative
// finish times.
func TestTimeLimit(t *testing.T) {
	def := network.DefaultLogGOPS()
	big := int64(4e18)
	huge := network.DefaultLogGOPS()
	huge.GapPerByte = network.NsPerByte(1e9)
	for _, tc := range []struct {
		name string
		g    *graph.Graph
		net  network.LogGOPS
		opt  Options
		want string
	}{
		{"three calcs of 4e18 ns", unchecked([][]graph.Op{{graph.CalcOp(big), graph.CalcOp(big), graph.CalcOp(big)}}), def, Options{},
			"rank 0 l1: calc 4000000000000000000: its duration"},
		{"calcs adding up past the limit", unchecked([][]graph.Op{{graph.CalcOp(9e17), graph.CalcOp(9e17)}}), def, Options{},
			"rank 0 l2: calc 900000000000000000: its end"},
		{"a chain across ranks", unchecked([][]graph.Op{
			{graph.CalcOp(9e17), graph.SendOp(8, 1, 0)},
			{graph.RecvOp(8, 0, 0), graph.CalcOp(9e17)}}), def, Options{},
			"rank 1 l2: calc"},
		{"a pricer's huge duration", unchecked([][]graph.Op{{graph.CalcOp(1)}}), def, Options{Pricer: constPricer(5e18)},
			"its duration 5000000000000000000 ns"},
		{"bytes × G overflows", unchecked([][]graph.Op{{graph.SendOp(1<<40, 1, 0)}, {graph.RecvOp(1<<40, 0, 0)}}), huge, Options{},
			"rank 0 l1: send 1099511627776b to 1 tag 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(tc.g, tc.net, tc.opt)
			var tl *TimeLimitError
			if !errors.As(err, &tl) {
				if res != nil {
					t.Fatalf("makespan %d, finish %v, err %v; want a TimeLimitError", res.Makespan, res.Ranks, err)
				}
				t.Fatalf("err %v; want a TimeLimitError", err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "MaxTimeNs") {
				t.Errorf("error %q does not name %q and the limit", err, tc.want)
			}
		})
	}
}

// Just under the limit still replays exactly.
func TestTimeLimitExact(t *testing.T) {
	g := unchecked([][]graph.Op{{graph.CalcOp(5e17), graph.CalcOp(5e17)}})
	res, err := Run(g, network.DefaultLogGOPS(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Makespan != graph.MaxTimeNs {
		t.Errorf("makespan %d, want %d", res.Makespan, graph.MaxTimeNs)
	}
}

func TestLogGOPSLimit(t *testing.T) {
	if _, err := network.ParseSpec("loggops:L=9000000000000000000"); err == nil || !strings.Contains(err.Error(), "MaxTimeNs") {
		t.Errorf("L=9e18: err %v, want the limit", err)
	}
	g := unchecked([][]graph.Op{{graph.SendOp(8, 1, 0)}, {graph.RecvOp(8, 0, 0)}})
	net := network.DefaultLogGOPS()
	net.Latency = 9e18
	if _, err := Run(g, net, Options{}); err == nil || !strings.Contains(err.Error(), "L = 9000000000000000000") {
		t.Errorf("Run with L=9e18: err %v, want L named", err)
	}
}

// A message whose peer is not a rank is an error naming the operation, not
// a panic, where the graph skipped Validate.
func TestPeerNotARank(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    *graph.Graph
		want string
	}{
		{"send to rank 2 of 2", unchecked([][]graph.Op{{graph.SendOp(8, 2, 0)}, {graph.RecvOp(8, 0, 0)}}), "rank 0 l1: send 8b to 2 tag 0: peer 2"},
		{"send to −1", unchecked([][]graph.Op{{graph.SendOp(8, -1, 0)}, {graph.RecvOp(8, 0, 0)}}), "peer -1"},
		{"receive from 1<<30", unchecked([][]graph.Op{{graph.SendOp(8, 1, 0)}, {graph.RecvOp(8, 1<<30, 0)}}), "peer 1073741824"},
		{"receive from −2", unchecked([][]graph.Op{{graph.SendOp(8, 1, 0)}, {graph.RecvOp(8, -2, 0)}}), "peer -2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(tc.g, network.DefaultLogGOPS(), Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "not a rank") {
				t.Errorf("err %v, want one naming %q", err, tc.want)
			}
		})
	}
}

// The operation record keeps a peer in 29 bits: more ranks than
// graph.MaxRanks (which readers already refuse) are an error.
func TestTooManyRanks(t *testing.T) {
	g := &graph.Graph{RankStart: make([]int32, graph.MaxRanks+2), DepStart: []int32{0}}
	if _, err := Run(g, network.DefaultLogGOPS(), Options{}); err == nil || !strings.Contains(err.Error(), "MaxRanks") {
		t.Errorf("%d ranks: err %v, want graph.MaxRanks named", g.NumRanks(), err)
	}
}

// Sizes beyond what the operation record holds (2^31 − 1) are read from
// the graph. By hand, with L = 1000, o = 100, G = 1 and the rest 0, an
// eager 3 GiB message arrives at o + L = 1100 and its receipt costs rank
// 1 o + (s−1)·max(O, G) = 100 + 3,221,225,471 ns; a 3 GiB calc lasts
// 3,221,225,472 ns.
func TestSizeBeyondInt32(t *testing.T) {
	const s = 3 << 30
	net := network.NewLogGOPS(1000, 100, 0, 1, 0, 1<<40)
	for _, tc := range []struct {
		name string
		g    *graph.Graph
		want []int64
	}{
		{"message", unchecked([][]graph.Op{{graph.SendOp(s, 1, 0)}, {graph.RecvOp(s, 0, 0)}}), []int64{100, 1100 + 100 + s - 1}},
		{"calc", unchecked([][]graph.Op{{graph.CalcOp(s), graph.CalcOp(1)}}), []int64{s + 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(tc.g, net, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for r, want := range tc.want {
				if got := res.Ranks[r].Finish; got != want {
					t.Errorf("rank %d finishes at %d, want %d", r, got, want)
				}
			}
		})
	}
}
