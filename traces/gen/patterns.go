// Package gen generates workloads: MPI traces of bulk-synchronous stencils,
// wavefront sweeps and collective micro-benchmarks (package traces/mpi),
// and LogGOPSim's schedgen communication patterns as execution graphs
// (package traces/graph), for any number of ranks. Every generator is
// deterministic for a given seed.
package gen

import (
	"fmt"
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
)

// Patterns lists the generated patterns.
func Patterns() []Pattern {
	return []Pattern{BinomialBcast, BinaryBcast, BinomialReduce, Dissemination, PipelinedRing, LinearAlltoall,
		Gather, Scatter, RingAllreduce}
}

// PatternOptions sets a pattern's size.
type PatternOptions struct {
	Ranks    int
	Bytes    int64 // message size; for allreduce_ring the vector size (each step moves Bytes/Ranks)
	Segments int   // pipelinedring: number of segments (default 8)
}

// GeneratePattern builds the execution graph of pattern p.
func GeneratePattern(p Pattern, o PatternOptions) (*graph.Graph, error) {
	n := o.Ranks
	if n < 1 || n > graph.MaxRanks {
		return nil, fmt.Errorf("pattern %s: ranks %d outside 1..%d", p, n, graph.MaxRanks)
	}
	if o.Bytes < 0 {
		return nil, fmt.Errorf("pattern %s: negative size %d", p, o.Bytes)
	}
	b := graph.NewBuilder(n)
	s := o.Bytes
	send := func(r, to int) int32 { return b.Add(r, graph.SendOp(s, int32(to), 0)) }
	recv := func(r, from int) int32 { return b.Add(r, graph.RecvOp(s, int32(from), 0)) }
	req := func(r int, op, on int32) { b.Dep(r, op, on, graph.Requires) }
	highBit := func(r int) int { return 1 << (bits.Len(uint(r)) - 1) }
	switch p {
	case BinomialBcast:
		for r := 0; r < n; r++ {
			first := 1
			var in int32 = -1
			if r > 0 {
				in = recv(r, r-highBit(r))
				first = highBit(r) * 2
			}
			for k := first; r+k < n; k *= 2 {
				out := send(r, r+k)
				if in >= 0 {
					req(r, out, in)
				}
			}
		}
	case BinaryBcast:
		for r := 0; r < n; r++ {
			var in int32 = -1
			if r > 0 {
				in = recv(r, (r-1)/2)
			}
			for _, c := range []int{2*r + 1, 2*r + 2} {
				if c < n {
					out := send(r, c)
					if in >= 0 {
						req(r, out, in)
					}
				}
			}
		}
	case BinomialReduce:
		for r := 0; r < n; r++ {
			first := 1
			var out int32 = -1
			if r > 0 {
				out = send(r, r-highBit(r))
				first = highBit(r) * 2
			}
			for k := first; r+k < n; k *= 2 {
				in := recv(r, r+k)
				if out >= 0 {
					req(r, out, in)
				}
			}
		}
	case Dissemination:
		for r := 0; r < n; r++ {
			var prev int32 = -1
			for k := 1; k < n; k *= 2 {
				out := send(r, (r+k)%n)
				if prev >= 0 {
					req(r, out, prev)
				}
				prev = recv(r, (r-k%n+n)%n)
			}
		}
	case PipelinedRing:
		segs := o.Segments
		if segs == 0 {
			segs = 8
		}
		if segs < 0 {
			return nil, fmt.Errorf("pattern %s: negative segment count %d", p, segs)
		}
		for r := 0; r < n; r++ {
			for k := 0; k < segs; k++ {
				var in int32 = -1
				if r > 0 {
					in = recv(r, r-1)
				}
				if r < n-1 {
					out := send(r, r+1)
					if in >= 0 {
						req(r, out, in)
					}
				}
			}
		}
	case LinearAlltoall:
		for r := 0; r < n; r++ {
			for k := 1; k < n; k++ {
				send(r, (r+k)%n)
				recv(r, (r-k+n)%n)
			}
		}
	case Gather:
		for r := 1; r < n; r++ {
			recv(0, r)
			send(r, 0)
		}
	case Scatter:
		for r := 1; r < n; r++ {
			send(0, r)
			recv(r, 0)
		}
	case RingAllreduce:
		s = o.Bytes / int64(n)
		for r := 0; r < n; r++ {
			b.Grow(r, 4*(n-1))
			var prev int32 = -1
			for k := 0; k < 2*(n-1); k++ {
				out := send(r, (r+1)%n)
				if prev >= 0 {
					req(r, out, prev)
				}
				prev = recv(r, (r-1+n)%n)
			}
		}
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
