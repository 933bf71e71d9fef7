package lower

import (
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/mpi"
)

// Members of one collective that disagree on its payload, where MPI
// requires agreement, are refused with the call, the ranks and both
// sizes; gather and scatter, onto which importers map their v-variants
// with per-rank counts, are not.
func TestCollectiveSizeMismatch(t *testing.T) {
	for _, tc := range []struct {
		kind mpi.Kind
		want string
	}{
		{mpi.Allreduce, "rank 1 event 1: collective call #2 on communicator 0 (allreduce) passes 800000 bytes on rank 1 but 8 bytes on rank 0"},
		{mpi.Bcast, "collective call #2 on communicator 0 (bcast) passes 800000 bytes on rank 1 but 8 bytes on rank 0"},
		{mpi.Reduce, "collective call #2 on communicator 0 (reduce)"},
		{mpi.Alltoall, "collective call #2 on communicator 0 (alltoall)"},
		{mpi.Scan, "collective call #2 on communicator 0 (scan)"},
		{mpi.Allgather, "collective call #2 on communicator 0 (allgather)"},
		{mpi.ReduceScatter, "collective call #2 on communicator 0 (reduce_scatter)"},
		{mpi.Gather, ""},
		{mpi.Scatter, ""},
	} {
		tr := mpi.NewTrace(2)
		for r, b := range []int64{8, 800000} {
			tr.Append(r, mpi.Event{Kind: mpi.Barrier})
			tr.Append(r, mpi.Event{Kind: tc.kind, Bytes: b})
		}
		_, err := Lower(tr, Options{})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.kind, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.kind, err, tc.want)
		}
	}
}
