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
	if _, err := FromTrace(tr, func(int64) float64 { return 0 }, nil); err == nil || !strings.Contains(err.Error(), "no wildcards") {
		t.Errorf("err = %v", err)
	}
}
