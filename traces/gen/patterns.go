// Package gen generates workloads: MPI traces of bulk-synchronous stencils,
// wavefront sweeps and collective micro-benchmarks (package traces/mpi),
// and LogGOPSim's schedgen communication patterns as execution graphs
// (package traces/graph), for any number of ranks. Every generator is
// deterministic for a given seed.
package gen

import (
	"fmt"
	"math"
	"math/bits"
	"sort"

	"github.com/capsim/capsim/traces/graph"
)

// Pattern names a schedgen-style communication pattern.
type Pattern string

// The patterns of LogGOPSim's schedgen that Patterns generates, with the
// same structure schedgen gives them.
const (
	BinomialBcast  Pattern = "binomialtreebcast"  // root 0 sends to 1, 2, 4, ...; each rank forwards after receiving
	BinaryBcast    Pattern = "binarytreebcast"    // rank r forwards to 2r+1 and 2r+2
	BinomialReduce Pattern = "binomialtreereduce" // the binomial tree in reverse
	Dissemination  Pattern = "dissemination"      // barrier: round k sends to r+2^k after receiving round k-1
	PipelinedRing  Pattern = "pipelinedring"      // rank 0 streams segments down a chain
	LinearAlltoall Pattern = "linear_alltoall"    // every rank sends to every other, no ordering
	Gather         Pattern = "gather"             // everyone sends to rank 0
	Scatter        Pattern = "scatter"            // rank 0 sends to everyone
	RingAllreduce  Pattern = "allreduce_ring"     // 2(p-1) ring steps of bytes/p
	// RecDoubAllreduce is schedgen's allreduce_recdoub: log2 p
	// recursive-halving rounds (partner r XOR 2^k, sizes Bytes/2, Bytes/4, …)
	// then log2 p recursive-doubling rounds with the sizes doubling back;
	// each send requires the previous receive. For a rank count p that is
	// not a power of two (where schedgen would address ranks ≥ p), the
	// 2·rem lowest ranks (rem = p − 2^⌊log2 p⌋) first fold pairwise as in
	// MPICH: even rank r sends its Bytes to r+1, which takes part as rank
	// r/2 of the power-of-two schedule and finally sends the result back.
	RecDoubAllreduce Pattern = "allreduce_recdoub"
	// RandomPermutation is no schedgen pattern: Rounds rounds of
	// point-to-point messages along a random permutation of the ranks
	// (drawn per round from Seed; a rank may draw itself and then sends
	// to itself). In round k rank r sends Bytes to π_k(r) and receives
	// from π_k⁻¹(r); its send of round k requires its receive of round
	// k−1, so the rounds form chains with random, cache-unfriendly
	// partners.
	RandomPermutation Pattern = "random_permutation"
)

// Patterns lists the generated patterns.
func Patterns() []Pattern {
	return []Pattern{BinomialBcast, BinaryBcast, BinomialReduce, Dissemination, PipelinedRing, LinearAlltoall,
		Gather, Scatter, RingAllreduce, RecDoubAllreduce, RandomPermutation}
}

// PatternOptions sets a pattern's size.
type PatternOptions struct {
	Ranks    int
	Bytes    int64 // message size; for allreduce_ring and allreduce_recdoub the vector size (ring steps move Bytes/Ranks; recdoub rounds Bytes/2, Bytes/4, …)
	Segments int   // pipelinedring: number of segments (default 8)
	// NBCalc, when > 0, starts every rank with a calc of NBCalc ns that no
	// operation depends on, as schedgen's --nb option does (the
	// allreduce_recdoub conformance schedule was made with --nb 3000).
	NBCalc int64
	// Root is the root of the rooted patterns (binomial and binary trees,
	// pipelinedring, gather, scatter; default 0). As in schedgen, ranks 0
	// and Root swap roles rather than all ranks being rotated.
	Root int
	// Rounds is random_permutation's number of rounds (default 1).
	Rounds int
	// Seed picks random_permutation's permutations.
	Seed uint64
}

// patternOps bounds the operation count of pattern p on n ranks.
func patternOps(p Pattern, n, segs int) float64 {
	x := float64(n)
	logn := math.Ceil(math.Log2(x)) + 1
	if segs <= 0 {
		segs = 8
	}
	switch p {
	case Dissemination:
		return x * (2*logn + 1)
	case PipelinedRing:
		return x * (2*float64(segs) + 1)
	case LinearAlltoall:
		return x * (2*x + 1)
	case RingAllreduce:
		return x * (4*x + 1)
	case RecDoubAllreduce:
		return x * (4*logn + 5)
	case RandomPermutation:
		return x * (2*float64(max(segs, 1)) + 1)
	}
	return x * 4
}

// GeneratePattern builds the execution graph of pattern p.
func GeneratePattern(p Pattern, o PatternOptions) (*graph.Graph, error) {
	if err := checkPattern(p, o); err != nil {
		return nil, err
	}
	b := graph.NewBuilder(o.Ranks)
	if o.NBCalc > 0 {
		for r := 0; r < o.Ranks; r++ {
			b.Add(r, graph.CalcOp(o.NBCalc))
		}
	}
	pb := &patternBuilder{b: b, n: o.Ranks, size: o.Bytes}
	switch p {
	case BinomialBcast, BinaryBcast, BinomialReduce, PipelinedRing, Gather, Scatter:
		pb.root = o.Root
	}
	switch p {
	case BinomialBcast:
		pb.binomialBcast()
	case BinaryBcast:
		pb.binaryBcast()
	case BinomialReduce:
		pb.binomialReduce()
	case Dissemination:
		pb.dissemination()
	case PipelinedRing:
		segs := o.Segments
		if segs == 0 {
			segs = 8
		}
		if segs < 0 {
			return nil, fmt.Errorf("pattern %s: negative segment count %d", p, segs)
		}
		pb.pipelinedRing(segs)
	case LinearAlltoall:
		pb.linearAlltoall()
	case Gather:
		pb.gather()
	case Scatter:
		pb.scatter()
	case RingAllreduce:
		pb.size = o.Bytes / int64(o.Ranks)
		pb.ringAllreduce()
	case RecDoubAllreduce:
		for r := 0; r < o.Ranks; r++ {
			recdoubRank(b, r, o.Ranks, o.Bytes)
		}
	case RandomPermutation:
		randomPermutation(b, o.Ranks, max(o.Rounds, 1), o.Bytes, o.Seed)
	default:
		names := make([]string, 0)
		for _, q := range Patterns() {
			names = append(names, string(q))
		}
		sort.Strings(names)
		return nil, fmt.Errorf("unknown pattern %q (want one of %v)", p, names)
	}
	return b.Build()
}

// checkPattern rejects options outside what pattern p accepts, and
// patterns whose operation count would exceed MaxPatternOps.
func checkPattern(p Pattern, o PatternOptions) error {
	n := o.Ranks
	if n < 1 || n > graph.MaxRanks {
		return fmt.Errorf("pattern %s: ranks %d outside 1..%d", p, n, graph.MaxRanks)
	}
	if o.Bytes < 0 {
		return fmt.Errorf("pattern %s: negative size %d", p, o.Bytes)
	}
	if o.Root < 0 || o.Root >= n {
		return fmt.Errorf("pattern %s: root %d outside 0..%d", p, o.Root, n-1)
	}
	if o.NBCalc < 0 {
		return fmt.Errorf("pattern %s: negative nb calc %d", p, o.NBCalc)
	}
	if o.NBCalc > graph.MaxTimeNs {
		return fmt.Errorf("pattern %s: nb calc %d ns exceeds %d ns (graph.MaxTimeNs)", p, o.NBCalc, graph.MaxTimeNs)
	}
	if o.Rounds < 0 {
		return fmt.Errorf("pattern %s: negative round count %d", p, o.Rounds)
	}
	count := o.Segments
	if p == RandomPermutation {
		count = o.Rounds
	}
	if ops := patternOps(p, n, count); ops > MaxPatternOps {
		return fmt.Errorf("pattern %s: %d ranks (segments or rounds %d) give up to %.0f operations, more than %d (gen.MaxPatternOps)", p, n, count, ops, MaxPatternOps)
	}
	return nil
}

// patternBuilder adds the point-to-point operations of one pattern on n
// ranks, each message of size bytes. Rooted patterns are written for root
// 0 over virtual ranks; rank maps a virtual rank to its rank by swapping
// 0 and root, as schedgen does (root is 0 for the unrooted patterns).
type patternBuilder struct {
	b    *graph.Builder
	n    int
	size int64
	root int
}

func (pb *patternBuilder) rank(v int) int {
	switch v {
	case 0:
		return pb.root
	case pb.root:
		return 0
	}
	return v
}

func (pb *patternBuilder) send(r, to int) int32 {
	return pb.b.Add(pb.rank(r), graph.SendOp(pb.size, int32(pb.rank(to)), 0))
}

func (pb *patternBuilder) recv(r, from int) int32 {
	return pb.b.Add(pb.rank(r), graph.RecvOp(pb.size, int32(pb.rank(from)), 0))
}

// req makes op on virtual rank r wait for on.
func (pb *patternBuilder) req(r int, op, on int32) { pb.b.Dep(pb.rank(r), op, on, graph.Requires) }

func highBit(r int) int { return 1 << (bits.Len(uint(r)) - 1) }

// binomialBcast: rank r > 0 receives from r − highBit(r), then every rank
// sends to r + k for the powers of two k above its own high bit.
func (pb *patternBuilder) binomialBcast() {
	for r := 0; r < pb.n; r++ {
		first := 1
		var in int32 = -1
		if r > 0 {
			in = pb.recv(r, r-highBit(r))
			first = highBit(r) * 2
		}
		for k := first; r+k < pb.n; k *= 2 {
			out := pb.send(r, r+k)
			if in >= 0 {
				pb.req(r, out, in)
			}
		}
	}
}

// binaryBcast: rank r > 0 receives from (r−1)/2 and forwards to 2r+1 and
// 2r+2.
func (pb *patternBuilder) binaryBcast() {
	for r := 0; r < pb.n; r++ {
		var in int32 = -1
		if r > 0 {
			in = pb.recv(r, (r-1)/2)
		}
		for _, c := range []int{2*r + 1, 2*r + 2} {
			if c < pb.n {
				out := pb.send(r, c)
				if in >= 0 {
					pb.req(r, out, in)
				}
			}
		}
	}
}

// binomialReduce is binomialBcast reversed: each rank receives from its
// children, and its send to its parent waits for them.
func (pb *patternBuilder) binomialReduce() {
	for r := 0; r < pb.n; r++ {
		first := 1
		var out int32 = -1
		if r > 0 {
			out = pb.send(r, r-highBit(r))
			first = highBit(r) * 2
		}
		for k := first; r+k < pb.n; k *= 2 {
			in := pb.recv(r, r+k)
			if out >= 0 {
				pb.req(r, out, in)
			}
		}
	}
}

// dissemination: in round k = 1, 2, 4, … rank r sends to r+k and
// receives from r−k; each send waits for the previous round's receive.
func (pb *patternBuilder) dissemination() {
	n := pb.n
	for r := 0; r < n; r++ {
		var prev int32 = -1
		for k := 1; k < n; k *= 2 {
			out := pb.send(r, (r+k)%n)
			if prev >= 0 {
				pb.req(r, out, prev)
			}
			prev = pb.recv(r, (r-k%n+n)%n)
		}
	}
}

// pipelinedRing passes segs segments down the chain 0 → 1 → … → n−1,
// each forward waiting for the segment's receive.
func (pb *patternBuilder) pipelinedRing(segs int) {
	for r := 0; r < pb.n; r++ {
		for k := 0; k < segs; k++ {
			var in int32 = -1
			if r > 0 {
				in = pb.recv(r, r-1)
			}
			if r < pb.n-1 {
				out := pb.send(r, r+1)
				if in >= 0 {
					pb.req(r, out, in)
				}
			}
		}
	}
}

// linearAlltoall: in step k every rank sends to r+k and receives from
// r−k, without dependencies.
func (pb *patternBuilder) linearAlltoall() {
	n := pb.n
	for r := 0; r < n; r++ {
		for k := 1; k < n; k++ {
			pb.send(r, (r+k)%n)
			pb.recv(r, (r-k+n)%n)
		}
	}
}

// gather: every rank sends to the root, which receives in rank order.
func (pb *patternBuilder) gather() {
	for r := 1; r < pb.n; r++ {
		pb.recv(0, r)
		pb.send(r, 0)
	}
}

// scatter: the root sends to every rank in rank order.
func (pb *patternBuilder) scatter() {
	for r := 1; r < pb.n; r++ {
		pb.send(0, r)
		pb.recv(r, 0)
	}
}

// ringAllreduce: 2(n−1) steps of sending to the right neighbour and
// receiving from the left, each send waiting for the previous receive.
func (pb *patternBuilder) ringAllreduce() {
	n := pb.n
	for r := 0; r < n; r++ {
		pb.b.Grow(r, 4*(n-1))
		var prev int32 = -1
		for k := 0; k < 2*(n-1); k++ {
			out := pb.send(r, (r+1)%n)
			if prev >= 0 {
				pb.req(r, out, prev)
			}
			prev = pb.recv(r, (r-1+n)%n)
		}
	}
}

// randomPermutation emits the random_permutation pattern on n ranks (see
// RandomPermutation): the permutations of all rounds are drawn first
// (permutations), then each rank's operations are added round by round.
func randomPermutation(b *graph.Builder, n, rounds int, size int64, seed uint64) {
	to, from := permutations(n, rounds, seed)
	for r := 0; r < n; r++ {
		b.Grow(r, 2*rounds)
		var prev int32 = -1
		for k := 0; k < rounds; k++ {
			out := b.Add(r, graph.SendOp(size, to[k*n+r], 0))
			if prev >= 0 {
				b.Dep(r, out, prev, graph.Requires)
			}
			prev = b.Add(r, graph.RecvOp(size, from[k*n+r], 0))
		}
	}
}

// recdoubRank emits rank r of the allreduce_recdoub pattern on n ranks
// (see RecDoubAllreduce).
func recdoubRank(b *graph.Builder, r, n int, size int64) {
	send := func(bytes int64, to int) int32 { return b.Add(r, graph.SendOp(bytes, int32(to), 0)) }
	recv := func(bytes int64, from int) int32 { return b.Add(r, graph.RecvOp(bytes, int32(from), 0)) }
	pof2 := 1 << (bits.Len(uint(n)) - 1)
	rem := n - pof2
	last := int32(-1)
	vr := r - rem // rank within the power-of-two schedule
	if r < 2*rem {
		if r%2 == 0 { // folded out: hand the data over, get the result back
			send(size, r+1)
			recv(size, r+1)
			return
		}
		last = recv(size, r-1)
		vr = r / 2
	}
	world := func(v int) int {
		if v < rem {
			return 2*v + 1
		}
		return v + rem
	}
	steps := bits.Len(uint(pof2)) - 1
	b.Grow(r, 4*steps+2)
	step := func(mask int, bytes int64) {
		to := world(vr ^ mask)
		out := send(bytes, to)
		if last >= 0 {
			b.Dep(r, out, last, graph.Requires)
		}
		last = recv(bytes, to)
	}
	cur := size
	for k := 0; k < steps; k++ { // reduce-scatter: halve
		cur /= 2
		step(1<<k, cur)
	}
	for k := steps - 1; k >= 0; k-- { // allgather: double back
		step(1<<k, cur)
		cur *= 2
	}
	if r < 2*rem {
		out := send(size, r-1)
		if last >= 0 {
			b.Dep(r, out, last, graph.Requires)
		}
	}
}
