package scenarios

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/conductor"
	"github.com/capsim/capsim/optimize/policy/dctdvfs"
	"github.com/capsim/capsim/traces/graph"
)

// Conductor on an execution graph with GPUs: within the cap at every cap
// the slowest configurations fit, at or above the LP bound, and no
// slower than static where the cap binds (it starts from static's equal
// shares, per phase, and moves power to the imbalanced step's critical
// GPU).
func TestGraphConductor(t *testing.T) {
	sc := parseGPU(t, gpuScenario(gpuMachine, "")+"[bound]\ncuts = \"none\"\n")
	m := &sc.Machines[0]
	net := sc.Net()
	net.Latency, net.GapPerByte = 1000, network.NsPerByte(1)
	g := trainStep(t)
	bd, err := sc.newGraphBounder(g, nil, m, net, 1)
	if err != nil {
		t.Fatal(err)
	}
	if bd.s != nil {
		defer bd.close()
	}
	for capW := 554.0; capW <= 900; capW += 23 {
		run, err := sc.replayGraphConductor(g, m, net, nil, capW, conductor.DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		st, err := sc.Replay(g, m, net, "static", capW)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%g W: conductor %d ns %.4g J over %d; static %d ns over %d", capW, run.met.MakespanNs, run.met.EnergyJ, run.met.OverCapNs, st.MakespanNs, st.OverCapNs)
		if run.met.OverCapNs != 0 {
			t.Errorf("%g W: conductor %d ns over the cap", capW, run.met.OverCapNs)
		}
		// Its overheads (a configuration switch, 17 µs) aside, no slower
		// than static, whose split it starts from.
		if float64(run.met.MakespanNs) > 1.01*float64(st.MakespanNs) {
			t.Errorf("%g W: conductor %d ns, static %d ns", capW, run.met.MakespanNs, st.MakespanNs)
		}
		if bd.s != nil {
			b, err := bd.s.Solve(m.LPCap(capW))
			if err != nil {
				t.Fatal(err)
			}
			if b != nil && b.Makespan*1e9 > float64(run.met.MakespanNs)+1 {
				t.Errorf("%g W: conductor %d ns below the LP bound %.0f ns", capW, run.met.MakespanNs, b.Makespan*1e9)
			}
		}
	}
}

// cpuMachine is one node of two ranks with two P-states and no GPU.
const cpuMachine = `[[machine]]
name = "c"
nodes = 1
cores_per_socket = 2
ranks_per_node = 2
idle_power_w = 40.0
core_idle_power_w = 1.0
[[machine.pstate]]
freq_ghz = 2.6
active_power_w = 30.0
[[machine.pstate]]
freq_ghz = 2.0
active_power_w = 18.0
[[machine.pstate]]
freq_ghz = 1.4
active_power_w = 10.0
`

// phaseStepGOAL is three iterations of an imbalanced bulk-synchronous step on
// two ranks as a GOAL file: rank 0 computes 10 ms, rank 1 6 ms, then they
// exchange 1 kB.
func phaseStepGOAL() string {
	var b strings.Builder
	b.WriteString("num_ranks 2\n")
	for r := range 2 {
		fmt.Fprintf(&b, "rank %d {\n", r)
		for i := range 3 {
			fmt.Fprintf(&b, "c%d: calc %d\ns%d: send 1000b to %d tag %d\nr%d: recv 1000b from %d tag %d\n", i, 10000000-4000000*r, i, 1-r, i, i, 1-r, i)
			fmt.Fprintf(&b, "s%d requires c%d\nr%d requires c%d\n", i, i, i, i)
			if i > 0 {
				fmt.Fprintf(&b, "c%d requires r%d\nc%d requires s%d\n", i, i-1, i, i-1)
			}
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// The phase policies on a GOAL file, on a machine without GPUs, at caps
// from below what the ranks' fastest P-states need to above: conductor
// (a sweep) stays within every cap and is no slower than static;
// steering (capsim policy) within every cap its budget covers and no
// slower than its baseline, static; dct-dvfs saves energy at no cost in
// time; and none is below the LP bound.
func TestGraphPoliciesGOAL(t *testing.T) {
	dir := t.TempDir()
	goal := filepath.Join(dir, "step.goal")
	if err := os.WriteFile(goal, []byte(phaseStepGOAL()), 0o644); err != nil {
		t.Fatal(err)
	}
	text := "name = \"goal\"\n" + cpuMachine + "[network]\nL_ns = 1000\no_ns = 100\ng_ns = 100\nG_ns_per_byte = 1\n[workload]\ntrace = \"" + goal + "\"\n" +
		"[sweep]\ncaps_w = [70, 80, 90, 100, 110]\npolicies = [\"uncapped\", \"static\", \"conductor\"]\n"
	sc, err := Parse("goal.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]Metrics{}
	emit := func(p Point, m Metrics) error { rows[fmt.Sprint(p.Policy, p.CapW)] = m; return nil }
	if err := (Replayer{}).Evaluate(context.Background(), sc, sc.Points(), emit); err != nil {
		t.Fatal(err)
	}
	for _, capW := range sc.Sweep.CapsW {
		c, st := rows[fmt.Sprint("conductor", capW)], rows[fmt.Sprint("static", capW)]
		t.Logf("%g W: conductor %d ns over %d bound %d; static %d ns", capW, c.MakespanNs, c.OverCapNs, c.BoundNs, st.MakespanNs)
		if c.OverCapNs != 0 || c.MakespanNs > st.MakespanNs+int64(len(sc.Sweep.CapsW))*20000 {
			t.Errorf("%g W: conductor %d ns, %d ns over the cap; static %d ns", capW, c.MakespanNs, c.OverCapNs, st.MakespanNs)
		}
		if c.BoundNs > 0 && c.MakespanNs < c.BoundNs {
			t.Errorf("%g W: conductor %d ns below the LP bound %d ns", capW, c.MakespanNs, c.BoundNs)
		}
		for _, pol := range []string{PolicySteering, PolicyDCTDVFS} {
			psc, err := Parse("goal.toml", []byte(text))
			if err != nil {
				t.Fatal(err)
			}
			net := psc.Net()
			rep, err := ReplayPolicy(context.Background(), PolicyReplay{Policy: pol, Trace: goal, Scenario: psc, Net: &net, CapW: capW, DCTDVFS: DCTDVFSOptions{TDVFSNs: 10000}})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("  %s: baseline %d ns %.4g J, policy %d ns %.4g J over %d; bound %d (%s)", pol, rep.Baseline.MakespanNs, rep.Baseline.EnergyJ,
				rep.Result.MakespanNs, rep.Result.EnergyJ, rep.Result.OverCapNs, rep.LP.BoundNs, rep.LP.Status)
			if rep.Phases != 3 {
				t.Errorf("%s: %d phases, want 3", pol, rep.Phases)
			}
			if rep.LP.Status == "ok" && rep.Result.OverCapNs == 0 && rep.Result.MakespanNs < rep.LP.BoundNs {
				t.Errorf("%g W: %s %d ns below the LP bound %d ns", capW, pol, rep.Result.MakespanNs, rep.LP.BoundNs)
			}
			switch pol {
			case PolicySteering:
				if rep.Result.OverCapNs != 0 && rep.OverBudgetPhases == 0 {
					t.Errorf("%g W: steering %d ns over a cap its budget covers", capW, rep.Result.OverCapNs)
				}
				if rep.Result.MakespanNs > rep.Baseline.MakespanNs {
					t.Errorf("%g W: steering %d ns, static %d ns", capW, rep.Result.MakespanNs, rep.Baseline.MakespanNs)
				}
			case PolicyDCTDVFS:
				if rep.Result.EnergyJ >= rep.Baseline.EnergyJ || float64(rep.Result.MakespanNs) > 1.01*float64(rep.Baseline.MakespanNs) {
					t.Errorf("dct-dvfs %d ns %g J, baseline %d ns %g J: want less energy, no longer", rep.Result.MakespanNs, rep.Result.EnergyJ, rep.Baseline.MakespanNs, rep.Baseline.EnergyJ)
				}
			}
		}
	}
}

// Steering and dct-dvfs on a graph with GPU kernels (the imbalanced
// Chakra-like step): each unit its own configurations (P-states on the
// host, clocks on the GPU); steering runs the critical kernel no slower
// than static at every cap its budget covers, and within the cap; no run
// is below the LP bound.
func TestGraphPoliciesGPU(t *testing.T) {
	g := trainStep(t)
	for _, capW := range []float64{560, 620, 680, 760, 900} {
		for _, pol := range []string{PolicySteering, PolicyDCTDVFS} {
			sc := parseGPU(t, gpuScenario(gpuMachine, ""))
			m := &sc.Machines[0]
			rep, err := replayGraphPolicy(context.Background(), PolicyReplay{Policy: pol, Trace: "step", CapW: capW}, sc, m, g, sc.Net())
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %g W: baseline %d ns %.4g J, policy %d ns %.4g J over %d; bound %d (%s)", pol, capW, rep.Baseline.MakespanNs, rep.Baseline.EnergyJ,
				rep.Result.MakespanNs, rep.Result.EnergyJ, rep.Result.OverCapNs, rep.LP.BoundNs, rep.LP.Status)
			if rep.LP.Status == "ok" && rep.Result.OverCapNs == 0 && rep.Result.MakespanNs < rep.LP.BoundNs {
				t.Errorf("%g W: %s %d ns below the LP bound %d ns", capW, pol, rep.Result.MakespanNs, rep.LP.BoundNs)
			}
			if pol == PolicySteering && rep.OverBudgetPhases == 0 {
				if rep.Result.OverCapNs != 0 || rep.Result.MakespanNs > rep.Baseline.MakespanNs {
					t.Errorf("%g W: steering %d ns (%d over the cap), static %d ns", capW, rep.Result.MakespanNs, rep.Result.OverCapNs, rep.Baseline.MakespanNs)
				}
			}
		}
	}
}

// The phase policies on the shared PyTorch Chakra trace replicated to 4
// GPUs: conductor stays within every cap it can meet, no slower than
// static; steering and dct-dvfs run.
func TestGraphPoliciesChakra(t *testing.T) {
	trace := filepath.Join("..", "..", "shared", "traces", "chakra", "pytorch-kineto-1rank", "chakra.0.et")
	if _, err := os.Stat(trace); err != nil {
		t.Skip("no ../shared")
	}
	if testing.Short() {
		t.Skip("replays the shared trace")
	}
	text := strings.NewReplacer("ranks_per_node = 2", "ranks_per_node = 4", "cores_per_socket = 2", "cores_per_socket = 4").Replace(gpuMachine)
	text = "name = \"chakra\"\n" + text + "[network]\nL_ns = 5000\no_ns = 1000\ng_ns = 100\nG_ns_per_byte = \"50GB/s\"\n[workload]\ntrace = \"" + trace + "\"\nreplicate = 4\n"
	sc := parseGPU(t, text)
	m := &sc.Machines[0]
	g, err := sc.Graph(nil)
	if err != nil {
		t.Fatal(err)
	}
	// Each rank needs at least 200 W above idle for its GPU's slowest
	// clock and 7 W for its core: the least cap is 40 + 4·50 + 4·207 W.
	for _, capW := range []float64{1100, 1250, 1400} {
		run, err := sc.replayGraphConductor(g, m, sc.Net(), nil, capW, conductor.DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		st, err := sc.Replay(g, m, sc.Net(), "static", capW)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%g W: conductor %d ns over %d, static %d ns", capW, run.met.MakespanNs, run.met.OverCapNs, st.MakespanNs)
		if run.met.OverCapNs != 0 || float64(run.met.MakespanNs) > 1.01*float64(st.MakespanNs) {
			t.Errorf("%g W: conductor %d ns, %d ns over the cap; static %d ns", capW, run.met.MakespanNs, run.met.OverCapNs, st.MakespanNs)
		}
	}
	for _, pol := range []string{PolicySteering, PolicyDCTDVFS} {
		rep, err := replayGraphPolicy(context.Background(), PolicyReplay{Policy: pol, Trace: trace, CapW: 1400, NoBound: true}, sc, m, g, sc.Net())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d phases, baseline %d ns %.4g J, policy %d ns %.4g J over %d", pol, rep.Phases, rep.Baseline.MakespanNs, rep.Baseline.EnergyJ,
			rep.Result.MakespanNs, rep.Result.EnergyJ, rep.Result.OverCapNs)
		if rep.Phases < 2 || rep.Result.MakespanNs <= 0 {
			t.Errorf("%s: %d phases, makespan %d ns", pol, rep.Phases, rep.Result.MakespanNs)
		}
	}
}

// dataParallelStep is a data-parallel training step as an execution
// graph: on every rank r a 1 ms host operation (CPU 0) launches a kernel
// of kernelNs[r] on the GPU's compute stream (CPU 1), whose gradients then
// go round a ring of all ranks on a communication channel (CPU 2: a
// send to the next rank, a receive from the previous), after which a
// 2 ms host operation ends the step.
func dataParallelStep(t *testing.T, kernelNs []int64) *graph.Graph {
	t.Helper()
	ranks := len(kernelNs)
	b := graph.NewBuilder(ranks)
	on := func(op graph.Op, cpu uint8) graph.Op { op.CPU = cpu; return op }
	for r := range ranks {
		next, prev := int32((r+1)%ranks), int32((r+ranks-1)%ranks)
		h1 := b.Add(r, graph.CalcOp(1e6))
		f1 := b.Add(r, graph.CalcOp(0))
		b.Dep(r, f1, h1, graph.Requires)
		k := b.Add(r, on(graph.CalcOp(kernelNs[r]), 1))
		b.Dep(r, k, f1, graph.Requires)
		f2 := b.Add(r, on(graph.CalcOp(0), 1))
		b.Dep(r, f2, k, graph.Requires)
		s := b.Add(r, on(graph.SendOp(1000, next, 1), 2))
		b.Dep(r, s, f2, graph.Requires)
		rv := b.Add(r, on(graph.RecvOp(1000, prev, 1), 2))
		b.Dep(r, rv, f2, graph.Requires)
		h2 := b.Add(r, graph.CalcOp(2e6))
		b.Dep(r, h2, rv, graph.Requires)
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	g.Causal = true
	return g
}

// Conductor on k equal data-parallel ranks under per-node caps, at caps
// where static's split leaves each host core more than its fastest
// P-state draws: the ranks tie for the critical path, so no GPU gets its
// node's unused power to run a faster clock and then wait at the ring:
// conductor draws no higher a peak than static and uses no more energy.
// With one rank's
// kernel 40 % longer, the power goes to that rank's GPU and the step
// ends sooner than static's at some cap.
func TestGraphConductorEqualRanks(t *testing.T) {
	const k = 4
	text := strings.Replace(gpuMachine, "nodes = 1", "nodes = 2", 1)
	sc := parseGPU(t, gpuScenario(text, "[sweep]\ncaps_w = [600]\ncap_scope = \"node\"\n"))
	m := &sc.Machines[0]
	net := sc.Net()
	equal := make([]int64, k)
	for r := range equal {
		equal[r] = 1e7
	}
	slow := append([]int64{14e6}, equal[1:]...)
	faster := 0
	for capW := 580.0; capW <= 800; capW += 30 {
		for _, tc := range []struct {
			name    string
			kernels []int64
		}{{"equal", equal}, {"one slower", slow}} {
			g := dataParallelStep(t, tc.kernels)
			run, err := sc.replayGraphConductor(g, m, net, nil, capW, conductor.DefaultParams())
			if err != nil {
				t.Fatal(err)
			}
			st, err := sc.Replay(g, m, net, "static", capW)
			if err != nil {
				t.Fatal(err)
			}
			c := run.met
			t.Logf("%s %g W: conductor %d ns %.6g J peak %.0f W over %d; static %d ns %.6g J peak %.0f W over %d", tc.name, capW, c.MakespanNs, c.EnergyJ, c.PeakPowerW, c.OverCapNs, st.MakespanNs, st.EnergyJ, st.PeakPowerW, st.OverCapNs)
			if st.OverCapNs != 0 || c.OverCapNs != 0 {
				t.Errorf("%s %g W: conductor %d ns over the cap, static %d ns", tc.name, capW, c.OverCapNs, st.OverCapNs)
			}
			if tc.name == "equal" {
				if c.EnergyJ > st.EnergyJ*(1+1e-9) || c.PeakPowerW > st.PeakPowerW {
					t.Errorf("%g W: equal ranks: conductor %.6g J peak %.0f W, static %.6g J peak %.0f W: want no more", capW, c.EnergyJ, c.PeakPowerW, st.EnergyJ, st.PeakPowerW)
				}
			} else if c.MakespanNs < st.MakespanNs {
				faster++
			}
		}
	}
	if faster == 0 {
		t.Error("one slower rank: conductor never faster than static: no power moved to it")
	}
}

// dct-dvfs's whole-interval objective on an execution graph charges the
// slack a rank leaves unused at what its units draw while it waits, in
// the terms of its tasks' levels (above the machine's base power): here
// one core's idle power, 1 W, not the node's 40 W idle power as well.
// Rank 1 computes 6 ms against rank 0's 10 ms in each of 3 phases, so it
// has 4 ms of slack; at 2.0 GHz its 6 ms take 7.8 ms at 18 W (0.1404 J,
// 1.8 ms used), at 1.6 GHz 9.75 ms at 16 W (0.156 J, 3.75 ms used).
// Whole-interval: 0.1404 − 1·0.0018 = 0.1386 J < 0.156 − 1·0.00375 =
// 0.15225 J, so 2.0 GHz, as phase-only picks; charging 41 W of waiting
// would pick 1.6 GHz (0.00225 J < 0.0666 J). The machine's cores sleep
// while they wait (wait_power = "idle", the objective's model), so the
// replay agrees: 1.6 GHz would cost 0.15625 J per phase with its wait,
// 2.0 GHz 0.1426 J.
func TestGraphDCTDVFSWholeIntervalWait(t *testing.T) {
	dir := t.TempDir()
	goal := filepath.Join(dir, "step.goal")
	if err := os.WriteFile(goal, []byte(phaseStepGOAL()), 0o644); err != nil {
		t.Fatal(err)
	}
	machine := strings.Replace(cpuMachine, "freq_ghz = 1.4\nactive_power_w = 10.0", "freq_ghz = 1.6\nactive_power_w = 16.0", 1)
	machine = strings.Replace(machine, "core_idle_power_w = 1.0\n", "core_idle_power_w = 1.0\nwait_power = \"idle\"\n", 1)
	text := "name = \"goal\"\n" + machine + "[network]\nL_ns = 1000\no_ns = 100\ng_ns = 100\nG_ns_per_byte = 1\n[workload]\ntrace = \"" + goal + "\"\n"
	var phaseOnlyJ float64
	for _, obj := range []dctdvfs.Objective{dctdvfs.PhaseOnly, dctdvfs.WholeInterval} {
		sc, err := Parse("goal.toml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		net := sc.Net()
		rep, err := ReplayPolicy(context.Background(), PolicyReplay{Policy: PolicyDCTDVFS, Trace: goal, Scenario: sc, Net: &net, NoBound: true,
			DCTDVFS: DCTDVFSOptions{Objective: obj}})
		if err != nil {
			t.Fatal(err)
		}
		const want = 3 * 0.0078 * 18 // rank 1 at 2.0 GHz in its 3 phases
		t.Logf("%s: knapsack %.6g J, slack %d ns; baseline %.6g J, policy %.6g J", obj, rep.KnapsackJ, rep.SlackNs, rep.Baseline.EnergyJ, rep.Result.EnergyJ)
		if rep.SlackNs != 3*4000000 {
			t.Errorf("%s: slack %d ns, want 3 × 4 ms", obj, rep.SlackNs)
		}
		if math.Abs(rep.KnapsackJ-want) > 1e-9 {
			t.Errorf("%s: knapsack %.6g J, want %.6g J (rank 1 at 2.0 GHz)", obj, rep.KnapsackJ, want)
		}
		if obj == dctdvfs.PhaseOnly {
			phaseOnlyJ = rep.Result.EnergyJ
		} else if math.Abs(rep.Result.EnergyJ-phaseOnlyJ) > 1e-9 {
			t.Errorf("whole-interval replays %.6g J, phase-only %.6g J: want the same choice", rep.Result.EnergyJ, phaseOnlyJ)
		}
	}
}
