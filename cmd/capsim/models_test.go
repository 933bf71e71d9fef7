package main

import (
	"github.com/capsim/capsim/traces/importer"

	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/capsim/capsim/compute/arrowtab"
	"github.com/capsim/capsim/compute/models"
	"github.com/capsim/capsim/traces/graph"
)

type replayOut struct {
	MakespanNs int64 `json:"makespan_ns"`
	Ranks      []struct {
		ComputeNs int64 `json:"compute_ns"`
		CommNs    int64 `json:"comm_ns"`
	} `json:"ranks"`
	Models *struct {
		Regions []struct {
			Region   string `json:"region"`
			PricedNs int64  `json:"priced_ns"`
			Offload  *struct {
				Offloaded  bool  `json:"offloaded"`
				CPUNs      int64 `json:"cpu_ns"`
				DeviceNs   int64 `json:"device_ns"`
				TransferNs int64 `json:"transfer_ns"`
			} `json:"offload"`
		} `json:"regions"`
		Energy *struct {
			TotalJ   float64 `json:"total_j"`
			IdleJ    float64 `json:"idle_j"`
			DynamicJ float64 `json:"dynamic_j"`
		} `json:"energy"`
	} `json:"models"`
}

func replayJSONOf(t *testing.T, args ...string) replayOut {
	t.Helper()
	code, out, stderr := capsim(t, append(append([]string{"replay"}, args...), "--json")...)
	if code != 0 {
		t.Fatalf("replay %v: exit %d: %s", args, code, stderr)
	}
	var r replayOut
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("replay %v: %v\n%s", args, err, out)
	}
	return r
}

// TestReadmeStencilExample runs docs/guide/models.md's three replays of a traced
// stencil with examples/models/stencil.json and checks every number
// against the models' equations, computed here from the model file's
// parameters: the DVFS slowdown τ(f) = β·f_ref/f + 1 − β (Anger, PhD thesis 2016, Ch. 4)
// at 1.6 GHz, the offload time setup + V/BW + L + r·D/B per 1 ms instance
// (Meswani et al.), and E = (base + n·idle)·T + Σ (P_busy − idle)·busy
// (Anger, PhD thesis 2016, Ch. 4, with per-core power; the model file's cores sleep while
// they wait: wait_power "idle").
func TestReadmeStencilExample(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "stencil.arrow")
	models := filepath.Join("..", "..", "examples", "models", "stencil.json")
	if code, _, stderr := capsim(t, "gen", "stencil", "--dims", "4x4", "--iterations", "20", "--imbalance", "charged-field", "--balance", "0.5", "-o", trace); code != 0 {
		t.Fatal(stderr)
	}
	g, err := loadGraph(trace, importer.Options{}, "")
	if err != nil {
		t.Fatal(err)
	}
	// Model-file parameters (examples/models/stencil.json).
	const (
		baseW, idleW = 40.0, 4.0
		beta, ref    = 0.8, 2.6
		d, r         = 16777216.0, 0.1
		cpuS         = 1e-3
	)
	pstate := map[float64]float64{2.6: 15, 1.6: 8}
	tau := beta*ref/1.6 + 1 - beta
	devS := 5e-6 + d/200e9 + 1e-5 + r*d/16e9
	scaled := func(rank int, f float64) int64 { // Σ of the rank's calcs priced at ratio f
		var s int64
		for op := g.RankStart[rank]; op < g.RankStart[rank+1]; op++ {
			if g.Kind[op] == graph.Calc {
				s += int64(math.Round(float64(g.Size[op]) * f))
			}
		}
		return s
	}
	energy := func(o replayOut, calcW float64) (idle, dyn float64) {
		idle = (baseW + 16*idleW) * float64(o.MakespanNs) / 1e9
		for _, rk := range o.Ranks { // wait_power "idle": MPI calls draw the idle power
			dyn += (calcW - idleW) * float64(rk.ComputeNs) / 1e9
		}
		return idle, dyn
	}
	checkEnergy := func(name string, o replayOut, calcW float64) float64 {
		t.Helper()
		idle, dyn := energy(o, calcW)
		e := o.Models.Energy
		if math.Abs(e.IdleJ-idle) > 1e-9*idle || math.Abs(e.DynamicJ-dyn) > 1e-9*dyn || math.Abs(e.TotalJ-idle-dyn) > 1e-9*(idle+dyn) {
			t.Errorf("%s: energy %+v, want idle %.9g + dynamic %.9g", name, *e, idle, dyn)
		}
		return e.TotalJ
	}
	// With a core that draws its idle power while communicating, the
	// dynamic energy is exactly the calcs' (P_model − idle)·time.
	for _, tc := range []struct {
		args  []string
		calcW float64
	}{{nil, pstate[2.6]}, {[]string{"--config", "freq=1.6"}, pstate[1.6]}, {[]string{"--config", "device=gpu0"}, 45}} {
		o := replayJSONOf(t, append([]string{trace, "--models", models, "--machine-power", "base=40,idle=4,active=4,wait=idle"}, tc.args...)...)
		var want float64
		for _, rk := range o.Ranks {
			want += (tc.calcW - idleW) * float64(rk.ComputeNs) / 1e9
		}
		if e := o.Models.Energy; math.Abs(e.DynamicJ-want) > 1e-9*want {
			t.Errorf("%v: dynamic energy %.9g J, want %.9g", tc.args, e.DynamicJ, want)
		}
	}

	plain := replayJSONOf(t, trace)
	recorded := replayJSONOf(t, trace, "--models", models)
	if recorded.MakespanNs != plain.MakespanNs {
		t.Errorf("recorded configuration: makespan %d, unmodeled %d", recorded.MakespanNs, plain.MakespanNs)
	}
	eRec := checkEnergy("recorded", recorded, pstate[2.6])

	slow := replayJSONOf(t, trace, "--models", models, "--config", "freq=1.6")
	for rk, st := range slow.Ranks {
		if want := scaled(rk, tau); st.ComputeNs != want {
			t.Errorf("1.6 GHz rank %d: compute %d ns, want %d (τ = %.4f)", rk, st.ComputeNs, want, tau)
		}
	}
	if slow.MakespanNs <= recorded.MakespanNs {
		t.Errorf("1.6 GHz makespan %d not above %d", slow.MakespanNs, recorded.MakespanNs)
	}
	eSlow := checkEnergy("1.6 GHz", slow, pstate[1.6])

	powerFile := filepath.Join(dir, "power.arrow")
	tlFile := filepath.Join(dir, "tl.json")
	off := replayJSONOf(t, trace, "--models", models, "--config-region", "stencil.compute=device=gpu0", "--power", powerFile, "--timeline", tlFile)
	for rk, st := range off.Ranks {
		if want := scaled(rk, devS/cpuS); st.ComputeNs != want {
			t.Errorf("offloaded rank %d: compute %d ns, want %d", rk, st.ComputeNs, want)
		}
	}
	if off.MakespanNs >= recorded.MakespanNs {
		t.Errorf("offloaded makespan %d not below %d", off.MakespanNs, recorded.MakespanNs)
	}
	eOff := checkEnergy("offloaded", off, 45)
	// One gpu0 for all 16 ranks: the calls run one at a time, so the run
	// lasts at least the device's total busy time (every rank's calc time,
	// each priced as before), and the energy accounting still holds.
	one := replayJSONOf(t, trace, "--models", models, "--config-region", "stencil.compute=device=gpu0", "--ranks-per-device", "16")
	var devBusy int64
	for rk, st := range one.Ranks {
		if st.ComputeNs != off.Ranks[rk].ComputeNs {
			t.Errorf("one shared device, rank %d: compute %d ns, want %d", rk, st.ComputeNs, off.Ranks[rk].ComputeNs)
		}
		devBusy += st.ComputeNs
	}
	if one.MakespanNs < devBusy {
		t.Errorf("one shared device: makespan %d ns below the device's busy time %d ns", one.MakespanNs, devBusy)
	}
	checkEnergy("one shared device", one, 45)
	if same := replayJSONOf(t, trace, "--models", models, "--config-region", "stencil.compute=device=gpu0", "--ranks-per-device", "1"); same.MakespanNs != off.MakespanNs {
		t.Errorf("a device per rank: makespan %d ns, want %d as without --ranks-per-device", same.MakespanNs, off.MakespanNs)
	}
	reg := off.Models.Regions[0]
	var rec int64
	for _, st := range recorded.Ranks {
		rec += st.ComputeNs
	}
	o := reg.Offload
	if o == nil || !o.Offloaded || o.CPUNs != rec ||
		math.Abs(float64(o.DeviceNs)-float64(rec)*(5e-6+d/200e9)/cpuS) > 1 || math.Abs(float64(o.TransferNs)-float64(rec)*(1e-5+r*d/16e9)/cpuS) > 1 {
		t.Errorf("offload report %+v, recorded calc time %d ns", o, rec)
	}
	t.Logf("time and energy: recorded %d ns %.4f J, 1.6 GHz %d ns %.4f J, offloaded %d ns %.4f J",
		recorded.MakespanNs, eRec, slow.MakespanNs, eSlow, off.MakespanNs, eOff)

	// The power timeline integrates to the energy less the base power.
	data, err := os.ReadFile(powerFile)
	if err != nil {
		t.Fatal(err)
	}
	fr, err := ipc.NewFileReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	var ej float64
	for i := 0; i < fr.NumRecords(); i++ {
		rec, _ := fr.RecordBatch(i)
		st, en, w := rec.Column(1).(*array.Int64), rec.Column(2).(*array.Int64), rec.Column(3).(*array.Float64)
		for j := 0; j < int(rec.NumRows()); j++ {
			ej += w.Value(j) * float64(en.Value(j)-st.Value(j)) / 1e9
		}
	}
	if want := eOff - baseW*float64(off.MakespanNs)/1e9; math.Abs(ej-want) > 1e-9*want {
		t.Errorf("power timeline integrates to %.9g J, want %.9g", ej, want)
	}
	tl, err := os.ReadFile(tlFile)
	if err != nil || !strings.Contains(string(tl), `"ph":"C","pid":15,"name":"power rank 15 (W)"`) {
		t.Errorf("timeline lacks power counters (%v)", err)
	}
	// The text output shows time and energy.
	code, out, _ := capsim(t, "replay", trace, "--models", models, "--config", "freq=1.6")
	if code != 0 || !strings.Contains(out, "energy ") || !strings.Contains(out, "makespan") {
		t.Errorf("text output:\n%s", out)
	}
}

func TestFitEigerNote001(t *testing.T) {
	out := filepath.Join(t.TempDir(), "e.json")
	code, stdout, stderr := capsim(t, "fit", "testdata/eiger_two_terms.csv", "--kind", "eiger", "--region", "solve", "-o", out)
	if code != 0 {
		t.Fatal(stderr)
	}
	// Forward selection (Anger, PhD thesis 2016, Ch. 3) takes log2(x1) then
	// x2², adjusted R² 1, β = (5, 3, 0.25): the samples are that function.
	if !strings.Contains(stdout, "adjusted R² 1, MAPE") || !strings.Contains(stdout, "2 terms: 5 +3·log2(x1) +0.25·x2^2") {
		t.Errorf("fit output:\n%s", stdout)
	}
	// Fixed at the sample means x1 = 6.2, x2 = 2.5; a run at x1 = 8,
	// x2 = 4 takes (5+3·3+0.25·16)/(5+3·log2 6.2+0.25·6.25) times as long.
	code, stdout, stderr = capsim(t, "predict", out, "--region", "solve", "--param", "x1=8", "--param", "x2=4", "--work", "2", "--json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var p struct{ Seconds float64 }
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatal(err)
	}
	want := 2 * 18 / (5 + 3*math.Log2(6.2) + 0.25*6.25)
	if math.Abs(p.Seconds-want) > 1e-9 {
		t.Errorf("predict %.9f s, want %.9f", p.Seconds, want)
	}
}

func TestFitDVFSAndPredict(t *testing.T) {
	out := filepath.Join(t.TempDir(), "d.json")
	code, stdout, stderr := capsim(t, "fit", "testdata/dvfs_runs.csv", "--kind", "dvfs", "--recorded", "cpu=2.6", "-o", out)
	if code != 0 || !strings.Contains(stdout, "beta 0.8 at 2.6 GHz (memory-bound fraction 0.2)") {
		t.Fatalf("fit: %d %s %s", code, stdout, stderr)
	}
	code, stdout, _ = capsim(t, "predict", out, "--region", "stencil.compute", "--freq", "2.0", "--work", "10")
	// τ(2.0) = 0.8·2.6/2 + 0.2 = 1.24; P-state 11 W.
	if code != 0 || !strings.Contains(stdout, "time      12.4 s") || !strings.Contains(stdout, "power     11 W") || !strings.Contains(stdout, "energy    136.4 J") {
		t.Errorf("predict:\n%s", stdout)
	}
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"fit", "testdata/dvfs_runs.csv", "--kind", "nope", "-o", out}, 2, "want table, dvfs, cos, eiger or phase-mlr"},
		{[]string{"fit", "testdata/dvfs_runs.csv", "--kind", "dvfs"}, 2, "-o MODELS.json"},
		{[]string{"fit", "testdata/eiger_two_terms.csv", "--kind", "eiger", "-o", out}, 2, "--region"},
		{[]string{"predict", out, "--region", "stencil.compute", "--device", "gpu0", "--param", "n=1"}, 2, "eiger"},
		{[]string{"replay", "x.arrow", "--config", "freq=1"}, 2, "need --models"},
	} {
		code, _, stderr := capsim(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.err) {
			t.Errorf("%v: exit %d %q, want %d %q", tc.args, code, stderr, tc.code, tc.err)
		}
	}
}

// COS from two runs (Li, León and Cameron, HPDC 2017, Eq. 9): the pair regression is
// rank-deficient, so fit warns, and the minimum-norm α still reproduces
// the measured 4.4 s at 2.4 GHz / 1.6 GHz memory.
func TestFitCOSRankDeficient(t *testing.T) {
	out := filepath.Join(t.TempDir(), "c.json")
	code, stdout, stderr := capsim(t, "fit", "testdata/cos_two_runs.csv", "--kind", "cos", "--recorded", "cpu=1.2,mem=1.333", "-o", out)
	if code != 0 || !strings.Contains(stdout, "lulesh: cos, 2 samples, alpha [") || !strings.Contains(stdout, "WARNING: cos: regression is rank-deficient") {
		t.Fatalf("fit: %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = capsim(t, "predict", out, "--region", "lulesh", "--work", "10", "--config", "cpu=2.4,mem=1.6", "--json")
	var p struct{ Seconds float64 }
	if code != 0 || json.Unmarshal([]byte(stdout), &p) != nil || math.Abs(p.Seconds-4.4) > 1e-9 {
		t.Errorf("predict: %d %s %s", code, stdout, stderr)
	}
}

// Arrow sample tables fit the same models as CSV: DVFS runs, and Eiger
// samples of two regions (one model each) with a region string column.
func TestFitArrowSamples(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, tab *arrowtab.Table) string {
		p := filepath.Join(dir, name)
		var buf bytes.Buffer
		if err := arrowtab.Encode(&buf, tab); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	runs := write("runs.arrow", &arrowtab.Table{Rows: 3, Columns: []arrowtab.Column{
		{Name: "region", Strings: []string{"s", "s", "s"}},
		{Name: "cpu_ghz", Numbers: []float64{2.6, 2.0, 1.6}},
		{Name: "seconds", Numbers: []float64{10, 12.4, 15}},
	}})
	out := filepath.Join(dir, "d.json")
	code, stdout, stderr := capsim(t, "fit", runs, "--kind", "dvfs", "--recorded", "cpu=2.6", "-o", out)
	if code != 0 || !strings.Contains(stdout, "beta 0.8 at 2.6 GHz (memory-bound fraction 0.2)") {
		t.Fatalf("dvfs from Arrow: %d %s %s", code, stdout, stderr)
	}
	// Two regions: T = 1 + 6/f and T = 2 + 0.5·n (n fixed at its mean 3).
	var reg []string
	var f, n, y []float64
	for _, ghz := range []float64{1.2, 1.6, 2.0, 2.6} {
		for _, size := range []float64{1, 3, 5} {
			reg = append(reg, "a", "b")
			f = append(f, ghz, ghz)
			n = append(n, size, size)
			y = append(y, 1+6/ghz, 2+0.5*size)
		}
	}
	samples := write("eiger.arrow", &arrowtab.Table{Rows: len(reg), Columns: []arrowtab.Column{
		{Name: "region", Strings: reg}, {Name: "cpu_ghz", Numbers: f}, {Name: "n", Numbers: n}, {Name: "time_s", Numbers: y},
	}})
	out = filepath.Join(dir, "e.json")
	code, stdout, stderr = capsim(t, "fit", samples, "--kind", "eiger", "--recorded", "cpu=2.6", "-o", out)
	if code != 0 || !strings.Contains(stdout, "a: eiger, 12 samples") || !strings.Contains(stdout, "b: eiger, 12 samples") {
		t.Fatalf("eiger from Arrow: %d %s %s", code, stdout, stderr)
	}
	for _, tc := range []struct {
		region string
		want   float64
	}{{"a", (1 + 6/1.6) / (1 + 6/2.6)}, {"b", 1}} {
		code, stdout, _ := capsim(t, "predict", out, "--region", tc.region, "--freq", "1.6", "--json")
		var p struct{ Seconds float64 }
		if code != 0 || json.Unmarshal([]byte(stdout), &p) != nil || math.Abs(p.Seconds-tc.want) > 1e-6 {
			t.Errorf("region %s at 1.6 GHz: %s, want %.6f", tc.region, stdout, tc.want)
		}
	}
}

// With a socket model (Anger, PhD thesis 2016, §4.2: C7 idle 40 W, socket lines 70 + 10k
// and 95 + 8k, 6+6 cores) the 16 stencil ranks fill two nodes of 12.
func TestReplaySocketModel(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "stencil.arrow")
	if code, _, stderr := capsim(t, "gen", "stencil", "--dims", "4x4", "--iterations", "5", "-o", trace); code != 0 {
		t.Fatal(stderr)
	}
	models := filepath.Join(dir, "m.json")
	os.WriteFile(models, []byte(`{"format": "capsim-compute-model", "version": 1, "recorded": {"cpu_ghz": 2.6},
  "machine": {"base_w": 0, "idle_w": 0, "active_w": 0,
    "sockets": {"idle_w": 40, "cores": [6, 6], "intercept": [70, 95], "slope": [10, 8]}},
  "regions": [{"pattern": "stencil.*", "kind": "dvfs", "params": {"beta": 1, "ref_ghz": 2.6, "power": [{"ghz": 2.6, "watts": 15}]}}]}`), 0o644)
	powerFile := filepath.Join(dir, "p.arrow")
	code, out, stderr := capsim(t, "replay", trace, "--models", models, "--power", powerFile, "--json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var r struct {
		MakespanNs int64 `json:"makespan_ns"`
		Models     struct {
			Warnings []string
			Energy   struct {
				Model string
				Nodes int
				Total float64 `json:"total_j"`
				Idle  float64 `json:"idle_j"`
				Peak  float64 `json:"peak_w"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	e := r.Models.Energy
	T := float64(r.MakespanNs) / 1e9
	if e.Model != "sockets" || e.Nodes != 2 || math.Abs(e.Idle-2*40*T) > 1e-12 || e.Total <= e.Idle || e.Peak > 191+110+1e-9 {
		t.Errorf("socket energy %+v over %g s", e, T)
	}
	if len(r.Models.Warnings) != 1 || !strings.Contains(r.Models.Warnings[0], "per-region power is not used") {
		t.Errorf("warnings %q", r.Models.Warnings)
	}
	// The node rows integrate to the total; node power is one of P(k).
	data, _ := os.ReadFile(powerFile)
	fr, err := ipc.NewFileReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	if fr.Schema().Field(0).Name != "node" {
		t.Errorf("first column %q, want node", fr.Schema().Field(0).Name)
	}
	levels := map[float64]bool{40: true}
	for k := 1; k <= 12; k++ {
		w := 70 + 10*float64(k)
		if k > 6 {
			w = 95 + 8*float64(k)
		}
		levels[w] = true
	}
	var ej float64
	for i := 0; i < fr.NumRecords(); i++ {
		rec, _ := fr.RecordBatch(i)
		st, en, w := rec.Column(1).(*array.Int64), rec.Column(2).(*array.Int64), rec.Column(3).(*array.Float64)
		for j := 0; j < int(rec.NumRows()); j++ {
			if !levels[w.Value(j)] {
				t.Errorf("node power %g W is not a level of the socket model", w.Value(j))
			}
			ej += w.Value(j) * float64(en.Value(j)-st.Value(j)) / 1e9
		}
	}
	if math.Abs(ej-e.Total) > 1e-9*e.Total {
		t.Errorf("node rows integrate to %.9g J, total %.9g", ej, e.Total)
	}
}

// TestFitPredictPhaseMLR fits examples/models/phases.csv (training phases
// generated from known Eq. 3.17 coefficients and the T3 power constants)
// and predicts the held-out phase "new" at 8 threads: as in Li, PhD thesis 2011, §3.4
// gives I(8) = 1.07e10, and the phase's Eq. 3.17 time is 2.0 s by hand
// (1.0·0.7 + 2.0·0.5 + 0.5·0.03 + 0.1·2 + 0.085), so P = 257 W, E = 514 J.
func TestFitPredictPhaseMLR(t *testing.T) {
	out := filepath.Join(t.TempDir(), "mlr.json")
	csv := filepath.Join("..", "..", "examples", "models", "phases.csv")
	code, stdout, stderr := capsim(t, "fit", csv, "--kind", "phase-mlr", "--sample", "cpu=2.0,threads=16", "--sample", "cpu=1.0,threads=1", "-o", out)
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "12 training phases, 7 regressors") || !strings.Contains(stdout, "P = 2e-08·IPS + 150 W") {
		t.Errorf("fit output:\n%s", stdout)
	}
	code, stdout, stderr = capsim(t, "predict", out, "--region", "new", "--work", "1", "--config", "cpu=2.0,threads=8", "--json")
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	var p struct {
		Kind    string  `json:"kind"`
		Seconds float64 `json:"seconds"`
		Watts   float64 `json:"watts"`
		Energy  float64 `json:"energy_j"`
	}
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatal(err)
	}
	if p.Kind != "phase-mlr" || math.Abs(p.Seconds-2) > 1e-9 || math.Abs(p.Watts-257) > 1e-6 || math.Abs(p.Energy-514) > 1e-6 {
		t.Errorf("predict = %+v; want phase-mlr, 2 s, 257 W, 514 J", p)
	}
	if code, _, stderr = capsim(t, "fit", csv, "--kind", "phase-mlr", "-o", out); code == 0 || !strings.Contains(stderr, "--sample") {
		t.Errorf("fit without --sample: exit %d: %s", code, stderr)
	}
}

// TestFitPredictIPCMLR fits examples/models/ipc-training.csv (training
// cases generated from the Eq. 4.1 formula in its header) and predicts the
// 16 tasks of examples/models/ipc-app.csv: every pattern's IPC must be the
// header's formula averaged over the tasks (Li, PhD thesis 2011, §4.1), and capsim
// aggregate --ipc-model must take those IPCs.
func TestFitPredictIPCMLR(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "ipc.json")
	train := filepath.Join("..", "..", "examples", "models", "ipc-training.csv")
	app := filepath.Join("..", "..", "examples", "models", "ipc-app.csv")
	code, stdout, stderr := capsim(t, "fit", train, "--kind", "ipc-mlr", "--sample", "4", "--sample", "P5", "--sockets", "2x2x2", "-o", out)
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "P8, IPC category [1.5, 2): 10 training cases, 7 regressors") {
		t.Errorf("fit output:\n%s", stdout)
	}
	code, stdout, stderr = capsim(t, "predict", out, "--samples", app, "--json")
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	var got []struct {
		Pattern int     `json:"pattern"`
		IPC     float64 `json:"ipc"`
		Tasks   int     `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	// The header's formula: IPC_t = IPC_4·(1 + D_t·(1.5 − 0.25·b)·(1 + 40·e_4)).
	D := map[int]float64{1: 0.02, 2: 0.018, 3: 0.015, 6: -0.02, 7: -0.045, 8: -0.08}
	rows, _, err := models.ReadIPCRowsFile(app)
	if err != nil {
		t.Fatal(err)
	}
	type obs struct{ i4, e4, i5 float64 }
	tasks := map[string]*obs{}
	for _, r := range rows {
		if tasks[r.Case] == nil {
			tasks[r.Case] = &obs{}
		}
		if r.Pattern == 4 {
			tasks[r.Case].i4, tasks[r.Case].e4 = r.IPC, r.Rates[0]
		} else {
			tasks[r.Case].i5 = r.IPC
		}
	}
	want := map[int]float64{}
	for _, o := range tasks {
		b := 1.0
		if (o.i4+o.i5)/2 >= 1.5 {
			b = 2
		}
		for p, d := range D {
			want[p] += o.i4 * (1 + d*(1.5-0.25*b)*(1+40*o.e4)) / float64(len(tasks))
		}
		want[4] += o.i4 / float64(len(tasks))
		want[5] += o.i5 / float64(len(tasks))
	}
	if len(got) != 8 {
		t.Fatalf("%d patterns, want 8: %s", len(got), stdout)
	}
	// examples/models/ipc-model.json (read by examples/scenarios/aggregate.toml)
	// is this fit: regenerate it with the command in that scenario's header.
	committed, _, err := models.PredictIPCFiles(filepath.Join("..", "..", "examples", "models", "ipc-model.json"), app, "2x2x2")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range got {
		if math.Abs(committed[g.Pattern]-g.IPC) > 1e-9 {
			t.Errorf("examples/models/ipc-model.json is stale: P%d IPC %v, the fit gives %v", g.Pattern, committed[g.Pattern], g.IPC)
		}
	}
	for _, g := range got {
		if g.Tasks != 16 || math.Abs(g.IPC-want[g.Pattern]) > 1e-6 {
			t.Errorf("P%d: IPC %.9f over %d tasks, want %.9f over 16", g.Pattern, g.IPC, g.Tasks, want[g.Pattern])
		}
	}
	tr := filepath.Join(dir, "st16.arrow")
	if code, _, stderr = capsim(t, "gen", "stencil", "--dims", "4x4", "--iterations", "2", "-o", tr); code != 0 {
		t.Fatalf("gen: %s", stderr)
	}
	csvOut := filepath.Join(dir, "agg.csv")
	if code, stdout, stderr = capsim(t, "aggregate", tr, "--ipc-model", out, "--ipc-samples", app, "--csv", csvOut); code != 0 {
		t.Fatalf("aggregate: exit %d: %s", code, stderr)
	}
	// Computation scales as IPC_1/IPC_p: P8's average over P1's.
	b, _ := os.ReadFile(csvOut)
	var comp1, comp8 float64
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Split(line, ",")
		if len(f) > 7 && f[0] == "1" {
			comp1, _ = strconv.ParseFloat(f[7], 64)
		}
		if len(f) > 7 && f[0] == "8" {
			comp8, _ = strconv.ParseFloat(f[7], 64)
		}
	}
	if comp1 == 0 || math.Abs(comp8/comp1-want[1]/want[8]) > 1e-6 {
		t.Errorf("P8/P1 computation %v/%v = %v, want IPC_1/IPC_8 = %v", comp8, comp1, comp8/comp1, want[1]/want[8])
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"aggregate", tr, "--ipc-model", out}, "--ipc-model and --ipc-samples go together"},
		{[]string{"aggregate", tr, "--ipc-model", out, "--ipc-samples", app, "--sockets", "2x2x1"}, "topology 2x2x2, not 2x2x1"},
		{[]string{"predict", out}, "needs --samples"},
		{[]string{"fit", train, "--kind", "ipc-mlr", "-o", out}, "--sample"},
	} {
		if code, _, stderr := capsim(t, c.args...); code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d: %s; want %q", c.args, code, stderr, c.want)
		}
	}
}
