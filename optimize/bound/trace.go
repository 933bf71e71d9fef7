package bound

import (
	"fmt"

	"github.com/capsim/capsim/optimize/frontier"
	"github.com/capsim/capsim/traces/mpi"
)

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
//     synchronization point), plus Init and Fin shared by every rank;
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
	d := &DAG{Init: 0, Fin: 1, Vertices: 2, Names: []string{"init", "fin"}}
	newVertex := func(name string) int {
		d.Vertices++
		d.Names = append(d.Names, name)
		return d.Vertices - 1
	}
	type collKey struct {
		comm int32
		seq  int
	}
	colls := map[collKey]int{}
	type chanKey struct {
		src, dst, tag, comm int32
	}
	type msg struct {
		key   chanKey
		src   int // vertex
		rank  int
		ev    int
		bytes int64
	}
	type recvRef struct {
		at *int // vertex, filled in when known
		ev int
	}
	var msgs []msg                   // sends, in program order per rank
	recvs := map[chanKey][]recvRef{} // receives per channel
	for r := range t.Ranks {
		rk := &t.Ranks[r]
		cur := d.Init
		var computes []int // event indices of compute events since cur
		reqRecv := map[int64]*int{}
		lastInj, lastGap := -1, 0.0
		flush := func(to int) error {
			for k, ei := range computes {
				e := &rk.Events[ei]
				h, err := frontier.Hull(configs(r, e))
				if err != nil {
					return fmt.Errorf("rank %d event %d: %w", r, ei, err)
				}
				dst := to
				if k < len(computes)-1 {
					dst = newVertex(fmt.Sprintf("rank %d after event %d", r, ei))
				}
				d.Tasks = append(d.Tasks, Task{Rank: r, Src: cur, Dst: dst, Hull: h, Event: ei})
				cur = dst
			}
			if len(computes) == 0 && to != cur {
				d.Messages = append(d.Messages, Message{Src: cur, Dst: to})
			}
			computes = computes[:0]
			cur = to
			return nil
		}
		seq := map[int32]int{}
		for i := range rk.Events {
			e := &rk.Events[i]
			if e.Kind == mpi.Compute {
				computes = append(computes, i)
				continue
			}
			comm := t.Comm(e.Comm)
			if comm == nil {
				return nil, fmt.Errorf("rank %d event %d: unknown communicator %d", r, i, e.Comm)
			}
			var v int
			if e.Kind.IsCollective() {
				lastInj = -1
				k := collKey{e.Comm, seq[e.Comm]}
				seq[e.Comm]++
				var ok bool
				if v, ok = colls[k]; !ok {
					v = newVertex(fmt.Sprintf("%s #%d on comm %d", e.Kind, k.seq, e.Comm))
					colls[k] = v
				}
			} else {
				v = newVertex(fmt.Sprintf("rank %d event %d (%s)", r, i, e.Kind))
			}
			if err := flush(v); err != nil {
				return nil, err
			}
			if dl := cm.Delay(r, i); dl > 0 {
				w := newVertex(fmt.Sprintf("rank %d after call %d", r, i))
				d.Messages = append(d.Messages, Message{Src: v, Dst: w, Time: dl})
				cur = w
			}
			peer := func() (int32, error) {
				if e.Peer < 0 || int(e.Peer) >= len(comm.Members) {
					return 0, fmt.Errorf("rank %d event %d: peer %d outside communicator %d (the LP needs matched messages: no wildcards)", r, i, e.Peer, e.Comm)
				}
				return comm.Members[e.Peer], nil
			}
			switch e.Kind {
			case mpi.Send, mpi.Isend:
				p, err := peer()
				if err != nil {
					return nil, err
				}
				src := v
				if nicGap != nil {
					src = newVertex(fmt.Sprintf("rank %d event %d injection", r, i))
					d.Messages = append(d.Messages, Message{Src: v, Dst: src})
					if lastInj >= 0 {
						d.Messages = append(d.Messages, Message{Src: lastInj, Dst: src, Time: lastGap})
					}
					lastInj, lastGap = src, nicGap(e.Bytes)
				}
				msgs = append(msgs, msg{chanKey{int32(r), p, e.Tag, e.Comm}, src, r, i, e.Bytes})
			case mpi.Recv, mpi.Irecv:
				p, err := peer()
				if err != nil {
					return nil, err
				}
				key := chanKey{p, int32(r), e.Tag, e.Comm}
				at := new(int)
				*at = v
				if e.Kind == mpi.Irecv {
					*at = -1 // completed by a later wait
					reqRecv[e.Req] = at
				}
				recvs[key] = append(recvs[key], recvRef{at, i})
			case mpi.Wait, mpi.Waitall:
				reqs := []int64{e.Req}
				if e.Kind == mpi.Waitall {
					reqs = t.List(r, e)
				}
				for _, q := range reqs {
					if at, ok := reqRecv[q]; ok {
						*at = v
						delete(reqRecv, q)
					}
				}
			}
		}
		if err := flush(d.Fin); err != nil {
			return nil, err
		}
		for _, at := range reqRecv {
			*at = d.Fin // an irecv never waited for completes by the end
		}
	}
	// Match messages per channel in order.
	used := map[chanKey]int{}
	for _, m := range msgs {
		rs := recvs[m.key]
		n := used[m.key]
		if n >= len(rs) {
			return nil, fmt.Errorf("message from rank %d to rank %d tag %d on comm %d has no matching receive", m.key.src, m.key.dst, m.key.tag, m.key.comm)
		}
		used[m.key] = n + 1
		tm := cm.Message(m.rank, m.ev, int(m.key.dst), rs[n].ev, m.bytes)
		if !(tm >= 0) {
			return nil, fmt.Errorf("message from rank %d event %d: time %g s is not a time", m.rank, m.ev, tm)
		}
		d.Messages = append(d.Messages, Message{Src: m.src, Dst: *rs[n].at, Time: tm})
	}
	for key, rs := range recvs {
		if used[key] < len(rs) {
			return nil, fmt.Errorf("receive on rank %d from rank %d tag %d on comm %d has no matching send", key.dst, key.src, key.tag, key.comm)
		}
	}
	return d, d.Validate()
}
