package scenarios

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/units"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/traces/graph"
)

// gpuMachine is a machine of one node, two ranks, each with a GPU whose
// 350 W limit leaves 1305 MHz (halfway up the 300–400 W segment) as its
// fastest clock.
const gpuMachine = `[[machine]]
name = "g"
nodes = 1
cores_per_socket = 2
ranks_per_node = 2
idle_power_w = 40.0
core_idle_power_w = 1.0
[[machine.pstate]]
freq_ghz = 2.6
active_power_w = 12.0
[[machine.pstate]]
freq_ghz = 1.8
active_power_w = 7.0
[machine.gpu]
idle_w = 50
power_limit_w = 350
memory_boundness = 0.25
[[machine.gpu.clock]]
mhz = 1410
power_w = 400
[[machine.gpu.clock]]
mhz = 1200
power_w = 300
[[machine.gpu.clock]]
mhz = 1000
power_w = 250
`

// gpuScenario is a scenario of machine text m and sweep text sweep.
func gpuScenario(m, sweep string) string {
	return "name = \"gpu\"\n" + m + "[network]\nL_ns = 0\no_ns = 0\ng_ns = 0\nG_ns_per_byte = 0\n[workload]\ngenerator = \"stencil2d\"\n" + sweep
}

// launchKernel is a Chakra-like graph: on every rank a 1 ms host
// operation (CPU 0) launches a 10 ms kernel on the GPU's compute stream
// (CPU 1), which waits for it through a zero-time fence on CPU 0 (as the
// Chakra importer writes: a calc releases its dependents when it starts).
func launchKernel(t *testing.T, ranks int) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(ranks)
	for r := 0; r < ranks; r++ {
		host := b.Add(r, graph.CalcOp(1e6))
		fence := b.Add(r, graph.CalcOp(0))
		b.Dep(r, fence, host, graph.Requires)
		k := graph.CalcOp(1e7)
		k.CPU = 1
		kern := b.Add(r, k)
		b.Dep(r, kern, fence, graph.Requires)
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	g.Causal = true
	return g
}

func parseGPU(t *testing.T, text string) *Scenario {
	t.Helper()
	sc, err := Parse("gpu.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// The replay of a kernel by hand: its time scales with the clock the
// power limit leaves, the GPU draws that clock's power while it runs and
// its idle power otherwise, and the host core its own.
func TestGPUReplayByHand(t *testing.T) {
	sc := parseGPU(t, gpuScenario(gpuMachine, ""))
	m := &sc.Machines[0]
	if cs := m.GPU.Allowed(); math.Abs(cs[0].MHz-1305) > 1e-9 || cs[0].PowerW != 350 {
		t.Fatalf("fastest clock under the 350 W limit: %+v, want 1305 MHz at 350 W", cs[0])
	}
	g := launchKernel(t, 2)
	met, err := sc.Replay(g, m, sc.Net(), "uncapped", 0)
	if err != nil {
		t.Fatal(err)
	}
	kern := 1e7 * (0.25 + 0.75*1410/1305.0) // ns
	if want := int64(1e6 + math.Round(kern)); met.MakespanNs != want {
		t.Fatalf("makespan %d ns, want %d (1 ms host + the kernel at 1305 MHz)", met.MakespanNs, want)
	}
	T := float64(met.MakespanNs) * 1e-9
	// Sockets 40 W; per rank its core at 12 W (its task, then its wait at
	// the task's power) and its GPU idle for 1 ms, at 350 W for the kernel.
	want := 40*T + 2*(12*T+50*1e-3+350*float64(met.MakespanNs-1e6)*1e-9)
	if math.Abs(met.EnergyJ-want) > 1e-6 {
		t.Fatalf("energy %.9g J, want %.9g J", met.EnergyJ, want)
	}
	if met.PeakPowerW != 40+2*(12+350) {
		t.Fatalf("peak %g W, want %g", met.PeakPowerW, 40+2*(12+350.0))
	}
}

// Static under a job cap: the GPU gets the fastest clock whose power
// above idle, with the slowest core power, fits the rank's share; the
// core the fastest P-state in what is left; the job never exceeds the cap.
func TestGPUStaticClampsClock(t *testing.T) {
	sc := parseGPU(t, gpuScenario(gpuMachine, ""))
	m := &sc.Machines[0]
	g := launchKernel(t, 2)
	// Base 40 W + 2 GPUs idle 100 W; a share of 257 W per rank fits
	// 1200 MHz (300 − 50 + 7) and leaves 7 W for the core: 1.8 GHz.
	capW := 140 + 2*257.0
	met, err := sc.Replay(g, m, sc.Net(), "static", capW)
	if err != nil {
		t.Fatal(err)
	}
	host := 1e6 * 2.6 / 1.8
	kern := 1e7 * (0.25 + 0.75*1410/1200.0)
	if want := int64(math.Round(host) + math.Round(kern)); met.MakespanNs != want {
		t.Fatalf("makespan %d ns, want %d", met.MakespanNs, want)
	}
	if met.PeakPowerW != capW || met.OverCapNs != 0 {
		t.Fatalf("peak %g W, %d ns over; want exactly the cap %g W, never over", met.PeakPowerW, met.OverCapNs, capW)
	}
	// One watt less: 1000 MHz, and the core at 2.6 GHz (257 − 1 − 200 ≥ 12).
	met, err = sc.Replay(g, m, sc.Net(), "static", capW-2)
	if err != nil {
		t.Fatal(err)
	}
	kern = 1e7 * (0.25 + 0.75*1410/1000.0)
	if want := int64(1e6 + math.Round(kern)); met.MakespanNs != want || met.OverCapNs != 0 {
		t.Fatalf("makespan %d ns (%d ns over the cap), want %d within it", met.MakespanNs, met.OverCapNs, want)
	}
}

// A GPU that runs nothing still draws its idle power for the whole run.
func TestGPUIdleCharged(t *testing.T) {
	sc := parseGPU(t, gpuScenario(gpuMachine, ""))
	m := &sc.Machines[0]
	b := graph.NewBuilder(2)
	b.Add(0, graph.CalcOp(1e6))
	b.Add(1, graph.CalcOp(1e6))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	met, err := sc.Replay(g, m, sc.Net(), "uncapped", 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := (40 + 2*12 + 2*50) * 1e-3; math.Abs(met.EnergyJ-want) > 1e-9 {
		t.Fatalf("energy %g J, want %g J (sockets, cores and two idle GPUs for 1 ms)", met.EnergyJ, want)
	}
}

// Per-node caps: every node's power (its share of the sockets, its cores
// and GPUs) stays within the cap under static and static-rapl at every
// cap they can meet, and the accounting sees a node over it when the
// policy ignores the cap.
func TestGPUNodeCapNeverExceeded(t *testing.T) {
	two := strings.Replace(gpuMachine, "nodes = 1", "nodes = 2", 1)
	sc := parseGPU(t, gpuScenario(two, "[sweep]\ncaps_w = [500.0]\ncap_scope = \"node\"\npolicies = [\"static\"]\n"))
	m := &sc.Machines[0]
	g := launchKernel(t, 4)
	for _, pol := range []string{"static", "static-rapl"} {
		// A node: 40 W of sockets, two GPUs idle, and at least the slowest
		// clock above idle and the slowest core for each of its two ranks.
		for capW := 40 + 2*50 + 2*(250-50+7.0); capW <= 900; capW += 37 {
			met, err := sc.Replay(g, m, sc.Net(), pol, capW)
			if err != nil {
				t.Fatal(err)
			}
			if met.OverCapNs != 0 {
				t.Errorf("%s at %g W per node: %d ns over the node cap", pol, capW, met.OverCapNs)
			}
		}
	}
	met, err := sc.Replay(g, m, sc.Net(), "uncapped", 500)
	if err != nil {
		t.Fatal(err)
	}
	if met.OverCapNs == 0 {
		t.Fatal("uncapped GPUs at 350 W each: never over a 500 W node cap")
	}
	for _, bad := range []string{"cap_scope = \"rack\""} {
		_, err := Parse("gpu.toml", []byte(gpuScenario(gpuMachine, "[sweep]\ncaps_w = [500.0]\n"+bad+"\n")))
		if err == nil || !strings.Contains(err.Error(), "cap_scope") {
			t.Errorf("%s: error %v, want one naming cap_scope", bad, err)
		}
	}
}

// An accelerator's idle_w is part of the machine's constant power.
func TestAcceleratorIdleInBase(t *testing.T) {
	m := Machine{Nodes: 2, SocketsPerNode: 2, IdlePowerW: 40, Accelerators: []Accelerator{{PerNode: 3, IdleW: 5}}}
	if got := m.BaseW(); got != 2*2*40+2*3*5 {
		t.Fatalf("base power %g W, want %d", got, 2*2*40+2*3*5)
	}
}

// trainStep is a two-rank Chakra-like step: a host launch, an imbalanced
// kernel (10 ms on rank 0, 6 ms on rank 1), an exchange of gradients on
// the GPU's communication stream, and a 2 ms host update after it.
func trainStep(t *testing.T) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(2)
	on := func(op graph.Op, cpu uint8) graph.Op { op.CPU = cpu; return op }
	for r := 0; r < 2; r++ {
		peer := int32(1 - r)
		h1 := b.Add(r, graph.CalcOp(1e6))
		f1 := b.Add(r, graph.CalcOp(0))
		b.Dep(r, f1, h1, graph.Requires)
		k := b.Add(r, on(graph.CalcOp(int64(1e7-4e6*r)), 1))
		b.Dep(r, k, f1, graph.Requires)
		f2 := b.Add(r, on(graph.CalcOp(0), 1))
		b.Dep(r, f2, k, graph.Requires)
		s := b.Add(r, on(graph.SendOp(1000, peer, 1), 2))
		b.Dep(r, s, f2, graph.Requires)
		rv := b.Add(r, on(graph.RecvOp(1000, peer, 1), 2))
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

// The LP of an execution graph with GPUs: where the cap does not bind it
// is the uncapped replay, and at every cap it is at most the replay of
// every policy that keeps within it; its kernels' configurations are the
// GPU's clocks under its power limit.
func TestGPUGraphBound(t *testing.T) {
	sc := parseGPU(t, gpuScenario(gpuMachine, "")+"[bound]\ncuts = \"none\"\n")
	m := &sc.Machines[0]
	net := sc.Net()
	net.Latency, net.GapPerByte = 1000, network.NsPerByte(1)
	g := trainStep(t)
	bd, err := sc.newGraphBounder(g, nil, m, net, 1)
	if err != nil {
		t.Fatal(err)
	}
	if bd.s == nil {
		t.Skip("no LP solver")
	}
	defer bd.close()
	kernels := 0
	for _, tk := range bd.d.Tasks {
		if len(tk.Hull) == 3 && strings.HasPrefix(tk.Hull[0].Label, "gpu 1305 MHz") {
			kernels++
		}
	}
	if kernels != 2 {
		t.Fatalf("%d tasks with the GPU's three allowed clocks, want the 2 kernels", kernels)
	}
	un, err := sc.Replay(g, m, net, "uncapped", 0)
	if err != nil {
		t.Fatal(err)
	}
	top, err := bd.s.Solve(m.LPCap(1e6))
	if err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(top.Makespan*1e9 - float64(un.MakespanNs)); d > 2 {
		t.Fatalf("LP at an unbinding cap: %.1f ns, the uncapped replay %d ns", top.Makespan*1e9, un.MakespanNs)
	}
	for capW := 554.0; capW <= 900; capW += 23 {
		b, err := bd.s.Solve(m.LPCap(capW))
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			t.Fatalf("no LP schedule at %g W, where static fits", capW)
		}
		for _, pol := range []string{"static", "static-rapl"} {
			met, err := sc.Replay(g, m, net, pol, capW)
			if err != nil {
				t.Fatal(err)
			}
			if met.OverCapNs == 0 && b.Makespan*1e9 > float64(met.MakespanNs)+1 {
				t.Errorf("%g W: LP bound %.0f ns above %s's replay %d ns within the cap", capW, b.Makespan*1e9, pol, met.MakespanNs)
			}
		}
	}
}

// randomStep is a random Chakra-like step on two ranks: host operations
// launching kernels through fences, kernels chained on the compute
// stream, a gradient exchange on the communication stream after the
// last kernel, and a host update after it.
func randomStep(t *testing.T, rng *rand.Rand) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(2)
	on := func(op graph.Op, cpu uint8) graph.Op { op.CPU = cpu; return op }
	ms := func() int64 { return int64(1e5 + rng.IntN(3e6)) }
	kernels := 1 + rng.IntN(4)
	durs := make([][2]int64, kernels)
	for k := range durs {
		durs[k] = [2]int64{ms(), ms()}
	}
	for r := 0; r < 2; r++ {
		peer := int32(1 - r)
		prevKern := int32(-1)
		for k := 0; k < kernels; k++ {
			h := b.Add(r, graph.CalcOp(durs[k][0]/4))
			f := b.Add(r, graph.CalcOp(0))
			b.Dep(r, f, h, graph.Requires)
			kern := b.Add(r, on(graph.CalcOp(durs[k][1]*int64(1+r)), 1))
			b.Dep(r, kern, f, graph.Requires)
			if prevKern >= 0 {
				b.Dep(r, kern, prevKern, graph.Requires)
			}
			prevKern = kern
		}
		f := b.Add(r, on(graph.CalcOp(0), 1))
		b.Dep(r, f, prevKern, graph.Requires)
		s := b.Add(r, on(graph.SendOp(int64(1+rng.IntN(1e6)), peer, 1), 2))
		b.Dep(r, s, f, graph.Requires)
		rv := b.Add(r, on(graph.RecvOp(0, peer, 1), 2))
		b.Dep(r, rv, f, graph.Requires)
		u := b.Add(r, graph.CalcOp(ms()))
		b.Dep(r, u, rv, graph.Requires)
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	pairSizes(g)
	g.Causal = true
	return g
}

// On random Chakra-like steps the graph LP is the uncapped replay where
// the cap does not bind and at most every replayer policy's makespan
// within the cap, at every cap.
func TestGPUGraphBoundRandom(t *testing.T) {
	sc := parseGPU(t, gpuScenario(gpuMachine, "")+"[bound]\ncuts = \"none\"\n")
	m := &sc.Machines[0]
	net := sc.Net()
	net.Latency, net.Overhead, net.GapPerByte = 2000, 500, network.NsPerByte(1)
	rng := rand.New(rand.NewPCG(1, 2))
	for seed := 0; seed < 20; seed++ {
		g := randomStep(t, rng)
		bd, err := sc.newGraphBounder(g, nil, m, net, 1)
		if err != nil {
			t.Fatal(err)
		}
		if bd.s == nil {
			t.Skip("no LP solver")
		}
		un, err := sc.Replay(g, m, net, "uncapped", 0)
		if err != nil {
			t.Fatal(err)
		}
		top, err := bd.s.Solve(m.LPCap(1e6))
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(top.Makespan*1e9 - float64(un.MakespanNs)); d > 10 {
			t.Errorf("step %d: LP at an unbinding cap %.0f ns, the uncapped replay %d ns", seed, top.Makespan*1e9, un.MakespanNs)
		}
		for capW := 554.0; capW <= 900; capW += 41 {
			b, err := bd.s.Solve(m.LPCap(capW))
			if err != nil || b == nil {
				t.Fatalf("step %d at %g W: LP %v, %v", seed, capW, b, err)
			}
			for _, pol := range []string{"uncapped", "static", "static-rapl"} {
				met, err := sc.Replay(g, m, net, pol, capW)
				if err != nil {
					t.Fatal(err)
				}
				if met.OverCapNs == 0 && b.Makespan*1e9 > float64(met.MakespanNs)+10 {
					t.Errorf("step %d at %g W: LP bound %.0f ns above %s's replay %d ns within the cap", seed, capW, b.Makespan*1e9, pol, met.MakespanNs)
				}
			}
		}
		bd.close()
	}
}

// A GPU of the machine draws its idle power whether or not the workload
// runs a rank on its slot: a graph of two ranks on a machine of four
// slots costs every replay (the static baseline, a phase policy and lp)
// two more idle GPUs' power over its makespan than on a machine of two
// slots, whose schedule it keeps. (Cores draw no idle power here, so
// that only the GPUs differ.)
func TestGPUIdleUnusedSlots(t *testing.T) {
	g := launchKernel(t, 2)
	const capW = 1e5 // binds no policy
	run := func(slots int) map[string]Metrics {
		text := strings.NewReplacer("cores_per_socket = 2", fmt.Sprintf("cores_per_socket = %d", slots),
			"ranks_per_node = 2", fmt.Sprintf("ranks_per_node = %d", slots),
			"core_idle_power_w = 1.0", "core_idle_power_w = 0").Replace(gpuMachine)
		sc := parseGPU(t, gpuScenario(text, "")+"[bound]\ncuts = \"none\"\n")
		m, net := &sc.Machines[0], sc.Net()
		out := map[string]Metrics{}
		var err error
		if out["uncapped"], err = sc.Replay(g, m, net, "uncapped", 0); err != nil {
			t.Fatal(err)
		}
		rep, err := replayGraphPolicy(context.Background(), PolicyReplay{Policy: PolicySteering, Trace: "step", CapW: capW}, sc, m, g, net)
		if err != nil {
			t.Fatal(err)
		}
		out["steering"] = Metrics{MakespanNs: rep.Result.MakespanNs, EnergyJ: units.Joules(rep.Result.EnergyJ)}
		if clp.Available() {
			bd, err := sc.newGraphBounder(g, nil, m, net, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer bd.close()
			if out["lp"], _, _, err = sc.lpPoint(context.Background(), bd, g, capW, net); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	two, four := run(2), run(4)
	for pol, f := range four {
		w := two[pol]
		T := float64(f.MakespanNs) * 1e-9
		if f.MakespanNs != w.MakespanNs {
			t.Errorf("%s: makespan %d ns on four slots, %d on two", pol, f.MakespanNs, w.MakespanNs)
		}
		if d, want := float64(f.EnergyJ-w.EnergyJ), 2*50*T; math.Abs(d-want) > 1e-9 {
			t.Errorf("%s: four slots cost %.9g J more than two, want two idle GPUs' %.9g J", pol, d, want)
		}
	}
}
