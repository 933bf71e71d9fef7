package policy

import (
	"math"
	"testing"

	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

func TestSplitAndCalcOps(t *testing.T) {
	tr := mpi.NewTrace(2)
	for r := 0; r < 2; r++ {
		tr.AppendCompute(r, "a", 100)
		tr.Append(r, mpi.Event{Kind: mpi.Isend, Peer: int32(1 - r), Bytes: 64, Req: 1})
		tr.Append(r, mpi.Event{Kind: mpi.Irecv, Peer: int32(1 - r), Bytes: 64, Req: 2})
		tr.AppendList(r, mpi.Event{Kind: mpi.Waitall}, []int64{1, 2})
		tr.Append(r, mpi.Event{Kind: mpi.Allreduce, Bytes: 8})
		tr.AppendCompute(r, "b", 200)
		tr.AppendCompute(r, "c", 300)
		tr.Append(r, mpi.Event{Kind: mpi.Bcast, Bytes: 8}) // not synchronizing
		tr.Append(r, mpi.Event{Kind: mpi.Barrier})
	}
	ph, err := Split(tr)
	if err != nil {
		t.Fatal(err)
	}
	if ph.N != 3 || len(ph.Compute[1][0]) != 1 || len(ph.Compute[1][1]) != 2 || len(ph.Compute[1][2]) != 0 {
		t.Fatalf("phases %d, %v; want 3 phases of 1, 2, 0 computes", ph.N, ph.Compute[1])
	}
	if len(ph.SendBytes[0][0]) != 1 || ph.SendBytes[0][0][0] != 64 || len(ph.SendBytes[0][1]) != 0 {
		t.Errorf("sends %v, want [[64] [] []]", ph.SendBytes[0])
	}
	if w := ph.Work(tr, 0, 1); w != 500 {
		t.Errorf("work %d, want 500", w)
	}
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ops, err := CalcOps(tr, g)
	if err != nil {
		t.Fatal(err)
	}
	for r := range ops {
		for i, op := range ops[r] {
			e := tr.Ranks[r].Events[i]
			if (e.Kind == mpi.Compute) != (op >= 0) || op >= 0 && g.Size[op] != e.Duration {
				t.Errorf("rank %d event %d (%s) → op %d", r, i, e.Kind, op)
			}
		}
	}
	// A reduction cost adds calcs the trace does not have.
	g2, err := lower.Lower(tr, lower.Options{ReduceNsPerByte: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CalcOps(tr, g2); err == nil {
		t.Error("graph with reduction calcs: want an error")
	}
	bad := mpi.NewTrace(2)
	bad.Append(0, mpi.Event{Kind: mpi.Barrier})
	if _, err := Split(bad); err == nil {
		t.Error("unmatched collectives: want an error")
	}
}

// Two ranks compute 1 s and 0.5 s at 10 W busy (rank 0 through the plan,
// rank 1 through ActiveW), 2 W waiting, 1 W base, on a free network: 1 s
// makespan, 1 + 2·2 + (10 − 2)·1 + (10 − 2)·0.5 = 17 J.
func TestReplayPlan(t *testing.T) {
	tr := mpi.NewTrace(2)
	tr.AppendCompute(0, "a", 2e9)
	tr.AppendCompute(1, "a", 1e9)
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlan(g)
	ops, _ := CalcOps(tr, g)
	p.Dur[ops[0][0]], p.W[ops[0][0]] = 1e9, 10
	p.Dur[ops[1][0]] = 5e8
	// Rank 0 computes for 1 s at 10 W, rank 1 for 0.5 s at its active
	// 10 W and then waits: at its task's 10 W (1 + 10 + 10 = 21 J) or
	// asleep at 2 W (1 + 10 + 5 + 1 = 17 J).
	for _, c := range []struct {
		wait   power.WaitPower
		energy float64
	}{{power.WaitPower{}, 21}, {power.WaitPower{Mode: power.WaitIdle}, 17}} {
		o, err := Replay(g, network.NewLogGOPS(0, 0, 0, 0, 0, 1), p, power.JobModel{BaseW: 1, IdleW: 2, ActiveW: []float64{3, 10}, Wait: c.wait}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if o.MakespanNs != 1e9 || math.Abs(o.EnergyJ-c.energy) > 1e-9 || o.CalcEnd[ops[1][0]] != 5e8 {
			t.Errorf("wait %s: makespan %d, energy %g J, end %d; want 1e9, %g, 5e8", c.wait, o.MakespanNs, o.EnergyJ, o.CalcEnd[ops[1][0]], c.energy)
		}
	}
	if Improvement(10, 8) != 20 || Improvement(0, 1) != 0 {
		t.Error("Improvement")
	}
}
