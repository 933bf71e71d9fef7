package scenarios

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// recordedScenario is the default scenario on the trace at path (one node of
// two ranks, one cap, the uncapped policy), with extra workload keys.
func recordedScenario(t *testing.T, path, extra string) *Scenario {
	t.Helper()
	text := string(Default())
	text = regexp.MustCompile(`(?s)\[workload\].*?\[models\]`).ReplaceAllString(text, "[workload]\ntrace = \""+path+"\"\n"+extra+"\n[models]")
	text = regexp.MustCompile(`nodes = \d+`).ReplaceAllString(text, "nodes = 1")
	text = regexp.MustCompile(`ranks_per_node = \d+`).ReplaceAllString(text, "ranks_per_node = 2")
	text = regexp.MustCompile(`caps = "[^"]*"`).ReplaceAllString(text, `caps = "300:300:10"`)
	text = regexp.MustCompile(`policies = \[[^\]]*\]`).ReplaceAllString(text, `policies = ["uncapped"]`)
	sc, err := Parse(filepath.Join(t.TempDir(), "s.toml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestSweepKeepsRecordedRun sweeps a trace with a recorded run: the
// sweep's scenario.json keeps it and the report's summary shows it; a
// generated workload's scenario.json has no such field (checked by the
// default sweep staying byte-identical).
func TestSweepKeepsRecordedRun(t *testing.T) {
	epoch, err := filepath.Abs(filepath.Join("..", "traces", "liballprof", "testdata", "epoch", "pmpi-trace-rank-0.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ extra, starts string }{
		{"", "each replayed from its recorded start"},
		{"align_starts = true", "replayed all from 0 (workload.align_starts)"},
	} {
		checkSweepRecorded(t, recordedScenario(t, epoch, tc.extra), tc.starts)
	}
}

// checkSweepRecorded sweeps sc over the epoch trace, whose rank 1
// returned from MPI_Init 1 µs after rank 0, and checks scenario.json and
// the report's recorded run line, which says how the ranks started.
func checkSweepRecorded(t *testing.T, sc *Scenario, starts string) {
	t.Helper()
	dir := t.TempDir()
	sweepInto(t, sc, dir)
	b, err := os.ReadFile(filepath.Join(dir, SourceFile))
	if err != nil {
		t.Fatal(err)
	}
	var src source
	if err := json.Unmarshal(b, &src); err != nil {
		t.Fatal(err)
	}
	if src.Recorded == nil || src.Recorded.JobNs != 24500 || len(src.Recorded.RankNs) != 2 || src.Recorded.Note != "" || src.Recorded.StartSpreadNs != 1000 {
		t.Errorf("scenario.json recorded %+v", src.Recorded)
	}
	files, err := WriteReport(dir, ReportOptions{NoDetail: true})
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(files.Page)
	if err != nil {
		t.Fatal(err)
	}
	if want := "<td>recorded run</td><td>0.0245 ms (longest rank, from MPI_Init&#39;s return to MPI_Finalize&#39;s entry); ranks started up to 0.001 ms apart, " + starts + "</td>"; !strings.Contains(string(page), want) {
		t.Errorf("report lacks %q", want)
	}
}

func TestKeepGapsNeedsATrace(t *testing.T) {
	for _, key := range []string{"keep_gaps", "align_starts"} {
		text := strings.Replace(string(Default()), `generator = "stencil2d"`, "generator = \"stencil2d\"\n"+key+" = true", 1)
		if _, err := Parse("g.toml", []byte(text)); err == nil || !strings.Contains(err.Error(), "workload."+key+": applies to workload.trace") {
			t.Errorf("%s with a generator: %v", key, err)
		}
	}
}
