package mpi

import (
	"fmt"
	"sort"
)

// CollSizes is what one member's call of a gather, scatter, allgather,
// alltoall (or their v-variants), reduce_scatter, reduce, bcast or
// allreduce says it sends to and receives from each member of its
// communicator (a reduce's members each send the root a block, a bcast's
// root each member one, an allreduce's members each every other one), in bytes, from the
// counts and datatypes of both sides that a trace records: the input of
// CheckSizes. An Event keeps one size per call; a format that records
// both sides gives them here so that members that disagree are found.
type CollSizes struct {
	// Event is the call's index in its rank's events.
	Event int32
	// Send and Recv are the bytes the call sends to and receives from
	// each member where it gives one count for all; negative where the
	// call does not say (a gather's receive on a rank other than the
	// root).
	Send, Recv int64
	// Sends and Recvs, when not nil, give them per member in
	// communicator rank order (a v-variant's counts, reduce_scatter's
	// receive counts, which are also what each member sends). They
	// take the place of Send and Recv.
	Sends, Recvs []int64
}

// SizeError reports a collective call in which one member sends another
// more bytes than that member's call receives from it: MPI_ERR_TRUNCATE in
// an MPI run, and a size of capsim's choosing in a replay.
type SizeError struct {
	Kind Kind
	Root int32 // the root's rank in Comm, for rooted kinds
	Comm int32
	Call int // which collective call on Comm, counted from 1 in each member's order
	// The sending and the receiving member (world ranks), the index of
	// their call in their events and in the CollSizes of their rank.
	SendRank, SendEvent, SendIndex int
	RecvRank, RecvEvent, RecvIndex int
	Sent, Room                     int64 // bytes sent, and received at most
	// SendAt and RecvAt say where each call was read (Trace.Source), ""
	// when the trace does not say.
	SendAt, RecvAt string
}

// Truncation is what is wrong, without where the receiving call was read:
// "rank 1 receives at most 8 bytes from rank 0, which sends it 800 (FILE
// record 4): MPI_ERR_TRUNCATE in an MPI run".
func (e *SizeError) Truncation() string {
	at := ""
	if e.SendAt != "" {
		at = " (" + e.SendAt + ")"
	}
	return fmt.Sprintf("rank %d receives at most %d bytes from rank %d, which sends it %d%s: MPI_ERR_TRUNCATE in an MPI run",
		e.RecvRank, e.Room, e.SendRank, e.Sent, at)
}

func (e *SizeError) Error() string {
	call := e.Kind.String()
	if e.Kind.IsRooted() {
		call = fmt.Sprintf("%s (root %d)", e.Kind, e.Root)
	}
	where := fmt.Sprintf("rank %d event %d", e.RecvRank, e.RecvEvent)
	if e.RecvAt != "" {
		where += " (" + e.RecvAt + ")"
	}
	return fmt.Sprintf("%s: collective call #%d on communicator %d, %s: %s", where, e.Call, e.Comm, call, e.Truncation())
}

// sizesKind reports whether CheckSizes checks calls of kind k.
func sizesKind(k Kind) bool {
	switch k {
	case Gather, Scatter, Allgather, Alltoall, Alltoallv, ReduceScatter, Bcast, Reduce, Allreduce:
		return true
	}
	return false
}

// shape is the kind whose pattern of blocks k moves, for CheckSizes: a
// reduce's members each send the root a block (a gather's), a bcast's
// root sends each member one (a scatter's), an allreduce's members each
// send every other one (an alltoall's).
func shape(k Kind) Kind {
	switch k {
	case Reduce:
		return Gather
	case Bcast:
		return Scatter
	case Allreduce:
		return Alltoall
	}
	return k
}

// member is one member's call of a collective instance.
type member struct {
	rank, idx int
	c         *CollSizes
}

// CheckSizes refuses the first collective call of t, in communicator and
// call order, in which a member sends another more bytes than that
// member's call receives from it, as calls[r] (rank r's CollSizes, in
// event order) say. A call is the k-th collective on its communicator in
// each member's events, as the lowering pairs them. A member's copy to
// itself moves nothing between ranks and is left out, as MPI libraries
// (and SimGrid's SMPI) leave it unchecked; so are calls some member has
// no CollSizes for, and calls whose members disagree on the kind or the
// root, which the lowering names.
func CheckSizes(t *Trace, calls [][]CollSizes) error {
	type key struct {
		comm int32
		seq  int
	}
	inst := map[key][]member{}
	commRank := map[int32]map[int32]int{}
	seq := map[int32]int{}
	for r := range calls {
		cs := calls[r]
		if len(cs) == 0 || r >= len(t.Ranks) {
			continue
		}
		clear(seq)
		evs := t.Ranks[r].Events
		k := 0
		for i := range evs {
			if k == len(cs) {
				break
			}
			e := &evs[i]
			if !e.Kind.IsCollective() {
				continue
			}
			s := seq[e.Comm]
			seq[e.Comm]++
			if int32(i) != cs[k].Event {
				continue
			}
			c := &cs[k]
			k++
			cr, ok := commRank[e.Comm]
			if !ok {
				if cm := t.Comm(e.Comm); cm != nil {
					cr = make(map[int32]int, len(cm.Members))
					for j, w := range cm.Members {
						cr[w] = j
					}
				}
				commRank[e.Comm] = cr
			}
			me, ok := cr[int32(r)]
			if !ok || !sizesKind(e.Kind) {
				continue
			}
			m := inst[key{e.Comm, s}]
			if m == nil {
				m = make([]member, len(cr))
			}
			m[me] = member{rank: r, idx: k - 1, c: c}
			inst[key{e.Comm, s}] = m
		}
	}
	keys := make([]key, 0, len(inst))
	for k := range inst {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].comm < keys[j].comm || keys[i].comm == keys[j].comm && keys[i].seq < keys[j].seq
	})
	for _, k := range keys {
		if err := checkCall(t, k.comm, k.seq+1, inst[k]); err != nil {
			return err
		}
	}
	return nil
}

// call is one collective instance being checked.
type call struct {
	kind, shape Kind
	root        int
	m           []member
}

// checkCall checks one collective instance whose members' calls are m,
// in communicator rank order.
func checkCall(t *Trace, comm int32, n int, m []member) error {
	var c call
	for j, x := range m {
		if x.c == nil {
			return nil
		}
		e := &t.Ranks[x.rank].Events[x.c.Event]
		if j == 0 {
			c = call{kind: e.Kind, root: int(e.Peer), m: m}
		} else if e.Kind != c.kind || c.kind.IsRooted() && int(e.Peer) != c.root {
			return nil
		}
		c.shape = shape(c.kind)
		if x.c.Sends != nil && len(x.c.Sends) != len(m) || x.c.Recvs != nil && len(x.c.Recvs) != len(m) {
			return nil
		}
	}
	i, j, ok := c.truncated()
	if !ok {
		return nil
	}
	s, r := m[i], m[j]
	sent, _ := c.sendTo(i, j)
	room, _ := c.recvFrom(j, i)
	return &SizeError{Kind: c.kind, Root: int32(c.root), Comm: comm, Call: n,
		SendRank: s.rank, SendEvent: int(s.c.Event), SendIndex: s.idx,
		RecvRank: r.rank, RecvEvent: int(r.c.Event), RecvIndex: r.idx,
		Sent: sent, Room: room, SendAt: t.Source(s.rank, int(s.c.Event)), RecvAt: t.Source(r.rank, int(r.c.Event))}
}

// sendTo is how many bytes member i's call sends to member j, and whether
// it says it sends to j.
func (c *call) sendTo(i, j int) (int64, bool) {
	x := c.m[i].c
	switch {
	case c.shape == Gather && j != c.root, c.shape == Scatter && i != c.root:
		return 0, false
	case x.Sends != nil:
		return x.Sends[j], x.Sends[j] >= 0
	}
	return x.Send, x.Send >= 0
}

// recvFrom is how many bytes member j's call receives from member i at
// most, and whether it says it receives from i.
func (c *call) recvFrom(j, i int) (int64, bool) {
	x := c.m[j].c
	switch {
	case c.shape == Gather && j != c.root, c.shape == Scatter && i != c.root:
		return 0, false
	case c.kind == ReduceScatter && x.Sends != nil: // its own block of the counts
		return x.Sends[j], x.Sends[j] >= 0
	case x.Recvs != nil:
		return x.Recvs[i], x.Recvs[i] >= 0
	}
	return x.Recv, x.Recv >= 0
}

// truncated returns the first pair (i, j), i ≠ j, in which member i sends
// member j more than j receives from it.
func (c *call) truncated() (i, j int, ok bool) {
	p := len(c.m)
	if c.kind.IsRooted() {
		for o := range p {
			if o == c.root {
				continue
			}
			if c.shape == Gather {
				i, j = o, c.root
			} else {
				i, j = c.root, o
			}
			if c.exceeds(i, j) {
				return i, j, true
			}
		}
		return 0, 0, false
	}
	if i, j, done := c.uniform(); done {
		return i, j, i >= 0
	}
	for i := range p {
		for j := range p {
			if i != j && c.exceeds(i, j) {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// exceeds reports whether member i sends member j more than j receives
// from i.
func (c *call) exceeds(i, j int) bool {
	sent, ok := c.sendTo(i, j)
	if !ok {
		return false
	}
	room, ok := c.recvFrom(j, i)
	return ok && sent > room
}

// uniform checks, in time linear in the members, a call in which each
// member sends one size to every other and receives one size from every
// other (no lists): done is false for other calls. Then i < 0 when no
// member sends another more than it receives; else (i, j) is such a
// pair. Of the members that sends most and the one that receives least,
// one pair of distinct members exceeds if any pair does.
func (c *call) uniform() (i, j int, done bool) {
	for _, x := range c.m {
		if x.c.Sends != nil || x.c.Recvs != nil {
			return 0, 0, false
		}
	}
	most := func(skip int) int {
		b := -1
		for k, x := range c.m {
			if k != skip && x.c.Send >= 0 && (b < 0 || x.c.Send > c.m[b].c.Send) {
				b = k
			}
		}
		return b
	}
	least := func(skip int) int {
		b := -1
		for k, x := range c.m {
			if k != skip && x.c.Recv >= 0 && (b < 0 || x.c.Recv < c.m[b].c.Recv) {
				b = k
			}
		}
		return b
	}
	if i = most(-1); i >= 0 {
		if j = least(i); j >= 0 && c.exceeds(i, j) {
			return i, j, true
		}
	}
	if j = least(-1); j >= 0 {
		if i = most(j); i >= 0 && c.exceeds(i, j) {
			return i, j, true
		}
	}
	return -1, -1, true
}
