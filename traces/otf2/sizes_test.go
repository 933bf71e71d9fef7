//go:build cgo && !nootf2

package otf2

import (
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/otf2write"
)

// collCall is one rank's collective as Score-P records it: its bytes
// sent and received in total.
type collCall struct{ sent, recv uint64 }

// writeColl writes a 3-rank archive in which each rank makes one
// collective of OTF2 operation op with root (none for no root), with the
// totals calls[r] gives, and returns its anchor file.
func writeColl(t *testing.T, op uint8, root uint32, calls [3]collCall) string {
	t.Helper()
	dir := t.TempDir()
	regions := []otf2write.Region{{Name: "main"}, {Name: "MPI_Coll", MPI: true}}
	comms := []otf2write.Comm{{Name: "MPI_COMM_WORLD", Members: []uint64{0, 1, 2}}}
	w, err := otf2write.Create(dir, otf2write.Defs{Resolution: fxRes, Offset: fxOffset, Ranks: 3, Regions: regions, Comms: comms})
	if err != nil {
		t.Fatal(err)
	}
	for r, c := range calls {
		l := &loc{t: t, w: w, id: r}
		l.at(0).enter(0).wait(100)
		l.call(1, 20, otf2write.Event{Kind: otf2write.CollBegin},
			otf2write.Event{Kind: otf2write.CollEnd, Op: op, Comm: 0, Root: root, Sent: c.sent, Recv: c.recv})
		l.wait(10).leave(0)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir + "/traces.otf2"
}

// TestCollectiveSizes: a gather, scatter, allgather or alltoall whose
// members' counts disagree so that one sends another more than it
// receives replayed with the largest payload any member implied. It is
// refused where Score-P's totals show it for certain (with or without
// MPI_IN_PLACE), naming both ranks' events and their locations.
func TestCollectiveSizes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		op    uint8
		root  uint32
		calls [3]collCall
		want  string
	}{
		{"gather, a block too large", opGather, 0, [3]collCall{{4, 12}, {8, 0}, {4, 0}},
			"gather (root 0): rank 0 receives at most 6 bytes from rank 1, which sends it 8"},
		{"gather", opGather, 0, [3]collCall{{4, 12}, {4, 0}, {4, 0}}, ""},
		{"gather in place", opGather, 0, [3]collCall{{0, 8}, {4, 0}, {4, 0}}, ""},
		{"scatter, a block too small", opScatter, 0, [3]collCall{{12, 4}, {0, 4}, {0, 2}},
			"scatter (root 0): rank 2 receives at most 2 bytes from rank 0, which sends it 4"},
		{"scatter in place", opScatter, 0, [3]collCall{{8, 0}, {0, 4}, {0, 4}}, ""},
		{"allgather, send larger than receive", opAllgather, none, [3]collCall{{24, 12}, {24, 12}, {24, 12}},
			"allgather: rank 1 receives at most 6 bytes from rank 0, which sends it 8"},
		{"allgather in place", opAllgather, none, [3]collCall{{8, 8}, {8, 8}, {8, 8}}, ""},
		{"alltoall, one rank's blocks larger", opAlltoall, none, [3]collCall{{48, 48}, {12, 12}, {12, 12}},
			"alltoall: rank 1 receives at most 6 bytes from rank 0, which sends it 16"},
		{"alltoall", opAlltoall, none, [3]collCall{{12, 12}, {12, 12}, {12, 12}}, ""},
		{"reduce_scatter_block, blocks that differ", opReduceScatterBlock, none, [3]collCall{{24, 24}, {12, 12}, {12, 12}},
			"reduce_scatter: rank 1 receives at most 6 bytes from rank 0, which sends it 8"},
		{"reduce_scatter_block", opReduceScatterBlock, none, [3]collCall{{12, 12}, {12, 12}, {12, 12}}, ""},
		// Members whose counts differ: the import gave every member the
		// largest payload, which the lowering's size check then passed.
		{"allreduce, counts that differ", opAllreduce, none, [3]collCall{{24, 24}, {2400, 2400}, {24, 24}},
			"allreduce: rank 0 receives at most 12 bytes from rank 1, which sends it 800"},
		{"allreduce, one in place", opAllreduce, none, [3]collCall{{16, 16}, {24, 24}, {24, 24}}, ""},
		{"bcast, a leaf's count smaller", opBcast, 1, [3]collCall{{0, 8}, {24, 8}, {0, 4}},
			"bcast (root 1): rank 2 receives at most 4 bytes from rank 1, which sends it 8"},
		{"bcast", opBcast, 1, [3]collCall{{0, 8}, {24, 8}, {0, 8}}, ""},
		{"reduce, a leaf's count larger", opReduce, 0, [3]collCall{{8, 24}, {8, 0}, {80, 0}},
			"reduce (root 0): rank 0 receives at most 12 bytes from rank 2, which sends it 80"},
		{"reduce in place", opReduce, 0, [3]collCall{{0, 16}, {8, 0}, {8, 0}}, ""},
		{"alltoallv totals", opAlltoallv, none, [3]collCall{{48, 48}, {12, 12}, {12, 12}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(writeColl(t, tc.op, tc.root, tc.calls), Options{})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("read; want %q", tc.want)
			}
			for _, s := range []string{tc.want, "MPI_ERR_TRUNCATE", "event", "location"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		})
	}
}
