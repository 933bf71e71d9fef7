package scenarios

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/traces/graph"
)

// stepGOAL is a random step of two single-CPU ranks as a GOAL file:
// each computes, exchanges a message with the other, and computes again.
func stepGOAL(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString("num_ranks 2\n")
	bytes := 1 + rng.IntN(1e6)
	for r := 0; r < 2; r++ {
		a, c := 1e5+rng.IntN(3e6), 1e5+rng.IntN(3e6)
		fmt.Fprintf(&b, "rank %d {\nl1: calc %d\nl2: send %db to %d tag 1\nl3: recv %db from %d tag 1\nl4: calc %d\n", r, a, bytes, 1-r, bytes, 1-r, c)
		b.WriteString("l2 requires l1\nl3 requires l1\nl4 requires l3\nl4 requires l2\n}\n")
	}
	return b.String()
}

// evaluateAll replays every policy of pols at every cap of caps (in
// increasing order) on machine 0 of sc, as a sweep's groups do, and
// returns the metrics by policy and cap.
func evaluateAll(t *testing.T, sc *Scenario, pols []string, caps []float64) map[string]map[float64]Metrics {
	t.Helper()
	got := map[string]map[float64]Metrics{}
	for _, pol := range pols {
		got[pol] = map[float64]Metrics{}
		var pts []Point
		for _, c := range caps {
			pts = append(pts, Point{Policy: pol, CapW: c})
		}
		if pol == "uncapped" {
			pts = []Point{{Policy: pol}}
		}
		err := Replayer{}.Evaluate(context.Background(), sc, pts, func(p Point, met Metrics) error {
			got[pol][p.CapW] = met
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", pol, err)
		}
	}
	return got
}

// checkGraphPolicies checks the points got (evaluateAll) of a graph
// workload: lp and min-energy keep within every cap; the bound is at most
// every policy's makespan within the cap; at the
// last cap, which does not bind, lp is the uncapped replay and the bound.
//
// tol is the share of the bound a replay may end before it: the replay
// rounds every kernel's duration to the ns, the LP does not (0 for the
// random steps, whose durations round exactly).
func checkGraphPolicies(t *testing.T, name string, got map[string]map[float64]Metrics, caps []float64, tol float64) {
	t.Helper()
	unc := got["uncapped"][0]
	for _, c := range caps {
		lp := got["lp"][c]
		if lp.Infeasible || lp.BoundNs <= 0 {
			t.Fatalf("%s at %g W: lp %+v", name, c, lp)
		}
		for pol, mets := range got {
			met, ok := mets[c]
			if !ok {
				continue
			}
			if (pol == "lp" || pol == "min-energy") && met.OverCapNs != 0 {
				t.Errorf("%s at %g W: %s %d ns over the cap", name, c, pol, met.OverCapNs)
			}
			if met.OverCapNs == 0 && float64(met.MakespanNs) < float64(lp.BoundNs)*(1-tol) {
				t.Errorf("%s at %g W: %s %d ns within the cap, below the bound %d ns (%s)", name, c, pol, met.MakespanNs, lp.BoundNs, met.BelowBound)
			}
		}
		t.Logf("%s at %g W: bound %d, lp %d, min-energy %d (%.4g J, lp %.4g J), static %d", name, c,
			lp.BoundNs, lp.MakespanNs, got["min-energy"][c].MakespanNs, got["min-energy"][c].EnergyJ, lp.EnergyJ, got["static"][c].MakespanNs)
	}
	top := got["lp"][caps[len(caps)-1]]
	if top.MakespanNs != unc.MakespanNs || math.Abs(float64(top.BoundNs-unc.MakespanNs)) > tol*float64(unc.MakespanNs) {
		t.Errorf("%s at a cap that does not bind: lp %d ns, bound %d ns, uncapped %d ns; want all equal", name, top.MakespanNs, top.BoundNs, unc.MakespanNs)
	}
	t.Logf("%s: uncapped %d ns", name, unc.MakespanNs)
}

// capsTOML writes caps as sweep.caps_w.
func capsTOML(caps []float64) string {
	s := make([]string, len(caps))
	for i, c := range caps {
		s[i] = fmt.Sprintf("%g", c)
	}
	return "[sweep]\ncaps_w = [" + strings.Join(s, ", ") + "]\n"
}

var graphPolicies = []string{"uncapped", "static", "static-rapl", "lp", "min-energy"}

// The lp and min-energy policies on random GOAL files, through a sweep's
// evaluator: within every cap, at or above the bound, and the uncapped
// replay where the cap does not bind.
func TestGraphLPPoliciesGOAL(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	dir := t.TempDir()
	const m = "[[machine]]\nname = \"m\"\nnodes = 1\ncores_per_socket = 2\nranks_per_node = 2\nidle_power_w = 20.0\ncore_idle_power_w = 2.0\n" +
		"[[machine.pstate]]\nfreq_ghz = 2.6\nactive_power_w = 30.0\n[[machine.pstate]]\nfreq_ghz = 2.0\nactive_power_w = 18.0\n[[machine.pstate]]\nfreq_ghz = 1.4\nactive_power_w = 10.0\n"
	caps := []float64{45, 52, 60, 70, 200}
	rng := rand.New(rand.NewPCG(3, 4))
	for step := 0; step < 6; step++ {
		path := filepath.Join(dir, fmt.Sprintf("step%d.goal", step))
		if err := os.WriteFile(path, []byte(stepGOAL(rng)), 0o644); err != nil {
			t.Fatal(err)
		}
		text := strings.Replace(gpuScenario(m, ""), "generator = \"stencil2d\"", fmt.Sprintf("trace = %q", path), 1)
		text = strings.Replace(text, "L_ns = 0\no_ns = 0", "L_ns = 2000\no_ns = 500", 1)
		sc := parseGPU(t, text+"[bound]\ncuts = \"none\"\n"+capsTOML(caps))
		if err := sc.Check(); err != nil {
			t.Fatal(err)
		}
		got := evaluateAll(t, sc, graphPolicies, caps)
		checkGraphPolicies(t, fmt.Sprintf("step %d", step), got, caps, 0)
		// The report's detail of a point replays it as the sweep did.
		_, g, err := sc.build(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, pol := range []string{"lp", "min-energy"} {
			met, _, err := sc.replayPolicy(nil, g, &sc.Machines[0], nil, pol, caps[1])
			if err != nil {
				t.Fatal(err)
			}
			if want := got[pol][caps[1]]; met.MakespanNs != want.MakespanNs || met.OverCapNs != 0 {
				t.Errorf("step %d: %s's detail replay at %g W: %d ns (%d over the cap), the sweep's %d ns", step, pol, caps[1], met.MakespanNs, met.OverCapNs, want.MakespanNs)
			}
		}
	}
}

// graphPoints evaluates the policies of graphPolicies at every cap of the
// scenario's sweep on graph g, as a sweep's evaluator does for a graph
// workload (a Chakra trace's causal graph, which no GOAL file holds).
func graphPoints(t *testing.T, sc *Scenario, g *graph.Graph, caps []float64) map[string]map[float64]Metrics {
	t.Helper()
	ctx := context.Background()
	m, net := &sc.Machines[0], sc.Net()
	got := map[string]map[float64]Metrics{}
	for _, pol := range graphPolicies {
		got[pol] = map[float64]Metrics{}
		bd, err := sc.newGraphBounder(g, nil, m, net, 1)
		if err != nil {
			t.Fatal(err)
		}
		var pts []Point
		for _, c := range caps {
			pts = append(pts, Point{Policy: pol, CapW: c})
		}
		bd.forkCaps = lpForkCaps(pts, caps)
		for _, c := range caps {
			var met Metrics
			switch pol {
			case "lp":
				met, _, _, err = sc.lpPoint(ctx, bd, g, c, net)
			case "min-energy":
				met, _, _, err = sc.minEnergyPoint(ctx, bd, g, c, net)
			default:
				if met, _, err = sc.replay(g, m, net, nil, pol, c); err == nil {
					met.BoundNs, err = bd.at(ctx, c)
				}
			}
			if err != nil {
				t.Fatalf("%s at %g W: %v", pol, c, err)
			}
			if pol == "uncapped" {
				c = 0
			}
			got[pol][c] = met
		}
		bd.close()
	}
	return got
}

// The lp and min-energy policies on random Chakra-like steps with GPUs
// (randomStep: host operations launching kernels, a gradient exchange on
// a communication stream): within every cap, at or above the bound, and
// the uncapped replay where the cap does not bind. Where cores wait at
// their idle power, the floor the graph LP charges, lp is within 3 % of
// the bound at every cap (0–2.1 % measured); where they wait at their
// last task's power (the default) its schedule needs headroom in the
// waits and can fall back to static's replay at the lowest cap.
func TestGraphLPPoliciesGPU(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	caps := []float64{560, 600, 650, 700, 760, 1e4}
	for _, wait := range []string{"task", "idle"} {
		m := strings.Replace(gpuMachine, "core_idle_power_w = 1.0", "core_idle_power_w = 1.0\nwait_power = \""+wait+"\"", 1)
		sc := parseGPU(t, gpuScenario(m, "")+"[bound]\ncuts = \"none\"\n"+capsTOML(caps))
		sc.Network.LNs, sc.Network.ONs, sc.Network.GNsPerByte = 2000, 500, network.NsPerByte(1)
		rng := rand.New(rand.NewPCG(1, 2))
		for step := 0; step < 8; step++ {
			g := randomStep(t, rng)
			got := graphPoints(t, sc, g, caps)
			checkGraphPolicies(t, fmt.Sprintf("wait %s, step %d", wait, step), got, caps, 0)
			for _, c := range caps {
				if lp := got["lp"][c]; wait == "idle" && float64(lp.MakespanNs) > 1.03*float64(lp.BoundNs) {
					t.Errorf("wait idle, step %d at %g W: lp %d ns, over 3 %% above the bound %d ns", step, c, lp.MakespanNs, lp.BoundNs)
				}
			}
		}
	}
}

// The lp and min-energy policies on the shared PyTorch step (Chakra)
// replicated to two GPUs of one node, through a sweep's evaluator (the
// binding cap with CAPSIM_LONG set): within
// every job cap, at or above the bound, and the uncapped replay where the
// cap does not bind.
func TestGraphLPPoliciesSharedChakra(t *testing.T) {
	if testing.Short() {
		t.Skip("solves the LP of 7,328 operations at every cap")
	}
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	trace := testenv.Shared(t, "traces/chakra/pytorch-kineto-1rank/chakra.0.et")
	// A binding cap takes minutes of the lp policy's probes; the cap that
	// does not bind checks the LP against the replay to the ns.
	caps := []float64{1e4}
	if os.Getenv("CAPSIM_LONG") != "" {
		caps = []float64{650, 1e4}
	}
	text := gpuScenario(gpuMachine, "")
	text = strings.Replace(text, "generator = \"stencil2d\"", "trace = \""+trace+"\"\nreplicate = 2", 1)
	text = strings.Replace(text, "L_ns = 0\no_ns = 0\ng_ns = 0\nG_ns_per_byte = 0", "L_ns = 5000\no_ns = 1000\ng_ns = 100\nG_ns_per_byte = \"50GB/s\"", 1)
	sc := parseGPU(t, text+capsTOML(caps))
	if err := sc.Check(); err != nil {
		t.Fatal(err)
	}
	checkGraphPolicies(t, "pytorch ×2", evaluateAll(t, sc, graphPolicies, caps), caps, 0)
}

// capsim bound and capsim frontier on execution graphs: a Chakra-like
// GPU step (BoundConfig.Graph) and a GOAL file (the scenario's workload).
// At every cap the lp rounding keeps within it, and the bound is at most
// it, the static replay within the cap and the uncapped replay; where
// the cap does not bind, all three are the uncapped replay. The
// order-free optimum of the GOAL file lies between the order-free lower
// bound and the fixed-order bound. There is no
// Conductor baseline. The frontier's fastest schedule is the uncapped
// replay.
func TestGraphBoundAndFrontier(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	gpuSc := parseGPU(t, gpuScenario(gpuMachine, "")+"[bound]\ncuts = \"none\"\n")
	gpuSc.Network.LNs, gpuSc.Network.ONs, gpuSc.Network.GNsPerByte = 2000, 500, network.NsPerByte(1)
	path := filepath.Join(t.TempDir(), "step.goal")
	if err := os.WriteFile(path, []byte(stepGOAL(rand.New(rand.NewPCG(5, 6)))), 0o644); err != nil {
		t.Fatal(err)
	}
	const cpu = "[[machine]]\nname = \"m\"\nnodes = 1\ncores_per_socket = 2\nranks_per_node = 2\nidle_power_w = 20.0\ncore_idle_power_w = 2.0\n" +
		"[[machine.pstate]]\nfreq_ghz = 2.6\nactive_power_w = 30.0\n[[machine.pstate]]\nfreq_ghz = 1.4\nactive_power_w = 10.0\n"
	goalSc := parseGPU(t, strings.Replace(gpuScenario(cpu, ""), "generator = \"stencil2d\"", fmt.Sprintf("trace = %q", path), 1))
	for _, tc := range []struct {
		name string
		sc   *Scenario
		g    *graph.Graph
		caps []float64
		free bool // --order-free too (its search on the GPU step is too long for a test)
	}{
		{"chakra-like", gpuSc, randomStep(t, rand.New(rand.NewPCG(7, 8))), []float64{560, 620, 700, 1e4}, false},
		{"goal", goalSc, nil, []float64{45, 55, 65, 200}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &tc.sc.Machines[0]
			rep, err := tc.sc.RunBound(context.Background(), BoundConfig{CapsW: tc.caps, Machine: m, Graph: tc.g, LPRounding: true, OrderFree: tc.free})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Rows) != len(tc.caps) || rep.Ranks != 2 {
				t.Fatalf("%d rows of %d ranks, want %d of 2", len(rep.Rows), rep.Ranks, len(tc.caps))
			}
			for _, r := range rep.Rows {
				if r.RoundedOverCap != 0 || *r.RoundedNs < r.BoundNs {
					t.Errorf("%g W: lp rounding %d ns, %d ns over the cap; bound %d ns", r.CapW, *r.RoundedNs, r.RoundedOverCap, r.BoundNs)
				}
				if r.StaticOverCap == 0 && r.StaticNs < r.BoundNs {
					t.Errorf("%g W: static %d ns within the cap, below the bound %d ns", r.CapW, r.StaticNs, r.BoundNs)
				}
				if r.ConductorNs != nil {
					t.Errorf("%g W: a Conductor baseline on an execution graph", r.CapW)
				}
				if tc.free && (r.OrderFreeNs == nil || *r.OrderFreeNs > r.BoundNs || r.OrderFreeLowerNs > *r.OrderFreeNs) {
					t.Errorf("%g W: order-free %v, lower %d ns, bound %d ns", r.CapW, r.OrderFreeNs, r.OrderFreeLowerNs, r.BoundNs)
				}
			}
			top := rep.Rows[len(rep.Rows)-1]
			if top.BoundNs != rep.UncappedNs || *top.RoundedNs != rep.UncappedNs || top.LPUncappedNs != rep.UncappedNs {
				t.Errorf("at a cap that does not bind: bound %d, lp %d, LP uncapped %d; uncapped %d ns", top.BoundNs, *top.RoundedNs, top.LPUncappedNs, rep.UncappedNs)
			}
			fr, err := tc.sc.RunFrontier(context.Background(), FrontierConfig{Machine: m, Graph: tc.g, Points: 3})
			if err != nil {
				t.Fatal(err)
			}
			if fr.FastestNs != rep.UncappedNs || fr.Points[0].DeadlineNs != rep.UncappedNs || !(fr.Points[2].EnergyJ <= fr.Points[0].EnergyJ) {
				t.Errorf("frontier: fastest %d ns, points %+v; uncapped %d ns", fr.FastestNs, fr.Points, rep.UncappedNs)
			}
		})
	}
}
