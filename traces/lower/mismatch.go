package lower

import (
	"fmt"

	"github.com/capsim/capsim/traces/mpi"
)

// fixedSize reports whether MPI requires every member of a collective of
// kind k to pass the same payload (the same type signature): allreduce,
// bcast, reduce, alltoall, scan, allgather and reduce_scatter. Every
// importer gives an allgatherv the mean of its receive counts and a
// reduce_scatter the sum of them, which MPI requires to be the same
// array on every member, so a correct program's members agree on those
// too. Gather and scatter are left out because importers map their
// v-variants onto them with each member's own count, and barrier because
// it carries no payload.
func fixedSize(k mpi.Kind) bool {
	switch k {
	case mpi.Allreduce, mpi.Bcast, mpi.Reduce, mpi.Alltoall, mpi.Scan, mpi.Allgather, mpi.ReduceScatter:
		return true
	}
	return false
}

// sameSize checks that world rank r's call e of the collective key passes
// the payload the instance's first caller passed, where MPI requires
// that; it returns what is wrong, or "". A trace whose members disagree
// (8 bytes on one rank, 800,000 on another) cannot come from a correct
// MPI program, and lowering it would move as many bytes as whichever
// rank was lowered first.
// at says where the first caller's call was read (" (FILE:LINE)"), or "".
func (in *instance) sameSize(key collKey, r int, e *mpi.Event, at string) string {
	if !fixedSize(e.Kind) || e.Bytes == in.bytes {
		return ""
	}
	return fmt.Sprintf("collective call #%d on communicator %d (%s) passes %d bytes on rank %d but %d bytes on rank %d%s: MPI requires the same size on every member",
		key.seq+1, key.comm, e.Kind, e.Bytes, r, in.bytes, in.first, at)
}

// collectiveCall names which call of its communicator's collectives event
// i of rank r is (", collective call #3 on comm 0 of rank 2"), counted from
// 1 in the rank's order, which is the order that matches the members'
// calls (matchCollectives); "" for other events. A deadlock inside a
// collective then names the MPI call the program made, not only the
// point-to-point messages it was lowered to.
func collectiveCall(t *mpi.Trace, r, i int) string {
	if r < 0 || r >= len(t.Ranks) || i < 0 || i >= len(t.Ranks[r].Events) {
		return ""
	}
	evs := t.Ranks[r].Events
	e := &evs[i]
	if !e.Kind.IsCollective() {
		return ""
	}
	n := 0
	for j := range evs[:i+1] {
		if evs[j].Kind.IsCollective() && evs[j].Comm == e.Comm {
			n++
		}
	}
	return fmt.Sprintf(", collective call #%d on comm %d of rank %d", n, e.Comm, r)
}
