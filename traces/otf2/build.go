package otf2

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"

	"github.com/capsim/capsim/internal/units"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// OTF2 constants used here (OTF2_GeneralDefinitions.h, OTF2_Definitions.h,
// OTF2_Events.h of OTF2 3.0; stable since OTF2 1.2).
const (
	paradigmMPI = 4

	groupCommLocations = 4
	groupCommGroup     = 5
	groupCommSelf      = 6
	groupFlagGlobal    = 1

	locationGroupProcess = 1

	undefined32 = ^uint32(0)

	measurementOn = 1
)

// OTF2_CollectiveOp values.
const (
	opBarrier = iota
	opBcast
	opGather
	opGatherv
	opScatter
	opScatterv
	opAllgather
	opAllgatherv
	opAlltoall
	opAlltoallv
	opAlltoallw
	opAllreduce
	opReduce
	opReduceScatter
	opScan
	opExscan
	opReduceScatterBlock
)

var collKinds = [...]mpi.Kind{
	opBarrier: mpi.Barrier, opBcast: mpi.Bcast, opGather: mpi.Gather, opGatherv: mpi.Gather,
	opScatter: mpi.Scatter, opScatterv: mpi.Scatter, opAllgather: mpi.Allgather, opAllgatherv: mpi.Allgather,
	opAlltoall: mpi.Alltoall, opAlltoallv: mpi.Alltoall, opAlltoallw: mpi.Alltoall, opAllreduce: mpi.Allreduce,
	opReduce: mpi.Reduce, opReduceScatter: mpi.ReduceScatter, opScan: mpi.Scan, opExscan: mpi.Scan,
	opReduceScatterBlock: mpi.ReduceScatter,
}

// defs holds the global definitions the import needs.
type defs struct {
	resolution, offset uint64
	strings            map[uint32]string
	regions            map[uint32]regionDef
	groups             map[uint32]groupDef
	comms              map[uint32]commDef
	locations          map[uint64]uint32 // location → its location group
	locGroups          map[uint32]uint8  // location group → type
}

type regionDef struct {
	name     uint32
	paradigm uint8
}

type groupDef struct {
	typ, paradigm uint8
	flags         uint32
	members       []uint64
}

type commDef struct {
	name, group uint32
}

func newDefs() *defs {
	return &defs{strings: map[uint32]string{}, regions: map[uint32]regionDef{}, groups: map[uint32]groupDef{},
		comms: map[uint32]commDef{}, locations: map[uint64]uint32{}, locGroups: map[uint32]uint8{}}
}

// recKind is the kind of an event record handed to the builder.
type recKind uint8

const (
	rEnter recKind = iota + 1
	rLeave
	rSend
	rIsend
	rIsendComplete
	rIrecvRequest
	rRecv
	rIrecv
	rRequestTest
	rRequestCancelled
	rCollBegin
	rCollEnd
	rOnOff
	rMark // program begin or end: the rank's timeline starts or ends here
	rNbcRequest
	rNbcComplete
	numRecKinds
)

// record is one event record. Field use by kind:
// Enter/Leave: a = region. Send/Isend/Recv/Irecv: a = peer, b = comm,
// c = tag, d = bytes, e = request. IsendComplete, IrecvRequest,
// RequestTest, RequestCancelled: e = request. CollEnd: op = collective
// operation, b = comm, c = root, d = bytes sent, e = bytes received.
// OnOff: op = mode. Mark: no fields. NbcRequest: e = request.
// NbcComplete: the fields of CollEnd, req = request.
type record struct {
	kind    recKind
	op      uint8
	a, b, c uint32
	loc     uint64
	time    uint64
	d, e    uint64
	req     uint64
}

// regionInfo is a region resolved for the import.
type regionInfo struct {
	mpi   bool
	name  string
	label int32 // mpi region index of its name, -1 until used
}

// labelOf returns the mpi region of a non-MPI region, interning its name
// when first used.
func (b *builder) labelOf(info *regionInfo) int32 {
	if info.label < 0 {
		info.label = b.t.Region(info.name)
	}
	return info.label
}

// commInfo is an MPI communicator resolved for the import.
type commInfo struct {
	id      int32   // mpi communicator (not for self communicators)
	size    int32   // members (1 for self)
	self    bool    // one communicator per rank: selfIDs
	selfIDs []int32 // per rank, -1 until used
	global  bool    // event ranks are world ranks: index translates them
	index   map[int32]int32
	name    string
}

// locState is the reading state of one location.
type locState struct {
	rank   int32
	master bool     // the rank's first location: measures compute
	stack  []uint32 // open regions
	inMPI  int      // open MPI regions
	p2p    bool     // the location has point-to-point records
}

// rankState is the reading state of one rank.
type rankState struct {
	segStart  int64 // ns: start of the current compute stretch
	begin     int64 // ns: the master thread's first event
	preInitNs int64 // ns: compute kept before MPI_Init returned
	started   bool
	label     int32 // region of the current compute stretch
	mpiEnter  int64 // ns: enter of the outermost open MPI call
	callStart int   // index of the first event of the open MPI call
	inCall    bool  // the master thread is in an MPI call
	off       bool
	offAt     int64
	// The recorded run: first and last event, MPI_Init's return and
	// MPI_Finalize's entry (ns), and the measurement gaps so far.
	first, last       int64
	seen              bool
	initLeft, finalAt int64
	inited, finalized bool
	offNs, outsideNs  int64
	irecv             map[uint64]int // pending irecv request → event index
	isend             map[uint64]int // pending isend request → event index
	nbc               map[uint64]int // pending nonblocking collective request → event index
}

// builder turns definitions and event records into an mpi.Trace.
type builder struct {
	file    string
	opt     Options
	d       *defs
	t       *mpi.Trace
	regions map[uint32]*regionInfo
	comms   map[uint32]*commInfo
	locs    map[uint64]*locState
	ranks   []rankState
	offReg  int32
	last    *locState
	lastLoc uint64
	// cur is the record being applied, and at, with Options.Where, the
	// location and tick of the record each event of each rank was made
	// at.
	cur *record
	at  [][]recAt
	// sizes are what each rank's collectives send to and receive from
	// each member, as far as their recorded totals tell (collSizes).
	sizes [][]mpi.CollSizes
}

// recAt is where a record was read: its location and timestamp in ticks.
type recAt struct {
	loc, tick uint64
}

// newBuilder resolves the definitions: ranks, communicators and regions.
func newBuilder(file string, d *defs, opt Options) (*builder, error) {
	if d.resolution == 0 {
		return nil, fmt.Errorf("otf2 %s: the clock properties give a timer resolution of 0 ticks per second (or are missing)", file)
	}
	b := &builder{file: file, opt: opt, d: d, regions: map[uint32]*regionInfo{}, comms: map[uint32]*commInfo{},
		locs: map[uint64]*locState{}}
	if err := b.ranksFromDefs(); err != nil {
		return nil, err
	}
	if err := b.commsFromDefs(); err != nil {
		return nil, err
	}
	ids := make([]uint32, 0, len(d.regions))
	for id := range d.regions {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		r := d.regions[id]
		name := d.strings[r.name]
		b.regions[id] = &regionInfo{mpi: r.paradigm == paradigmMPI || strings.HasPrefix(name, "MPI_"), name: name, label: -1}
	}
	b.offReg = -1
	return b, nil
}

// ranksFromDefs numbers the ranks: by the MPI COMM_LOCATIONS group when
// there is one, else by location groups of type process in id order.
func (b *builder) ranksFromDefs() error {
	d := b.d
	groupRank := map[uint32]int32{}
	var world []uint64
	gids := sortedKeys(d.groups)
	for _, id := range gids {
		g := d.groups[id]
		if g.typ == groupCommLocations && g.paradigm == paradigmMPI {
			world = g.members
			break
		}
	}
	n := 0
	if world != nil {
		for i, loc := range world {
			lg, ok := d.locations[loc]
			if !ok {
				return fmt.Errorf("otf2 %s: MPI rank %d is location %d, which is not defined", b.file, i, loc)
			}
			if r, dup := groupRank[lg]; dup {
				return fmt.Errorf("otf2 %s: MPI ranks %d and %d are both in location group %d", b.file, r, i, lg)
			}
			groupRank[lg] = int32(i)
		}
		n = len(world)
	} else {
		lgs := sortedKeys(d.locGroups)
		for _, lg := range lgs {
			if d.locGroups[lg] == locationGroupProcess {
				groupRank[lg] = int32(n)
				n++
			}
		}
	}
	if n == 0 {
		return fmt.Errorf("otf2 %s: no MPI ranks: the trace defines no MPI location group (was it recorded with MPI?)", b.file)
	}
	b.t = mpi.NewTrace(n)
	b.ranks = make([]rankState, n)
	for i := range b.ranks {
		b.ranks[i] = rankState{irecv: map[uint64]int{}, isend: map[uint64]int{}, nbc: map[uint64]int{}}
	}
	// Locations in id order: the first one of each rank is its master
	// (the COMM_LOCATIONS member when there is one).
	master := make([]bool, n)
	if world != nil {
		for i, loc := range world {
			b.locs[loc] = &locState{rank: int32(i), master: true}
			master[i] = true
		}
	}
	for _, loc := range sortedKeys64(d.locations) {
		if _, ok := b.locs[loc]; ok {
			continue
		}
		r, ok := groupRank[d.locations[loc]]
		if !ok {
			continue // not an MPI process: its events are ignored
		}
		b.locs[loc] = &locState{rank: r, master: !master[r]}
		master[r] = true
	}
	return nil
}

// commsFromDefs defines the MPI communicators.
func (b *builder) commsFromDefs() error {
	d := b.d
	n := int32(len(b.t.Ranks))
	worldTaken := false
	for _, id := range sortedKeys(d.comms) {
		c := d.comms[id]
		g, ok := d.groups[c.group]
		if !ok {
			if _, known := d.groups[c.group]; !known && c.group == undefined32 {
				continue // OTF2 3 inter-communicators and comms created by events: not imported
			}
			return fmt.Errorf("otf2 %s: communicator %d refers to group %d, which is not defined", b.file, id, c.group)
		}
		if g.paradigm != paradigmMPI {
			continue // measurement-system communicators (Score-P's process × threads)
		}
		name := d.strings[c.name]
		if name == "" {
			name = fmt.Sprintf("comm%d", id)
		}
		switch g.typ {
		case groupCommSelf:
			ids := make([]int32, n)
			for i := range ids {
				ids[i] = -1
			}
			b.comms[id] = &commInfo{self: true, size: 1, selfIDs: ids, name: name}
		case groupCommGroup:
			if len(g.members) == 0 {
				return fmt.Errorf("otf2 %s: communicator %d (%s) has an empty group %d", b.file, id, name, c.group)
			}
			members := make([]int32, len(g.members))
			seen := make(map[int32]bool, len(g.members))
			inOrder := len(g.members) == int(n)
			for i, m := range g.members {
				if m >= uint64(n) {
					return fmt.Errorf("otf2 %s: communicator %d (%s): member %d is not a rank (the trace has %d)", b.file, id, name, m, n)
				}
				w := int32(m)
				if seen[w] {
					return fmt.Errorf("otf2 %s: communicator %d (%s) lists rank %d twice", b.file, id, name, w)
				}
				seen[w] = true
				members[i] = w
				inOrder = inOrder && w == int32(i)
			}
			ci := &commInfo{size: int32(len(members)), name: name, global: g.flags&groupFlagGlobal != 0}
			if ci.global {
				ci.index = make(map[int32]int32, len(members))
				for i, w := range members {
					ci.index[w] = int32(i)
				}
			}
			if inOrder && !worldTaken {
				worldTaken = true
				ci.id = mpi.World
				b.t.Comms[0].Name = name
			} else {
				ci.id = b.t.AddComm(name, members)
			}
			b.comms[id] = ci
		default:
			return fmt.Errorf("otf2 %s: communicator %d (%s) refers to group %d of type %d, not a communicator group", b.file, id, name, c.group, g.typ)
		}
	}
	return nil
}

// reserve makes room for n events of rank.
func (b *builder) reserve(rank int, n uint64) {
	rk := &b.t.Ranks[rank]
	if uint64(cap(rk.Events)) < n {
		rk.Events = make([]mpi.Event, len(rk.Events), n)
	}
}

// loc returns the state of a location, or nil for locations outside the
// MPI processes.
func (b *builder) loc(id uint64) *locState {
	if b.last != nil && b.lastLoc == id {
		return b.last
	}
	l := b.locs[id]
	b.last, b.lastLoc = l, id
	return l
}

// ns converts a timestamp in ticks to ns since the global offset.
func (b *builder) ns(t uint64) int64 {
	neg := t < b.d.offset
	d := t - b.d.offset
	if neg {
		d = b.d.offset - t
	}
	hi, lo := bits.Mul64(d, 1e9)
	var q uint64
	if hi >= b.d.resolution {
		q = 1<<63 - 1
	} else {
		q, _ = bits.Div64(hi, lo, b.d.resolution)
		q = min(q, 1<<63-1)
	}
	if neg {
		return -int64(q)
	}
	return int64(q)
}

func (b *builder) errorf(r *record, format string, args ...any) error {
	return fmt.Errorf("otf2 %s: location %d, event at tick %d: %s", b.file, r.loc, r.time, fmt.Sprintf(format, args...))
}

// appends marks the records that append MPI events.
var appends = [numRecKinds]bool{rSend: true, rIsend: true, rRecv: true, rIrecv: true, rIsendComplete: true,
	rIrecvRequest: true, rCollEnd: true, rNbcRequest: true, rNbcComplete: true}

// handle applies one event record.
func (b *builder) handle(r *record) error {
	l := b.loc(r.loc)
	if l == nil {
		if _, ok := b.d.locations[r.loc]; ok {
			return nil
		}
		return b.errorf(r, "the location is not defined")
	}
	rank := int(l.rank)
	rs := &b.ranks[rank]
	t := b.ns(r.time)
	b.cur = r
	if !rs.seen {
		rs.seen, rs.first = true, t
	}
	rs.last = max(rs.last, t)
	if l.master && !rs.started {
		rs.started, rs.segStart, rs.begin = true, t, t
	}
	if !l.master && int(r.kind) < len(appends) && appends[r.kind] && !rs.inCall && rs.started {
		// Another thread's MPI call during the master's compute: end the
		// stretch here so the call keeps its place in time.
		b.flush(rank, t)
	}
	switch r.kind {
	case rEnter:
		info, ok := b.regions[r.a]
		if !ok {
			return b.errorf(r, "enter of region %d, which is not defined", r.a)
		}
		l.stack = append(l.stack, r.a)
		if info.mpi {
			if l.inMPI == 0 && l.master {
				b.flush(rank, t)
				rs.mpiEnter, rs.callStart, rs.inCall = t, len(b.t.Ranks[rank].Events), true
				if info.name == "MPI_Finalize" && !rs.finalized {
					rs.finalized, rs.finalAt = true, t
				}
			}
			l.inMPI++
		} else if l.inMPI == 0 && l.master {
			b.flush(rank, t)
			rs.label = b.labelOf(info)
		}
	case rLeave:
		info, ok := b.regions[r.a]
		if !ok {
			return b.errorf(r, "leave of region %d, which is not defined", r.a)
		}
		// Pop the innermost open instance of the region; a leave of a
		// region that is not open (recording switched on inside it) is
		// ignored.
		i := len(l.stack) - 1
		for i >= 0 && l.stack[i] != r.a {
			i--
		}
		if i < 0 {
			return nil
		}
		l.stack = append(l.stack[:i], l.stack[i+1:]...)
		if info.mpi {
			l.inMPI--
			if l.inMPI == 0 && l.master {
				evs := b.t.Ranks[rank].Events
				if rs.callStart < len(evs) && evs[rs.callStart].Kind != mpi.Compute {
					evs[rs.callStart].Duration = max(0, t-rs.mpiEnter)
				}
				b.endCall(rank, rs.callStart, t)
				rs.segStart, rs.inCall = t, false
				if (info.name == "MPI_Init" || info.name == "MPI_Init_thread") && !rs.inited {
					b.initDone(rank, t)
				}
			}
		} else if l.inMPI == 0 && l.master {
			b.flush(rank, t)
			rs.label = b.innermost(l)
		}
	case rSend, rIsend, rRecv, rIrecv:
		l.p2p = true
		return b.p2p(r, rank, l)
	case rIsendComplete:
		if _, ok := rs.isend[r.e]; !ok {
			return nil // posted while recording was off
		}
		delete(rs.isend, r.e)
		b.add(rank, mpi.Event{Kind: mpi.Wait, Req: int64(r.e), Region: rs.label}, t)
	case rIrecvRequest:
		if _, dup := rs.irecv[r.e]; dup {
			return b.errorf(r, "receive request %d posted twice", r.e)
		}
		rs.irecv[r.e] = len(b.t.Ranks[rank].Events)
		b.add(rank, mpi.Event{Kind: mpi.Irecv, Req: int64(r.e), Peer: -2, Region: rs.label}, t)
	case rRequestCancelled:
		evs := b.t.Ranks[rank].Events
		if i, ok := rs.irecv[r.e]; ok {
			evs[i] = mpi.Event{Kind: mpi.Compute}
			delete(rs.irecv, r.e)
		} else if i, ok := rs.isend[r.e]; ok {
			evs[i] = mpi.Event{Kind: mpi.Compute}
			delete(rs.isend, r.e)
		}
	case rCollEnd:
		return b.collective(r, rank, rs, -1)
	case rNbcRequest:
		if _, dup := rs.nbc[r.e]; dup {
			return b.errorf(r, "nonblocking collective request %d posted twice", r.e)
		}
		// A placeholder where the collective was started: its kind,
		// communicator and payload come with its completion.
		rs.nbc[r.e] = len(b.t.Ranks[rank].Events)
		b.add(rank, mpi.Event{Kind: mpi.Barrier, Peer: -2, Region: rs.label}, t)
	case rNbcComplete:
		i, ok := rs.nbc[r.req]
		if !ok {
			return b.collective(r, rank, rs, -1) // started while recording was off
		}
		delete(rs.nbc, r.req)
		return b.collective(r, rank, rs, i)
	case rOnOff:
		if !l.master {
			return nil
		}
		if r.op == measurementOn {
			if rs.off {
				rs.off = false
				if t > rs.offAt {
					rs.offNs += t - rs.offAt
					if b.opt.KeepGaps {
						if b.offReg < 0 {
							b.offReg = b.t.Region(MeasurementOffRegion)
						}
						b.compute(rank, b.offReg, rs.offAt, t)
					}
				}
				rs.segStart = t
			}
		} else if !rs.off {
			if l.inMPI == 0 {
				b.flush(rank, t)
			}
			rs.off, rs.offAt = true, t
		}
	case rMark:
		if l.master && !rs.inCall {
			b.flush(rank, t)
		}
	case rRequestTest, rCollBegin:
	default:
		return b.errorf(r, "unknown record kind %d", r.kind)
	}
	return nil
}

// innermost returns the label of the innermost open non-MPI region.
func (b *builder) innermost(l *locState) int32 {
	for i := len(l.stack) - 1; i >= 0; i-- {
		if info := b.regions[l.stack[i]]; !info.mpi {
			return b.labelOf(info)
		}
	}
	return mpi.NoRegion
}

// flush ends the current compute stretch of rank at t. A stretch after
// MPI_Finalize was entered is a measurement gap: counted, and kept as
// compute only with Options.KeepGaps.
func (b *builder) flush(rank int, t int64) {
	rs := &b.ranks[rank]
	if !rs.off && t > rs.segStart {
		if rs.finalized {
			rs.outsideNs += t - rs.segStart
		}
		if !rs.finalized || b.opt.KeepGaps {
			b.compute(rank, rs.label, rs.segStart, t)
		}
	}
	rs.segStart = t
}

// initDone marks MPI_Init's return on rank at t: the compute recorded
// before it is a measurement gap, counted and, without Options.KeepGaps,
// removed (time with recording off is counted as such already).
func (b *builder) initDone(rank int, t int64) {
	rs := &b.ranks[rank]
	rs.inited, rs.initLeft = true, t
	rk := &b.t.Ranks[rank]
	at := make([]int, len(rk.Events)) // old index → new
	kept, stamps := rk.Events[:0], rk.Stamps[:0]
	var where []recAt
	keepAt := b.opt.Where && rank < len(b.at)
	if keepAt {
		where = b.at[rank][:0]
	}
	for i, e := range rk.Events {
		at[i] = len(kept)
		keep := e.Kind != mpi.Compute || e.ParamLen != 0
		if !keep && (b.offReg < 0 || e.Region != b.offReg) {
			rs.outsideNs += e.Duration
		}
		if keep || b.opt.KeepGaps {
			if e.Kind == mpi.Compute {
				rs.preInitNs += e.Duration
			}
			kept = append(kept, e)
			if rk.Stamps != nil {
				stamps = append(stamps, rk.Stamps[i])
			}
			if keepAt {
				where = append(where, b.at[rank][i])
			}
		}
	}
	rk.Events, rk.Stamps = kept, stamps
	if keepAt {
		b.at[rank] = where
	}
	for _, pending := range []map[uint64]int{rs.irecv, rs.isend, rs.nbc} {
		for req, i := range pending {
			pending[req] = at[i]
		}
	}
}

// recorded returns what the trace says of the run: each rank's span from
// MPI_Init's return (else its first event) to MPI_Finalize's entry (else
// its last event), its start (MPI_Init's return, less the compute kept
// before it when the gaps are kept, so that a replay from there returns
// from MPI_Init when the recorded run did; the master thread's first
// event without MPI_Init), and the measurement gaps.
func (b *builder) recorded() *graph.Recorded {
	n := len(b.ranks)
	rec := &graph.Recorded{SpanNs: make([]int64, n), OffNs: make([]int64, n), OutsideNs: make([]int64, n), GapsKept: b.opt.KeepGaps}
	var off, outside int64
	starts, lo := make([]int64, n), int64(math.MaxInt64)
	for r := range b.ranks {
		rs := &b.ranks[r]
		if !rs.started {
			continue
		}
		starts[r] = rs.begin
		if rs.inited {
			starts[r] = rs.initLeft - rs.preInitNs
		}
		lo = min(lo, starts[r])
	}
	for r := range b.ranks {
		if !b.ranks[r].started {
			starts[r] = lo // a rank without events starts with the first
		}
	}
	rec.StartNs = graph.RelativeStarts(starts)
	for r := range b.ranks {
		rs := &b.ranks[r]
		if !rs.seen {
			continue
		}
		from, to := rs.first, rs.last
		if rs.inited {
			from = rs.initLeft
		}
		if rs.finalized {
			to = rs.finalAt
		}
		rec.SpanNs[r] = min(max(0, to-from), graph.MaxTimeNs)
		rec.OffNs[r], rec.OutsideNs[r] = min(rs.offNs, graph.MaxTimeNs), min(rs.outsideNs, graph.MaxTimeNs)
		off += rs.offNs
		outside += rs.outsideNs
	}
	if off == 0 {
		rec.OffNs = nil
	}
	if outside == 0 {
		rec.OutsideNs = nil
	}
	return rec
}

// compute appends the compute stretch from..to (ns), merged into a
// directly preceding compute event of the same region.
func (b *builder) compute(rank int, region int32, from, to int64) {
	rk := &b.t.Ranks[rank]
	if n := len(rk.Events); n > 0 {
		if e := &rk.Events[n-1]; e.Kind == mpi.Compute && e.Region == region && e.ParamLen == 0 {
			e.Duration += to - from
			if rk.Stamps != nil {
				rk.Stamps[n-1].End = to
			}
			return
		}
	}
	e := mpi.Event{Kind: mpi.Compute, Region: region, Duration: to - from}
	if b.opt.Where {
		b.mark(rank)
	}
	if !b.opt.Stamps {
		b.t.Append(rank, e)
		return
	}
	b.t.AppendStamped(rank, e, mpi.Stamp{Start: from, End: to})
}

// add appends an MPI event of rank recorded at t: stamped from the entry
// into the rank's current MPI call (endCall sets its end), or at t when
// no call of the master thread is open.
func (b *builder) add(rank int, e mpi.Event, t int64) {
	if b.opt.Where {
		b.mark(rank)
	}
	if !b.opt.Stamps {
		b.t.Append(rank, e)
		return
	}
	start := t
	if rs := &b.ranks[rank]; rs.inCall {
		start = min(rs.mpiEnter, t)
	}
	b.t.AppendStamped(rank, e, mpi.Stamp{Start: start, End: t})
}

// mark records where the event rank is given next was made: at the
// record being applied.
func (b *builder) mark(rank int) {
	if b.at == nil {
		b.at = make([][]recAt, len(b.t.Ranks))
	}
	var a recAt
	if b.cur != nil {
		a = recAt{loc: b.cur.loc, tick: b.cur.time}
	}
	b.at[rank] = append(b.at[rank], a)
}

// where names event i of rank r by the archive, the location and event
// file of the record it was made at, and the record's timestamp: in
// ticks, as otf2-print prints it, and in seconds from the clock's global
// offset (the trace's start).
func (b *builder) where(r, i int) string {
	if r >= len(b.at) || i >= len(b.at[r]) {
		return ""
	}
	a := b.at[r][i]
	return fmt.Sprintf("%s location %d (%s), time %d ticks = %s from the trace start",
		b.file, a.loc, evtFile(b.file, a.loc), a.tick, units.FormatNs(b.ns(a.tick)))
}

// endCall sets the end of the events of rank from index from on, the
// events of the MPI call that returned at t.
func (b *builder) endCall(rank, from int, t int64) {
	st := b.t.Ranks[rank].Stamps
	for i := from; i < len(st); i++ {
		st[i].End = max(t, st[i].Start)
	}
}

// commOf resolves an OTF2 communicator for rank: the mpi communicator id
// and its size.
func (b *builder) commOf(r *record, ref uint32, rank int) (*commInfo, int32, error) {
	c, ok := b.comms[ref]
	if !ok {
		if _, def := b.d.comms[ref]; def {
			return nil, 0, b.errorf(r, "communicator %d is not an MPI communicator", ref)
		}
		return nil, 0, b.errorf(r, "communicator %d is not defined", ref)
	}
	if !c.self {
		return c, c.id, nil
	}
	if c.selfIDs[rank] < 0 {
		c.selfIDs[rank] = b.t.AddComm(fmt.Sprintf("%s@%d", c.name, rank), []int32{int32(rank)})
	}
	return c, c.selfIDs[rank], nil
}

// commRank turns the rank an event names on c into a communicator rank.
func (b *builder) commRank(r *record, c *commInfo, peer uint32) (int32, error) {
	p := int32(peer)
	if c.global {
		cr, ok := c.index[p]
		if !ok || peer > 1<<31-1 {
			return 0, b.errorf(r, "rank %d is not a member of communicator %s", peer, c.name)
		}
		return cr, nil
	}
	if peer >= uint32(c.size) {
		return 0, b.errorf(r, "rank %d is not a rank of communicator %s (size %d)", peer, c.name, c.size)
	}
	return p, nil
}

func (b *builder) p2p(r *record, rank int, l *locState) error {
	rs := &b.ranks[rank]
	c, id, err := b.commOf(r, r.b, rank)
	if err != nil {
		return err
	}
	peer, err := b.commRank(r, c, r.a)
	if err != nil {
		return err
	}
	if r.c > 1<<31-1 || r.d > 1<<62 {
		return b.errorf(r, "tag %d or size %d out of range", r.c, r.d)
	}
	e := mpi.Event{Comm: id, Peer: peer, Tag: int32(r.c), Bytes: int64(r.d), Region: rs.label}
	switch r.kind {
	case rSend:
		e.Kind = mpi.Send
	case rRecv:
		e.Kind = mpi.Recv
	case rIsend:
		if _, dup := rs.isend[r.e]; dup {
			return b.errorf(r, "send request %d posted twice", r.e)
		}
		e.Kind, e.Req = mpi.Isend, int64(r.e)
		rs.isend[r.e] = len(b.t.Ranks[rank].Events)
	case rIrecv:
		e.Kind, e.Req = mpi.Irecv, int64(r.e)
		if i, ok := rs.irecv[r.e]; ok {
			delete(rs.irecv, r.e)
			ev := &b.t.Ranks[rank].Events[i]
			e.Duration = ev.Duration
			e.Region = ev.Region
			*ev = e
		} else {
			// No request record (posted while recording was off, or a
			// writer that omits them): post it here.
			b.add(rank, e, b.ns(r.time))
		}
		b.add(rank, mpi.Event{Kind: mpi.Wait, Req: int64(r.e), Region: rs.label}, b.ns(r.time))
		return nil
	}
	b.add(rank, e, b.ns(r.time))
	return nil
}

// collective appends a collective from its MpiCollectiveEnd record, or
// from a NonBlockingCollectiveComplete record whose request placeholder is
// event at (at < 0: appended at the record).
func (b *builder) collective(r *record, rank int, rs *rankState, at int) error {
	if int(r.op) >= len(collKinds) {
		// Handle creation, RMA windows: no data moved.
		if at >= 0 {
			b.t.Ranks[rank].Events[at] = mpi.Event{Kind: mpi.Compute}
		}
		return nil
	}
	kind := collKinds[r.op]
	c, id, err := b.commOf(r, r.b, rank)
	if err != nil {
		return err
	}
	// The Tag holds the OTF2 operation for sameCollectivePayloads, which
	// clears it.
	e := mpi.Event{Kind: kind, Comm: id, Region: rs.label, Tag: int32(r.op) + 1}
	me := int32(0)
	if !c.self {
		me = int32(slices.Index(b.t.Comm(id).Members, int32(rank)))
		if me < 0 {
			return b.errorf(r, "%s on communicator %s, which rank %d is not a member of", kind, c.name, rank)
		}
	}
	if kind.IsRooted() {
		if r.c == undefined32 {
			return b.errorf(r, "%s without a root", kind)
		}
		root, err := b.commRank(r, c, r.c)
		if err != nil {
			return err
		}
		e.Peer = root
	}
	if r.d > 1<<62 || r.e > 1<<62 {
		return b.errorf(r, "%s sizes %d and %d out of range", kind, r.d, r.e)
	}
	e.Bytes = payload(kind, r.op, int64(r.d), int64(r.e), int64(c.size), int64(me), e.Peer == me)
	i := at
	if i < 0 {
		i = len(b.t.Ranks[rank].Events)
	}
	b.collSizes(rank, i, r.op, int64(r.d), int64(r.e), int64(c.size), e.Peer == me)
	if at >= 0 {
		ev := &b.t.Ranks[rank].Events[at]
		e.Duration, e.Region = ev.Duration, ev.Region
		*ev = e
		return nil
	}
	b.add(rank, e, b.ns(r.time))
	return nil
}

// collSizes keeps, for mpi.CheckSizes, what the collective that is event
// i of rank sends to and receives from each member, as far as the totals
// Score-P records (scorep_mpi_coll_bytes_*) tell, with sent and recv the
// totals and p the communicator's size: a gather's (or reduce's)
// non-root sends its block (sent), and its root receives at most
// ⌊recv/(p−1)⌋ from each (recv is p blocks, p−1 with MPI_IN_PLACE); a
// scatter's (or bcast's) root sends each at least ⌈sent/p⌉ and a
// non-root receives recv; an allgather's, alltoall's, allreduce's or
// reduce_scatter_block's member sends each at least ⌈sent/p⌉ and
// receives at most ⌊recv/(p−1)⌋ from each. These bounds hold with and
// without MPI_IN_PLACE, so only members that disagree for certain are
// refused; the import evens out the differences MPI_IN_PLACE explains
// (sameCollectivePayloads), which would hide some of them from the
// lowering's check. The totals of the v-variants, scans and reduce_scatter do not
// say what goes to each member: they are left out.
func (b *builder) collSizes(rank, i int, op uint8, sent, recv, p int64, root bool) {
	if p < 2 {
		return
	}
	s := mpi.CollSizes{Event: int32(i), Send: -1, Recv: -1}
	switch op {
	case opGather, opReduce:
		if root {
			s.Recv = recv / (p - 1)
		} else {
			s.Send = sent
		}
	case opScatter, opBcast:
		if root {
			s.Send = (sent + p - 1) / p
		} else {
			s.Recv = recv
		}
	case opAllgather, opAlltoall, opReduceScatterBlock, opAllreduce:
		s.Send, s.Recv = (sent+p-1)/p, recv/(p-1)
	default:
		return
	}
	if b.sizes == nil {
		b.sizes = make([][]mpi.CollSizes, len(b.t.Ranks))
	}
	b.sizes[rank] = append(b.sizes[rank], s)
}

// checkSizes refuses a gather, scatter, allgather or alltoall of the
// finished trace t in which a member sends another more than that member
// receives from it (mpi.CheckSizes), naming both calls by rank and event
// (and, with Options.Where, by location and time).
func (b *builder) checkSizes(t *mpi.Trace) error {
	for _, s := range b.sizes {
		// A nonblocking collective's event was placed at its request.
		slices.SortFunc(s, func(x, y mpi.CollSizes) int { return int(x.Event - y.Event) })
	}
	if err := mpi.CheckSizes(t, b.sizes); err != nil {
		return fmt.Errorf("otf2 %s: %w", b.file, err)
	}
	return nil
}

// payload derives mpi.Event.Bytes of a collective from the bytes one rank
// sent and received, as Score-P counts them (scorep_mpi_coll_bytes_*):
// every count includes the rank's own block, except with MPI_IN_PLACE.
// Bcast and Scatter: the block each rank receives; Reduce and Gather: the
// block each rank sends; Allreduce, Allgather and Alltoall: the total over
// the p members divided by p (by p−1 if only that divides it: in place);
// ReduceScatter: the whole vector each rank sends; Scan: the block (a rank
// me sends p−me of them, p−me−1 for Exscan). The import then takes the
// largest value over the members of one call, which undoes in-place
// undercounts and root asymmetries. OTF2 does not record MPI_IN_PLACE: a
// total that p divides is read as p blocks, even where every member passed
// MPI_IN_PLACE.
func payload(kind mpi.Kind, op uint8, sent, recv, p, me int64, root bool) int64 {
	div := func(x, n int64) int64 {
		if n <= 0 {
			return x
		}
		return x / n
	}
	switch kind {
	case mpi.Barrier:
		return 0
	case mpi.Bcast, mpi.Scatter:
		if root && p > 1 {
			return div(sent, p)
		}
		return recv
	case mpi.Reduce, mpi.Gather:
		if root && p > 1 {
			return div(recv, p)
		}
		return sent
	case mpi.Allreduce, mpi.Allgather, mpi.Alltoall:
		x := max(sent, recv)
		if x%p != 0 && p > 1 && x%(p-1) == 0 {
			return x / (p - 1)
		}
		return div(x, p)
	case mpi.ReduceScatter:
		return sent
	case mpi.Scan:
		if op == opExscan { // never to or from itself
			return max(div(sent, p-me-1), div(recv, me))
		}
		return max(div(sent, p-me), div(recv, me+1))
	}
	return max(sent, recv)
}

// maxTag bounds the tags the lowering accepts (lower.MaxUserTag).
const maxTag = 1 << 20

// finish closes the import: requests never completed are dropped, the
// members of every collective call get the same payload where they agree,
// and tags are renumbered if any is beyond what the lowering accepts.
func (b *builder) finish() *mpi.Trace {
	defer b.renumberTags()
	b.t.Recorded = b.recorded()
	for r := range b.ranks {
		evs := b.t.Ranks[r].Events
		for _, pending := range []map[uint64]int{b.ranks[r].irecv, b.ranks[r].nbc} {
			for _, i := range sortedVals(pending) {
				evs[i] = mpi.Event{Kind: mpi.Compute}
			}
		}
	}
	b.sameCollectivePayloads()
	if b.opt.Where {
		b.t.Where = b.where
	}
	return b.t
}

// perRank reports whether the members of a call of OTF2 operation op pass
// counts that may differ by design: the v-variants, reduce_scatter and the
// scans (whose counts Score-P gives per member position).
func perRank(op uint8) bool {
	switch op {
	case opGatherv, opScatterv, opAllgatherv, opAlltoallv, opAlltoallw, opReduceScatter, opScan, opExscan:
		return true
	}
	return false
}

// inPlace is the payload a member me of p derives from Score-P's counts
// (scorep_mpi_coll_bytes_*) of a call of OTF2 operation op with a block of
// b bytes passed with MPI_IN_PLACE, which leaves the member's own block
// out of its counts; -1 where the member cannot pass it (a bcast, a
// rooted call's non-roots) or the counts do not depend on it.
func inPlace(op uint8, kind mpi.Kind, b, p, me int64, root bool) int64 {
	if p < 2 || b > math.MaxInt64/p {
		return -1
	}
	switch op {
	case opAllreduce, opAllgather, opAlltoall:
		x := (p - 1) * b
		return payload(kind, op, x, x, p, me, root)
	case opReduce, opGather:
		if root {
			return payload(kind, op, 0, (p-1)*b, p, me, root)
		}
	case opScatter:
		if root {
			return payload(kind, op, (p-1)*b, 0, p, me, root)
		}
	case opReduceScatterBlock:
		if b%p == 0 {
			return payload(kind, op, b-b/p, b-b/p, p, me, root)
		}
	}
	return -1
}

// inPlaceOf is inPlace for world rank r's call e of OTF2 operation op.
func (b *builder) inPlaceOf(op uint8, r int, e *mpi.Event, block int64) int64 {
	c := b.t.Comm(e.Comm)
	if c == nil {
		return -1
	}
	me := int64(slices.Index(c.Members, int32(r)))
	return inPlace(op, e.Kind, block, int64(len(c.Members)), me, int32(me) == e.Peer)
}

// sameCollectivePayloads gives the members of every collective call the
// largest payload any of them derived, where the others' differ from it
// only as MPI_IN_PLACE or per-rank counts explain; other members keep
// their own, which the lowering refuses naming both members' records
// (where MPI requires one size). A call is the k-th collective on its
// communicator in each member's program order (the order MPI requires
// collectives, blocking or not, to be started in).
func (b *builder) sameCollectivePayloads() {
	type call struct {
		largest int64
		perRank bool
	}
	calls := map[int32][]call{}
	seq := make(map[int32]int)
	for pass := 0; pass < 2; pass++ {
		for r := range b.t.Ranks {
			clear(seq)
			evs := b.t.Ranks[r].Events
			for i := range evs {
				e := &evs[i]
				if !e.Kind.IsCollective() {
					continue
				}
				k := seq[e.Comm]
				seq[e.Comm]++
				m := calls[e.Comm]
				if pass == 0 {
					for len(m) <= k {
						m = append(m, call{largest: -1})
					}
					m[k].largest = max(m[k].largest, e.Bytes)
					m[k].perRank = m[k].perRank || e.Tag > 0 && perRank(uint8(e.Tag-1))
					calls[e.Comm] = m
					continue
				}
				c := m[k]
				if c.perRank || e.Tag > 0 && e.Bytes == b.inPlaceOf(uint8(e.Tag-1), r, e, c.largest) {
					e.Bytes = c.largest
				}
				e.Tag = 0
			}
		}
	}
}

// renumberTags maps the trace's tags, in increasing order, onto 0, 1, …
// when one of them is 2^20 or more (MPI allows tags up to MPI_TAG_UB,
// often 2^31−1; the lowering keeps 20 bits). OTF2 records the actual tag
// of every receive, never a wildcard, so a one-to-one renumbering keeps
// every match.
func (b *builder) renumberTags() {
	big := false
	for _, rk := range b.t.Ranks {
		for _, e := range rk.Events {
			big = big || e.Kind.IsPointToPoint() && e.Tag >= maxTag
		}
	}
	if !big {
		return
	}
	seen := map[int32]int32{}
	for _, rk := range b.t.Ranks {
		for _, e := range rk.Events {
			if e.Kind.IsPointToPoint() {
				seen[e.Tag] = 0
			}
		}
	}
	tags := make([]int32, 0, len(seen))
	for t := range seen {
		tags = append(tags, t)
	}
	sort.Slice(tags, func(i, j int) bool { return tags[i] < tags[j] })
	for i, t := range tags {
		seen[t] = int32(i)
	}
	for r := range b.t.Ranks {
		evs := b.t.Ranks[r].Events
		for i := range evs {
			if evs[i].Kind.IsPointToPoint() {
				evs[i].Tag = seen[evs[i].Tag]
			}
		}
	}
}

func sortedKeys[V any](m map[uint32]V) []uint32 {
	ks := make([]uint32, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}

func sortedKeys64[V any](m map[uint64]V) []uint64 {
	ks := make([]uint64, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}

func sortedVals(m map[uint64]int) []int {
	vs := make([]int, 0, len(m))
	for _, v := range m {
		vs = append(vs, v)
	}
	sort.Ints(vs)
	return vs
}
