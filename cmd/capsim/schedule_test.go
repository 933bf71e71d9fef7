package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/optimize/sched"
)

func TestScheduleTable(t *testing.T) {
	code, out, errs := capsim(t, "schedule", "cholesky:6", "lu:4", "--cap", "35,80", "--policy", "fs,sas")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// Header, column line, 2 graphs × 2 caps × 2 policies.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2+8 || !strings.Contains(lines[0], "112 threads, idle 106.9 W") {
		t.Fatalf("table:\n%s", out)
	}
	for _, l := range lines[2:] {
		f := strings.Fields(l)
		if f[3] == "fs" && f[8] != "1.000" {
			t.Errorf("fs relative performance %s, want 1.000: %s", f[8], l)
		}
	}
}

func TestScheduleJSONAndPlot(t *testing.T) {
	dir := t.TempDir()
	for _, ext := range []string{"png", "svg"} {
		plot := filepath.Join(dir, "fig."+ext)
		code, out, errs := capsim(t, "schedule", "cholesky:5", "cg:3x2", "--cap", "35:55:10", "--json", "--plot", plot)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var rows []sched.Row
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2*3*4 {
			t.Fatalf("%d rows, want 24", len(rows))
		}
		best := map[string]int64{}
		for _, r := range rows {
			if r.PeakPowerW > r.CapW+1e-9 || r.MakespanNs <= 0 || r.Utilization <= 0 || r.Utilization > 1 {
				t.Errorf("row %+v breaks the cap or is empty", r)
			}
			k := fmt.Sprint(r.Graph, r.CapW)
			if b, ok := best[k]; !ok || r.MakespanNs < b {
				best[k] = r.MakespanNs
			}
		}
		// The gap to the best policy of the same graph and cap.
		for _, r := range rows {
			want := math.Round(1e4*(float64(r.MakespanNs)/float64(best[fmt.Sprint(r.Graph, r.CapW)])-1)) / 100
			if r.GapBestPct != want {
				t.Errorf("%s at %g W, %s: gap to best %.2f %%, want %.2f %%", r.Graph, r.CapW, r.Policy, r.GapBestPct, want)
			}
		}
		if st, err := os.Stat(plot); err != nil || st.Size() < 1000 {
			t.Errorf("plot %s: %v", plot, err)
		}
	}
}

// The same command gives byte-identical JSON (wall times aside).
func TestScheduleDeterministic(t *testing.T) {
	var outs [2][]sched.Row
	for i := range outs {
		_, out, _ := capsim(t, "schedule", "lu:5", "--cap", "40", "--json")
		json.Unmarshal([]byte(out), &outs[i])
		for j := range outs[i] {
			outs[i][j].WallNs = 0
		}
	}
	a, _ := json.Marshal(outs[0])
	b, _ := json.Marshal(outs[1])
	if string(a) != string(b) {
		t.Error("two runs differ")
	}
}

func TestScheduleProfiles(t *testing.T) {
	p := filepath.Join(t.TempDir(), "p.arrow")
	if code, _, errs := capsim(t, "schedule", "--write-profiles", p); code != 0 {
		t.Fatalf("write: %s", errs)
	}
	code, out, errs := capsim(t, "schedule", "cholesky:4", "--cap", "50", "--profiles", p, "--policy", "pas")
	if code != 0 || !strings.Contains(out, "pas") {
		t.Fatalf("read: %d %s %s", code, out, errs)
	}
}

func TestScheduleDAGFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.dag")
	if code, _, errs := capsim(t, "schedule", "cholesky:6", "--write-dag", p); code != 0 {
		t.Fatalf("write: %s", errs)
	}
	_, gen, _ := capsim(t, "schedule", "cholesky:6", "--cap", "45", "--json")
	code, file, errs := capsim(t, "schedule", p, "--cap", "45", "--json")
	if code != 0 {
		t.Fatalf("read: %s", errs)
	}
	var a, b []sched.Row
	json.Unmarshal([]byte(gen), &a)
	json.Unmarshal([]byte(file), &b)
	for i := range a {
		if a[i].MakespanNs != b[i].MakespanNs || a[i].AvgPowerW != b[i].AvgPowerW {
			t.Errorf("%s: file gives %+v, generator %+v", a[i].Policy, b[i], a[i])
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.dag")
	os.WriteFile(bad, []byte("POTRF\nTRSM 7\n"), 0o644)
	if code, _, errs := capsim(t, "schedule", bad, "--cap", "45"); code != 1 || !strings.Contains(errs, "bad.dag:2: task 1 depends on task 7") {
		t.Errorf("bad file: %d %s", code, errs)
	}
}

func TestScheduleTimeline(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tl.csv")
	if code, _, errs := capsim(t, "schedule", "lu:3", "--cap", "40", "--policy", "pas", "--timeline", p); code != 0 {
		t.Fatal(errs)
	}
	b, _ := os.ReadFile(p)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "graph,cap_w,policy,time_ns,power_w" || !strings.HasPrefix(lines[1], "lu:3,40,pas,0,") ||
		!strings.HasSuffix(lines[len(lines)-1], ",0") {
		t.Errorf("timeline:\n%s", b)
	}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if w, _ := strconv.ParseFloat(f[4], 64); w > 40 {
			t.Errorf("step over the cap: %s", l)
		}
	}
}

func TestScheduleErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.arrow")
	os.WriteFile(bad, []byte("nonsense"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"schedule"}, 2, "at least 1 DAG"},
		{[]string{"schedule", "cholesky:4"}, 2, "--cap is required"},
		{[]string{"schedule", "cholesky:4", "--cap", "x"}, 2, "not a positive number"},
		{[]string{"schedule", "cholesky:4", "--cap", "60", "--policy", "edf"}, 2, "unknown policy"},
		{[]string{"schedule", "qr:4", "--cap", "60"}, 2, "unknown graph"},
		{[]string{"schedule", "cholesky:4", "--cap", "60", "--plot", "x.pdf"}, 2, "want a .png or .svg"},
		{[]string{"schedule", "cholesky:4", "--cap", "60", "--profiles", bad}, 1, "bad.arrow"},
		{[]string{"schedule", "cholesky:4", "--cap", "1", "--policy", "pas"}, 1, "policy starts none"},
	} {
		code, _, errs := capsim(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}
