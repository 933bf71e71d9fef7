package sim

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/traces/goal"
	"github.com/capsim/capsim/traces/graph"
)

// capped is a graph.Source that hands out windows of at most max
// operations, whatever the engine asks for.
type capped struct {
	g   *graph.Graph
	max int
}

func (c capped) NumRanks() int { return c.g.NumRanks() }

func (c capped) Window(r int, first int32, max int) (graph.Window, error) {
	return c.g.Window(r, first, min(max, c.max))
}

// declaredGraph has irequires edges and dependencies declared out of
// storage order, so that its successor lists follow DepOrder.
func declaredGraph(t *testing.T) *graph.Graph {
	b := graph.NewBuilder(2)
	for r := 0; r < 2; r++ {
		c := b.Add(r, graph.CalcOp(5))
		s := b.Add(r, graph.SendOp(8, int32(1-r), 0))
		v := b.Add(r, graph.RecvOp(8, int32(1-r), 0))
		d := b.Add(r, graph.CalcOp(3))
		b.Dep(r, d, v, graph.Requires)
		b.Dep(r, v, c, graph.Irequires)
		b.Dep(r, s, c, graph.Requires)
		b.Dep(r, d, c, graph.Requires)
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if g.DepOrder == nil {
		t.Fatal("the builder kept no declaration order")
	}
	return g
}

// TestBuildWindows checks that the engine's records do not depend on where
// its source's windows end: windows of 1, 2, 3 and 7 operations give the
// records that whole ranks give, on the differential and conformance
// schedules (irequires, several CPUs and NICs, declaration orders).
func TestBuildWindows(t *testing.T) {
	graphs := map[string]*graph.Graph{"declared": declaredGraph(t), "ring16": ringAllreduce(16, 4096)}
	files, _ := filepath.Glob(filepath.Join("testdata", "differential", "*.goal"))
	shared, _ := filepath.Glob(filepath.Join(testenv.Shared(t, "conformance/loggopsim"), "*.goal"))
	for _, f := range append(files, shared...) {
		g, err := goal.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		graphs[filepath.Base(f)] = g
	}
	build := func(g *graph.Graph, src graph.Source) *engine {
		e := &engine{g: g}
		if _, _, err := e.build(src, g.RankStart, 1<<30, &Scratch{}); err != nil {
			t.Fatal(err)
		}
		return e
	}
	ordered := 0
	for name, g := range graphs {
		if g.DepOrder != nil {
			ordered++
		}
		want := build(g, g)
		for _, w := range []int{1, 2, 3, 7} {
			got := build(g, capped{g, w})
			if !slices.Equal(got.ops, want.ops) || !slices.Equal(got.succ, want.succ) ||
				got.ncpu != want.ncpu || got.nnic != want.nnic {
				t.Errorf("%s: windows of %d operations build other records than whole ranks", name, w)
			}
		}
	}
	if ordered == 0 {
		t.Error("no schedule has a declaration order")
	}
}

// TestBuildSuccessors pins the successor lists of declaredGraph: in
// declaration order, irequires entries marked.
func TestBuildSuccessors(t *testing.T) {
	g := declaredGraph(t)
	e := &engine{g: g}
	if _, _, err := e.build(g, g.RankStart, 2, &Scratch{}); err != nil {
		t.Fatal(err)
	}
	// Rank 0's calc (op 0) is depended on by its recv (irequires,
	// declared first), its send, then its second calc.
	got := e.succ[e.ops[0].succ&^irqBit : e.ops[1].succ&^irqBit]
	if want := []int32{2 | irqBit, 1, 3}; !slices.Equal(got, want) {
		t.Errorf("successors of rank 0's calc: %v, want %v", got, want)
	}
	if e.ops[0].succ >= 0 {
		t.Error("rank 0's calc releases a successor when it starts but is not marked")
	}
}
