package topo

import "fmt"

// Dragonfly is a dragonfly network (Kim et al., ISCA'08) of Groups groups
// of Chassis·Routers routers with Hosts hosts each.
//
// Inside a group the routers form Chassis chassis of Routers routers
// (Chassis is 1 unless given, the classic dragonfly): the routers of a
// chassis are fully connected by local links, and with several chassis
// the routers at the same position in each chassis are fully connected
// by chassis links (SimGrid's DRAGONFLY cluster: its "green" and "black"
// links). A group's router i is chassis i/Routers, position i mod
// Routers. A message inside a group moves within its chassis first (to
// the destination's position), then across chassis.
//
// Global links join the groups, wired in one of two ways:
//
//   - consecutive (the default): each router has Global global ports, and
//     the group's Chassis·Routers·Global ports (port q belongs to router
//     q/Global) are wired in the consecutive arrangement: port q of group
//     G leads to group (G + 1 + q mod (Groups−1)) mod Groups, arriving on
//     that group's port (Groups − 2 − q mod (Groups−1)) + (q − q mod
//     (Groups−1)). The ports must be a multiple of Groups−1 so that every
//     pair of groups is joined symmetrically; where several ports lead to
//     the same group the destination host picks one (dst mod their
//     number).
//   - simgrid (SimGridWiring): SimGrid's DragonflyZone wiring, one link
//     between each pair of groups, joining router h of group g to router
//     g of group h (router g of group g has none); Groups must not exceed
//     the routers of a group. SimGrid itself reaches router h through the
//     chassis at position h of chassis 0, so it needs Groups ≤ Routers.
//
// Host h is on router h/Hosts (numbered group by group). Minimal routing
// goes host → router → (local hops to the router owning the global port
// towards the destination group) → global link → (local hops to the
// destination router) → host. Valiant routing first routes minimally to
// a router of an intermediate group chosen by hashing (src, dst), then
// minimally to the destination, which spreads adversarial traffic over
// the global links at twice the path length.
type Dragonfly struct {
	Groups, Routers, Hosts, Global int
	Chassis                        int     // chassis per group (1: a classic dragonfly)
	BW, LocalBW, GlobalBW          float64 // bytes/ns of host, local and global links
	ChassisBW                      float64 // bytes/ns of the links between chassis
	HopNs                          int64
	Valiant                        bool
	SimGridWiring                  bool // global links wired as SimGrid's DragonflyZone does

	nodes, perGroup, ports int
	green, global, black   int // first id of each kind of link
}

// NewDragonfly returns a dragonfly of one chassis per group with the
// consecutive wiring; see Dragonfly. Parse builds the others.
func NewDragonfly(groups, routers, hosts, global int, bw, localBW, globalBW float64, hopNs int64, valiant bool) (*Dragonfly, error) {
	return newDragonfly(Dragonfly{Groups: groups, Routers: routers, Hosts: hosts, Global: global, Chassis: 1,
		BW: bw, LocalBW: localBW, GlobalBW: globalBW, ChassisBW: localBW, HopNs: hopNs, Valiant: valiant})
}

func newDragonfly(t Dragonfly) (*Dragonfly, error) {
	groups, routers, hosts, global := t.Groups, t.Routers, t.Hosts, t.Global
	if groups < 1 || routers < 1 || hosts < 1 || global < 0 || t.Chassis < 1 {
		return nil, fmt.Errorf("dragonfly: groups=%d routers=%d hosts=%d global=%d chassis=%d (want ≥ 1 each, global ≥ 0)", groups, routers, hosts, global, t.Chassis)
	}
	if groups > maxNodes || routers > maxNodes || hosts > maxNodes || t.Chassis > maxNodes || global > maxNodes {
		return nil, fmt.Errorf("dragonfly: too large")
	}
	t.perGroup = t.Chassis * routers
	if t.perGroup > maxNodes {
		return nil, fmt.Errorf("dragonfly: too large (%d routers per group)", t.perGroup)
	}
	if t.SimGridWiring {
		if global != 1 {
			return nil, fmt.Errorf("dragonfly: the simgrid wiring has one global link per pair of groups (global=%d, want 1)", global)
		}
		if groups > t.perGroup {
			return nil, fmt.Errorf("dragonfly: the simgrid wiring joins group g to group h at router h: %d groups need as many routers per group, have %d", groups, t.perGroup)
		}
		t.ports = groups
	} else {
		t.ports = t.perGroup * global
		if groups > 1 && (t.ports < groups-1 || t.ports%(groups-1) != 0) {
			return nil, fmt.Errorf("dragonfly: %d routers × %d global links per group does not join %d groups (want a multiple of groups−1 = %d)", t.perGroup, global, groups, groups-1)
		}
	}
	if !(t.BW > 0) || !(t.LocalBW > 0) || !(t.GlobalBW > 0) || !(t.ChassisBW > 0) || t.HopNs < 0 || t.HopNs > MaxHopNs {
		return nil, fmt.Errorf("dragonfly: bandwidths must be > 0 and 0 ≤ hop_ns ≤ 10^12")
	}
	if t.Valiant && groups < 3 {
		return nil, fmt.Errorf("dragonfly: Valiant routing needs at least 3 groups, have %d", groups)
	}
	n := groups * t.perGroup * hosts
	if n > maxNodes || groups*t.perGroup*routers > 4*maxNodes || groups*t.perGroup*t.Chassis > 4*maxNodes || groups*t.ports > 4*maxNodes {
		return nil, fmt.Errorf("dragonfly: too large (%d hosts)", n)
	}
	t.nodes = n
	t.green = 2 * n
	t.global = t.green + groups*t.perGroup*routers
	t.black = t.global + groups*t.ports
	return &t, nil
}

func parseDragonfly(p *params) (Topology, error) {
	var v [3]int
	for i, k := range []string{"groups", "routers", "hosts"} {
		n, err := p.int(k, -1, 1)
		if err != nil {
			return nil, err
		}
		v[i] = n
	}
	wiring := p.str("wiring", "consecutive")
	if wiring != "consecutive" && wiring != "simgrid" {
		return nil, fmt.Errorf("topology %q: wiring=%q (want consecutive or simgrid)", p.spec, wiring)
	}
	defGlobal := -1 // required
	if wiring == "simgrid" {
		defGlobal = 1
	}
	global, err := p.int("global", defGlobal, 1)
	if err != nil {
		return nil, err
	}
	chassis, err := p.int("chassis", 1, 1)
	if err != nil {
		return nil, err
	}
	bw, err := p.bandwidth("bw", DefaultBandwidth)
	if err != nil {
		return nil, err
	}
	lbw, err := p.bandwidth("local_bw", bw)
	if err != nil {
		return nil, err
	}
	gbw, err := p.bandwidth("global_bw", bw)
	if err != nil {
		return nil, err
	}
	cbw, err := p.bandwidth("chassis_bw", lbw)
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
	if err := p.done("groups, routers, hosts, global, chassis, wiring, bw, local_bw, global_bw, chassis_bw, hop_ns, routing"); err != nil {
		return nil, err
	}
	t, err := newDragonfly(Dragonfly{Groups: v[0], Routers: v[1], Hosts: v[2], Global: global, Chassis: chassis,
		BW: bw, LocalBW: lbw, GlobalBW: gbw, ChassisBW: cbw, HopNs: int64(hop),
		Valiant: routing == "valiant", SimGridWiring: wiring == "simgrid"})
	if err != nil {
		return nil, fmt.Errorf("topology %q: %w", p.spec, err)
	}
	return t, nil
}

// Nodes implements Topology.
func (t *Dragonfly) Nodes() int { return t.nodes }

// Link ids: host i's injection link is i, its ejection link nodes+i; the
// local link from position b to position b2 of chassis c of group G is
// 2·nodes + ((G·Chassis + c)·Routers + b)·Routers + b2; then the global
// links, ports per group (Chassis·Routers·Global with the consecutive
// wiring, Groups with SimGrid's, where port h leads to group h) at a
// time, port q of group G at G·ports + q; then, with several chassis, the
// link from chassis c to chassis c2 at position b of group G at
// ((G·Routers + b)·Chassis + c)·Chassis + c2.
func (t *Dragonfly) localID(group, c, b, b2 int) int32 {
	return int32(t.green + ((group*t.Chassis+c)*t.Routers+b)*t.Routers + b2)
}

func (t *Dragonfly) chassisID(group, b, c, c2 int) int32 {
	return int32(t.black + ((group*t.Routers+b)*t.Chassis+c)*t.Chassis + c2)
}

func (t *Dragonfly) globalID(group, q int) int32 {
	return int32(t.global + group*t.ports + q)
}

// NumLinks implements Topology.
func (t *Dragonfly) NumLinks() int {
	if t.Chassis == 1 {
		return t.black
	}
	return t.black + t.Groups*t.Routers*t.Chassis*t.Chassis
}

// Link implements Topology.
func (t *Dragonfly) Link(id int32) Link {
	switch i := int(id); {
	case i < t.green:
		return Link{Bandwidth: t.BW, Latency: t.HopNs}
	case i < t.global:
		return Link{Bandwidth: t.LocalBW, Latency: t.HopNs}
	case i < t.black:
		return Link{Bandwidth: t.GlobalBW, Latency: t.HopNs}
	}
	return Link{Bandwidth: t.ChassisBW, Latency: t.HopNs}
}

// local appends the links from router x to router y of group g (indices
// within the group): within x's chassis to y's position, then across
// chassis.
func (t *Dragonfly) local(buf []int32, g, x, y int) []int32 {
	cx, bx := x/t.Routers, x%t.Routers
	cy, by := y/t.Routers, y%t.Routers
	if bx != by {
		buf = append(buf, t.localID(g, cx, bx, by))
	}
	if cx != cy {
		buf = append(buf, t.chassisID(g, by, cx, cy))
	}
	return buf
}

// routers appends the links from global router a to global router b
// (router ids are group·Chassis·Routers + index in the group); pick
// chooses among parallel global ports.
func (t *Dragonfly) routers(buf []int32, a, b, pick int) []int32 {
	ga, ra := a/t.perGroup, a%t.perGroup
	gb, rb := b/t.perGroup, b%t.perGroup
	if ga == gb {
		return t.local(buf, ga, ra, rb)
	}
	var q, out, in int
	if t.SimGridWiring {
		q, out, in = gb, gb, ga
	} else {
		m := (gb - ga - 1 + t.Groups) % t.Groups // offset class of the ports towards gb
		par := t.ports / (t.Groups - 1)
		j := pick % par
		q = m + j*(t.Groups-1)
		qb := (t.Groups - 2 - m) + j*(t.Groups-1)
		out, in = q/t.Global, qb/t.Global
	}
	buf = t.local(buf, ga, ra, out)
	buf = append(buf, t.globalID(ga, q))
	return t.local(buf, gb, in, rb)
}

// Route implements Topology.
func (t *Dragonfly) Route(buf []int32, src, dst int) []int32 {
	if src == dst {
		return buf
	}
	a, b := src/t.Hosts, dst/t.Hosts
	buf = append(buf, int32(src))
	ga, gb := a/t.perGroup, b/t.perGroup
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
		mid := gi*t.perGroup + int(h>>32)%t.perGroup
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
	extra := ""
	if t.Chassis > 1 {
		extra += fmt.Sprintf(",chassis=%d,chassis_bw=%s", t.Chassis, fmtFloat(t.ChassisBW))
	}
	if t.SimGridWiring {
		extra += ",wiring=simgrid"
	}
	return fmt.Sprintf("dragonfly:groups=%d,routers=%d,hosts=%d,global=%d%s,bw=%s,local_bw=%s,global_bw=%s,hop_ns=%d,routing=%s",
		t.Groups, t.Routers, t.Hosts, t.Global, extra, fmtFloat(t.BW), fmtFloat(t.LocalBW), fmtFloat(t.GlobalBW), t.HopNs, r)
}
