package topo

import "fmt"

// FatTree is a k-ary n-tree: K^N hosts under N levels of K^(N-1) switches
// of 2K ports. Hosts and switches are numbered as by Petrini and
// Vanneschi: host h hangs off leaf switch h/K, and the level-l switch
// (l = 1..N) with subtree index s (the top N−l base-K digits of the hosts
// below it) and path index p (l−1 digits) has up-port j leading to the
// level-(l+1) switch (s/K, p + j·K^(l−1)).
//
// Routing is D-mod-k: a message climbs to the lowest level whose switches
// span both hosts, taking at level l the up-port given by the (l−1)-th
// base-K digit of the destination, then descends the unique path down.
// Every destination thus owns one top-level path, which spreads a
// permutation's messages evenly over the up-links.
//
// Host links (host→leaf and leaf→host) have bandwidth BW; switch-to-switch
// links have BW/Oversub, so Oversub = s makes every level's up-links s
// times slower than the hosts below can inject. Every link has latency
// HopNs.
type FatTree struct {
	K, N    int
	Oversub float64
	BW      float64 // bytes/ns of host links
	HopNs   int64

	hosts int
	pow   []int // pow[i] = K^i
	shift uint  // log2 K when K is a power of two, else 0
}

// maxFatTreeLevels bounds N: K ≥ 2 and K^N ≤ maxNodes.
const maxFatTreeLevels = 23

// NewFatTree returns a k-ary n-tree; see FatTree.
func NewFatTree(k, n int, oversub, bw float64, hopNs int64) (*FatTree, error) {
	if k < 2 || n < 1 {
		return nil, fmt.Errorf("fat-tree: k=%d, n=%d (want k ≥ 2, n ≥ 1)", k, n)
	}
	if !(oversub >= 1) || !(bw > 0) || hopNs < 0 || hopNs > MaxHopNs {
		return nil, fmt.Errorf("fat-tree: oversub=%g, bw=%g, hop_ns=%d (want oversub ≥ 1, bw > 0, 0 ≤ hop_ns ≤ 10^12)", oversub, bw, hopNs)
	}
	t := &FatTree{K: k, N: n, Oversub: oversub, BW: bw, HopNs: hopNs}
	t.pow = make([]int, n+1)
	t.pow[0] = 1
	for i := 1; i <= n; i++ {
		t.pow[i] = t.pow[i-1] * k
		if t.pow[i] > maxNodes {
			return nil, fmt.Errorf("fat-tree: %d^%d hosts is more than %d", k, n, maxNodes)
		}
	}
	t.hosts = t.pow[n]
	if k&(k-1) == 0 {
		for 1<<t.shift < k {
			t.shift++
		}
	}
	return t, nil
}

func parseFatTree(p *params) (Topology, error) {
	if _, ok := p.kv["down"]; ok {
		return parseXGFT(p)
	}
	k, err := p.int("k", -1, 2)
	if err != nil {
		return nil, err
	}
	n, err := p.int("n", -1, 1)
	if err != nil {
		return nil, err
	}
	s, err := p.float("oversub", 1)
	if err != nil {
		return nil, err
	}
	bw, hop, err := p.links()
	if err != nil {
		return nil, err
	}
	if err := p.done("k, n, oversub, bw, hop_ns"); err != nil {
		return nil, err
	}
	t, err := NewFatTree(k, n, s, bw, hop)
	if err != nil {
		return nil, fmt.Errorf("topology %q: %w", p.spec, err)
	}
	return t, nil
}

// Nodes implements Topology: K^N hosts.
func (t *FatTree) Nodes() int { return t.hosts }

// Link ids: host h's up-link is h, its down-link hosts+h; then, per level
// l = 1..N−1, the up-links of the level-l switches (switch w, port j:
// upBase(l) + w·K + j) and the matching down-links (the same offset plus
// hosts·(N−1)). A level-l switch's index w is s·K^(l−1) + p.
func (t *FatTree) upBase(l int) int { return 2*t.hosts + (l-1)*t.hosts }

// NumLinks implements Topology: 2·K^N host links and 2·(N−1)·K^N switch
// links.
func (t *FatTree) NumLinks() int { return 2*t.hosts + 2*(t.N-1)*t.hosts }

// Link implements Topology.
func (t *FatTree) Link(id int32) Link {
	if int(id) < 2*t.hosts {
		return Link{Bandwidth: t.BW, Latency: t.HopNs}
	}
	return Link{Bandwidth: t.BW / t.Oversub, Latency: t.HopNs}
}

// Route implements Topology with D-mod-k routing.
//
// With q_l = ⌊x/K^l⌋ the level-l quotients of src and dst and
// m_l = dst mod K^l, the level-l up-link climbed is that of switch
// w = q_l(src)·K^(l−1) + m_(l−1), port j = digit l−1 of dst, and the
// down-link descended is that of switch q_l(dst)·K^(l−1) + m_(l−1), same
// port. One pass over the levels computes both from two divisions per
// level (shifts when K is a power of two).
func (t *FatTree) Route(buf []int32, src, dst int) []int32 {
	if src == dst {
		return buf
	}
	k := t.K
	buf = append(buf, int32(src))
	// The down-links, level 1 first, kept until the top level is known.
	var down [maxFatTreeLevels]int32
	nd := 0
	qs, qd, mod := src, dst, 0
	for l := 1; ; l++ {
		pq := qd // dst / K^(l−1)
		if t.shift > 0 {
			qs >>= t.shift
			qd >>= t.shift
		} else {
			qs /= k
			qd /= k
		}
		if qs == qd {
			break // level l spans both hosts
		}
		j := pq - qd*k // digit l−1 of dst
		pl := t.pow[l-1]
		up := t.upBase(l)
		buf = append(buf, int32(up+(qs*pl+mod)*k+j))
		down[nd] = int32(up + (t.N-1)*t.hosts + (qd*pl+mod)*k + j)
		nd++
		mod += j * pl
	}
	for i := nd - 1; i >= 0; i-- {
		buf = append(buf, down[i])
	}
	return append(buf, int32(t.hosts+dst))
}

// Hops implements HopCounter: up to the first level that spans both
// hosts and down again.
func (t *FatTree) Hops(src, dst int) int {
	if src == dst {
		return 0
	}
	n := 2
	for qs, qd := src, dst; ; n += 2 {
		if t.shift > 0 {
			qs >>= t.shift
			qd >>= t.shift
		} else {
			qs /= t.K
			qd /= t.K
		}
		if qs == qd {
			return n
		}
	}
}

// String implements Topology.
func (t *FatTree) String() string {
	return fmt.Sprintf("fattree:k=%d,n=%d,oversub=%s,bw=%s,hop_ns=%d", t.K, t.N, fmtFloat(t.Oversub), fmtFloat(t.BW), t.HopNs)
}
