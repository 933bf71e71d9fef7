package lower_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// collTrace is a trace in which every member of comm calls one collective
// (alltoallv: rank i sends i+j+1 bytes to member j).
func collTrace(n int, members []int32, kind mpi.Kind, bytes int64, root int32) *mpi.Trace {
	t := mpi.NewTrace(n)
	comm := mpi.World
	if members != nil {
		comm = t.AddComm("sub", members)
	} else {
		members = t.Comms[0].Members
	}
	for i, w := range members {
		e := mpi.Event{Kind: kind, Comm: comm, Peer: root, Bytes: bytes}
		if kind == mpi.Alltoallv {
			list := make([]int64, len(members))
			for j := range list {
				list[j] = int64(i + j + 1)
			}
			t.AppendList(int(w), e, list)
			continue
		}
		t.Append(int(w), e)
	}
	return t
}

type msgKey struct {
	src, dst, tag int32
	bytes         int64
}

// checkMessages asserts every send has exactly one receive with the same
// source, destination, tag and size, and returns the number of messages.
func checkMessages(t *testing.T, g *graph.Graph, allowed map[int32]bool) int {
	t.Helper()
	counts := map[msgKey]int{}
	sends := 0
	for r := 0; r < g.NumRanks(); r++ {
		for id := g.RankStart[r]; id < g.RankStart[r+1]; id++ {
			if g.Kind[id] == graph.Calc {
				continue
			}
			if allowed != nil && !allowed[int32(r)] {
				t.Fatalf("rank %d outside the communicator has %s", r, g.Describe(id))
			}
			if g.Kind[id] == graph.Send {
				counts[msgKey{int32(r), g.Peer[id], g.Tag[id], g.Size[id]}]++
				sends++
			} else {
				counts[msgKey{g.Peer[id], int32(r), g.Tag[id], g.Size[id]}]--
			}
		}
	}
	for k, c := range counts {
		if c != 0 {
			t.Fatalf("message %+v: %d more sends than receives", k, c)
		}
	}
	return sends
}

func log2ceil(p int) int {
	k := 0
	for 1<<k < p {
		k++
	}
	return k
}

func TestEveryAlgorithmEverySize(t *testing.T) {
	for _, kind := range mpi.Kinds() {
		if !kind.IsCollective() {
			continue
		}
		for _, alg := range lower.Algorithms(kind) {
			for _, p := range []int{1, 2, 3, 5, 8, 13, 16} {
				for _, root := range []int32{0, int32(p) / 2} {
					if root != 0 && !kind.IsRooted() {
						continue
					}
					for _, bytes := range []int64{4096, 1001} { // 1001: pieces of unequal sizes on every p
						name := fmt.Sprintf("%s/%s/p%d/root%d/%db", kind, alg, p, root, bytes)
						t.Run(name, func(t *testing.T) {
							tr := collTrace(p, nil, kind, bytes, root)
							g, err := lower.Lower(tr, lower.Options{Algorithm: map[mpi.Kind]string{kind: alg}, ReduceNsPerByte: 0.5})
							if err != nil {
								t.Fatal(err)
							}
							msgs := checkMessages(t, g, nil)
							if want, ok := expectedMessages(kind, alg, p); ok && msgs != want {
								t.Errorf("%d messages, want %d", msgs, want)
							}
							// The replay also checks that no receive is smaller
							// than its message (sim.TruncationError).
							if _, err := sim.Run(g, network.DefaultLogGOPS(), sim.Options{}); err != nil {
								t.Fatalf("replay: %v", err)
							}
						})
					}
				}
			}
		}
	}
}

// expectedMessages gives textbook message counts where they are simple.
func expectedMessages(kind mpi.Kind, alg string, p int) (int, bool) {
	switch {
	case alg == lower.SelectOpenMPI || alg == lower.SelectMPICH:
		return 0, false // checked in selector_test.go
	case kind == mpi.Bcast && (alg == "scatter-rdb-allgather" || alg == "scatter-ring-allgather"):
		return 0, false // checked in pattern_test.go
	case (kind == mpi.Allgather || kind == mpi.Alltoall) && (alg == "bruck" || alg == "recdoub"):
		return p * log2ceil(p), true
	case kind == mpi.Allgather && alg == "neighbor" && p%2 == 0:
		return p * p / 2, true
	case kind == mpi.Bcast, kind == mpi.Reduce, kind == mpi.Gather, kind == mpi.Scatter:
		return p - 1, true // a tree or a star: one message per non-root rank
	case alg == "schedgen" && (kind == mpi.Barrier || kind == mpi.Allreduce || kind == mpi.Allgather):
		return p * log2ceil(p), true // dissemination
	case kind == mpi.Barrier && alg == "dissemination":
		return p * log2ceil(p), true
	case kind == mpi.Barrier && alg == "linear":
		return 2 * (p - 1), true
	case kind == mpi.Allreduce && alg == "ring":
		return 2 * (p - 1) * p, true
	case kind == mpi.Allreduce && alg == "recdoub":
		pof2 := 1 << (log2ceil(p+1) - 1)
		if pof2 > p {
			pof2 /= 2
		}
		rem := p - pof2
		return pof2*log2ceil(pof2) + 2*rem, true
	case kind == mpi.Allreduce && alg == "reduce-bcast":
		return 2 * (p - 1), true
	case kind == mpi.Allgather, kind == mpi.Alltoall, kind == mpi.Alltoallv:
		return p * (p - 1), true
	case kind == mpi.ReduceScatter && alg == "ring":
		return p * (p - 1), true
	case kind == mpi.Scan && alg == "linear":
		return p - 1, true
	}
	return 0, false
}

func TestSubcommunicatorTouchesOnlyMembers(t *testing.T) {
	members := []int32{6, 1, 4}
	allowed := map[int32]bool{6: true, 1: true, 4: true}
	for _, kind := range []mpi.Kind{mpi.Allreduce, mpi.Bcast, mpi.Alltoallv, mpi.Barrier, mpi.Gather} {
		tr := collTrace(8, members, kind, 100, 2)
		g, err := lower.Lower(tr, lower.Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkMessages(t, g, allowed)
		// member 2 of the communicator (world rank 4) is the bcast root
		if kind == mpi.Bcast {
			id := g.RankStart[4]
			if g.Kind[id] != graph.Send {
				t.Errorf("bcast root world rank 4 starts with %s", g.Describe(id))
			}
		}
		if _, err := sim.Run(g, network.DefaultLogGOPS(), sim.Options{}); err != nil {
			t.Fatal(err)
		}
	}
}

// A hand-checked lowering: rank 0 posts irecv and isend, computes, then
// waits for both; rank 1 sends then receives.
func TestNonblockingByHand(t *testing.T) {
	tr := mpi.NewTrace(2)
	tr.Append(0, mpi.Event{Kind: mpi.Irecv, Peer: 1, Tag: 3, Bytes: 10, Req: 1})
	tr.Append(0, mpi.Event{Kind: mpi.Isend, Peer: 1, Tag: 4, Bytes: 20, Req: 2})
	tr.AppendCompute(0, "work", 500)
	tr.AppendList(0, mpi.Event{Kind: mpi.Waitall}, []int64{1, 2})
	tr.AppendCompute(0, "after", 7)
	tr.Append(1, mpi.Event{Kind: mpi.Send, Peer: 0, Tag: 3, Bytes: 10})
	tr.Append(1, mpi.Event{Kind: mpi.Recv, Peer: 0, Tag: 4, Bytes: 20})
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for id := int32(0); id < int32(g.NumOps()); id++ {
		s := g.Describe(id)
		deps, kinds := g.Deps(id)
		for j, d := range deps {
			s += fmt.Sprintf(" %s l%d", kinds[j], d-g.RankStart[g.RankOf(id)]+1)
		}
		got = append(got, s)
	}
	want := []string{
		"rank 0 l1: recv 10b from 1 tag 3",
		"rank 0 l2: send 20b to 1 tag 4 irequires l1",
		"rank 0 l3: calc 500 irequires l2",
		"rank 0 l4: calc 7 requires l3 requires l1 requires l2",
		"rank 1 l1: send 10b to 0 tag 3",
		"rank 1 l2: recv 20b from 0 tag 4 requires l1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if g.RegionName(2) != "work" || g.RegionName(3) != "after" {
		t.Errorf("regions %q %q", g.RegionName(2), g.RegionName(3))
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func() *mpi.Trace
		want  string
	}{
		{"wait unknown request", func() *mpi.Trace {
			tr := mpi.NewTrace(1)
			tr.Append(0, mpi.Event{Kind: mpi.Wait, Req: 9})
			return tr
		}, "rank 0 event 0: wait on unknown request 9"},
		{"peer outside comm", func() *mpi.Trace {
			tr := mpi.NewTrace(2)
			tr.Append(1, mpi.Event{Kind: mpi.Send, Peer: 2})
			return tr
		}, "rank 1 event 0: send peer 2 is not a rank of communicator 0"},
		{"mismatched collectives", func() *mpi.Trace {
			tr := mpi.NewTrace(2)
			tr.Append(0, mpi.Event{Kind: mpi.Barrier})
			tr.Append(1, mpi.Event{Kind: mpi.Allreduce, Bytes: 8})
			return tr
		}, "rank 1 event 0: collective call #1 on communicator 0 is allreduce here but barrier on rank 0: every member makes the same call"},
		{"missing collective", func() *mpi.Trace {
			tr := mpi.NewTrace(2)
			tr.Append(0, mpi.Event{Kind: mpi.Barrier})
			return tr
		}, "rank 1 event 0: rank never calls collective call #1 on communicator 0 (barrier on rank 0)"},
		{"user tag too large", func() *mpi.Trace {
			tr := mpi.NewTrace(2)
			tr.Append(0, mpi.Event{Kind: mpi.Send, Peer: 1, Tag: 1 << 21})
			return tr
		}, "tag 2097152 outside"},
		{"not a member", func() *mpi.Trace {
			tr := mpi.NewTrace(3)
			c := tr.AddComm("pair", []int32{0, 1})
			tr.Append(2, mpi.Event{Kind: mpi.Barrier, Comm: c})
			return tr
		}, "rank 2 event 0: barrier on communicator 1, which rank 2 is not a member of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := lower.Lower(tc.build(), lower.Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestParseAlgorithms(t *testing.T) {
	m, err := lower.ParseAlgorithms("allreduce=ring, bcast=linear")
	if err != nil || m[mpi.Allreduce] != "ring" || m[mpi.Bcast] != "linear" {
		t.Fatalf("%v %v", m, err)
	}
	for _, bad := range []string{"allreduce", "send=x", "allreduce=magic"} {
		if _, err := lower.ParseAlgorithms(bad); err == nil {
			t.Errorf("ParseAlgorithms(%q) succeeded", bad)
		}
	}
}

// TestPartBits: a collective's parallel parts fit the tag bits the
// lowering of MPI traces gives them.
func TestPartBits(t *testing.T) {
	if lower.TagsPerCall != 1<<lower.PartBits {
		t.Errorf("TagsPerCall %d, 2^partBits %d", lower.TagsPerCall, 1<<lower.PartBits)
	}
}
