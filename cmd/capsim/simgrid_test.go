package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/capsim/capsim/scenarios"
)

// TestReplaySimGrid replays the SimGrid time-independent trace that ships
// in examples/ as a new user would, on the network equivalent to the
// platform it was recorded for, and compares with SimGrid's own replay of
// the same run (5.060 ms, traces/simgrid/testdata/makespans.txt).
func TestReplaySimGrid(t *testing.T) {
	const net = "loggp:L=10000,o=0,g=0,G=1,O=0,S=1099511627776"
	code, out, stderr := capsim(t, "replay", "../../examples/traces/ti.txt", "--net", net, "--json",
		"--coll", "barrier=dissemination,bcast=binomial,reduce=binomial,allreduce=recdoub,gather=linear,scatter=linear")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r scenarios.ReplayReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Ranks) != 16 || math.Abs(float64(r.MakespanNs)/5.060e6-1) > 0.01 {
		t.Errorf("%d ranks, makespan %d ns; want 16 and SimGrid's 5.060 ms ± 1 %%", len(r.Ranks), r.MakespanNs)
	}
	// At twice the recorded speed every rank computes half as long.
	_, out2, _ := capsim(t, "replay", "../../examples/traces/ti.txt", "--net", net, "--json", "--speed", "2e9")
	var r2 scenarios.ReplayReport
	if err := json.Unmarshal([]byte(out2), &r2); err != nil {
		t.Fatal(err)
	}
	if r2.Ranks[1].ComputeNs*2 != r.Ranks[1].ComputeNs {
		t.Errorf("rank 1 computes %d ns at 2 Gflop/s, %d ns at 1 Gflop/s", r2.Ranks[1].ComputeNs, r.Ranks[1].ComputeNs)
	}
	code, _, stderr = capsim(t, "replay", "../../examples/traces/ti.txt", "--speed", "-1")
	if code == 0 || !strings.Contains(stderr, "host speed") {
		t.Errorf("--speed -1: exit %d, %q", code, stderr)
	}
}
