package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/scenarios"
)

// TestReplayLiballprof replays a liballprof trace given as its folder, as
// its rank-0 file and after `capsim import trace`: every host finishes
// when LogGOPSim says after schedgen (traces/liballprof/testdata/loggopsim.times,
// bcast3: 11000, 13566, 15066 ns).
func TestReplayLiballprof(t *testing.T) {
	dir := testenv.Shared(t, "traces/liballprof/bcast3")
	out := filepath.Join(t.TempDir(), "bcast3.arrow")
	code, stdout, stderr := capsim(t, "import", "trace", dir, "-o", out)
	if code != 0 {
		t.Fatalf("import: %s", stderr)
	}
	const coll = "barrier=schedgen,bcast=schedgen,reduce=schedgen,allreduce=schedgen,allgather=schedgen,alltoall=schedgen"
	if !strings.Contains(stdout, "--coll '"+coll+"'") {
		t.Errorf("import does not say which collectives to replay with: %q", stdout)
	}
	for _, trace := range []string{dir, filepath.Join(dir, "trace_bcast-0.dat"), out} {
		args := []string{"replay", trace, "--json"}
		if trace == out {
			args = append(args, "--coll", coll)
		}
		code, stdout, stderr := capsim(t, args...)
		if code != 0 {
			t.Fatalf("%s: %s", trace, stderr)
		}
		var r scenarios.ReplayReport
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatal(err)
		}
		want := []int64{11000, 13566, 15066}
		if len(r.Ranks) != len(want) {
			t.Fatalf("%s: %d ranks", trace, len(r.Ranks))
		}
		for i, w := range want {
			if r.Ranks[i].FinishNs != w {
				t.Errorf("%s host %d: %d ns, LogGOPSim %d ns", trace, i, r.Ranks[i].FinishNs, w)
			}
		}
	}
}
