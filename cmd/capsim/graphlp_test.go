package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/scenarios"
)

// graphLPGOAL is a two-rank GOAL step: each rank computes, exchanges a
// message with the other and computes again, rank 1 twice as long.
const graphLPGOAL = `num_ranks 2
rank 0 {
l1: calc 2000000
l2: send 4096b to 1 tag 1
l3: recv 4096b from 1 tag 1
l4: calc 1000000
l2 requires l1
l3 requires l1
l4 requires l3
l4 requires l2
}
rank 1 {
l1: calc 4000000
l2: send 4096b to 0 tag 1
l3: recv 4096b from 0 tag 1
l4: calc 2000000
l2 requires l1
l3 requires l1
l4 requires l3
l4 requires l2
}
`

// graphLPScenario is a one-node, two-rank machine with three P-states,
// its workload graphLPGOAL.
const graphLPScenario = `name = "g"
[[machine]]
name = "m"
nodes = 1
cores_per_socket = 2
ranks_per_node = 2
idle_power_w = 20.0
core_idle_power_w = 2.0
[[machine.pstate]]
freq_ghz = 2.6
active_power_w = 30.0
[[machine.pstate]]
freq_ghz = 2.0
active_power_w = 18.0
[[machine.pstate]]
freq_ghz = 1.4
active_power_w = 10.0
[network]
L_ns = 2000
o_ns = 500
[workload]
trace = "step.goal"
`

// capsim bound, frontier and policy lp|min-energy take a GOAL file: the
// bound is at most every replay within the cap, the lp replay never over
// it, there is no Conductor baseline, and where the cap does not bind
// the bound, lp and the frontier's fastest schedule are the uncapped
// replay.
func TestGraphLPCommands(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	dir := t.TempDir()
	goal, sc := filepath.Join(dir, "step.goal"), filepath.Join(dir, "g.toml")
	if err := os.WriteFile(goal, []byte(graphLPGOAL), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sc, []byte(graphLPScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := capsim(t, "bound", goal, "--scenario", sc, "--caps", "50:80:10", "--json")
	if code != 0 {
		t.Fatalf("bound: exit %d: %s", code, stderr)
	}
	var rows []scenarios.BoundRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.ConductorNs != nil || r.RoundedOverCap != 0 || *r.RoundedNs < r.BoundNs || r.StaticOverCap == 0 && r.StaticNs < r.BoundNs {
			t.Errorf("%g W: bound %d, lp %d (%d ns over), static %d (%d ns over), conductor %v", r.CapW, r.BoundNs, *r.RoundedNs, r.RoundedOverCap, r.StaticNs, r.StaticOverCap, r.ConductorNs)
		}
	}
	top := rows[len(rows)-1]
	if top.BoundNs != top.UncappedNs || *top.RoundedNs != top.UncappedNs {
		t.Errorf("at %g W, which does not bind: bound %d, lp %d, uncapped %d ns", top.CapW, top.BoundNs, *top.RoundedNs, top.UncappedNs)
	}
	if code, out, stderr = capsim(t, "bound", goal, "--scenario", sc, "--cap", "60"); code != 0 || !strings.Contains(out, "–") {
		t.Errorf("bound table: exit %d, %s%s", code, out, stderr)
	}
	code, out, stderr = capsim(t, "frontier", goal, "--scenario", sc, "--json", "--points", "3")
	var fr scenarios.FrontierReport
	if code != 0 || json.Unmarshal([]byte(out), &fr) != nil || fr.FastestNs != top.UncappedNs || fr.Ranks != 2 {
		t.Errorf("frontier: exit %d, %s%s; want its fastest %d ns", code, out, stderr, top.UncappedNs)
	}
	for _, pol := range []string{"lp", "min-energy"} {
		code, out, stderr = capsim(t, "policy", pol, goal, "--scenario", sc, "--cap", "60", "--json")
		var rep scenarios.PolicyReport
		if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
			t.Fatalf("policy %s: exit %d, %s%s", pol, code, out, stderr)
		}
		if rep.Result.OverCapNs != 0 || rep.Result.MakespanNs < rep.LP.BoundNs || rep.LP.BoundNs != rows[1].BoundNs {
			t.Errorf("policy %s at 60 W: %+v, bound %d ns; capsim bound's %d ns", pol, rep.Result, rep.LP.BoundNs, rows[1].BoundNs)
		}
	}
}
