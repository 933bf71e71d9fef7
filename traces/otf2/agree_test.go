package otf2

import "testing"

// TestCollectivePayloadsAgree checks which members of one collective
// call get one payload: those whose Score-P counts (sent, received) differ
// only as MPI_IN_PLACE or per-rank counts explain, worked by hand for 4
// ranks and root 0. Other disagreements are kept, for the lowering to
// refuse naming both records: an allreduce of 8 bytes on one rank and
// 800,000 on another is not read as 800,000 on every rank.
func TestCollectivePayloadsAgree(t *testing.T) {
	type counts struct{ sent, recv uint64 }
	std := func(c counts) [4]counts { return [4]counts{c, c, c, c} }
	set := func(cs [4]counts, i int, c counts) [4]counts { cs[i] = c; return cs }
	const none = ^uint32(0)
	for _, tc := range []struct {
		name string
		op   uint8
		root uint32
		cs   [4]counts
		want int64 // the payload every member gets; -1: members keep their own
	}{
		{"allreduce", opAllreduce, none, std(counts{32, 32}), 8},
		{"allreduce of 8 and 800,000 B", opAllreduce, none, set(std(counts{32, 32}), 2, counts{3200000, 3200000}), -1},
		{"allreduce of 0 B on one rank", opAllreduce, none, set(std(counts{32, 32}), 1, counts{0, 0}), -1},
		{"allreduce in place, ambiguous", opAllreduce, none, set(std(counts{32, 32}), 2, counts{24, 24}), 8},
		{"allreduce in place", opAllreduce, none, set(std(counts{24, 24}), 2, counts{18, 18}), 6},
		{"bcast", opBcast, 0, set(std(counts{0, 16}), 0, counts{64, 16}), 16},
		{"bcast of another size on a leaf", opBcast, 0, set(set(std(counts{0, 16}), 0, counts{64, 16}), 3, counts{0, 1600}), -1},
		{"reduce, root in place", opReduce, 0, set(std(counts{8, 0}), 0, counts{0, 24}), 8},
		{"reduce, root of another size", opReduce, 0, set(std(counts{8, 0}), 0, counts{16, 64}), -1},
		{"alltoall in place", opAlltoall, none, set(std(counts{32, 32}), 1, counts{24, 24}), 8},
		{"allgather of another size", opAllgather, none, set(std(counts{64, 64}), 1, counts{16, 16}), -1},
		{"reduce_scatter_block in place", opReduceScatterBlock, none, set(std(counts{32, 32}), 3, counts{24, 24}), 32},
		{"gather, root in place", opGather, 0, set(std(counts{8, 0}), 0, counts{0, 24}), 8},
		{"gather of another size on a leaf", opGather, 0, set(set(std(counts{8, 0}), 0, counts{8, 32}), 2, counts{16, 0}), -1},
		{"scatter, root in place", opScatter, 0, set(std(counts{0, 8}), 0, counts{24, 0}), 8},
		{"scatter of another size on a leaf", opScatter, 0, set(set(std(counts{0, 8}), 0, counts{32, 8}), 1, counts{0, 4}), -1},
		{"gatherv", opGatherv, 0, set(set(std(counts{8, 0}), 0, counts{8, 40}), 2, counts{16, 0}), 16},
		{"alltoallv", opAlltoallv, none, set(std(counts{32, 32}), 1, counts{64, 48}), 16},
		{"reduce_scatter", opReduceScatter, none, set(std(counts{40, 40}), 2, counts{30, 20}), 40},
		{"scan", opScan, none, [4]counts{{32, 8}, {24, 16}, {16, 24}, {8, 32}}, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDefs()
			d.resolution = 1e9
			for r := range uint64(4) {
				d.locGroups[uint32(r)] = locationGroupProcess
				d.locations[r] = uint32(r)
			}
			d.strings[1] = "MPI_COMM_WORLD"
			d.groups[0] = groupDef{typ: groupCommGroup, paradigm: paradigmMPI, members: []uint64{0, 1, 2, 3}}
			d.comms[0] = commDef{name: 1, group: 0}
			b, err := newBuilder("c.otf2", d, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for r, c := range tc.cs {
				rec := record{kind: rCollEnd, op: tc.op, loc: uint64(r), b: 0, c: tc.root, d: c.sent, e: c.recv, time: 10}
				if err := b.handle(&rec); err != nil {
					t.Fatal(err)
				}
			}
			tr := b.finish()
			var got []int64
			for r := range tr.Ranks {
				e := tr.Ranks[r].Events[len(tr.Ranks[r].Events)-1]
				if e.Tag != 0 {
					t.Errorf("rank %d: tag %d left on a collective", r, e.Tag)
				}
				got = append(got, e.Bytes)
			}
			same := true
			for _, g := range got {
				same = same && g == got[0]
			}
			switch {
			case tc.want >= 0 && (!same || got[0] != tc.want):
				t.Errorf("payloads %v, want %d on every member", got, tc.want)
			case tc.want < 0 && same:
				t.Errorf("payloads %v made the same, want each member's own", got)
			}
		})
	}
}
