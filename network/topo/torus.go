package topo

import (
	"fmt"
	"strconv"
	"strings"
)

// Torus is a 1-, 2- or 3-D torus of routers with one host each. Host i
// sits at coordinates (i mod X, i/X mod Y, i/(X·Y)). Every router has a
// link to each neighbour in each direction of each dimension, plus an
// injection link from its host and an ejection link to it.
//
// Routing is dimension order: first along X, then Y, then Z, each the
// shorter way round (the + direction on a tie).
//
// SimGridTies breaks ties (an even dimension, the destination half-way
// round) as SimGrid's TORUS cluster does: the + direction, except from
// coordinate d/2 to coordinate 0, which goes −. By default ties go +.
//
// NoNIC leaves out the injection and ejection links: a host then sends
// and receives on all its router's links at once, as in SimGrid's TORUS
// cluster, and a message's latency counts router hops only.
type Torus struct {
	Dims  []int
	BW    float64 // bytes/ns of every link
	HopNs int64
	NoNIC bool
	// SimGridTies: see above.
	SimGridTies bool

	nodes int
}

// NewTorus returns a torus of the given dimensions; see Torus.
func NewTorus(dims []int, bw float64, hopNs int64) (*Torus, error) {
	if len(dims) < 1 || len(dims) > 3 {
		return nil, fmt.Errorf("torus: %d dimensions (want 1 to 3)", len(dims))
	}
	if !(bw > 0) || hopNs < 0 || hopNs > MaxHopNs {
		return nil, fmt.Errorf("torus: bw=%g, hop_ns=%d (want bw > 0, 0 ≤ hop_ns ≤ 10^12)", bw, hopNs)
	}
	n := 1
	for _, d := range dims {
		if d < 1 {
			return nil, fmt.Errorf("torus: dimension %d (want ≥ 1)", d)
		}
		n *= d
		if n > maxNodes {
			return nil, fmt.Errorf("torus: more than %d nodes", maxNodes)
		}
	}
	return &Torus{Dims: append([]int(nil), dims...), BW: bw, HopNs: hopNs, nodes: n}, nil
}

func parseTorus(p *params) (Topology, error) {
	ds := p.str("dims", "")
	if ds == "" {
		return nil, fmt.Errorf("topology %q: parameter dims is required (e.g. dims=4x4x4)", p.spec)
	}
	var dims []int
	for _, f := range strings.Split(ds, "x") {
		d, err := strconv.Atoi(f)
		if err != nil || d < 1 {
			return nil, fmt.Errorf("topology %q: dims=%q: %q is not a positive integer", p.spec, ds, f)
		}
		dims = append(dims, d)
	}
	bw, hop, err := p.links()
	if err != nil {
		return nil, err
	}
	nic, err := p.int("nic", 1, 0)
	if err != nil || nic > 1 {
		return nil, fmt.Errorf("topology %q: nic must be 0 or 1", p.spec)
	}
	tie := p.str("tie", "plus")
	if tie != "plus" && tie != "simgrid" {
		return nil, fmt.Errorf("topology %q: tie=%q (want plus or simgrid)", p.spec, tie)
	}
	if err := p.done("dims, bw, hop_ns, nic, tie"); err != nil {
		return nil, err
	}
	t, err := NewTorus(dims, bw, hop)
	if err != nil {
		return nil, fmt.Errorf("topology %q: %w", p.spec, err)
	}
	t.NoNIC = nic == 0
	t.SimGridTies = tie == "simgrid"
	return t, nil
}

// Nodes implements Topology.
func (t *Torus) Nodes() int { return t.nodes }

// NumLinks implements Topology. Link ids: router i's link in dimension d,
// direction + (dir 0) or − (dir 1), is i·2D + 2d + dir; then the injection
// links (nodes·2D + i) and the ejection links (nodes·(2D+1) + i).
func (t *Torus) NumLinks() int { return t.nodes * (2*len(t.Dims) + 2) }

// Link implements Topology.
func (t *Torus) Link(id int32) Link { return Link{Bandwidth: t.BW, Latency: t.HopNs} }

// NeighbourLink returns the id of the link leaving node along dimension
// dim in direction +1 (plus) or −1.
func (t *Torus) NeighbourLink(node, dim int, plus bool) int32 {
	dir := 1
	if plus {
		dir = 0
	}
	return int32(node*2*len(t.Dims) + 2*dim + dir)
}

// Route implements Topology with dimension-order routing.
func (t *Torus) Route(buf []int32, src, dst int) []int32 {
	if src == dst {
		return buf
	}
	D := len(t.Dims)
	if !t.NoNIC {
		buf = append(buf, int32(t.nodes*2*D+src))
	}
	cur := src
	stride := 1
	for d, n := range t.Dims {
		a := cur / stride % n
		b := dst / stride % n
		fwd := (b - a + n) % n
		plus := fwd <= n-fwd
		if t.SimGridTies && 2*fwd == n && a == n/2 && b == 0 {
			plus = false
		}
		steps := fwd
		if !plus {
			steps = n - fwd
		}
		for ; steps > 0; steps-- {
			buf = append(buf, t.NeighbourLink(cur, d, plus))
			na := cur / stride % n
			if plus {
				cur += ((na+1)%n - na) * stride
			} else {
				cur += ((na-1+n)%n - na) * stride
			}
		}
		stride *= n
	}
	if t.NoNIC {
		return buf
	}
	return append(buf, int32(t.nodes*(2*D+1)+dst))
}

// String implements Topology.
func (t *Torus) String() string {
	ds := make([]string, len(t.Dims))
	for i, d := range t.Dims {
		ds[i] = strconv.Itoa(d)
	}
	nic := ""
	if t.NoNIC {
		nic = ",nic=0"
	}
	if t.SimGridTies {
		nic += ",tie=simgrid"
	}
	return fmt.Sprintf("torus:dims=%s,bw=%s,hop_ns=%d%s", strings.Join(ds, "x"), fmtFloat(t.BW), t.HopNs, nic)
}
