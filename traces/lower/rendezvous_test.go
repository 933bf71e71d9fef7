package lower

// These tests execute every lowered collective with synchronous
// (rendezvous) messages, so a dependency structure that only works with
// eager sends, or a send without its receive, fails.

import (
	"fmt"
	"github.com/capsim/capsim/internal/graphcheck"
	"math/bits"
	"testing"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// Algorithm names used by the tests below.
const (
	Binomial          = "binomial"
	Dissemination     = "dissemination"
	RecursiveDoubling = "recdoub"
	Ring              = "ring"
	ReduceBcast       = "reduce-bcast"
	Linear            = "linear"
	Pairwise          = "pairwise"
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

// neighborSteps is the neighbour exchange's step count: p/2 for even p,
// the ring's p−1 for odd.
func neighborSteps(p int) int {
	if p%2 == 0 {
		return p / 2
	}
	return p - 1
}

func ceilLog2(p int) int {
	if p <= 1 {
		return 0
	}
	return bits.Len(uint(p - 1))
}

func TestCollectivesRendezvous(t *testing.T) {
	type tc struct {
		kind mpi.Kind
		alg  string
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
		{mpi.Barrier, Linear, any, anyR},
		{mpi.Bcast, Linear, func(p int) int { return p - 1 }, anyR},
		{mpi.Reduce, Linear, func(p int) int { return p - 1 }, anyR},
		{mpi.Allgather, Linear, func(p int) int { return p * (p - 1) }, func(i, p int) int { return p - 1 }},
		{mpi.Gather, Binomial, func(p int) int { return p - 1 }, anyR},
		{mpi.Scatter, Binomial, func(p int) int { return p - 1 }, anyR},
		{mpi.ReduceScatter, "reduce-scatter", func(p int) int { return 2 * (p - 1) }, anyR},
		{mpi.Barrier, "schedgen", func(p int) int { return p * ceilLog2(p) }, func(i, p int) int { return ceilLog2(p) }},
		{mpi.Allreduce, "schedgen", func(p int) int { return p * ceilLog2(p) }, func(i, p int) int { return ceilLog2(p) }},
		{mpi.Allgather, "schedgen", func(p int) int { return p * ceilLog2(p) }, func(i, p int) int { return ceilLog2(p) }},
		{mpi.Bcast, "schedgen", func(p int) int { return p - 1 }, anyR},
		{mpi.Reduce, "schedgen", func(p int) int { return p - 1 }, func(i, p int) int { // root is p/2
			if i == p/2 {
				return 0
			}
			return 1
		}},
		{mpi.Alltoall, "schedgen", func(p int) int { return p * (p - 1) }, func(i, p int) int { return p - 1 }},
	}
	pow2Only := func(f func(p int) int) func(i, p int) int {
		return func(i, p int) int {
			if p&(p-1) == 0 {
				return f(p)
			}
			return -1
		}
	}
	logSteps := func(p int) int { return ceilLog2(p) }
	cases = append(cases,
		tc{mpi.Bcast, "scatter-rdb-allgather", any, anyR},
		tc{mpi.Bcast, "scatter-ring-allgather", any, anyR},
		tc{mpi.Bcast, "pipeline", func(p int) int { return p - 1 }, anyR}, // 1000 bytes: one segment
		tc{mpi.Allreduce, "rabenseifner", any, pow2Only(func(p int) int { return 2 * ceilLog2(p) })},
		tc{mpi.Allgather, "bruck", func(p int) int { return p * ceilLog2(p) }, func(i, p int) int { return ceilLog2(p) }},
		tc{mpi.Allgather, "neighbor", func(p int) int { return p * neighborSteps(p) }, func(i, p int) int { return neighborSteps(p) }},
		tc{mpi.Allgather, "shift", func(p int) int { return p * (p - 1) }, func(i, p int) int { return p - 1 }},
		tc{mpi.Allgather, RecursiveDoubling, func(p int) int { return p * ceilLog2(p) }, func(i, p int) int { return ceilLog2(p) }},
		tc{mpi.Alltoall, "pairwise-xor", func(p int) int { return p * (p - 1) }, func(i, p int) int { return p - 1 }},
		tc{mpi.Alltoallv, "pairwise-xor", any, anyR},
		tc{mpi.Alltoall, "bruck", func(p int) int { return p * ceilLog2(p) }, func(i, p int) int { return ceilLog2(p) }},
		tc{mpi.ReduceScatter, "rechalving", any, pow2Only(logSteps)},
		tc{mpi.Allreduce, ncclRing, func(p int) int { return 2 * p * (p - 1) }, func(i, p int) int { return 2 * (p - 1) }},
		tc{mpi.Allreduce, ncclTree, func(p int) int { return 4 * (p - 1) }, anyR}, // two trees, up and down
		tc{mpi.Allgather, ncclRing, func(p int) int { return p * (p - 1) }, func(i, p int) int { return p - 1 }},
		tc{mpi.ReduceScatter, ncclRing, func(p int) int { return p * (p - 1) }, func(i, p int) int { return p - 1 }},
		tc{mpi.Bcast, ncclRing, func(p int) int { return p - 1 }, anyR}, // 1000 bytes: one chunk
		tc{mpi.Reduce, ncclRing, func(p int) int { return p - 1 }, func(i, p int) int { // root is p/2
			if i == p/2 {
				return 0
			}
			return 1
		}},
		tc{mpi.Alltoall, ncclP2P, func(p int) int { return p * (p - 1) }, func(i, p int) int { return p - 1 }},
		tc{mpi.Alltoallv, ncclP2P, any, anyR},
	)
	for _, k := range mpi.Kinds() {
		if k.IsCollective() {
			cases = append(cases, tc{k, SelectOpenMPI, any, anyR}, tc{k, SelectMPICH, any, anyR}, tc{k, SelectNCCL, any, anyR})
		}
	}
	for _, k := range mpi.Kinds() { // every algorithm of every kind is covered
		for _, alg := range Algorithms(k) {
			found := false
			for _, c := range cases {
				found = found || (c.kind == k && c.alg == alg)
			}
			if !found {
				t.Errorf("no rendezvous test for %s/%s", k, alg)
			}
		}
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
					g, err := Lower(tr, Options{Algorithm: map[mpi.Kind]string{c.kind: c.alg}, ReduceNsPerByte: 0.5})
					if err != nil {
						t.Fatal(err)
					}
					if err := graphcheck.MatchAndRun(g); err != nil {
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
							if g.Kind[id] != graph.Calc && g.Tag[id] < CollectiveTagBase {
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

// Every collective kind in sequence, interleaved with point-to-point
// traffic, on 5 ranks: all messages match and nothing deadlocks.
func TestSequenceRendezvous(t *testing.T) {
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
	if err := graphcheck.MatchAndRun(g); err != nil {
		t.Fatal(err)
	}
}

// Collectives on two overlapping communicators, called in different orders
// by the ranks they share, must not mix.
func TestConcurrentRendezvousCommunicators(t *testing.T) {
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
	for _, alg := range Algorithms(mpi.Allreduce) {
		g, err := Lower(tr, Options{Algorithm: map[mpi.Kind]string{mpi.Allreduce: alg}})
		if err != nil {
			t.Fatal(err)
		}
		if err := graphcheck.MatchAndRun(g); err != nil {
			t.Errorf("%s: %v", alg, err)
		}
	}
}
