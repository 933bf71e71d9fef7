package mpi

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// sizesTrace is a trace of p ranks that each make one call of kind k on
// MPI_COMM_WORLD (root 0), after a barrier.
func sizesTrace(p int, k Kind) *Trace {
	t := NewTrace(p)
	for r := range p {
		t.Append(r, Event{Kind: Barrier})
		t.Append(r, Event{Kind: k})
	}
	return t
}

// TestCheckSizesUniform compares the linear check of calls that send and
// receive one size per member with every pair's, on random sizes.
func TestCheckSizesUniform(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 2000; n++ {
		p := 2 + rng.IntN(5)
		tr := sizesTrace(p, Alltoall)
		calls := make([][]CollSizes, p)
		for r := range p {
			calls[r] = []CollSizes{{Event: 1, Send: rng.Int64N(5) - 1, Recv: rng.Int64N(5) - 1}}
		}
		want := false
		for i := range p {
			for j := range p {
				s, q := calls[i][0].Send, calls[j][0].Recv
				want = want || i != j && s >= 0 && q >= 0 && s > q
			}
		}
		err := CheckSizes(tr, calls)
		var se *SizeError
		if got := errors.As(err, &se); got != want {
			t.Fatalf("calls %v: error %v, want one: %v", calls, err, want)
		}
		if se != nil && (se.SendRank == se.RecvRank || calls[se.SendRank][0].Send != se.Sent || calls[se.RecvRank][0].Recv != se.Room || se.Sent <= se.Room) {
			t.Fatalf("calls %v: %+v", calls, se)
		}
	}
}

func TestCheckSizes(t *testing.T) {
	cases := []struct {
		name  string
		kind  Kind
		calls [][]CollSizes
		want  string
	}{
		{"gather", Gather, [][]CollSizes{{{Event: 1, Send: 9, Recv: 8}}, {{Event: 1, Send: 9, Recv: -1}}},
			"collective call #2 on communicator 0, gather (root 0): rank 0 receives at most 8 bytes from rank 1, which sends it 9"},
		{"gather root's own block", Gather, [][]CollSizes{{{Event: 1, Send: 99, Recv: 8}}, {{Event: 1, Send: 8, Recv: -1}}}, ""},
		{"scatter", Scatter, [][]CollSizes{{{Event: 1, Sends: []int64{0, 9}, Recv: 0}}, {{Event: 1, Send: -1, Recv: 8}}},
			"rank 1 receives at most 8 bytes from rank 0, which sends it 9"},
		{"reduce_scatter", ReduceScatter, [][]CollSizes{{{Event: 1, Sends: []int64{4, 4}}}, {{Event: 1, Sends: []int64{8, 8}}}},
			"rank 0 receives at most 4 bytes from rank 1, which sends it 8"},
		{"alltoallv", Alltoallv, [][]CollSizes{{{Event: 1, Sends: []int64{1, 2}, Recvs: []int64{1, 3}}}, {{Event: 1, Sends: []int64{3, 1}, Recvs: []int64{1, 1}}}},
			"rank 1 receives at most 1 bytes from rank 0, which sends it 2"},
		{"bcast: a scatter's blocks", Bcast, [][]CollSizes{{{Event: 1, Send: 9, Recv: 9}}, {{Event: 1, Send: -1, Recv: 8}}},
			"bcast (root 0): rank 1 receives at most 8 bytes from rank 0, which sends it 9"},
		{"reduce: a gather's blocks", Reduce, [][]CollSizes{{{Event: 1, Send: 9, Recv: 8}}, {{Event: 1, Send: 8, Recv: -1}}}, ""},
		{"allreduce: an alltoall's blocks", Allreduce, [][]CollSizes{{{Event: 1, Send: 9, Recv: 9}}, {{Event: 1, Send: 8, Recv: 8}}},
			"allreduce: rank 1 receives at most 8 bytes from rank 0, which sends it 9"},
		{"a member without sizes", Gather, [][]CollSizes{{{Event: 1, Send: 9, Recv: 8}}, nil}, ""},
		{"lists of another length", Alltoallv, [][]CollSizes{{{Event: 1, Sends: []int64{1, 9, 9}, Recvs: []int64{1, 1}}}, {{Event: 1, Sends: []int64{1, 1}, Recvs: []int64{1, 1}}}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckSizes(sizesTrace(2, c.kind), c.calls)
			if c.want == "" {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	// Members that disagree on the kind or the root are the lowering's
	// to name.
	tr := sizesTrace(2, Gather)
	tr.Ranks[1].Events[1].Peer = 1
	if err := CheckSizes(tr, [][]CollSizes{{{Event: 1, Send: 9, Recv: 8}}, {{Event: 1, Send: 9, Recv: 1}}}); err != nil {
		t.Errorf("roots that differ: %v", err)
	}
	// A communicator of some ranks: calls pair by their order on it.
	tr = NewTrace(3)
	c := tr.AddComm("pair", []int32{2, 0})
	tr.Append(0, Event{Kind: Allgather, Comm: c})
	tr.Append(1, Event{Kind: Barrier})
	tr.Append(2, Event{Kind: Barrier})
	tr.Append(2, Event{Kind: Allgather, Comm: c})
	err := CheckSizes(tr, [][]CollSizes{{{Event: 0, Send: 4, Recv: 4}}, nil, {{Event: 1, Send: 8, Recv: 8}}})
	if err == nil || !strings.Contains(err.Error(), "communicator 1, allgather: rank 0 receives at most 4 bytes from rank 2, which sends it 8") {
		t.Errorf("sub-communicator: %v", err)
	}
}
