package chakra

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
)

// recorder logs everything the engine reports, in its order.
type recorder struct{ log []string }

func (r *recorder) Busy(op int32, start, end int64) {
	r.log = append(r.log, fmt.Sprint("busy", op, start, end))
}

func (r *recorder) Message(send, recv int32, sent, matched int64) {
	r.log = append(r.log, fmt.Sprint("msg", send, recv, sent, matched))
}

func (r *recorder) Queued(op int32, t int64) { r.log = append(r.log, fmt.Sprint("queued", op, t)) }

func (r *recorder) Step(s sim.Step) { r.log = append(r.log, fmt.Sprintf("step %+v", s)) }

// checkReduced builds files with and without reduction, replays both
// (as built, and with LogGOPSim's multi-CPU semantics, as an exported
// graph replays) and fails unless every operation starts and ends at the
// same time, in the same order of engine steps, with the same makespan and
// statistics.
func checkReduced(t *testing.T, files []*File, opt Options, net network.LogGOPS) (all, kept int) {
	t.Helper()
	for _, causal := range []bool{true, false} {
		all, kept = checkReducedAs(t, files, opt, net, causal)
	}
	return all, kept
}

func checkReducedAs(t *testing.T, files []*File, opt Options, net network.LogGOPS, causal bool) (all, kept int) {
	t.Helper()
	var logs [2][]string
	var results [2]string
	for i, reduced := range []bool{false, true} {
		tr, err := build(files, opt, reduced)
		if err != nil {
			t.Fatal(err)
		}
		tr.Graph.Causal = causal
		rec := &recorder{}
		res, err := sim.Run(tr.Graph, net, sim.Options{Observer: rec})
		if err != nil {
			t.Fatal(err)
		}
		logs[i], results[i] = rec.log, fmt.Sprintf("%d ops, %+v", tr.Graph.NumOps(), *res)
		if reduced {
			kept = tr.Graph.NumDeps()
		} else {
			all = tr.Graph.NumDeps()
		}
	}
	if results[0] != results[1] {
		t.Fatalf("causal %v: all dependencies: %s\nreduced: %s", causal, results[0], results[1])
	}
	if len(logs[0]) != len(logs[1]) {
		t.Fatalf("causal %v: %d engine reports with all dependencies, %d reduced", causal, len(logs[0]), len(logs[1]))
	}
	for j := range logs[0] {
		if logs[0][j] != logs[1][j] {
			t.Fatalf("causal %v: engine report %d: %s with all dependencies, %s reduced", causal, j, logs[0][j], logs[1][j])
		}
	}
	return all, kept
}

// randomFile returns a file of n nodes on the host and GPU streams, with
// collectives at the positions in colls (of the sizes in sizes), each
// node depending on up to fanIn random earlier nodes.
func randomFile(t *testing.T, rng *rand.Rand, n, fanIn int, colls map[int]CollType, sizes map[int]int64) *File {
	t.Helper()
	nodes := make([]tnode, n)
	for i := range nodes {
		var deps []uint64
		if i > 0 {
			for range rng.IntN(fanIn + 1) {
				deps = append(deps, uint64(1+rng.IntN(i)))
			}
		}
		if kind, ok := colls[i]; ok {
			nodes[i] = coll(uint64(i+1), kind, sizes[i], "", deps...)
			continue
		}
		nodes[i] = comp(uint64(i+1), uint64(rng.IntN(4)*rng.IntN(20)), rng.IntN(3) == 0, deps...)
	}
	f, err := Decode(bytes.NewReader(encTrace(nodes...)), "random.0.et")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Leaving out implied dependencies changes no replay: random DAGs of
// computations and collectives on one to four NPUs, replicated or not.
func TestReduceKeepsReplay(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	net := network.DefaultLogGOPS()
	var all, kept int
	for trial := range 60 {
		n, k := 2+rng.IntN(60), 1+rng.IntN(3)
		colls, sizes := map[int]CollType{}, map[int]int64{}
		for range rng.IntN(4) {
			i := rng.IntN(n)
			colls[i] = []CollType{AllReduce, AllGather, ReduceScatter, Broadcast, AllToAll}[rng.IntN(5)]
			sizes[i] = int64(1 + rng.IntN(1<<20))
		}
		files := make([]*File, k)
		for i := range files {
			files[i] = randomFile(t, rng, n, 1+rng.IntN(8), colls, sizes)
		}
		opt := Options{}
		if trial%2 == 1 {
			opt.Replicate = k * (1 + rng.IntN(3))
		}
		a, r := checkReduced(t, files, opt, net)
		all, kept = all+a, kept+r
	}
	if kept >= all {
		t.Errorf("reduction kept %d of %d dependencies", kept, all)
	}
}

// The shared PyTorch trace replays the same with its implied data
// dependencies left out, on one NPU and replicated to eight.
func TestReduceSharedTrace(t *testing.T) {
	if _, err := os.Stat(sharedTrace); err != nil {
		t.Skip("shared traces not available")
	}
	f, err := ReadFile(sharedTrace)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 8} {
		all, kept := checkReduced(t, []*File{f}, Options{Replicate: n}, network.DefaultLogGOPS())
		t.Logf("replicate %d: %d dependencies, %d kept", n, all, kept)
		if kept*4 > all {
			t.Errorf("replicate %d: kept %d of %d dependencies", n, kept, all)
		}
	}
}

// reduce drops exactly the edges another path implies.
func TestReduce(t *testing.T) {
	for _, tc := range []struct {
		deps, want [][]int32
	}{
		{[][]int32{{}, {0}, {0, 1}}, [][]int32{{}, {0}, {1}}},
		{[][]int32{{}, {}, {1, 0}}, [][]int32{{}, {}, {1, 0}}},
		{[][]int32{{}, {0}, {1}, {0, 2, 1}}, [][]int32{{}, {0}, {1}, {2}}},
		{[][]int32{{3}, {}, {1}, {2, 1}}, [][]int32{{3}, {}, {1}, {2}}},
	} {
		order, bad := topo(tc.deps)
		if bad >= 0 {
			t.Fatalf("%v: cycle at %d", tc.deps, bad)
		}
		got, ok := reduce(tc.deps, order)
		if !ok || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("reduce(%v) = %v, %v; want %v", tc.deps, got, ok, tc.want)
		}
	}
}
