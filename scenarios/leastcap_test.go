package scenarios

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
)

// A cap above the idle floor but below what the LP can run the job at
// leaves the lp and min-energy points without a schedule: the sweep's
// summary and the report name the least cap that has one: the socket's
// 45 W and both cores at the slowest P-state (6.8 W each, the cores' idle
// power included), 58.6 W, as capsim bound computes it.
func TestNoScheduleNamesLeastCap(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	sc, out := degenerateScenario(t, "0 init\n1 init\n0 compute 1e6\n1 compute 2e6\n0 finalize\n1 finalize\n", `"lp", "min-energy", "static"`)
	b := strings.Replace(string(sc.Text), "caps_w = [300]", "caps_w = [50, 55, 300]", 1)
	path := filepath.Join(filepath.Dir(out), "s.toml")
	if err := os.WriteFile(path, []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), sc, Replayer{}, RunOptions{OutDir: out, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"machine m, policy lp: no schedule at 50, 55 W: the least feasible cap is 58.6 W",
		"machine m, policy min-energy: no schedule at 50, 55 W: the least feasible cap is 58.6 W",
	}
	if strings.Join(sum.NoSchedule, "\n") != strings.Join(want, "\n") {
		t.Errorf("NoSchedule %q, want %q", sum.NoSchedule, want)
	}
	files, err := WriteReport(out, ReportOptions{NoDetail: true})
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(files.Page)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"m lp at 50, 55 W (least feasible cap 58.6 W)", "lp: no schedule at this cap (its least feasible cap: 58.6 W)"} {
		if !strings.Contains(string(page), w) {
			t.Errorf("the report does not say %q", w)
		}
	}
}

// The report's default point in detail is one with a schedule: the median
// cap of the default policy whose row has one, or none, with a note, where
// no point has one. Its detail failed the report ("detail: the LP has no
// schedule at 55 W") and wrote nothing.
func TestReportDetailsAScheduledPoint(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	for _, tc := range []struct{ caps, want string }{
		{"[50, 55, 300]", "One point in detail: machine m, policy lp, cap 300 W"},
		{"[50, 55]", "No point in detail"},
	} {
		sc, out := degenerateScenario(t, "0 init\n1 init\n0 compute 1e6\n1 compute 2e6\n0 finalize\n1 finalize\n", `"lp"`)
		path := filepath.Join(filepath.Dir(out), "s.toml")
		if err := os.WriteFile(path, []byte(strings.Replace(string(sc.Text), "caps_w = [300]", "caps_w = "+tc.caps, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		sc, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		sweepInto(t, sc, out)
		files, err := WriteReport(out, ReportOptions{})
		if err != nil {
			t.Fatalf("caps %s: %v", tc.caps, err)
		}
		page, err := os.ReadFile(files.Page)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(page), tc.want) {
			t.Errorf("caps %s: the report does not say %q", tc.caps, tc.want)
		}
	}
}

// capsim bound's caps stopped by their context (Ctrl-C) name the cap the
// user gave, not the LP's task-power cap (the cap less the idle floor).
func TestBoundStoppedNamesCap(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := sc.RunBound(ctx, BoundConfig{CapsW: []float64{290, 300}, Machine: &sc.Machines[0]})
	if err != nil {
		t.Fatal(err)
	}
	var st *StoppedError
	if !errors.As(rep.Stopped, &st) || st.Error() != "stopped while computing cap 290 W (the caps before it are printed)" {
		t.Errorf("stopped: %v, want it at cap 290 W", rep.Stopped)
	}
	if !errors.Is(rep.Stopped, context.Canceled) {
		t.Errorf("stopped: %v does not wrap context.Canceled", rep.Stopped)
	}
}
