package scenarios

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/traces/arrowtrace"
)

// The lp and min-energy policies under per-node caps on random
// Chakra-like steps (randomStep) with each rank's GPU on a node of its
// own, rank 1's kernels twice rank 0's: no node ever over its cap, every
// policy's point within the node caps at or above the node-cap bound,
// and the node-cap bound at or above the job-cap bound at the nodes'
// caps together (fewer schedules keep every node within its share) and
// strictly above it somewhere (rank 1 cannot take the power rank 0 leaves
// unused on the other node).
func TestGraphLPPoliciesNodeCaps(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	caps := []float64{310, 330, 360, 390, 1e4} // per node: 90 W of socket and idle GPU, one core, one GPU
	two := strings.Replace(strings.Replace(gpuMachine, "nodes = 1", "nodes = 2", 1), "ranks_per_node = 2", "ranks_per_node = 1", 1)
	node := parseGPU(t, gpuScenario(two, "")+"[bound]\ncuts = \"none\"\n"+capsTOML(caps)+"cap_scope = \"node\"\n")
	jobCaps := make([]float64, len(caps))
	for i, c := range caps {
		jobCaps[i] = 2 * c
	}
	job := parseGPU(t, gpuScenario(two, "")+"[bound]\ncuts = \"none\"\n"+capsTOML(jobCaps))
	for _, sc := range []*Scenario{node, job} {
		sc.Network.LNs, sc.Network.ONs, sc.Network.GNsPerByte = 2000, 500, network.NsPerByte(1)
	}
	rng := rand.New(rand.NewPCG(7, 34))
	tighter := 0
	for step := 0; step < 6; step++ {
		g := randomStep(t, rng)
		name := fmt.Sprintf("step %d", step)
		got := graphPoints(t, node, g, caps)
		checkGraphPolicies(t, name, got, caps, 0)
		bd, err := job.newGraphBounder(g, nil, &job.Machines[0], job.Net(), 1)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range caps {
			jb, err := bd.at(context.Background(), jobCaps[i])
			if err != nil {
				t.Fatal(err)
			}
			nb := got["lp"][c].BoundNs
			if nb < jb {
				t.Errorf("%s at %g W per node: node-cap bound %d ns below the job-cap bound %d ns at %g W", name, c, nb, jb, jobCaps[i])
			}
			if nb > jb {
				tighter++
			}
			t.Logf("%s at %g W per node: node bound %d ns, job bound at %g W %d ns", name, c, nb, jobCaps[i], jb)
		}
		bd.close()
	}
	if tighter == 0 {
		t.Error("the node-cap bound is never above the job-cap bound: the test does not tell the two apart")
	}
}

// The lp and min-energy policies and the bound under per-node caps on an
// MPI trace (a generated stencil on two nodes of two ranks), through a
// sweep's evaluator: within every node cap, at or above the node-cap
// bound.
func TestMPILPPoliciesNodeCaps(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	const m = "[[machine]]\nname = \"m\"\nnodes = 2\ncores_per_socket = 2\nranks_per_node = 2\nidle_power_w = 20.0\ncore_idle_power_w = 2.0\n" +
		"[[machine.pstate]]\nfreq_ghz = 2.6\nactive_power_w = 30.0\n[[machine.pstate]]\nfreq_ghz = 2.0\nactive_power_w = 18.0\n[[machine.pstate]]\nfreq_ghz = 1.4\nactive_power_w = 10.0\n"
	caps := []float64{42, 50, 60, 200}
	text := gpuScenario(m, "") + "[workload.params]\nranks = 4\npx = 2\npy = 2\niterations = 4\nimbalance = \"wavefront\"\nbalance = 0.4\n" + capsTOML(caps) + "cap_scope = \"node\"\n"
	sc := parseGPU(t, text)
	if err := sc.Check(); err != nil {
		t.Fatal(err)
	}
	got := evaluateAll(t, sc, graphPolicies, caps)
	checkGraphPolicies(t, "stencil", got, caps, 0)
}

// The example of docs/guide/gpu-power.md, "The LP under per-node caps",
// parses with lp under per-node caps.
func TestNodeCapExampleParses(t *testing.T) {
	b, err := os.ReadFile("../examples/scenarios/gpu-training-nodecap-lp.toml")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Parse("gpu-training-nodecap-lp.toml", b)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Sweep.CapScope != CapScopeNode || !slices.Contains(sc.Sweep.Policies, "lp") {
		t.Errorf("cap_scope %q, policies %v: want node caps with lp", sc.Sweep.CapScope, sc.Sweep.Policies)
	}
}

// capsim bound on an execution graph under per-node caps: the bound and
// the least feasible cap are the node LP's (the sweep's bound at each
// cap), the lp rounding's replay and static's stay within every node's
// cap, and --order-free is refused (it solves under the job's cap).
func TestRunBoundNodeCaps(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	caps := []float64{330, 360, 1e4}
	two := strings.Replace(strings.Replace(gpuMachine, "nodes = 1", "nodes = 2", 1), "ranks_per_node = 2", "ranks_per_node = 1", 1)
	sc := parseGPU(t, gpuScenario(two, "")+"[bound]\ncuts = \"none\"\n"+capsTOML(caps)+"cap_scope = \"node\"\n")
	sc.Network.LNs, sc.Network.ONs, sc.Network.GNsPerByte = 2000, 500, network.NsPerByte(1)
	g := randomStep(t, rand.New(rand.NewPCG(7, 34)))
	m := &sc.Machines[0]
	rep, err := sc.RunBound(context.Background(), BoundConfig{CapsW: caps, Machine: m, Graph: g, LPRounding: true})
	if err != nil {
		t.Fatal(err)
	}
	bd, err := sc.newGraphBounder(g, nil, m, sc.Net(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer bd.close()
	least, _ := bd.s.MinFeasibleCap()
	if want := least + m.nodeLPBaseW(); rep.MinCapW != want {
		t.Errorf("least feasible cap %g W, want the node LP's %g W", rep.MinCapW, want)
	}
	for i, row := range rep.Rows {
		want, err := bd.at(context.Background(), caps[i])
		if err != nil {
			t.Fatal(err)
		}
		if row.BoundNs != want || row.RoundedOverCap != 0 || row.StaticOverCap != 0 {
			t.Errorf("at %g W per node: bound %d ns (the sweep's %d), lp %d ns over, static %d ns over", caps[i], row.BoundNs, want, row.RoundedOverCap, row.StaticOverCap)
		}
		if *row.RoundedNs < row.BoundNs || row.StaticNs < row.BoundNs || row.OrderFreeLowerNs > row.BoundNs {
			t.Errorf("at %g W per node: lp %d, static %d, order-free lower bound %d ns against the bound %d ns", caps[i], *row.RoundedNs, row.StaticNs, row.OrderFreeLowerNs, row.BoundNs)
		}
	}
	if _, err := sc.RunBound(context.Background(), BoundConfig{CapsW: caps[:1], Machine: m, Graph: g, OrderFree: true}); err == nil || !strings.Contains(err.Error(), "per node") {
		t.Errorf("--order-free under node caps: %v, want an error naming the per-node caps", err)
	}
}

// capsim policy NAME under per-node caps, on an MPI trace (a stencil on
// two nodes of two ranks) and on an execution graph (a GOAL step on two
// nodes of one rank): lp and min-energy give the sweep's point at every
// cap, each node within its cap; steering and dct-dvfs hold each node's
// cap on the MPI trace, refuse it on the execution graph (their graph
// path plans against the job's power) naming the policy and the scope,
// and take the job's cap (nodes × the node cap) where the scenario's
// caps are the job's.
func TestPolicyCommandsNodeCaps(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	dir := t.TempDir()
	const pstates = "idle_power_w = 20.0\ncore_idle_power_w = 2.0\n" +
		"[[machine.pstate]]\nfreq_ghz = 2.6\nactive_power_w = 30.0\n[[machine.pstate]]\nfreq_ghz = 2.0\nactive_power_w = 18.0\n[[machine.pstate]]\nfreq_ghz = 1.4\nactive_power_w = 10.0\n"
	const mpiMachine = "[[machine]]\nname = \"m\"\nnodes = 2\ncores_per_socket = 2\nranks_per_node = 2\n" + pstates
	gen := parseGPU(t, gpuScenario(mpiMachine, "")+"[workload.params]\nranks = 4\npx = 2\npy = 2\niterations = 4\nimbalance = \"wavefront\"\nbalance = 0.4\n")
	tr, err := gen.Trace(nil)
	if err != nil {
		t.Fatal(err)
	}
	stencil := filepath.Join(dir, "stencil.arrow")
	if err := arrowtrace.WriteMPI(stencil, tr); err != nil {
		t.Fatal(err)
	}
	step := filepath.Join(dir, "step.goal")
	if err := os.WriteFile(step, []byte(stepGOAL(rand.New(rand.NewPCG(3, 4)))), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		name, machine, trace string
		caps                 []float64 // per node
	}{
		{"mpi", mpiMachine, stencil, []float64{42, 50, 60, 200}},
		{"graph", "[[machine]]\nname = \"m\"\nnodes = 2\ncores_per_socket = 2\nranks_per_node = 1\n" + pstates, step, []float64{32, 40, 100}},
	} {
		// scenario returns the workload's scenario with caps per scope.
		scenario := func(t *testing.T, scope string, caps []float64) *Scenario {
			text := strings.Replace(gpuScenario(w.machine, ""), "generator = \"stencil2d\"", fmt.Sprintf("trace = %q", w.trace), 1)
			text = strings.Replace(text, "L_ns = 0\no_ns = 0", "L_ns = 2000\no_ns = 500", 1)
			return parseGPU(t, text+"[bound]\ncuts = \"none\"\n"+capsTOML(caps)+fmt.Sprintf("cap_scope = %q\n", scope))
		}
		for _, pol := range []string{PolicyLP, PolicyMinEnergy} {
			t.Run(w.name+" "+pol, func(t *testing.T) {
				sweep := evaluateAll(t, scenario(t, CapScopeNode, w.caps), []string{pol}, w.caps)[pol]
				for _, c := range w.caps {
					rep, err := ReplayPolicy(context.Background(), PolicyReplay{Policy: pol, Trace: w.trace, Scenario: scenario(t, CapScopeNode, w.caps), CapW: c})
					if err != nil {
						t.Fatalf("at %g W per node: %v", c, err)
					}
					want, got := sweep[c], rep.Result
					if got.MakespanNs != want.MakespanNs || got.EnergyJ != want.EnergyJ || got.PeakW != want.PeakPowerW || rep.LP.BoundNs != want.BoundNs {
						t.Errorf("at %g W per node: policy %s %d ns %g J peak %g W bound %d ns; the sweep's %d ns %g J peak %g W bound %d ns",
							c, pol, got.MakespanNs, got.EnergyJ, got.PeakW, rep.LP.BoundNs, want.MakespanNs, want.EnergyJ, want.PeakPowerW, want.BoundNs)
					}
					if got.OverCapNs != 0 || want.OverCapNs != 0 {
						t.Errorf("at %g W per node: a node over its cap for %d ns (the sweep's point %d ns)", c, got.OverCapNs, want.OverCapNs)
					}
				}
			})
		}
		for _, pol := range []string{PolicySteering, PolicyDCTDVFS} {
			t.Run(w.name+" "+pol, func(t *testing.T) {
				c := w.caps[len(w.caps)-1]
				rep, err := ReplayPolicy(context.Background(), PolicyReplay{Policy: pol, Trace: w.trace, Scenario: scenario(t, CapScopeNode, w.caps), CapW: c, NoBound: true})
				switch {
				case w.name == "mpi" && (err != nil || rep.Result.OverCapNs != 0 || !(rep.Result.NodePeakW > 0 && rep.Result.NodePeakW <= c)):
					t.Errorf("--cap %g W per node on an MPI trace: %v, node peak %v W, over the cap %v ns; want each node within its cap", c, err, rep.Result.NodePeakW, rep.Result.OverCapNs)
				case w.name != "mpi" && (!errors.Is(err, ErrOption) || !strings.Contains(err.Error(), "policy "+pol) || !strings.Contains(err.Error(), `cap_scope = "node"`)):
					t.Errorf("--cap %g W per node on an execution graph: error %v, want a refusal naming policy %s and cap_scope = \"node\"", c, err, pol)
				}
				if _, err := ReplayPolicy(context.Background(), PolicyReplay{Policy: pol, Trace: w.trace, Scenario: scenario(t, CapScopeNode, w.caps), NoBound: true}); err != nil {
					t.Errorf("no --cap under per-node caps: %v", err)
				}
				job := 2 * c
				rep, err = ReplayPolicy(context.Background(), PolicyReplay{Policy: pol, Trace: w.trace, Scenario: scenario(t, CapScopeJob, []float64{job}), CapW: job, NoBound: true})
				if err != nil || rep.Result.MakespanNs <= 0 {
					t.Errorf("--cap %g W of the job: %v", job, err)
				}
			})
		}
	}
}

// A report's detail of a point replays it as the sweep does: conductor
// on an MPI trace and static under per-node caps replay within each
// node's cap.
func TestDetailNodeCaps(t *testing.T) {
	const m = "[[machine]]\nname = \"m\"\nnodes = 2\ncores_per_socket = 2\nranks_per_node = 2\nidle_power_w = 20.0\ncore_idle_power_w = 2.0\n" +
		"[[machine.pstate]]\nfreq_ghz = 2.6\nactive_power_w = 30.0\n[[machine.pstate]]\nfreq_ghz = 1.4\nactive_power_w = 10.0\n"
	sc := parseGPU(t, gpuScenario(m, "")+"[workload.params]\nranks = 4\npx = 2\npy = 2\niterations = 2\n"+
		"[sweep]\ncaps_w = [60]\ncap_scope = \"node\"\npolicies = [\"static\", \"conductor\"]\n")
	if err := sc.Check(); err != nil {
		t.Errorf("check: %v", err)
	}
	for _, pol := range []string{"conductor", "static"} {
		secs, err := sc.Detail(Pick{Policy: pol, CapW: 60}, "d_", "")
		if err != nil || len(secs) == 0 || !regexp.MustCompile(`, 0\.000 [mµn]?s above the cap`).MatchString(secs[0].Text) {
			t.Errorf("%s's detail under per-node caps: %v, want its replay within each node's cap", pol, err)
			if len(secs) > 0 {
				t.Log(secs[0].Text)
			}
		}
	}
}
