package otf2

import (
	"testing"

	"github.com/capsim/capsim/traces/mpi"
)

// TestPayload checks the per-rank payload derived from the byte counts
// Score-P records (scorep_mpi_coll_bytes_*: counts include the rank's own
// block; MPI_IN_PLACE leaves it out), worked by hand for 4 ranks.
func TestPayload(t *testing.T) {
	for _, tc := range []struct {
		name       string
		kind       mpi.Kind
		op         uint8
		sent, recv int64
		me         int64
		root       bool
		want       int64
	}{
		{"barrier", mpi.Barrier, opBarrier, 0, 0, 1, false, 0},
		{"bcast root: 4 blocks of 16 sent", mpi.Bcast, opBcast, 64, 16, 0, true, 16},
		{"bcast leaf", mpi.Bcast, opBcast, 0, 16, 1, false, 16},
		{"scatter root", mpi.Scatter, opScatter, 64, 16, 0, true, 16},
		{"reduce root: 4 blocks of 8 received", mpi.Reduce, opReduce, 8, 32, 2, true, 8},
		{"reduce leaf", mpi.Reduce, opReduce, 8, 0, 0, false, 8},
		{"gather leaf", mpi.Gather, opGather, 4, 0, 3, false, 4},
		{"allreduce of 8 B", mpi.Allreduce, opAllreduce, 32, 32, 0, false, 8},
		// In place, the rank's own block is left out: 3 blocks of 6 B.
		{"allreduce in place", mpi.Allreduce, opAllreduce, 18, 18, 0, false, 6},
		// 3 blocks of 8 B in place cannot be told from 4 blocks of 6 B:
		// OTF2 does not record MPI_IN_PLACE. The smaller block is taken.
		{"allreduce in place, ambiguous", mpi.Allreduce, opAllreduce, 24, 24, 0, false, 6},
		{"allgather of 16 B", mpi.Allgather, opAllgather, 64, 64, 1, false, 16},
		{"alltoall 8 B per peer", mpi.Alltoall, opAlltoall, 32, 32, 2, false, 8},
		{"reduce_scatter_block 2 ints each", mpi.ReduceScatter, opReduceScatterBlock, 32, 32, 0, false, 32},
		{"scan rank 1 of 8 B", mpi.Scan, opScan, 24, 16, 1, false, 8},
		{"scan rank 3", mpi.Scan, opScan, 8, 32, 3, false, 8},
		{"exscan rank 0", mpi.Scan, opExscan, 24, 0, 0, false, 8},
		{"exscan rank 2", mpi.Scan, opExscan, 8, 16, 2, false, 8},
		{"exscan last rank", mpi.Scan, opExscan, 0, 24, 3, false, 8},
	} {
		if got := payload(tc.kind, tc.op, tc.sent, tc.recv, 4, tc.me, tc.root); got != tc.want {
			t.Errorf("%s: payload %d, want %d", tc.name, got, tc.want)
		}
	}
}
