package bound

import (
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// opTimes records, per operation of a replay, when it was queued and when
// it kept its CPU busy.
type opTimes struct {
	queued, start, end []int64
	sendOf             []int32 // per receive: the send it matched, −1 before
}

func newOpTimes(n int) *opTimes {
	o := &opTimes{queued: make([]int64, n), start: make([]int64, n), end: make([]int64, n), sendOf: make([]int32, n)}
	for i := range o.queued {
		o.queued[i], o.start[i], o.end[i], o.sendOf[i] = -1, -1, -1, -1
	}
	return o
}

func (o *opTimes) Busy(op int32, start, end int64)               { o.start[op], o.end[op] = start, end }
func (o *opTimes) Message(send, recv int32, sent, matched int64) { o.sendOf[recv] = send }
func (o *opTimes) Queued(op int32, t int64)                      { o.queued[op] = t }

// ReplayComm is the LP's communication measured on a replay of the
// trace, by default at the fastest P-state (Bailey et al., SC'15, §3.1,
// take message times from measured runs and give no model of them). A rank reaches a call when the engine
// queues the call's first operation, so:
//
//   - a message takes from the moment its sender reaches the send until
//     the receiver's CPU has processed it: sender CPU overhead and NIC
//     queueing, latency, receiver NIC queueing and processing;
//   - a nonblocking call delays its rank until the next call or compute
//     is queued (its CPU and NIC time, and the processing of messages
//     that arrived meanwhile); a blocking send by its own CPU and NIC
//     time; receives and waits that block by nothing (their messages
//     carry the time);
//   - a collective delays each member from the arrival of its last
//     member until the member's last operation of it has finished.
//
// At the fastest P-state the LP's as-soon-as-possible schedule then
// follows the replay's; under a cap, communication keeps these costs.
type ReplayComm struct {
	m     *lower.EventMap
	g     *graph.Graph
	t     *mpi.Trace
	ops   *opTimes
	net   network.LogGOPS
	cls   *network.Classes
	entry map[[2]int32]int64 // latest entry per collective (comm, seq)
	coll  [][]int32          // per rank and event: collective sequence number, −1 for others
	waits []map[int][]int32  // per rank and wait event: the operations it completes
}

// NewReplayComm replays trace t (lowered as g with event map em and
// network classes cls) under net with pricer's compute times and returns
// the communication it measured.
func NewReplayComm(t *mpi.Trace, g *graph.Graph, em *lower.EventMap, net network.LogGOPS, cls *network.Classes, pricer sim.CalcPricer) (*ReplayComm, error) {
	ops := newOpTimes(g.NumOps())
	if _, err := sim.Run(g, net, sim.Options{
		Pricer:   pricer,
		Observer: ops,
		Classes:  cls,
	}); err != nil {
		return nil, err
	}
	c := &ReplayComm{m: em, g: g, t: t, ops: ops, net: net, cls: cls, entry: map[[2]int32]int64{}, coll: make([][]int32, len(t.Ranks))}
	c.waits = make([]map[int][]int32, len(t.Ranks))
	for r := range t.Ranks {
		seq := map[int32]int32{}
		c.coll[r] = make([]int32, len(t.Ranks[r].Events))
		c.waits[r] = map[int][]int32{}
		pending := map[int64]int32{} // request id → operation, as the trace reuses ids
		for i, e := range t.Ranks[r].Events {
			c.coll[r][i] = -1
			switch e.Kind {
			case mpi.Isend, mpi.Irecv:
				if from, to := em.Ops(r, i); from < to {
					pending[e.Req] = from
				}
			case mpi.Wait, mpi.Waitall:
				reqs := []int64{e.Req}
				if e.Kind == mpi.Waitall {
					reqs = t.List(r, &t.Ranks[r].Events[i])
				}
				for _, q := range reqs {
					if op, ok := pending[q]; ok {
						c.waits[r][i] = append(c.waits[r][i], op)
						delete(pending, q)
					}
				}
			}
			if !e.Kind.IsCollective() {
				continue
			}
			s := seq[e.Comm]
			seq[e.Comm]++
			c.coll[r][i] = s
			from, to := em.Ops(r, i)
			if from == to {
				continue
			}
			k := [2]int32{e.Comm, s}
			if q := ops.queued[from]; q > c.entry[k] {
				c.entry[k] = q
			}
		}
	}
	return c, nil
}

// Message implements Comm: from the sender reaching the send until
// the receiver could have processed it had its CPU been free (see arrival).
func (c *ReplayComm) Message(src, se, dst, re int, bytes int64) float64 {
	send, _ := c.m.Ops(src, se)
	recv, _ := c.m.Ops(dst, re)
	q, done := c.ops.queued[send], c.arrival(recv)
	if q < 0 || done < q {
		return 0
	}
	return float64(done-q) / 1e9
}

// arrival returns when the message received by recv would have been
// processed with the receiver's CPU free: the send's start (after the
// sender's CPU and NIC waits), o + L later at the receiver, plus the
// receive's own processing time. Time the message then waited for the
// receiver's CPU (busy computing, or processing other messages) is the
// receiver's, not the message's: the DAG's chain of the receiving rank
// holds it (see Delay), so a policy that moves the receiver's compute does
// not find it baked into the message.
func (c *ReplayComm) arrival(recv int32) int64 {
	send := c.ops.sendOf[recv]
	if send < 0 || c.ops.start[send] < 0 || c.ops.start[recv] < 0 {
		return c.ops.end[recv]
	}
	p := c.net
	if c.cls != nil {
		p = c.cls.Params[c.cls.Of[send]]
	}
	return c.ops.start[send] + p.Overhead + p.Latency + (c.ops.end[recv] - c.ops.start[recv])
}

// Delay implements Comm: the time from the LP's vertex of the call
// (as the replay had it) until the rank's next operation started.
func (c *ReplayComm) Delay(r, i int) float64 {
	v, ok := c.vertexTime(r, i)
	if !ok {
		return 0
	}
	next, ok := c.nextStart(r, i)
	if !ok {
		// Nothing follows, or a wait: the rank moves on when its own CPU
		// and NIC time is spent.
		// A collective ends when its last operation on the rank does.
		from, to := c.m.Ops(r, i)
		coll := c.t.Ranks[r].Events[i].Kind.IsCollective()
		next = v
		for op := from; op < to; op++ {
			if coll || c.g.Kind[op] == graph.Send {
				next = max(next, c.ops.end[op])
			}
		}
	}
	if next > v {
		return float64(next-v) / 1e9
	}
	return 0
}

// vertexTime returns when the replay passed call i of rank r in the LP's
// terms: when the rank reached it for calls that do not block; when it
// completed for blocking receives, waits and collectives (the latest
// member's arrival for a collective, which the LP's shared vertex is).
func (c *ReplayComm) vertexTime(r, i int) (int64, bool) {
	e := &c.t.Ranks[r].Events[i]
	from, to := c.m.Ops(r, i)
	switch {
	case e.Kind == mpi.Wait || e.Kind == mpi.Waitall:
		t := c.reach(r, i)
		for _, op := range c.waits[r][i] {
			if c.g.Kind[op] == graph.Recv {
				t = max(t, c.arrival(op)) // as the DAG's message edge has it
			}
		}
		return t, t >= 0
	case from == to:
		return 0, false
	case e.Kind.IsCollective():
		return c.entry[[2]int32{e.Comm, c.coll[r][i]}], true
	case e.Kind == mpi.Recv:
		return max(c.ops.queued[from], c.arrival(from)), c.ops.queued[from] >= 0
	case e.Kind == mpi.Send && !c.eager(from):
		return c.ops.queued[from], false // completes when matched: the message edges do not model that
	}
	return c.ops.queued[from], c.ops.queued[from] >= 0
}

// reach returns when the replay reached event i of rank r that has no
// operations of its own (a wait): the time the previous event let the rank
// move on.
func (c *ReplayComm) reach(r, i int) int64 {
	for j := i - 1; j >= 0; j-- {
		from, to := c.m.Ops(r, j)
		if from == to {
			continue
		}
		t := c.ops.queued[to-1]
		for op := from; op < to; op++ {
			if c.g.Kind[op] != graph.Recv || c.t.Ranks[r].Events[j].Kind == mpi.Recv {
				t = max(t, c.ops.end[op])
			}
		}
		return t
	}
	return 0
}

// nextStart returns when the LP's next point after call i of rank r was
// passed in the replay: the start of a compute that follows (it may wait
// for the CPU), the moment the rank reached a call that follows; false when
// the next event has no operations.
func (c *ReplayComm) nextStart(r, i int) (int64, bool) {
	if i+1 >= len(c.t.Ranks[r].Events) {
		return 0, false
	}
	from, to := c.m.Ops(r, i+1)
	if from == to {
		return 0, false
	}
	if c.t.Ranks[r].Events[i+1].Kind == mpi.Compute {
		return c.ops.start[from], c.ops.start[from] >= 0
	}
	return c.ops.queued[from], c.ops.queued[from] >= 0
}

// eager reports whether send op goes eagerly (it completes as it starts).
func (c *ReplayComm) eager(op int32) bool {
	s := c.net.EagerLimit
	if c.cls != nil {
		s = c.cls.Params[c.cls.Of[op]].EagerLimit
	}
	return c.g.Size[op] <= s
}

var _ Comm = (*ReplayComm)(nil)
