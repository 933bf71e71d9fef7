package sim

import (
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// Rank 0 sends 8 bytes to rank 1 on communicator "node" (a fast network)
// and then 8 bytes on MPI_COMM_WORLD; both are blocking. Finish times are
// worked out by hand from the LogGOPS rules, with the defaults
// (L=2500 o=1500 g=1000 G=6) and, for "node", L=100 o=50 G=1.
func TestNetworkClasses(t *testing.T) {
	tr := mpi.NewTrace(2)
	node := tr.AddComm("node", []int32{0, 1})
	halo := tr.Region("halo")
	tr.Append(0, mpi.Event{Kind: mpi.Send, Comm: node, Region: halo, Peer: 1, Bytes: 8})
	tr.Append(0, mpi.Event{Kind: mpi.Send, Peer: 1, Bytes: 8})
	tr.Append(1, mpi.Event{Kind: mpi.Recv, Comm: node, Peer: 0, Bytes: 8})
	tr.Append(1, mpi.Event{Kind: mpi.Recv, Peer: 0, Bytes: 8})
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base := network.DefaultLogGOPS()
	fast := network.NewLogGOPS(100, 50, 1000, 1, 0, 65535)
	names := func(c int32) string {
		if c == node {
			return "node"
		}
		return ""
	}
	for _, tc := range []struct {
		name      string
		overrides []network.Override
		finish    [2]int64
	}{
		// Base: send 1 busy [0,1500), NIC until 1042, arrives 4000; send 2
		// at 1500, busy until 3000, arrives 5500. Rank 1 receives the first
		// [4000,5542) (NIC until 5042), the second [5542,7084).
		{"none", nil, [2]int64{3000, 7084}},
		// Fast first message: busy [0,50), NIC until 1007, arrives 150;
		// send 2 at 1007 (waits for the NIC), busy until 2507, arrives
		// 5007. Rank 1: [150,207), NIC until 1157; then [5007,6549).
		{"comm", []network.Override{{Comm: "node", Params: fast}}, [2]int64{2507, 6549}},
		{"comm by number", []network.Override{{Comm: "1", Params: fast}}, [2]int64{2507, 6549}},
		{"region", []network.Override{{Region: "ha*", Params: fast}}, [2]int64{2507, 6549}},
		{"both selectors", []network.Override{{Comm: "node", Region: "halo", Params: fast}}, [2]int64{2507, 6549}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cls, err := network.Classify(g, base, tc.overrides, names)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(g, base, Options{Classes: cls})
			if err != nil {
				t.Fatal(err)
			}
			if got := [2]int64{res.Ranks[0].Finish, res.Ranks[1].Finish}; got != tc.finish {
				t.Errorf("finish %v, want %v", got, tc.finish)
			}
		})
	}
	// Both selectors must match: world's messages are in no region, so
	// this override selects none and is refused.
	if _, err := network.Classify(g, base, []network.Override{{Comm: "0", Region: "halo", Params: fast}}, names); err == nil {
		t.Error("an override selecting no message accepted")
	}
	// The first override that selects a message applies, so one whose
	// every message an earlier one takes can never apply and is refused.
	if _, err := network.Classify(g, base, []network.Override{{Region: "halo", Params: base}, {Comm: "node", Params: fast}}, names); err == nil {
		t.Error("an override shadowed by an earlier one accepted")
	}
	bad := &network.Classes{Of: make([]uint8, g.NumOps()), Params: []network.LogGOPS{base}}
	bad.Of[0] = 3
	if _, err := Run(g, base, Options{Classes: bad}); err == nil {
		t.Error("class out of range accepted")
	}
}

type queueRecorder struct {
	busy   map[int32][2]int64
	queued map[int32]int64
}

func (r *queueRecorder) Busy(op int32, start, end int64)               { r.busy[op] = [2]int64{start, end} }
func (r *queueRecorder) Message(send, recv int32, sent, matched int64) {}
func (r *queueRecorder) Queued(op int32, t int64)                      { r.queued[op] = t }

// A message that arrives before its receive is posted is processed by the
// receiver's CPU when it arrives; that processing is reported as the
// receive's busy time once the receive matches it, and queue times are
// reported for every operation. Rank 1 computes for 10 µs, so the 8-byte
// message arriving at 4000 is processed at [10000, 11542) (o + 7·G), and
// the receive posted after the compute matches it at once.
func TestObserverSeesUnexpectedProcessing(t *testing.T) {
	g := parse(t, `num_ranks 2
rank 0 { l1: send 8b to 1 tag 0
}
rank 1 { l1: calc 10000
l2: recv 8b from 0 tag 0
l2 requires l1
}`)
	rec := &queueRecorder{busy: map[int32][2]int64{}, queued: map[int32]int64{}}
	res, err := Run(g, network.DefaultLogGOPS(), Options{Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	recv := g.RankStart[1] + 1
	if got := rec.busy[recv]; got != [2]int64{10000, 11542} {
		t.Errorf("receive busy %v, want [10000 11542]", got)
	}
	if res.Ranks[1].Finish != 11542 {
		t.Errorf("rank 1 finishes at %d, want 11542", res.Ranks[1].Finish)
	}
	if q, ok := rec.queued[recv]; !ok || q != 10000 {
		t.Errorf("receive queued at %d (%v), want 10000", q, ok)
	}
	if q, ok := rec.queued[0]; !ok || q != 0 {
		t.Errorf("send queued at %d (%v), want 0", q, ok)
	}
}
