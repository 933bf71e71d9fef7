package simgrid

import (
	"fmt"

	"github.com/capsim/capsim/traces/mpi"
)

// span locates a rank's per-peer byte counts in its rankState.lists.
type span struct{ off, n int32 }

// collRec is what one rank's gather, scatter, allgather, alltoall or
// v-variant says it sends to and receives from each member: a size per
// peer, or a list of sizes (n > 0) where the call gives one per rank.
type collRec struct {
	act        *action
	line       int32
	event      int32 // the call's index in its rank's events
	root       int32 // -1: no root
	send, recv int64 // bytes to and from each peer, where no list is given
	sends      span  // per-peer bytes sent (scatterv's root)
	recvs      span  // per-peer bytes received (gatherv's root, allgatherv, alltoallv)
	// sendList is the event's own list in the trace (alltoallv's
	// per-peer bytes, kept once).
	sendList span
}

// keepsRecord reports whether the checks of truncated collectives read
// the calls of action a.
func keepsRecord(a *action) bool {
	switch a.kind {
	case actGather, actGatherv, actScatterv, actAlltoallv, actReduceScatter:
		return true
	}
	return false
}

// record keeps rank r's call e of action a for checkTruncation.
func (p *parser) record(r int, a *action, e *mpi.Event) {
	if !keepsRecord(a) {
		return
	}
	if a.mpi.IsRooted() {
		p.cur.root = e.Peer
	}
	evs := p.t.Ranks[r].Events
	last := &evs[len(evs)-1] // the event just appended
	p.cur.event = int32(len(evs) - 1)
	if e.Kind == mpi.Alltoallv { // with its list
		p.cur.sendList = span{off: last.ListOff, n: last.ListLen}
	}
	p.ranks[r].colls = append(p.ranks[r].colls, p.cur)
}

// keep appends the current list (p.list) to rank r's lists.
func (p *parser) keep(r int) span {
	st := &p.ranks[r]
	s := span{off: int32(len(st.lists)), n: int32(len(p.list))}
	st.lists = append(st.lists, p.list...)
	return s
}

// checkTruncation refuses a gather, scatter, allgather or alltoall (or
// v-variant) in which a member sends another more bytes than that member
// receives from it: MPI_ERR_TRUNCATE in an MPI run, on which SimGrid's
// replay stops too; and a reducescatter whose members' receive counts
// differ so that one sends another a larger block than that member
// receives. The check is every MPI-level format's
// (mpi.CheckSizes); the error names both actions by file and line.
func (p *parser) checkTruncation() error {
	calls := make([][]mpi.CollSizes, len(p.ranks))
	for r := range p.ranks {
		st := &p.ranks[r]
		if len(st.colls) == 0 {
			continue
		}
		cs := make([]mpi.CollSizes, len(st.colls))
		for k := range st.colls {
			c := &st.colls[k]
			cs[k] = mpi.CollSizes{Event: c.event, Send: c.send, Recv: c.recv,
				Sends: p.perPeer(r, c.sends), Recvs: p.perPeer(r, c.recvs)}
			if c.sendList.n > 0 {
				l := c.sendList
				cs[k].Sends = p.t.Ranks[r].List[l.off : l.off+l.n : l.off+l.n]
			}
		}
		calls[r] = cs
	}
	err := mpi.CheckSizes(p.t, calls)
	se, ok := err.(*mpi.SizeError)
	if !ok {
		return err
	}
	ci, cj := &p.ranks[se.SendRank].colls[se.SendIndex], &p.ranks[se.RecvRank].colls[se.RecvIndex]
	smpi := " (SimGrid's replay stops on it too)"
	if cj.act.kind == actReduceScatter {
		// Members whose receive counts differ: MPI requires the same
		// counts on every member.
		smpi = ": every member passes the same receive counts"
	}
	return &Error{File: p.t.Ranks[se.RecvRank].File, Line: int(cj.line), Action: cj.act.name,
		Msg: fmt.Sprintf("rank %d receives at most %d bytes from rank %d, which sends it %d (%s:%d): MPI_ERR_TRUNCATE in an MPI run%s",
			se.RecvRank, se.Room, se.SendRank, se.Sent, p.t.Ranks[se.SendRank].File, ci.line, smpi)}
}

// perPeer is rank r's per-peer sizes at s, nil for none.
func (p *parser) perPeer(r int, s span) []int64 {
	if s.n == 0 {
		return nil
	}
	return p.ranks[r].lists[s.off : s.off+s.n : s.off+s.n]
}
