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
	sc := recordedScenario(t, epoch, "")
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
	if src.Recorded == nil || src.Recorded.JobNs != 24500 || len(src.Recorded.RankNs) != 2 || src.Recorded.Note != "" {
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
	if want := "<td>recorded run</td><td>0.0245 ms (longest rank, from MPI_Init&#39;s return to MPI_Finalize&#39;s entry)</td>"; !strings.Contains(string(page), want) {
		t.Errorf("report lacks %q", want)
	}
}

func TestKeepGapsNeedsATrace(t *testing.T) {
	text := strings.Replace(string(Default()), `generator = "stencil2d"`, "generator = \"stencil2d\"\nkeep_gaps = true", 1)
	if _, err := Parse("g.toml", []byte(text)); err == nil || !strings.Contains(err.Error(), "workload.keep_gaps: applies to workload.trace") {
		t.Errorf("keep_gaps with a generator: %v", err)
	}
}
