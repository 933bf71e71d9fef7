package scenarios

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/scenarios/results"
	"github.com/capsim/capsim/traces/graph"
)

// The detail figures of the default scenario, and the consistency of what
// they draw: the job power curve integrates to the point's energy, and the
// Gantt chart's compute spans add up to the engine's compute time.
func TestDetailDefault(t *testing.T) {
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	pick := sc.DefaultPick()
	if pick.Policy != "static" || pick.CapW != 340 || pick.Machine != "pal" {
		t.Fatalf("default pick %+v, want pal/static at the median cap 340 W", pick)
	}
	sec, err := sc.Detail(Pick{}, "d_", "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range sec.Figures {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "d_gantt d_rank_power d_job_power d_task_frontier" {
		t.Errorf("figures %s", got)
	}
	if !strings.Contains(sec.Heading, "static, cap 340 W") {
		t.Errorf("heading %q", sec.Heading)
	}
	// Where each rank's time went: 16 ranks and a mean, each adding up to
	// its finish time (to the printed µs).
	if len(sec.Rows) != 17 || len(sec.Columns) != 6 || sec.Rows[16][0] != "mean" {
		t.Fatalf("rank table %v rows × %v", len(sec.Rows), sec.Columns)
	}
	for _, r := range sec.Rows[:16] {
		var v [5]float64
		for i := range v {
			fmt.Sscan(r[i+1], &v[i])
		}
		if math.Abs(v[0]+v[1]+v[2]-v[4]) > 0.0015 {
			t.Errorf("rank %s: %g + %g + %g ≠ finish %g", r[0], v[0], v[1], v[2], v[4])
		}
	}

	m := &sc.Machines[0]
	g, err := sc.Graph(nil)
	if err != nil {
		t.Fatal(err)
	}
	met, rec, err := sc.replay(g, m, sc.Net(), nil, "static", 340)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := rec.acct.RankSteps(rec.model, rec.res.Makespan)
	if err != nil {
		t.Fatal(err)
	}
	job := power.Job(steps)
	e := job.Energy() + rec.model.BaseW*float64(rec.res.Makespan)/1e9
	if math.Abs(e-met.EnergyJ) > 1e-6 {
		t.Errorf("job curve integrates to %.9f J, point energy %.9f J", e, met.EnergyJ)
	}
	if peak := job.Peak() + rec.model.BaseW; math.Abs(peak-met.PeakPowerW) > 1e-9 {
		t.Errorf("job curve peak %.3f W, point peak %.3f W", peak, met.PeakPowerW)
	}
	var compute int64
	for _, s := range rec.acct.Spans() {
		if g.Kind[s.Op] == graph.Calc {
			compute += s.End - s.Start
		}
	}
	var want int64
	for _, r := range rec.res.Ranks {
		want += r.Compute
	}
	if compute != want {
		t.Errorf("Gantt compute %d ns, engine %d ns", compute, want)
	}
	cs := sc.taskConfigs(g, m)
	if len(cs) != len(m.PStates) || cs[0].Power != m.PStates[0].ActivePowerW {
		t.Fatalf("task configs %v", cs)
	}
	// t(f) = t·((1−m)·f0/f + m), m = 0.3: the 1.4 GHz point is 1.35× the 2.1 GHz one.
	if r := cs[len(cs)-1].Time / cs[0].Time; math.Abs(r-(0.7*2.1/1.4+0.3)) > 1e-12 {
		t.Errorf("slowest/fastest time %.6f, want 1.35", r)
	}
	if _, err := sc.Detail(Pick{Machine: "nope"}, "", ""); err == nil {
		t.Error("unknown machine accepted")
	}
}

// TestDetailEveryPolicy details one point of every sweep policy of the
// default scenario and checks its makespan against the sweep's own row
// for that point (the lp policy to 1 %: a sweep re-solves the LP from the
// previous cap's basis, whose degenerate optimum can round to another
// schedule).
func TestDetailEveryPolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the default sweep")
	}
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sweepInto(t, sc, dir)
	_, rows, err := results.ReadArrow(filepath.Join(dir, results.ArrowFile))
	if err != nil {
		t.Fatal(err)
	}
	schema := sc.Schema()
	v := newView(schema)
	want := map[string]float64{}
	for _, r := range rows {
		if c, _ := v.num(r, v.capW); c == 330 || v.str(r, v.policy) == "uncapped" {
			want[v.str(r, v.policy)], _ = v.num(r, v.makespan)
		}
	}
	for _, pol := range sc.Sweep.Policies {
		sec, err := sc.Detail(Pick{Policy: pol, CapW: 330}, "d_", "ms")
		if err != nil {
			t.Fatalf("%s: %v", pol, err)
		}
		if len(sec.Figures) != 4 || len(sec.Rows) != 17 {
			t.Errorf("%s: %d figures, %d table rows", pol, len(sec.Figures), len(sec.Rows))
		}
		var ms float64
		if _, err := fmt.Sscanf(sec.Text, "Replayed again for these figures: makespan %f ms", &ms); err != nil {
			t.Fatalf("%s: text %q: %v", pol, sec.Text, err)
		}
		tol := 0.0005 // the text's 3 decimals
		if pol == "lp" {
			tol = 0.01 * ms
		}
		if w := want[pol] / 1e6; math.Abs(ms-w) > tol {
			t.Errorf("%s at 330 W: detail makespan %.3f ms, sweep %.3f ms", pol, ms, w)
		}
	}
}

// TestReportTopology: with a network topology the report's detail section
// has a per-link utilisation figure, saved as a 1600-pixel PNG and an SVG
// beside the others, over the links that carried messages (the default
// machine's 2 nodes on a 2-ary 1-tree: each node's up- and down-link);
// without one it has none (TestDetailDefault).
func TestReportTopology(t *testing.T) {
	text := strings.Replace(string(Default()), "[workload]", "[network.topology]\nkind = \"fattree\"\nk = 2\nn = 1\nbw_GBps = 0.1\n\n[workload]", 1)
	text = strings.Replace(text, `caps = "290:380:10"`, `caps = "330:340:10"`, 1)
	text = strings.Replace(text, `policies = ["uncapped", "static", "conductor", "lp"]`, `policies = ["static"]`, 1)
	sc, err := Parse("topo.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sweepInto(t, sc, dir)
	files, err := WriteReport(dir, ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{"png", "svg"} {
		b, err := os.ReadFile(filepath.Join(files.Figures, "detail_link_utilisation."+ext))
		if err != nil {
			t.Fatal(err)
		}
		if ext == "png" {
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil || img.Bounds().Dx() < 1600 {
				t.Errorf("link figure PNG: %v, %v", err, img.Bounds())
			}
			continue
		}
		for l := range 4 {
			if !strings.Contains(string(b), fmt.Sprintf("link %d (", l)) {
				t.Errorf("link figure SVG lacks link %d", l)
			}
		}
	}
	page, err := os.ReadFile(files.Page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "Under the flow model 4 of the 4 links of the topology fattree:k=2") {
		t.Error("the detail section does not describe the link figure")
	}
}
