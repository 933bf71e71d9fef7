package gen

import (
	"slices"
	"testing"

	"github.com/capsim/capsim/traces/graph"
)

// TestPermutationSource checks that the streamed random_permutation hands
// out GeneratePattern's graph window by window, for windows of one
// operation, an odd count and the whole rank, with its totals, and that
// it rejects what GeneratePattern rejects and windows outside a rank.
func TestPermutationSource(t *testing.T) {
	o := PatternOptions{Ranks: 37, Bytes: 64, Rounds: 9, Seed: 7}
	g, err := GeneratePattern(RandomPermutation, o)
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewPermutationSource(o)
	if err != nil {
		t.Fatal(err)
	}
	if src.NumRanks() != g.NumRanks() || src.NumOps() != g.NumOps() || src.NumDeps() != g.NumDeps() {
		t.Fatalf("totals %d/%d/%d, want %d/%d/%d", src.NumRanks(), src.NumOps(), src.NumDeps(), g.NumRanks(), g.NumOps(), g.NumDeps())
	}
	for _, max := range []int{1, 5, 18, 100} {
		for r := 0; r < g.NumRanks(); r++ {
			n := g.RankStart[r+1] - g.RankStart[r]
			for first := int32(0); first <= n; first += int32(max) {
				want, _ := g.Window(r, first, max)
				got, err := src.Window(r, first, max)
				if err != nil {
					t.Fatalf("rank %d from %d: %v", r, first, err)
				}
				if got.Rank != r || got.First != first || got.Len() != want.Len() ||
					!slices.Equal(got.Kind, want.Kind) || !slices.Equal(got.Size, want.Size) ||
					!slices.Equal(got.Peer, want.Peer) || !slices.Equal(got.Tag, want.Tag) ||
					!slices.Equal(got.CPU, want.CPU) || !slices.Equal(got.NIC, want.NIC) {
					t.Fatalf("max %d, rank %d from %d: the operations differ", max, r, first)
				}
				for i := 0; i < want.Len(); i++ {
					wd, wk := want.Deps(i)
					gd, gk := got.Deps(i)
					if len(gd) != len(wd) || !slices.Equal(gk, wk) {
						t.Fatalf("rank %d operation %d: dependencies %v %v, want %v %v", r, int(first)+i, gd, gk, wd, wk)
					}
					for j := range wd {
						if gd[j]-got.Origin != wd[j]-want.Origin {
							t.Fatalf("rank %d operation %d: dependencies %v, want %v", r, int(first)+i, gd, wd)
						}
					}
				}
			}
		}
	}
	for _, bad := range []struct {
		r     int
		first int32
		max   int
	}{{-1, 0, 1}, {37, 0, 1}, {0, -1, 1}, {0, 19, 1}, {0, 0, 0}} {
		if _, err := src.Window(bad.r, bad.first, bad.max); err == nil {
			t.Errorf("window %+v accepted", bad)
		}
	}
	for _, bad := range []PatternOptions{
		{Ranks: 0, Rounds: 1},
		{Ranks: 4, Rounds: -1},
		{Ranks: 4, Bytes: -1},
		{Ranks: 4, Rounds: 1, NBCalc: 10},
		{Ranks: 1 << 16, Rounds: MaxStreamedPatternOps >> 16},
	} {
		if _, err := NewPermutationSource(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	var _ graph.Source = src
}
