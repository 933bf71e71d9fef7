package gen

import (
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/traces/goal"
	"github.com/capsim/capsim/traces/graph"
)

// describe renders a graph as per-operation lines with sorted dependencies,
// so two graphs compare equal when they have the same operations and edges.
func describe(g *graph.Graph) []string {
	var out []string
	for id := int32(0); id < int32(g.NumOps()); id++ {
		deps, kinds := g.Deps(id)
		var ds []string
		for j, d := range deps {
			ds = append(ds, fmt.Sprintf("%s %d", kinds[j], d))
		}
		sort.Strings(ds)
		out = append(out, fmt.Sprintf("%d %s %d %d %d cpu%d nic%d %v", g.RankOf(id), g.Kind[id], g.Size[id], g.Peer[id], g.Tag[id], g.CPU[id], g.NIC[id], ds))
	}
	return out
}

// TestPatternsMatchSchedgen compares generated patterns with the schedgen
// schedules of the shared LogGOPSim conformance set, operation by operation
// and edge by edge.
func TestPatternsMatchSchedgen(t *testing.T) {
	dir := testenv.Shared(t, "conformance/loggopsim")
	for _, tc := range []struct {
		file string
		p    Pattern
		o    PatternOptions
	}{
		{"dissem_32.goal", Dissemination, PatternOptions{Ranks: 32, Bytes: 64}},
		{"bcast_binomial_16.goal", BinomialBcast, PatternOptions{Ranks: 16, Bytes: 1024}},
		{"bcast_binary_16.goal", BinaryBcast, PatternOptions{Ranks: 16, Bytes: 8}},
		{"reduce_binomial_12.goal", BinomialReduce, PatternOptions{Ranks: 12, Bytes: 4096}},
		{"ring_pipelined_8.goal", PipelinedRing, PatternOptions{Ranks: 8, Bytes: 8192, Segments: 8}},
		{"alltoall_8.goal", LinearAlltoall, PatternOptions{Ranks: 8, Bytes: 100000}},
		{"gather_16.goal", Gather, PatternOptions{Ranks: 16, Bytes: 512}},
		{"scatter_16.goal", Scatter, PatternOptions{Ranks: 16, Bytes: 512}},
		{"allreduce_ring_8.goal", RingAllreduce, PatternOptions{Ranks: 8, Bytes: 200000}},
		{"allreduce_recdoub_16.goal", RecDoubAllreduce, PatternOptions{Ranks: 16, Bytes: 1000, NBCalc: 3000}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			want, err := goal.ReadFile(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := GeneratePattern(tc.p, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			a, b := describe(got), describe(want)
			if len(a) != len(b) {
				t.Fatalf("%d operations, schedgen has %d", len(a), len(b))
			}
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("operation %d: got %s, schedgen %s", i, a[i], b[i])
				}
			}
		})
	}
}

func TestPatternsAnySize(t *testing.T) {
	for _, p := range Patterns() {
		for _, n := range []int{1, 2, 7, 33} {
			if _, err := GeneratePattern(p, PatternOptions{Ranks: n, Bytes: 100}); err != nil {
				t.Errorf("%s on %d ranks: %v", p, n, err)
			}
		}
	}
	if _, err := GeneratePattern("nope", PatternOptions{Ranks: 2}); err == nil {
		t.Error("unknown pattern accepted")
	}
	if _, err := GeneratePattern(Gather, PatternOptions{Ranks: 0}); err == nil {
		t.Error("zero ranks accepted")
	}
}

// TestRandomPermutation checks the random_permutation pattern's structure:
// in every round each rank sends once and receives once, the receive of
// rank d in round k names the rank whose send of round k goes to d, each
// send after the first requires the rank's previous receive, and the seed
// picks the permutations.
func TestRandomPermutation(t *testing.T) {
	const n, rounds = 37, 5
	g, err := GeneratePattern(RandomPermutation, PatternOptions{Ranks: n, Bytes: 64, Rounds: rounds, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if g.NumOps() != 2*n*rounds {
		t.Fatalf("%d operations, want %d", g.NumOps(), 2*n*rounds)
	}
	// ops[r] lists rank r's operations in order: send, recv per round.
	ops := make([][]int32, n)
	for id := int32(0); id < int32(g.NumOps()); id++ {
		ops[g.RankOf(id)] = append(ops[g.RankOf(id)], id)
	}
	identity := 0
	for k := 0; k < rounds; k++ {
		sentTo := make([]int, n)
		for i := range sentTo {
			sentTo[i] = -1
		}
		for r := 0; r < n; r++ {
			s, rv := ops[r][2*k], ops[r][2*k+1]
			if g.Kind[s] != graph.Send || g.Kind[rv] != graph.Recv || g.Size[s] != 64 {
				t.Fatalf("rank %d round %d: kinds %s %s size %d", r, k, g.Kind[s], g.Kind[rv], g.Size[s])
			}
			d := int(g.Peer[s])
			if sentTo[d] >= 0 {
				t.Fatalf("round %d: ranks %d and %d both send to %d", k, sentTo[d], r, d)
			}
			sentTo[d] = r
			if d == r {
				identity++
			}
			deps, kinds := g.Deps(s)
			if k == 0 && len(deps) != 0 {
				t.Errorf("rank %d: first send has dependencies %v", r, deps)
			}
			if k > 0 && (len(deps) != 1 || deps[0] != ops[r][2*k-1] || kinds[0] != graph.Requires) {
				t.Errorf("rank %d round %d: send depends on %v %v, want requires %d", r, k, deps, kinds, ops[r][2*k-1])
			}
		}
		for d := 0; d < n; d++ {
			if rv := ops[d][2*k+1]; int(g.Peer[rv]) != sentTo[d] {
				t.Errorf("round %d: rank %d receives from %d, but %d sends to it", k, d, g.Peer[rv], sentTo[d])
			}
		}
	}
	if identity == n*rounds {
		t.Error("every round is the identity")
	}
	other, _ := GeneratePattern(RandomPermutation, PatternOptions{Ranks: n, Bytes: 64, Rounds: rounds, Seed: 8})
	if fmt.Sprint(describe(g)) == fmt.Sprint(describe(other)) {
		t.Error("seeds 7 and 8 give the same permutations")
	}
	if _, err := GeneratePattern(RandomPermutation, PatternOptions{Ranks: 4, Rounds: -1}); err == nil {
		t.Error("negative rounds accepted")
	}
}
