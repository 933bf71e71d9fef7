package graph

import (
	"fmt"
	"sort"
)

// Op is one operation as handed to a Builder. Build operations with
// CalcOp, SendOp and RecvOp, which set Region to NoRegion, then adjust
// fields as needed. Its fields are ordered to pack it in 24 bytes, as
// builders hold every operation of a graph until Build.
type Op struct {
	Size   int64
	Peer   int32
	Tag    int32
	Region int32
	Kind   OpKind
	CPU    uint8
	NIC    uint8
	Wire   uint8 // a send's wire protocol (Graph.Wire); 0: the network's own
}

// CalcOp returns a calc operation lasting ns nanoseconds.
func CalcOp(ns int64) Op { return Op{Kind: Calc, Size: ns, Peer: -1, Region: NoRegion} }

// SendOp returns a send of bytes to peer with tag.
func SendOp(bytes int64, peer, tag int32) Op {
	return Op{Kind: Send, Size: bytes, Peer: peer, Tag: tag, Region: NoRegion}
}

// RecvOp returns a receive of bytes from peer with tag.
func RecvOp(bytes int64, peer, tag int32) Op {
	return Op{Kind: Recv, Size: bytes, Peer: peer, Tag: tag, Region: NoRegion}
}

type dep struct {
	op, on int32
	seq    int32 // declaration position within the rank
	kind   DepKind
}

// opLabel is a label set on operation op of a rank.
type opLabel struct {
	op    int32
	label string
}

type rankBuf struct {
	ops    []Op
	deps   []dep
	labels []opLabel // in the order set; a later label of an operation wins
}

// Builder assembles a Graph rank by rank. Operations are addressed by their
// index within their rank, in the order they were added; dependencies may
// name operations added later, since they are resolved in Build. A Builder
// is not safe for concurrent use.
type Builder struct {
	ranks   []*rankBuf // allocated on first use, so declared ranks cost little
	regions map[string]int32
	names   []string
	labeled bool
	wired   bool // some operation has a Wire
}

// NewBuilder returns a Builder for a graph of numRanks ranks.
func NewBuilder(numRanks int) *Builder {
	return &Builder{ranks: make([]*rankBuf, numRanks), regions: map[string]int32{}}
}

func (b *Builder) rank(r int) *rankBuf {
	if b.ranks[r] == nil {
		b.ranks[r] = &rankBuf{}
	}
	return b.ranks[r]
}

// NumRanks returns the number of ranks the builder was made for.
func (b *Builder) NumRanks() int { return len(b.ranks) }

// Len returns the number of operations added to rank so far.
func (b *Builder) Len(rank int) int32 {
	if b.ranks[rank] == nil {
		return 0
	}
	return int32(len(b.ranks[rank].ops))
}

// Grow reserves room for n more operations on rank.
func (b *Builder) Grow(rank, n int) {
	rb := b.rank(rank)
	rb.ops = grow(rb.ops, n)
}

// GrowDeps reserves room for n more dependencies on rank.
func (b *Builder) GrowDeps(rank, n int) {
	rb := b.rank(rank)
	rb.deps = grow(rb.deps, n)
}

// NumDeps returns the number of dependencies added to rank so far.
func (b *Builder) NumDeps(rank int) int {
	if b.ranks[rank] == nil {
		return 0
	}
	return len(b.ranks[rank].deps)
}

// grow returns s with room for n more elements.
func grow[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	t := make([]T, len(s), len(s)+n)
	copy(t, s)
	return t
}

// Add appends op to rank and returns its index within the rank.
func (b *Builder) Add(rank int, op Op) int32 {
	rb := b.rank(rank)
	rb.ops = append(rb.ops, op)
	b.wired = b.wired || op.Wire != 0
	return int32(len(rb.ops) - 1)
}

// SetLabel attaches a label (such as a GOAL label) to operation op of
// rank; operations without one have the empty label. The builder keeps
// only the labels set, as importers label few of the operations they add.
func (b *Builder) SetLabel(rank int, op int32, label string) {
	b.labeled = true
	rb := b.rank(rank)
	rb.labels = append(rb.labels, opLabel{op: op, label: label})
}

// Dep records that operation op of rank depends on operation on of the same
// rank with the given kind.
func (b *Builder) Dep(rank int, op, on int32, kind DepKind) {
	rb := b.rank(rank)
	rb.deps = append(rb.deps, dep{op: op, on: on, seq: int32(len(rb.deps)), kind: kind})
}

// Region interns a region name and returns its index for Op.Region.
func (b *Builder) Region(name string) int32 {
	if id, ok := b.regions[name]; ok {
		return id
	}
	id := int32(len(b.names))
	b.regions[name] = id
	b.names = append(b.names, name)
	return id
}

// Build assembles and validates the graph. The builder must not be used
// afterwards.
func (b *Builder) Build() (*Graph, error) {
	var nops, ndeps int64
	for _, rb := range b.ranks {
		if rb != nil {
			nops += int64(len(rb.ops))
			ndeps += int64(len(rb.deps))
		}
	}
	if nops > 1<<31-2 || ndeps > 1<<31-2 {
		return nil, fmt.Errorf("graph too large: %d operations, %d dependencies (limit 2^31-2 each)", nops, ndeps)
	}
	g := &Graph{
		RankStart: make([]int32, len(b.ranks)+1),
		Kind:      make([]OpKind, nops),
		Size:      make([]int64, nops),
		Peer:      make([]int32, nops),
		Tag:       make([]int32, nops),
		CPU:       make([]uint8, nops),
		NIC:       make([]uint8, nops),
		Region:    make([]int32, nops),
		DepStart:  make([]int32, nops+1),
		DepOp:     make([]int32, 0, ndeps),
		DepKind:   make([]DepKind, 0, ndeps),
		Regions:   b.names,
	}
	g.AdviseHugePages()
	if b.labeled {
		g.Labels = make([]string, nops)
	}
	if b.wired {
		g.Wire = make([]uint8, nops)
	}
	// Declaration positions are kept (in depPos) until a rank whose
	// declaration order differs from storage order turns them into the
	// graph's DepOrder column.
	var order, depPos []int32
	var base int32
	for r := range b.ranks {
		g.RankStart[r] = base
		rb := b.ranks[r]
		if rb == nil {
			continue
		}
		n := int32(len(rb.ops))
		for i, op := range rb.ops {
			id := base + int32(i)
			g.Kind[id], g.Size[id], g.Peer[id], g.Tag[id] = op.Kind, op.Size, op.Peer, op.Tag
			g.CPU[id], g.NIC[id], g.Region[id] = op.CPU, op.NIC, op.Region
			if g.Wire != nil {
				g.Wire[id] = op.Wire
			}
		}
		if b.labeled {
			for _, l := range rb.labels {
				if l.op < 0 || l.op >= n {
					return nil, fmt.Errorf("%w: rank %d: label %q on operation %d, which rank %d does not have (it has %d)",
						ErrInvalid, r, l.label, l.op, r, n)
				}
				g.Labels[base+l.op] = l.label
			}
		}
		sort.SliceStable(rb.deps, func(i, j int) bool { return rb.deps[i].op < rb.deps[j].op })
		for i, d := range rb.deps {
			if d.seq != int32(i) && order == nil {
				order = make([]int32, len(g.DepOp), ndeps) // declaration order differs: keep it
				for j := range order {
					order[j] = depPos[j]
				}
			}
		}
		k := 0
		for i := int32(0); i < n; i++ {
			for ; k < len(rb.deps) && rb.deps[k].op == i; k++ {
				d := rb.deps[k]
				if d.on < 0 || d.on >= n {
					return nil, fmt.Errorf("%w: rank %d operation %d depends on operation %d, which rank %d does not have (it has %d)",
						ErrInvalid, r, i, d.on, r, n)
				}
				g.DepOp = append(g.DepOp, base+d.on)
				g.DepKind = append(g.DepKind, d.kind)
				if order != nil {
					order = append(order, d.seq)
				} else {
					depPos = append(depPos, d.seq)
				}
			}
			g.DepStart[base+i+1] = int32(len(g.DepOp))
		}
		if k < len(rb.deps) {
			d := rb.deps[k]
			return nil, fmt.Errorf("%w: rank %d: dependency of operation %d, which rank %d does not have (it has %d)",
				ErrInvalid, r, d.op, r, n)
		}
		b.ranks[r] = nil
		base += n
	}
	g.RankStart[len(b.ranks)] = base
	g.DepOrder = order
	if err := g.Validate(); err != nil {
		return nil, err
	}
	return g, nil
}
