// Package lower lowers an MPI trace (package traces/mpi) into an execution
// graph (package traces/graph) in GOAL semantics.
//
// # Dependency semantics
//
// Every rank keeps a frontier: the operations the next blocking operation
// must wait for. Lowering a rank's events in program order:
//
//   - Compute → a calc op of Duration ns carrying the event's region; it
//     requires the frontier and becomes the new frontier.
//   - Send, Recv (blocking) → a send/recv op that requires the frontier and
//     becomes the new frontier, so later ops start after it completes.
//   - Isend, Irecv → a send/recv op that requires the frontier (it starts
//     after the preceding blocking op completes) but does not join it, so
//     later ops do not wait for it. Consecutive nonblocking ops are chained
//     with irequires (each starts only after the previous one started),
//     which keeps their start order, and thus MPI's non-overtaking message
//     order, equal to program order. The first blocking op after them also
//     irequires the last of them.
//   - Wait, Waitall → no op; the waited requests' ops join the frontier, so
//     the next op requires (waits for the completion of) them.
//   - Collectives → the ops of the chosen algorithm (see Options); the
//     first ones require the frontier, and the frontier after the
//     collective is its final ops. Within a collective, a send and a receive
//     of the same step both require the previous step, so that exchanges
//     cannot deadlock under rendezvous.
//
// # Tags
//
// Point-to-point tags must lie in [0, CollTagBase). Collective messages use
// tag CollTagBase + (c mod 1024)·2^20 + (s mod 2^20), where c is the index
// of the communicator in Trace.Comms and s counts the collectives called on
// that communicator so far. Collective traffic therefore never matches user
// traffic (except receives with AnyTag, which GOAL cannot confine to a
// communicator), and concurrent collectives on different communicators (up
// to 1024 of them) never mix.
package lower

import (
	"fmt"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// CollTagBase is the smallest tag used by collective messages; user
// point-to-point tags must be smaller.
const CollTagBase int32 = 1 << 30

// CollTag returns the tag of the seq-th collective (from 0) on the
// communicator at index commIndex of Trace.Comms.
func CollTag(commIndex int, seq int) int32 {
	return CollTagBase + int32(commIndex%1024)<<20 + int32(seq%(1<<20))
}

type rankState struct {
	frontier []int32
	lastNB   int32 // last nonblocking op issued since the frontier was set, or -1
	reqs     map[int64]int32
}

type lowerer struct {
	t       *mpi.Trace
	opt     Options
	b       *graph.Builder
	regions []int32 // trace region → graph region
	local   [][]int32
	collSeq [][]int // per comm index, per local rank: collectives seen so far
	// collCalls lists, per comm index and local rank, the collective calls
	// in order (receives of alltoallv take their sizes from the sender's call).
	collCalls [][][]collRef
	algs      map[mpi.Kind]Algorithm
	st        rankState
	rank      int
	buf       []int32
}

// Lower lowers trace t into a validated execution graph with the
// collective algorithms chosen in opt. Errors name the rank and the event
// index at fault.
func Lower(t *mpi.Trace, opt Options) (*graph.Graph, error) {
	l := &lowerer{t: t, opt: opt, b: graph.NewBuilder(len(t.Ranks)), algs: map[mpi.Kind]Algorithm{}}
	if opt.ReduceNsPerByte < 0 {
		return nil, fmt.Errorf("lower: negative reduction cost %g ns/byte", opt.ReduceNsPerByte)
	}
	for _, k := range mpi.Kinds() {
		if k.IsCollective() {
			a, err := opt.algorithm(k)
			if err != nil {
				return nil, fmt.Errorf("lower: %w", err)
			}
			l.algs[k] = a
		}
	}
	if err := l.indexComms(); err != nil {
		return nil, fmt.Errorf("lower: %w", err)
	}
	if err := l.checkCollectives(); err != nil {
		return nil, fmt.Errorf("lower: %w", err)
	}
	l.regions = make([]int32, len(t.Regions))
	for i, n := range t.Regions {
		l.regions[i] = l.b.Region(n)
	}
	for r := range t.Ranks {
		if err := l.lowerRank(r); err != nil {
			return nil, fmt.Errorf("lower: %w", err)
		}
	}
	g, err := l.b.Build()
	if err != nil {
		return nil, fmt.Errorf("lower: %w", err)
	}
	return g, nil
}

func (l *lowerer) indexComms() error {
	n := len(l.t.Ranks)
	if len(l.t.Comms) == 0 || l.t.Comms[0].ID != mpi.World || len(l.t.Comms[0].Members) != n {
		return fmt.Errorf("trace has no world communicator of %d ranks at Comms[0]", n)
	}
	l.local = make([][]int32, len(l.t.Comms))
	l.collSeq = make([][]int, len(l.t.Comms))
	for ci, c := range l.t.Comms {
		loc := make([]int32, n)
		for i := range loc {
			loc[i] = -1
		}
		for i, m := range c.Members {
			if m < 0 || int(m) >= n {
				return fmt.Errorf("communicator %d (%s): member %d is world rank %d, not in 0..%d", c.ID, c.Name, i, m, n-1)
			}
			if loc[m] >= 0 {
				return fmt.Errorf("communicator %d (%s): world rank %d listed twice", c.ID, c.Name, m)
			}
			loc[m] = int32(i)
		}
		l.local[ci] = loc
		l.collSeq[ci] = make([]int, len(c.Members))
	}
	return nil
}

func (l *lowerer) commIndex(id int32) int {
	if id >= 0 && int(id) < len(l.t.Comms) && l.t.Comms[id].ID == id {
		return int(id)
	}
	for i := range l.t.Comms {
		if l.t.Comms[i].ID == id {
			return i
		}
	}
	return -1
}

type collRef struct{ rank, ev int }

// checkCollectives verifies that all members of every communicator call the
// same sequence of collectives with matching kind, root and sizes.
func (l *lowerer) checkCollectives() error {
	calls := make([][][]collRef, len(l.t.Comms)) // comm → local rank → calls
	for ci, c := range l.t.Comms {
		calls[ci] = make([][]collRef, len(c.Members))
	}
	for r, rk := range l.t.Ranks {
		for ei := range rk.Events {
			e := &rk.Events[ei]
			if !e.Kind.IsCollective() {
				continue
			}
			ci := l.commIndex(e.Comm)
			if ci < 0 {
				return fmt.Errorf("rank %d event %d: %s on unknown communicator %d", r, ei, e.Kind, e.Comm)
			}
			i := l.local[ci][r]
			if i < 0 {
				return fmt.Errorf("rank %d event %d: %s on communicator %d, which rank %d is not a member of", r, ei, e.Kind, e.Comm, r)
			}
			p := len(l.t.Comms[ci].Members)
			if e.Kind.IsRooted() && (e.Peer < 0 || int(e.Peer) >= p) {
				return fmt.Errorf("rank %d event %d: %s root %d not in communicator %d of size %d", r, ei, e.Kind, e.Peer, e.Comm, p)
			}
			if e.Bytes < 0 {
				return fmt.Errorf("rank %d event %d: %s with negative size %d", r, ei, e.Kind, e.Bytes)
			}
			if e.Kind == mpi.Alltoallv {
				if int(e.ListLen) != p || e.ListOff < 0 || int(e.ListOff)+int(e.ListLen) > len(rk.List) {
					return fmt.Errorf("rank %d event %d: alltoallv lists %d per-peer sizes, communicator %d has %d members", r, ei, e.ListLen, e.Comm, p)
				}
				for j, v := range l.t.List(r, e) {
					if v < 0 {
						return fmt.Errorf("rank %d event %d: alltoallv size to member %d is negative (%d)", r, ei, j, v)
					}
				}
			}
			calls[ci][i] = append(calls[ci][i], collRef{r, ei})
		}
	}
	for ci, c := range l.t.Comms {
		cs := calls[ci]
		if len(cs) == 0 {
			continue
		}
		r0 := c.Members[0]
		for i := 1; i < len(cs); i++ {
			if len(cs[i]) != len(cs[0]) {
				return fmt.Errorf("communicator %d (%s): rank %d calls %d collectives, rank %d calls %d", c.ID, c.Name, c.Members[i], len(cs[i]), r0, len(cs[0]))
			}
			for k := range cs[i] {
				a, b := cs[0][k], cs[i][k]
				ea, eb := &l.t.Ranks[a.rank].Events[a.ev], &l.t.Ranks[b.rank].Events[b.ev]
				if ea.Kind != eb.Kind {
					return fmt.Errorf("rank %d event %d: %s is collective call %d on communicator %d, but rank %d event %d calls %s", b.rank, b.ev, eb.Kind, k, c.ID, a.rank, a.ev, ea.Kind)
				}
				if ea.Kind.IsRooted() && ea.Peer != eb.Peer {
					return fmt.Errorf("rank %d event %d: %s with root %d, but rank %d event %d uses root %d", b.rank, b.ev, eb.Kind, eb.Peer, a.rank, a.ev, ea.Peer)
				}
				if ea.Kind != mpi.Alltoallv && ea.Kind != mpi.Barrier && ea.Bytes != eb.Bytes {
					return fmt.Errorf("rank %d event %d: %s of %d bytes, but rank %d event %d passes %d bytes", b.rank, b.ev, eb.Kind, eb.Bytes, a.rank, a.ev, ea.Bytes)
				}
			}
		}
	}
	l.collCalls = calls
	return nil
}

// emit adds op to the current rank requiring the frontier (and
// irequiring the last nonblocking op) and returns its index.
func (l *lowerer) emit(op graph.Op) int32 {
	id := l.b.Add(l.rank, op)
	for _, f := range l.st.frontier {
		l.b.Dep(l.rank, id, f, graph.Requires)
	}
	if l.st.lastNB >= 0 {
		l.b.Dep(l.rank, id, l.st.lastNB, graph.Irequires)
	}
	return id
}

// setFrontier makes ids the frontier (copying them).
func (l *lowerer) setFrontier(ids ...int32) {
	l.st.frontier = append(l.st.frontier[:0], ids...)
	l.st.lastNB = -1
}

func (l *lowerer) lowerRank(r int) error {
	l.rank = r
	l.st = rankState{lastNB: -1, reqs: map[int64]int32{}}
	rk := &l.t.Ranks[r]
	l.b.Grow(r, len(rk.Events))
	for ei := range rk.Events {
		e := &rk.Events[ei]
		if err := l.event(r, ei, e); err != nil {
			return fmt.Errorf("rank %d event %d (%s): %w", r, ei, e.Kind, err)
		}
	}
	if len(l.st.reqs) > 0 {
		var some int64
		first := true
		for q := range l.st.reqs {
			if first || q < some {
				some, first = q, false
			}
		}
		return fmt.Errorf("rank %d: %d request(s) never waited for (e.g. request %d)", r, len(l.st.reqs), some)
	}
	return nil
}

func (l *lowerer) event(r, ei int, e *mpi.Event) error {
	switch e.Kind {
	case mpi.Compute:
		if e.Duration < 0 {
			return fmt.Errorf("negative duration %d", e.Duration)
		}
		op := graph.CalcOp(e.Duration)
		if e.Region != mpi.NoRegion {
			if e.Region < 0 || int(e.Region) >= len(l.regions) {
				return fmt.Errorf("region %d out of range (%d regions)", e.Region, len(l.regions))
			}
			op.Region = l.regions[e.Region]
		}
		l.setFrontier(l.emit(op))
	case mpi.Send, mpi.Recv, mpi.Isend, mpi.Irecv:
		op, err := l.p2p(r, e)
		if err != nil {
			return err
		}
		id := l.emit(op)
		if e.Kind == mpi.Send || e.Kind == mpi.Recv {
			l.setFrontier(id)
			break
		}
		if _, dup := l.st.reqs[e.Req]; dup {
			return fmt.Errorf("request id %d is already in flight", e.Req)
		}
		l.st.reqs[e.Req] = id
		l.st.lastNB = id
	case mpi.Wait:
		return l.wait(e.Req)
	case mpi.Waitall:
		if e.ListOff < 0 || e.ListLen < 0 || int(e.ListOff)+int(e.ListLen) > len(l.t.Ranks[r].List) {
			return fmt.Errorf("request list [%d,+%d) out of range", e.ListOff, e.ListLen)
		}
		for _, q := range l.t.List(r, e) {
			if err := l.wait(q); err != nil {
				return err
			}
		}
	default:
		if !e.Kind.IsCollective() {
			return fmt.Errorf("unknown event kind %d", e.Kind)
		}
		return l.collective(r, ei, e)
	}
	return nil
}

func (l *lowerer) wait(q int64) error {
	id, ok := l.st.reqs[q]
	if !ok {
		return fmt.Errorf("wait on unknown request %d", q)
	}
	delete(l.st.reqs, q)
	l.st.frontier = append(l.st.frontier, id)
	if l.st.lastNB == id {
		l.st.lastNB = -1
	}
	return nil
}

func (l *lowerer) p2p(r int, e *mpi.Event) (graph.Op, error) {
	ci := l.commIndex(e.Comm)
	if ci < 0 {
		return graph.Op{}, fmt.Errorf("unknown communicator %d", e.Comm)
	}
	c := &l.t.Comms[ci]
	if l.local[ci][r] < 0 {
		return graph.Op{}, fmt.Errorf("rank %d is not a member of communicator %d", r, e.Comm)
	}
	recv := e.Kind == mpi.Recv || e.Kind == mpi.Irecv
	peer := e.Peer
	switch {
	case recv && peer == mpi.AnySource:
		peer = graph.AnySource
	case peer < 0 || int(peer) >= len(c.Members):
		return graph.Op{}, fmt.Errorf("peer %d not in communicator %d of size %d", e.Peer, e.Comm, len(c.Members))
	default:
		peer = c.Members[peer]
	}
	tag := e.Tag
	switch {
	case recv && tag == mpi.AnyTag:
		tag = graph.AnyTag
	case tag < 0 || tag >= CollTagBase:
		return graph.Op{}, fmt.Errorf("tag %d outside [0, %d)", e.Tag, CollTagBase)
	}
	if e.Bytes < 0 {
		return graph.Op{}, fmt.Errorf("negative size %d", e.Bytes)
	}
	if recv {
		return graph.RecvOp(e.Bytes, peer, tag), nil
	}
	return graph.SendOp(e.Bytes, peer, tag), nil
}
