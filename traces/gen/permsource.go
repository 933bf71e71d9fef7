package gen

import (
	"fmt"
	"math/rand/v2"

	"github.com/capsim/capsim/traces/graph"
)

// MaxStreamedPatternOps is the most operations PermutationSource
// generates: 2^30 (about 1.6 × 10^9 engine events). It holds two int32
// permutation entries a rank and round, 4 bytes an operation, so 4 GiB at
// most, and never the graph.
const MaxStreamedPatternOps = 1 << 30

// PermutationSource is the random_permutation pattern (RandomPermutation)
// as a graph.Source: it draws the rounds' permutations when made, as
// GeneratePattern does, and generates each rank's operations window by
// window when asked, so a graph of 10^9 events can be written to a file
// (arrowtrace.WriteSource) or replayed (sim.RunSource) without being held.
// Its windows equal GeneratePattern's graph with the same options.
type PermutationSource struct {
	n, rounds int
	size      int64
	to, from  []int32 // to[k*n+r] = π_k(r); from[k*n+π_k(r)] = r

	// The current window's columns, reused.
	kind            []graph.OpKind
	sizes           []int64
	peer, tag       []int32
	cpu, nic        []uint8
	depStart, depOp []int32
	depKind         []graph.DepKind
}

// NewPermutationSource draws the permutations of random_permutation with
// options o (Ranks, Bytes, Rounds, Seed; NBCalc is not taken).
func NewPermutationSource(o PatternOptions) (*PermutationSource, error) {
	if o.NBCalc != 0 {
		return nil, fmt.Errorf("pattern %s: a streamed pattern takes no nb calc", RandomPermutation)
	}
	if err := checkPattern(RandomPermutation, PatternOptions{Ranks: o.Ranks, Bytes: o.Bytes, Root: o.Root}); err != nil {
		return nil, err
	}
	if o.Rounds < 0 {
		return nil, fmt.Errorf("pattern %s: negative round count %d", RandomPermutation, o.Rounds)
	}
	rounds := max(o.Rounds, 1)
	if ops := 2 * float64(o.Ranks) * float64(rounds); ops > MaxStreamedPatternOps {
		return nil, fmt.Errorf("pattern %s: %d ranks × %d rounds give %.0f operations, more than %d (gen.MaxStreamedPatternOps)",
			RandomPermutation, o.Ranks, rounds, ops, MaxStreamedPatternOps)
	}
	to, from := permutations(o.Ranks, rounds, o.Seed)
	return &PermutationSource{n: o.Ranks, rounds: rounds, size: o.Bytes, to: to, from: from}, nil
}

// permutations draws the permutations of rounds rounds on n ranks (a
// Fisher–Yates shuffle each, from a PCG seeded with seed):
// to[k*n+r] = π_k(r) and from[k*n+π_k(r)] = r.
func permutations(n, rounds int, seed uint64) (to, from []int32) {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	to = make([]int32, rounds*n)
	from = make([]int32, rounds*n)
	for k := 0; k < rounds; k++ {
		perm := to[k*n : (k+1)*n]
		for r := range perm {
			perm[r] = int32(r)
		}
		rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		for r, d := range perm {
			from[k*n+int(d)] = int32(r)
		}
	}
	return to, from
}

// NumRanks returns the number of ranks.
func (s *PermutationSource) NumRanks() int { return s.n }

// NumOps returns the number of operations: a send and a receive a rank
// and round.
func (s *PermutationSource) NumOps() int { return 2 * s.n * s.rounds }

// NumDeps returns the number of dependencies: each send but a rank's
// first requires the rank's previous receive.
func (s *PermutationSource) NumDeps() int { return s.n * (s.rounds - 1) }

// Window returns at most max operations of rank r from its operation
// first on: operation 2k is its send of round k, 2k+1 its receive. The
// window's slices are valid until the next call.
func (s *PermutationSource) Window(r int, first int32, max int) (graph.Window, error) {
	ops := int32(2 * s.rounds)
	if r < 0 || r >= s.n {
		return graph.Window{}, fmt.Errorf("gen: window of rank %d, pattern has %d ranks", r, s.n)
	}
	if first < 0 || first > ops || max < 1 {
		return graph.Window{}, fmt.Errorf("gen: window at %d (max %d) of rank %d, which has %d operations", first, max, r, ops)
	}
	m := int(min(int64(max), int64(ops-first)))
	s.kind, s.sizes = s.kind[:0], s.sizes[:0]
	s.peer, s.tag = s.peer[:0], s.tag[:0]
	s.depStart, s.depOp, s.depKind = append(s.depStart[:0], 0), s.depOp[:0], s.depKind[:0]
	for i := first; i < first+int32(m); i++ {
		k := int(i / 2)
		if i%2 == 0 {
			s.kind = append(s.kind, graph.Send)
			s.peer = append(s.peer, s.to[k*s.n+r])
			if k > 0 {
				s.depOp = append(s.depOp, i-1)
				s.depKind = append(s.depKind, graph.Requires)
			}
		} else {
			s.kind = append(s.kind, graph.Recv)
			s.peer = append(s.peer, s.from[k*s.n+r])
		}
		s.sizes = append(s.sizes, s.size)
		s.tag = append(s.tag, 0)
		s.depStart = append(s.depStart, int32(len(s.depOp)))
	}
	if len(s.cpu) < m {
		s.cpu, s.nic = make([]uint8, m), make([]uint8, m)
	}
	return graph.Window{
		Rank: r, First: first,
		Kind: s.kind, Size: s.sizes, Peer: s.peer, Tag: s.tag,
		CPU: s.cpu[:m], NIC: s.nic[:m],
		DepStart: s.depStart, DepOp: s.depOp, DepKind: s.depKind,
	}, nil
}
