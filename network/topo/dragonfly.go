package topo

import "fmt"

// Dragonfly is a dragonfly network (Kim et al., ISCA'08) of Groups groups
// of Routers routers with Hosts hosts each. The routers of a group are
// fully connected by local links; each router has Global global links,
// and the group's Routers·Global global ports (port q belongs to router
// q/Global) are wired in the consecutive arrangement: port q of group G
// leads to group (G + 1 + q mod (Groups−1)) mod Groups, arriving on that
// group's port (Groups − 2 − q mod (Groups−1)) + (q − q mod (Groups−1)).
// Routers·Global must be at least Groups−1 so that every pair of groups is
// joined, and a multiple of it so that the wiring is symmetric.
//
// Host h is on router h/Hosts (numbered group by group). Minimal routing
// goes host → router → (local hop to the router owning the global port
// towards the destination group) → global link → (local hop to the
// destination router) → host; where several ports lead to the same group
// the destination host picks one (dst mod their number). Valiant routing
// first routes minimally to a router of an intermediate group chosen by
// hashing (src, dst), then minimally to the destination, which spreads
// adversarial traffic over the global links at twice the path length.
type Dragonfly struct {
	Groups, Routers, Hosts, Global int
	BW, LocalBW, GlobalBW          float64 // bytes/ns of host, local and global links
	HopNs                          int64
	Valiant                        bool

	nodes int
}

// NewDragonfly returns a dragonfly; see Dragonfly.
func NewDragonfly(groups, routers, hosts, global int, bw, localBW, globalBW float64, hopNs int64, valiant bool) (*Dragonfly, error) {
	if groups < 1 || routers < 1 || hosts < 1 || global < 0 {
		return nil, fmt.Errorf("dragonfly: groups=%d routers=%d hosts=%d global=%d (want ≥ 1 each, global ≥ 0)", groups, routers, hosts, global)
	}
	if groups > 1 && (routers*global < groups-1 || routers*global%(groups-1) != 0) {
		return nil, fmt.Errorf("dragonfly: %d routers × %d global links per group does not join %d groups (want a multiple of groups−1 = %d)", routers, global, groups, groups-1)
	}
	if !(bw > 0) || !(localBW > 0) || !(globalBW > 0) || hopNs < 0 || hopNs > MaxHopNs {
		return nil, fmt.Errorf("dragonfly: bandwidths must be > 0 and 0 ≤ hop_ns ≤ 10^12")
	}
	if valiant && groups < 3 {
		return nil, fmt.Errorf("dragonfly: Valiant routing needs at least 3 groups, have %d", groups)
	}
	n := groups * routers * hosts
	if n > maxNodes || groups*routers*routers > 4*maxNodes {
		return nil, fmt.Errorf("dragonfly: too large (%d hosts)", n)
	}
	return &Dragonfly{Groups: groups, Routers: routers, Hosts: hosts, Global: global,
		BW: bw, LocalBW: localBW, GlobalBW: globalBW, HopNs: hopNs, Valiant: valiant, nodes: n}, nil
}

func parseDragonfly(p *params) (Topology, error) {
	var v [4]int
	for i, k := range []string{"groups", "routers", "hosts", "global"} {
		n, err := p.int(k, -1, 1)
		if err != nil {
			return nil, err
		}
		v[i] = n
	}
	bw, err := p.float("bw", DefaultBandwidth)
	if err != nil {
		return nil, err
	}
	lbw, err := p.float("local_bw", bw)
	if err != nil {
		return nil, err
	}
	gbw, err := p.float("global_bw", bw)
	if err != nil {
		return nil, err
	}
	hop, err := p.int("hop_ns", DefaultHopNs, 0)
	if err != nil {
		return nil, err
	}
	routing := p.str("routing", "minimal")
	if routing != "minimal" && routing != "valiant" {
		return nil, fmt.Errorf("topology %q: routing=%q (want minimal or valiant)", p.spec, routing)
	}
	if err := p.done("groups, routers, hosts, global, bw, local_bw, global_bw, hop_ns, routing"); err != nil {
		return nil, err
	}
	t, err := NewDragonfly(v[0], v[1], v[2], v[3], bw, lbw, gbw, int64(hop), routing == "valiant")
	if err != nil {
		return nil, fmt.Errorf("topology %q: %w", p.spec, err)
	}
	return t, nil
}

// Nodes implements Topology.
func (t *Dragonfly) Nodes() int { return t.nodes }

// Link ids: host i's injection link is i, its ejection link nodes+i; the
// local link from router r to router r2 of group G is
// 2·nodes + (G·Routers + r)·Routers + r2; global port q of group G is
// 2·nodes + Groups·Routers² + G·Routers·Global + q.
func (t *Dragonfly) localID(group, r, r2 int) int32 {
	return int32(2*t.nodes + (group*t.Routers+r)*t.Routers + r2)
}

func (t *Dragonfly) globalID(group, q int) int32 {
	return int32(2*t.nodes + t.Groups*t.Routers*t.Routers + group*t.Routers*t.Global + q)
}

// NumLinks implements Topology.
func (t *Dragonfly) NumLinks() int {
	return 2*t.nodes + t.Groups*t.Routers*t.Routers + t.Groups*t.Routers*t.Global
}

// Link implements Topology.
func (t *Dragonfly) Link(id int32) Link {
	switch i := int(id); {
	case i < 2*t.nodes:
		return Link{Bandwidth: t.BW, Latency: t.HopNs}
	case i < 2*t.nodes+t.Groups*t.Routers*t.Routers:
		return Link{Bandwidth: t.LocalBW, Latency: t.HopNs}
	}
	return Link{Bandwidth: t.GlobalBW, Latency: t.HopNs}
}

// routers appends the links from global router a to global router b
// (router ids are group·Routers + r); pick chooses among parallel global
// ports.
func (t *Dragonfly) routers(buf []int32, a, b, pick int) []int32 {
	ga, ra := a/t.Routers, a%t.Routers
	gb, rb := b/t.Routers, b%t.Routers
	if ga == gb {
		if ra != rb {
			buf = append(buf, t.localID(ga, ra, rb))
		}
		return buf
	}
	m := (gb - ga - 1 + t.Groups) % t.Groups // offset class of the ports towards gb
	par := t.Routers * t.Global / (t.Groups - 1)
	j := pick % par
	q := m + j*(t.Groups-1)
	qb := (t.Groups - 2 - m) + j*(t.Groups-1)
	out, in := q/t.Global, qb/t.Global
	if out != ra {
		buf = append(buf, t.localID(ga, ra, out))
	}
	buf = append(buf, t.globalID(ga, q))
	if in != rb {
		buf = append(buf, t.localID(gb, in, rb))
	}
	return buf
}

// Route implements Topology.
func (t *Dragonfly) Route(buf []int32, src, dst int) []int32 {
	if src == dst {
		return buf
	}
	a, b := src/t.Hosts, dst/t.Hosts
	buf = append(buf, int32(src))
	ga, gb := a/t.Routers, b/t.Routers
	if t.Valiant && ga != gb {
		// An intermediate group other than both ends, and a router in it.
		h := uint64(src)*0x9E3779B97F4A7C15 ^ uint64(dst)*0xC2B2AE3D27D4EB4F
		h ^= h >> 29
		gi := int(h % uint64(t.Groups-2))
		for _, g := range [2]int{min(ga, gb), max(ga, gb)} {
			if gi >= g {
				gi++
			}
		}
		mid := gi*t.Routers + int(h>>32)%t.Routers
		buf = t.routers(buf, a, mid, src)
		buf = t.routers(buf, mid, b, dst)
	} else {
		buf = t.routers(buf, a, b, dst)
	}
	return append(buf, int32(t.nodes+dst))
}

// String implements Topology.
func (t *Dragonfly) String() string {
	r := "minimal"
	if t.Valiant {
		r = "valiant"
	}
	return fmt.Sprintf("dragonfly:groups=%d,routers=%d,hosts=%d,global=%d,bw=%s,local_bw=%s,global_bw=%s,hop_ns=%d,routing=%s",
		t.Groups, t.Routers, t.Hosts, t.Global, fmtFloat(t.BW), fmtFloat(t.LocalBW), fmtFloat(t.GlobalBW), t.HopNs, r)
}
