package power

import (
	"math"
	"testing"

	"github.com/capsim/capsim/traces/graph"
)

// A rank whose second operation runs on its GPU: the GPU draws its task's
// power while it runs and its idle power otherwise, apart from the core,
// and the per-node accounting adds each node's units to its base power.
func TestDeviceUnitsAndNodeCap(t *testing.T) {
	g := &graph.Graph{RankStart: []int32{0, 2, 2}, Kind: []graph.OpKind{graph.Calc, graph.Calc}}
	a := NewAccountant(g)
	a.OnDevice(2, func(op int32) bool { return op == 1 })
	a.Busy(0, 0, 10) // host task, 10 W
	a.Busy(1, 0, 20) // GPU kernel, 300 W
	m := JobModel{IdleW: 1, ActiveW: []float64{10, 10}, OpW: []float64{10, 300}, DeviceIdleW: []float64{50, 50}}
	rep, err := a.Report(m, 30, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Host of rank 0: 10 W throughout (its task, then its wait at the task's
	// power); its GPU 300 W for 20 ns, 50 W for 10; rank 1: 1 W and 50 W.
	want := (10*30 + 300*20 + 50*10 + 1*30 + 50*30) * 1e-9
	if math.Abs(rep.EnergyJ-want) > 1e-15 {
		t.Fatalf("energy %g J, want %g J", rep.EnergyJ, want)
	}
	if wantIdle := (2*1 + 50 + 50) * 30e-9; math.Abs(rep.IdleJ-wantIdle) > 1e-15 {
		t.Fatalf("idle energy %g J, want %g J", rep.IdleJ, wantIdle)
	}
	if rep.PeakW != 10+300+1+50 {
		t.Fatalf("peak %g W, want 361", rep.PeakW)
	}
	if sp := a.Spans(); len(sp) != 2 || sp[0].Rank != 0 || sp[0].Device || sp[1].Rank != 0 || !sp[1].Device {
		t.Fatalf("spans %+v: want rank 0's core, then rank 0's device", sp)
	}
	nodeOf := func(u int) int { return u % 2 } // rank r and its GPU (unit 2+r) on node r
	nc, err := a.NodeCap(m, 30, NodeLayout{Nodes: 2, NodeOf: nodeOf, BaseW: 5}, 100)
	if err != nil {
		t.Fatal(err)
	}
	// Node 0: 5 + 10 + 300 = 315 W for 20 ns, then 5 + 10 + 50; node 1: 56 W.
	if nc.PeakW != 315 || nc.OverCapNs != 20 {
		t.Fatalf("node cap: %+v, want peak 315 W and 20 ns over 100 W", nc)
	}
	if nc, err = a.NodeCap(m, 30, NodeLayout{Nodes: 2, NodeOf: nodeOf, BaseW: 5}, 320); err != nil || nc.OverCapNs != 0 {
		t.Fatalf("node cap 320 W: %+v, %v; want never over", nc, err)
	}
	if _, err := a.NodeCap(m, 30, NodeLayout{Nodes: 1, NodeOf: nodeOf, BaseW: 5}, 100); err == nil {
		t.Fatal("a unit on a node past the count: no error")
	}
	if err := (JobModel{ActiveW: []float64{1}, DeviceIdleW: []float64{math.NaN()}}).Validate(1); err == nil {
		t.Fatal("a NaN device idle power: no error")
	}
}
