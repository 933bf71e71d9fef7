package topo

import (
	"fmt"
	"strconv"
	"strings"
)

// XGFT is an extended generalized fat-tree (Öhring et al., IPPS'95), the
// form SimGrid's FAT_TREE cluster takes ("L;m1,…,mL;w1,…,wL;p1,…,pL"):
// L levels of switches above the hosts, where a level-l switch has
// Down[l−1] children, a node of level l−1 (a host for l = 1) has Up[l−1]
// parents, and Links[l−1] parallel links join a node to each of its
// parents. There are Down[0]·…·Down[L−1] hosts. A k-ary n-tree is
// Down = (k,…,k), Up = (1,k,…,k), Links = (1,…,1); fewer parents than
// children oversubscribe a level the way SimGrid does it, by removing
// switches rather than slowing links.
//
// A node of level l is labelled by L digits: digit j < l counts its
// parents' choices (0..Up[j]−1), digit j ≥ l its place below
// (0..Down[j]−1). Its position among the level's nodes reads the label as
// a mixed-radix number, digit 0 the least significant; a host's position
// is its number. A node and a node one level up are joined when their
// labels differ at most in digit l (the child's level): the child's
// digit l is its index among the parent's children, the parent's digit l
// its index among the child's parents.
//
// Routing is D-mod-k as SimGrid's FatTreeZone does it. A message climbs
// until it reaches a switch above the destination (the lowest level from
// which up the labels of both hosts agree); from a level-l node it takes
// parent port d = (dst / (Up[0]·…·Up[l−1])) mod (Up[l]·Links[l]): parent
// d mod Up[l], parallel link d / Up[l]. Going down, the switch's child
// ports are numbered c + j·Down (child c, parallel link j); the first
// step down, and any step that finds no port further on, takes the
// parallel link src mod Links; a later step takes the first port, on
// the next switch down, numbered above the previous step's port (so
// parallel links are picked by a counter carried down, as SimGrid's loop
// over the ports does). With one link per parent this is the single
// path down.
//
// Every link has bandwidth BW and latency HopNs.
type XGFT struct {
	Down, Up, Links []int
	BW              float64 // bytes/ns of every link
	HopNs           int64

	levels int
	nodes  []int // nodes per level 0..L
	ports  []int // Up[l]·Links[l]: a level-l node's parent ports
	base   []int // first link id between levels l and l+1
	total  int
}

// NewXGFT returns an extended generalized fat-tree; see XGFT.
func NewXGFT(down, up, links []int, bw float64, hopNs int64) (*XGFT, error) {
	L := len(down)
	if L < 1 || L > maxFatTreeLevels || len(up) != L || len(links) != L {
		return nil, fmt.Errorf("fat-tree: %d, %d and %d values for down, up and links (want as many, 1 to %d)", len(down), len(up), len(links), maxFatTreeLevels)
	}
	for l := range L {
		if down[l] < 1 || up[l] < 1 || links[l] < 1 || down[l] > maxNodes || up[l] > maxNodes || links[l] > maxNodes {
			return nil, fmt.Errorf("fat-tree: level %d: down=%d, up=%d, links=%d (want ≥ 1 each)", l+1, down[l], up[l], links[l])
		}
	}
	if !(bw > 0) || hopNs < 0 || hopNs > MaxHopNs {
		return nil, fmt.Errorf("fat-tree: bw=%g, hop_ns=%d (want bw > 0, 0 ≤ hop_ns ≤ 10^12)", bw, hopNs)
	}
	t := &XGFT{Down: append([]int(nil), down...), Up: append([]int(nil), up...), Links: append([]int(nil), links...),
		BW: bw, HopNs: hopNs, levels: L}
	t.nodes = make([]int, L+1)
	for l := 0; l <= L; l++ {
		n := 1
		for j := range L {
			r := down[j]
			if j < l {
				r = up[j]
			}
			if n *= r; n > maxNodes {
				return nil, fmt.Errorf("fat-tree: more than %d nodes at level %d", maxNodes, l)
			}
		}
		t.nodes[l] = n
	}
	t.ports = make([]int, L)
	t.base = make([]int, L)
	for l := range L {
		t.ports[l] = up[l] * links[l]
		t.base[l] = t.total
		if t.total += 2 * t.nodes[l] * t.ports[l]; t.total > 1<<30 {
			return nil, fmt.Errorf("fat-tree: more than 2^30 links")
		}
	}
	return t, nil
}

// parseList reads "AxBxC" as integers ≥ 1.
func parseList(p *params, key string) ([]int, error) {
	v, ok := p.kv[key]
	p.used[key] = true
	if !ok {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(v, "x") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("topology %q: %s=%q: %q is not a positive integer", p.spec, key, v, f)
		}
		out = append(out, n)
	}
	return out, nil
}

func parseXGFT(p *params) (Topology, error) {
	down, err := parseList(p, "down")
	if err != nil {
		return nil, err
	}
	up, err := parseList(p, "up")
	if err != nil {
		return nil, err
	}
	if up == nil {
		return nil, fmt.Errorf("topology %q: parameter up is required with down", p.spec)
	}
	links, err := parseList(p, "links")
	if err != nil {
		return nil, err
	}
	if links == nil {
		links = make([]int, len(down))
		for i := range links {
			links[i] = 1
		}
	}
	bw, hop, err := p.links()
	if err != nil {
		return nil, err
	}
	if err := p.done("down, up, links, bw, hop_ns"); err != nil {
		return nil, err
	}
	t, err := NewXGFT(down, up, links, bw, hop)
	if err != nil {
		return nil, fmt.Errorf("topology %q: %w", p.spec, err)
	}
	return t, nil
}

// Nodes implements Topology: Down[0]·…·Down[L−1] hosts.
func (t *XGFT) Nodes() int { return t.nodes[0] }

// Link ids: level by level from the hosts up, the up-links of the nodes
// of level l (node at position x, parent port d = parent + j·Up[l] for
// parallel link j: base(l) + x·Up[l]·Links[l] + d), then the matching
// down-links (the same plus nodes(l)·Up[l]·Links[l]). A host's single
// up-link is thus its number and its down-link hosts + its number when
// Up[0] = Links[0] = 1, as in FatTree.
func (t *XGFT) upID(l, x, d int) int32 { return int32(t.base[l] + x*t.ports[l] + d) }

func (t *XGFT) downID(l, x, d int) int32 {
	return int32(t.base[l] + (t.nodes[l]+x)*t.ports[l] + d)
}

// NumLinks implements Topology.
func (t *XGFT) NumLinks() int { return t.total }

// Link implements Topology.
func (t *XGFT) Link(id int32) Link { return Link{Bandwidth: t.BW, Latency: t.HopNs} }

// position returns the level-l position of the node labelled lab.
func (t *XGFT) position(l int, lab []int) int {
	x := 0
	for j := t.levels - 1; j >= 0; j-- {
		r := t.Down[j]
		if j < l {
			r = t.Up[j]
		}
		x = x*r + lab[j]
	}
	return x
}

// Route implements Topology.
func (t *XGFT) Route(buf []int32, src, dst int) []int32 {
	if src == dst {
		return buf
	}
	var lab, dl [maxFatTreeLevels]int
	for j, s, d := 0, src, dst; j < t.levels; j++ {
		lab[j], dl[j] = s%t.Down[j], d%t.Down[j]
		s, d = s/t.Down[j], d/t.Down[j]
	}
	top := t.levels
	for top > 0 && lab[top-1] == dl[top-1] {
		top--
	}
	// Up: from level l, parent port d.
	q := dst // dst / (Up[0]·…·Up[l−1])
	for l := range top {
		d := q % t.ports[l]
		buf = append(buf, t.upID(l, t.position(l, lab[:]), d))
		lab[l] = d % t.Up[l]
		q /= t.Up[l]
	}
	// Down: from level l+1 to level l through child port i.
	prev := -1 // the previous step's child port; -1: start afresh
	for l := top - 1; l >= 0; l-- {
		m := t.Down[l]
		i := -1
		if prev >= 0 {
			i = prev + 1 + ((dl[l]-prev-1)%m+m)%m // first port > prev for child dl[l]
			if i >= m*t.Links[l] {
				i = -1
			}
		}
		if i < 0 {
			i = (src%t.Links[l])*m + dl[l]
		}
		prev = i
		u := lab[l] // the parent's index among the child's parents
		lab[l] = dl[l]
		buf = append(buf, t.downID(l, t.position(l, lab[:]), u+(i/m)*t.Up[l]))
	}
	return buf
}

// String implements Topology.
func (t *XGFT) String() string {
	list := func(v []int) string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = strconv.Itoa(x)
		}
		return strings.Join(s, "x")
	}
	return fmt.Sprintf("fattree:down=%s,up=%s,links=%s,bw=%s,hop_ns=%d", list(t.Down), list(t.Up), list(t.Links), fmtFloat(t.BW), t.HopNs)
}
