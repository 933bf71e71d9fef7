package gen

import (
	"testing"

	"github.com/capsim/capsim/internal/graphcheck"
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
		if err := graphcheck.SameWindows(g, src, max); err != nil {
			t.Fatalf("max %d: %v", max, err)
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
