package gen

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/capsim/capsim/traces/graph"
)

// Pattern names a LogGOPSim schedgen communication pattern.
type Pattern string

// The schedgen patterns Schedgen can emit. Names follow schedgen's -p option.
const (
	BinomialTreeBcast  Pattern = "binomialtreebcast"
	BinaryTreeBcast    Pattern = "binarytreebcast"
	BinomialTreeReduce Pattern = "binomialtreereduce"
	Dissemination      Pattern = "dissemination"
	PipelinedRing      Pattern = "pipelinedring"
	LinearAlltoall     Pattern = "linear_alltoall"
	GatherPattern      Pattern = "gather"
	ScatterPattern     Pattern = "scatter"
	AllreduceRecDoub   Pattern = "allreduce_recdoub"
	AllreduceRing      Pattern = "allreduce_ring"
)

// Patterns lists every pattern Schedgen supports.
func Patterns() []Pattern {
	return []Pattern{BinomialTreeBcast, BinaryTreeBcast, BinomialTreeReduce, Dissemination, PipelinedRing,
		LinearAlltoall, GatherPattern, ScatterPattern, AllreduceRecDoub, AllreduceRing}
}

// ParsePattern maps a pattern name to its Pattern.
func ParsePattern(s string) (Pattern, error) {
	for _, p := range Patterns() {
		if string(p) == s {
			return p, nil
		}
	}
	names := make([]string, 0, 10)
	for _, p := range Patterns() {
		names = append(names, string(p))
	}
	return "", fmt.Errorf("unknown schedgen pattern %q (have %s)", s, strings.Join(names, ", "))
}

// SchedgenOptions parameterizes Schedgen. Zero fields take schedgen's
// defaults, given per field.
type SchedgenOptions struct {
	Pattern Pattern
	// Ranks is the communicator size (default 8).
	Ranks int
	// DataSize is the bytes per basic step (default 1). allreduce_ring
	// sends DataSize/Ranks per step; allreduce_recdoub halves DataSize per
	// round.
	DataSize int64
	// Root is the root of rooted patterns (default 0). As in schedgen,
	// ranks 0 and Root swap roles (they are not rotated).
	Root int
	// SegmentSize is the pipelinedring segment (default 1 byte).
	SegmentSize int64
	// NBFunc, when > 0, starts every rank with a calc of NBFunc ns that
	// nothing depends on (schedgen --nb), split into calcs of NBPoll ns
	// chained by requires when NBPoll > 0 (--nb-poll).
	NBFunc, NBPoll int64
	// ReplaceCompTime, when ≥ 0 and UseReplaceCompTime is set, makes
	// allreduce_recdoub insert a calc of that many ns after each receive
	// (schedgen --rpl-dep-cmp); the next send then depends on the calc.
	ReplaceCompTime    int64
	UseReplaceCompTime bool
}

func (o *SchedgenOptions) defaults() error {
	if o.Ranks == 0 {
		o.Ranks = 8
	}
	if o.DataSize == 0 {
		o.DataSize = 1
	}
	if o.SegmentSize == 0 {
		o.SegmentSize = 1
	}
	switch {
	case o.Ranks < 1:
		return fmt.Errorf("schedgen: %d ranks (want ≥ 1)", o.Ranks)
	case o.DataSize < 0:
		return fmt.Errorf("schedgen: negative data size %d", o.DataSize)
	case o.SegmentSize < 0:
		return fmt.Errorf("schedgen: negative segment size %d", o.SegmentSize)
	case o.Root < 0 || o.Root >= o.Ranks:
		return fmt.Errorf("schedgen: root %d not in 0..%d", o.Root, o.Ranks-1)
	case o.NBFunc < 0 || o.NBPoll < 0 || (o.UseReplaceCompTime && o.ReplaceCompTime < 0):
		return fmt.Errorf("schedgen: negative calc time")
	case o.DataSize/o.SegmentSize > 1<<28:
		return fmt.Errorf("schedgen: %d segments is too many", o.DataSize/o.SegmentSize)
	}
	_, err := ParsePattern(string(o.Pattern))
	return err
}

// sg emits one rank of a schedgen pattern; ops are tag 0, and op indices
// are the rank's 0-based GOAL label numbers minus one.
type sg struct {
	b    *graph.Builder
	r    int
	deps map[[2]int32]bool // dedup of requires edges
}

func (s *sg) send(bytes int64, to int) int32 { return s.b.Add(s.r, graph.SendOp(bytes, int32(to), 0)) }
func (s *sg) recv(bytes int64, fr int) int32 { return s.b.Add(s.r, graph.RecvOp(bytes, int32(fr), 0)) }
func (s *sg) calc(ns int64) int32            { return s.b.Add(s.r, graph.CalcOp(ns)) }

// requires records "op requires on" once (schedgen may repeat an edge for
// non-power-of-two sizes; a repeated edge means nothing more in GOAL).
func (s *sg) requires(op, on int32) {
	k := [2]int32{op, on}
	if s.deps != nil {
		if s.deps[k] {
			return
		}
		s.deps[k] = true
	}
	s.b.Dep(s.r, op, on, graph.Requires)
}

// swap is schedgen's rank↔virtual-rank map: 0 and root trade places.
func swap(r, root int) int {
	switch r {
	case 0:
		return root
	case root:
		return 0
	}
	return r
}

// ceilLog2 returns ⌈log2 p⌉ (0 for p ≤ 1).
func ceilLog2(p int) int {
	if p <= 1 {
		return 0
	}
	return bits.Len(uint(p - 1))
}

// Schedgen emits the pattern of o directly as an execution graph with the
// structure LogGOPSim's schedgen writes: the same operations in the same
// order per rank (so GOAL labels l1, l2, … agree) and the same requires
// edges. Differences, all outside schedgen's well-defined range: repeated
// edges are kept once; binarytreebcast with Root ≠ 0 uses virtual ranks
// consistently; allreduce_recdoub on a non-power-of-two size first folds
// the 2·rem lowest ranks pairwise (MPICH style: even rank i sends its full
// data to i+1, which joins the power-of-two schedule as rank i/2, and gets
// the result back at the end), where schedgen would address ranks ≥ p.
func Schedgen(o SchedgenOptions) (*graph.Graph, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	p := o.Ranks
	b := graph.NewBuilder(p)
	for r := 0; r < p; r++ {
		s := &sg{b: b, r: r}
		if p&(p-1) != 0 {
			s.deps = map[[2]int32]bool{}
		}
		if o.NBFunc > 0 {
			if o.NBPoll > 0 {
				last := int32(-1)
				for i := int64(0); i < o.NBFunc; i += o.NBPoll {
					cur := s.calc(o.NBPoll)
					if i > 0 {
						s.requires(cur, last)
					}
					last = cur
				}
			} else {
				s.calc(o.NBFunc)
			}
		}
		switch o.Pattern {
		case BinomialTreeBcast, BinomialTreeReduce:
			binomial(s, r, p, o.Root, o.DataSize, o.Pattern == BinomialTreeReduce)
		case BinaryTreeBcast:
			binaryBcast(s, r, p, o.Root, o.DataSize)
		case Dissemination:
			recv := int32(-1)
			for d := 1; d < p; d <<= 1 {
				send := s.send(o.DataSize, (r+d)%p)
				if recv >= 0 {
					s.requires(send, recv)
				}
				recv = s.recv(o.DataSize, ((r-d)%p+p)%p)
			}
		case PipelinedRing:
			pipelinedRing(s, r, p, o)
		case LinearAlltoall:
			b.Grow(r, 2*(p-1))
			for k := 1; k < p; k++ {
				s.send(o.DataSize, (r+k)%p)
				s.recv(o.DataSize, ((r-k)%p+p)%p)
			}
		case GatherPattern, ScatterPattern:
			v := swap(r, o.Root)
			gather := o.Pattern == GatherPattern
			if v == 0 {
				for i := 1; i < p; i++ {
					if gather {
						s.recv(o.DataSize, swap(i, o.Root))
					} else {
						s.send(o.DataSize, swap(i, o.Root))
					}
				}
			} else if gather {
				s.send(o.DataSize, o.Root)
			} else {
				s.recv(o.DataSize, o.Root)
			}
		case AllreduceRecDoub:
			recdoub(s, r, p, o)
		case AllreduceRing:
			b.Grow(r, 4*(p-1))
			chunk := o.DataSize / int64(p)
			recv := int32(-1)
			for k := 0; k < 2*(p-1); k++ {
				send := s.send(chunk, (r+1)%p)
				if recv >= 0 {
					s.requires(send, recv)
				}
				recv = s.recv(chunk, (r-1+p)%p)
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("schedgen %s: %w", o.Pattern, err)
	}
	return g, nil
}

// binomial emits schedgen's binomial tree: in round k < ⌈log2 p⌉ virtual
// rank v with v < 2^k sends to (bcast) or receives from (reduce) v+2^k,
// and v in [2^k, 2^(k+1)) receives from (bcast) or sends to (reduce) v−2^k;
// every send requires the bcast receive, and the reduce send requires every
// receive.
func binomial(s *sg, r, p, root int, size int64, reduce bool) {
	v := swap(r, root)
	up, down := int32(-1), int32(-1) // op with the parent, last op with a child
	for k := 0; k < ceilLog2(p); k++ {
		d := 1 << k
		if v < d && v+d < p {
			if reduce {
				down = s.recv(size, swap(v+d, root))
			} else {
				down = s.send(size, swap(v+d, root))
			}
		}
		if up >= 0 && down >= 0 {
			if reduce {
				s.requires(up, down)
			} else {
				s.requires(down, up)
			}
		}
		if v >= d && v < 2*d {
			if reduce {
				up = s.send(size, swap(v-d, root))
			} else {
				up = s.recv(size, swap(v-d, root))
			}
		}
	}
}

// binaryBcast emits schedgen's binary tree: virtual rank v receives from
// (v−1)/2 and sends to 2v+1 and 2v+2 (when < p), both sends requiring the
// receive.
func binaryBcast(s *sg, r, p, root int, size int64) {
	v := swap(r, root)
	recv := int32(-1)
	if v > 0 {
		recv = s.recv(size, swap((v-1)/2, root))
	}
	for c := 2*v + 1; c <= 2*v+2 && c < p; c++ {
		send := s.send(size, swap(c, root))
		if recv >= 0 {
			s.requires(send, recv)
		}
	}
}

// pipelinedRing emits schedgen's pipelined chain from virtual rank 0 to
// p−1 in ⌈DataSize/SegmentSize⌉ rounds; each forwarded segment's send
// requires its receive.
func pipelinedRing(s *sg, r, p int, o SchedgenOptions) {
	v := swap(r, o.Root)
	rounds := int((o.DataSize + o.SegmentSize - 1) / o.SegmentSize)
	s.b.Grow(r, 2*rounds)
	for k := 0; k < rounds; k++ {
		size := o.SegmentSize
		if k == rounds-1 {
			size = o.DataSize - o.SegmentSize*int64(k)
		}
		recv, send := int32(-1), int32(-1)
		if v-1 >= 0 {
			recv = s.recv(size, swap(v-1, o.Root))
		}
		if v+1 < p {
			send = s.send(size, swap(v+1, o.Root))
		}
		if send >= 0 && recv >= 0 {
			s.requires(send, recv)
		}
	}
}

// recdoub emits schedgen's recursive-halving/doubling allreduce: log2 p
// reduce-scatter rounds with partner r XOR 2^k and halving sizes, then
// log2 p allgather rounds with doubling sizes; each send requires the
// previous receive (or the calc that replaces it). See Schedgen for
// non-powers of two.
func recdoub(s *sg, r, p int, o SchedgenOptions) {
	pof2 := 1 << (bits.Len(uint(p)) - 1)
	rem := p - pof2
	last := int32(-1)
	nr := r - rem
	if r < 2*rem {
		if r%2 == 0 {
			s.send(o.DataSize, r+1)
			s.recv(o.DataSize, r+1)
			return
		}
		last = s.recv(o.DataSize, r-1)
		nr = r / 2
	}
	world := func(n int) int {
		if n < rem {
			return 2*n + 1
		}
		return n + rem
	}
	steps := bits.Len(uint(pof2)) - 1
	s.b.Grow(s.r, 4*steps+2)
	size := o.DataSize
	step := func(mask int, gap bool) {
		dest := world(nr ^ mask)
		send := s.send(size, dest)
		if last >= 0 {
			s.requires(send, last)
		}
		last = s.recv(size, dest)
		if gap && o.UseReplaceCompTime {
			last = s.calc(o.ReplaceCompTime)
		}
	}
	mask := 1
	for k := 0; k < steps; k++ {
		size /= 2
		step(mask, true)
		mask <<= 1
	}
	mask >>= 1
	for k := 0; k < steps; k++ {
		step(mask, k != steps-1)
		size *= 2
		mask >>= 1
	}
	if r < 2*rem {
		send := s.send(o.DataSize, r-1)
		if last >= 0 {
			s.requires(send, last)
		}
	}
}
