package lower

import (
	"math"
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

// Every algorithm lowers a collective of the largest size a trace may
// give into a bounded number of messages of sizes in 0..2^63−1, or
// refuses it in the trace's terms: block roundings (n+p−1)/p and blocks
// times members wrapped around to negative sizes, which replay refused as
// an invalid execution graph ("send -10b to 2"), and a pipelined bcast cut
// 2^63 bytes into 128 KiB segments until memory ran out.
func TestLargestSizeLowers(t *testing.T) {
	for kind, algs := range algorithms {
		for _, alg := range algs {
			for _, p := range []int{4, 7} {
				for _, n := range []int64{math.MaxInt64 - int64(p), math.MaxInt64 / int64(p)} {
					tr := mpi.NewTrace(p)
					for r := range p {
						if kind != mpi.Alltoallv {
							tr.Append(r, mpi.Event{Kind: kind, Bytes: n})
							continue
						}
						list := make([]int64, p)
						for j := range list {
							list[j] = n / int64(p)
						}
						tr.AppendList(r, mpi.Event{Kind: kind}, list)
					}
					g, err := Lower(tr, Options{Algorithm: map[mpi.Kind]string{kind: alg}})
					if err != nil {
						if !perMember(kind) || n != math.MaxInt64-int64(p) || !strings.Contains(err.Error(), "blocks together are more than 2^63−1 bytes") {
							t.Errorf("%s %s on %d ranks, %d bytes: %v", kind, alg, p, n, err)
						}
						continue
					}
					if err := g.Validate(); err != nil {
						t.Errorf("%s %s on %d ranks, %d bytes: %v", kind, alg, p, n, err)
					}
					if ops := g.NumOps(); ops > 4*p*maxSegments {
						t.Errorf("%s %s on %d ranks, %d bytes: %d operations, more than %d per rank", kind, alg, p, n, ops, 4*maxSegments)
					}
				}
			}
		}
	}
}
