package scenarios

import (
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/conductor"
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
