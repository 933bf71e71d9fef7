package dumpi

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// Datatype ids and handles used by the test program.
const (
	tChar   = 2
	tInt    = 9
	tLong   = 11 // 4 bytes in the writer's table (a Blue Gene/P)
	tDouble = 14
	world   = 2
	self    = 3
)

// versions the program is written with: 0.6.0 lacks the status tag, the
// datatype-size table (LP64 sizes are assumed) and writes MPI_Init's argc
// twice and one MPI_Type_struct displacement.
var versions = [][3]byte{{0, 6, 0}, {1, 0, 0}, {1, 1, 0}, {8, 1, 0}}

func old(v [3]byte) bool { return v[0] == 0 }

// program writes rank r of a 4-rank program that makes every kind of
// record the reader interprets. The comments give the events expected.
func program(r int, v [3]byte) *binWriter {
	w := newBinWriter(v)
	if old(v) {
		w.sizes = nil
		w.call(idInit, 0, 10, i32(1), i32(1), str("./app"))
	} else {
		w.call(idInit, 0, 10, strs{"./app"})
	}
	w.call(82, 5, 1, h16(world), i32(r)) // MPI_Comm_rank: skipped
	programP2P(w, r)
	programCollectives(w, r)
	programComms(w, r)
	programTypes(w, r, v)
	// An instrumented function: the compute inside it is named after it.
	w.labels = map[uint64]string{0x400: "solver"}
	w.call(idFunctionEnter, 10, 0, u64(0x400))
	w.call(idBarrier, 777, 10, h16(world))
	w.call(idFunctionExit, 10, 0, u64(0x400))
	w.call(idFinalize, 10, 10)
	return w
}

// programP2P writes the point-to-point part of program: blocking and
// nonblocking sends and receives, every completion call, persistent
// requests, and what makes no event.
func programP2P(w *binWriter, r int) {
	next, prev := (r+1)%4, (r+3)%4
	even := r%2 == 0

	// Ring: Isend, Recv, Wait (compute 1000 ns before the Isend).
	w.call(idIsend, 1000, 20, i32(10), h16(tInt), i32(next), i32(1), h16(world), i32(100))
	w.call(idRecv, 30, 40, i32(10), h16(tInt), i32(prev), i32(1), h16(world), sts(1))
	w.call(idWait, 30, 40, i32(100), sts(1))

	// Pairs 0-1, 2-3: Ssend/Recv(any tag), Bsend/Recv(any source), Rsend/Irecv+Test.
	if even {
		w.call(idSsend, 10, 10, i32(3), h16(tLong), i32(r+1), i32(2), h16(world))
		w.call(idRecv, 10, 10, i32(2), h16(tDouble), i32(-1), i32(3), h16(world), sts(1))
		w.call(idRsend, 10, 10, i32(1), h16(tChar), i32(r+1), i32(5), h16(world))
	} else {
		w.call(idRecv, 10, 10, i32(3), h16(tLong), i32(r-1), i32(-1), h16(world), sts(1))
		w.call(idBsend, 10, 10, i32(2), h16(tDouble), i32(r-1), i32(3), h16(world))
		w.call(idIrecv, 10, 10, i32(1), h16(tChar), i32(r-1), i32(5), h16(world), i32(200))
		w.call(idTest, 10, 10, i32(200), i32(0), sts(1)) // not complete: skipped
		w.call(idTest, 10, 10, i32(200), i32(1), sts(1)) // Wait
	}

	// Ibsend/Issend/Irsend with Waitany and Waitsome; Irecv with
	// Testany, Testsome, Testall.
	if even {
		w.call(idIbsend, 10, 10, i32(4), h16(tInt), i32(r+1), i32(6), h16(world), i32(300))
		w.call(idIssend, 10, 10, i32(4), h16(tInt), i32(r+1), i32(7), h16(world), i32(301))
		w.call(idIrsend, 10, 10, i32(4), h16(tInt), i32(r+1), i32(8), h16(world), i32(302))
		w.call(idWaitany, 10, 10, i32(3), ints{300, 301, 302}, i32(1), sts(1))            // Wait 301
		w.call(idWaitsome, 10, 10, i32(3), ints{300, 1, 302}, i32(2), ints{0, 2}, sts(2)) // Waitall 300 302
	} else {
		for k := range 3 {
			w.call(idIrecv, 10, 10, i32(4), h16(tInt), i32(r-1), i32(6+k), h16(world), i32(400+k))
		}
		w.call(idTestany, 10, 10, i32(3), ints{400, 401, 402}, i32(-32766), i32(0), sts(0)) // skipped
		w.call(idTestany, 10, 10, i32(3), ints{400, 401, 402}, i32(0), i32(1), sts(1))      // Wait 400
		w.call(idTestsome, 10, 10, i32(3), ints{1, 401, 402}, i32(1), ints{1}, sts(1))      // Wait 401
		w.call(idTestall, 10, 10, i32(3), ints{1, 1, 402}, i32(1), sts(3))                  // Wait 402
	}

	// Sendrecv and Sendrecv_replace around the ring.
	w.call(idSendrecv, 10, 10, i32(2), h16(tDouble), i32(next), i32(9), i32(2), h16(tDouble), i32(prev), i32(9), h16(world), sts(1))
	w.call(idSendrecvReplace, 10, 10, i32(1), h16(tInt), i32(prev), i32(10), i32(next), i32(10), h16(world), sts(1))

	// Persistent requests started twice.
	w.call(idSendInit, 10, 10, i32(5), h16(tInt), i32(next), i32(11), h16(world), i32(500))
	w.call(idRecvInit, 10, 10, i32(5), h16(tInt), i32(prev), i32(11), h16(world), i32(501))
	w.call(idStartall, 10, 10, i32(2), ints{500, 501})
	w.call(idWaitall, 10, 10, i32(2), ints{500, 501}, sts(2))
	w.call(idStart, 10, 10, i32(500))
	w.call(idStart, 10, 10, i32(501))
	w.call(idWait, 10, 10, i32(500), sts(1))
	w.call(idWait, 10, 10, i32(501), sts(1))
	w.call(idRequestFree, 10, 10, i32(500))
	w.call(idRequestFree, 10, 10, i32(501))

	// Probes, MPI_PROC_NULL, a cancelled receive: no events.
	w.call(idProbe, 10, 10, i32(-1), i32(-1), h16(world), sts(1))
	w.call(idIprobe, 10, 10, i32(-1), i32(-1), h16(world), i32(0), sts(1))
	w.call(idSend, 10, 10, i32(1), h16(tInt), i32(-2), i32(0), h16(world))
	w.call(idIrecv, 10, 10, i32(1), h16(tInt), i32(prev), i32(12), h16(world), i32(600))
	w.call(idCancel, 10, 10, i32(600))
	w.call(idWait, 10, 10, i32(600), sts(1))
}

// programCollectives writes every collective on MPI_COMM_WORLD.
func programCollectives(w *binWriter, r int) {
	// Collectives on MPI_COMM_WORLD.
	w.call(idBarrier, 10, 10, h16(world))
	w.call(idBcast, 10, 10, i32(8), h16(tDouble), i32(0), h16(world))
	w.call(idReduce, 10, 10, i32(3), h16(tInt), u8(3), i32(1), h16(world))
	w.call(idAllreduce, 10, 10, i32(4), h16(tDouble), u8(3), h16(world))
	if r == 0 {
		w.call(idGather, 10, 10, i32(r), i32(2), h16(tInt), i32(0), h16(world), i32(2), h16(tInt))
	} else {
		w.call(idGather, 10, 10, i32(r), i32(2), h16(tInt), i32(0), h16(world))
	}
	if r == 2 {
		w.call(idGatherv, 10, 10, i32(r), i32(4), i32(r+1), h16(tInt), i32(2), h16(world), ints{1, 2, 3, 4}, ints{0, 1, 3, 6}, h16(tInt))
	} else {
		w.call(idGatherv, 10, 10, i32(r), i32(4), i32(r+1), h16(tInt), i32(2), h16(world), h16(tInt))
	}
	if r == 3 {
		w.call(idScatter, 10, 10, i32(r), i32(3), h16(tDouble), i32(3), h16(world), i32(3), h16(tDouble))
	} else {
		w.call(idScatter, 10, 10, i32(r), i32(3), h16(tDouble), i32(3), h16(world))
	}
	if r == 0 {
		w.call(idScatterv, 10, 10, i32(r), i32(4), h16(tInt), i32(r+1), h16(tInt), i32(0), h16(world), ints{1, 2, 3, 4}, ints{0, 1, 3, 6})
	} else {
		w.call(idScatterv, 10, 10, i32(r), i32(4), h16(tInt), i32(r+1), h16(tInt), i32(0), h16(world))
	}
	w.call(idAllgather, 10, 10, i32(1), h16(tInt), i32(1), h16(tInt), h16(world))
	w.call(idAllgatherv, 10, 10, i32(4), i32(r+1), h16(tInt), ints{1, 2, 3, 4}, ints{0, 1, 3, 6}, h16(tInt), h16(world))
	w.call(idAlltoall, 10, 10, i32(2), h16(tInt), i32(2), h16(tInt), h16(world))
	// Rank i sends rank j {0, 1, 2, i}[j] doubles, which j receives; in
	// the alltoallw, one element of types[j], which j receives too.
	recvs := ints{int32(r), int32(r), int32(r), int32(r)}
	if r == 3 {
		recvs = ints{0, 1, 2, 3}
	}
	w.call(idAlltoallv, 10, 10, i32(4), ints{0, 1, 2, int32(r)}, ints{0, 0, 1, 3}, h16(tDouble), recvs, ints{0, 1, 2, 3}, h16(tDouble), h16(world))
	types := hs{tInt, tDouble, tChar, tLong}
	mine := hs{types[r], types[r], types[r], types[r]}
	w.call(idAlltoallw, 10, 10, i32(4), ints{1, 1, 1, 1}, ints{0, 4, 12, 13}, types, ints{1, 1, 1, 1}, ints{0, 4, 12, 13}, mine, h16(world))
	w.call(idReduceScatter, 10, 10, i32(4), ints{1, 1, 1, 1}, h16(tDouble), u8(3), h16(world))
	w.call(idScan, 10, 10, i32(1), h16(tInt), u8(3), h16(world))
	w.call(idExscan, 10, 10, i32(1), h16(tInt), u8(3), h16(world))
}

// programComms writes the communicator and group part of program: dup,
// split, create from groups, a Cartesian grid and MPI_COMM_SELF.
func programComms(w *binWriter, r int) {
	// Communicators: dup, split (color r%2, key −r), create from groups.
	w.call(idCommDup, 10, 10, h16(world), h16(4))
	w.call(idBarrier, 10, 10, h16(4))
	w.call(idCommSplit, 10, 10, h16(world), i32(r%2), i32(-r), h16(5))
	w.call(idBcast, 10, 10, i32(1), h16(tInt), i32(0), h16(5))
	if r < 2 { // rank 1 of {2,0} and of {3,1} sends to rank 0 of it
		w.call(idSend, 10, 10, i32(1), h16(tInt), i32(0), i32(13), h16(5))
	} else {
		w.call(idRecv, 10, 10, i32(1), h16(tInt), i32(1), i32(13), h16(5), sts(1))
	}
	w.call(idCommGroup, 10, 10, h16(world), h16(3))
	w.call(idGroupIncl, 10, 10, h16(3), i32(3), ints{3, 1, 0}, h16(4))         // {3,1,0}
	w.call(idGroupExcl, 10, 10, h16(3), i32(1), ints{2}, h16(5))               // {0,1,3}
	w.call(idGroupRangeIncl, 10, 10, h16(3), i32(1), rngs{{0, 3, 2}}, h16(6))  // {0,2}
	w.call(idGroupUnion, 10, 10, h16(6), h16(4), h16(7))                       // {0,2,3,1}
	w.call(idGroupIntersection, 10, 10, h16(4), h16(5), h16(8))                // {3,1,0}
	w.call(idGroupDifference, 10, 10, h16(3), h16(6), h16(9))                  // {1,3}
	w.call(idGroupRangeExcl, 10, 10, h16(3), i32(1), rngs{{1, 2, 1}}, h16(10)) // {0,3}
	comm := func(in []int, h uint16) h16 {
		if slices.Contains(in, r) {
			return h16(h)
		}
		return h16(commNull)
	}
	w.call(idCommCreate, 10, 10, h16(world), h16(8), comm([]int{0, 1, 3}, 6))
	if r != 2 {
		w.call(idAllreduce, 10, 10, i32(1), h16(tInt), u8(3), h16(6))
	}
	w.call(idCommCreate, 10, 10, h16(world), h16(10), comm([]int{0, 3}, 7))
	if r == 0 || r == 3 {
		w.call(idBarrier, 10, 10, h16(7))
	}
	w.call(idCommCreate, 10, 10, h16(world), h16(7), h16(8))
	if r == 2 { // the root, rank 1 of {0,2,3,1}
		w.call(idGather, 10, 10, i32(1), i32(1), h16(tInt), i32(1), h16(8), i32(1), h16(tInt))
	} else {
		w.call(idGather, 10, 10, i32([]int{0, 3, 1, 2}[r]), i32(1), h16(tInt), i32(1), h16(8))
	}
	w.call(idCommCreate, 10, 10, h16(world), h16(9), comm([]int{1, 3}, 9))
	switch r {
	case 1:
		w.call(idSend, 10, 10, i32(1), h16(tInt), i32(1), i32(14), h16(9))
	case 3:
		w.call(idRecv, 10, 10, i32(1), h16(tInt), i32(0), i32(14), h16(9), sts(1))
	}
	w.call(idGroupFree, 10, 10, h16(4))
	w.call(idCommFree, 10, 10, h16(4))
	// A 2×2 grid, split into columns: {0,2} and {1,3}.
	w.call(idCartCreate, 10, 10, h16(world), i32(2), ints{2, 2}, ints{0, 0}, i32(0), h16(10))
	w.call(idCartSub, 10, 10, i32(2), h16(10), ints{1, 0}, h16(11))
	w.call(idAllgather, 10, 10, i32(1), h16(tDouble), i32(1), h16(tDouble), h16(11))
	// A message to itself on MPI_COMM_SELF.
	w.call(idIsend, 10, 10, i32(1), h16(tInt), i32(0), i32(15), h16(self), i32(700))
	w.call(idRecv, 10, 10, i32(1), h16(tInt), i32(0), i32(15), h16(self), sts(1))
	w.call(idWait, 10, 10, i32(700), sts(1))
}

// programTypes writes derived datatypes and messages of them.
func programTypes(w *binWriter, r int, v [3]byte) {
	next, prev := (r+1)%4, (r+3)%4
	// Derived datatypes: 3 ints (12 B), 2×3 doubles (48 B), {int, 2
	// doubles} (20 B), a 2×3 int subarray (24 B).
	w.call(idTypeContiguous, 10, 10, i32(3), h16(tInt), h16(30))
	w.call(idTypeVector, 10, 10, i32(2), i32(3), i32(5), h16(tDouble), h16(31))
	if old(v) {
		w.call(idTypeStruct, 10, 10, i32(2), ints{1, 2}, i32(0), hs{tInt, tDouble}, h16(32))
	} else {
		w.call(idTypeStruct, 10, 10, i32(2), ints{1, 2}, ints{0, 8}, hs{tInt, tDouble}, h16(32))
	}
	w.call(idTypeCreateSubarray, 10, 10, i32(2), ints{4, 4}, ints{2, 3}, ints{0, 0}, u8(1), h16(tInt), h16(33))
	w.call(46, 10, 10, h16(30)) // MPI_Type_commit: skipped
	w.call(idIsend, 10, 10, i32(2), h16(30), i32(next), i32(16), h16(world), i32(800))
	w.call(idRecv, 10, 10, i32(1), h16(33), i32(prev), i32(16), h16(world), sts(1))
	w.call(idWait, 10, 10, i32(800), sts(1))
	w.call(idIsend, 10, 10, i32(1), h16(31), i32(next), i32(17), h16(world), i32(801))
	w.call(idIrecv, 10, 10, i32(1), h16(31), i32(prev), i32(17), h16(world), i32(802))
	w.call(idWaitall, 10, 10, i32(2), ints{801, 802}, sts(2))
	w.call(idBcast, 10, 10, i32(1), h16(32), i32(0), h16(world))
}

// kinds lists the event kinds of a rank without its compute events.
func kinds(rk mpi.Rank) []string {
	var out []string
	for _, e := range rk.Events {
		if e.Kind != mpi.Compute {
			out = append(out, e.Kind.String())
		}
	}
	return out
}

// matchAll pairs every send with one receive after mapping communicator
// ranks to world ranks (per sender, receiver and communicator, in order;
// a wildcard receive takes the first unmatched send to it in program
// order of the sender with the lowest rank). It returns the messages per
// sender rank, or an error naming an unmatched send or receive.
func matchAll(t *mpi.Trace) ([]int, error) {
	type key struct{ from, to, comm int32 }
	type msg struct {
		tag   int32
		bytes int64
	}
	sends := map[key][]msg{}
	perRank := make([]int, len(t.Ranks))
	for r, rk := range t.Ranks {
		for _, e := range rk.Events {
			if e.Kind == mpi.Send || e.Kind == mpi.Isend {
				c := t.Comm(e.Comm)
				k := key{int32(r), c.Members[e.Peer], e.Comm}
				sends[k] = append(sends[k], msg{e.Tag, e.Bytes})
				perRank[r]++
			}
		}
	}
	for r, rk := range t.Ranks {
		for i, e := range rk.Events {
			if e.Kind != mpi.Recv && e.Kind != mpi.Irecv {
				continue
			}
			c := t.Comm(e.Comm)
			matched := false
			for from := range t.Ranks {
				if e.Peer != mpi.AnySource && c.Members[e.Peer] != int32(from) {
					continue
				}
				k := key{int32(from), int32(r), e.Comm}
				for j, m := range sends[k] {
					if e.Tag == mpi.AnyTag || e.Tag == m.tag {
						sends[k] = slices.Delete(sends[k], j, j+1)
						matched = true
						break
					}
				}
				if matched {
					break
				}
			}
			if !matched {
				return nil, fmt.Errorf("rank %d event %d: %s from %d tag %d on %q matches no send", r, i, e.Kind, e.Peer, e.Tag, c.Name)
			}
		}
	}
	for k, l := range sends {
		if len(l) > 0 {
			return nil, fmt.Errorf("%d sends %d→%d on communicator %d are never received", len(l), k.from, k.to, k.comm)
		}
	}
	return perRank, nil
}

// replay lowers t and replays it, returning the matched-message counts.
func replay(t testing.TB, tr *mpi.Trace) []sim.MessageStats {
	t.Helper()
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := sim.NewMessageCounter(g, lower.CollectiveTagBase)
	if _, err := sim.Run(g, network.NewLogGOPS(2500, 1500, 1000, 6, 0, 65535), sim.Options{Observer: m}); err != nil {
		t.Fatal(err)
	}
	return m.Ranks
}

func TestWrittenRecords(t *testing.T) {
	for _, v := range versions {
		t.Run(fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]), func(t *testing.T) {
			ws := make([]*binWriter, 4)
			for r := range ws {
				ws[r] = program(r, v)
			}
			tr, info, err := ReadInfo(writeTrace(t, ws), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := info.Ranks[0].Version; got != fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) {
				t.Errorf("version %s", got)
			}
			// Every record read, and counted as the tracer counted it.
			for r, ri := range info.Ranks {
				for id, n := range ws[r].counts {
					if ri.Calls[id] != int(n) && id < numFuncSlots-1 {
						t.Errorf("rank %d: %d records of %s, wrote %d", r, ri.Calls[id], funcName(uint16(id)), n)
					}
				}
				if ri.ProcNull != 1 || ri.Cancelled != 1 || ri.UnknownRequests != 1 {
					t.Errorf("rank %d: proc-null %d cancelled %d unknown requests %d, want 1 each", r, ri.ProcNull, ri.Cancelled, ri.UnknownRequests)
				}
			}
			even := strings.Fields("isend recv wait send recv send isend isend isend wait waitall " +
				"isend irecv waitall isend irecv waitall isend irecv waitall isend irecv wait wait " +
				"barrier bcast reduce allreduce gather gather scatter scatter allgather allgather alltoall alltoallv alltoallv reduce_scatter scan scan " +
				"barrier bcast")
			if got := kinds(tr.Ranks[0])[:len(even)]; !slices.Equal(got, even) {
				t.Errorf("rank 0 events\n%v\nwant\n%v", got, even)
			}
			odd := strings.Fields("isend recv wait recv send irecv wait irecv irecv irecv wait wait wait")
			if got := kinds(tr.Ranks[1])[:len(odd)]; !slices.Equal(got, odd) {
				t.Errorf("rank 1 events\n%v\nwant\n%v", got, odd)
			}
			// Sizes: the collectives of rank 0 in order, then its last
			// point-to-point sizes (derived datatypes).
			var coll []int64
			var lists [][]int64
			for _, e := range tr.Ranks[0].Events {
				if e.Kind.IsCollective() {
					coll = append(coll, e.Bytes)
					if e.Kind == mpi.Alltoallv {
						lists = append(lists, tr.List(0, &e))
					}
				}
			}
			long := int64(4)
			if old(v) {
				long = 8 // no size table: LP64
			}
			wantColl := []int64{0, 64, 12, 32, 8, 10, 24, 10, 4, 10, 8, 0, 0, 32, 4, 4, // world
				0, 4, 4, 0, 4, 8, // dup, split, create ×3 (rank 0 is in all but the difference group), cart_sub
				20, 0} // the struct type; the barrier in "solver"
			if !slices.Equal(coll, wantColl) {
				t.Errorf("rank 0 collective sizes %v, want %v", coll, wantColl)
			}
			if want := [][]int64{{0, 8, 16, 0}, {4, 8, 1, long}}; len(lists) != 2 || !slices.Equal(lists[0], want[0]) || !slices.Equal(lists[1], want[1]) {
				t.Errorf("alltoallv/w sizes %v, want %v", lists, want)
			}
			// Communicators: world, dup, the split halves (key −rank), the
			// groups' communicators, the Cartesian columns, self.
			var comms []string
			for _, c := range tr.Comms {
				comms = append(comms, fmt.Sprint(c.Members))
			}
			wantComms := "[0 1 2 3] [0 1 2 3] [2 0] [3 1] [3 1 0] [0 3] [0 2 3 1] [1 3] [0 1 2 3] [0 2] [1 3] [0] [1] [2] [3]"
			if strings.Join(comms, " ") != wantComms {
				t.Errorf("communicators %s\nwant %s", strings.Join(comms, " "), wantComms)
			}
			// Compute: 1000 ns before the first Isend, named after MPI_Init
			// (the Comm_rank call between is not compute); 777 ns before and
			// 10 ns after the barrier inside "solver".
			var first, solver int64
			for _, e := range tr.Ranks[0].Events {
				if e.Kind == mpi.Compute && first == 0 {
					first = e.Duration
					if n := tr.Regions[e.Region]; n != "after MPI_Init" {
						t.Errorf("first region %q", n)
					}
				}
				if e.Kind == mpi.Compute && tr.Regions[e.Region] == "solver" {
					solver += e.Duration
				}
			}
			if first != 1005 || solver != 787 {
				t.Errorf("compute before the first send %d ns (want 1005: 5 + 1000), in solver %d ns (want 787: 777 + 10)", first, solver)
			}
			if _, err := matchAll(tr); err != nil {
				t.Error(err)
			}
			replay(t, tr)
		})
	}
}
