package simgrid

import (
	"fmt"

	"github.com/capsim/capsim/traces/mpi"
)

// probe is a receive whose trace line gives a negative size: SimGrid's
// replay probes for its message and receives what was sent.
type probe struct {
	rank, event int
	line        int
	file        string
}

// resolveProbes gives each receive of unknown size the size of the
// message it receives. Without wildcard receives on its rank, MPI's
// non-overtaking rule fixes that message: the k-th receive from a source
// with a tag takes the k-th message that source sends the rank with that
// tag. A rank that also receives from any source or with any tag leaves
// that open, and is refused; a receive whose message is never sent keeps
// size 0, and the replay names it as never matched.
func (p *parser) resolveProbes() error {
	for _, pr := range p.probes {
		evs := p.t.Ranks[pr.rank].Events
		e := &evs[pr.event]
		k := 0
		for i := range evs {
			q := &evs[i]
			if q.Kind != mpi.Recv && q.Kind != mpi.Irecv {
				continue
			}
			if q.Peer == mpi.AnySource || q.Tag == mpi.AnyTag {
				return &Error{File: pr.file, Line: pr.line, Action: "recv", Msg: fmt.Sprintf(
					"a receive of unknown size, on a rank that also receives from any source or with any tag (%s): capsim cannot tell which message it receives, and so its size",
					p.t.Source(pr.rank, i))}
			}
			if i < pr.event && q.Peer == e.Peer && q.Tag == e.Tag {
				k++
			}
		}
		for i := range p.t.Ranks[e.Peer].Events {
			q := &p.t.Ranks[e.Peer].Events[i]
			if (q.Kind == mpi.Send || q.Kind == mpi.Isend) && int(q.Peer) == pr.rank && q.Tag == e.Tag {
				if k == 0 {
					e.Bytes = q.Bytes
					break
				}
				k--
			}
		}
	}
	return nil
}
