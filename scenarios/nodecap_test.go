package scenarios

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/clp"
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
