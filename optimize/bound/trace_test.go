package bound

import (
	"strings"
	"testing"

	"github.com/capsim/capsim/optimize/frontier"
	"github.com/capsim/capsim/traces/mpi"
)

// Example M written as an MPI trace: the DAG built from it has the same
// bound as the hand-built one.
func TestFromTraceExampleM(t *testing.T) {
	tr := mpi.NewTrace(2)
	tr.AppendCompute(0, "a1", 4)
	tr.Append(0, mpi.Event{Kind: mpi.Send, Peer: 1, Bytes: 8})
	tr.AppendCompute(0, "a2", 2)
	tr.AppendCompute(1, "b1", 1)
	tr.Append(1, mpi.Event{Kind: mpi.Irecv, Peer: 0, Bytes: 8, Req: 3})
	tr.Append(1, mpi.Event{Kind: mpi.Wait, Req: 3})
	tr.AppendCompute(1, "b2", 5)
	// Each compute event's slow config takes twice as long at 30 W.
	configs := func(r int, e *mpi.Event) []frontier.Config {
		d := float64(e.Duration)
		return []frontier.Config{{Time: d, Power: 50}, {Time: 2 * d, Power: 30}}
	}
	d, err := FromTrace(tr, func(int64) float64 { return 1 }, configs)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Tasks) != 4 || len(d.Messages) != 2 { // the message, and irecv → wait
		t.Fatalf("%d tasks, %d messages: %+v", len(d.Tasks), len(d.Messages), d.Messages)
	}
	check(t, "M from trace", solve(t, d, 80, 70, 60), []float64{10, 14.5, 19})
}

func TestFromTraceErrors(t *testing.T) {
	tr := mpi.NewTrace(2)
	tr.Append(0, mpi.Event{Kind: mpi.Send, Peer: 1, Tag: 4})
	_, err := FromTrace(tr, func(int64) float64 { return 0 }, nil)
	if err == nil || !strings.Contains(err.Error(), "no matching receive") {
		t.Errorf("err = %v", err)
	}
	tr = mpi.NewTrace(2)
	tr.Append(0, mpi.Event{Kind: mpi.Recv, Peer: mpi.AnySource})
	if _, err := FromTrace(tr, func(int64) float64 { return 0 }, nil); err == nil || !strings.Contains(err.Error(), "receive from any source (MPI_ANY_SOURCE)") {
		t.Errorf("err = %v", err)
	}
	tr = mpi.NewTrace(2)
	tr.Append(0, mpi.Event{Kind: mpi.Send, Peer: 2})
	if _, err := FromTrace(tr, func(int64) float64 { return 0 }, nil); err == nil || !strings.Contains(err.Error(), "peer 2 outside communicator 0") {
		t.Errorf("err = %v", err)
	}
}

// FromTraceNIC: rank 0 posts two isends of 100 and 50 bytes back to back
// to ranks 1 and 2 (message cost 1 s + bytes/100 s, interface gap bytes/100
// s); the second leaves its interface only after the first's 1 s, so it
// arrives at 1 + 1.5 = 2.5 s instead of 1.5 s. A barrier resets the chain:
// the third isend, after it, leaves at once.
func TestFromTraceNICSerializesSends(t *testing.T) {
	tr := mpi.NewTrace(3)
	tr.Append(0, mpi.Event{Kind: mpi.Isend, Peer: 1, Bytes: 100, Req: 1})
	tr.Append(0, mpi.Event{Kind: mpi.Isend, Peer: 2, Bytes: 50, Req: 2})
	tr.Append(0, mpi.Event{Kind: mpi.Barrier})
	tr.Append(0, mpi.Event{Kind: mpi.Isend, Peer: 1, Bytes: 50, Req: 3})
	tr.Append(1, mpi.Event{Kind: mpi.Recv, Peer: 0, Bytes: 100})
	tr.Append(1, mpi.Event{Kind: mpi.Barrier})
	tr.Append(1, mpi.Event{Kind: mpi.Recv, Peer: 0, Bytes: 50})
	tr.Append(2, mpi.Event{Kind: mpi.Recv, Peer: 0, Bytes: 50})
	tr.Append(2, mpi.Event{Kind: mpi.Barrier})
	cost := func(b int64) float64 { return 1 + float64(b)/100 }
	gap := func(b int64) float64 { return float64(b) / 100 }
	for _, c := range []struct {
		gap  func(int64) float64
		want float64
	}{{nil, 2 + 1.5}, {gap, 2.5 + 1.5}} {
		d, err := FromTraceNIC(tr, cost, c.gap, nil)
		if err != nil {
			t.Fatal(err)
		}
		o, err := InitialOrder(d)
		if err != nil {
			t.Fatal(err)
		}
		// The barrier waits for rank 2's receive; rank 1's last receive
		// ends the run 1.5 s after the barrier.
		if o.Makespan != c.want {
			t.Errorf("nic gap %v: makespan %v, want %v", c.gap != nil, o.Makespan, c.want)
		}
	}
}
