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

// A sweep over a liballprof trace that deadlocks inside a barrier names
// the MPI calls, relowered with the algorithms the replay used (the
// format's schedgen algorithms, not only the scenario's), so that each
// stuck operation maps to its own call.
func TestSweepDeadlockLiballprof(t *testing.T) {
	sc, out := degenerateScenario(t, "", `"uncapped"`)
	dir := filepath.Dir(sc.File)
	hdr := "# collprof 0.9 output file\n# Init clockdiff: 0.000000\n\nMPI_Init:-:1:2:1.0\n"
	end := "# Finalize clockdiff: 0.000000\nMPI_Finalize:9.0:-\n"
	writeFiles(t, dir, map[string]string{
		"dl-0.dat": hdr + "MPI_Bcast:1.5:5648928:70000:13,1,1:0:0,0,3:1.8\nMPI_Recv:2.0:5648928:10:10,1,1:1:7:0,0,3:140737488340112:3.0\nMPI_Barrier:4.0:0,0,3:5.0\n" + end,
		"dl-1.dat": hdr + "MPI_Bcast:1.5:5648928:70000:13,1,1:0:0,1,3:1.8\nMPI_Barrier:2.0:0,1,3:3.0\nMPI_Send:4.0:5648928:10:10,1,1:0:7:0,1,3:5.0\n" + end,
		"dl-2.dat": hdr + "MPI_Bcast:1.5:5648928:70000:13,1,1:0:0,2,3:1.8\nMPI_Barrier:2.0:0,2,3:3.0\n" + end,
	})
	text := strings.NewReplacer(`trace = "t.txt"`, `trace = "dl-0.dat"`, "cores_per_socket = 2", "cores_per_socket = 3", "ranks_per_node = 2", "ranks_per_node = 3").Replace(string(sc.Text))
	sc, err := Parse(sc.File, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(t.Context(), sc, Replayer{}, RunOptions{OutDir: out, Workers: 1})
	if err == nil {
		t.Fatal("a deadlocked trace swept")
	}
	// schedgen's barrier (the replay's) sends 1-byte messages, the
	// default's 0-byte ones.
	// The sweep names its scenario and trace ("machine pal, policy
	// uncapped" alone named neither).
	for _, want := range []string{sc.File + ": workload.trace dl-0.dat, machine ", "rank 0: MPI_Recv 10 bytes from 1 tag 7", "rank 1: MPI_Barrier 0 bytes on comm world", "collective call #2 on comm 0 of rank 1",
		"lowered to rank 1 l5: recv 1b from 0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// A report of results whose model file was edited since describes the
// scenario as the sweep recorded it (the model file's recording
// frequency then), says that the inputs changed and leaves out what it
// would compute from the current inputs (the energy–time frontier); a
// report with the points in detail is refused, naming the model file.
func TestReportNoDetailChangedModel(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.json")
	write := func(ghz string) {
		t.Helper()
		text := `{"format": "capsim-compute-model", "version": 1, "recorded": {"cpu_ghz": ` + ghz + `, "threads": 1},
 "default": {"kind": "dvfs", "params": {"beta": 0.7, "ref_ghz": ` + ghz + `}}}`
		if err := os.WriteFile(model, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("2.2")
	text := strings.Replace(string(Default()), "memory_boundness = 0.3", `file = "m.json"`, 1)
	text = strings.Replace(text, "iterations = 20", "iterations = 3", 1)
	text = strings.Replace(text, `caps = "290:380:10"`, `caps = "320:340:20"`, 1)
	text = strings.Replace(text, `policies = ["uncapped", "static", "conductor", "lp"]`, `policies = ["uncapped", "static"]`, 1)
	path := filepath.Join(dir, "s.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	sweepInto(t, sc, out)
	page := func() string {
		t.Helper()
		files, err := WriteReport(out, ReportOptions{NoDetail: true})
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(files.Page)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	before := page()
	if !strings.Contains(before, "measured at 2.2 GHz") || strings.Contains(before, "inputs changed") || !strings.Contains(before, "Energy–time frontier") {
		t.Fatalf("report of unchanged inputs: recorded at 2.2 GHz %v, marked changed %v, frontier %v",
			strings.Contains(before, "measured at 2.2 GHz"), strings.Contains(before, "inputs changed"), strings.Contains(before, "Energy–time frontier"))
	}
	write("1.35")
	after := page()
	for _, want := range []string{"measured at 2.2 GHz", "inputs changed", "models.file " + model + " changed"} {
		if !strings.Contains(after, want) {
			t.Errorf("report after the model file changed lacks %q", want)
		}
	}
	for _, bad := range []string{"1.35 GHz", "Energy–time frontier"} {
		if strings.Contains(after, bad) {
			i := strings.Index(after, bad)
			t.Errorf("report after the model file changed shows %q: %s", bad, after[max(0, i-300):i+50])
		}
	}
	if _, err := WriteReport(out, ReportOptions{}); !errors.Is(err, results.ErrMismatch) || !strings.Contains(err.Error(), "models.file "+model+" changed") {
		t.Errorf("report with detail after the model file changed: %v, want ErrMismatch naming it", err)
	}
}

// A report of a folder without scenario.json refuses a point in detail
// (it replays the scenario; the page left the point out with exit 0),
// and a page without one says what it lacks.
func TestReportWithoutScenario(t *testing.T) {
	sc, out := degenerateScenario(t, "0 init\n1 init\n0 compute 1000\n1 compute 2000\n0 finalize\n1 finalize\n", `"uncapped", "static"`)
	if _, err := Run(t.Context(), sc, Replayer{}, RunOptions{OutDir: out, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(out, SourceFile)); err != nil {
		t.Fatal(err)
	}
	_, err := WriteReport(out, ReportOptions{Detail: []Pick{{Policy: "static"}}})
	if err == nil || !strings.Contains(err.Error(), "holds no scenario.json") || !strings.Contains(err.Error(), "--scenario") {
		t.Errorf("--detail without a scenario: %v", err)
	}
	if _, err := WriteReport(out, ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil || !strings.Contains(string(page), "holds no scenario.json, so this page has no description of the scenario") {
		t.Errorf("the page does not say it lacks the scenario (%v)", err)
	}
}

// A comparison of two folders is of one workload: folders of two traces
// (compared point by point as if one workload ran on two machines) and a
// folder with itself are refused.
func TestCompareOtherTraceRefused(t *testing.T) {
	sweep := func(trace string) string {
		sc, out := degenerateScenario(t, trace, `"uncapped", "static"`)
		if _, err := Run(t.Context(), sc, Replayer{}, RunOptions{OutDir: out, Workers: 1}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a := sweep("0 init\n1 init\n0 compute 1000\n1 compute 2000\n0 finalize\n1 finalize\n")
	b := sweep("0 init\n1 init\n0 compute 5000\n1 compute 2000\n0 finalize\n1 finalize\n")
	for _, tc := range []struct{ other, want string }{{b, "they swept other traces"}, {a, "they are one folder"}} {
		_, err := WriteReport(a, ReportOptions{Compare: tc.other, NoDetail: true})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("compare with %s: %v, want %q", tc.other, err, tc.want)
		}
	}
}

// Folders of two generated workloads (other compute times) were compared
// point by point as one workload on two machines; they are refused, and
// the same workload on another machine is still compared.
func TestCompareOtherGeneratedWorkloadRefused(t *testing.T) {
	dir := t.TempDir()
	sweep := func(name string, repl ...string) string {
		text := strings.NewReplacer(append([]string{"iterations = 20", "iterations = 2", `"290:380:10"`, `"300:340:40"`,
			`policies = ["uncapped", "static", "conductor", "lp"]`, `policies = ["uncapped", "static"]`}, repl...)...).Replace(string(Default()))
		file := filepath.Join(dir, name+".toml")
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		sc, err := Parse(file, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name)
		if _, err := Run(t.Context(), sc, Replayer{}, RunOptions{OutDir: out, Workers: 1}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a := sweep("a")
	b := sweep("b", "compute_ns = 2000000", "compute_ns = 1000")
	c := sweep("c", "active_power_w = 12.0", "active_power_w = 14.0")
	if _, err := WriteReport(a, ReportOptions{Compare: b, NoDetail: true}); err == nil ||
		!strings.Contains(err.Error(), "they swept other workloads") || !strings.Contains(err.Error(), "compute_ns=1000") {
		t.Errorf("compare with another workload: %v, want it refused naming compute_ns", err)
	}
	if _, err := WriteReport(a, ReportOptions{Compare: c, NoDetail: true}); err != nil {
		t.Errorf("compare with another machine: %v", err)
	}
}
