package sim

import (
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/graph"
)

// A calc on CPU 1 that requires a zero-time calc on CPU 0, itself after a
// 10 µs calc there: LogGOPSim queues it at CPU 1's free time (0) and so
// starts it early; a causal graph starts it at 10 µs.
func TestCausalAcrossCPUs(t *testing.T) {
	for _, causal := range []bool{false, true} {
		b := graph.NewBuilder(1)
		a := b.Add(0, graph.CalcOp(10_000))
		fence := b.Add(0, graph.CalcOp(0))
		op := graph.CalcOp(7_000)
		op.CPU = 1
		dep := b.Add(0, op)
		b.Dep(0, fence, a, graph.Requires)
		b.Dep(0, dep, fence, graph.Requires)
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		g.Causal = causal
		res, err := Run(g, network.LogGOPS{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := int64(10_000)
		if causal {
			want = 17_000
		}
		if got := int64(res.Makespan); got != want {
			t.Errorf("causal=%v: makespan %d, want %d", causal, got, want)
		}
	}
}
