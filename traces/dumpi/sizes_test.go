package dumpi

import (
	"strings"
	"testing"
)

// TestCollectiveSizes: a gather, scatter, allgather, alltoall (or
// v-variant) or reduce_scatter in which one rank sends another more than
// that rank's call receives from it (counts or datatype sizes that
// disagree) replayed with a size of capsim's choosing. It is refused,
// naming both ranks' .bin files and record indices and both sizes; calls
// whose counts agree, or whose receiving side is larger, are read.
func TestCollectiveSizes(t *testing.T) {
	cases := []struct {
		name string
		call func(w *binWriter, r int)
		want string // "" when the trace is valid
	}{
		{"gather root receives less", func(w *binWriter, r int) {
			if r == 0 {
				w.call(idGather, 10, 10, i32(0), i32(2), h16(tInt), i32(0), h16(world), i32(1), h16(tInt))
			} else {
				w.call(idGather, 10, 10, i32(1), i32(2), h16(tInt), i32(0), h16(world))
			}
		}, "rank 0 receives at most 4 bytes from rank 1, which sends it 8"},
		{"gather datatype sizes", func(w *binWriter, r int) {
			if r == 0 {
				w.call(idGather, 10, 10, i32(0), i32(2), h16(tChar), i32(0), h16(world), i32(2), h16(tChar))
			} else {
				w.call(idGather, 10, 10, i32(1), i32(2), h16(tDouble), i32(0), h16(world))
			}
		}, "rank 0 receives at most 2 bytes from rank 1, which sends it 16"},
		{"gather root sends garbage to itself", func(w *binWriter, r int) {
			if r == 0 { // MPI_IN_PLACE: the root's own send count is ignored
				w.call(idGather, 10, 10, i32(0), i32(1000), h16(tInt), i32(0), h16(world), i32(2), h16(tInt))
			} else {
				w.call(idGather, 10, 10, i32(1), i32(2), h16(tInt), i32(0), h16(world))
			}
		}, ""},
		{"scatter root sends more", func(w *binWriter, r int) {
			if r == 1 {
				w.call(idScatter, 10, 10, i32(1), i32(3), h16(tInt), i32(1), h16(world), i32(4), h16(tInt))
			} else {
				w.call(idScatter, 10, 10, i32(0), i32(3), h16(tInt), i32(1), h16(world))
			}
		}, "rank 0 receives at most 12 bytes from rank 1, which sends it 16"},
		{"scatter receives more", func(w *binWriter, r int) {
			if r == 1 {
				w.call(idScatter, 10, 10, i32(1), i32(3), h16(tInt), i32(1), h16(world), i32(2), h16(tInt))
			} else {
				w.call(idScatter, 10, 10, i32(0), i32(3), h16(tInt), i32(1), h16(world))
			}
		}, ""},
		{"gatherv root counts", func(w *binWriter, r int) {
			if r == 0 {
				w.call(idGatherv, 10, 10, i32(0), i32(2), i32(1), h16(tInt), i32(0), h16(world), ints{1, 1}, ints{0, 1}, h16(tInt))
			} else {
				w.call(idGatherv, 10, 10, i32(1), i32(2), i32(5), h16(tInt), i32(0), h16(world), h16(tInt))
			}
		}, "rank 0 receives at most 4 bytes from rank 1, which sends it 20"},
		{"scatterv root counts", func(w *binWriter, r int) {
			if r == 0 {
				w.call(idScatterv, 10, 10, i32(0), i32(2), h16(tDouble), i32(1), h16(tDouble), i32(0), h16(world), ints{1, 3}, ints{0, 1})
			} else {
				w.call(idScatterv, 10, 10, i32(1), i32(2), h16(tDouble), i32(2), h16(tDouble), i32(0), h16(world))
			}
		}, "rank 1 receives at most 16 bytes from rank 0, which sends it 24"},
		{"allgather send more than receive", func(w *binWriter, r int) {
			w.call(idAllgather, 10, 10, i32(2+r), h16(tInt), i32(2), h16(tInt), h16(world))
		}, "rank 0 receives at most 8 bytes from rank 1, which sends it 12"},
		{"allgather in place", func(w *binWriter, r int) { // MPI_IN_PLACE, MPI_DATATYPE_NULL: no size
			w.call(idAllgather, 10, 10, i32(0), h16(0), i32(2), h16(tInt), h16(world))
		}, ""},
		{"allgatherv counts", func(w *binWriter, r int) {
			w.call(idAllgatherv, 10, 10, i32(2), i32(3), h16(tInt), ints{3, 2}, ints{0, 3}, h16(tInt), h16(world))
		}, "rank 0 receives at most 8 bytes from rank 1, which sends it 12"},
		{"alltoall counts", func(w *binWriter, r int) {
			w.call(idAlltoall, 10, 10, i32(2), h16(tInt), i32(2-r), h16(tInt), h16(world))
		}, "rank 1 receives at most 4 bytes from rank 0, which sends it 8"},
		{"alltoall receiving more", func(w *binWriter, r int) {
			w.call(idAlltoall, 10, 10, i32(2), h16(tInt), i32(2+r), h16(tInt), h16(world))
		}, ""},
		{"alltoallv counts", func(w *binWriter, r int) {
			w.call(idAlltoallv, 10, 10, i32(2), ints{1, 4}, ints{0, 1}, h16(tInt), ints{1, 1}, ints{0, 1}, h16(tInt), h16(world))
		}, "rank 1 receives at most 4 bytes from rank 0, which sends it 16"},
		{"alltoallw types", func(w *binWriter, r int) {
			w.call(idAlltoallw, 10, 10, i32(2), ints{1, 1}, ints{0, 8}, hs{tDouble, tDouble}, ints{1, 1}, ints{0, 8}, hs{tInt, tInt}, h16(world))
		}, "rank 1 receives at most 4 bytes from rank 0, which sends it 8"},
		{"reduce_scatter counts", func(w *binWriter, r int) {
			w.call(idReduceScatter, 10, 10, i32(2), ints{int32(1 + 3*r), int32(1 + 3*r)}, h16(tInt), u8(3), h16(world))
		}, "rank 0 receives at most 4 bytes from rank 1, which sends it 16"},
		// A per-member array of another length than the communicator's
		// size is refused, not read as the counts of other members.
		{"alltoallv counts of 3 members", func(w *binWriter, r int) {
			w.call(idAlltoallv, 10, 10, i32(2), ints{1, 1, 9}, ints{0, 1, 2}, h16(tInt), ints{1, 1}, ints{0, 1}, h16(tInt), h16(world))
		}, "a per-member array of 3 entries for a communicator of 2 ranks"},
		{"gatherv root's counts of 3 members", func(w *binWriter, r int) {
			if r == 0 {
				w.call(idGatherv, 10, 10, i32(0), i32(2), i32(1), h16(tInt), i32(0), h16(world), ints{1, 1, 1}, ints{0, 1, 2}, h16(tInt))
			} else {
				w.call(idGatherv, 10, 10, i32(1), i32(2), i32(1), h16(tInt), i32(0), h16(world), h16(tInt))
			}
		}, "a per-member array of 3 entries for a communicator of 2 ranks"},
		{"every size agreeing", func(w *binWriter, r int) {
			w.call(idAllgather, 10, 10, i32(2), h16(tInt), i32(2), h16(tInt), h16(world))
			w.call(idAlltoallv, 10, 10, i32(2), ints{int32(1 + r), 3}, ints{0, 1}, h16(tInt), ints{int32(1 + 2*r), int32(2 + r)}, ints{0, 1}, h16(tInt), h16(world))
			w.call(idReduceScatter, 10, 10, i32(2), ints{1, 2}, h16(tInt), u8(3), h16(world))
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(pair(t, true, tc.call), Options{})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("read; want %q", tc.want)
			}
			want := []string{tc.want, "run-0000.bin", "MPI_ERR_TRUNCATE", "run-0001.bin record 2"}
			if strings.Contains(tc.want, "per-member array") {
				want = want[:2] // the record's own error: its file and offset
			} else {
				want[1] += " record 2"
			}
			for _, s := range want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		})
	}
}
