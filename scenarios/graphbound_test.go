package scenarios

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/traces/graph"
)

// multiCPUStep is a random GOAL-like step on ranks ranks of cpus CPUs
// each, not causal (the engine queues a released operation at its CPU's
// clock, as LogGOPSim does): per iteration every rank computes on random
// CPUs, then sends to the next rank and receives from the previous one,
// each on a random CPU, so that a message can be processed on another
// CPU than the operations its receive releases.
func multiCPUStep(t *testing.T, rng *rand.Rand, ranks, cpus int) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(ranks)
	on := func(op graph.Op) graph.Op { op.CPU = uint8(rng.IntN(cpus)); return op }
	dep := func(r int, op, on int32) {
		kind := graph.Requires
		if rng.IntN(4) == 0 {
			kind = graph.Irequires
		}
		b.Dep(r, op, on, kind)
	}
	for r := 0; r < ranks; r++ {
		var prev []int32
		for it := range 3 {
			var ends []int32
			for range 1 + rng.IntN(3) {
				op := b.Add(r, on(graph.CalcOp(int64(1e5*(1+rng.IntN(20))))))
				for _, p := range prev {
					dep(r, op, p)
				}
				ends = append(ends, op)
			}
			size := int64(1 + rng.IntN(20000))
			s := b.Add(r, on(graph.SendOp(size, int32((r+1)%ranks), int32(it))))
			rv := b.Add(r, on(graph.RecvOp(size, int32((r+ranks-1)%ranks), int32(it))))
			for _, e := range ends {
				dep(r, s, e)
				dep(r, rv, e)
			}
			prev = []int32{s, rv}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	pairSizes(g)
	return g
}

// On random multi-CPU steps, causal and not, with host operations alone
// (a machine without GPUs) and with GPU kernels, the graph LP is the
// uncapped replay to the ns where the cap does not bind; and at every
// cap static's replay keeps, where that replay keeps the LP's orders
// (Net.Check), that replay meets every row of the LP (its powers are
// what the LP charges), the LP is feasible and its bound at most
// static's makespan. The uncapped replay meets every row.
func TestGraphBoundMultiCPU(t *testing.T) {
	// Without GPUs a rank's CPUs are cores of its node: 2 ranks × up to
	// 3 CPUs on 6 cores.
	cpus := strings.Replace(cpuMachine, "cores_per_socket = 2", "cores_per_socket = 6", 1)
	for _, mt := range []string{cpus, gpuMachine} {
		text := gpuScenario(strings.Replace(mt, "nodes = 1", "nodes = 2", 1), "") + "[bound]\nmessages = \"engine\"\n"
		rng := rand.New(rand.NewPCG(3, 4))
		kept := [2]int{} // not causal, causal
		for seed := range 24 {
			sc := parseGPU(t, text)
			m := &sc.Machines[0]
			net := sc.Net()
			net.Latency, net.Overhead, net.Gap, net.GapPerByte = 1000, 100, 100, network.NsPerByte(1)
			g := multiCPUStep(t, rng, m.Ranks(), 2+rng.IntN(2))
			g.Causal = seed%2 == 1
			un, err := sc.Replay(g, m, net, "uncapped", 0)
			if err != nil {
				t.Fatal(err)
			}
			bd, err := sc.newGraphBounder(g, nil, m, net, 1)
			if err != nil {
				t.Fatal(err)
			}
			if bd.lp == nil {
				t.Skip("no LP solver")
			}
			if _, rec, err := sc.replay(g, m, net, nil, "uncapped", 0); err != nil {
				t.Fatal(err)
			} else if c := checkReplay(t, bd, rec, 1e6); !c.Feasible {
				t.Errorf("machine %s step %d: the uncapped replay breaks the LP's row %s", m.Name, seed, c.Row)
			}
			if ns, err := bd.at(context.Background(), 1e6); err != nil || ns != un.MakespanNs {
				t.Errorf("machine %s step %d: LP at an unbinding cap %d ns (%v), the uncapped replay %d ns", m.Name, seed, ns, err, un.MakespanNs)
			}
			for capW := m.BaseW(); capW <= un.PeakPowerW+10; capW += 10 {
				st, rec, err := sc.replay(g, m, net, nil, "static", capW)
				if err != nil {
					t.Fatal(err)
				}
				if st.OverCapNs != 0 {
					continue
				}
				c := checkReplay(t, bd, rec, capW)
				if !c.Kept {
					continue // another order: the LP bounds it not
				}
				if g.Causal {
					kept[1]++
				} else {
					kept[0]++
				}
				if !c.Feasible {
					t.Errorf("machine %s step %d at %g W: static within the cap breaks the LP's row %s", m.Name, seed, capW, c.Row)
				}
				ns, err := bd.at(context.Background(), capW)
				if err != nil || ns == 0 || ns > st.MakespanNs+1 {
					t.Errorf("machine %s step %d at %g W: LP bound %d ns (%v), static within the cap %d ns", m.Name, seed, capW, ns, err, st.MakespanNs)
				}
			}
			bd.close()
		}
		t.Logf("%d caps (not causal, causal) where static keeps the cap and the LP's orders", kept)
		if kept[0] < 5 || kept[1] < 5 {
			t.Errorf("%d caps (not causal, causal) where static keeps the cap and the LP's orders, want at least 5 of each", kept)
		}
	}
}

// checkReplay checks replay rec against the LP of bd at job cap capW,
// each task drawing what the replay charged it above what the LP's base
// and floor hold (and a mW more: the replay's durations are whole ns, so
// a task at its slowest configuration can end a fraction of a ns before
// the hull's slowest point).
func checkReplay(t *testing.T, bd *bounder, rec *recording, capW float64) bound.Certificate {
	t.Helper()
	r, err := bound.Observe(bd.n.Graph(), bd.net, rec.opts)
	if err != nil {
		t.Fatal(err)
	}
	g, m := bd.n.Graph(), bd.m
	w := make([]float64, len(bd.n.TaskOp))
	for i, op := range bd.n.TaskOp {
		w[i] = rec.model.OpW[op] - m.coreFloor()
		if m.GPU != nil && g.CPU[op] != 0 {
			w[i] = rec.model.OpW[op] - m.GPU.IdleW
		}
		w[i] += 1e-3
	}
	c, err := bd.n.Check(r, w, bd.lpCap(capW))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The imbalanced GPU step as a GOAL file gives it, not causal: the LP
// steering reports beside its replay is feasible at every cap its
// baseline, static, keeps (560–900 W), and at most static's makespan.
func TestGraphBoundGOALStep(t *testing.T) {
	g := trainStep(t)
	g.Causal = false
	for _, capW := range []float64{560, 620, 680, 760, 900} {
		sc := parseGPU(t, gpuScenario(gpuMachine, ""))
		m := &sc.Machines[0]
		rep, err := replayGraphPolicy(context.Background(), PolicyReplay{Policy: PolicySteering, Trace: "step", CapW: capW}, sc, m, g, sc.Net())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%g W: static %d ns over %d; bound %d ns (%s)", capW, rep.Baseline.MakespanNs, rep.Baseline.OverCapNs, rep.LP.BoundNs, rep.LP.Status)
		if rep.LP.Status == "no-solver" {
			t.Skip("no LP solver")
		}
		if rep.Baseline.OverCapNs == 0 && (rep.LP.Status != "ok" || rep.LP.BoundNs > rep.Baseline.MakespanNs) {
			t.Errorf("%g W: LP %s, bound %d ns; static within the cap %d ns", capW, rep.LP.Status, rep.LP.BoundNs, rep.Baseline.MakespanNs)
		}
	}
}
