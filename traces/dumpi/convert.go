package dumpi

import (
	"fmt"
	"math"
	"slices"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// Handle values the tracer gives predefined objects.
const (
	commNull   = 1
	commWorld  = 2
	commSelf   = 3
	groupNull  = 1
	groupEmpty = 2
	reqNull    = 1
	// firstUserType is the first datatype id of a derived datatype; ids
	// below it are predefined and sized by the file's datatype-size table.
	firstUserType = 28
)

// Local communicator instances of a rank: every communicator the rank
// creates gets the next number. Events carry the instance until the
// communicators of all ranks are resolved to trace-wide ids.
const (
	instWorld = 0
	instSelf  = 1
)

// creationKind says how a new communicator's members follow from its
// parent's.
type creationKind uint8

const (
	cDup     creationKind = iota // same members
	cSplit                       // by color, ordered by key then parent rank
	cCreate                      // the members of a group
	cSubset                      // the members that got a communicator (Cart/Graph_create)
	cCartSub                     // a split by the coordinates of dimensions kept
)

// creation is one communicator-creating call of a rank.
type creation struct {
	id         uint16 // function id
	off        int64  // record offset
	parent     int    // local instance of the parent communicator
	seq        int    // earlier creations by this rank on the same parent
	color, key int64
	grp        *group
	remain     []int32 // Cart_sub: kept dimensions
	newInst    int     // local instance created, -1: MPI_COMM_NULL
	done       bool
}

// group is a process group, kept as the operations that built it; it is
// evaluated to world ranks once the communicators it derives from are
// resolved.
type group struct {
	base  int // local instance whose group this starts from; -1: empty
	op    uint16
	ranks []int32 // incl/excl ranks, or flattened range triplets
	other *group  // union, intersection, difference
	prev  *group  // the group the operation applies to
}

// pending is an outstanding nonblocking request of a rank.
type pending struct {
	req   int64
	event int // index of the Isend/Irecv event
}

// rankConv turns one rank's records into its events.
type rankConv struct {
	rank  int
	path  string   // the rank's .bin file
	files []string // every rank's .bin file, by rank
	meta  string   // the trace's .meta file
	t     *mpi.Trace
	b     *binFile
	opt   Options
	info  *RankInfo

	comms     map[uint16]int // communicator handle → local instance
	ninst     int
	cartDims  map[int][]int32 // local instance → Cartesian dimensions
	groups    map[uint16]*group
	types     map[uint16]int64 // derived datatype → size in bytes
	reqs      map[int32]pending
	persist   map[int32]mpi.Event // persistent requests: their template
	nextReq   int64
	creations []creation
	perParent map[int]int // creations so far per parent instance

	// Compute between calls.
	started  bool
	lastStop int64
	curStart int64 // start of the last timed call: the end of the compute before it
	gap      int64 // compute time accumulated since the last event
	after    int   // function id of the last call that became an event, -1: none
	regs     *regions
	fnStack  []uint64

	// The recorded run, by the wall clock: first start, last stop, the
	// stop of MPI_Init and the start of MPI_Finalize.
	wallFirst, wallLast, initStop, finStart int64
	wallSeen, inited, finalized             bool

	vColl []int32 // events whose Bytes are averaged over the members afterwards
	// sizes are what the rank's gathers, scatters, allgathers,
	// alltoalls and reduce_scatters send and receive per member, for
	// mpi.CheckSizes once the communicators are resolved.
	sizes []mpi.CollSizes

	// Buffers reused from record to record.
	one     [1]int32
	scratch []int64
	idx     []int32
}

func newRankConv(rank int, t *mpi.Trace, b *binFile, opt Options, info *RankInfo, regs *regions) *rankConv {
	return &rankConv{rank: rank, path: b.path, t: t, b: b, opt: opt, info: info, regs: regs, after: -1,
		comms: map[uint16]int{commWorld: instWorld, commSelf: instSelf}, ninst: 2,
		cartDims: map[int][]int32{}, groups: map[uint16]*group{}, types: map[uint16]int64{},
		reqs: map[int32]pending{}, persist: map[int32]mpi.Event{}, perParent: map[int]int{}}
}

// checkWorld checks what an MPI_Comm_rank or MPI_Comm_size on
// MPI_COMM_WORLD returned against the file's place in the trace: the rank
// a file records for itself is the only thing in a DUMPI file that names
// its rank (the header holds the host, the user, the start time and the
// node's mesh coordinates), so a rank file copied over another, or one of
// another run, is refused here instead of replaying as a deadlock.
func (c *rankConv) checkWorld(r *record) error {
	v := r.v
	if v[0] != commWorld {
		return nil
	}
	n := int64(len(c.t.Ranks))
	switch {
	case r.id == idCommSize && v[1] != n:
		return c.recError(r, "MPI_COMM_WORLD has %d ranks, the trace %d (%s): the file is of another run", v[1], n, c.meta)
	case r.id == idCommRank && v[1] != int64(c.rank) && v[1] >= 0 && v[1] < n:
		return c.recError(r, "the file records itself as rank %d of MPI_COMM_WORLD, as %s does, not as rank %d: a rank file copied over another?", v[1], c.files[v[1]], c.rank)
	case r.id == idCommRank && v[1] != int64(c.rank):
		return c.recError(r, "the file records itself as rank %d of MPI_COMM_WORLD, not rank %d of %d: the file is of another run", v[1], c.rank, n)
	}
	return nil
}

// recError is an error about one record.
func (c *rankConv) recError(r *record, format string, a ...any) error {
	return fmt.Errorf("%s: offset %d: %s: %s", c.path, r.off, r.name(), fmt.Sprintf(format, a...))
}

// run converts the whole stream.
func (c *rankConv) run() error {
	s := newStream(c.b)
	c.t.Ranks[c.rank].File = c.path
	for k := int32(0); s.next(); k++ {
		r := &s.rec
		c.info.Calls[r.id]++
		if err := c.record(r); err != nil {
			return err
		}
		c.t.Mark(c.rank, k)
	}
	if s.d.err != nil {
		return fmt.Errorf("%s: %w", c.path, s.d.err)
	}
	return nil
}

// clock returns the start and stop of r on the chosen clock, and whether
// the record has them.
func (c *rankConv) clock(r *record) (int64, int64, bool) {
	if c.opt.CPUClock {
		return r.cpu[0], r.cpu[1], r.mask&maskCPU != 0
	}
	return r.wall[0], r.wall[1], r.mask&maskWall != 0
}

// timed accounts the time between the previous call and r as compute.
func (c *rankConv) timed(r *record) {
	start, stop, ok := c.clock(r)
	if !ok {
		return
	}
	if c.started && start > c.lastStop {
		c.gap += start - c.lastStop
	}
	c.started = true
	c.curStart, c.lastStop = start, max(stop, start)
}

// regions interns compute-region names for all ranks of a trace without
// building a string per compute event.
type regions struct {
	t      *mpi.Trace
	byCall [len(funcs) + 1]int32 // "after <call>" by function id (+1: none yet)
	byName map[string]int32
}

func newRegions(t *mpi.Trace) *regions { return &regions{t: t, byName: map[string]int32{}} }

func (g *regions) named(name string) int32 {
	if id, ok := g.byName[name]; ok {
		return id
	}
	id := g.t.Region(name)
	g.byName[name] = id
	return id
}

// region returns the region of the compute before the next event.
func (c *rankConv) region() int32 {
	g := c.regs
	if c.opt.Regions == RegionsSingle {
		return g.named("compute")
	}
	if n := len(c.fnStack); n > 0 {
		if name, ok := c.b.funcNames[c.fnStack[n-1]]; ok && name != "" {
			return g.named(name)
		}
		return g.named(fmt.Sprintf("function %#x", c.fnStack[n-1]))
	}
	slot := len(funcs)
	if c.after >= 0 {
		slot = int(c.after)
	}
	if g.byCall[slot] == 0 {
		name := "compute"
		if c.after >= 0 {
			name = "after " + funcName(uint16(c.after))
		}
		g.byCall[slot] = g.named(name)
	}
	return g.byCall[slot]
}

// flush emits the accumulated compute.
func (c *rankConv) flush() {
	if c.gap > 0 {
		e := mpi.Event{Kind: mpi.Compute, Region: c.region(), Duration: c.gap}
		if c.started && c.opt.Stamps {
			c.t.AppendStamped(c.rank, e, mpi.Stamp{Start: c.curStart - c.gap, End: c.curStart})
		} else {
			c.t.Append(c.rank, e)
		}
		c.gap = 0
	}
}

// emit appends an MPI event for record r after the compute before it.
func (c *rankConv) emit(r *record, e mpi.Event) int {
	c.flush()
	start, stop, ok := c.clock(r)
	if ok && stop > start {
		e.Duration = stop - start
	}
	c.after = int(r.id)
	if ok && c.opt.Stamps {
		c.t.AppendStamped(c.rank, e, mpi.Stamp{Start: start, End: max(start, stop)})
	} else {
		c.t.Append(c.rank, e)
	}
	return len(c.t.Ranks[c.rank].Events) - 1
}

func (c *rankConv) emitList(r *record, e mpi.Event, list []int64) int {
	c.flush()
	start, stop, ok := c.clock(r)
	if ok && stop > start {
		e.Duration = stop - start
	}
	c.after = int(r.id)
	c.t.AppendList(c.rank, e, list)
	if ok && c.opt.Stamps {
		rk := &c.t.Ranks[c.rank]
		if rk.Stamps == nil {
			rk.Stamps = make([]mpi.Stamp, len(rk.Events))
		}
		rk.Stamps[len(rk.Stamps)-1] = mpi.Stamp{Start: start, End: max(start, stop)}
	}
	return len(c.t.Ranks[c.rank].Events) - 1
}

func (c *rankConv) skip(r *record) { c.info.Skipped[r.id]++ }

// comm maps a communicator handle to the rank's local instance.
func (c *rankConv) comm(r *record, h int64) (int32, error) {
	inst, ok := c.comms[uint16(h)]
	if !ok {
		if h == commNull {
			return 0, c.recError(r, "called on MPI_COMM_NULL")
		}
		return 0, c.recError(r, "unknown communicator handle %d (not created in this trace)", h)
	}
	return int32(inst), nil
}

// typeSize returns the size in bytes of datatype handle h.
func (c *rankConv) typeSize(r *record, h int64) (int64, error) {
	if s, ok := c.knownTypeSize(h); ok {
		return s, nil
	}
	return 0, c.recError(r, "datatype %d has no known size", h)
}

// knownTypeSize returns the size in bytes of datatype handle h: a type
// the trace defined, or a predefined one of known size; ok is false
// otherwise.
func (c *rankConv) knownTypeSize(h int64) (int64, bool) {
	if s, ok := c.types[uint16(h)]; ok {
		return s, true
	}
	if h >= 0 && h < firstUserType && h < int64(len(c.b.typeSizes)) && c.b.typeSizes[h] >= 0 {
		return c.b.typeSizes[h], true
	}
	return 0, false
}

// bytes returns count elements of datatype h in bytes.
func (c *rankConv) bytes(r *record, count, h int64) (int64, error) {
	if count < 0 {
		return 0, c.recError(r, "negative count %d", count)
	}
	s, err := c.typeSize(r, h)
	if err != nil {
		return 0, err
	}
	return count * s, nil
}

func (c *rankConv) newReq() int64 { c.nextReq++; return c.nextReq }

// observe follows the recorded run on the wall clock.
func (c *rankConv) observe(r *record) {
	if r.mask&maskWall == 0 {
		return
	}
	start, stop := r.wall[0], max(r.wall[0], r.wall[1])
	if !c.wallSeen {
		c.wallSeen, c.wallFirst = true, start
	}
	c.wallLast = max(c.wallLast, stop)
	switch {
	case (r.id == idInit || r.id == idInitThread) && !c.inited:
		c.inited, c.initStop = true, stop
	case r.id == idFinalize && !c.finalized:
		c.finalized, c.finStart = true, start
	}
}

// span returns the rank's recorded span in ns: from the stop of MPI_Init
// (else the first record's start) to the start of MPI_Finalize (else the
// last record's stop); 0 without wall-clock times.
func (c *rankConv) span() int64 {
	if !c.wallSeen {
		return 0
	}
	from, to := c.wallFirst, c.wallLast
	if c.inited {
		from = c.initStop
	}
	if c.finalized {
		to = c.finStart
	}
	return min(max(0, to-from), graph.MaxTimeNs)
}

// record interprets one record: function enter and exit (the rank's
// call stack for region names), MPI_Init, then each family of MPI calls in
// its own step; what no step claims is rejected or skipped by unsupported.
func (c *rankConv) record(r *record) error {
	c.observe(r)
	v := r.v
	switch r.id {
	case idFunctionEnter, idFunctionExit:
		c.timed(r)
		c.flush()
		if r.id == idFunctionEnter {
			c.fnStack = append(c.fnStack, uint64(v[0]))
		} else if n := len(c.fnStack); n > 0 {
			c.fnStack = c.fnStack[:n-1]
		}
		return nil
	}
	c.timed(r)
	switch r.id {
	case idInit, idInitThread:
		c.after = int(r.id) // the first compute is "after MPI_Init"
		c.skip(r)
		return nil
	}
	if done, err := c.pointToPoint(r); done {
		return err
	}
	if done, err := c.collective(r); done {
		return err
	}
	if done, err := c.communicator(r); done {
		return err
	}
	if done, err := c.datatype(r); done {
		return err
	}
	return c.unsupported(r)
}

// pointToPoint interprets the records of point-to-point operations and
// their requests (starts, completions, frees, cancels); false if r is
// none of them.
func (c *rankConv) pointToPoint(r *record) (bool, error) {
	v := r.v
	switch r.id {
	case idSend, idBsend, idSsend, idRsend:
		return true, c.p2p(r, mpi.Send, v[0], v[1], v[2], v[3], v[4], false, 0)
	case idRecv:
		return true, c.p2p(r, mpi.Recv, v[0], v[1], v[2], v[3], v[4], false, 0)
	case idIsend, idIbsend, idIssend, idIrsend:
		return true, c.p2p(r, mpi.Isend, v[0], v[1], v[2], v[3], v[4], true, int32(v[5]))
	case idIrecv:
		return true, c.p2p(r, mpi.Irecv, v[0], v[1], v[2], v[3], v[4], true, int32(v[5]))
	case idSendInit, idBsendInit, idSsendInit, idRsendInit, idRecvInit:
		kind := mpi.Isend
		if r.id == idRecvInit {
			kind = mpi.Irecv
		}
		e, ok, err := c.p2pEvent(r, kind, v[0], v[1], v[2], v[3], v[4])
		if err != nil {
			return true, err
		}
		if !ok {
			e.Kind = mpi.Compute // a persistent request with MPI_PROC_NULL: starts nothing
		}
		c.persist[int32(v[5])] = e
		c.skip(r)
		return true, nil
	case idStart:
		c.one[0] = int32(v[0])
		return true, c.start(r, c.one[:])
	case idStartall:
		return true, c.start(r, r.array(0))
	case idSendrecv, idSendrecvReplace:
		return true, c.sendrecv(r)
	case idWait:
		c.one[0] = int32(v[0])
		return true, c.complete(r, c.one[:])
	case idTest:
		if v[1] == 0 {
			c.skip(r)
			return true, nil
		}
		c.one[0] = int32(v[0])
		return true, c.complete(r, c.one[:])
	case idWaitall:
		return true, c.complete(r, r.array(0))
	case idTestall: // count, requests, flag
		if v[1] == 0 {
			c.skip(r)
			return true, nil
		}
		return true, c.complete(r, r.array(0))
	case idWaitany, idTestany:
		reqs, index := r.array(0), v[1]
		if r.id == idTestany && v[2] == 0 || index < 0 || index >= int64(len(reqs)) {
			c.skip(r) // nothing completed (MPI_UNDEFINED or flag false)
			return true, nil
		}
		return true, c.complete(r, reqs[index:index+1])
	case idWaitsome, idTestsome:
		reqs, idx := r.array(0), r.array(1)
		done := c.idx[:0]
		for _, i := range idx {
			if i < 0 || int(i) >= len(reqs) {
				return true, c.recError(r, "completed index %d outside the %d requests", i, len(reqs))
			}
			done = append(done, reqs[i])
		}
		c.idx = done
		return true, c.complete(r, done)
	case idRequestFree:
		h := int32(v[0])
		delete(c.reqs, h)
		delete(c.persist, h)
		c.skip(r)
		return true, nil
	case idCancel:
		// A cancelled request never matches: its operation is dropped
		// (kept as an empty compute event so indices stay valid).
		h := int32(v[0])
		if p, ok := c.reqs[h]; ok {
			c.t.Ranks[c.rank].Events[p.event] = mpi.Event{Kind: mpi.Compute}
			delete(c.reqs, h)
		}
		c.info.Cancelled++
		c.skip(r)
		return true, nil
	}
	return false, nil
}

// collective interprets the records of collective operations; false if r
// is none of them.
func (c *rankConv) collective(r *record) (bool, error) {
	if err := c.perMember(r); err != nil {
		return true, err
	}
	v := r.v
	switch r.id {
	case idBarrier:
		return true, c.coll(r, mpi.Barrier, v[0], 0, 0, false)
	case idBcast:
		n, err := c.bytes(r, v[0], v[1])
		if err != nil {
			return true, err
		}
		return true, c.coll(r, mpi.Bcast, v[3], n, v[2], false)
	case idReduce:
		n, err := c.bytes(r, v[0], v[1])
		if err != nil {
			return true, err
		}
		return true, c.coll(r, mpi.Reduce, v[4], n, v[3], false)
	case idAllreduce, idScan, idExscan:
		n, err := c.bytes(r, v[0], v[1])
		if err != nil {
			return true, err
		}
		kind := mpi.Allreduce
		if r.id != idAllreduce {
			kind = mpi.Scan
		}
		return true, c.coll(r, kind, v[3], n, 0, false)
	case idGather, idScatter, idGatherv, idScatterv:
		if err := c.rooted(r); err != nil {
			return true, err
		}
		c.rootedSizes(r)
		return true, nil
	case idAllgather, idAlltoall:
		// sendcount, sendtype, recvcount, recvtype, comm: the receive side
		// is what every rank gets per member, also with MPI_IN_PLACE.
		n, err := c.bytes(r, v[2], v[3])
		if err != nil {
			return true, err
		}
		kind := mpi.Allgather
		if r.id == idAlltoall {
			kind = mpi.Alltoall
		}
		if err := c.coll(r, kind, v[4], n, 0, false); err != nil {
			return true, err
		}
		c.sized(mpi.CollSizes{Send: c.size(v[0], v[1]), Recv: n})
		return true, nil
	case idAllgatherv:
		// commsize, sendcount, sendtype, recvcounts, displs, recvtype, comm
		n, err := c.meanBytes(r, r.array(0), v[3])
		if err != nil {
			return true, err
		}
		if err := c.coll(r, mpi.Allgather, v[4], n, 0, false); err != nil {
			return true, err
		}
		c.sized(mpi.CollSizes{Send: c.size(v[1], v[2]), Recvs: c.sizes32(r.array(0), v[3])})
		return true, nil
	case idReduceScatter:
		// commsize, recvcounts, type, op, comm
		var total int64
		for _, x := range r.array(0) {
			n, err := c.bytes(r, int64(x), v[1])
			if err != nil {
				return true, err
			}
			total += n
		}
		if err := c.coll(r, mpi.ReduceScatter, v[3], total, 0, false); err != nil {
			return true, err
		}
		// Every member sends each the block its receive count names.
		c.sized(mpi.CollSizes{Sends: c.sizes32(r.array(0), v[1])})
		return true, nil
	case idAlltoallv, idAlltoallw:
		return true, c.alltoallv(r)
	}
	return false, nil
}

// size is count elements of datatype h in bytes, −1 where the trace does
// not give the size (a negative count, a datatype of unknown size): for
// the side of a call its event does not use, which only the check of
// mpi.CheckSizes reads, and which MPI ignores in some calls (the send
// side with MPI_IN_PLACE).
func (c *rankConv) size(count, h int64) int64 {
	s, ok := c.knownTypeSize(h)
	if !ok || count < 0 {
		return -1
	}
	return count * s
}

// sizes32 is size for each of counts, of datatype h.
func (c *rankConv) sizes32(counts []int32, h int64) []int64 {
	out := make([]int64, len(counts))
	for i, x := range counts {
		out[i] = c.size(int64(x), h)
	}
	return out
}

// sized keeps what the collective just emitted sends and receives per
// member.
func (c *rankConv) sized(s mpi.CollSizes) {
	s.Event = int32(len(c.t.Ranks[c.rank].Events) - 1)
	c.sizes = append(c.sizes, s)
}

// rootedSizes keeps what the gather or scatter just emitted sends and
// receives: a member's own count, and on the root the count or counts
// per member of the other side.
func (c *rankConv) rootedSizes(r *record) {
	v := r.v
	s := mpi.CollSizes{Send: -1, Recv: -1}
	switch r.id {
	case idGather: // commrank, sendcount, sendtype, root, comm [, recvcount, recvtype]
		s.Send = c.size(v[1], v[2])
		if v[0] == v[3] && len(v) >= 7 {
			s.Recv = c.size(v[5], v[6])
		}
	case idScatter: // commrank, recvcount, recvtype, root, comm [, sendcount, sendtype]
		s.Recv = c.size(v[1], v[2])
		if v[0] == v[3] && len(v) >= 7 {
			s.Send = c.size(v[5], v[6])
		}
	case idGatherv: // commrank, commsize, sendcount, sendtype, root, comm [, counts, displs], recvtype
		s.Send = c.size(v[2], v[3])
		if v[0] == v[4] {
			s.Recvs = c.sizes32(r.array(0), v[6])
		}
	default: // idScatterv: commrank, commsize, sendtype, recvcount, recvtype, root, comm [, counts, displs]
		s.Recv = c.size(v[3], v[4])
		if v[0] == v[5] {
			s.Sends = c.sizes32(r.array(0), v[2])
		}
	}
	c.sized(s)
}

// perMember checks that each per-member array of collective record r
// (counts, displacements, datatypes) has one entry per member of the
// communicator, as the size the record stores says: an array of another
// length would be read as the counts of other members. Records of other
// calls pass.
func (c *rankConv) perMember(r *record) error {
	v := r.v
	var size int64
	var arrays []int
	switch r.id {
	case idGatherv: // commrank, commsize, …, root, …: the root's counts and displacements
		if v[0] == v[4] {
			size, arrays = v[1], []int{0, 1}
		}
	case idScatterv:
		if v[0] == v[5] {
			size, arrays = v[1], []int{0, 1}
		}
	case idAllgatherv:
		size, arrays = v[0], []int{0, 1}
	case idAlltoallv:
		size, arrays = v[0], []int{0, 1, 2, 3}
	case idAlltoallw:
		size, arrays = v[0], []int{0, 1, 2, 3, 4, 5}
	case idReduceScatter:
		size, arrays = v[0], []int{0}
	}
	for _, k := range arrays {
		if k < r.narr && int64(len(r.array(k))) != size {
			return c.recError(r, "a per-member array of %d entries for a communicator of %d ranks (the call's size field)", len(r.array(k)), size)
		}
	}
	return nil
}

// rooted converts the gathers and scatters: each rank moves its own
// count, the root the per-rank count it names (the mean for the v forms).
func (c *rankConv) rooted(r *record) error {
	v := r.v
	switch r.id {
	case idGather, idScatter:
		// commrank, count, type, root, comm [, root's count, root's type]
		n, err := c.bytes(r, v[1], v[2])
		if err != nil {
			return err
		}
		if v[0] == v[3] && len(v) >= 7 { // the root's per-rank count (robust to MPI_IN_PLACE)
			if n, err = c.bytes(r, v[5], v[6]); err != nil {
				return err
			}
		}
		kind := mpi.Gather
		if r.id == idScatter {
			kind = mpi.Scatter
		}
		return c.coll(r, kind, v[4], n, v[3], false)
	case idGatherv:
		// commrank, commsize, sendcount, sendtype, root, comm [, counts, displs], recvtype
		n, err := c.bytes(r, v[2], v[3])
		if err != nil {
			return err
		}
		if v[0] == v[4] {
			if n, err = c.meanBytes(r, r.array(0), v[6]); err != nil {
				return err
			}
		}
		return c.coll(r, mpi.Gather, v[5], n, v[4], true)
	default: // idScatterv
		// commrank, commsize, sendtype, recvcount, recvtype, root, comm [, counts, displs]
		n, err := c.bytes(r, v[3], v[4])
		if err != nil {
			return err
		}
		if v[0] == v[5] {
			if n, err = c.meanBytes(r, r.array(0), v[2]); err != nil {
				return err
			}
		}
		return c.coll(r, mpi.Scatter, v[6], n, v[5], true)
	}
}

// communicator interprets the records that create and free communicators
// and groups; false if r is none of them.
func (c *rankConv) communicator(r *record) (bool, error) {
	v := r.v
	switch r.id {
	case idCommDup:
		return true, c.create(r, creation{parent: -1, color: 0}, v[0], v[1])
	case idCommSplit:
		return true, c.create(r, creation{color: v[1], key: v[2]}, v[0], v[3])
	case idCommCreate:
		g, ok := c.groups[uint16(v[1])]
		if !ok && v[1] != groupEmpty {
			return true, c.recError(r, "unknown group handle %d", v[1])
		}
		if !ok {
			g = &group{base: -1}
		}
		return true, c.create(r, creation{grp: g}, v[0], v[2])
	case idCartCreate:
		// oldcomm, ndims, dims, periods, reorder, newcomm
		if err := c.create(r, creation{}, v[0], v[3]); err != nil {
			return true, err
		}
		if v[3] != commNull {
			c.cartDims[c.ninst-1] = append([]int32(nil), r.array(0)...)
		}
		return true, nil
	case idGraphCreate:
		// nnodes, oldcomm, nnodes again, index, edges, reorder, newcomm
		return true, c.create(r, creation{}, v[1], v[4])
	case idCartSub:
		// ndims, oldcomm, remain_dims, newcomm
		return true, c.create(r, creation{remain: append([]int32(nil), r.array(0)...)}, v[1], v[2])
	case idCommRank, idCommSize:
		c.skip(r)
		return true, c.checkWorld(r)
	case idCommFree:
		if v[0] != commWorld && v[0] != commSelf {
			delete(c.comms, uint16(v[0]))
		}
		c.skip(r)
		return true, nil
	case idCommGroup:
		inst, err := c.comm(r, v[0])
		if err != nil {
			return true, err
		}
		c.groups[uint16(v[1])] = &group{base: int(inst)}
		c.skip(r)
		return true, nil
	case idGroupIncl, idGroupExcl, idGroupRangeIncl, idGroupRangeExcl:
		g, ok := c.groups[uint16(v[0])]
		if !ok {
			return true, c.recError(r, "unknown group handle %d", v[0])
		}
		c.groups[uint16(v[2])] = &group{base: g.base, op: r.id, ranks: append([]int32(nil), r.array(0)...), prev: g}
		c.skip(r)
		return true, nil
	case idGroupUnion, idGroupIntersection, idGroupDifference:
		g1, ok1 := c.groups[uint16(v[0])]
		g2, ok2 := c.groups[uint16(v[1])]
		if !ok1 || !ok2 {
			return true, c.recError(r, "unknown group handle %d or %d", v[0], v[1])
		}
		c.groups[uint16(v[2])] = &group{base: g1.base, op: r.id, other: g2, prev: g1}
		c.skip(r)
		return true, nil
	case idGroupFree:
		delete(c.groups, uint16(v[0]))
		c.skip(r)
		return true, nil
	}
	return false, nil
}

// datatype interprets the records that define derived datatypes or report
// a datatype's size; false if r is none of them.
func (c *rankConv) datatype(r *record) (bool, error) {
	v := r.v
	switch r.id {
	case idTypeContiguous: // count, oldtype, newtype
		return true, c.defType(r, v[2], v[0], v[1])
	case idTypeVector, idTypeHvector, idTypeCreateHvector: // count, blocklength, stride, oldtype, newtype
		return true, c.defType(r, v[4], v[0]*v[1], v[3])
	case idTypeIndexed, idTypeHindexed, idTypeCreateHindexed: // count, lengths, displs, oldtype, newtype
		return true, c.defType(r, v[2], sum(r.array(0)), v[1])
	case idTypeCreateIndexedBlock: // count, blocklength, displs, oldtype, newtype
		return true, c.defType(r, v[3], v[0]*v[1], v[2])
	case idTypeStruct, idTypeCreateStruct: // count, lengths, displs, types, newtype
		lens, types := r.array(0), r.array(r.narr-1) // old files: no displacement array
		if len(lens) != len(types) {
			return true, c.recError(r, "%d block lengths for %d types", len(lens), len(types))
		}
		var total int64
		for i := range lens {
			n, err := c.bytes(r, int64(lens[i]), int64(types[i]))
			if err != nil {
				return true, err
			}
			total += n
		}
		c.types[uint16(v[len(v)-1])] = total
		c.skip(r)
		return true, nil
	case idTypeCreateSubarray: // ndims, sizes, subsizes, starts, order, oldtype, newtype
		n := int64(1)
		for _, s := range r.array(1) {
			n *= int64(s)
		}
		return true, c.defType(r, v[3], n, v[2])
	case idTypeDup: // oldtype, newtype
		return true, c.defType(r, v[1], 1, v[0])
	case idTypeCreateResized: // oldtype, lb, extent, newtype
		return true, c.defType(r, v[3], 1, v[0])
	case idTypeSize: // datatype, size: the size as MPI reported it
		if v[0] >= firstUserType && v[1] >= 0 {
			c.types[uint16(v[0])] = v[1]
		}
		c.skip(r)
		return true, nil
	}
	return false, nil
}

// unsupported rejects what replay cannot express (distributed arrays,
// intercommunicators, dynamic processes, one-sided communication) and
// skips every other record: environment and attribute queries, datatype
// commits and frees, probes, MPI-IO, ... have no part in replay.
func (c *rankConv) unsupported(r *record) error {
	v := r.v
	switch r.id {
	case idTypeCreateDarray:
		return c.recError(r, "distributed-array datatypes are not supported")
	case idIntercommCreate, idIntercommMerge, idCommRemoteGroup, idCommSpawn, idCommSpawnMultiple,
		idCommAccept, idCommConnect, idCommJoin:
		return c.recError(r, "intercommunicators and dynamic processes are not supported")
	case idCommGetParent:
		if v[0] != commNull {
			return c.recError(r, "spawned processes are not supported")
		}
		c.skip(r)
		return nil
	}
	if r.id >= idAccumulate && r.id <= 154 { // one-sided communication
		return c.recError(r, "one-sided communication (MPI windows) is not supported")
	}
	c.skip(r)
	return nil
}

func sum(a []int32) int64 {
	var s int64
	for _, x := range a {
		s += int64(x)
	}
	return s
}

// defType records that derived datatype h is count elements of old.
func (c *rankConv) defType(r *record, h, count, old int64) error {
	n, err := c.bytes(r, count, old)
	if err != nil {
		return err
	}
	c.types[uint16(h)] = n
	c.skip(r)
	return nil
}

// meanBytes is the mean of counts of type h, in bytes, rounded.
func (c *rankConv) meanBytes(r *record, counts []int32, h int64) (int64, error) {
	if len(counts) == 0 {
		return 0, nil
	}
	s, err := c.typeSize(r, h)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, x := range counts {
		if x < 0 {
			return 0, c.recError(r, "negative count %d", x)
		}
		total += int64(x)
	}
	return int64(math.Round(float64(total*s) / float64(len(counts)))), nil
}

// p2pEvent builds a point-to-point event; ok is false for MPI_PROC_NULL.
func (c *rankConv) p2pEvent(r *record, kind mpi.Kind, count, dtype, peer, tag, comm int64) (mpi.Event, bool, error) {
	inst, err := c.comm(r, comm)
	if err != nil {
		return mpi.Event{}, false, err
	}
	n, err := c.bytes(r, count, dtype)
	if err != nil {
		return mpi.Event{}, false, err
	}
	recv := kind == mpi.Recv || kind == mpi.Irecv
	e := mpi.Event{Kind: kind, Comm: inst, Peer: int32(peer), Tag: int32(tag), Bytes: n}
	if peer < 0 && !(recv && peer == -1) {
		return e, false, nil // MPI_PROC_NULL (or MPI_ROOT): no message
	}
	if recv && peer == -1 {
		e.Peer = mpi.AnySource
	}
	if recv && tag == -1 {
		e.Tag = mpi.AnyTag
	}
	return e, true, nil
}

// p2p converts a send or receive; nonblocking ones register request h.
func (c *rankConv) p2p(r *record, kind mpi.Kind, count, dtype, peer, tag, comm int64, nb bool, h int32) error {
	e, ok, err := c.p2pEvent(r, kind, count, dtype, peer, tag, comm)
	if err != nil {
		return err
	}
	if !ok {
		c.info.ProcNull++
		c.skip(r)
		return nil
	}
	if nb {
		e.Req = c.newReq()
		i := c.emit(r, e)
		c.reqs[h] = pending{req: e.Req, event: i}
		return nil
	}
	c.emit(r, e)
	return nil
}

// start activates persistent requests.
func (c *rankConv) start(r *record, hs []int32) error {
	started := false
	for _, h := range hs {
		tpl, ok := c.persist[h]
		if !ok {
			return c.recError(r, "request %d is not a persistent request", h)
		}
		if tpl.Kind == mpi.Compute {
			continue // MPI_PROC_NULL
		}
		e := tpl
		e.Req = c.newReq()
		i := c.emit(r, e)
		c.reqs[h] = pending{req: e.Req, event: i}
		started = true
	}
	if !started {
		c.skip(r)
	}
	return nil
}

// sendrecv is a send and a receive posted together and both waited for.
func (c *rankConv) sendrecv(r *record) error {
	v := r.v
	var s, q mpi.Event
	var sok, qok bool
	var err error
	if r.id == idSendrecv { // sendcount, sendtype, dest, sendtag, recvcount, recvtype, source, recvtag, comm
		if s, sok, err = c.p2pEvent(r, mpi.Isend, v[0], v[1], v[2], v[3], v[8]); err != nil {
			return err
		}
		if q, qok, err = c.p2pEvent(r, mpi.Irecv, v[4], v[5], v[6], v[7], v[8]); err != nil {
			return err
		}
	} else { // count, type, dest, sendtag, source, recvtag, comm
		if s, sok, err = c.p2pEvent(r, mpi.Isend, v[0], v[1], v[2], v[3], v[6]); err != nil {
			return err
		}
		if q, qok, err = c.p2pEvent(r, mpi.Irecv, v[0], v[1], v[4], v[5], v[6]); err != nil {
			return err
		}
	}
	reqs := c.scratch[:0]
	for i, e := range [2]mpi.Event{s, q} {
		if ok := [2]bool{sok, qok}[i]; !ok {
			c.info.ProcNull++
			continue
		}
		e.Req = c.newReq()
		c.emit(r, e)
		reqs = append(reqs, e.Req)
	}
	c.scratch = reqs
	if len(reqs) == 0 {
		c.skip(r)
		return nil
	}
	c.emitList(r, mpi.Event{Kind: mpi.Waitall}, reqs)
	return nil
}

// complete waits for the requests hs; handles without an outstanding
// request (MPI_REQUEST_NULL, already completed, freed) are ignored.
func (c *rankConv) complete(r *record, hs []int32) error {
	reqs := c.scratch[:0]
	for _, h := range hs {
		p, ok := c.reqs[h]
		if !ok {
			if h != reqNull {
				c.info.UnknownRequests++
			}
			continue
		}
		delete(c.reqs, h)
		reqs = append(reqs, p.req)
	}
	c.scratch = reqs
	switch len(reqs) {
	case 0:
		c.skip(r)
	case 1:
		c.emit(r, mpi.Event{Kind: mpi.Wait, Req: reqs[0]})
	default:
		c.emitList(r, mpi.Event{Kind: mpi.Waitall}, reqs)
	}
	return nil
}

// coll converts a collective on communicator handle comm.
func (c *rankConv) coll(r *record, kind mpi.Kind, comm, bytes, root int64, vari bool) error {
	inst, err := c.comm(r, comm)
	if err != nil {
		return err
	}
	if bytes < 0 {
		return c.recError(r, "negative size %d", bytes)
	}
	e := mpi.Event{Kind: kind, Comm: inst, Bytes: bytes}
	if kind.IsRooted() {
		e.Peer = int32(root)
	}
	i := c.emit(r, e)
	if vari {
		c.vColl = append(c.vColl, int32(i))
	}
	return nil
}

// alltoallv converts MPI_Alltoallv (one send type) and MPI_Alltoallw (a
// type per member) into per-member byte counts.
func (c *rankConv) alltoallv(r *record) error {
	v := r.v
	counts := r.array(0)
	var comm int64
	list := slices.Grow(c.scratch[:0], len(counts))[:len(counts)]
	c.scratch = list
	if r.id == idAlltoallv { // commsize, sendcounts, sdispls, sendtype, recvcounts, rdispls, recvtype, comm
		comm = v[3]
		for i, x := range counts {
			n, err := c.bytes(r, int64(x), v[1])
			if err != nil {
				return err
			}
			list[i] = n
		}
	} else { // commsize, sendcounts, sdispls, sendtypes, recvcounts, rdispls, recvtypes, comm
		comm = v[1]
		types := r.array(2)
		if len(types) != len(counts) {
			return c.recError(r, "%d send counts for %d send types", len(counts), len(types))
		}
		for i, x := range counts {
			n, err := c.bytes(r, int64(x), int64(types[i]))
			if err != nil {
				return err
			}
			list[i] = n
		}
	}
	inst, err := c.comm(r, comm)
	if err != nil {
		return err
	}
	c.emitList(r, mpi.Event{Kind: mpi.Alltoallv, Comm: inst}, list)
	rk := &c.t.Ranks[c.rank]
	e := &rk.Events[len(rk.Events)-1]
	s := mpi.CollSizes{Sends: rk.List[e.ListOff : e.ListOff+e.ListLen : e.ListOff+e.ListLen]}
	if r.id == idAlltoallv {
		s.Recvs = c.sizes32(r.array(2), v[2])
	} else if rc, rt := r.array(3), r.array(5); len(rc) == len(rt) {
		s.Recvs = make([]int64, len(rc))
		for i, x := range rc {
			s.Recvs[i] = c.size(int64(x), int64(rt[i]))
		}
	}
	c.sized(s)
	return nil
}

// create records a communicator-creating call on parent handle parent
// whose result is handle out.
func (c *rankConv) create(r *record, cr creation, parent, out int64) error {
	inst, err := c.comm(r, parent)
	if err != nil {
		return err
	}
	cr.id, cr.off, cr.parent = r.id, r.off, int(inst)
	cr.seq = c.perParent[cr.parent]
	c.perParent[cr.parent]++
	cr.newInst = -1
	if out != commNull {
		cr.newInst = c.ninst
		c.ninst++
		c.comms[uint16(out)] = cr.newInst
	}
	c.creations = append(c.creations, cr)
	c.skip(r)
	return nil
}
