package topo

import (
	"slices"
	"strings"
	"testing"
)

// checkRoutes checks every route of t: in range, no link twice, hops
// within [lo, hi], and empty from a node to itself.
func checkRoutes(t *testing.T, top Topology, hi int) {
	checkRoutesFrom(t, top, 2, hi)
}

func checkRoutesFrom(t *testing.T, top Topology, lo, hi int) {
	t.Helper()
	n := top.Nodes()
	var buf []int32
	for s := 0; s < n; s++ {
		for d := 0; d < n; d++ {
			buf = top.Route(buf[:0], s, d)
			if s == d {
				if len(buf) != 0 {
					t.Fatalf("%s: route %d→%d = %v, want none", top, s, d, buf)
				}
				continue
			}
			if len(buf) < lo || len(buf) > hi {
				t.Fatalf("%s: route %d→%d has %d links, want %d..%d", top, s, d, len(buf), lo, hi)
			}
			seen := map[int32]bool{}
			for _, l := range buf {
				if l < 0 || int(l) >= top.NumLinks() || seen[l] {
					t.Fatalf("%s: route %d→%d = %v: link %d out of range or repeated", top, s, d, buf, l)
				}
				seen[l] = true
			}
			if len(buf) > 1 && buf[len(buf)-1] == buf[0] {
				t.Fatalf("%s: route %d→%d starts and ends on one link", top, s, d)
			}
		}
	}
}

func TestFatTreeRoutes(t *testing.T) {
	for _, c := range []struct{ k, n int }{{2, 1}, {2, 3}, {4, 2}, {4, 3}, {3, 3}} {
		ft, err := NewFatTree(c.k, c.n, 1, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		checkRoutes(t, ft, 2*c.n)
		// Hops: 2 × the lowest level spanning both hosts.
		var buf []int32
		for s := 0; s < ft.Nodes(); s++ {
			for d := 0; d < ft.Nodes(); d++ {
				if s == d {
					continue
				}
				lvl := 1
				for s/ft.pow[lvl] != d/ft.pow[lvl] {
					lvl++
				}
				if buf = ft.Route(buf[:0], s, d); len(buf) != 2*lvl {
					t.Errorf("%s: %d→%d crosses %d links, want %d", ft, s, d, len(buf), 2*lvl)
				}
			}
		}
		// D-mod-k spreads every shift permutation: no link carries two
		// of its messages.
		for shift := 1; shift < ft.Nodes(); shift++ {
			load := map[int32]int{}
			for s := 0; s < ft.Nodes(); s++ {
				for _, l := range ft.Route(buf[:0], s, (s+shift)%ft.Nodes()) {
					load[l]++
					if load[l] > 1 {
						t.Fatalf("%s: shift %d puts two messages on link %d", ft, shift, l)
					}
				}
			}
		}
	}
}

// fatTreeWalk routes src→dst by walking the switches as FatTree's doc
// numbers them: climb from leaf (src/K, 0) through up-port j = digit l−1
// of dst to switch (s/K, p + j·K^(l−1)) until the switch spans dst, then
// descend through the down-links paired with the same ports.
func fatTreeWalk(ft *FatTree, src, dst int) []int32 {
	k, hosts := ft.K, ft.Nodes()
	pow := func(i int) int {
		r := 1
		for range i {
			r *= k
		}
		return r
	}
	route := []int32{int32(src)}
	l, s, p := 1, src/k, 0
	var ports []int
	for dst/pow(l) != s {
		j := dst / pow(l-1) % k
		route = append(route, int32(2*hosts+(l-1)*hosts+(s*pow(l-1)+p)*k+j))
		ports = append(ports, j)
		s, p, l = s/k, p+j*pow(l-1), l+1
	}
	for l--; l >= 1; l-- {
		j := ports[l-1]
		w := dst/pow(l)*pow(l-1) + p%pow(l-1)
		route = append(route, int32(2*hosts+(ft.N-1)*hosts+(l-1)*hosts+w*k+j))
	}
	return append(route, int32(hosts+dst))
}

// TestFatTreeRouteWalk checks Route's link ids, computed level by level
// from the hosts' quotients, against an explicit walk over the switches,
// for every pair of hosts, K a power of two or not; Route appends to buf.
func TestFatTreeRouteWalk(t *testing.T) {
	for _, c := range []struct{ k, n int }{{2, 1}, {2, 4}, {3, 3}, {4, 3}, {5, 3}, {6, 2}, {8, 3}} {
		ft, err := NewFatTree(c.k, c.n, 1, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		buf := []int32{-7}
		for s := range ft.Nodes() {
			for d := range ft.Nodes() {
				if s == d {
					continue
				}
				buf = ft.Route(buf[:1], s, d)
				if want := fatTreeWalk(ft, s, d); buf[0] != -7 || !slices.Equal(buf[1:], want) {
					t.Fatalf("%s: %d→%d: route %v, want [-7] + %v", ft, s, d, buf, want)
				}
			}
		}
	}
}

func TestTorusDimensionOrder(t *testing.T) {
	tor, err := NewTorus([]int{4, 4}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkRoutes(t, tor, 2+4)
	inj := func(i int) int32 { return int32(16*4 + i) }
	ej := func(i int) int32 { return int32(16*5 + i) }
	for _, c := range []struct {
		src, dst int
		want     []int32
	}{
		// (0,0) → (2,1): X first (+, +), then Y (+).
		{0, 6, []int32{inj(0), tor.NeighbourLink(0, 0, true), tor.NeighbourLink(1, 0, true), tor.NeighbourLink(2, 1, true), ej(6)}},
		// (0,0) → (3,0): one hop the short way round, in −X.
		{0, 3, []int32{inj(0), tor.NeighbourLink(0, 0, false), ej(3)}},
		// (1,3) → (1,0): wraps in +Y.
		{13, 1, []int32{inj(13), tor.NeighbourLink(13, 1, true), ej(1)}},
	} {
		if got := tor.Route(nil, c.src, c.dst); !slices.Equal(got, c.want) {
			t.Errorf("route %d→%d = %v, want %v", c.src, c.dst, got, c.want)
		}
	}
	t3, err := NewTorus([]int{3, 2, 4}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkRoutes(t, t3, 2+1+1+2)
	// Without NIC links a route is its router hops: 1..4 on a 4×4 torus.
	nn, err := Parse("torus:dims=4x4,nic=0")
	if err != nil {
		t.Fatal(err)
	}
	checkRoutesFrom(t, nn, 1, 4)
	// Ties: (0,2) → (0,0) goes + (via (0,3)) by default, − under
	// SimGrid's rule; (0,3) → (0,1) goes + under both.
	sg, _ := Parse("torus:dims=4x4,tie=simgrid")
	for _, c := range []struct {
		top      Topology
		src, dst int
		plus     bool
	}{{tor, 8, 0, true}, {sg, 8, 0, false}, {tor, 12, 4, true}, {sg, 12, 4, true}, {sg, 0, 8, true}} {
		r := c.top.Route(nil, c.src, c.dst)
		if want := tor.NeighbourLink(c.src, 1, c.plus); r[1] != want {
			t.Errorf("%s: %d→%d leaves on link %d, want %d", c.top, c.src, c.dst, r[1], want)
		}
	}
	if got := nn.Route(nil, 0, 6); !slices.Equal(got, []int32{tor.NeighbourLink(0, 0, true), tor.NeighbourLink(1, 0, true), tor.NeighbourLink(2, 1, true)}) {
		t.Errorf("nic=0: route 0→6 = %v", got)
	}
}

func TestDragonflyRoutes(t *testing.T) {
	for _, valiant := range []bool{false, true} {
		// 5 groups of 2 routers with 2 global links each: one link
		// between each pair of groups.
		d, err := NewDragonfly(5, 2, 2, 2, 1, 1, 1, 1, valiant)
		if err != nil {
			t.Fatal(err)
		}
		hi := 5 // host, local, global, local, host
		if valiant {
			hi = 8
		}
		checkRoutes(t, d, hi)
		// Every minimal inter-group route crosses exactly one global
		// link, the one from its group towards the destination group.
		if !valiant {
			globals := 2*d.nodes + d.Groups*d.Routers*d.Routers
			var buf []int32
			for s := 0; s < d.Nodes(); s++ {
				for t2 := 0; t2 < d.Nodes(); t2++ {
					gs, gd := s/4, t2/4
					n := 0
					for _, l := range d.Route(buf[:0], s, t2) {
						if int(l) >= globals {
							n++
							if g := (int(l) - globals) / (d.Routers * d.Global); g != gs {
								t.Fatalf("%d→%d leaves group %d on a global link of group %d", s, t2, gs, g)
							}
						}
					}
					if want := map[bool]int{true: 0, false: 1}[gs == gd]; n != want {
						t.Fatalf("%d→%d crosses %d global links, want %d", s, t2, n, want)
					}
				}
			}
		}
	}
}

func TestParse(t *testing.T) {
	for _, spec := range []string{
		"crossbar:nodes=8",
		"crossbar:nodes=16,bw=1.25,hop_ns=1000",
		"fattree:k=4,n=3,oversub=2,bw=12.5,hop_ns=100",
		"torus:dims=4x4x2,bw=10,hop_ns=50",
		"torus:dims=8,bw=10,hop_ns=50,nic=0",
		"torus:dims=4x4,bw=10,hop_ns=50,tie=simgrid",
		"dragonfly:groups=9,routers=4,hosts=2,global=2,bw=12.5,local_bw=25,global_bw=10,hop_ns=100,routing=valiant",
		"dragonfly:groups=4,routers=4,hosts=2,global=1,chassis=2,chassis_bw=3,wiring=simgrid,bw=1,local_bw=2,global_bw=1,hop_ns=5000,routing=minimal",
		"dragonfly:groups=5,routers=2,hosts=2,global=1,chassis=2,chassis_bw=12.5,bw=12.5,local_bw=12.5,global_bw=12.5,hop_ns=100,routing=minimal",
		"fattree:down=4x4x4,up=1x2x2,links=1x1x2,bw=1,hop_ns=5000",
	} {
		top, err := Parse(spec)
		if err != nil {
			t.Fatalf("Parse(%q): %v", spec, err)
		}
		if top.String() != spec {
			t.Errorf("Parse(%q).String() = %q", spec, top.String())
		}
	}
	for _, c := range []struct{ spec, want string }{
		{"mesh:n=2", "unknown kind"},
		{"fattree:n=3", "k is required"},
		{"fattree:k=4,n=3,oversub=0.5", "oversub"},
		{"fattree:k=4,n=3,bw=-1", "positive number"},
		{"fattree:k=4,n=3,radix=2", `unknown parameter "radix"`},
		{"fattree:k=4,k=3", "twice"},
		{"torus:dims=4xy", "not a positive integer"},
		{"torus:dims=2x2x2x2", "dimensions"},
		{"dragonfly:groups=9,routers=2,hosts=2,global=2", "multiple of groups−1"},
		{"dragonfly:groups=2,routers=1,hosts=1,global=1,routing=valiant", "at least 3 groups"},
		{"fattree:k=2,n=40", "hosts is more"},
		{"fattree:down=4x4,links=1x1", "up is required"},
		{"fattree:down=4x4,up=1", "as many"},
		{"fattree:down=4x0,up=1x1", "not a positive integer"},
		{"fattree:down=4x4,up=1x4,k=4", `unknown parameter "k"`},
		{"dragonfly:groups=5,routers=4,hosts=1,wiring=simgrid", "need as many routers"},
		{"dragonfly:groups=3,routers=4,hosts=1,global=2,wiring=simgrid", "global=2, want 1"},
		{"dragonfly:groups=3,routers=4,hosts=1,wiring=mesh", "consecutive or simgrid"},
		{"torus:dims=4,hop_ns=9000000000000000000", "hop_ns"},
		{"crossbar:nodes=8,hop_ns=100", "hop_ns needs bw"},
		{"crossbar:nodes=8,bw=0", "positive number"},
		{"crossbar:nodes=8,bw=1,hop_ns=9000000000000000000", "hop_ns"},
		{"crossbar:nodes=99999999,bw=1", "more than"},
	} {
		_, err := Parse(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", c.spec, err, c.want)
		}
	}
}

func TestMapping(t *testing.T) {
	b, _ := Block(6, 4) // 2 per node
	if !slices.Equal(b, []int32{0, 0, 1, 1, 2, 2}) {
		t.Errorf("Block(6, 4) = %v", b)
	}
	r, _ := RoundRobin(6, 4)
	if !slices.Equal(r, []int32{0, 1, 2, 3, 0, 1}) {
		t.Errorf("RoundRobin(6, 4) = %v", r)
	}
	m, err := ReadMapping(strings.NewReader("# map\n3\n\n1\n"), "m.txt", 2, 4)
	if err != nil || !slices.Equal(m, []int32{3, 1}) {
		t.Errorf("ReadMapping = %v, %v", m, err)
	}
	// A spreadsheet's byte-order mark made line 1 "not a node number".
	if m, err := ReadMapping(strings.NewReader("\ufeff3\n1\n"), "m.txt", 2, 4); err != nil || !slices.Equal(m, []int32{3, 1}) {
		t.Errorf("ReadMapping with a byte-order mark = %v, %v", m, err)
	}
	for _, c := range []struct{ in, want string }{
		// A gzip-compressed file was quoted back as binary bytes.
		{"\x1f\x8b\x08\x00binary", "m.txt: a gzip-compressed file, not text: unpack it first"},
		{"0\n4\n", "m.txt:2: \"4\" is not a node number"},
		{"0\n", "1 ranks mapped, want 2"},
		{"0\n1\n2\n", "m.txt:3: more than 2 ranks"},
	} {
		if _, err := ReadMapping(strings.NewReader(c.in), "m.txt", 2, 4); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadMapping(%q) = %v, want %q", c.in, err, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"crossbar:nodes=8", "crossbar:nodes=4,bw=2,hop_ns=7", "crossbar:bw=10Gb/s", "fattree:k=4,n=3,oversub=2", "torus:dims=4x4", "dragonfly:groups=5,routers=2,hosts=2,global=2,routing=valiant", "fattree:k=,n", "fattree:down=4x4,up=1x2,links=1x2", "dragonfly:groups=3,routers=3,hosts=1,chassis=2,wiring=simgrid"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		top, err := Parse(spec)
		if err != nil {
			return
		}
		if top.Nodes() > 4096 {
			return
		}
		again, err := Parse(top.String())
		if err != nil || again.String() != top.String() {
			t.Fatalf("round trip of %q: %v", spec, err)
		}
		if n := top.Nodes(); n > 1 && top.NumLinks() > 0 {
			top.Route(nil, 0, n-1)
		}
	})
}

// BenchmarkFatTreeRoute routes every pair of a 4-ary 5-tree's 1,024
// hosts (the all-to-all of BenchmarkReplayNetwork in bench/).
func BenchmarkFatTreeRoute(b *testing.B) {
	ft, err := NewFatTree(4, 5, 2, 1, 1)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]int32, 0, 16)
	b.ReportAllocs()
	for b.Loop() {
		for s := range ft.Nodes() {
			for d := range ft.Nodes() {
				buf = ft.Route(buf[:0], s, d)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(ft.Nodes()*ft.Nodes()), "ns/route")
}

// sameRoutes checks that a and b route every pair of hosts over the same
// links up to a renaming: one bijection between their link ids maps each
// of a's routes onto b's.
func sameRoutes(t *testing.T, a, b Topology) {
	t.Helper()
	if a.Nodes() != b.Nodes() {
		t.Fatalf("%s has %d hosts, %s %d", a, a.Nodes(), b, b.Nodes())
	}
	ab, ba := map[int32]int32{}, map[int32]int32{}
	var ra, rb []int32
	for s := range a.Nodes() {
		for d := range a.Nodes() {
			ra, rb = a.Route(ra[:0], s, d), b.Route(rb[:0], s, d)
			if len(ra) != len(rb) {
				t.Fatalf("%d→%d: %s routes %v, %s %v", s, d, a, ra, b, rb)
			}
			for i := range ra {
				x, ok1 := ab[ra[i]]
				y, ok2 := ba[rb[i]]
				if (ok1 && x != rb[i]) || (ok2 && y != ra[i]) {
					t.Fatalf("%d→%d: link %d of %s and link %d of %s are not the same link in every route", s, d, ra[i], a, rb[i], b)
				}
				ab[ra[i]], ba[rb[i]] = rb[i], ra[i]
			}
		}
	}
}

// TestXGFTKaryNTree: the XGFT (k,…,k; 1,k,…,k; 1,…,1) is the k-ary
// n-tree, and both route by D-mod-k, so FatTree and XGFT route every pair
// over the same links.
func TestXGFTKaryNTree(t *testing.T) {
	for _, c := range []struct{ k, n int }{{2, 1}, {2, 3}, {4, 2}, {4, 3}, {3, 3}} {
		ft, err := NewFatTree(c.k, c.n, 1, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		down, up, links := make([]int, c.n), make([]int, c.n), make([]int, c.n)
		for l := range c.n {
			down[l], up[l], links[l] = c.k, c.k, 1
		}
		up[0] = 1
		x, err := NewXGFT(down, up, links, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		checkRoutes(t, x, 2*c.n)
		sameRoutes(t, ft, x)
		if x.NumLinks() != ft.NumLinks() {
			t.Errorf("%s: %d links, the k-ary n-tree has %d", x, x.NumLinks(), ft.NumLinks())
		}
	}
}

// TestXGFTOversubscribed checks routes worked out by hand on XGFTs with
// fewer parents than children, and with parallel links.
func TestXGFTOversubscribed(t *testing.T) {
	// 16 hosts, 4 leaves with 2 parents each (2 spines of 4 children):
	// host links 0..15 up, 16..31 down; leaf x's up-link to spine d is
	// 32 + 2x + d, the matching down-link 40 + 2x + d.
	x, err := Parse("fattree:down=4x4,up=1x2,bw=1,hop_ns=1")
	if err != nil {
		t.Fatal(err)
	}
	checkRoutes(t, x, 4)
	for _, c := range []struct {
		src, dst int
		want     []int32
	}{
		{0, 5, []int32{0, 33, 43, 21}}, // spine 5 mod 2 = 1, leaf 1
		{0, 4, []int32{0, 32, 42, 20}},
		{7, 14, []int32{7, 32 + 2 + 0, 40 + 6 + 0, 30}},
		{1, 2, []int32{1, 18}}, // same leaf
	} {
		if got := x.Route(nil, c.src, c.dst); !slices.Equal(got, c.want) {
			t.Errorf("%s: route %d→%d = %v, want %v", x, c.src, c.dst, got, c.want)
		}
	}
	// A shift by 4 crosses the spines: each leaf's 4 messages take its
	// 2 up-links, 2 each, and each leaf's 2 down-links bring 2 each.
	load := map[int32]int{}
	for s := range 16 {
		for _, l := range x.Route(nil, s, (s+4)%16) {
			load[l]++
		}
	}
	for l, n := range load {
		if want := map[bool]int{true: 1, false: 2}[l < 32]; n != want {
			t.Errorf("%s: shift by 4 puts %d messages on link %d, want %d", x, n, l, want)
		}
	}
	// One spine reached by 2 parallel links from each leaf: up by
	// dst mod 2, down by src mod 2 (leaf x's link j: up 32 + 2x + j,
	// down 40 + 2x + j).
	p, err := Parse("fattree:down=4x4,up=1x1,links=1x2")
	if err != nil {
		t.Fatal(err)
	}
	checkRoutes(t, p, 4)
	for _, c := range []struct {
		src, dst int
		want     []int32
	}{
		{0, 5, []int32{0, 33, 42, 21}},
		{1, 4, []int32{1, 32, 43, 20}},
		{3, 13, []int32{3, 33, 40 + 6 + 1, 29}},
	} {
		if got := p.Route(nil, c.src, c.dst); !slices.Equal(got, c.want) {
			t.Errorf("%s: route %d→%d = %v, want %v", p, c.src, c.dst, got, c.want)
		}
	}
}

// TestDragonflySimGrid checks the chassis level and SimGrid's wiring on
// routes worked out by hand.
func TestDragonflySimGrid(t *testing.T) {
	// 3 groups of 2 chassis of 3 routers, 1 host each (18 hosts): group
	// g's link to group h leaves router h (chassis 0, position h) and
	// arrives on router g of group h.
	d, err := Parse("dragonfly:groups=3,routers=3,hosts=1,chassis=2,wiring=simgrid,bw=1")
	if err != nil {
		t.Fatal(err)
	}
	checkRoutes(t, d, 7) // host, 2 local, global, 2 local, host
	df := d.(*Dragonfly)
	inj := func(h int) int32 { return int32(h) }
	ej := func(h int) int32 { return int32(18 + h) }
	// Local links within a chassis: 36 + ((g·2 + c)·3 + b)·3 + b2
	// (36..89); global links 90 + 3g + h (90..98); chassis links
	// 99 + ((g·3 + b)·2 + c)·2 + c2.
	loc := func(g, c, b, b2 int) int32 { return int32(36 + ((g*2+c)*3+b)*3 + b2) }
	glob := func(g, h int) int32 { return int32(90 + 3*g + h) }
	cha := func(g, b, c, c2 int) int32 { return int32(99 + ((g*3+b)*2+c)*2 + c2) }
	for _, c := range []struct {
		src, dst int
		want     []int32
	}{
		// Host 4 (group 0, chassis 1, position 1) → host 17 (group 2,
		// chassis 1, position 2): to position 2, to chassis 0, global
		// link 0→2 arriving on router 0 of group 2, to position 2, to
		// chassis 1.
		{4, 17, []int32{inj(4), loc(0, 1, 1, 2), cha(0, 2, 1, 0), glob(0, 2), loc(2, 0, 0, 2), cha(2, 2, 0, 1), ej(17)}},
		// Host 1 (router 1 of group 0) owns the link to group 1, which
		// arrives on router 0 of group 1 (host 6).
		{1, 6, []int32{inj(1), glob(0, 1), ej(6)}},
		// Inside a group: position first, then chassis.
		{3, 2, []int32{inj(3), loc(0, 1, 0, 2), cha(0, 2, 1, 0), ej(2)}},
	} {
		if got := df.Route(nil, c.src, c.dst); !slices.Equal(got, c.want) {
			t.Errorf("%s: route %d→%d = %v, want %v", d, c.src, c.dst, got, c.want)
		}
	}
	if n := df.NumLinks(); n != 99+3*3*2*2 {
		t.Errorf("%s: %d links, want %d", d, n, 99+36)
	}
	// The classic dragonfly is unchanged by the new levels: one chassis,
	// consecutive wiring (TestDragonflyRoutes has its routes).
	c, _ := Parse("dragonfly:groups=5,routers=2,hosts=2,global=2,chassis=1")
	old, _ := NewDragonfly(5, 2, 2, 2, DefaultBandwidth, DefaultBandwidth, DefaultBandwidth, DefaultHopNs, false)
	sameRoutes(t, c, old)
}

// TestFatTreeHops checks that Hops counts Route's links for every pair of
// hosts, K a power of two or not.
func TestFatTreeHops(t *testing.T) {
	for _, spec := range []string{"fattree:k=4,n=3", "fattree:k=3,n=3", "fattree:k=2,n=5,oversub=2", "fattree:k=8,n=2"} {
		top, err := Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		h := top.(HopCounter)
		var buf []int32
		for s := range top.Nodes() {
			for d := range top.Nodes() {
				buf = top.Route(buf[:0], s, d)
				if got := h.Hops(s, d); got != len(buf) {
					t.Fatalf("%s: Hops(%d, %d) = %d, Route has %d links", spec, s, d, got, len(buf))
				}
			}
		}
	}
}

func TestCrossbarLinks(t *testing.T) {
	top, err := Parse("crossbar:nodes=5,bw=10Gb/s,hop_ns=1000")
	if err != nil {
		t.Fatal(err)
	}
	if top.NumLinks() != 10 {
		t.Fatalf("%s: %d links, want 10 (an up and a down link per node)", top, top.NumLinks())
	}
	checkRoutesFrom(t, top, 2, 2)
	h := top.(HopCounter)
	for s := range top.Nodes() {
		for d := range top.Nodes() {
			r := top.Route(nil, s, d)
			if h.Hops(s, d) != len(r) {
				t.Fatalf("Hops(%d, %d) = %d, Route has %d links", s, d, h.Hops(s, d), len(r))
			}
			if s != d && !slices.Equal(r, []int32{int32(s), int32(5 + d)}) {
				t.Errorf("route %d→%d = %v, want [%d %d]: the sender's up link, the receiver's down link", s, d, r, s, 5+d)
			}
		}
	}
	if l := top.Link(3); l.Bandwidth != 1.25 || l.Latency != 1000 {
		t.Errorf("link 3 = %+v, want 1.25 GB/s and 1000 ns", l)
	}
	plain, err := Parse("crossbar:nodes=5")
	if err != nil {
		t.Fatal(err)
	}
	if plain.NumLinks() != 0 || len(plain.Route(nil, 0, 1)) != 0 {
		t.Errorf("%s has links, want none", plain)
	}
	if c := (&Crossbar{Bandwidth: 1}).Sized(7); c.Nodes() != 7 || c.NumLinks() != 14 {
		t.Errorf("Sized(7) = %s with %d links, want 7 nodes and 14 links", c, c.NumLinks())
	}
}
