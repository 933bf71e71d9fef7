package critpath_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/network/topo"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/sim/critpath"
	"github.com/capsim/capsim/traces/goal"
	"github.com/capsim/capsim/traces/graph"
)

// net is LogGOPSim's default parameters with an eager limit of 4096 B:
// L=2500 o=1500 g=1000 G=6 O=0 (ns and bytes).
var net = network.LogGOPS{Latency: 2500, Overhead: 1500, Gap: 1000, GapPerByte: network.NsPerByte(6), EagerLimit: 4096}

// seg is a segment as the tests write it.
type seg struct {
	kind       critpath.Kind
	rank       int32
	start, end int64
}

func (s seg) String() string { return fmt.Sprintf("%s r%d [%d,%d]", s.kind, s.rank, s.start, s.end) }

// chain builds a graph whose ranks run their operations in order (each
// depends on the one before).
func chain(t *testing.T, ranks [][]graph.Op) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(len(ranks))
	for r, ops := range ranks {
		for i, op := range ops {
			id := b.Add(r, op)
			if i > 0 {
				b.Dep(r, id, id-1, graph.Requires)
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestHandChecked checks paths worked out by hand from the LogGOPS
// charges (package sim's doc comment): o = 1500, L = 2500, g = 1000,
// G = 6 ns/B, O = 0, S = 4096 B.
func TestHandChecked(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ranks    [][]graph.Op
		opt      sim.Options
		makespan int64
		want     []seg
	}{
		{
			// Rank 0 computes 10 µs and sends 1000 B; rank 1 receives it
			// and computes 5 µs. The send starts at 10000 and costs o of
			// CPU; the message arrives o + L later, at 14000; receiving
			// costs o + (s−1)·max(O, G) = 1500 + 999·6 = 7494.
			name: "send then compute",
			ranks: [][]graph.Op{
				{graph.CalcOp(10000), graph.SendOp(1000, 1, 0)},
				{graph.RecvOp(1000, 0, 0), graph.CalcOp(5000)},
			},
			makespan: 10000 + 1500 + 2500 + 7494 + 5000,
			want: []seg{
				{critpath.Compute, 0, 0, 10000},
				{critpath.Send, 0, 10000, 11500},
				{critpath.Message, 0, 11500, 14000},
				{critpath.Recv, 1, 14000, 21494},
				{critpath.Compute, 1, 21494, 26494},
			},
		},
		{
			// Rank 0 sends 4000 B to rank 1, then 4000 B to rank 2: the
			// second waits for the NIC's gap g + (s−1)·G = 1000 + 3999·6
			// = 24994 and arrives at 24994 + o + L = 28994; rank 2 takes
			// o + 3999·6 = 25494 to receive it, then computes 1 µs.
			name: "NIC gap",
			ranks: [][]graph.Op{
				{graph.SendOp(4000, 1, 0), graph.SendOp(4000, 2, 0)},
				{graph.RecvOp(4000, 0, 0)},
				{graph.RecvOp(4000, 0, 0), graph.CalcOp(1000)},
			},
			makespan: 24994 + 1500 + 2500 + 25494 + 1000,
			want: []seg{
				{critpath.NIC, 0, 0, 24994},
				{critpath.Send, 0, 24994, 26494},
				{critpath.Message, 0, 26494, 28994},
				{critpath.Recv, 2, 28994, 54488},
				{critpath.Compute, 2, 54488, 55488},
			},
		},
		{
			// A rendezvous send (5000 B > S) completes when rank 1, busy
			// computing 20 µs, posts its receive at 20000; only then does
			// rank 0 compute its 10 µs. The message itself arrived at
			// 4000 and was received (unexpected) from 20000 to 20000 +
			// 1500 + 4999·6 = 51494, before the receive was posted.
			name: "rendezvous",
			ranks: [][]graph.Op{
				{graph.SendOp(5000, 1, 0), graph.CalcOp(40000)},
				{graph.CalcOp(20000), graph.RecvOp(5000, 0, 0)},
			},
			makespan: 60000,
			want: []seg{
				{critpath.Compute, 1, 0, 20000},
				{critpath.Compute, 0, 20000, 60000},
			},
		},
		{
			// Two ranks share device 0: rank 1's 3 µs calc waits for rank
			// 0's 2 µs one.
			name: "shared device",
			ranks: [][]graph.Op{
				{graph.CalcOp(2000)},
				{graph.CalcOp(3000)},
			},
			opt:      sim.Options{Device: []int32{0, 0}},
			makespan: 5000,
			want: []seg{
				{critpath.Compute, 0, 0, 2000},
				{critpath.Compute, 1, 2000, 5000},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := chain(t, tc.ranks)
			res, p, err := critpath.Run(g, net, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Makespan != tc.makespan || p.Makespan != tc.makespan || p.Length() != tc.makespan {
				t.Errorf("makespan %d, path %d long, want %d", res.Makespan, p.Length(), tc.makespan)
			}
			var got []seg
			for _, s := range p.Segments {
				got = append(got, seg{s.Kind, s.Rank, s.Start, s.End})
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("path\n%v\nwant\n%v", got, tc.want)
			}
		})
	}
}

func TestShares(t *testing.T) {
	g := chain(t, [][]graph.Op{
		{graph.CalcOp(10000), graph.SendOp(1000, 1, 0)},
		{graph.RecvOp(1000, 0, 0), graph.CalcOp(5000)},
	})
	_, p, err := critpath.Run(g, net, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, m, w := p.Shares()
	if c != 15000 || m != 1500+2500+7494 || w != 0 {
		t.Errorf("shares compute %d, comm %d, wait %d; want 15000, 11494, 0", c, m, w)
	}
	if k := p.ByKind(); k[critpath.Message] != 2500 || k[critpath.Recv] != 7494 {
		t.Errorf("by kind %v", k)
	}
	if d := critpath.Describe(g, p.Segments[2]); d != "1000 B 0→1" {
		t.Errorf("message described as %q", d)
	}
}

// busy records every CPU use the engine reports, to check the path
// against.
type busy map[string]bool

func (b busy) Busy(op int32, start, end int64)               { b[fmt.Sprint(op, start, end)] = true }
func (b busy) Message(send, recv int32, sent, matched int64) {}

// ring builds n ranks that, n−1 times, compute (unequal amounts) then
// send to the right neighbour and receive from the left.
func ring(t testing.TB, n int, bytes int64) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(n)
	for r := 0; r < n; r++ {
		prev := int32(-1)
		for step := 0; step < n-1; step++ {
			c := b.Add(r, graph.CalcOp(int64(1000+137*((r*7+step*3)%n))))
			s := b.Add(r, graph.SendOp(bytes, int32((r+1)%n), int32(step)))
			v := b.Add(r, graph.RecvOp(bytes, int32((r+n-1)%n), int32(step)))
			if prev >= 0 {
				b.Dep(r, c, prev, graph.Requires)
			}
			b.Dep(r, s, c, graph.Requires)
			b.Dep(r, v, c, graph.Requires)
			prev = v
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestRing checks bigger paths, on a ring of 16 ranks under LogGOPS,
// LogGP and flows on a fat-tree (max-min and SimGrid's CM02): the path's
// compute segments are calcs the engine ran at those times, it crosses
// ranks, and it is as long as the makespan.
func TestRing(t *testing.T) {
	g := ring(t, 16, 200000)
	loggp := net
	loggp.LogGP = true
	top, err := topo.Parse("fattree:k=4,n=2,oversub=2")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		net  network.LogGOPS
		flow *sim.FlowNetwork
	}{
		{"loggops", net, nil},
		{"loggp", loggp, nil},
		{"flow", net, &sim.FlowNetwork{Topology: top}},
		{"cm02", net, &sim.FlowNetwork{Topology: top, CM02: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bz := busy{}
			res, p, err := critpath.Run(g, tc.net, sim.Options{Observer: bz, Flow: tc.flow})
			if err != nil {
				t.Fatal(err)
			}
			if p.Length() != res.Makespan {
				t.Fatalf("path %d ns, makespan %d ns", p.Length(), res.Makespan)
			}
			ranks := map[int32]bool{}
			for _, s := range p.Segments {
				ranks[s.Rank] = true
				if s.Kind == critpath.Compute && !bz[fmt.Sprint(s.Op, s.Start, s.End)] {
					t.Errorf("compute segment %+v is no calc the engine ran", s)
				}
			}
			if len(ranks) < 2 {
				t.Errorf("the path stays on %d rank(s)", len(ranks))
			}
			k := p.ByKind()
			if k[critpath.Wait] != 0 || k[critpath.Message] == 0 {
				t.Errorf("time by kind %v: want no wait, some messages", k)
			}
		})
	}
}

// TestDifferentialSchedules finds the path of every random schedule of
// sim's differential set (irequires, several CPUs and NICs, wildcards,
// empty calcs and messages on both sides of S) under each parameter set
// LogGOPSim ran it with: each path runs from 0 to the makespan without a
// gap (Path checks that), and its compute segments are calcs the engine
// ran at those times.
func TestDifferentialSchedules(t *testing.T) {
	runs, _ := filepath.Glob(filepath.Join("..", "testdata", "differential", "*.times"))
	more, _ := filepath.Glob(filepath.Join("..", "testdata", "differential", "*.makespan"))
	runs = append(runs, more...)
	nets := map[string]network.LogGOPS{
		"default":                {Latency: 2500, Overhead: 1500, Gap: 1000, GapPerByte: network.NsPerByte(6), EagerLimit: 65535},
		"L5000o200g100G2O1S4096": {Latency: 5000, Overhead: 200, Gap: 100, GapPerByte: network.NsPerByte(2), OverheadPerByte: network.NsPerByte(1), EagerLimit: 4096},
	}
	var waits, total int64
	n := 0
	for _, f := range runs {
		base := filepath.Base(f)
		parts := strings.Split(base, ".")
		if len(parts) != 3 || (parts[2] != "times" && parts[2] != "makespan") {
			continue
		}
		nt, ok := nets[parts[1]]
		if !ok {
			t.Fatalf("%s: unknown parameter set %s", base, parts[1])
		}
		g, err := goal.ReadFile(filepath.Join(filepath.Dir(f), parts[0]+".goal"))
		if err != nil {
			t.Fatal(err)
		}
		n++
		bz := busy{}
		// The .makespan schedules need LogGOPSim's own order to finish;
		// the random schedules' receives are not their messages' sizes.
		res, p, err := critpath.Run(g, nt, sim.Options{Observer: bz, LibstdcxxOrder: parts[2] == "makespan", LogGOPSimSizes: true})
		if err != nil {
			t.Errorf("%s: %v", base, err)
			continue
		}
		if p.Length() != res.Makespan {
			t.Errorf("%s: path %d ns, makespan %d ns", base, p.Length(), res.Makespan)
		}
		for _, s := range p.Segments {
			if s.Kind == critpath.Compute && !bz[fmt.Sprint(s.Op, s.Start, s.End)] {
				t.Errorf("%s: compute segment %+v is no calc the engine ran", base, s)
			}
		}
		_, _, w := p.Shares()
		waits += w
		total += res.Makespan
	}
	if n < 100 {
		t.Fatalf("%d runs in ../testdata/differential, want the 124 LogGOPSim made", n)
	}
	t.Logf("%d runs: %d of %d ns on the paths unexplained (wait)", n, waits, total)
}
