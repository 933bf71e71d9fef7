// Package topo describes interconnect topologies for capsim's flow-level
// network model: which directed links a message between two nodes
// crosses, and each link's bandwidth and latency.
//
// Four kinds are provided, each with deterministic routing:
//
//   - Crossbar: every pair of nodes is connected without contention (no
//     links), the behaviour of the plain LogGOPS model; or, given a
//     bandwidth, through a private up and down link per node, shared by
//     the node's concurrent messages (a SimGrid <cluster>).
//   - FatTree: a k-ary n-tree (Petrini and Vanneschi) of k^n hosts with
//     D-mod-k routing and optional oversubscription of the
//     switch-to-switch links; XGFT: an extended generalized fat-tree
//     (parents and parallel links per level, SimGrid's FAT_TREE), which
//     oversubscribes by having fewer parents than children.
//   - Torus: a 1-, 2- or 3-D torus with one host per router and
//     dimension-order routing (shortest direction, ties go +).
//   - Dragonfly: groups of routers fully connected inside a group, with
//     global links between groups; minimal or Valiant routing.
//
// Bandwidths are in bytes per nanosecond (numerically GB/s) and latencies
// in nanoseconds. Ranks map onto nodes with a Mapping.
package topo

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/capsim/capsim/network"
)

// Link is one directed link of a topology.
type Link struct {
	Bandwidth float64 // bytes per ns (GB/s)
	Latency   int64   // ns to cross it
}

// Topology is an interconnect: Nodes hosts joined by NumLinks directed
// links.
type Topology interface {
	// Nodes returns the number of hosts.
	Nodes() int
	// NumLinks returns the number of directed links; link ids run from 0.
	NumLinks() int
	// Link returns link id's bandwidth and latency.
	Link(id int32) Link
	// Route appends to buf the ids of the links that a message from host
	// src to host dst crosses, in order, and returns the extended slice.
	// It appends nothing when src == dst. It does not allocate when buf
	// has room.
	Route(buf []int32, src, dst int) []int32
	// String returns the topology's spec, as Parse reads it.
	String() string
}

// HopCounter is a Topology that counts the links of a route without
// building it: Hops(src, dst) is len(Route(nil, src, dst)). The flow
// model uses it to time a message's latency before its route is needed.
type HopCounter interface {
	Hops(src, dst int) int
}

// Crossbar connects N hosts. With Bandwidth 0 it has no links and no
// contention: Route returns no links. With Bandwidth > 0 every host has a
// private up link (id h) and down link (id N+h) of that bandwidth and
// HopNs latency, and a message crosses the sender's up link and the
// receiver's down link: a host's concurrent messages share its links, as
// in a SimGrid <cluster> with SPLITDUPLEX links and no backbone limit.
type Crossbar struct {
	N         int
	Bandwidth float64 // bytes per ns of each host link; 0: no links
	HopNs     int64   // latency of each host link
}

// Nodes implements Topology.
func (c *Crossbar) Nodes() int { return c.N }

// NumLinks implements Topology: two per host with a bandwidth, else none.
func (c *Crossbar) NumLinks() int {
	if c.Bandwidth > 0 {
		return 2 * c.N
	}
	return 0
}

// Link implements Topology: every host link has the crossbar's
// bandwidth and latency.
func (c *Crossbar) Link(id int32) Link { return Link{Bandwidth: c.Bandwidth, Latency: c.HopNs} }

// Route implements Topology: src's up link and dst's down link, or none
// without a bandwidth.
func (c *Crossbar) Route(buf []int32, src, dst int) []int32 {
	if c.Bandwidth <= 0 || src == dst {
		return buf
	}
	return append(buf, int32(src), int32(c.N+dst))
}

// Hops implements HopCounter.
func (c *Crossbar) Hops(src, dst int) int {
	if c.Bandwidth <= 0 || src == dst {
		return 0
	}
	return 2
}

// Sized returns c with n nodes where c leaves its size to the replay
// (N = 0), else c.
func (c *Crossbar) Sized(n int) *Crossbar {
	if c.N != 0 {
		return c
	}
	s := *c
	s.N = n
	return &s
}

// String implements Topology.
func (c *Crossbar) String() string {
	if c.Bandwidth > 0 {
		return fmt.Sprintf("crossbar:nodes=%d,bw=%s,hop_ns=%d", c.N, fmtFloat(c.Bandwidth), c.HopNs)
	}
	return fmt.Sprintf("crossbar:nodes=%d", c.N)
}

// params holds the KEY=VALUE parameters of a spec.
type params struct {
	spec string
	kv   map[string]string
	used map[string]bool
}

func parseParams(spec, args string) (*params, error) {
	p := &params{spec: spec, kv: map[string]string{}, used: map[string]bool{}}
	if strings.TrimSpace(args) == "" {
		return p, nil
	}
	for _, f := range strings.Split(args, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(f), "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("topology %q: %q is not KEY=VALUE", spec, f)
		}
		if _, dup := p.kv[k]; dup {
			return nil, fmt.Errorf("topology %q: %s given twice", spec, k)
		}
		p.kv[k] = strings.TrimSpace(v)
	}
	return p, nil
}

func (p *params) int(key string, def, min int) (int, error) {
	v, ok := p.kv[key]
	p.used[key] = true
	if !ok {
		if def < min {
			return 0, fmt.Errorf("topology %q: parameter %s is required", p.spec, key)
		}
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min {
		return 0, fmt.Errorf("topology %q: %s=%q is not an integer ≥ %d", p.spec, key, v, min)
	}
	return n, nil
}

func (p *params) float(key string, def float64) (float64, error) {
	v, ok := p.kv[key]
	p.used[key] = true
	if !ok {
		return def, nil
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || !(x > 0) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("topology %q: %s=%q is not a positive number", p.spec, key, v)
	}
	return x, nil
}

// bandwidth reads a link bandwidth: a number of GB/s (bytes per ns), or a
// number with a unit as network.ParseBandwidth reads it ("100Gb/s").
func (p *params) bandwidth(key string, def float64) (float64, error) {
	v, ok := p.kv[key]
	if !ok || !strings.Contains(v, "/") {
		return p.float(key, def)
	}
	p.used[key] = true
	bw, err := network.ParseBandwidth(v)
	if err != nil {
		return 0, fmt.Errorf("topology %q: %s=%q: %w", p.spec, key, v, err)
	}
	return bw, nil
}

func (p *params) str(key, def string) string {
	p.used[key] = true
	if v, ok := p.kv[key]; ok {
		return v
	}
	return def
}

// links reads the keys every topology's links have: bw (GB/s) and hop_ns.
func (p *params) links() (bw float64, hopNs int64, err error) {
	if bw, err = p.bandwidth("bw", DefaultBandwidth); err != nil {
		return 0, 0, err
	}
	hop, err := p.int("hop_ns", DefaultHopNs, 0)
	if err != nil {
		return 0, 0, err
	}
	return bw, int64(hop), nil
}

// done reports parameters that the kind does not know.
func (p *params) done(known string) error {
	for k := range p.kv {
		if !p.used[k] {
			return fmt.Errorf("topology %q: unknown parameter %q (want %s)", p.spec, k, known)
		}
	}
	return nil
}

// DefaultBandwidth is the link bandwidth, in bytes/ns, that specs leave
// out: 12.5 GB/s, a 100 Gb/s link.
const DefaultBandwidth = 12.5

// DefaultHopNs is the per-link latency that specs leave out.
const DefaultHopNs = 100

// MaxHopNs is the largest per-link latency a topology takes: 1,000 s,
// far beyond any network, small enough that a route's latencies cannot
// overflow a time.
const MaxHopNs = 1_000_000_000_000

// maxNodes bounds the size of a topology read from a spec.
const maxNodes = 1 << 22

// Parse reads a topology spec "KIND:KEY=VALUE,...":
//
//	crossbar:nodes=N[,bw=B[,hop_ns=H]]
//	fattree:k=K,n=N[,oversub=S][,bw=B][,hop_ns=H]
//	fattree:down=M1xM2…,up=W1xW2…[,links=P1xP2…][,bw=B][,hop_ns=H]
//	torus:dims=XxY[xZ][,bw=B][,hop_ns=H]
//	dragonfly:groups=G,routers=A,hosts=P,global=H[,chassis=C][,wiring=consecutive|simgrid][,bw=B][,local_bw=B][,global_bw=B][,chassis_bw=B][,hop_ns=H][,routing=minimal|valiant]
//
// bw is in GB/s (bytes per ns), or a bandwidth with a unit such as
// 100Gb/s (network.ParseBandwidth); hop_ns is the latency of every link. The
// second fat-tree form is an XGFT (down: children per switch, up: parents
// per node, links: parallel links per parent, level by level from the
// hosts). With wiring=simgrid a dragonfly's global may be left out (it
// is 1). A crossbar with nodes left out (or 0) has as many nodes as the replay has
// ranks; without bw it has no links, with bw each node has a private up and
// down link of bandwidth bw and latency hop_ns (default DefaultHopNs).
func Parse(spec string) (Topology, error) {
	kind, args, _ := strings.Cut(strings.TrimSpace(spec), ":")
	p, err := parseParams(spec, args)
	if err != nil {
		return nil, err
	}
	switch kind {
	case "crossbar":
		n, err := p.int("nodes", 0, 0)
		if err != nil {
			return nil, err
		}
		c := &Crossbar{N: n}
		_, bw := p.kv["bw"]
		if _, hop := p.kv["hop_ns"]; hop && !bw {
			return nil, fmt.Errorf("topology %q: hop_ns needs bw (a crossbar without bw has no links)", spec)
		}
		if bw {
			if n > maxNodes {
				return nil, fmt.Errorf("topology %q: nodes=%d is more than %d", spec, n, maxNodes)
			}
			bw, hop, err := p.links()
			if err != nil {
				return nil, err
			}
			if hop > MaxHopNs {
				return nil, fmt.Errorf("topology %q: hop_ns=%d is over %d", spec, hop, int64(MaxHopNs))
			}
			c.Bandwidth, c.HopNs = bw, hop
		}
		if err := p.done("nodes, bw, hop_ns"); err != nil {
			return nil, err
		}
		return c, nil
	case "fattree":
		return parseFatTree(p)
	case "torus":
		return parseTorus(p)
	case "dragonfly":
		return parseDragonfly(p)
	}
	return nil, fmt.Errorf("topology %q: unknown kind %q (want crossbar, fattree, torus or dragonfly)", spec, kind)
}

// fmtFloat formats a bandwidth as Parse reads it.
func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
