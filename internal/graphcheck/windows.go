package graphcheck

import (
	"fmt"
	"slices"

	"github.com/capsim/capsim/traces/graph"
)

// SameWindows reads every window of at most max operations of every rank
// of src and checks it against the same window of g: its rank, first
// operation, operations (kind, size, peer, tag, CPU, NIC),
// dependencies, counted from each window's origin, and their declaration
// order where g's window has one. It returns the first
// difference.
func SameWindows(g *graph.Graph, src graph.Source, max int) error {
	if src.NumRanks() != g.NumRanks() {
		return fmt.Errorf("%d ranks, want %d", src.NumRanks(), g.NumRanks())
	}
	for r := 0; r < g.NumRanks(); r++ {
		n := g.RankStart[r+1] - g.RankStart[r]
		for first := int32(0); first <= n; first += int32(max) {
			want, err := g.Window(r, first, max)
			if err != nil {
				return err
			}
			got, err := src.Window(r, first, max)
			if err != nil {
				return fmt.Errorf("rank %d from %d: %w", r, first, err)
			}
			if err := sameWindow(got, want); err != nil {
				return fmt.Errorf("rank %d from %d (max %d): %w", r, first, max, err)
			}
		}
	}
	return nil
}

// sameWindow compares window got with want.
func sameWindow(got, want graph.Window) error {
	if got.Rank != want.Rank || got.First != want.First || got.Len() != want.Len() ||
		!slices.Equal(got.Kind, want.Kind) || !slices.Equal(got.Size, want.Size) ||
		!slices.Equal(got.Peer, want.Peer) || !slices.Equal(got.Tag, want.Tag) ||
		!slices.Equal(got.CPU, want.CPU) || !slices.Equal(got.NIC, want.NIC) {
		return fmt.Errorf("the operations differ")
	}
	for i := 0; i < want.Len(); i++ {
		wd, wk := want.Deps(i)
		gd, gk := got.Deps(i)
		if len(gd) != len(wd) || !slices.Equal(gk, wk) {
			return fmt.Errorf("operation %d: dependencies %v %v, want %v %v", int(got.First)+i, gd, gk, wd, wk)
		}
		for j := range wd {
			if gd[j]-got.Origin != wd[j]-want.Origin {
				return fmt.Errorf("operation %d: dependencies %v, want %v", int(got.First)+i, gd, wd)
			}
		}
	}
	if want.DepOrder != nil && !slices.Equal(got.DepOrder, want.DepOrder) {
		return fmt.Errorf("declaration order %v, want %v", got.DepOrder, want.DepOrder)
	}
	return nil
}
