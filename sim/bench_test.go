package sim

import (
	"runtime"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/network/topo"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/taskgraph"
)

// ringAllreduce builds LogGOPSim's ring allreduce shape: 2(p-1) steps in
// which every rank sends a chunk to its right neighbour and receives one
// from its left, each send requiring the previous receive.
func ringAllreduce(p int, bytesPerRank int64) *graph.Graph {
	b := graph.NewBuilder(p)
	chunk := bytesPerRank / int64(p)
	if chunk < 1 {
		chunk = 1
	}
	steps := 2 * (p - 1)
	for r := 0; r < p; r++ {
		b.Grow(r, 2*steps)
		right, left := int32((r+1)%p), int32((r+p-1)%p)
		prevRecv := int32(-1)
		for s := 0; s < steps; s++ {
			snd := b.Add(r, graph.SendOp(chunk, right, 0))
			if prevRecv >= 0 {
				b.Dep(r, snd, prevRecv, graph.Requires)
			}
			prevRecv = b.Add(r, graph.RecvOp(chunk, left, 0))
		}
	}
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	return g
}

// dissemination builds a dissemination barrier: ceil(log2 p) rounds of a
// send to r+2^k and a receive from r-2^k.
func dissemination(p int) *graph.Graph {
	b := graph.NewBuilder(p)
	for r := 0; r < p; r++ {
		prev := int32(-1)
		for k := 1; k < p; k *= 2 {
			snd := b.Add(r, graph.SendOp(1, int32((r+k)%p), 0))
			if prev >= 0 {
				b.Dep(r, snd, prev, graph.Requires)
			}
			prev = b.Add(r, graph.RecvOp(1, int32((r-k+p)%p), 0))
		}
	}
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	return g
}

func benchReplay(b *testing.B, g *graph.Graph) { benchRun(b, g, network.DefaultLogGOPS(), false) }

func benchReplayNet(b *testing.B, g *graph.Graph, net network.LogGOPS) { benchRun(b, g, net, false) }

// benchRun replays g under net, with RunSource from g's windows where
// stream is set.
func benchRun(b *testing.B, g *graph.Graph, net network.LogGOPS, stream bool) {
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := testenv.CPUTime()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	var events int64
	for i := 0; i < b.N; i++ {
		run := Run
		if stream {
			run = func(g *graph.Graph, net network.LogGOPS, opt Options) (*Result, error) { return RunSource(g, net, opt) }
		}
		res, err := run(g, net, Options{})
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
	}
	runtime.ReadMemStats(&m1)
	// The loop allocates nothing per event: what a replay allocates is
	// its setup (a few dozen slices), whatever its length.
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(events), "allocs/event")
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
	if cpu := (testenv.CPUTime() - cpu0).Seconds(); cpu > 0 {
		// The rate per CPU second of the process: steadier than wall time
		// on a loaded machine (run with GOMAXPROCS=1 to exclude the GC's
		// parallel work).
		b.ReportMetric(float64(events)/cpu, "events/cpu-s")
	}
}

// BenchmarkRingAllreduce1024 replays a 1024-rank ring allreduce of 1 MiB
// per rank (about 6.3 million events) from an in-memory graph.
func BenchmarkRingAllreduce1024(b *testing.B) { benchReplay(b, ringAllreduce(1024, 1<<20)) }

// BenchmarkRingAllreduce1024Stream replays it with RunSource.
func BenchmarkRingAllreduce1024Stream(b *testing.B) {
	benchRun(b, ringAllreduce(1024, 1<<20), network.DefaultLogGOPS(), true)
}

// BenchmarkRandomPermutation replays a random permutation of 1,024 ranks
// and 1,000 rounds (about 3 million events), and BenchmarkRandomPermutationStream
// the same with RunSource.
func BenchmarkRandomPermutation(b *testing.B) {
	benchRun(b, randomPermutation(b), network.DefaultLogGOPS(), false)
}
func BenchmarkRandomPermutationStream(b *testing.B) {
	benchRun(b, randomPermutation(b), network.DefaultLogGOPS(), true)
}

func randomPermutation(b *testing.B) *graph.Graph {
	g, err := gen.GeneratePattern(gen.RandomPermutation, gen.PatternOptions{Ranks: 1024, Rounds: 1000, Bytes: 8, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// BenchmarkDissemination65536 replays a 65,536-rank dissemination barrier.
func BenchmarkDissemination65536(b *testing.B) { benchReplay(b, dissemination(65536)) }

func benchFlow(b *testing.B, g *graph.Graph, spec string, neighbours bool) {
	top, err := topo.Parse(spec)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := testenv.CPUTime()
	var events, flows int64
	for i := 0; i < b.N; i++ {
		res, err := Run(g, network.DefaultLogGOPS(), Options{Flow: &FlowNetwork{Topology: top, Neighbours: neighbours}})
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
		flows += res.FlowEvents
	}
	b.ReportMetric(float64(flows)/b.Elapsed().Seconds(), "flowevents/s")
	if cpu := (testenv.CPUTime() - cpu0).Seconds(); cpu > 0 {
		// On a loaded machine wall time overstates the cost; with
		// GOMAXPROCS=1 the process's CPU time is the replay's.
		b.ReportMetric(float64(flows)/cpu, "flowevents/cpu-s")
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkAlltoallFatTree1024 replays a 1,024-rank pairwise all-to-all
// of 64 KiB per message (1,047,552 flows: 2.1 million flow starts and
// ends) on a 4-ary 5-tree with 2:1 oversubscription, under the flow model
// (max-min fair: a starting or ending flow's connected component
// re-rated).
func BenchmarkAlltoallFatTree1024(b *testing.B) {
	benchFlow(b, pairwiseAlltoall(1024, 64<<10), "fattree:k=4,n=5,oversub=2", false)
}

// BenchmarkAlltoallFatTree1024Neighbours is BenchmarkAlltoallFatTree1024
// with FlowNetwork.Neighbours (only the flows sharing a link with a
// starting or ending one re-rated: capsim's default before exact max-min).
func BenchmarkAlltoallFatTree1024Neighbours(b *testing.B) {
	benchFlow(b, pairwiseAlltoall(1024, 64<<10), "fattree:k=4,n=5,oversub=2", true)
}

// BenchmarkRunTasks runs the 40×40-tile Cholesky graph (11,480 tasks) on
// the executor with a trivial greedy policy (every ready task on 4
// threads while they fit under 60 W): the executor's own cost.
func BenchmarkRunTasks(b *testing.B) {
	d, err := taskgraph.Cholesky(40)
	if err != nil {
		b.Fatal(err)
	}
	w, err := NewTaskWorkload(d, taskgraph.DefaultProfiles())
	if err != nil {
		b.Fatal(err)
	}
	node := Node{Cores: 112, Cap: 60}
	b.ReportAllocs()
	b.ResetTimer()
	var events int64
	for i := 0; i < b.N; i++ {
		res, err := RunTasks(w, node, &greedy{cfg: 3})
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkBuild builds the engine's records for the 1024-rank ring
// allreduce (about 4.2 million operations) from its graph, reusing a
// Scratch: the part of a replay's setup that grows with the graph.
func BenchmarkBuild(b *testing.B) {
	g := ringAllreduce(1024, 1<<20)
	var scr Scratch
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e, err := newEngine(g, network.DefaultLogGOPS(), Options{Scratch: &scr})
		if err != nil {
			b.Fatal(err)
		}
		scr.keep(e)
	}
	b.ReportMetric(float64(g.NumOps()*b.N)/b.Elapsed().Seconds(), "ops/s")
}
