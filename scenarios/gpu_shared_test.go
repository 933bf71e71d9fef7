package scenarios

import (
	"math"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
)

// The shared PyTorch step (Chakra) replicated to two GPUs of one node: the
// LP where the cap does not bind is the uncapped replay within 0.5 %, and
// at every node cap static stays within the cap and above the bound.
func TestGPUSharedPyTorchTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the LP of 7,328 operations")
	}
	trace := testenv.Shared(t, "traces/chakra/pytorch-kineto-1rank/chakra.0.et")
	text := gpuScenario(gpuMachine, "")
	text = strings.Replace(text, "generator = \"stencil2d\"", "trace = \""+trace+"\"\nreplicate = 2", 1)
	text = strings.Replace(text, "L_ns = 0\no_ns = 0\ng_ns = 0\nG_ns_per_byte = 0", "L_ns = 5000\no_ns = 1000\ng_ns = 100\nG_ns_per_byte = \"50GB/s\"", 1)
	sc := parseGPU(t, text+"[sweep]\ncaps_w = [600.0]\ncap_scope = \"node\"\npolicies = [\"static\"]\n")
	m := &sc.Machines[0]
	tr, g, err := sc.build(nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr != nil || g.NumRanks() != 2 || !g.Causal {
		t.Fatalf("workload: MPI trace %v, %d ranks, causal %v; want a causal graph of 2 ranks", tr != nil, g.NumRanks(), g.Causal)
	}
	net := sc.Net()
	un, err := sc.Replay(g, m, net, "uncapped", 0)
	if err != nil {
		t.Fatal(err)
	}
	T := float64(un.MakespanNs) * 1e-9
	if min := (40 + 2*1.0 + 2*50) * T; !(un.EnergyJ > min) {
		t.Fatalf("uncapped energy %g J, not above the idle floor %g J", un.EnergyJ, min)
	}
	bd, err := sc.newGraphBounder(g, nil, m, net, 0)
	if err != nil {
		t.Fatal(err)
	}
	if bd.s == nil {
		t.Skip("no LP solver")
	}
	defer bd.close()
	top, err := bd.s.Solve(m.LPCap(1e6))
	if err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(top.Makespan*1e9-float64(un.MakespanNs)) / float64(un.MakespanNs); d > 0.005 {
		t.Fatalf("LP at an unbinding cap %.0f ns, the uncapped replay %d ns: %.2f %% apart", top.Makespan*1e9, un.MakespanNs, 100*d)
	}
	for _, capW := range []float64{560, 620, 700, 800} {
		met, err := sc.Replay(g, m, net, "static", capW)
		if err != nil {
			t.Fatal(err)
		}
		b, err := bd.s.Solve(bd.lpCap(capW))
		if err != nil || b == nil {
			t.Fatalf("%g W: LP %v, %v", capW, b, err)
		}
		if met.OverCapNs != 0 {
			t.Errorf("static at %g W per node: %d ns over the cap", capW, met.OverCapNs)
		}
		// The replay rounds every kernel's duration to the ns, the LP
		// does not: a few ns per thousand kernels on the critical path.
		if b.Makespan*1e9 > float64(met.MakespanNs)*(1+1e-6) {
			t.Errorf("%g W: LP bound %.0f ns above static's %d ns", capW, b.Makespan*1e9, met.MakespanNs)
		}
	}
}
