package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/scenarios"
	"github.com/capsim/capsim/traces/otf2"
)

// TestRealTraceStudy runs the study a new user does on a real trace of
// ../shared/traces: tracer-stencil4d-64 (OTF2, 64 ranks) on the default
// machine with 8 nodes, swept over caps that bind (1200 W) and do not
// (1500 W, above the uncapped peak of 1488 W) with every policy, then
// bounded and reported. It checks that
//   - at the cap that does not bind, the bound is the uncapped replay
//     (within 0.5 %, never above it);
//   - every lp point is within its cap at every instant, and where the cap
//     does not bind within 0.5 % of the uncapped replay;
//   - order is stated: a policy that ends below the fixed-order bound is
//     flagged (below_bound, <policy>_order_changed), the table never prints
//     a bare negative gap, and no replay within its cap beats
//     order_free_lower_ns;
//   - the report is written.
func TestRealTraceStudy(t *testing.T) {
	if !clp.Available() || !otf2.Available {
		t.Skip("no LP solver or OTF2 reader")
	}
	if testing.Short() {
		t.Skip("sweeps, bounds and reports a 64-rank trace")
	}
	trace := filepath.Join(testenv.Shared(t, "traces"), "otf2", "tracer-stencil4d-64", "traces.otf2")
	sc := string(scenarios.Default())
	sc = strings.Replace(sc, "\nnodes = 2\n", "\nnodes = 8\n", 1)
	w := sc[strings.Index(sc, "[workload]"):strings.Index(sc, "[models]")]
	sc = strings.Replace(sc, w, "[workload]\ntrace = "+strconv.Quote(trace)+"\n\n", 1)
	sc = strings.Replace(sc, `caps = "290:380:10"`, `caps_w = [1200.0, 1500.0]`, 1)
	if !strings.Contains(sc, "\nnodes = 8\n") || !strings.Contains(sc, "caps_w = [1200.0, 1500.0]") {
		t.Fatal("the default scenario's nodes or caps line moved")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "s64.toml")
	if err := os.WriteFile(path, []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, _, errs := capsim(t, "sweep", path, "-o", out); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, errs)
	}
	rows := studyRows(t, filepath.Join(out, "results.csv"))
	var unc map[string]string
	for _, r := range rows {
		if r["policy"] == "uncapped" {
			unc = r
		}
	}
	if unc == nil {
		t.Fatal("no uncapped point")
	}
	uncNs, uncPeak := num(t, unc["makespan_ns"]), num(t, unc["peak_power_w"])
	for _, r := range rows {
		t.Logf("%s at %s W: %s ns, peak %s W, over the cap %s ns, bound %s ns %s", r["policy"], r["cap_w"], r["makespan_ns"], r["peak_power_w"], r["over_cap_ns"], r["bound_ns"], r["below_bound"])
		if r["policy"] != "lp" {
			continue
		}
		capW, ms := num(t, r["cap_w"]), num(t, r["makespan_ns"])
		if num(t, r["over_cap_ns"]) > 0 || num(t, r["peak_power_w"]) > capW+1e-9 {
			t.Errorf("lp at %g W: over the cap (peak %s W, %s ns)", capW, r["peak_power_w"], r["over_cap_ns"])
		}
		if capW >= uncPeak && ms > 1.005*uncNs {
			t.Errorf("lp at %g W (not binding): %g ns, uncapped %g ns: want within 0.5 %%", capW, ms, uncNs)
		}
	}
	for _, r := range rows {
		if r["bound_ns"] != "" && num(t, r["makespan_ns"]) < num(t, r["bound_ns"]) && r["below_bound"] == "" {
			t.Errorf("%s at %s W: %s ns below the bound %s ns, not flagged", r["policy"], r["cap_w"], r["makespan_ns"], r["bound_ns"])
		}
	}
	studyBound(t, trace, path, uncPeak)
	if code, _, errs := capsim(t, "report", out, "--no-detail"); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	if b, err := os.ReadFile(filepath.Join(out, "report.html")); err != nil || !strings.Contains(string(b), "LP bound") {
		t.Errorf("report.html: %v, or no LP bound in it", err)
	}
}

// studyBound checks capsim bound on trace under the scenario at path (see
// TestRealTraceStudy); uncPeak is the sweep's uncapped peak power.
func studyBound(t *testing.T, trace, path string, uncPeak float64) {
	t.Helper()
	code, js, errs := capsim(t, "bound", trace, "--scenario", path, "--caps", "1200:1500:300", "--json")
	if code != 0 {
		t.Fatalf("bound: exit %d: %s", code, errs)
	}
	var caps []map[string]any
	if err := json.Unmarshal([]byte(js), &caps); err != nil {
		t.Fatal(err)
	}
	for _, c := range caps {
		capW, b, unc := c["cap_w"].(float64), c["bound_ns"].(float64), c["uncapped_ns"].(float64)
		if capW >= uncPeak && (b > unc || unc-b > 0.005*unc) {
			t.Errorf("%g W (not binding): bound %g ns, uncapped replay %g ns: want at most 0.5 %% below", capW, b, unc)
		}
		lower := c["order_free_lower_ns"].(float64)
		for _, p := range []string{"rounded", "static", "conductor"} {
			ns, _ := c[p+"_ns"].(float64)
			over, _ := c[p+"_over_cap_ns"].(float64)
			if over == 0 && ns < lower {
				t.Errorf("%g W: %s %g ns below order_free_lower_ns %g ns", capW, p, ns, lower)
			}
			changed, _ := c[p+"_order_changed"].(bool)
			below, _ := c[p+"_below_bound"].(string)
			if ns < b && !changed && below == "" {
				t.Errorf("%g W: %s %g ns below the bound %g ns, not flagged", capW, p, ns, b)
			}
		}
	}
	code, text, errs := capsim(t, "bound", trace, "--scenario", path, "--caps", "1200:1500:300")
	if code != 0 {
		t.Fatalf("bound: exit %d: %s", code, errs)
	}
	for _, line := range strings.Split(text, "\n") {
		for _, f := range strings.Fields(line) {
			if v, err := strconv.ParseFloat(f, 64); err == nil && v < 0 && !strings.Contains(line, "order changed") {
				t.Errorf("a bare negative number in the table: %q", line)
			}
		}
	}
}

// studyRows reads a sweep's results.csv as one map per row.
func studyRows(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("%s: %v (%d rows)", path, err, len(recs))
	}
	var rows []map[string]string
	for _, rec := range recs[1:] {
		r := map[string]string{}
		for i, h := range recs[0] {
			r[h] = rec[i]
		}
		rows = append(rows, r)
	}
	return rows
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}
