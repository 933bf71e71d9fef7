package bound

import (
	"errors"
	"fmt"

	"github.com/capsim/capsim/optimize/frontier"
	"github.com/capsim/capsim/traces/mpi"
)

// ErrWildcard is the error of a trace with a receive from any source:
// the LP orders every message from its sender to its receiver, and which
// sender a wildcard receive matches is the replay's choice, not the trace's.
var ErrWildcard = errors.New("a receive from any source (MPI_ANY_SOURCE): the LP needs every message matched to its sender (capsim replay resolves wildcards; the LP does not)")

// ConfigFunc returns the configurations of compute event e of rank r, in
// seconds and watts (FromTrace reduces them with frontier.Hull).
type ConfigFunc func(r int, e *mpi.Event) []frontier.Config

// Comm prices the communication FromTraceComm puts in the DAG. Times are in
// seconds.
type Comm interface {
	// Message returns the time from the moment rank src reaches its send
	// event se until the message is available to rank dst (received and
	// processed), for a message of bytes received by receive event re.
	Message(src, se, dst, re int, bytes int64) float64
	// Delay returns the time rank r spends in its call event i before it
	// moves on (its own overheads: a send's CPU and NIC time; for a
	// collective, the time after its last member arrived), excluding
	// waits for messages, which the DAG's message edges model.
	Delay(r, i int) float64
}

// msgOnly prices messages by size alone and calls as instantaneous.
type msgOnly func(bytes int64) float64

func (f msgOnly) Message(src, se, dst, re int, bytes int64) float64 { return f(bytes) }
func (f msgOnly) Delay(r, i int) float64                            { return 0 }

// FromTrace builds the LP's DAG from an MPI trace with messages taking
// msgTime(bytes) seconds and calls taking no time (see FromTraceComm).
func FromTrace(t *mpi.Trace, msgTime func(bytes int64) float64, configs ConfigFunc) (*DAG, error) {
	return fromTrace(t, msgOnly(msgTime), nil, configs)
}

// FromTraceNIC is FromTrace with the sender's network interface
// serializing its messages: each send gets an injection vertex, which
// waits for the send call and for the previous injection of the rank plus
// nicGap(bytes of that message) (LogGOPS: g + (s−1)·G). The chain restarts
// at every collective, so it never crosses one. A nil nicGap is FromTrace.
func FromTraceNIC(t *mpi.Trace, msgTime, nicGap func(bytes int64) float64, configs ConfigFunc) (*DAG, error) {
	return fromTrace(t, msgOnly(msgTime), nicGap, configs)
}

// FromTraceComm builds the LP's DAG from an MPI trace (Bailey et al., SC'15, §3.1, Table 2):
//
//   - vertices are MPI calls: one per call and rank for point-to-point
//     calls and waits, one shared by all members for each collective (a
//     synchronization point), plus Init and Fin shared by every rank; a
//     rank that starts later (mpi.Trace.StartNs) begins at a vertex that
//     long after Init;
//   - consecutive compute events between two calls become a chain of tasks
//     through local vertices; two calls with no compute between them are
//     joined by a zero-time precedence edge;
//   - a message runs from its send (or isend) vertex to its receive vertex
//     (for an irecv, the vertex of the wait that completes it), matched in
//     order by source, destination, tag and communicator, and takes
//     comm.Message seconds;
//   - a call in which a rank spends comm.Delay > 0 is followed on that
//     rank by a vertex that long after it.
func FromTraceComm(t *mpi.Trace, cm Comm, configs ConfigFunc) (*DAG, error) {
	return fromTrace(t, cm, nil, configs)
}

// fromTrace is FromTraceComm with FromTraceNIC's injection chain when
// nicGap is not nil.
func fromTrace(t *mpi.Trace, cm Comm, nicGap func(bytes int64) float64, configs ConfigFunc) (*DAG, error) {
	tb := &traceBuild{t: t, cm: cm, nicGap: nicGap, configs: configs,
		d:     &DAG{Init: 0, Fin: 1, Vertices: 2, Names: []string{"init", "fin"}},
		colls: map[collKey]int{}, recvs: map[chanKey][]recvRef{}}
	for r := range t.Ranks {
		if err := tb.rank(r); err != nil {
			return nil, err
		}
	}
	if err := tb.match(); err != nil {
		return nil, err
	}
	return tb.d, tb.d.Validate()
}

// collKey names a collective: its communicator and its sequence number
// on it.
type collKey struct {
	comm int32
	seq  int
}

// chanKey is a message channel, matched in order.
type chanKey struct {
	src, dst, tag, comm int32
}

// traceMsg is a send: its channel, vertex, rank, event and size.
type traceMsg struct {
	key   chanKey
	src   int // vertex
	rank  int
	ev    int
	bytes int64
}

// recvRef is a receive: its vertex, filled in when known, and its event.
type recvRef struct {
	at *int
	ev int
}

// traceBuild is one fromTrace: the DAG, the collectives' shared
// vertices, and the sends and receives to match.
type traceBuild struct {
	t       *mpi.Trace
	cm      Comm
	nicGap  func(bytes int64) float64
	configs ConfigFunc
	d       *DAG
	colls   map[collKey]int
	msgs    []traceMsg            // sends, in program order per rank
	recvs   map[chanKey][]recvRef // receives per channel
}

// newVertex adds a vertex of that name.
func (tb *traceBuild) newVertex(name string) int {
	tb.d.Vertices++
	tb.d.Names = append(tb.d.Names, name)
	return tb.d.Vertices - 1
}

// rankBuild is where a rank's walk through its events stands.
type rankBuild struct {
	*traceBuild
	r        int
	rk       *mpi.Rank
	cur      int   // the rank's latest vertex
	computes []int // event indices of compute events since cur
	reqRecv  map[int64]*int
	lastInj  int // the rank's last injection vertex (FromTraceNIC), −1: none
	lastGap  float64
	seq      map[int32]int // per communicator, the rank's collectives so far
}

// rank adds rank r's tasks, calls and sends and receives.
func (tb *traceBuild) rank(r int) error {
	rb := &rankBuild{traceBuild: tb, r: r, rk: &tb.t.Ranks[r], cur: tb.d.Init, reqRecv: map[int64]*int{}, lastInj: -1, seq: map[int32]int{}}
	if r < len(tb.t.StartNs) && tb.t.StartNs[r] > 0 {
		// The rank starts later (mpi.Trace.StartNs): its walk begins at a
		// vertex that long after Init.
		rb.cur = tb.newVertex(fmt.Sprintf("rank %d start", r))
		tb.d.Messages = append(tb.d.Messages, Message{Src: tb.d.Init, Dst: rb.cur, Time: float64(tb.t.StartNs[r]) / 1e9})
	}
	for i := range rb.rk.Events {
		if err := rb.event(i); err != nil {
			return err
		}
	}
	if err := rb.flush(tb.d.Fin); err != nil {
		return err
	}
	for _, at := range rb.reqRecv {
		*at = tb.d.Fin // an irecv never waited for completes by the end
	}
	return nil
}

// flush chains the compute events since the last call as tasks from cur
// to vertex to (a zero-time edge where there are none).
func (rb *rankBuild) flush(to int) error {
	d, r := rb.d, rb.r
	for k, ei := range rb.computes {
		e := &rb.rk.Events[ei]
		h, err := frontier.Hull(rb.configs(r, e))
		if err != nil {
			return fmt.Errorf("rank %d event %d: %w", r, ei, err)
		}
		dst := to
		if k < len(rb.computes)-1 {
			dst = rb.newVertex(fmt.Sprintf("rank %d after event %d", r, ei))
		}
		d.Tasks = append(d.Tasks, Task{Rank: r, Src: rb.cur, Dst: dst, Hull: h, Event: ei})
		rb.cur = dst
	}
	if len(rb.computes) == 0 && to != rb.cur {
		d.Messages = append(d.Messages, Message{Src: rb.cur, Dst: to})
	}
	rb.computes = rb.computes[:0]
	rb.cur = to
	return nil
}

// event adds event i of the rank: a compute event waits for the next
// call; a call gets its vertex (a collective's shared one), its delay and
// its send or receive.
func (rb *rankBuild) event(i int) error {
	d, r := rb.d, rb.r
	e := &rb.rk.Events[i]
	if e.Kind == mpi.Compute {
		rb.computes = append(rb.computes, i)
		return nil
	}
	comm := rb.t.Comm(e.Comm)
	if comm == nil {
		return fmt.Errorf("rank %d event %d: unknown communicator %d", r, i, e.Comm)
	}
	var v int
	if e.Kind.IsCollective() {
		rb.lastInj = -1
		k := collKey{e.Comm, rb.seq[e.Comm]}
		rb.seq[e.Comm]++
		var ok bool
		if v, ok = rb.colls[k]; !ok {
			v = rb.newVertex(fmt.Sprintf("%s #%d on comm %d", e.Kind, k.seq, e.Comm))
			rb.colls[k] = v
		}
	} else {
		v = rb.newVertex(fmt.Sprintf("rank %d event %d (%s)", r, i, e.Kind))
	}
	if err := rb.flush(v); err != nil {
		return err
	}
	if dl := rb.cm.Delay(r, i); dl > 0 {
		w := rb.newVertex(fmt.Sprintf("rank %d after call %d", r, i))
		d.Messages = append(d.Messages, Message{Src: v, Dst: w, Time: dl})
		rb.cur = w
	}
	return rb.p2p(i, e, comm, v)
}

// p2p records call i's send or receive at vertex v, or completes the
// irecvs a wait completes.
func (rb *rankBuild) p2p(i int, e *mpi.Event, comm *mpi.Communicator, v int) error {
	r := rb.r
	peer := func() (int32, error) {
		if e.Peer == mpi.AnySource && (e.Kind == mpi.Recv || e.Kind == mpi.Irecv) {
			return 0, fmt.Errorf("rank %d event %d: %w", r, i, ErrWildcard)
		}
		if e.Peer < 0 || int(e.Peer) >= len(comm.Members) {
			return 0, fmt.Errorf("rank %d event %d: peer %d outside communicator %d", r, i, e.Peer, e.Comm)
		}
		return comm.Members[e.Peer], nil
	}
	switch e.Kind {
	case mpi.Send, mpi.Isend:
		p, err := peer()
		if err != nil {
			return err
		}
		src := v
		if rb.nicGap != nil {
			src = rb.newVertex(fmt.Sprintf("rank %d event %d injection", r, i))
			rb.d.Messages = append(rb.d.Messages, Message{Src: v, Dst: src})
			if rb.lastInj >= 0 {
				rb.d.Messages = append(rb.d.Messages, Message{Src: rb.lastInj, Dst: src, Time: rb.lastGap})
			}
			rb.lastInj, rb.lastGap = src, rb.nicGap(e.Bytes)
		}
		rb.msgs = append(rb.msgs, traceMsg{chanKey{int32(r), p, e.Tag, e.Comm}, src, r, i, e.Bytes})
	case mpi.Recv, mpi.Irecv:
		p, err := peer()
		if err != nil {
			return err
		}
		key := chanKey{p, int32(r), e.Tag, e.Comm}
		at := new(int)
		*at = v
		if e.Kind == mpi.Irecv {
			*at = -1 // completed by a later wait
			rb.reqRecv[e.Req] = at
		}
		rb.recvs[key] = append(rb.recvs[key], recvRef{at, i})
	case mpi.Wait, mpi.Waitall:
		reqs := []int64{e.Req}
		if e.Kind == mpi.Waitall {
			reqs = rb.t.List(r, e)
		}
		for _, q := range reqs {
			if at, ok := rb.reqRecv[q]; ok {
				*at = v
				delete(rb.reqRecv, q)
			}
		}
	}
	return nil
}

// match matches the messages per channel in order, each an edge of
// cm.Message seconds.
func (tb *traceBuild) match() error {
	used := map[chanKey]int{}
	for _, m := range tb.msgs {
		rs := tb.recvs[m.key]
		n := used[m.key]
		if n >= len(rs) {
			return fmt.Errorf("message from rank %d to rank %d tag %d on comm %d has no matching receive", m.key.src, m.key.dst, m.key.tag, m.key.comm)
		}
		used[m.key] = n + 1
		tm := tb.cm.Message(m.rank, m.ev, int(m.key.dst), rs[n].ev, m.bytes)
		if !(tm >= 0) {
			return fmt.Errorf("message from rank %d event %d: time %g s is not a time", m.rank, m.ev, tm)
		}
		tb.d.Messages = append(tb.d.Messages, Message{Src: m.src, Dst: *rs[n].at, Time: tm})
	}
	for key, rs := range tb.recvs {
		if used[key] < len(rs) {
			return fmt.Errorf("receive on rank %d from rank %d tag %d on comm %d has no matching send", key.dst, key.src, key.tag, key.comm)
		}
	}
	return nil
}
