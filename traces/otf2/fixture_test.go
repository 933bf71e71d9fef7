//go:build cgo && !nootf2

package otf2

import (
	"fmt"
	"os/exec"
	"testing"

	"github.com/capsim/capsim/internal/otf2write"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// Regions of the fixture.
const (
	fxMain = iota
	fxSolve
	fxWorker
	fxSend
	fxRecv
	fxIsend
	fxIrecv
	fxWait
	fxWaitall
	fxTest
	fxCancel
	fxAllreduce
	fxBcast
	fxReduce
	fxSplit
)

var fxRegions = []otf2write.Region{
	fxMain: {Name: "main"}, fxSolve: {Name: "solve"}, fxWorker: {Name: "worker"},
	fxSend: {Name: "MPI_Send", MPI: true}, fxRecv: {Name: "MPI_Recv", MPI: true}, fxIsend: {Name: "MPI_Isend", MPI: true},
	fxIrecv: {Name: "MPI_Irecv", MPI: true}, fxWait: {Name: "MPI_Wait", MPI: true}, fxWaitall: {Name: "MPI_Waitall", MPI: true},
	fxTest: {Name: "MPI_Test", MPI: true}, fxCancel: {Name: "MPI_Cancel", MPI: true},
	fxAllreduce: {Name: "MPI_Allreduce", MPI: true}, fxBcast: {Name: "MPI_Bcast", MPI: true}, fxReduce: {Name: "MPI_Reduce", MPI: true},
	// Named like an MPI call but of the user paradigm: still an MPI call.
	fxSplit: {Name: "MPI_Comm_split"},
}

// Communicators of the fixture: world, two split halves, a self
// communicator, and {1,3} whose events name world ranks.
const (
	fxWorld = iota
	fxRow0
	fxRow1
	fxSelf
	fxOdd
)

var fxComms = []otf2write.Comm{
	fxWorld: {Name: "MPI_COMM_WORLD", Members: []uint64{0, 1, 2, 3}},
	fxRow0:  {Name: "row0", Members: []uint64{0, 1}},
	fxRow1:  {Name: "row1", Members: []uint64{3, 2}}, // comm rank 0 is world rank 3
	fxSelf:  {Name: "MPI_COMM_SELF", Self: true},
	fxOdd:   {Name: "odd", Members: []uint64{1, 3}, Global: true},
}

const (
	fxRes    = 2_000_000_000 // 2 ticks per ns
	fxOffset = 5_000
	none     = ^uint32(0)
)

// loc writes one location's events with a running clock in ns.
type loc struct {
	t   *testing.T
	w   *otf2write.Writer
	id  int
	now uint64 // ns
}

func (l *loc) at(ns uint64) *loc   { l.now = ns; return l }
func (l *loc) wait(ns uint64) *loc { l.now += ns; return l }
func (l *loc) ev(e otf2write.Event) *loc {
	l.t.Helper()
	e.Time = fxOffset + 2*l.now
	if err := l.w.Write(l.id, e); err != nil {
		l.t.Fatal(err)
	}
	return l
}
func (l *loc) enter(r uint32) *loc { return l.ev(otf2write.Event{Kind: otf2write.Enter, Region: r}) }
func (l *loc) leave(r uint32) *loc { return l.ev(otf2write.Event{Kind: otf2write.Leave, Region: r}) }

// call wraps records in an MPI region lasting d ns.
func (l *loc) call(r uint32, d uint64, es ...otf2write.Event) *loc {
	l.enter(r)
	for _, e := range es {
		l.ev(e)
	}
	return l.wait(d).leave(r)
}

// writeFixture writes a 4-rank trace with two threads per rank holding
// every record kind the importer reads, and returns its anchor file.
func writeFixture(t *testing.T, opts ...func(*otf2write.Defs)) string {
	dir := t.TempDir()
	d := otf2write.Defs{Resolution: fxRes, Offset: fxOffset, Ranks: 4, Threads: 2, Regions: fxRegions, Comms: fxComms}
	for _, o := range opts {
		o(&d)
	}
	w, err := otf2write.Create(dir, d)
	if err != nil {
		t.Fatal(err)
	}
	for r := uint32(0); r < 4; r++ {
		l := &loc{t: t, w: w, id: int(r)}
		l.at(0).enter(fxMain).ev(otf2write.Event{Kind: otf2write.Metric, Value: 7}).wait(100)
		// The split is an MPI call (by name) without communication.
		l.call(fxSplit, 10)
		l.enter(fxSolve).wait(50)
		// Nonblocking ring on world: isend to r+1, irecv from r-1, a test,
		// a cancelled irecv, then a waitall.
		l.call(fxIsend, 5, otf2write.Event{Kind: otf2write.Isend, Peer: (r + 1) % 4, Comm: fxWorld, Tag: 7, Bytes: 1000, Req: 1})
		l.call(fxIrecv, 5, otf2write.Event{Kind: otf2write.IrecvRequest, Req: 2})
		l.wait(20)
		l.call(fxTest, 3, otf2write.Event{Kind: otf2write.RequestTest, Req: 2})
		l.call(fxIrecv, 5, otf2write.Event{Kind: otf2write.IrecvRequest, Req: 3})
		l.call(fxCancel, 2, otf2write.Event{Kind: otf2write.RequestCancelled, Req: 3})
		l.call(fxWaitall, 40,
			otf2write.Event{Kind: otf2write.IsendComplete, Req: 1},
			otf2write.Event{Kind: otf2write.Irecv, Peer: (r + 3) % 4, Comm: fxWorld, Tag: 7, Bytes: 1000, Req: 2})
		l.wait(30).leave(fxSolve).wait(10)
		// Blocking exchange on the split communicators.
		comm, me := uint32(fxRow0), r
		if r >= 2 {
			comm, me = fxRow1, 3-r
		}
		if me == 0 {
			l.call(fxSend, 8, otf2write.Event{Kind: otf2write.Send, Peer: 1, Comm: comm, Tag: 3, Bytes: 64})
		} else {
			l.call(fxRecv, 8, otf2write.Event{Kind: otf2write.Recv, Peer: 0, Comm: comm, Tag: 3, Bytes: 64})
		}
		// A message to itself on the self communicator.
		l.call(fxIsend, 4, otf2write.Event{Kind: otf2write.Isend, Peer: 0, Comm: fxSelf, Tag: 1, Bytes: 8, Req: 4})
		l.call(fxIrecv, 4, otf2write.Event{Kind: otf2write.IrecvRequest, Req: 5})
		l.call(fxWait, 4, otf2write.Event{Kind: otf2write.IsendComplete, Req: 4})
		l.call(fxWait, 4, otf2write.Event{Kind: otf2write.Irecv, Peer: 0, Comm: fxSelf, Tag: 1, Bytes: 8, Req: 5})
		// Ranks 1 and 3 talk on a communicator whose events name world ranks.
		switch r {
		case 1:
			l.call(fxSend, 6, otf2write.Event{Kind: otf2write.Send, Peer: 3, Comm: fxOdd, Tag: 2, Bytes: 16})
		case 3:
			l.call(fxRecv, 6, otf2write.Event{Kind: otf2write.Recv, Peer: 1, Comm: fxOdd, Tag: 2, Bytes: 16})
		}
		// Recording switched off for 500 ns.
		l.wait(20).ev(otf2write.Event{Kind: otf2write.MeasurementOnOff}).wait(500).ev(otf2write.Event{Kind: otf2write.MeasurementOnOff, On: true}).wait(15)
		// Collectives as Score-P counts their bytes: allreduce of 8 B,
		// bcast of 16 B from comm rank 0 of each half, reduce of 24 B to 2.
		l.call(fxAllreduce, 30, otf2write.Event{Kind: otf2write.CollBegin},
			otf2write.Event{Kind: otf2write.CollEnd, Op: opAllreduce, Comm: fxWorld, Root: none, Sent: 32, Recv: 32})
		bs, br := uint64(0), uint64(16)
		if me == 0 {
			bs = 32
		}
		l.call(fxBcast, 20, otf2write.Event{Kind: otf2write.CollBegin},
			otf2write.Event{Kind: otf2write.CollEnd, Op: opBcast, Comm: comm, Root: 0, Sent: bs, Recv: br})
		rr := uint64(0)
		if r == 2 {
			rr = 96
		}
		l.call(fxReduce, 20, otf2write.Event{Kind: otf2write.CollBegin},
			otf2write.Event{Kind: otf2write.CollEnd, Op: opReduce, Comm: fxWorld, Root: 2, Sent: 24, Recv: rr})
		l.ev(otf2write.Event{Kind: otf2write.Metric, Value: 9}).wait(40).leave(fxMain)

		// Thread 1: a worker region, and on ranks 0 and 1 an MPI message
		// between threads (folded into the ranks' event lists by time).
		th := &loc{t: t, w: w, id: w.Location(int(r), 1)}
		th.at(110).enter(fxWorker).wait(30)
		switch r {
		case 0:
			th.call(fxSend, 5, otf2write.Event{Kind: otf2write.Send, Peer: 1, Comm: fxWorld, Tag: 9, Bytes: 32})
		case 1:
			th.call(fxRecv, 5, otf2write.Event{Kind: otf2write.Recv, Peer: 0, Comm: fxWorld, Tag: 9, Bytes: 32})
		}
		th.wait(10).leave(fxWorker)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir + "/traces.otf2"
}

// kinds lists a rank's event kinds, compute events as "compute(region)".
func kinds(tr *mpi.Trace, r int) []string {
	var ks []string
	for _, e := range tr.Ranks[r].Events {
		s := e.Kind.String()
		if e.Kind == mpi.Compute {
			s += "(" + tr.Regions[e.Region] + ")"
		}
		ks = append(ks, s)
	}
	return ks
}

func TestFixtureEveryRecordKind(t *testing.T) {
	tr, err := Read(writeFixture(t), Options{KeepGaps: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Ranks) != 4 {
		t.Fatalf("%d ranks, want 4", len(tr.Ranks))
	}
	// Rank 0: main 100 ns; the split call; solve 50 ns, split by thread
	// 1's send at 140 ns; isend; irecv (posted here, completed in the
	// waitall); 20 ns of solve between the irecv and the test; the
	// cancelled irecv becomes an empty compute; the waitall's two waits; ...
	want0 := []string{"compute(main)", "compute(solve)", "send", "compute(solve)", "isend", "irecv", "compute(solve)", "compute()",
		"wait", "wait", "compute(solve)", "compute(main)", "send", "isend", "irecv", "wait", "wait",
		"compute(main)", "compute(MEASUREMENT OFF)", "compute(main)", "allreduce", "bcast", "reduce", "compute(main)"}
	if got := kinds(tr, 0); fmt.Sprint(got) != fmt.Sprint(want0) {
		t.Errorf("rank 0 events\n got %v\nwant %v", got, want0)
	}
	ev := tr.Ranks[0].Events
	// Durations in ns (2 ticks per ns, offset removed).
	for i, d := range map[int]int64{0: 100, 1: 30, 3: 20, 4: 5, 5: 5, 6: 20, 8: 40, 9: 0, 10: 30, 11: 10, 12: 8, 17: 20, 18: 500, 19: 15, 20: 30, 21: 20, 22: 20, 23: 40} {
		if ev[i].Duration != d {
			t.Errorf("rank 0 event %d (%s): duration %d, want %d", i, ev[i].Kind, ev[i].Duration, d)
		}
	}
	// The irecv posted at event 3 got its source from the completion.
	if e := ev[5]; e.Peer != 3 || e.Tag != 7 || e.Bytes != 1000 || e.Comm != mpi.World || e.Req != 2 {
		t.Errorf("rank 0 irecv = %+v, want from 3 tag 7 1000 B on world, request 2", e)
	}
	if ev[7].Duration != 0 {
		t.Errorf("cancelled irecv left %d ns", ev[6].Duration)
	}
	// Communicators: world keeps id 0; row1 lists world ranks 3, 2.
	row1 := tr.Comm(ev[12].Comm)
	if row1 == nil || row1.Name != "row0" || fmt.Sprint(row1.Members) != "[0 1]" {
		t.Errorf("rank 0 send on %+v, want row0 [0 1]", row1)
	}
	ev2 := tr.Ranks[2].Events
	for _, e := range ev2 {
		if e.Kind == mpi.Recv {
			if c := tr.Comm(e.Comm); c.Name != "row1" || fmt.Sprint(c.Members) != "[3 2]" || e.Peer != 0 {
				t.Errorf("rank 2 recv on %+v from %d, want row1 [3 2] from comm rank 0", c, e.Peer)
			}
		}
		if e.Kind == mpi.Bcast && e.Peer != 0 {
			t.Errorf("rank 2 bcast root %d, want 0", e.Peer)
		}
	}
	// Self messages use a communicator of the rank alone.
	self := tr.Comm(ev[13].Comm)
	if self == nil || fmt.Sprint(self.Members) != "[0]" || ev[13].Peer != 0 {
		t.Errorf("rank 0 self isend on %+v peer %d", self, ev[12].Peer)
	}
	// Global-member communicator: rank 1 sends to world rank 3, comm rank 1.
	for _, e := range tr.Ranks[1].Events {
		if e.Kind == mpi.Send && e.Tag == 2 {
			if c := tr.Comm(e.Comm); c.Name != "odd" || e.Peer != 1 {
				t.Errorf("rank 1 send on %s to %d, want odd to 1", c.Name, e.Peer)
			}
		}
	}
	// Collective payloads: allreduce 8 B, bcast 16 B, reduce 24 B to 2.
	for i, want := range map[int][2]int64{20: {8, 0}, 21: {16, 0}, 22: {24, 2}} {
		if e := ev[i]; e.Bytes != want[0] || e.Peer != int32(want[1]) {
			t.Errorf("rank 0 %s: %d B root %d, want %d B root %d", e.Kind, e.Bytes, e.Peer, want[0], want[1])
		}
	}
	checkMatched(t, tr)
	if _, err := lower.Lower(tr, lower.Options{}); err != nil {
		t.Fatalf("lowering: %v", err)
	}
}

func TestFixtureDropMeasurementOff(t *testing.T) {
	tr, err := Read(writeFixture(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tr.Ranks[0].Events {
		if e.Kind == mpi.Compute && tr.Regions[e.Region] == MeasurementOffRegion {
			t.Fatalf("measurement-off time kept: %+v", e)
		}
	}
	// The stretch before the switch (20 ns) and after it (15 ns) stay apart.
	ks := kinds(tr, 0)
	if fmt.Sprint(ks[17:19]) != "[compute(main) allreduce]" || tr.Ranks[0].Events[17].Duration != 35 {
		t.Errorf("around the gap: %v, %d ns; want 20+15 ns of main merged", ks[17:19], tr.Ranks[0].Events[17].Duration)
	}
	if rec := tr.Recorded; rec == nil || rec.GapsKept || len(rec.OffNs) != 4 || rec.OffNs[0] != 500 || rec.OutsideNs != nil {
		t.Errorf("recorded gaps %+v, want 500 ns off on rank 0 and nothing outside MPI_Init…MPI_Finalize", rec)
	}
}

// checkMatched checks that every send is matched by exactly one receive:
// per (communicator, source, destination, tag) in world ranks, the counts
// and bytes of sends and receives agree.
func checkMatched(t *testing.T, tr *mpi.Trace) {
	t.Helper()
	type key struct{ comm, src, dst, tag int32 }
	type cnt struct{ n, bytes int64 }
	sends, recvs := map[key]cnt{}, map[key]cnt{}
	for r, rk := range tr.Ranks {
		for _, e := range rk.Events {
			if !e.Kind.IsPointToPoint() {
				continue
			}
			c := tr.Comm(e.Comm)
			if c == nil || e.Peer < 0 || int(e.Peer) >= len(c.Members) {
				t.Fatalf("rank %d: %s on communicator %d peer %d", r, e.Kind, e.Comm, e.Peer)
			}
			peer := c.Members[e.Peer]
			if e.Kind == mpi.Send || e.Kind == mpi.Isend {
				k := key{e.Comm, int32(r), peer, e.Tag}
				sends[k] = cnt{sends[k].n + 1, sends[k].bytes + e.Bytes}
			} else {
				k := key{e.Comm, peer, int32(r), e.Tag}
				recvs[k] = cnt{recvs[k].n + 1, recvs[k].bytes + e.Bytes}
			}
		}
	}
	for k, s := range sends {
		if recvs[k] != s {
			t.Errorf("comm %d %d→%d tag %d: %d sends (%d B), %d receives (%d B)", k.comm, k.src, k.dst, k.tag, s.n, s.bytes, recvs[k].n, recvs[k].bytes)
		}
	}
	for k, r := range recvs {
		if _, ok := sends[k]; !ok {
			t.Errorf("comm %d %d→%d tag %d: %d receives without a send", k.comm, k.src, k.dst, k.tag, r.n)
		}
	}
}

// TestFixtureAgainstOtf2Print checks the written fixture with the peer
// tool: otf2-print's message and collective records, folded from
// locations to ranks (location r+4t is thread t of rank r), equal the
// import's.
func TestFixtureAgainstOtf2Print(t *testing.T) {
	if _, err := exec.LookPath("otf2-print"); err != nil {
		t.Skip("otf2-print not installed (Debian otf2-tools)")
	}
	anchor := writeFixture(t)
	tr, err := Read(anchor, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := traceCounts(tr)
	want := make([]Counts, 4)
	for loc, c := range printCounts(t, anchor) {
		w := &want[loc%4]
		w.Sends += c.Sends
		w.SendBytes += c.SendBytes
		w.Recvs += c.Recvs
		w.RecvBytes += c.RecvBytes
		w.Colls += c.Colls
	}
	for r := range got {
		got[r].ComputeNs = 0
		if got[r] != want[r] {
			t.Errorf("rank %d: %+v, otf2-print %+v", r, got[r], want[r])
		}
	}
}
