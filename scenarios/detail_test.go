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
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/scenarios/report"
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
	secs, err := sc.Detail(Pick{}, "d_", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) != 2 {
		t.Fatalf("%d sections, want the point and its critical path", len(secs))
	}
	sec := secs[0]
	checkPathSection(t, secs[1], "static, cap 340 W")
	// The static point against the LP bound at 340 W, as the sweep's
	// results and `capsim bound --cap 340` give it (static 66.777 ms, the
	// engine LP's bound 60.708 ms, gap 10.0 %).
	if want := "The LP bound at this cap is 60.708 ms: the point is 6.069 ms (10.0 %) above it."; clp.Available() && !strings.Contains(secs[1].Text, want) {
		t.Errorf("critical path text %q lacks %q", secs[1].Text, want)
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
	steps, err := rec.acct.RankProfiles(rec.model, rec.res.Makespan)
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
		secs, err := sc.Detail(Pick{Policy: pol, CapW: 330}, "d_", "ms")
		if err != nil {
			t.Fatalf("%s: %v", pol, err)
		}
		sec := secs[0]
		checkPathSection(t, secs[1], "policy "+pol)
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

// checkPathSection checks a critical path section: its heading names the
// point, its shares add up to 100 %, and its table's durations add up to
// the makespan its text gives (to the printed decimals), the segments
// following each other in time.
func checkPathSection(t *testing.T, sec report.Section, what string) {
	t.Helper()
	if !strings.HasPrefix(sec.Heading, "Critical path: ") || !strings.Contains(sec.Heading, what) {
		t.Errorf("critical path heading %q, want it to name %q", sec.Heading, what)
	}
	var ms, comp, comm, wait float64
	var unit string
	var nseg, nrank int
	if _, err := fmt.Sscanf(sec.Text, "The chain of operations that determines the makespan (%f %s from time 0 to the end: %d segments on %d ranks. Along it, computing %f %%, communicating %f",
		&ms, &unit, &nseg, &nrank, &comp, &comm); err != nil {
		t.Fatalf("critical path text %q: %v", sec.Text, err)
	}
	i := strings.Index(sec.Text, "waiting ")
	if i < 0 {
		t.Fatalf("critical path text %q has no waiting share", sec.Text)
	}
	fmt.Sscanf(sec.Text[i:], "waiting %f", &wait)
	if math.Abs(comp+comm+wait-100) > 0.15 || nseg == 0 || nrank < 2 {
		t.Errorf("critical path: %d segments on %d ranks, shares %.1f + %.1f + %.1f %%", nseg, nrank, comp, comm, wait)
	}
	if len(sec.Columns) != 7 || len(sec.Rows) == 0 || len(sec.Rows) > pathRows+1 {
		t.Fatalf("critical path table %d rows × %v", len(sec.Rows), sec.Columns)
	}
	var sum, at float64
	for k, r := range sec.Rows {
		var start, d float64
		fmt.Sscan(r[4], &start)
		fmt.Sscan(r[5], &d)
		if k > 0 && math.Abs(start-at) > 0.0015 {
			t.Errorf("critical path row %d starts at %g, the one before ends at %g", k+1, start, at)
		}
		sum += d
		at = start + d
	}
	if tol := 0.0005 * float64(len(sec.Rows)+1); math.Abs(sum-ms) > tol {
		t.Errorf("critical path rows add up to %.3f, makespan %.3f", sum, ms)
	}
}

// A rank whose CPUs run at once (a GOAL file's cpu field, a Chakra
// trace's streams) on a machine without [machine.gpu] runs them as more
// cores: the detail of every policy draws their powers added up, as the
// sweep prices them (rank 0's two 5 ms computations at once: the 40 W
// socket, two cores at 30 W and rank 1's core idle at 1 W, a 101 W peak),
// never an internal error about its tasks overlapping, and says that its
// compute time in the rank table adds up its CPUs'.
func TestDetailSeveralCPUs(t *testing.T) {
	dir := t.TempDir()
	goal := filepath.Join(dir, "cpus.goal")
	text := "num_ranks 2\nrank 0 {\na: calc 5000000 cpu 0\nb: calc 5000000 cpu 1\ns: send 8b to 1 tag 0\ns requires a\ns requires b\n}\n" +
		"rank 1 {\nr: recv 8b from 0 tag 0\nc: calc 1000000\nc requires r\n}\n"
	if err := os.WriteFile(goal, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	pols := `"uncapped", "static", "static-rapl", "conductor"`
	if clp.Available() {
		pols += `, "lp"`
	}
	sc, err := Parse("cpus.toml", []byte(strings.Replace(cpuMachine, "cores_per_socket = 2", "cores_per_socket = 4", 1)+
		"[network]\nL_ns = 1000\no_ns = 100\ng_ns = 100\nG_ns_per_byte = 1\n[workload]\ntrace = \""+goal+"\"\n[sweep]\ncaps_w = [200]\npolicies = ["+pols+"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pol := range sc.Sweep.Policies {
		secs, err := sc.Detail(Pick{Machine: "c", Policy: pol, CapW: 200}, "d_", "ms")
		if err != nil {
			t.Fatalf("%s: %v", pol, err)
		}
		for _, want := range []string{"peak 101.0 W", "up to 2 CPUs at once (more cores of its host", "can exceed its finish time"} {
			if !strings.Contains(secs[0].Text, want) {
				t.Errorf("%s: detail %q lacks %q", pol, secs[0].Text, want)
			}
		}
		if got := secs[0].Rows[0][1]; got != "10.000" {
			t.Errorf("%s: rank 0 computes %s ms, want 10.000 (two 5 ms on two CPUs)", pol, got)
		}
	}
	m := &sc.Machines[0]
	g, err := sc.Graph(nil)
	if err != nil {
		t.Fatal(err)
	}
	met, rec, err := sc.replay(g, m, sc.Net(), nil, "uncapped", 0)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := rec.acct.RankProfiles(rec.model, rec.res.Makespan)
	if err != nil {
		t.Fatal(err)
	}
	job := power.Job(steps)
	if e := job.Energy() + rec.model.BaseW*float64(rec.res.Makespan)/1e9; math.Abs(e-met.EnergyJ) > 1e-9 {
		t.Errorf("job curve integrates to %.9f J, point energy %.9f J", e, met.EnergyJ)
	}
	if peak := job.Peak() + rec.model.BaseW; peak != met.PeakPowerW || peak != 101 {
		t.Errorf("job curve peak %g W, point peak %g W, want 101 W", peak, met.PeakPowerW)
	}
}
