package main

import (
	"encoding/json"
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
	// Rank 1 returned from MPI_Init 1 µs after rank 0: the only note.
	if !strings.Contains(out, "recorded 0.0245 ms, predicted ") || strings.Contains(out, "gaps") ||
		!strings.Contains(out, "note: each rank started where the recorded run started it, up to 0.001 ms after the first") {
		t.Errorf("replay output lacks the recorded run or its starts, or has a gap note:\n%s", out)
	}
	code, out, stderr = capsim(t, "replay", epochTrace, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		MakespanNs  int64   `json:"makespan_ns"`
		RecordedNs  int64   `json:"recorded_ns"`
		PredictedNs int64   `json:"predicted_ns"`
		Ratio       float64 `json:"predicted_over_recorded"`
		Ranks       []struct {
			FinishNs   int64 `json:"finish_ns"`
			RecordedNs int64 `json:"recorded_ns"`
			StartNs    int64 `json:"start_ns"`
		} `json:"ranks"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Ranks) != 2 || r.RecordedNs != 24500 || r.Ranks[0].RecordedNs != 24500 || r.Ranks[1].RecordedNs != 18000 || r.Ranks[1].StartNs != 1000 ||
		r.PredictedNs != max(r.Ranks[0].FinishNs, r.Ranks[1].FinishNs-1000) || r.Ratio != float64(r.PredictedNs)/24500 {
		t.Errorf("recorded %d ns, predicted %d ns, ranks %+v, ratio %g", r.RecordedNs, r.PredictedNs, r.Ranks, r.Ratio)
	}
}

// TestReplayRecordedStarts replays d2g-alltoall4, whose rank 2 returned
// from MPI_Init 7.46 ms before the others and waited for them in its
// first collective: started where the recorded run started them, the
// ranks replay the recorded 10.92 ms within 0.2 %; started together, the
// replay misses that wait (0.64 of it).
func TestReplayRecordedStarts(t *testing.T) {
	trace := filepath.Join(testenv.Shared(t, "traces/dumpi"), "d2g-alltoall4")
	for _, tc := range []struct {
		args       []string
		lo, hi     float64
		aligned    bool
		spreadNote string
	}{
		{nil, 0.998, 1.002, false, "each rank started where the recorded run started it, up to 7.46 ms after the first (--align-starts: all at 0)"},
		{[]string{"--align-starts"}, 0.64, 0.65, true, "every rank started at 0, though the recorded run started them up to 7.46 ms apart"},
	} {
		code, out, stderr := capsim(t, append([]string{"replay", trace, "--json"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		var r struct {
			Ratio  float64 `json:"predicted_over_recorded"`
			Starts struct {
				SpreadNs int64  `json:"recorded_spread_ns"`
				Aligned  bool   `json:"aligned"`
				Note     string `json:"note"`
			} `json:"starts"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.Ratio < tc.lo || r.Ratio > tc.hi || r.Starts.SpreadNs != 7456434 || r.Starts.Aligned != tc.aligned || r.Starts.Note != tc.spreadNote {
			t.Errorf("%v: ratio %.4f (want %g..%g), starts %+v", tc.args, r.Ratio, tc.lo, tc.hi, r.Starts)
		}
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
