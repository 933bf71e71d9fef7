// Package graph defines the per-rank execution graph, capsim's one
// intermediate representation.
//
// Every importer (GOAL text, Arrow execution graphs, MPI traces through
// lowering, generators) produces a *Graph, and the replay engine in package
// sim executes one. The model is GOAL's: each rank holds a list of
// operations (calc, send, recv) and dependency edges between operations of
// the same rank. An edge of kind Requires lets an operation start only after
// the other completes; Irequires lets it start once the other has started.
//
// The graph is stored as columns (structure of arrays) indexed by a global
// operation id, so that multi-million operation graphs stay compact and the
// replay loop touches only the columns it needs. Operations of rank r occupy
// ids RankStart[r] up to RankStart[r+1].
package graph

import (
	"errors"
	"fmt"

	"github.com/capsim/capsim/internal/hugepage"
)

// OpKind is the kind of an operation.
type OpKind uint8

// The operation kinds of the GOAL language.
const (
	Calc OpKind = iota // local computation for Size nanoseconds
	Send               // send Size bytes to Peer with Tag
	Recv               // receive Size bytes from Peer with Tag
)

// String returns the GOAL keyword of the kind.
func (k OpKind) String() string {
	switch k {
	case Calc:
		return "calc"
	case Send:
		return "send"
	case Recv:
		return "recv"
	}
	return fmt.Sprintf("OpKind(%d)", uint8(k))
}

// ParseOpKind maps a GOAL keyword to its kind.
func ParseOpKind(s string) (OpKind, error) {
	switch s {
	case "calc":
		return Calc, nil
	case "send":
		return Send, nil
	case "recv":
		return Recv, nil
	}
	return 0, fmt.Errorf("unknown operation kind %q (want calc, send or recv)", s)
}

// DepKind is the kind of a dependency edge.
type DepKind uint8

// The dependency kinds of the GOAL language.
const (
	// Requires: the dependent operation starts after the other completes.
	Requires DepKind = iota
	// Irequires: the dependent operation starts after the other starts.
	Irequires
)

// String returns the GOAL keyword of the kind.
func (k DepKind) String() string {
	switch k {
	case Requires:
		return "requires"
	case Irequires:
		return "irequires"
	}
	return fmt.Sprintf("DepKind(%d)", uint8(k))
}

// AnySource and AnyTag are the wildcard values a Recv may carry in Peer and
// Tag (MPI_ANY_SOURCE, MPI_ANY_TAG).
const (
	AnySource int32 = -1
	AnyTag    int32 = -1
)

// MaxRanks is the largest number of ranks a graph may have. Readers check
// it before allocating per-rank state for a declared rank count.
const MaxRanks = 1 << 22

// MaxCPU and MaxNIC are the largest CPU and NIC numbers, as in LogGOPSim.
const (
	MaxCPU = 255
	MaxNIC = 255
)

// MaxTimeNs is the largest time capsim represents, in ns: 10^18 ns, about
// 31.7 years. It bounds every single time a user can give (a calc's
// duration, a network parameter, a priced task) and every point in time
// of a replay, so also a rank's total recorded compute time. Because any
// time is at most MaxTimeNs, the engine adds a handful of them in int64
// without overflow and checks each result against MaxTimeNs once;
// exceeding it is an error that names the operation, never a wrapped
// (negative or zero) time.
const MaxTimeNs int64 = 1e18

// NoRegion marks an operation that belongs to no named code region.
const NoRegion int32 = -1

// Graph is a per-rank execution graph. All slices indexed by operation id
// have the same length, NumOps(). The zero Graph is an empty graph with no
// ranks; build graphs with a Builder.
type Graph struct {
	// RankStart has NumRanks()+1 entries; rank r owns operation ids
	// RankStart[r] ≤ id < RankStart[r+1].
	RankStart []int32

	// Per-operation columns.
	Kind   []OpKind
	Size   []int64 // calc: duration in ns; send/recv: message bytes
	Peer   []int32 // send/recv: the other rank (AnySource allowed on recv); calc: -1
	Tag    []int32 // send/recv: message tag (AnyTag allowed on recv); calc: 0
	CPU    []uint8 // CPU (core) of the rank's host that executes the operation (0..MaxCPU)
	NIC    []uint8 // NIC of the rank's host that carries the message (0..MaxNIC)
	Region []int32 // index into Regions, or NoRegion

	// Dependencies in compressed sparse row form: the operations that
	// operation i depends on are DepOp[DepStart[i]:DepStart[i+1]], each with
	// the kind DepKind[j]. Dependencies always stay within one rank.
	DepStart []int32
	DepOp    []int32
	DepKind  []DepKind
	// DepOrder optionally gives, per edge, its position in the order the
	// rank's dependencies were declared (a permutation of 0..n-1 per rank,
	// n its edge count). LogGOPSim releases operations freed by one event
	// in declaration order; nil means declaration order is storage order.
	DepOrder []int32

	// Regions names code regions (for compute models and reports).
	Regions []string

	// Causal makes every dependency hold across a rank's CPUs: an
	// operation released at time t never starts before t. By default the
	// engine queues a released operation at the time its CPU is free, as
	// LogGOPSim does, so that on a CPU idle since before t it starts
	// early; graphs whose CPUs are concurrent streams of one device
	// (Chakra traces) set Causal. Single-CPU ranks never differ. Arrow
	// files store it (capsim.causal); GOAL files do not.
	Causal bool

	// Labels optionally holds a label per operation (the GOAL label such
	// as "l7"), used in error messages and GOAL export. It is nil when
	// the graph carries no labels; then label i of rank r is "l<i-RankStart[r]+1>".
	Labels []string

	// Wire optionally gives each send the wire protocol its message
	// travels with, as the lowering that wrote it numbers them (package
	// lower's Wire: NCCL's algorithm, protocol and link kind); 0 is the
	// network's own parameters. Network classes (network.Classify) price
	// each protocol with its own parameters. It is nil when no message
	// has one; Arrow and GOAL files do not store it.
	Wire []uint8

	// Recorded is what the trace says about the run it was recorded
	// from (recorded spans, measurement gaps); nil when it says nothing.
	Recorded *Recorded

	// StartNs, when set, has an entry per rank: the time in ns at which
	// the rank starts. None of its operations starts earlier and its
	// CPUs and NICs are busy until then, as for a process launched
	// later than the others (importers set it from Recorded.StartNs
	// unless told to start ranks together). nil: every rank starts at 0.
	StartNs []int64
}

// RankStartNs returns the time rank starts at (StartNs), 0 when unset.
func (g *Graph) RankStartNs(rank int) int64 {
	if rank < 0 || rank >= len(g.StartNs) {
		return 0
	}
	return g.StartNs[rank]
}

// NumRanks returns the number of ranks.
func (g *Graph) NumRanks() int {
	if len(g.RankStart) == 0 {
		return 0
	}
	return len(g.RankStart) - 1
}

// NumOps returns the number of operations over all ranks.
func (g *Graph) NumOps() int { return len(g.Kind) }

// NumDeps returns the number of dependency edges.
func (g *Graph) NumDeps() int { return len(g.DepOp) }

// RankOf returns the rank that owns operation id. It runs a binary search.
func (g *Graph) RankOf(id int32) int {
	lo, hi := 0, g.NumRanks()
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if g.RankStart[mid] <= id {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// Label returns the label of operation id: its stored label, or
// "l<n>" where n counts the rank's operations from 1.
func (g *Graph) Label(id int32) string {
	if g.Labels != nil && g.Labels[id] != "" {
		return g.Labels[id]
	}
	r := g.RankOf(id)
	return fmt.Sprintf("l%d", id-g.RankStart[r]+1)
}

// Deps returns the operations id depends on and the kinds of those edges.
// The returned slices alias the graph's storage.
func (g *Graph) Deps(id int32) ([]int32, []DepKind) {
	a, b := g.DepStart[id], g.DepStart[id+1]
	return g.DepOp[a:b], g.DepKind[a:b]
}

// RegionName returns the region name of operation id, or "" when it has none.
func (g *Graph) RegionName(id int32) string {
	r := g.Region[id]
	if r == NoRegion {
		return ""
	}
	return g.Regions[r]
}

// Describe returns a short human description of operation id such as
// "rank 3 l7: recv 1024b from 2 tag 0", for error messages.
func (g *Graph) Describe(id int32) string {
	r := g.RankOf(id)
	s := fmt.Sprintf("rank %d %s: ", r, g.Label(id))
	switch g.Kind[id] {
	case Calc:
		s += fmt.Sprintf("calc %d", g.Size[id])
	case Send:
		s += fmt.Sprintf("send %db to %d tag %d", g.Size[id], g.Peer[id], g.Tag[id])
	case Recv:
		s += fmt.Sprintf("recv %db from %s tag %s", g.Size[id], wild(g.Peer[id], AnySource), wild(g.Tag[id], AnyTag))
	default:
		s += g.Kind[id].String()
	}
	return s
}

func wild(v, any int32) string {
	if v == any {
		return "any"
	}
	return fmt.Sprint(v)
}

// ErrInvalid is wrapped by every error Validate returns.
var ErrInvalid = errors.New("invalid execution graph")

// Validate checks the graph's structural invariants: consistent column
// lengths, monotone rank offsets, known kinds, non-negative sizes, peers
// that name existing ranks, CPU and NIC indices ≥ 0, regions in range,
// calc durations and each rank's total calc time at most MaxTimeNs,
// dependencies that point to an operation of the same rank other than
// itself, and recorded times (Recorded) that fit the ranks. It does not
// look for dependency cycles (the engine reports those as a deadlock,
// naming the blocked operations).
func (g *Graph) Validate() error {
	n := len(g.Kind)
	for name, l := range map[string]int{"Size": len(g.Size), "Peer": len(g.Peer), "Tag": len(g.Tag),
		"CPU": len(g.CPU), "NIC": len(g.NIC), "Region": len(g.Region)} {
		if l != n {
			return fmt.Errorf("%w: column %s has %d entries, want %d", ErrInvalid, name, l, n)
		}
	}
	if g.Labels != nil && len(g.Labels) != n {
		return fmt.Errorf("%w: column Labels has %d entries, want %d", ErrInvalid, len(g.Labels), n)
	}
	if g.Wire != nil && len(g.Wire) != n {
		return fmt.Errorf("%w: column Wire has %d entries, want %d", ErrInvalid, len(g.Wire), n)
	}
	if len(g.RankStart) == 0 {
		if n != 0 {
			return fmt.Errorf("%w: %d operations but no ranks", ErrInvalid, n)
		}
		return nil
	}
	if g.RankStart[0] != 0 || int(g.RankStart[len(g.RankStart)-1]) != n {
		return fmt.Errorf("%w: rank offsets must run from 0 to %d", ErrInvalid, n)
	}
	if len(g.DepStart) != n+1 || g.DepStart[0] != 0 || int(g.DepStart[n]) != len(g.DepOp) || len(g.DepKind) != len(g.DepOp) {
		return fmt.Errorf("%w: dependency offsets inconsistent with %d operations and %d edges", ErrInvalid, n, len(g.DepOp))
	}
	if g.DepOrder != nil {
		if len(g.DepOrder) != len(g.DepOp) {
			return fmt.Errorf("%w: %d dependency orders for %d edges", ErrInvalid, len(g.DepOrder), len(g.DepOp))
		}
		for r := 0; r < g.NumRanks(); r++ {
			lo, hi := g.DepStart[g.RankStart[r]], g.DepStart[g.RankStart[r+1]]
			seen := make([]bool, hi-lo)
			for j := lo; j < hi; j++ {
				k := g.DepOrder[j]
				if k < 0 || k >= hi-lo || seen[k] {
					return fmt.Errorf("%w: rank %d: dependency order is not a permutation", ErrInvalid, r)
				}
				seen[k] = true
			}
		}
	}
	if err := g.Recorded.Validate(g.NumRanks()); err != nil {
		return err
	}
	if err := ValidateStarts(g.StartNs, g.NumRanks()); err != nil {
		return err
	}
	if g.valid() {
		return nil
	}
	nr := int32(g.NumRanks())
	for r := 0; r < int(nr); r++ {
		lo, hi := g.RankStart[r], g.RankStart[r+1]
		if hi < lo {
			return fmt.Errorf("%w: rank %d: offsets decrease (%d > %d)", ErrInvalid, r, lo, hi)
		}
		var total int64 // the rank's calc time so far, ≤ MaxTimeNs
		for id := lo; id < hi; id++ {
			if err := g.validateOp(id, int32(r), lo, hi, nr); err != nil {
				return fmt.Errorf("%w: %s: %v", ErrInvalid, g.Describe(id), err)
			}
			if g.Kind[id] == Calc {
				if total += g.Size[id]; total > MaxTimeNs {
					return fmt.Errorf("%w: %s: rank %d's calcs add up to more than %d ns (graph.MaxTimeNs, about 31.7 years)", ErrInvalid, g.Describe(id), r, MaxTimeNs)
				}
			}
		}
	}
	return nil
}

// valid checks what the loop of Validate checks, for the graphs that pass,
// in tight loops over each column; where it finds a problem Validate's
// loop finds it again to report it.
func (g *Graph) valid() bool {
	nr := int32(g.NumRanks())
	for _, reg := range g.Region {
		if reg != NoRegion && uint32(reg) >= uint32(len(g.Regions)) {
			return false
		}
	}
	for _, k := range g.DepKind {
		if k != Requires && k != Irequires {
			return false
		}
	}
	for r := int32(0); r < nr; r++ {
		lo, hi := g.RankStart[r], g.RankStart[r+1]
		if hi < lo {
			return false
		}
		var total int64 // the rank's calc time so far
		kind, size, peer, tag := g.Kind[lo:hi], g.Size[lo:hi], g.Peer[lo:hi], g.Tag[lo:hi]
		for i, k := range kind {
			switch k {
			case Calc:
				if size[i] < 0 || size[i] > MaxTimeNs {
					return false
				}
				if total += size[i]; total > MaxTimeNs {
					return false
				}
				continue
			case Send:
				if uint32(peer[i]) >= uint32(nr) || tag[i] < 0 {
					return false
				}
			case Recv:
				if peer[i] < AnySource || peer[i] >= nr || tag[i] < AnyTag {
					return false
				}
			default:
				return false
			}
			if size[i] < 0 {
				return false
			}
		}
		dlo, dhi := g.DepStart[lo], g.DepStart[hi]
		if dlo > dhi {
			return false
		}
		for id := lo; id < hi; id++ {
			if g.DepStart[id] > g.DepStart[id+1] {
				return false
			}
		}
		for j := lo; j < hi; j++ {
			for _, d := range g.DepOp[g.DepStart[j]:g.DepStart[j+1]] {
				if d < lo || d >= hi || d == j {
					return false
				}
			}
		}
	}
	return true
}

func (g *Graph) validateOp(id, rank, lo, hi, nr int32) error {
	switch g.Kind[id] {
	case Calc:
	case Send:
		if g.Peer[id] < 0 || g.Peer[id] >= nr {
			return fmt.Errorf("peer %d is not a rank (0..%d)", g.Peer[id], nr-1)
		}
		if g.Tag[id] < 0 {
			return fmt.Errorf("send tag %d is negative", g.Tag[id])
		}
	case Recv:
		if (g.Peer[id] < 0 && g.Peer[id] != AnySource) || g.Peer[id] >= nr {
			return fmt.Errorf("peer %d is not a rank (0..%d)", g.Peer[id], nr-1)
		}
		if g.Tag[id] < 0 && g.Tag[id] != AnyTag {
			return fmt.Errorf("recv tag %d is negative", g.Tag[id])
		}
	default:
		return fmt.Errorf("unknown kind %d", g.Kind[id])
	}
	if g.Size[id] < 0 {
		return fmt.Errorf("negative size %d", g.Size[id])
	}
	if g.Kind[id] == Calc && g.Size[id] > MaxTimeNs {
		return fmt.Errorf("calc of %d ns exceeds %d ns (graph.MaxTimeNs, about 31.7 years)", g.Size[id], MaxTimeNs)
	}
	if reg := g.Region[id]; reg != NoRegion && (reg < 0 || int(reg) >= len(g.Regions)) {
		return fmt.Errorf("region %d out of range (%d regions)", reg, len(g.Regions))
	}
	for j := g.DepStart[id]; j < g.DepStart[id+1]; j++ {
		d := g.DepOp[j]
		if d < lo || d >= hi {
			return fmt.Errorf("depends on operation %d, which is not on rank %d", d, rank)
		}
		if d == id {
			return fmt.Errorf("depends on itself")
		}
		if g.DepKind[j] != Requires && g.DepKind[j] != Irequires {
			return fmt.Errorf("unknown dependency kind %d", g.DepKind[j])
		}
	}
	return nil
}

// OpRanks returns the rank of every operation, for consumers that look
// ranks up per operation in a hot loop.
func (g *Graph) OpRanks() []int32 {
	ranks := make([]int32, g.NumOps())
	for r := 0; r < g.NumRanks(); r++ {
		for id := g.RankStart[r]; id < g.RankStart[r+1]; id++ {
			ranks[id] = int32(r)
		}
	}
	return ranks
}

// AdviseHugePages asks the operating system for huge pages for the
// columns a replay reads at every rank's current operation at once (Kind,
// Size, Peer, Tag; their capacity): with 4 KiB pages each such access
// would also miss the TLB (see internal/hugepage). The other columns are
// read in order. Readers and builders call it on freshly allocated
// columns, before filling them; it changes no value.
func (g *Graph) AdviseHugePages() {
	hugepage.Advise(g.Kind)
	hugepage.Advise(g.Size)
	hugepage.Advise(g.Peer)
	hugepage.Advise(g.Tag)
}
