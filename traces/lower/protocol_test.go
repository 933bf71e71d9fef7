package lower_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
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
