package lower

import (
	"fmt"
	"math/bits"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

var sizes = []int{1, 2, 3, 5, 8, 13, 16}

// collTrace returns a trace of n world ranks where the members (world
// ranks) of a communicator call one collective of kind k.
func collTrace(n int, members []int32, k mpi.Kind, root int32, bytes int64) *mpi.Trace {
	t := mpi.NewTrace(n)
	comm := mpi.World
	if members != nil {
		comm = t.AddComm("sub", members)
	} else {
		members = t.Comms[0].Members
	}
	p := len(members)
	for i, w := range members {
		e := mpi.Event{Kind: k, Comm: comm, Peer: root, Bytes: bytes, Region: mpi.NoRegion, ParamOff: -1}
		if k == mpi.Alltoallv {
			list := make([]int64, p)
			for j := range list {
				list[j] = int64((i*7+j*3)%5) * 100 // some zeros
			}
			t.AppendList(int(w), e, list)
			continue
		}
		t.Append(int(w), e)
	}
	return t
}

func countKind(g *graph.Graph, r int, k graph.OpKind) int {
	n := 0
	for id := g.RankStart[r]; id < g.RankStart[r+1]; id++ {
		if g.Kind[id] == k {
			n++
		}
	}
	return n
}

func ceilLog2(p int) int {
	if p <= 1 {
		return 0
	}
	return bits.Len(uint(p - 1))
}

func TestCollectives(t *testing.T) {
	type tc struct {
		kind mpi.Kind
		alg  Algorithm
		// sends returns the expected total sends over all ranks, or -1 to skip.
		sends func(p int) int
		// perRank returns the expected sends of rank i, or -1 to skip.
		perRank func(i, p int) int
	}
	any := func(int) int { return -1 }
	anyR := func(int, int) int { return -1 }
	cases := []tc{
		{mpi.Barrier, Dissemination, func(p int) int { return p * ceilLog2(p) }, func(i, p int) int { return ceilLog2(p) }},
		{mpi.Bcast, Binomial, func(p int) int { return p - 1 }, anyR},
		{mpi.Reduce, Binomial, func(p int) int { return p - 1 }, func(i, p int) int { // root is p/2
			if i == p/2 {
				return 0
			}
			return 1
		}},
		{mpi.Allreduce, Ring, func(p int) int { return 2 * p * (p - 1) }, func(i, p int) int { return 2 * (p - 1) }},
		{mpi.Allreduce, RecursiveDoubling, any, func(i, p int) int {
			if p&(p-1) == 0 {
				return ceilLog2(p)
			}
			return -1
		}},
		{mpi.Allreduce, ReduceBcast, func(p int) int { return 2 * (p - 1) }, anyR},
		{mpi.Allgather, Ring, func(p int) int { return p * (p - 1) }, func(i, p int) int { return p - 1 }},
		{mpi.Alltoall, Linear, func(p int) int { return p * (p - 1) }, func(i, p int) int { return p - 1 }},
		{mpi.Alltoall, Pairwise, func(p int) int { return p * (p - 1) }, func(i, p int) int { return p - 1 }},
		{mpi.Alltoallv, Linear, any, anyR},
		{mpi.Alltoallv, Pairwise, any, anyR},
		{mpi.Gather, Linear, func(p int) int { return p - 1 }, anyR},
		{mpi.Scatter, Linear, func(p int) int { return p - 1 }, anyR},
		{mpi.ReduceScatter, Ring, func(p int) int { return p * (p - 1) }, func(i, p int) int { return p - 1 }},
		{mpi.ReduceScatter, Pairwise, func(p int) int { return p * (p - 1) }, func(i, p int) int { return p - 1 }},
		{mpi.Scan, Linear, func(p int) int { return p - 1 }, func(i, p int) int { return min(p-1-i, 1) }},
		{mpi.Scan, RecursiveDoubling, any, anyR},
	}
	for _, c := range cases {
		for _, p := range sizes {
			for _, sub := range []bool{false, true} {
				name := fmt.Sprintf("%s/%s/p=%d/sub=%v", c.kind, c.alg, p, sub)
				t.Run(name, func(t *testing.T) {
					n := p
					var members []int32
					if sub { // members are every other world rank, reversed, of a larger world
						n = 2*p + 1
						for i := 0; i < p; i++ {
							members = append(members, int32(2*(p-1-i)+1))
						}
					}
					root := int32(0)
					if c.kind.IsRooted() {
						root = int32(p / 2)
					}
					tr := collTrace(n, members, c.kind, root, 1000)
					g, err := Lower(tr, Options{Algorithms: map[mpi.Kind]Algorithm{c.kind: c.alg}, ReduceNsPerByte: 0.5})
					if err != nil {
						t.Fatal(err)
					}
					if err := matchAndRun(g); err != nil {
						t.Fatal(err)
					}
					total := 0
					isMember := map[int]int{}
					for i, w := range members {
						isMember[int(w)] = i
					}
					for r := 0; r < n; r++ {
						s := countKind(g, r, graph.Send)
						total += s
						i := r
						if sub {
							var ok bool
							if i, ok = isMember[r]; !ok {
								if g.RankStart[r+1] != g.RankStart[r] {
									t.Fatalf("non-member rank %d has %d ops", r, g.RankStart[r+1]-g.RankStart[r])
								}
								continue
							}
						}
						if want := c.perRank(i, p); want >= 0 && s != want {
							t.Errorf("rank %d (member %d) sends %d messages, want %d", r, i, s, want)
						}
						for id := g.RankStart[r]; id < g.RankStart[r+1]; id++ {
							if g.Kind[id] != graph.Calc && g.Tag[id] < CollTagBase {
								t.Errorf("%s: tag below the collective base", g.Describe(id))
							}
						}
					}
					if want := c.sends(p); want >= 0 && total != want {
						t.Errorf("%d messages in all, want %d", total, want)
					}
				})
			}
		}
	}
}

// A 2-rank isend/irecv/waitall trace, checked op by op and edge by edge.
func TestNonblockingHandChecked(t *testing.T) {
	tr := mpi.NewTrace(2)
	for r := 0; r < 2; r++ {
		tr.AppendCompute(r, "pre", 100)
		tr.Append(r, mpi.Event{Kind: mpi.Irecv, Peer: int32(1 - r), Tag: 5, Bytes: 64, Req: 1})
		tr.Append(r, mpi.Event{Kind: mpi.Isend, Peer: int32(1 - r), Tag: 5, Bytes: 64, Req: 2})
		tr.AppendList(r, mpi.Event{Kind: mpi.Waitall}, []int64{1, 2})
		tr.AppendCompute(r, "post", 50)
	}
	g, err := Lower(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := matchAndRun(g); err != nil {
		t.Fatal(err)
	}
	// Per rank: l1 calc 100 (pre); l2 recv 64 from peer tag 5 requires l1;
	// l3 send 64 to peer tag 5 requires l1, irequires l2;
	// l4 calc 50 (post) requires l1, l2, l3.
	var got []string
	for r := 0; r < 2; r++ {
		for id := g.RankStart[r]; id < g.RankStart[r+1]; id++ {
			s := g.Describe(id)
			if reg := g.RegionName(id); reg != "" {
				s += " [" + reg + "]"
			}
			deps, kinds := g.Deps(id)
			for j, d := range deps {
				s += fmt.Sprintf(" %s l%d", kinds[j], d-g.RankStart[r]+1)
			}
			got = append(got, s)
		}
	}
	want := []string{
		"rank 0 l1: calc 100 [pre]",
		"rank 0 l2: recv 64b from 1 tag 5 requires l1",
		"rank 0 l3: send 64b to 1 tag 5 requires l1 irequires l2",
		"rank 0 l4: calc 50 [post] requires l1 requires l2 requires l3",
		"rank 1 l1: calc 100 [pre]",
		"rank 1 l2: recv 64b from 0 tag 5 requires l1",
		"rank 1 l3: send 64b to 0 tag 5 requires l1 irequires l2",
		"rank 1 l4: calc 50 [post] requires l1 requires l2 requires l3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestBlockingChain(t *testing.T) {
	tr := mpi.NewTrace(2)
	tr.Append(0, mpi.Event{Kind: mpi.Send, Peer: 1, Tag: 0, Bytes: 8})
	tr.Append(0, mpi.Event{Kind: mpi.Recv, Peer: 1, Tag: 1, Bytes: 8})
	tr.Append(1, mpi.Event{Kind: mpi.Recv, Peer: 0, Tag: 0, Bytes: 8})
	tr.Append(1, mpi.Event{Kind: mpi.Send, Peer: 0, Tag: 1, Bytes: 8})
	g, err := Lower(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.NumOps() != 4 || g.NumDeps() != 2 {
		t.Fatalf("%d ops %d deps, want 4 and 2", g.NumOps(), g.NumDeps())
	}
	for _, id := range []int32{1, 3} {
		deps, kinds := g.Deps(id)
		if len(deps) != 1 || deps[0] != id-1 || kinds[0] != graph.Requires {
			t.Errorf("%s: deps %v %v, want requires previous", g.Describe(id), deps, kinds)
		}
	}
	if err := matchAndRun(g); err != nil {
		t.Fatal(err)
	}
}

// Collectives on two overlapping communicators, called in different orders
// by the ranks they share, must not mix.
func TestConcurrentCommunicators(t *testing.T) {
	tr := mpi.NewTrace(4)
	a := tr.AddComm("a", []int32{0, 1, 2})
	b := tr.AddComm("b", []int32{3, 2, 1})
	ev := func(c int32) mpi.Event { return mpi.Event{Kind: mpi.Allreduce, Comm: c, Bytes: 64} }
	tr.Append(0, ev(a))
	tr.Append(1, ev(a))
	tr.Append(1, ev(b))
	tr.Append(2, ev(a))
	tr.Append(2, ev(b))
	tr.Append(3, ev(b))
	for _, alg := range Supported(mpi.Allreduce) {
		g, err := Lower(tr, Options{Algorithms: map[mpi.Kind]Algorithm{mpi.Allreduce: alg}})
		if err != nil {
			t.Fatal(err)
		}
		if err := matchAndRun(g); err != nil {
			t.Errorf("%s: %v", alg, err)
		}
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		name string
		mk   func() *mpi.Trace
		want string
	}{
		{"wait unknown", func() *mpi.Trace {
			tr := mpi.NewTrace(1)
			tr.Append(0, mpi.Event{Kind: mpi.Wait, Req: 9})
			return tr
		}, "rank 0 event 0 (wait): wait on unknown request 9"},
		{"unwaited", func() *mpi.Trace {
			tr := mpi.NewTrace(2)
			tr.Append(0, mpi.Event{Kind: mpi.Isend, Peer: 1, Req: 3})
			return tr
		}, "rank 0: 1 request(s) never waited for (e.g. request 3)"},
		{"dup req", func() *mpi.Trace {
			tr := mpi.NewTrace(2)
			tr.Append(1, mpi.Event{Kind: mpi.Isend, Peer: 0, Req: 3})
			tr.Append(1, mpi.Event{Kind: mpi.Irecv, Peer: 0, Req: 3})
			return tr
		}, "rank 1 event 1 (irecv): request id 3 is already in flight"},
		{"bad peer", func() *mpi.Trace {
			tr := mpi.NewTrace(2)
			tr.Append(1, mpi.Event{Kind: mpi.Send, Peer: 2})
			return tr
		}, "rank 1 event 0 (send): peer 2 not in communicator 0 of size 2"},
		{"reserved tag", func() *mpi.Trace {
			tr := mpi.NewTrace(2)
			tr.Append(0, mpi.Event{Kind: mpi.Send, Peer: 1, Tag: CollTagBase})
			return tr
		}, "tag 1073741824 outside"},
		{"coll mismatch", func() *mpi.Trace {
			tr := mpi.NewTrace(2)
			tr.Append(0, mpi.Event{Kind: mpi.Barrier})
			tr.Append(1, mpi.Event{Kind: mpi.Allreduce})
			return tr
		}, "rank 1 event 0: allreduce is collective call 0 on communicator 0, but rank 0 event 0 calls barrier"},
		{"coll count", func() *mpi.Trace {
			tr := mpi.NewTrace(2)
			tr.Append(0, mpi.Event{Kind: mpi.Barrier})
			return tr
		}, "rank 1 calls 0 collectives, rank 0 calls 1"},
		{"not member", func() *mpi.Trace {
			tr := mpi.NewTrace(3)
			c := tr.AddComm("x", []int32{0, 1})
			tr.Append(2, mpi.Event{Kind: mpi.Barrier, Comm: c})
			return tr
		}, "rank 2 event 0: barrier on communicator 1, which rank 2 is not a member of"},
		{"root", func() *mpi.Trace {
			tr := mpi.NewTrace(2)
			tr.Append(0, mpi.Event{Kind: mpi.Bcast, Peer: 2})
			return tr
		}, "rank 0 event 0: bcast root 2 not in communicator 0 of size 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Lower(c.mk(), Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestParseAlgorithms(t *testing.T) {
	m, err := ParseAlgorithms("allreduce=ring, bcast=binomial,alltoallv=pairwise")
	if err != nil {
		t.Fatal(err)
	}
	if m[mpi.Allreduce] != Ring || m[mpi.Bcast] != Binomial || m[mpi.Alltoallv] != Pairwise || len(m) != 3 {
		t.Errorf("got %v", m)
	}
	for _, bad := range []string{"allreduce", "allreduce=foo", "send=ring", "bcast=binomial,bcast=binomial", "nope=ring"} {
		if _, err := ParseAlgorithms(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := Lower(mpi.NewTrace(1), Options{Algorithms: map[mpi.Kind]Algorithm{mpi.Barrier: Ring}}); err == nil {
		t.Error("unsupported algorithm accepted")
	}
}

func TestDeterministic(t *testing.T) {
	tr := collTrace(13, nil, mpi.Alltoallv, 0, 0)
	g1, err := Lower(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g2, _ := Lower(tr, Options{})
	if fmt.Sprint(*g1) != fmt.Sprint(*g2) {
		t.Error("two lowerings differ")
	}
}

// Every collective kind in sequence, interleaved with point-to-point
// traffic, on 5 ranks: all messages match and nothing deadlocks.
func TestSequence(t *testing.T) {
	const p = 5
	tr := mpi.NewTrace(p)
	for r := 0; r < p; r++ {
		for _, k := range mpi.Kinds() {
			if !k.IsCollective() {
				continue
			}
			e := mpi.Event{Kind: k, Bytes: 100, Peer: 1}
			if k == mpi.Alltoallv {
				tr.AppendList(r, e, []int64{1, 2, 3, 4, 5})
			} else {
				tr.Append(r, e)
			}
			tr.Append(r, mpi.Event{Kind: mpi.Isend, Peer: int32((r + 1) % p), Bytes: 10, Req: 1})
			tr.Append(r, mpi.Event{Kind: mpi.Recv, Peer: int32((r + p - 1) % p), Bytes: 10})
			tr.Append(r, mpi.Event{Kind: mpi.Wait, Req: 1})
		}
	}
	g, err := Lower(tr, Options{ReduceNsPerByte: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := matchAndRun(g); err != nil {
		t.Fatal(err)
	}
}

func ExampleLower() {
	tr := mpi.NewTrace(4)
	for r := 0; r < 4; r++ {
		tr.AppendCompute(r, "solve", 1000)
		tr.Append(r, mpi.Event{Kind: mpi.Allreduce, Bytes: 4096})
	}
	algs, _ := ParseAlgorithms("allreduce=ring")
	g, err := Lower(tr, Options{Algorithms: algs})
	if err != nil {
		panic(err)
	}
	fmt.Println(g.NumRanks(), "ranks,", g.NumOps(), "ops,", g.Regions)
	fmt.Println(g.Describe(1))
	// Output:
	// 4 ranks, 52 ops, [solve]
	// rank 0 l2: send 1024b to 1 tag 1073741824
}
