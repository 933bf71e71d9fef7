package calibrate

import (
	"github.com/capsim/capsim/traces/mpi"
)

// message is one matched point-to-point message of a trace with its
// recorded times: the send's call on the sender and the receive's
// completion on the receiver.
type message struct {
	from, to   int   // world ranks
	si, ri     int   // event indices of the send and of the receive
	bytes      int64 // the sender's size
	sendStart  int64 // entry into the send call (MPI_Send, MPI_Isend)
	sendEnd    int64 // return from the send call
	recvEnd    int64 // return from the call that completed the receive
	recvIsWait bool  // completed by a Wait/Waitall (nonblocking receive)
}

// key is a point-to-point channel: MPI matches the messages of one
// channel in order (non-overtaking).
type key struct {
	comm     int32
	from, to int
	tag      int32
}

// completions returns, per event of rank rk, the return time of the call
// that completes it: the call itself for blocking calls, the Wait or
// Waitall naming its request for Isend and Irecv; 0 when unknown.
func completions(rk *mpi.Rank) []int64 {
	end := make([]int64, len(rk.Events))
	pending := map[int64]int{}
	done := func(req, at int64) {
		if i, ok := pending[req]; ok {
			end[i] = at
			delete(pending, req)
		}
	}
	for i, e := range rk.Events {
		s := rk.Stamps[i]
		switch e.Kind {
		case mpi.Isend, mpi.Irecv:
			pending[e.Req] = i
		case mpi.Wait:
			done(e.Req, s.End)
		case mpi.Waitall:
			for _, req := range rk.List[e.ListOff : e.ListOff+e.ListLen] {
				done(req, s.End)
			}
		default:
			end[i] = s.End
		}
	}
	return end
}

// match pairs the sends and receives of t by channel, in program order.
// Receives with a wildcard source or tag are left out, and so are the
// messages without recorded times on both sides.
func match(t *mpi.Trace) (msgs []message, wild int) {
	type item struct {
		rank, i int
	}
	sends, recvs := map[key][]item{}, map[key][]item{}
	var order []key
	world := func(comm, peer int32) int {
		c := t.Comm(comm)
		if c == nil || peer < 0 || int(peer) >= len(c.Members) {
			return -1
		}
		return int(c.Members[peer])
	}
	for r := range t.Ranks {
		rk := &t.Ranks[r]
		if len(rk.Stamps) != len(rk.Events) {
			continue
		}
		for i, e := range rk.Events {
			switch e.Kind {
			case mpi.Send, mpi.Isend:
				k := key{e.Comm, r, world(e.Comm, e.Peer), e.Tag}
				if _, seen := sends[k]; !seen {
					order = append(order, k)
				}
				sends[k] = append(sends[k], item{r, i})
			case mpi.Recv, mpi.Irecv:
				if e.Peer == mpi.AnySource || e.Tag == mpi.AnyTag {
					wild++
					continue
				}
				k := key{e.Comm, world(e.Comm, e.Peer), r, e.Tag}
				recvs[k] = append(recvs[k], item{r, i})
			}
		}
	}
	ends := make([][]int64, len(t.Ranks))
	for r := range t.Ranks {
		if rk := &t.Ranks[r]; len(rk.Stamps) == len(rk.Events) {
			ends[r] = completions(rk)
		}
	}
	for _, k := range order {
		ss, rs := sends[k], recvs[k]
		for j := 0; j < len(ss) && j < len(rs); j++ {
			s, rv := ss[j], rs[j]
			se := t.Ranks[s.rank].Events[s.i]
			st := t.Ranks[s.rank].Stamps[s.i]
			end := ends[rv.rank][rv.i]
			if !st.Known() || end == 0 {
				continue
			}
			msgs = append(msgs, message{from: s.rank, to: rv.rank, si: s.i, ri: rv.i, bytes: se.Bytes,
				sendStart: st.Start, sendEnd: st.End, recvEnd: end,
				recvIsWait: t.Ranks[rv.rank].Events[rv.i].Kind == mpi.Irecv})
		}
	}
	return msgs, wild
}
