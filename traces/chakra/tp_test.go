package chakra

import (
	"fmt"
	"strings"
	"testing"
)

// tpTrace is a 2-NPU tensor-parallel step: both NPUs declare the
// tensor-parallel group "tp" and a data-parallel group of their own
// ("dpA", "dpB"), and run node on it (a collective on "tp" or, with dp
// set, on their data-parallel group).
func tpTrace(t *testing.T, kind CollType, bytes int64, dp bool) string {
	t.Helper()
	pgs := tnode{id: 100, name: "## process_group:init ##", typ: MetadataNode,
		inputs: `[[{"pg_name": "tp", "ranks": [0, 1]}, {"pg_name": "dpA", "ranks": [0]}, {"pg_name": "dpB", "ranks": [1]}]]`}
	var files [][]byte
	for _, own := range []string{"dpA", "dpB"} {
		pg := "tp"
		if dp {
			pg = own
		}
		files = append(files, encTrace(pgs, coll(1, kind, bytes, pg, 100)))
	}
	return writeNPUs(t, files...)
}

// Replicated to 8 NPUs with tensor parallelism 2, collectives on the
// tensor-parallel group stay within blocks of 2 and data-parallel ones
// span the 4 NPUs at the same position in every block, an allgather's
// gathered whole growing with its group: the ring closed forms under a
// network of 1 ns per byte.
func TestReplicateTensorParallel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		kind  CollType
		bytes int64
		dp    bool
		opt   Options
		want  int64
	}{
		{"tp allreduce", AllReduce, 4000, false, Options{Replicate: 8, TP: 2}, 2 * 1 * (2000 - 1)},
		{"tp allreduce unreplicated", AllReduce, 4000, false, Options{}, 2 * 1 * (2000 - 1)},
		{"dp allreduce", AllReduce, 4000, true, Options{Replicate: 8, TP: 2}, 2 * 3 * (1000 - 1)},
		{"dp allgather", AllGather, 1000, true, Options{Replicate: 8, TP: 2}, 3 * (1000 - 1)},
		{"all without tp", AllReduce, 4000, false, Options{Replicate: 8}, 2 * 7 * (500 - 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := replay(t, tpTrace(t, tc.kind, tc.bytes, tc.dp), tc.opt, 1); got != tc.want {
				t.Errorf("makespan %d ns, want %d", got, tc.want)
			}
		})
	}
	tr, err := Read(tpTrace(t, AllReduce, 8, false), Options{Replicate: 8, TP: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(tr.Groups); got != "map[tp@0:[0 1] tp@1:[2 3] tp@2:[4 5] tp@3:[6 7]]" {
		t.Errorf("groups %s", got)
	}
	tr, err = Read(tpTrace(t, AllReduce, 8, true), Options{Replicate: 8, TP: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(tr.Groups); got != "map[dp0:[0 2 4 6] dp1:[1 3 5 7]]" {
		t.Errorf("groups %s", got)
	}
	for _, opt := range []Options{{TP: 2}, {Replicate: 8, TP: 3}, {Replicate: 8, TP: -1}} {
		if _, err := Read(tpTrace(t, AllReduce, 8, false), opt); err == nil || !strings.Contains(err.Error(), "tensor parallelism") {
			t.Errorf("%+v: err %v", opt, err)
		}
	}
}
