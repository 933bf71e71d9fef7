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
	case actGather, actGatherv, actScatterv, actAlltoallv:
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
	if e.Kind == mpi.Alltoallv { // the event just appended, with its list
		evs := p.t.Ranks[r].Events
		last := &evs[len(evs)-1]
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

// sendTo is how many bytes rank i's call c sends to rank j, and whether
// it sends to j at all.
func (p *parser) sendTo(i int, c *collRec, j int) (int64, bool) {
	switch c.act.mpi {
	case mpi.Gather:
		return c.send, j == int(c.root)
	case mpi.Scatter:
		if i != int(c.root) {
			return 0, false
		}
	}
	if c.sendList.n > 0 {
		return p.t.Ranks[i].List[c.sendList.off+int32(j)], true
	}
	if c.sends.n > 0 {
		return p.ranks[i].lists[c.sends.off+int32(j)], true
	}
	return c.send, true
}

// recvFrom is how many bytes rank j's call c receives from rank i at
// most, and whether it receives from i at all.
func (p *parser) recvFrom(j int, c *collRec, i int) (int64, bool) {
	switch c.act.mpi {
	case mpi.Gather:
		if j != int(c.root) {
			return 0, false
		}
	case mpi.Scatter:
		if i != int(c.root) {
			return 0, false
		}
	}
	if c.recvs.n > 0 {
		return p.ranks[j].lists[c.recvs.off+int32(i)], true
	}
	return c.recv, true
}

// checkTruncation refuses a gather, scatter, allgather or alltoall (or
// v-variant) in which a member sends another more bytes than that member
// receives from it: MPI_ERR_TRUNCATE in an MPI run, on which SimGrid's
// replay stops too. A rank's copy to itself moves no bytes between ranks
// and is left out, as SMPI leaves it unchecked. Calls whose members disagree on the action or root
// are left to the lowering, which names the mismatch.
func (p *parser) checkTruncation() error {
	n := len(p.ranks)
	calls := -1
	for r := range p.ranks {
		if k := len(p.ranks[r].colls); calls < 0 || k < calls {
			calls = k
		}
	}
	for k := 0; k < calls; k++ {
		first := &p.ranks[0].colls[k]
		same := true
		for r := 1; r < n && same; r++ {
			c := &p.ranks[r].colls[k]
			same = c.act.name == first.act.name && c.root == first.root
		}
		if !same {
			continue
		}
		for i := range n {
			ci := &p.ranks[i].colls[k]
			for j := range n {
				if j == i {
					continue // a copy within the rank, which SMPI does not check either
				}
				cj := &p.ranks[j].colls[k]
				sent, ok := p.sendTo(i, ci, j)
				if !ok {
					continue
				}
				got, ok := p.recvFrom(j, cj, i)
				if ok && sent > got {
					return &Error{File: p.t.Ranks[j].File, Line: int(cj.line), Action: cj.act.name,
						Msg: fmt.Sprintf("rank %d receives at most %d bytes from rank %d, which sends it %d (%s:%d): MPI_ERR_TRUNCATE in an MPI run (SimGrid's replay stops on it too)",
							j, got, i, sent, p.t.Ranks[i].File, ci.line)}
				}
			}
		}
	}
	return nil
}
