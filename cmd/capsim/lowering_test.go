package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestBoundLowersAsReplay: the LP of a liballprof trace is built from the
// program its replays run, the collectives lowered with the format's own
// algorithms (schedgen's): the LP's uncapped makespan is the uncapped
// replay's to the nanosecond. The LP lowered them with capsim's defaults
// instead, and its "bound" (1,577,950 ns on colls) exceeded the replay it
// bounds (1,522,810 ns).
func TestBoundLowersAsReplay(t *testing.T) {
	for _, name := range []string{"colls", "epoch"} {
		t.Run(name, func(t *testing.T) {
			code, out, stderr := capsim(t, "bound", "--cap", "300", "--json", filepath.Join("..", "..", "traces", "liballprof", "testdata", name))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var rep struct {
				UncappedNs   int64 `json:"uncapped_ns"`
				LPUncappedNs int64 `json:"lp_uncapped_ns"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.UncappedNs == 0 || rep.LPUncappedNs != rep.UncappedNs {
				t.Errorf("LP's uncapped makespan %d ns, the uncapped replay %d ns: want equal", rep.LPUncappedNs, rep.UncappedNs)
			}
		})
	}
}

// TestBoundTraceRecordedConfig: bound of a trace given on the command
// line says its recording frequency is assumed; it said the times were a
// generator's (the embedded scenario's workload, which the trace
// replaces), with "assumed": false.
func TestBoundTraceRecordedConfig(t *testing.T) {
	code, out, stderr := capsim(t, "bound", "--cap", "300", "--json", filepath.Join("..", "..", "traces", "liballprof", "testdata", "epoch"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Recorded struct {
			Assumed bool   `json:"assumed"`
			Source  string `json:"source"`
		} `json:"recorded_config"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Recorded.Assumed || strings.Contains(rep.Recorded.Source, "generator") {
		t.Errorf("recorded_config %+v, want assumed and no generator", rep.Recorded)
	}
}
