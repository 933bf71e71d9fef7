package gen

import (
	"github.com/capsim/capsim/internal/graphcheck"
	"math/bits"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/traces/graph"
)

// Every pattern at many sizes, powers of two and not: sends and receives
// match one to one with equal sizes, the schedule completes even with
// synchronous (rendezvous) messages, and the message count is the
// textbook one.
func TestPatternsStructure(t *testing.T) {
	clog := func(p int) int {
		if p <= 1 {
			return 0
		}
		return bits.Len(uint(p - 1))
	}
	for _, pat := range Patterns() {
		for _, p := range []int{1, 2, 3, 5, 8, 12, 13, 16, 33} {
			g, err := GeneratePattern(pat, PatternOptions{Ranks: p, Bytes: 4000, Segments: 4, NBCalc: 10, Root: p / 2})
			if err != nil {
				t.Fatalf("%s p=%d: %v", pat, p, err)
			}
			if err := graphcheck.MatchAndRun(g); err != nil {
				t.Errorf("%s p=%d: %v", pat, p, err)
			}
			sends := 0
			for _, k := range g.Kind {
				if k == graph.Send {
					sends++
				}
			}
			want := map[Pattern]int{BinomialBcast: p - 1, BinaryBcast: p - 1, BinomialReduce: p - 1,
				Dissemination: p * clog(p), PipelinedRing: 4 * (p - 1), LinearAlltoall: p * (p - 1),
				Gather: p - 1, Scatter: p - 1, RingAllreduce: 2 * p * (p - 1), RandomPermutation: p}
			pof2 := 1 << (bits.Len(uint(p)) - 1)
			// 2 log2 p' rounds on the p' = 2^⌊log2 p⌋ core ranks, plus 2 per folded pair.
			want[RecDoubAllreduce] = 2*pof2*(bits.Len(uint(pof2))-1) + 2*(p-pof2)
			if sends != want[pat] {
				t.Errorf("%s p=%d: %d sends, want %d", pat, p, sends, want[pat])
			}
		}
	}
}

// Every conformance schedule has a generated counterpart in
// TestPatternsMatchSchedgen (a file added to the set must be covered).
func TestPatternsCoverConformance(t *testing.T) {
	dir := testenv.Shared(t, "conformance/loggopsim")
	files, err := filepath.Glob(filepath.Join(dir, "*.goal"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no conformance schedules in %s: %v", dir, err)
	}
	prefixes := map[string]bool{"allreduce_recdoub": true, "allreduce_ring": true, "alltoall": true,
		"bcast_binary": true, "bcast_binomial": true, "dissem": true, "gather": true, "scatter": true,
		"reduce_binomial": true, "ring_pipelined": true}
	for _, f := range files {
		base := filepath.Base(f)
		name := base[:strings.LastIndex(base, "_")]
		if !prefixes[name] {
			t.Errorf("conformance schedule %s has no generated pattern", base)
		}
	}
}

// With a root, rooted patterns are the root-0 pattern with ranks 0 and
// Root swapped (schedgen's convention): the root's op list equals rank 0's
// of the unrooted pattern with peers mapped.
func TestPatternsRoot(t *testing.T) {
	const n, root = 12, 5
	sw := func(r int32) int32 {
		switch r {
		case 0:
			return root
		case root:
			return 0
		}
		return r
	}
	for _, pat := range []Pattern{BinomialBcast, BinaryBcast, BinomialReduce, PipelinedRing, Gather, Scatter} {
		a, err := GeneratePattern(pat, PatternOptions{Ranks: n, Bytes: 10})
		if err != nil {
			t.Fatal(err)
		}
		b, err := GeneratePattern(pat, PatternOptions{Ranks: n, Bytes: 10, Root: root})
		if err != nil {
			t.Fatal(err)
		}
		for r := int32(0); r < n; r++ {
			ra, rb := r, sw(r)
			la, lb := a.RankStart[ra+1]-a.RankStart[ra], b.RankStart[rb+1]-b.RankStart[rb]
			if la != lb {
				t.Fatalf("%s: rank %d has %d ops, rank %d of the rooted pattern %d", pat, ra, la, rb, lb)
			}
			for k := int32(0); k < la; k++ {
				ia, ib := a.RankStart[ra]+k, b.RankStart[rb]+k
				if a.Kind[ia] != b.Kind[ib] || sw(a.Peer[ia]) != b.Peer[ib] {
					t.Errorf("%s: %s vs %s", pat, a.Describe(ia), b.Describe(ib))
				}
			}
		}
	}
	if _, err := GeneratePattern(Gather, PatternOptions{Ranks: 4, Root: 4}); err == nil {
		t.Error("root 4 of 4 ranks accepted")
	}
}
