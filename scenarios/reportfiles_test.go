package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/scenarios/results"
)

const pingPong = "0 init\n1 init\n0 send 1 0 1000\n1 recv 0 0 1000\n0 finalize\n1 finalize\n"

// A report's detail replays the scenario's trace as it is now: after the
// trace was re-recorded it would sit beside a table of the old one, so
// the report refuses, naming the file; without the detail it is written.
func TestReportDetailRefusesChangedTrace(t *testing.T) {
	sc, out := degenerateScenario(t, pingPong, `"uncapped", "static"`)
	sweepInto(t, sc, out)
	if _, err := WriteReport(out, ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(filepath.Dir(sc.File), "t.txt")
	if err := os.WriteFile(trace, []byte(strings.Replace(pingPong, "1000", "9000", 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := WriteReport(out, ReportOptions{})
	if !errors.Is(err, results.ErrMismatch) || !strings.Contains(err.Error(), "workload.trace "+trace+" changed") {
		t.Fatalf("report after the trace changed: err = %v, want ErrMismatch naming %s", err, trace)
	}
	if _, err := WriteReport(out, ReportOptions{NoDetail: true}); err != nil {
		t.Errorf("report without detail: %v", err)
	}
}

// --restart removes the previous run's report page and figures (those its
// reports listed in the manifest) and nothing else: a file a user put in
// figures/ stays.
func TestRestartRemovesReport(t *testing.T) {
	sc, out := degenerateScenario(t, pingPong, `"uncapped", "static"`)
	sweepInto(t, sc, out)
	files, err := WriteReport(out, ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if files.Count == 0 {
		t.Fatal("the report wrote no figures: the test would not test removing them")
	}
	mine := filepath.Join(files.Figures, "my-notes.txt")
	if err := os.WriteFile(mine, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(t.Context(), sc, Replayer{}, RunOptions{OutDir: out, Workers: 1, Restart: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(files.Page); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("report.html after --restart: %v", err)
	}
	ents, _ := os.ReadDir(files.Figures)
	if len(ents) != 1 || ents[0].Name() != "my-notes.txt" {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("figures/ after --restart holds %v, want only my-notes.txt", names)
	}
	if _, err := os.Stat(filepath.Join(out, results.CSVFile)); err != nil {
		t.Errorf("the new run's table: %v", err)
	}
}
