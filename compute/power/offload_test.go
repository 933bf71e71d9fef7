package power

import (
	"math"
	"testing"

	"github.com/capsim/capsim/traces/graph"
)

// TestOffloadedWait: a rank runs a 1 s task on a device (60 W) and then
// waits 3 s. Under WaitTask the wait draws the core's power in the task's
// configuration (OpWaitW, 15 W), not the device's: 60 + 3·15 = 105 J;
// without OpWaitW the device's 60 W would run on (240 J). WaitIdle and
// WaitFixed ignore OpWaitW.
func TestOffloadedWait(t *testing.T) {
	b := graph.NewBuilder(1)
	b.Add(0, graph.CalcOp(1))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	const s = int64(1e9)
	for _, tc := range []struct {
		name  string
		wait  WaitPower
		waitW []float64
		want  float64
	}{
		{"task, offloaded", WaitPower{}, []float64{15}, 60 + 3*15},
		{"task, on the core", WaitPower{}, nil, 60 + 3*60},
		{"idle", WaitPower{Mode: WaitIdle}, []float64{15}, 60 + 3*2},
		{"fixed", WaitPower{Mode: WaitFixed, Watts: 7}, []float64{15}, 60 + 3*7},
	} {
		a := NewAccountant(g)
		a.Busy(0, 0, s)
		rep, err := a.Report(JobModel{IdleW: 2, ActiveW: []float64{15}, OpW: []float64{60}, OpWaitW: tc.waitW, Wait: tc.wait}, 4*s, 0)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(rep.EnergyJ-tc.want) > 1e-9 {
			t.Errorf("%s: %g J, want %g J", tc.name, rep.EnergyJ, tc.want)
		}
	}
}
