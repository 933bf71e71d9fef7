package scenarios

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/traces/arrowtrace"
)

// policyNodesTrace writes a four-rank wavefront stencil of iterations
// iterations and returns its path.
func policyNodesTrace(t *testing.T, iterations int) string {
	t.Helper()
	gen := parseGPU(t, gpuScenario(policyNodesMachine(2, 2), "")+fmt.Sprintf("[workload.params]\nranks = 4\npx = 2\npy = 2\niterations = %d\nimbalance = \"wavefront\"\nbalance = 0.4\n", iterations))
	tr, err := gen.Trace(nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "stencil.arrow")
	if err := arrowtrace.WriteMPI(path, tr); err != nil {
		t.Fatal(err)
	}
	return path
}

// policyNodesMachine is a machine of nodes nodes of perNode ranks, three
// P-states of 30, 18 and 10 W, 20 W per idle socket.
func policyNodesMachine(nodes, perNode int) string {
	return policyNodesMachineWait(nodes, perNode, "task")
}

func policyNodesMachineWait(nodes, perNode int, wait string) string {
	return fmt.Sprintf("[[machine]]\nname = \"m\"\nnodes = %d\ncores_per_socket = %d\nranks_per_node = %d\n", nodes, perNode, perNode) +
		fmt.Sprintf("wait_power = %q\nidle_power_w = 20.0\ncore_idle_power_w = 2.0\n", wait) +
		"[[machine.pstate]]\nfreq_ghz = 2.6\nactive_power_w = 30.0\n[[machine.pstate]]\nfreq_ghz = 2.0\nactive_power_w = 18.0\n[[machine.pstate]]\nfreq_ghz = 1.4\nactive_power_w = 10.0\n"
}

// policyNodesScenario is the scenario replaying trace on machine m with
// caps of the given scope.
func policyNodesScenario(t *testing.T, m, trace, scope string, caps ...float64) *Scenario {
	t.Helper()
	text := strings.Replace(gpuScenario(m, ""), "generator = \"stencil2d\"", fmt.Sprintf("trace = %q", trace), 1)
	text = strings.Replace(text, "L_ns = 0\no_ns = 0", "L_ns = 2000\no_ns = 500", 1)
	if caps == nil {
		caps = []float64{100}
	}
	return parseGPU(t, text+"[bound]\ncuts = \"none\"\n"+capsTOML(caps)+fmt.Sprintf("cap_scope = %q\n", scope))
}

// Steering and dct-dvfs under per-node caps on an MPI trace (a wavefront
// stencil of four ranks, rank 3 the slowest): on two nodes of two ranks
// no node is ever over its cap and the LP bound is solved with each node
// capped; with one node holding every rank the run is the job cap's; with
// node caps that never bind it is the run of a job cap that never binds
// (steering) or of no cap (dct-dvfs, whose bound is then at its peak);
// and steering's node budgets bind where the job's budget at the nodes'
// caps together does not (rank 3 cannot take the power its node's
// partner leaves unused on the other node).
func TestPolicyNodeCaps(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	tr := policyNodesTrace(t, 4)
	replay := func(t *testing.T, pol, m, scope string, capW float64) *PolicyReport {
		t.Helper()
		rep, err := ReplayPolicy(context.Background(), PolicyReplay{Policy: pol, Trace: tr, Scenario: policyNodesScenario(t, m, tr, scope), CapW: capW})
		if err != nil {
			t.Fatalf("%s, %s caps of %g W: %v", pol, scope, capW, err)
		}
		return rep
	}
	two, one := policyNodesMachineWait(2, 2, "idle"), policyNodesMachineWait(1, 4, "idle")
	for _, tc := range []struct {
		pol  string
		caps []float64 // per node, each at or above what the policy needs
		// free is a node cap that never binds; free0 its run's cap where
		// the caps are the job's (0: no cap).
		free, free0 float64
	}{
		{PolicySteering, []float64{50, 60, 70}, 1e6, 2e6},
		{PolicyDCTDVFS, []float64{80, 180}, 1e6, 0},
	} {
		t.Run(tc.pol, func(t *testing.T) {
			for _, c := range tc.caps {
				rep := replay(t, tc.pol, two, CapScopeNode, c)
				if got := rep.Result; got.OverCapNs != 0 || !(got.NodePeakW > 0 && got.NodePeakW <= c) {
					t.Errorf("at %g W per node: node peak %g W, %d ns over the cap; want every node within it", c, got.NodePeakW, got.OverCapNs)
				}
				if rep.LP.Status != "ok" || rep.LP.CapW != c || rep.LP.BoundNs <= 0 {
					t.Errorf("at %g W per node: LP bound %+v, want one solved at the node cap", c, rep.LP)
				}
				// One node of every rank: the node's cap is the job's.
				node, job := replay(t, tc.pol, one, CapScopeNode, 2*c), replay(t, tc.pol, one, CapScopeJob, 2*c)
				if !sameRun(node.Result, job.Result) || !sameRun(node.Baseline, job.Baseline) || node.LP != job.LP || node.Result.NodePeakW != job.Result.PeakW {
					t.Errorf("one node at %g W: node caps %+v %+v %+v; the job cap's %+v %+v %+v", 2*c, node.Baseline, node.Result, node.LP, job.Baseline, job.Result, job.LP)
				}
			}
			free, want := replay(t, tc.pol, two, CapScopeNode, tc.free), replay(t, tc.pol, two, CapScopeJob, tc.free0)
			if !sameRun(free.Result, want.Result) || !sameRun(free.Baseline, want.Baseline) || free.LP.BoundNs != want.LP.BoundNs {
				t.Errorf("node caps of %g W: %+v bound %d ns; want the run at %g W of the job %+v bound %d ns", tc.free, free.Result, free.LP.BoundNs, tc.free0, want.Result, want.LP.BoundNs)
			}
		})
	}
	node, job := replay(t, PolicySteering, two, CapScopeNode, 50), replay(t, PolicySteering, two, CapScopeJob, 100)
	if node.Result.MakespanNs <= job.Result.MakespanNs {
		t.Errorf("steering at 50 W per node took %d ns, at 100 W for the job %d ns: want the node budgets to bind", node.Result.MakespanNs, job.Result.MakespanNs)
	}
	// dct-dvfs chooses by slack, not by power: under a node cap below its
	// need the replay reports the time over it rather than hiding it.
	if rep := replay(t, PolicyDCTDVFS, two, CapScopeNode, 75); rep.Result.OverCapNs <= 0 || rep.Result.NodePeakW <= 75 {
		t.Errorf("dct-dvfs at 75 W per node: node peak %g W, %d ns over; want the time over the cap reported", rep.Result.NodePeakW, rep.Result.OverCapNs)
	}
}

// sameRun reports whether a and b are the same replay, the node peak
// aside.
func sameRun(a, b PolicyRun) bool {
	a.NodePeakW, b.NodePeakW = 0, 0
	return a == b
}

// Under per-node caps steering and dct-dvfs refuse a trace whose ranks
// leave a node part full (every node draws the same base power, the LP
// one cap for every node) and an execution graph (their graph path plans
// against the job's power).
func TestPolicyNodeCapsRefused(t *testing.T) {
	tr := policyNodesTrace(t, 4)
	for _, pol := range []string{PolicySteering, PolicyDCTDVFS} {
		_, err := ReplayPolicy(context.Background(), PolicyReplay{Policy: pol, Trace: tr, Scenario: policyNodesScenario(t, policyNodesMachine(1, 8), tr, CapScopeNode), CapW: 1000, NoBound: true})
		if err == nil || !strings.Contains(err.Error(), "4 ranks on machine m of 8 ranks_per_node") || !strings.Contains(err.Error(), "fill whole nodes") {
			t.Errorf("%s, 4 ranks on a node of 8: %v, want a refusal naming the ranks and the node", pol, err)
		}
	}
}

// Conductor on an MPI trace under per-node caps (the sweep's points of
// the wavefront stencil): every rank starts at an equal share of its
// node's cap and power moves only among a node's ranks, so no node is
// ever over its cap; with one node of every rank the points are the job
// cap's, under node caps that never bind the job's at a cap that never
// binds, and on two nodes the node caps bind where the job's cap of both
// together does not (the slow ranks cannot take power from the other
// node).
func TestConductorNodeCaps(t *testing.T) {
	tr := policyNodesTrace(t, 30)
	scenario := func(m, scope string, caps []float64) *Scenario {
		return policyNodesScenario(t, m, tr, scope, caps...)
	}
	caps := []float64{45, 50, 60, 80}
	two, one := policyNodesMachineWait(2, 2, "idle"), policyNodesMachineWait(1, 4, "idle")
	node := evaluateAll(t, scenario(two, CapScopeNode, caps), []string{policy.Conductor}, caps)[policy.Conductor]
	for _, c := range caps {
		if got := node[c]; got.OverCapNs != 0 || got.MakespanNs <= 0 {
			t.Errorf("at %g W per node: %+v; want every node within its cap", c, got)
		}
	}
	oneCaps := []float64{90, 100, 120, 160}
	onNode := evaluateAll(t, scenario(one, CapScopeNode, oneCaps), []string{policy.Conductor}, oneCaps)[policy.Conductor]
	onJob := evaluateAll(t, scenario(one, CapScopeJob, oneCaps), []string{policy.Conductor}, oneCaps)[policy.Conductor]
	for _, c := range oneCaps {
		if onNode[c] != onJob[c] {
			t.Errorf("one node at %g W: node cap %+v, job cap %+v", c, onNode[c], onJob[c])
		}
	}
	free := evaluateAll(t, scenario(two, CapScopeNode, []float64{1e4}), []string{policy.Conductor}, []float64{1e4})[policy.Conductor][1e4]
	want := evaluateAll(t, scenario(two, CapScopeJob, []float64{2e4}), []string{policy.Conductor}, []float64{2e4})[policy.Conductor][2e4]
	if free.MakespanNs != want.MakespanNs || free.EnergyJ != want.EnergyJ || free.PeakPowerW != want.PeakPowerW {
		t.Errorf("node caps of 10 kW: %+v; want the job's at 20 kW %+v", free, want)
	}
	jobCaps := []float64{90, 100, 120, 160} // the nodes' caps together
	job := evaluateAll(t, scenario(two, CapScopeJob, jobCaps), []string{policy.Conductor}, jobCaps)[policy.Conductor]
	slower := false
	for i, c := range caps {
		slower = slower || node[c].MakespanNs > job[jobCaps[i]].MakespanNs
	}
	if !slower {
		t.Errorf("node caps %v: %v; the job's at the nodes' caps together %v: want the node caps to bind somewhere", caps, node, job)
	}
}

// dct-dvfs charges a node's base power once per node, not once per rank:
// four ranks of the same work (four threads each, the same P-states) on
// one node of four ranks and on four nodes of one rank run the same
// schedule, and the four nodes draw three more nodes' base power (one
// idle socket, 20 W) for the whole run, in the baseline, DCT alone and
// DCT + DVFS alike.
func TestDCTDVFSBasePowerPerNode(t *testing.T) {
	tr := policyNodesTrace(t, 4)
	run := func(nodes, perNode int) *PolicyReport {
		t.Helper()
		m := strings.Replace(policyNodesMachineWait(nodes, perNode, "idle"), fmt.Sprintf("cores_per_socket = %d\n", perNode), "cores_per_socket = 16\n", 1)
		rep, err := ReplayPolicy(context.Background(), PolicyReplay{Policy: PolicyDCTDVFS, Trace: tr, Scenario: policyNodesScenario(t, m, tr, CapScopeJob),
			NoBound: true, DCTDVFS: DCTDVFSOptions{Threads: 4, Serial: 0.1}})
		if err != nil {
			t.Fatalf("%d nodes of %d ranks: %v", nodes, perNode, err)
		}
		return rep
	}
	one, four := run(1, 4), run(4, 1)
	const nodeW = 20.0
	for _, c := range []struct {
		name      string
		one, four PolicyRun
	}{{"baseline", one.Baseline, four.Baseline}, {"dct", *one.DCT, *four.DCT}, {"dct-dvfs", one.Result, four.Result}} {
		if c.one.MakespanNs != c.four.MakespanNs {
			t.Errorf("%s: makespan %d ns on one node, %d ns on four; want the same schedule", c.name, c.one.MakespanNs, c.four.MakespanNs)
			continue
		}
		want := 3 * nodeW * float64(c.one.MakespanNs) / 1e9
		if got := c.four.EnergyJ - c.one.EnergyJ; math.Abs(got-want) > 1e-6 {
			t.Errorf("%s: four nodes draw %.6f J more than one (%.6f J against %.6f J); want three nodes' base power, %.6f J", c.name, got, c.four.EnergyJ, c.one.EnergyJ, want)
		}
	}
}

// dct-dvfs's c_max defaults to the machine's threads_per_rank, and
// threads that the ranks of a node cannot have together are refused: a
// default of every core of the node for each of its 8 ranks priced 128
// threads on 16 cores.
func TestDCTThreads(t *testing.T) {
	for _, c := range []struct {
		threads, perRank, perNode, sockets, cores int
		want                                      int
		err                                       string
	}{
		{0, 1, 8, 2, 8, 1, ""},   // the default machine: one thread per rank
		{0, 1, 1, 2, 8, 1, ""},   // one rank per node of one thread
		{0, 4, 2, 2, 8, 4, ""},   // threads_per_rank as given
		{0, 16, 1, 2, 8, 16, ""}, // one rank per node of 16 threads
		{2, 1, 8, 2, 8, 2, ""},
		{4, 1, 8, 2, 8, 0, "8 ranks per node × 4 threads exceed the 16 cores"},
		{16, 1, 1, 2, 8, 16, ""},
		{32, 1, 1, 2, 8, 0, "1 rank per node × 32 threads exceed the 16 cores"},
		{-1, 1, 1, 2, 8, 0, "--threads -1 < 1"},
	} {
		m := &Machine{Name: "m", SocketsPerNode: c.sockets, CoresPerSocket: c.cores, RanksPerNode: c.perNode, ThreadsPerRank: c.perRank}
		got, err := dctThreads(c.threads, m)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%+v: error %v, want %q", c, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%+v: %v", c, err)
		case c.err == "" && got != c.want:
			t.Errorf("%+v: c_max %d, want %d", c, got, c.want)
		}
	}
}

// dct-dvfs takes a machine's active_power_w as a busy rank's, of its
// threads_per_rank threads, as a replay does, and prices each thread at
// its share: four threads of a rank drawing 120/72/40 W are priced as
// four cores of 30/18/10 W (threads_per_rank = 1, --threads 4); taken per
// core, they were priced four times over.
func TestDCTDVFSPowerPerRank(t *testing.T) {
	tr := policyNodesTrace(t, 4)
	run := func(m string, threads int) *PolicyReport {
		t.Helper()
		rep, err := ReplayPolicy(context.Background(), PolicyReplay{Policy: PolicyDCTDVFS, Trace: tr, Scenario: policyNodesScenario(t, m, tr, CapScopeJob),
			NoBound: true, DCTDVFS: DCTDVFSOptions{Threads: threads, Serial: 0.1}})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	core := strings.Replace(policyNodesMachineWait(2, 2, "idle"), "cores_per_socket = 2\n", "cores_per_socket = 8\n", 1)
	rank := strings.NewReplacer("ranks_per_node = 2\n", "ranks_per_node = 2\nthreads_per_rank = 4\n",
		"active_power_w = 30.0", "active_power_w = 120.0", "active_power_w = 18.0", "active_power_w = 72.0",
		"active_power_w = 10.0", "active_power_w = 40.0").Replace(core)
	a, b := run(core, 4), run(rank, 0)
	if a.Threads != 4 || b.Threads != 4 {
		t.Fatalf("c_max %d and %d, want 4", a.Threads, b.Threads)
	}
	for _, c := range []struct {
		name string
		a, b PolicyRun
	}{{"baseline", a.Baseline, b.Baseline}, {"dct", *a.DCT, *b.DCT}, {"dct-dvfs", a.Result, b.Result}} {
		if c.a.MakespanNs != c.b.MakespanNs || math.Abs(c.a.EnergyJ-c.b.EnergyJ) > 1e-9*c.a.EnergyJ {
			t.Errorf("%s: per core %+v, per rank of 4 threads %+v; want the same run", c.name, c.a, c.b)
		}
	}
}
