package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
)

// epochTrace is a 2-rank liballprof trace with epoch-µs timestamps whose
// ranks ran 24.5 µs and 18 µs from MPI_Init to MPI_Finalize.
var epochTrace = filepath.Join("..", "..", "traces", "liballprof", "testdata", "epoch")

func TestReplayShowsRecordedRun(t *testing.T) {
	code, out, stderr := capsim(t, "replay", epochTrace)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "recorded 0.0245 ms, predicted ") || strings.Contains(out, "note:") {
		t.Errorf("replay output lacks the recorded run or has a gap note:\n%s", out)
	}
	code, out, stderr = capsim(t, "replay", epochTrace, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		MakespanNs int64   `json:"makespan_ns"`
		RecordedNs int64   `json:"recorded_ns"`
		Ratio      float64 `json:"predicted_over_recorded"`
		Ranks      []struct {
			RecordedNs int64 `json:"recorded_ns"`
		} `json:"ranks"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.RecordedNs != 24500 || fmt.Sprint(r.Ranks) != "[{24500} {18000}]" || r.Ratio != float64(r.MakespanNs)/24500 {
		t.Errorf("recorded %d ns, ranks %v, ratio %g", r.RecordedNs, r.Ranks, r.Ratio)
	}
}

// TestReplayWithoutRecordedRun: traces without timestamps say nothing of
// a recorded run, in text or JSON.
func TestReplayWithoutRecordedRun(t *testing.T) {
	for _, args := range [][]string{{"replay", goalPingPong(t)}, {"replay", goalPingPong(t), "--json"}} {
		code, out, stderr := capsim(t, args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if strings.Contains(out, "recorded") || strings.Contains(out, "gap") {
			t.Errorf("%v mentions a recorded run:\n%s", args, out)
		}
	}
}

// TestReplayKeepGaps replays a Score-P trace whose recording was
// switched off for most of the run: by default the gaps are left out and
// noted, with --keep-gaps they are compute and the prediction longer.
func TestReplayKeepGaps(t *testing.T) {
	anchor := filepath.Join(testenv.Shared(t, "traces/otf2"), "tracer-stencil4d-64", "traces.otf2")
	makespan := func(args ...string) (int64, string) {
		code, out, stderr := capsim(t, append([]string{"replay", anchor, "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var r struct {
			MakespanNs int64 `json:"makespan_ns"`
			Gaps       struct {
				Note string `json:"note"`
			} `json:"measurement_gaps"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r.MakespanNs, r.Gaps.Note
	}
	dropped, note := makespan()
	kept, keptNote := makespan("--keep-gaps")
	if !(kept > dropped) || !strings.HasPrefix(note, "dropped 55.2 ms") || !strings.HasPrefix(keptNote, "kept as compute 55.2 ms") {
		t.Errorf("makespan %d ns dropped (%q), %d ns kept (%q)", dropped, note, kept, keptNote)
	}
}

// goalPingPong writes a 2-rank GOAL schedule (no timestamps).
func goalPingPong(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pp.goal")
	if err := os.WriteFile(p, []byte("num_ranks 2\nrank 0 {\nl1: calc 1000\nl2: send 8b to 1 tag 0\nl2 requires l1\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestInspect runs capsim inspect on traces with and without a recorded
// run (package inspect's tests hold the summaries' golden outputs).
func TestInspect(t *testing.T) {
	code, out, stderr := capsim(t, "inspect", epochTrace, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Format   string `json:"format"`
		Ranks    int    `json:"ranks"`
		Recorded struct {
			JobNs int64 `json:"job_ns"`
		} `json:"recorded"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Format != "liballprof" || rep.Ranks != 2 || rep.Recorded.JobNs != 24500 {
		t.Errorf("inspect --json: %+v", rep)
	}
	code, out, _ = capsim(t, "inspect", goalPingPong(t))
	if code != 0 || !strings.Contains(out, "format    goal (graph level)") || strings.Contains(out, "recorded") {
		t.Errorf("inspect of a GOAL schedule: exit %d\n%s", code, out)
	}
	if code, _, stderr := capsim(t, "inspect"); code != 2 || !strings.Contains(stderr, "takes 1 argument") {
		t.Errorf("inspect without a trace: exit %d, %q", code, stderr)
	}
}
