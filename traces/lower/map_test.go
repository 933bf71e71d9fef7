package lower

import (
	"testing"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// Every event maps onto the operations it became: a compute to one calc,
// a point-to-point call to one send or receive, a wait to none, and a
// 4-rank recursive-doubling allreduce to two rounds of a send and a receive.
func TestEventMap(t *testing.T) {
	tr := mpi.NewTrace(4)
	for r := 0; r < 4; r++ {
		tr.AppendCompute(r, "work", int64(100*(r+1)))
		tr.Append(r, mpi.Event{Kind: mpi.Irecv, Peer: int32((r + 3) % 4), Bytes: 8, Req: 1})
		tr.Append(r, mpi.Event{Kind: mpi.Isend, Peer: int32((r + 1) % 4), Bytes: 8, Req: 2})
		tr.AppendList(r, mpi.Event{Kind: mpi.Waitall}, []int64{1, 2})
		tr.Append(r, mpi.Event{Kind: mpi.Allreduce, Bytes: 8})
		tr.AppendCompute(r, "work", 50)
	}
	g, m, err := LowerMapped(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]graph.OpKind{{graph.Calc}, {graph.Recv}, {graph.Send}, nil,
		{graph.Send, graph.Recv, graph.Send, graph.Recv}, {graph.Calc}}
	for r := 0; r < 4; r++ {
		for i, kinds := range want {
			from, to := m.Ops(r, i)
			var got []graph.OpKind
			for op := from; op < to; op++ {
				got = append(got, g.Kind[op])
				if op < g.RankStart[r] || op >= g.RankStart[r+1] {
					t.Fatalf("rank %d event %d: op %d belongs to another rank", r, i, op)
				}
			}
			if len(got) != len(kinds) {
				t.Fatalf("rank %d event %d: ops %v, want kinds %v", r, i, got, kinds)
			}
			for k := range got {
				if got[k] != kinds[k] {
					t.Errorf("rank %d event %d: ops %v, want %v", r, i, got, kinds)
				}
			}
		}
		if from, _ := m.Ops(r, 0); g.Size[from] != int64(100*(r+1)) {
			t.Errorf("rank %d: first calc %d ns", r, g.Size[from])
		}
	}
}
