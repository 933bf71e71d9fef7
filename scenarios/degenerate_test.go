package scenarios

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/scenarios/results"
)

// degenerateScenario is a two-rank machine replaying the SimGrid trace
// text in a temporary folder under the given policies, at a 300 W cap.
func degenerateScenario(t *testing.T, trace, policies string) (*Scenario, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.txt"), []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	text := `name = "degenerate"
[[machine]]
name = "m"
nodes = 1
sockets_per_node = 1
cores_per_socket = 2
ranks_per_node = 2
idle_power_w = 45.0
core_idle_power_w = 1.5
[[machine.pstate]]
freq_ghz = 2.1
active_power_w = 12.0
[[machine.pstate]]
freq_ghz = 1.4
active_power_w = 6.8
[workload]
trace = "t.txt"
[sweep]
caps_w = [300]
policies = [` + policies + `]
`
	path := filepath.Join(dir, "s.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return sc, filepath.Join(dir, "out")
}

// nanToken matches NaN written as a number, not the letters inside a
// word or a Go build ID ("devel build 3NaNXqi…", "…/x-NaN_y…": base64url,
// with - and _, in parts joined by /), which the results carry as
// provenance.
var nanToken = regexp.MustCompile(`(^|[^A-Za-z0-9+/_-])[-+]?NaN($|[^A-Za-z0-9+/=_-])`)

// A hello world (0 ns of work) sweeps and reports without NaN anywhere,
// its average power the idle floor its peak is (power.AvgW):
// the headline's runner-up is compared in the time unit where the best
// took 0 ns.
func TestDegenerateReportNumbers(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	sc, out := degenerateScenario(t, "0 init\n1 init\n0 finalize\n1 finalize\n", `"uncapped", "static", "lp"`)
	sweepInto(t, sc, out)
	files, err := WriteReport(out, ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A run of 0 ns has no average over time: it reports the power of its
	// one instant, the idle floor its peak is, in every row.
	csvText, err := os.ReadFile(filepath.Join(out, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(csvText)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, n := range rows[0] {
		col[n] = i
	}
	for _, r := range rows[1:] {
		if r[col["makespan_ns"]] != "0" || r[col["avg_power_w"]] != r[col["peak_power_w"]] || r[col["peak_power_w"]] != "48" {
			t.Errorf("%s: makespan %s ns, avg %s W, peak %s W: want 0 ns, avg = peak = the idle floor 48 W",
				r[col["policy"]], r[col["makespan_ns"]], r[col["avg_power_w"]], r[col["peak_power_w"]])
		}
	}
	for _, f := range []string{files.Page, filepath.Join(out, "results.csv"), filepath.Join(out, "points.jsonl")} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if loc := nanToken.FindIndex(b); loc != nil {
			i := loc[0]
			t.Errorf("%s has NaN: …%s…", filepath.Base(f), b[max(0, i-80):min(len(b), i+10)])
		}
	}
}

// TestReportWildcardTrace: a trace whose receives name no source sweeps
// (its replays resolve the wildcard) and reports; the page says why it
// has no energy–time frontier, naming the trace, where the report failed
// with the LP's error, naming no file.
func TestReportWildcardTrace(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	sc, out := degenerateScenario(t, "0 init\n1 init\n0 compute 1000000\n1 compute 2000000\n"+
		"1 send 0 2 64 0\n0 recv -333 2 64 0\n0 finalize\n1 finalize\n", `"uncapped", "static"`)
	sweepInto(t, sc, out)
	files, err := WriteReport(out, ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(files.Page)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"No frontier", "workload.trace t.txt", "MPI_ANY_SOURCE"} {
		if !strings.Contains(string(b), part) {
			t.Errorf("page lacks %q", part)
		}
	}
}

// TestReportOfRunningSweep: a report of a folder a sweep still holds is
// refused naming the run (it said "open results.arrow: no such file").
func TestReportOfRunningSweep(t *testing.T) {
	dir := t.TempDir()
	st, err := results.Open(dir, "fp", 1, results.Schema{{Name: "policy", Type: results.String}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := WriteReport(dir, ReportOptions{}); !errors.Is(err, results.ErrInUse) || !strings.Contains(err.Error(), dir) {
		t.Errorf("report of a held folder: %v, want ErrInUse naming it", err)
	}
}

// TestReportCommentedScenario: report --no-detail --scenario FILE, with
// FILE the sweep's scenario with a comment added, of results whose trace
// changed since, describes them and says which input changed, rather than
// refusing FILE as "not the scenario of the results": it says what the
// sweep's scenario says.
func TestReportCommentedScenario(t *testing.T) {
	sc, out := degenerateScenario(t, "0 init\n1 init\n0 compute 1000\n0 finalize\n1 finalize\n", `"uncapped", "static"`)
	sweepInto(t, sc, out)
	trace := filepath.Join(filepath.Dir(sc.File), "t.txt")
	if err := os.WriteFile(trace, []byte("0 init\n1 init\n0 compute 2000\n0 finalize\n1 finalize\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sc.File, append([]byte("# described later\n"), sc.Text...), 0o644); err != nil {
		t.Fatal(err)
	}
	commented, err := Load(sc.File)
	if err != nil {
		t.Fatal(err)
	}
	files, err := WriteReport(out, ReportOptions{Scenario: commented, NoDetail: true})
	if err != nil {
		t.Fatalf("report --scenario of the commented scenario: %v", err)
	}
	b, err := os.ReadFile(files.Page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "workload.trace "+trace+" changed") {
		t.Errorf("the page does not say that %s changed", trace)
	}
}

// TestReportOtherScenarioRefused: report --no-detail --scenario FILE of
// results swept from another scenario text described FILE's scenario
// beside their table, under a note that it described "the scenario as
// the sweep recorded it"; it is refused naming both, and the folder's own
// scenario.json reports it.
func TestReportOtherScenarioRefused(t *testing.T) {
	sc, out := degenerateScenario(t, "0 init\n1 init\n0 compute 1000\n0 finalize\n1 finalize\n", `"uncapped", "static"`)
	sweepInto(t, sc, out)
	other := filepath.Join(filepath.Dir(sc.File), "other.toml")
	if err := os.WriteFile(other, []byte(strings.Replace(string(sc.Text), "caps_w = [300]", "caps_w = [250]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	osc, err := Load(other)
	if err != nil {
		t.Fatal(err)
	}
	_, err = WriteReport(out, ReportOptions{Scenario: osc, NoDetail: true})
	if err == nil || !strings.Contains(err.Error(), "--scenario "+other+" is not the scenario") || !strings.Contains(err.Error(), sc.File) {
		t.Errorf("report of another scenario: %v", err)
	}
	if _, err := WriteReport(out, ReportOptions{Scenario: sc, NoDetail: true}); err != nil {
		t.Errorf("report of its own scenario: %v", err)
	}
	if _, err := WriteReport(out, ReportOptions{NoDetail: true}); err != nil {
		t.Errorf("report by scenario.json: %v", err)
	}
}

// TestReportOfNoResults: report of a folder without a results table says
// what the folder is: a sweep stopped before it wrote its table, or no
// results folder at all ("open results.arrow: no such file" before).
func TestReportOfNoResults(t *testing.T) {
	empty := t.TempDir()
	stopped := t.TempDir()
	st, err := results.Open(stopped, "fp", 2, results.Schema{{Name: "policy", Type: results.String}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(results.Row{Index: 0, Values: []any{"static"}}, 0); err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, tc := range []struct{ dir, want string }{
		{empty, "is not a results folder"},
		{stopped, "stopped before it finished: rerun it to resume"},
	} {
		if _, err := WriteReport(tc.dir, ReportOptions{}); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.dir) {
			t.Errorf("%s: err = %v, want %q", tc.dir, err, tc.want)
		}
	}
}

// TestReportPathsTaken: where the page's name is a folder, or the figures
// folder's a file, the report is refused before it writes anything (it
// wrote the figures, then failed on the page).
func TestReportPathsTaken(t *testing.T) {
	for _, taken := range []string{"report.html", "figures"} {
		sc, out := degenerateScenario(t, "0 init\n1 init\n0 compute 1000\n0 finalize\n1 finalize\n", `"uncapped", "static"`)
		sweepInto(t, sc, out)
		p := filepath.Join(out, taken)
		var err error
		if taken == "figures" {
			err = os.WriteFile(p, []byte("mine"), 0o644)
		} else {
			err = os.Mkdir(p, 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
		before, _ := os.ReadDir(out)
		_, err = WriteReport(out, ReportOptions{NoDetail: true})
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s taken: err = %v, want one naming it", taken, err)
		}
		if after, _ := os.ReadDir(out); len(after) != len(before) {
			t.Errorf("%s taken: the report wrote files before failing", taken)
		}
		if ents, _ := os.ReadDir(filepath.Join(out, "figures")); taken == "report.html" && len(ents) > 0 {
			t.Errorf("figures written without their page")
		}
	}
}

// TestNaNToken: the check above finds NaN as the CSV, JSON and page write
// a number and ignores it inside a build hash.
func TestNaNToken(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"a,NaN,b", true}, {`{"gap":NaN}`, true}, {"<td>NaN %</td>", true}, {"NaN", true},
		{"-NaN\n", true}, {`"devel build 3NaNXqiIozt"`, false}, {`"h":"+NaN/x"`, false},
		{"NaNa", false}, {"ok 0.00", false},
		{`"hash":"devel build oUMb/x-NaN_y/a"`, false}, {"devel build a_NaN-b", false}, {"build a/NaN-b", false},
		{"1,-NaN,2", true}, {`[NaN]`, true},
	} {
		if got := nanToken.MatchString(c.text); got != c.want {
			t.Errorf("%q: %v, want %v", c.text, got, c.want)
		}
	}
}
