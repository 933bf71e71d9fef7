package lower

import (
	"strings"
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

// EventMap.Event inverts Ops: every operation maps back to the event it
// was lowered from (waits, which become none, are never named).
func TestEventMapInverse(t *testing.T) {
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
	seen := 0
	for r := 0; r < 4; r++ {
		for i := range tr.Ranks[r].Events {
			from, to := m.Ops(r, i)
			for op := from; op < to; op++ {
				gr, gi, ok := m.Event(op)
				if !ok || gr != r || gi != i {
					t.Errorf("op %d of rank %d event %d maps back to rank %d event %d (%v)", op, r, i, gr, gi, ok)
				}
				seen++
			}
		}
	}
	if seen != g.NumOps() {
		t.Errorf("%d operations mapped, graph has %d", seen, g.NumOps())
	}
	if _, _, ok := m.Event(int32(g.NumOps())); ok {
		t.Error("an operation past the graph maps to an event")
	}
	d := m.Describer(tr, g)
	from, _ := m.Ops(2, 1)
	if got := d(from); !strings.HasPrefix(got, "rank 2: MPI_Irecv 8 bytes from 1 tag 0 on comm world (trace row 13); lowered to rank 2") {
		t.Errorf("Describer: %q", got)
	}
}
