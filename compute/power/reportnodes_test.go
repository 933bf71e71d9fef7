package power

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/capsim/capsim/traces/graph"
)

// ReportNodes is Report and NodeCap from one accounting, to the bit, on
// units whose computations start and end together at many instants (so
// that the order in which equal edges add up matters).
func TestReportNodesMatchesReportAndNodeCap(t *testing.T) {
	const ranks, perRank = 8, 200
	g := &graph.Graph{RankStart: make([]int32, ranks+1)}
	for r := range ranks {
		g.RankStart[r+1] = g.RankStart[r] + perRank
	}
	for range ranks * perRank {
		g.Kind = append(g.Kind, graph.Calc)
	}
	a := NewAccountant(g)
	a.OnDevice(ranks, func(op int32) bool { return op%3 == 0 })
	rng := rand.New(rand.NewPCG(1, 2))
	opW := make([]float64, ranks*perRank)
	var makespan int64
	for r := range ranks {
		var at int64
		for i := range perRank {
			op := int32(r*perRank + i)
			d := int64(1 + rng.IntN(4)*5) // few distinct times: many ties
			a.Busy(op, at, at+d)
			opW[op] = 0.1 + rng.Float64()*300
			at += d + int64(rng.IntN(2)*5)
		}
		makespan = max(makespan, at)
	}
	active := make([]float64, ranks)
	for r := range active {
		active[r] = 9
	}
	dev := make([]float64, ranks)
	for r := range dev {
		dev[r] = 50.3
	}
	m := JobModel{BaseW: 240, IdleW: 1, ActiveW: active, OpW: opW, DeviceIdleW: dev}
	two := NodeLayout{Nodes: 2, NodeOf: func(u int) int { return (u % ranks) / 4 }, BaseW: 120}
	for _, tc := range []struct{ jobCapW, nodeCapW float64 }{{0, 0}, {1500, 700}, {3000, 1200}} {
		rep, err := a.Report(m, makespan, tc.jobCapW)
		if err != nil {
			t.Fatal(err)
		}
		nc, err := a.NodeCap(m, makespan, two, tc.nodeCapW)
		if err != nil {
			t.Fatal(err)
		}
		rep2, nc2, err := a.ReportNodes(m, makespan, tc.jobCapW, two, tc.nodeCapW)
		if err != nil {
			t.Fatal(err)
		}
		if rep2 != rep || nc2 != nc {
			t.Fatalf("caps %+v: ReportNodes %+v, %+v; want Report's %+v and NodeCap's %+v", tc, rep2, nc2, rep, nc)
		}
	}
	one := two
	one.Nodes = 1
	if _, _, err := a.ReportNodes(m, makespan, 0, one, 700); err == nil {
		t.Fatal("a unit on a node past the count: no error")
	}
}

// rankCurve's slices.SortFunc puts equal edges in sort.Slice's order, so
// that a curve's powers add up as they did with sort.Slice.
func TestEdgeSortKeepsSortSliceOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 7, 12, 13, 50, 1000, 20000} {
		ev := make([]edge, n)
		for i := range ev {
			ev[i] = edge{t: int64(rng.IntN(8)), dw: float64(i), op: int32(rng.IntN(3)) - 1}
		}
		want := slices.Clone(ev)
		sort.Slice(want, func(i, j int) bool {
			if want[i].t != want[j].t {
				return want[i].t < want[j].t
			}
			return want[i].op < want[j].op
		})
		rankCurve(ev, 0, WaitPower{}, 8)
		if !slices.Equal(ev, want) {
			t.Fatalf("%d edges: slices.SortFunc's order differs from sort.Slice's", n)
		}
	}
}
