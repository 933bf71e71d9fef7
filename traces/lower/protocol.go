package lower

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/capsim/capsim/traces/mpi"
)

// Protocol is one of NCCL's wire protocols. They trade bandwidth for
// latency: Simple moves whole buffers and synchronises with memory fences
// (full bandwidth, the highest latency per hop); LL (low latency) sends
// 8-byte lines of 4 data bytes and a 4-byte flag, so a receiver polls
// without a fence (half the bandwidth, the lowest latency); LL128 sends
// 128-byte lines of which 120 bytes are data.
//
// Each ring or tree step of a lowered collective is one message, so a
// protocol is a choice of the network's LogGP parameters for the
// collective's messages: L the protocol's latency per hop
// (HopLatencyNs) and G the link's time per byte over the protocol's
// bandwidth efficiency (Efficiency). The messages of a call the nccl
// selector tunes carry theirs as a Wire.
type Protocol uint8

// NCCL's protocols, in the order of its tuning tables.
const (
	LL Protocol = iota
	LL128
	Simple
)

// Protocols lists the protocols in NCCL's order.
var Protocols = [...]Protocol{LL, LL128, Simple}

func (p Protocol) String() string {
	switch p {
	case LL:
		return "LL"
	case LL128:
		return "LL128"
	case Simple:
		return "Simple"
	}
	return fmt.Sprintf("Protocol(%d)", uint8(p))
}

// Link is the kind of link a collective's hops cross, as NCCL's tuning
// tells them apart.
type Link uint8

// Link kinds.
const (
	NVLink Link = iota
	PCI
	Net
)

// The latencies of NCCL's tuning model (src/graph/tuning.cc, its default
// tuner constants), in ns: per algorithm (ring, tree) and protocol (LL,
// LL128, Simple), the base latency of a collective, and per link kind the
// latency of one hop.
var (
	baseLatNs = [2][3]float64{ringIdx: {6600, 14000, 8400}, treeIdx: {6800, 14000, 8400}}
	hopLatNs  = [3][2][3]float64{
		NVLink: {ringIdx: {600, 1900, 3400}, treeIdx: {600, 1250, 4000}},
		PCI:    {ringIdx: {1000, 2500, 5700}, treeIdx: {1000, 1900, 4000}},
		Net:    {ringIdx: {2700, 4000, 14000}, treeIdx: {5000, 8500, 14000}},
	}
)

// Algorithm indices of the latency tables.
const (
	ringIdx = 0
	treeIdx = 1
)

// algNames names the algorithms of the latency tables by index.
var algNames = [2]string{ringIdx: ncclRing, treeIdx: ncclTree}

// linkNames names the link kinds, as ParseLink reads them.
var linkNames = [3]string{NVLink: "nvlink", PCI: "pci", Net: "net"}

func algoIndex(alg string) (int, error) {
	switch alg {
	case ncclRing:
		return ringIdx, nil
	case ncclTree:
		return treeIdx, nil
	}
	return 0, fmt.Errorf("lower: no protocol costs for algorithm %q (want %s or %s)", alg, ncclRing, ncclTree)
}

// HopLatencyNs returns NCCL's latency of one hop of algorithm alg
// (nccl-ring or nccl-tree) under protocol p on links of kind l, in ns: the
// L of the collective's messages.
func (p Protocol) HopLatencyNs(alg string, l Link) (float64, error) {
	a, err := algoIndex(alg)
	if err != nil || p > Simple || l > Net {
		return 0, fmt.Errorf("lower: protocol %s, link %d, algorithm %q: %w", p, l, alg, err)
	}
	return hopLatNs[l][a][p], nil
}

// BaseLatencyNs returns NCCL's fixed latency of a collective run with
// algorithm alg under protocol p, in ns (a kernel's launch and set-up).
func (p Protocol) BaseLatencyNs(alg string) (float64, error) {
	a, err := algoIndex(alg)
	if err != nil || p > Simple {
		return 0, fmt.Errorf("lower: protocol %s, algorithm %q: %w", p, alg, err)
	}
	return baseLatNs[a][p], nil
}

// Efficiency returns the fraction of a link's bandwidth that protocol p
// carries as data under algorithm alg on nodes nodes, as NCCL's tuning
// model takes it: ring LL 1/2, ring LL128 0.92, tree LL 1/3.8, tree LL128
// 7/9 on one node and 120/128 across nodes, tree Simple 0.92, ring
// Simple 1. (NCCL also caps LL and LL128 at per-architecture rates per
// channel; those caps are left out.)
func (p Protocol) Efficiency(alg string, nodes int) (float64, error) {
	a, err := algoIndex(alg)
	if err != nil || p > Simple {
		return 0, fmt.Errorf("lower: protocol %s, algorithm %q: %w", p, alg, err)
	}
	switch {
	case a == ringIdx && p == LL:
		return 0.5, nil
	case a == ringIdx && p == LL128:
		return 0.92, nil
	case a == treeIdx && p == LL:
		return 1 / 3.8, nil
	case a == treeIdx && p == LL128 && nodes == 1:
		return 7.0 / 9.0, nil
	case a == treeIdx && p == LL128:
		return 120.0 / 128.0, nil
	case a == treeIdx:
		return 0.92, nil
	}
	return 1, nil
}

// Tuning is what TuneNCCL chose for a collective.
type Tuning struct {
	Algorithm string // nccl-ring or nccl-tree
	Protocol  Protocol
	// PredictedNs is NCCL's model of the collective's time, in ns.
	PredictedNs float64
}

// TuneNCCL picks the algorithm and protocol NCCL's tuning model predicts
// fastest for a collective of kind k on ranks ranks spread over nodes
// nodes (ranks a multiple of nodes), moving bytes bytes (the size NCCL
// is called with: the whole buffer of an allreduce, the gathered whole of
// an allgather), with bus bandwidth busBytesPerNs (all channels together)
// and intra-node links of kind intra.
//
// The model (src/graph/tuning.cc): a collective takes lat + bytes/bw.
// For the ring, lat is the base latency plus one hop latency per step
// (2(p−1) steps for allreduce, p−1 for allgather and reduce-scatter, p
// for broadcast and reduce), the steps between nodes (2(nodes−1) for
// allreduce, nodes−1 otherwise) at the network's hop latency, and bw the
// bus bandwidth times the protocol's efficiency times p/steps. For the
// tree (allreduce only), lat is the base latency plus
// 2((p/nodes − 1)·intra + ⌊log2 nodes⌋·net), and bw half the bus
// bandwidth times the efficiency. Ties go to the earlier candidate: ring before
// tree, LL before LL128 before Simple. NCCL's per-channel bandwidth caps
// and its tree correction factors by size are left out.
func TuneNCCL(k mpi.Kind, bytes int64, ranks, nodes int, intra Link, busBytesPerNs float64) (Tuning, error) {
	if ranks < 1 || nodes < 1 || ranks%nodes != 0 || bytes < 0 || !(busBytesPerNs > 0) || math.IsInf(busBytesPerNs, 0) || intra > Net {
		return Tuning{}, fmt.Errorf("lower: cannot tune %s of %d bytes on %d ranks over %d nodes at %g bytes/ns", k, bytes, ranks, nodes, busBytesPerNs)
	}
	var steps, inter int // ring steps, and those between nodes
	algs := []string{ncclRing}
	switch k {
	case mpi.Allreduce:
		steps, inter = 2*(ranks-1), 2*(nodes-1)
		algs = append(algs, ncclTree)
	case mpi.Allgather, mpi.ReduceScatter:
		steps, inter = ranks-1, nodes-1
	case mpi.Bcast, mpi.Reduce:
		steps, inter = ranks, nodes-1
	default:
		return Tuning{}, fmt.Errorf("lower: NCCL's tuning has no model for %s", k)
	}
	best := Tuning{PredictedNs: math.Inf(1)}
	for _, alg := range algs {
		for _, p := range Protocols {
			t := modelNs(alg, p, steps, inter, bytes, ranks, nodes, intra, busBytesPerNs)
			if t < best.PredictedNs {
				best = Tuning{Algorithm: alg, Protocol: p, PredictedNs: t}
			}
		}
	}
	return best, nil
}

// modelNs is NCCL's predicted time of one candidate (see TuneNCCL).
func modelNs(alg string, p Protocol, steps, inter int, bytes int64, ranks, nodes int, intra Link, bus float64) float64 {
	a, _ := algoIndex(alg)
	eff, _ := p.Efficiency(alg, nodes)
	intraLat, netLat := hopLatNs[intra][a][p], hopLatNs[Net][a][p]
	lat := baseLatNs[a][p]
	bw := bus * eff
	if a == ringIdx {
		lat += float64(steps-inter)*intraLat + float64(inter)*netLat
		bw *= float64(ranks) / float64(max(steps, 1))
	} else {
		lat += 2 * (float64(ranks/nodes-1)*intraLat + float64(bits.Len(uint(nodes))-1)*netLat)
		bw *= 0.5
	}
	return lat + float64(bytes)/bw
}

// ParseLink reads a link kind by name: "nvlink", "pci" or "net".
func ParseLink(name string) (Link, error) {
	for l, n := range linkNames {
		if n == name {
			return Link(l), nil
		}
	}
	return 0, fmt.Errorf("lower: link kind %q (want nvlink, pci or net)", name)
}

// Wire is how a lowered message travels, as graph.Op.Wire and
// graph.Graph.Wire store it: 0 for the network's own parameters, else
// one of NCCL's protocols under one of its algorithms across one kind of
// link (NewWire). Network classes (network.Classify) price a message of
// wire w with the network's parameters made w's (network.LogGOPS.ForWire):
// L its hop latency (HopLatencyNs), G the network's over its bandwidth
// efficiency (Efficiency).
type Wire uint8

// NumWires bounds the wires: every Wire is below it.
const NumWires = 1 + 2*3*3*2

// NewWire returns the wire of a message of a collective run with
// algorithm alg (nccl-ring or nccl-tree) under protocol p that crosses a
// link of kind l, the collective's group spanning nodes nodes.
func NewWire(alg string, p Protocol, l Link, nodes int) (Wire, error) {
	a, err := algoIndex(alg)
	if err != nil || p > Simple || l > Net || nodes < 1 {
		return 0, fmt.Errorf("lower: no wire for algorithm %q, protocol %s, link %d on %d nodes: %w", alg, p, l, nodes, err)
	}
	multi := 0
	if nodes > 1 {
		multi = 1
	}
	return Wire(1 + ((a*3+int(p))*3+int(l))*2 + multi), nil
}

// parts returns w's algorithm index, protocol, link and whether its
// collective spans more than one node; ok is false for 0 and for values
// NewWire does not return.
func (w Wire) parts() (a int, p Protocol, l Link, multi, ok bool) {
	if w == 0 || w >= NumWires {
		return 0, 0, 0, false, false
	}
	x := int(w - 1)
	multi, x = x%2 == 1, x/2
	l, x = Link(x%3), x/3
	return x / 3, Protocol(x % 3), l, multi, true
}

// Valid reports whether w is 0 or a wire NewWire returns.
func (w Wire) Valid() bool { return w < NumWires }

// HopLatencyNs returns the latency of one hop of w's messages in ns, and
// false for wire 0 (the network's own latency).
func (w Wire) HopLatencyNs() (float64, bool) {
	a, p, l, _, ok := w.parts()
	if !ok {
		return 0, false
	}
	return hopLatNs[l][a][p], true
}

// Efficiency returns the fraction of a link's bandwidth that w's
// messages carry as data, and false for wire 0 (all of it).
func (w Wire) Efficiency() (float64, bool) {
	a, p, _, multi, ok := w.parts()
	if !ok {
		return 1, false
	}
	nodes := 1
	if multi {
		nodes = 2
	}
	e, _ := p.Efficiency(algNames[a], nodes)
	return e, true
}

func (w Wire) String() string {
	a, p, l, multi, ok := w.parts()
	if !ok {
		if w == 0 {
			return "network"
		}
		return fmt.Sprintf("Wire(%d)", uint8(w))
	}
	s := fmt.Sprintf("%s/%s/%s", algNames[a], p, linkNames[l])
	if multi {
		s += "/multi-node"
	}
	return s
}
