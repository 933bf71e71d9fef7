package bench

import (
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/network/topo"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/graph"
)

// pairwiseAlltoall builds a pairwise all-to-all of p ranks: in round
// k = 1..p−1 rank r sends bytes to r+k and receives from r−k, each send
// after the previous round's receive.
func pairwiseAlltoall(p int, bytes int64) (*graph.Graph, error) {
	b := graph.NewBuilder(p)
	for i := range p {
		b.Grow(i, 2*(p-1))
		prev := int32(-1)
		for k := 1; k < p; k++ {
			s := b.Add(i, graph.SendOp(bytes, int32((i+k)%p), int32(k)))
			if prev >= 0 {
				b.Dep(i, s, prev, graph.Requires)
			}
			prev = b.Add(i, graph.RecvOp(bytes, int32((i-k+p)%p), int32(k)))
		}
	}
	return b.Build()
}

// benchNetwork replays g with opt and reports events and flow events per
// second of wall and of CPU time (run with GOMAXPROCS=1 for one core).
func benchNetwork(b *testing.B, g *graph.Graph, opt sim.Options, wantFlows bool) {
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := testenv.CPUTime()
	var events, flows int64
	for range b.N {
		res, err := sim.Run(g, network.DefaultLogGOPS(), opt)
		if err != nil {
			b.Fatal(err)
		}
		if got := res.FlowEvents > 0 || res.Links != nil; got != wantFlows {
			b.Fatalf("%d flow events, %d links: the replay went through the flow model: %v, want %v",
				res.FlowEvents, len(res.Links), got, wantFlows)
		}
		events += res.Events
		flows += res.FlowEvents
	}
	cpu := (testenv.CPUTime() - cpu0).Seconds()
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
	if cpu > 0 {
		b.ReportMetric(float64(events)/cpu, "events/cpu-s")
	}
	if wantFlows {
		b.ReportMetric(float64(flows)/b.Elapsed().Seconds(), "flowevents/s")
		if cpu > 0 {
			b.ReportMetric(float64(flows)/cpu, "flowevents/cpu-s")
		}
	}
}

// BenchmarkReplayNetwork replays, side by side in one run:
//
//   - ring/loggops: the 1,024-rank ring allreduce of 1 MiB per rank under
//     plain LogGOPS (sim.Options.Flow nil);
//   - ring/crossbar: the same with a crossbar topology, which has no links
//     and so must replay as plain LogGOPS without entering the flow model
//     (the benchmark fails if it reports flow events or links);
//   - alltoall/fattree: a 1,024-rank pairwise all-to-all of 64 KiB per
//     message (1,047,552 flows, 2.1 million flow starts and ends) under the
//     flow model on a 4-ary 5-tree with 2:1 oversubscription. The target
//     is ≥ 1 M flow events per CPU second on one core.
func BenchmarkReplayNetwork(b *testing.B) {
	ring, err := gen.GeneratePattern(gen.RingAllreduce, gen.PatternOptions{Ranks: 1024, Bytes: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	a2a, err := pairwiseAlltoall(1024, 64<<10)
	if err != nil {
		b.Fatal(err)
	}
	ft, err := topo.Parse("fattree:k=4,n=5,oversub=2")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("ring/loggops", func(b *testing.B) { benchNetwork(b, ring, sim.Options{}, false) })
	b.Run("ring/crossbar", func(b *testing.B) {
		benchNetwork(b, ring, sim.Options{Flow: &sim.FlowNetwork{Topology: &topo.Crossbar{N: 1024}}}, false)
	})
	b.Run("alltoall/fattree", func(b *testing.B) {
		benchNetwork(b, a2a, sim.Options{Flow: &sim.FlowNetwork{Topology: ft}}, true)
	})
}
