package lower_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// protocolNet returns the LogGP parameters of protocol p's ring messages
// on NVLink over a link of G0 ns per byte: L its hop latency (when
// withL), G the link's G over the protocol's efficiency; no overheads.
func protocolNet(t *testing.T, p lower.Protocol, G0 float64, withL bool) network.LogGOPS {
	t.Helper()
	eff, err := p.Efficiency("nccl-ring", 1)
	if err != nil {
		t.Fatal(err)
	}
	net := network.LogGOPS{GapPerByte: network.PerByteFs(int64(math.Round(G0 / eff * 1e6))), EagerLimit: 1 << 40}
	if withL {
		l, err := p.HopLatencyNs("nccl-ring", lower.NVLink)
		if err != nil {
			t.Fatal(err)
		}
		net.Latency = int64(l)
	}
	return net
}

// Under each protocol's parameters the ring algorithms keep their closed
// forms: on a bandwidth-only network a step of s bytes costs (s−1)·G/eff,
// and with the protocol's hop latency L it costs L + (s−1)·G/eff
// (allreduce 2(p−1) steps of S/p, allgather and reduce-scatter p−1).
func TestProtocolRingClosedForms(t *testing.T) {
	for _, proto := range lower.Protocols {
		for _, withL := range []bool{false, true} {
			net := protocolNet(t, proto, 1, withL)
			for _, p := range []int{2, 4, 8} {
				S := int64(p * 8192)
				step := net.Latency + net.GapPerByte.Times(S/int64(p)-1)
				for _, c := range []struct {
					kind  mpi.Kind
					bytes int64
					steps int64
				}{
					{mpi.Allreduce, S, 2 * int64(p-1)},
					{mpi.Allgather, S / int64(p), int64(p - 1)},
					{mpi.ReduceScatter, S, int64(p - 1)},
				} {
					name := fmt.Sprintf("%s/L=%v/%s/p=%d", proto, withL, c.kind, p)
					tr := mpi.NewTrace(p)
					for r := 0; r < p; r++ {
						tr.Append(r, mpi.Event{Kind: c.kind, Bytes: c.bytes})
					}
					g, err := lower.Lower(tr, lower.Options{Algorithm: map[mpi.Kind]string{c.kind: "nccl-ring"}})
					if err != nil {
						t.Fatal(err)
					}
					res, err := sim.Run(g, net, sim.Options{})
					if err != nil {
						t.Fatal(err)
					}
					if want := c.steps * step; res.Makespan != want {
						t.Errorf("%s: makespan %d ns, want %d", name, res.Makespan, want)
					}
				}
			}
		}
	}
}

// TuneNCCL picks what NCCL's model predicts fastest: LL for small
// allreduces, LL128 in between and Simple for large ones on one node of 8
// GPUs over NVLink at 100 GB/s, and the tree for small allreduces across
// 8 nodes.
func TestTuneNCCL(t *testing.T) {
	for _, tc := range []struct {
		kind         mpi.Kind
		bytes        int64
		ranks, nodes int
		alg          string
		proto        lower.Protocol
	}{
		{mpi.Allreduce, 1 << 10, 8, 1, "nccl-ring", lower.LL},
		{mpi.Allreduce, 4 << 20, 8, 1, "nccl-ring", lower.LL128},
		{mpi.Allreduce, 64 << 20, 8, 1, "nccl-ring", lower.Simple},
		{mpi.Allreduce, 1 << 10, 64, 8, "nccl-tree", lower.LL},
		{mpi.Allgather, 1 << 10, 8, 1, "nccl-ring", lower.LL},
		{mpi.Allgather, 1 << 30, 8, 1, "nccl-ring", lower.Simple},
	} {
		got, err := lower.TuneNCCL(tc.kind, tc.bytes, tc.ranks, tc.nodes, lower.NVLink, 100)
		if err != nil {
			t.Fatal(err)
		}
		if got.Algorithm != tc.alg || got.Protocol != tc.proto {
			t.Errorf("%s of %d bytes on %d ranks, %d nodes: %s/%s, want %s/%s", tc.kind, tc.bytes, tc.ranks, tc.nodes, got.Algorithm, got.Protocol, tc.alg, tc.proto)
		}
	}
	// Ring LL on 8 ranks: 6.6 µs + 14 hops of 0.6 µs, and 1,024 bytes at
	// 100 B/ns · 1/2 · 8/14.
	got, _ := lower.TuneNCCL(mpi.Allreduce, 1024, 8, 1, lower.NVLink, 100)
	if want := 15000 + 1024/(100*0.5*8/14); math.Abs(got.PredictedNs-want) > 1e-9 {
		t.Errorf("predicted %g ns, want %g", got.PredictedNs, want)
	}
	for _, bad := range []struct {
		kind         mpi.Kind
		ranks, nodes int
		bw           float64
	}{{mpi.Alltoall, 8, 1, 100}, {mpi.Allreduce, 6, 4, 100}, {mpi.Allreduce, 8, 1, 0}} {
		if _, err := lower.TuneNCCL(bad.kind, 1, bad.ranks, bad.nodes, lower.NVLink, bad.bw); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// tunedCall lowers one call of kind on p ranks of one or more nodes of
// perNode under the nccl selector with NCCL's tuning inputs, and replays
// it on a network of G ns per byte and no L, o or g, its messages priced
// by their protocols (network.Classify). It returns the makespan, the
// tuning and the parameters of the call's (first) protocol on each link
// kind the call crosses.
func tunedCall(t *testing.T, kind mpi.Kind, bytes int64, p, perNode int, intra lower.Link, G float64) (int64, lower.Tuning, map[string]network.LogGOPS) {
	t.Helper()
	tr := mpi.NewTrace(p)
	for r := 0; r < p; r++ {
		tr.Append(r, mpi.Event{Kind: kind, Bytes: bytes})
	}
	opt := lower.Options{Algorithm: map[mpi.Kind]string{kind: lower.SelectNCCL}, RanksPerNode: perNode, IntraLink: intra, BusBytesPerNs: 1 / G}
	g, err := lower.Lower(tr, opt)
	if err != nil {
		t.Fatal(err)
	}
	base := network.LogGOPS{GapPerByte: network.PerByteFs(int64(math.Round(G * 1e6)))}
	cls, err := network.Classify(g, base, nil, nil)
	if err != nil || cls == nil {
		t.Fatalf("classes %v, %v: want one per protocol", cls, err)
	}
	wires := map[string]network.LogGOPS{}
	for op, k := range g.Kind {
		if k != graph.Send {
			continue
		}
		w := lower.Wire(g.Wire[op])
		if w == 0 {
			t.Fatalf("send %d has no wire", op)
		}
		wires[w.String()] = cls.Params[cls.Of[op]]
	}
	res, err := sim.Run(g, base, sim.Options{Classes: cls})
	if err != nil {
		t.Fatal(err)
	}
	whole := bytes
	if kind == mpi.Allgather {
		whole *= int64(p)
	}
	tu, err := lower.TuneNCCL(kind, whole, p, p/perNode, intra, 1/G)
	if err != nil {
		t.Fatal(err)
	}
	return res.Makespan, tu, wires
}

// On one node the replay of a tuned ring collective is NCCL's model of it
// (TuneNCCL) for the protocol the model picked: steps hops of the
// protocol's latency plus the bytes at the bus bandwidth times the
// protocol's efficiency, allreduce 2(p−1) steps of S/p, allgather and
// reduce-scatter p−1. Two terms differ by construction: the replay has no
// base latency (NCCL's per-call launch cost, which the model adds once),
// and LogGP prices a message of s bytes at (s−1)·G, one byte per step
// less than the model's s·G.
func TestProtocolReplayMatchesTuner(t *testing.T) {
	const G = 0.01 // 100 B/ns
	seen := map[lower.Protocol]bool{}
	for _, intra := range []lower.Link{lower.NVLink, lower.PCI} {
		for _, p := range []int{2, 4, 8} {
			for _, S := range []int64{1 << 10, 1 << 16, 4 << 20, 64 << 20} {
				S -= S % int64(p)
				for _, c := range []struct {
					kind  mpi.Kind
					bytes int64 // mpi.Event.Bytes
					steps int64
				}{
					{mpi.Allreduce, S, 2 * int64(p-1)},
					{mpi.Allgather, S / int64(p), int64(p - 1)},
					{mpi.ReduceScatter, S, int64(p - 1)},
				} {
					name := fmt.Sprintf("%s/link %d/p=%d/S=%d", c.kind, intra, p, S)
					got, tu, wires := tunedCall(t, c.kind, c.bytes, p, p, intra, G)
					if tu.Algorithm != "nccl-ring" || len(wires) != 1 {
						t.Fatalf("%s: %s with wires %v, want the ring on one link kind", name, tu.Algorithm, wires)
					}
					seen[tu.Protocol] = true
					w, err := lower.NewWire("nccl-ring", tu.Protocol, intra, 1)
					if err != nil {
						t.Fatal(err)
					}
					net, ok := wires[w.String()]
					if !ok {
						t.Fatalf("%s: wires %v, want %s", name, wires, w)
					}
					hop, _ := tu.Protocol.HopLatencyNs("nccl-ring", intra)
					eff, _ := tu.Protocol.Efficiency("nccl-ring", 1)
					if net.Latency != int64(hop) || math.Abs(float64(net.GapPerByte.Femtoseconds())-G*1e6/eff) > 0.5 {
						t.Errorf("%s: %s priced L=%d G=%s, want L=%g G=%g", name, w, net.Latency, net.GapPerByte, hop, G/eff)
					}
					s := S / int64(p)
					if want := c.steps * (net.Latency + net.GapPerByte.Times(s-1)); got != want {
						t.Errorf("%s (%s): replayed %d ns, want %d steps of %d bytes: %d", name, tu.Protocol, got, c.steps, s, want)
					}
					base, _ := tu.Protocol.BaseLatencyNs("nccl-ring")
					model := tu.PredictedNs - base - float64(c.steps)*G/eff // less the launch and a byte a step
					if d := math.Abs(float64(got) - model); d > float64(c.steps) {
						t.Errorf("%s (%s): replayed %d ns, NCCL's model less its base latency %.1f ns", name, tu.Protocol, got, model)
					}
				}
			}
		}
	}
	for _, pr := range lower.Protocols {
		if !seen[pr] {
			t.Errorf("no call took %s", pr)
		}
	}
}

// Across nodes the replay and NCCL's model count different hops at the
// network's latency. Both add up hop latencies along the ring, but the
// model counts 2(nodes−1) of an allreduce's 2(p−1) steps between nodes,
// while in the replay a block's data reaches a rank through the 2(p−1)
// hops before it on the ring, ⌈2(p−1)·nodes/p⌉ of them between nodes (4
// of 14 on two nodes of four, against the model's 2).
func TestProtocolRingAcrossNodes(t *testing.T) {
	const G, p, perNode = 0.01, 8, 4
	const S = int64(64 << 10)
	got, tu, wires := tunedCall(t, mpi.Allreduce, S, p, perNode, lower.NVLink, G)
	if tu.Algorithm != "nccl-ring" {
		t.Fatalf("precondition: NCCL's model takes %s/%s", tu.Algorithm, tu.Protocol)
	}
	netW, _ := lower.NewWire("nccl-ring", tu.Protocol, lower.Net, 2)
	intraW, _ := lower.NewWire("nccl-ring", tu.Protocol, lower.NVLink, 2)
	net, intra := wires[netW.String()], wires[intraW.String()]
	if len(wires) != 2 || net.Latency <= intra.Latency || net.GapPerByte != intra.GapPerByte {
		t.Fatalf("wires %v: want %s slower than %s at the same G", wires, netW, intraW)
	}
	steps, inter := int64(2*(p-1)), int64(4)
	bytes := steps * net.GapPerByte.Times(S/p-1)
	if want := inter*net.Latency + (steps-inter)*intra.Latency + bytes; got != want {
		t.Errorf("replayed %d ns, want %d hops between nodes and %d within: %d", got, inter, steps-inter, want)
	}
	base, _ := tu.Protocol.BaseLatencyNs("nccl-ring")
	eff, _ := tu.Protocol.Efficiency("nccl-ring", 2)
	model := tu.PredictedNs - base - float64(steps)*G/eff
	if want := model + float64(2)*float64(net.Latency-intra.Latency); math.Abs(float64(got)-want) > float64(steps) {
		t.Errorf("replayed %d ns, NCCL's model with two more hops between nodes %.0f ns", got, want)
	}
}

// A tuned broadcast or reduce of one chunk runs NCCL's chain: p−1 hops of
// the whole message, where NCCL's model counts p steps.
func TestProtocolChain(t *testing.T) {
	const G, p = 0.01, 4
	for _, kind := range []mpi.Kind{mpi.Bcast, mpi.Reduce} {
		for _, S := range []int64{256, 64 << 10} {
			got, tu, wires := tunedCall(t, kind, S, p, p, lower.NVLink, G)
			w, _ := lower.NewWire("nccl-ring", tu.Protocol, lower.NVLink, 1)
			net, ok := wires[w.String()]
			if !ok || len(wires) != 1 {
				t.Fatalf("%s of %d: wires %v, want %s", kind, S, wires, w)
			}
			if want := int64(p-1) * (net.Latency + net.GapPerByte.Times(S-1)); got != want {
				t.Errorf("%s of %d bytes (%s): replayed %d ns, want %d", kind, S, tu.Protocol, got, want)
			}
		}
	}
}

// Every (algorithm, protocol, link, one node or more) is its own wire,
// below NumWires, reading back its hop latency and efficiency; bad
// inputs are refused.
func TestWire(t *testing.T) {
	seen := map[lower.Wire]string{}
	for _, alg := range []string{"nccl-ring", "nccl-tree"} {
		for _, p := range lower.Protocols {
			for _, l := range []lower.Link{lower.NVLink, lower.PCI, lower.Net} {
				for _, nodes := range []int{1, 3} {
					w, err := lower.NewWire(alg, p, l, nodes)
					if err != nil {
						t.Fatal(err)
					}
					name := fmt.Sprintf("%s/%s/%d/%d", alg, p, l, nodes)
					if w == 0 || w >= lower.NumWires || !w.Valid() || seen[w] != "" {
						t.Fatalf("%s: wire %d (seen as %q)", name, w, seen[w])
					}
					seen[w] = name
					lat, ok := w.HopLatencyNs()
					wantLat, _ := p.HopLatencyNs(alg, l)
					eff, _ := w.Efficiency()
					wantEff, _ := p.Efficiency(alg, nodes)
					if !ok || lat != wantLat || eff != wantEff {
						t.Errorf("%s (%s): latency %g, efficiency %g; want %g, %g", name, w, lat, eff, wantLat, wantEff)
					}
				}
			}
		}
	}
	if len(seen) != lower.NumWires-1 {
		t.Errorf("%d wires, want %d", len(seen), lower.NumWires-1)
	}
	if _, ok := lower.Wire(0).HopLatencyNs(); ok || lower.Wire(0).String() != "network" || lower.Wire(lower.NumWires).Valid() {
		t.Error("wire 0 or NumWires misread")
	}
	for _, bad := range []struct {
		alg   string
		p     lower.Protocol
		l     lower.Link
		nodes int
	}{{"ring", lower.LL, lower.NVLink, 1}, {"nccl-ring", lower.Simple + 1, lower.NVLink, 1}, {"nccl-ring", lower.LL, lower.Net + 1, 1}, {"nccl-tree", lower.LL, lower.NVLink, 0}} {
		if _, err := lower.NewWire(bad.alg, bad.p, bad.l, bad.nodes); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
