package graph

import "fmt"

// Window is a contiguous run of one rank's operations: a slice of the
// per-rank execution graph, not a second representation. Operation i of
// the window is the rank's operation First+i (counted from 0 within the
// rank). Its columns mean what the Graph's do.
//
// Dependencies are in compressed sparse row form relative to the window's
// first edge: the operations window operation i depends on are
// DepOp[DepStart[i]-DepStart[0] : DepStart[i+1]-DepStart[0]] (Deps does
// the arithmetic). A DepOp entry minus Origin is the rank-relative index of
// the operation depended on; Origin lets a window alias a Graph's global
// ids without copying. DepOrder, when not nil, is each edge's position in
// the order the rank's dependencies were declared, as in Graph. Region is
// nil where a source does not read regions (a replay does not use them).
//
// The window invariant, which every Source keeps: a window holds whole
// operations with all their dependency edges, and a rank's windows, taken
// one after another from First = 0, cover the rank's operations in order
// without gap or overlap.
type Window struct {
	Rank   int
	First  int32 // rank-relative index of the window's first operation
	Origin int32 // subtracted from DepOp entries to give rank-relative indices

	Kind   []OpKind
	Size   []int64
	Peer   []int32
	Tag    []int32
	CPU    []uint8
	NIC    []uint8
	Region []int32

	DepStart []int32 // len(Kind)+1 entries
	DepOp    []int32
	DepKind  []DepKind
	DepOrder []int32 // nil, or declaration positions within the rank
}

// Len returns the number of operations in the window.
func (w *Window) Len() int { return len(w.Kind) }

// Deps returns the rank-relative indices (plus Origin) of the operations
// window operation i depends on and the kinds of those edges. The returned
// slices alias the window's storage.
func (w *Window) Deps(i int) ([]int32, []DepKind) {
	a, b := w.DepStart[i]-w.DepStart[0], w.DepStart[i+1]-w.DepStart[0]
	return w.DepOp[a:b], w.DepKind[a:b]
}

// Source hands out a graph's operations rank by rank in windows. The
// replay engine reads its operations through a Source; *Graph is the
// in-memory one.
type Source interface {
	// NumRanks returns the number of ranks.
	NumRanks() int
	// Window returns at most max (≥ 1) operations of rank r starting at
	// its rank-relative operation first, keeping the window invariant; an
	// empty window means the rank has no operation at first. The window's
	// slices are valid until the next call.
	Window(r int, first int32, max int) (Window, error)
}

// Window returns at most max operations of rank r from its rank-relative
// operation first on, aliasing the graph's columns (Origin is the rank's
// first global id, RankStart[r]).
func (g *Graph) Window(r int, first int32, max int) (Window, error) {
	if r < 0 || r >= g.NumRanks() {
		return Window{}, fmt.Errorf("graph: window of rank %d, graph has %d ranks", r, g.NumRanks())
	}
	lo, end := g.RankStart[r], g.RankStart[r+1]
	if first < 0 || first > end-lo || max < 1 {
		return Window{}, fmt.Errorf("graph: window at %d (max %d) of rank %d, which has %d operations", first, max, r, end-lo)
	}
	a := lo + first
	b := a + int32(min(int64(max), int64(end-a)))
	ea, eb := g.DepStart[a], g.DepStart[b]
	w := Window{
		Rank: r, First: first, Origin: lo,
		Kind: g.Kind[a:b], Size: g.Size[a:b], Peer: g.Peer[a:b], Tag: g.Tag[a:b],
		CPU: g.CPU[a:b], NIC: g.NIC[a:b], Region: g.Region[a:b],
		DepStart: g.DepStart[a : b+1], DepOp: g.DepOp[ea:eb], DepKind: g.DepKind[ea:eb],
	}
	if g.DepOrder != nil {
		w.DepOrder = g.DepOrder[ea:eb]
	}
	return w, nil
}
