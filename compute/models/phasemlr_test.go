package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/arrowtab"
	"github.com/capsim/capsim/compute/power"
)

func cfg(ghz float64, th int) compute.Config { return compute.Config{CPUFreqGHz: ghz, Threads: th} }

// handModel is a two-sample, one-event case of Eq. 3.17 computed by hand:
// α_1 = 2·0.1 + 0.1 + 0.4 = 0.7, α_2 = 1·0.3 + 0 + 0.2 = 0.5,
// Σ Time_i·α_i = 1.0·0.7 + 2.0·0.5 = 1.7,
// λ = 0.5·(0.1·0.3) + 0.1·(1.0·2.0) + 0.05 = 0.265, σ = 0.035,
// Time_t = 1.7 + 0.265 + 0.035 = 2.0 s.
func handModel() *PhaseMLR {
	return &PhaseMLR{
		Events: []string{"l2_miss_rate"},
		Samples: []MLRSample{
			{Config: cfg(2.0, 16), Seconds: 1.0, Rates: []float64{0.1}, Instructions: 1.15e10},
			{Config: cfg(1.0, 1), Seconds: 2.0, Rates: []float64{0.3}, Instructions: 1.00e10},
		},
		Targets: []MLRTarget{{
			Config:   cfg(2.0, 8),
			Alpha:    []Alpha{{X: []float64{2}, Y: []float64{0.1}, Z: 0.4}, {X: []float64{1}, Z: 0.2}},
			MuEvents: [][]float64{{0.5}},
			MuTime:   []float64{0.1},
			L:        0.05,
			Sigma:    0.035,
		}},
		// The IPS model's hand case (docs/reference/models.md): k1 = 2.0e-8 W·s/instr, k0 = 150 W.
		Power: &power.IPS{K1: 2e-8, K0: 150},
	}
}

func TestPhaseMLRHandCase(t *testing.T) {
	m := handModel()
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	tt, anchored, err := m.Time(cfg(2.0, 8))
	if err != nil || anchored || math.Abs(tt-2.0) > 1e-12 {
		t.Fatalf("Time_t = %v, %v, %v; want 2.0 s by Eq. 3.17", tt, anchored, err)
	}
	// By hand: I(8) = 1.00e10 + (7/15)·0.15e10 = 1.07e10; with the
	// predicted time 2.0 s, IPS = 5.35e9, P = 107 + 150 = 257 W, E = 514 J.
	i8, err := m.Instructions(8)
	if err != nil || math.Abs(i8-1.07e10) > 1 {
		t.Fatalf("I(8) = %v, %v; want 1.07e10", i8, err)
	}
	// The work recorded at the 16-thread sample (1.0 s) is the phase itself.
	p, err := m.Predict(compute.Work{Seconds: 1.0, At: cfg(2.0, 16)}, cfg(2.0, 8))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(p.Seconds-2.0) > 1e-12 || math.Abs(p.Watts-257) > 1e-9 || math.Abs(p.Energy()-514) > 1e-9 || p.Flags != 0 {
		t.Errorf("predict = %.12g s, %.12g W, %.12g J, flags %v; want 2 s, 257 W, 514 J (T3)", p.Seconds, p.Watts, p.Energy(), p.Flags)
	}
	// Ratio method: half the work takes half the time at the same power.
	p, _ = m.Predict(compute.Work{Seconds: 0.5, At: cfg(2.0, 16)}, cfg(2.0, 8))
	if math.Abs(p.Seconds-1.0) > 1e-12 || math.Abs(p.Watts-257) > 1e-9 {
		t.Errorf("half work = %g s %g W; want 1 s 257 W", p.Seconds, p.Watts)
	}
	// At a sample the observation is returned.
	p, _ = m.Predict(compute.Work{Seconds: 1.0, At: cfg(2.0, 16)}, cfg(1.0, 1))
	if p.Seconds != 2.0 || p.Flags&compute.Anchored == 0 {
		t.Errorf("sample = %g s flags %v; want 2 s anchored", p.Seconds, p.Flags)
	}
	// 1e10 instructions in 2 s: 2e-8·5e9 + 150 = 250 W.
	if math.Abs(p.Watts-250) > 1e-9 {
		t.Errorf("power at the 1-thread sample = %g W; want 250", p.Watts)
	}
	if _, err := m.Predict(compute.Work{Seconds: 1, At: cfg(2.0, 16)}, cfg(1.5, 4)); err == nil {
		t.Error("a configuration without a coefficient set predicted")
	}
}

// TestFitPhaseMLRRecovers generates phases from known coefficients (y = 0
// and l = 0, the identifiable form) and checks that the regression
// recovers every coefficient and that a phase outside the training set
// is predicted exactly.
func TestFitPhaseMLRRecovers(t *testing.T) {
	truth := handModel().Targets[0]
	truth.Alpha[0].Z += 0.1 // fold Σy into z
	truth.Alpha[0].Y = nil
	truth.Sigma += truth.L
	truth.L = 0
	k1, k0 := 2e-8, 150.0
	s := []compute.Config{cfg(2.0, 16), cfg(1.0, 1)}
	var rows []PhaseRow
	phase := func(i int) (MLRSample, MLRSample) {
		x := float64(i)
		a := MLRSample{Config: s[0], Seconds: 1 + 0.37*x + 0.05*math.Sin(x), Rates: []float64{0.05 + 0.013*float64((i*7)%11)}, Instructions: 1e10 + 1e8*x}
		b := MLRSample{Config: s[1], Seconds: 2 + 0.21*x + 0.3*math.Cos(3*x), Rates: []float64{0.2 + 0.017*float64((i*5)%13)}, Instructions: 0.9e10 + 0.8e8*x}
		return a, b
	}
	for i := 0; i < 40; i++ {
		a, b := phase(i)
		m := &PhaseMLR{Events: []string{"l2"}, Samples: []MLRSample{a, b}, Targets: []MLRTarget{truth}}
		tt, _, _ := m.Time(truth.Config)
		name := fmt.Sprintf("p%02d", i)
		ti := (a.Instructions + b.Instructions) / 2
		rows = append(rows,
			PhaseRow{Region: name, Config: a.Config, Seconds: a.Seconds, Rates: a.Rates, Instructions: a.Instructions, Watts: k1*a.Instructions/a.Seconds + k0},
			PhaseRow{Region: name, Config: b.Config, Seconds: b.Seconds, Rates: b.Rates, Instructions: b.Instructions, Watts: k1*b.Instructions/b.Seconds + k0},
			PhaseRow{Region: name, Config: truth.Config, Seconds: tt, Rates: []float64{math.NaN()}, Instructions: ti, Watts: k1*ti/tt + k0})
	}
	// A phase to predict: measured at the samples only.
	a, b := phase(57)
	rows = append(rows,
		PhaseRow{Region: "new", Config: a.Config, Seconds: a.Seconds, Rates: a.Rates, Instructions: a.Instructions},
		PhaseRow{Region: "new", Config: b.Config, Seconds: b.Seconds, Rates: b.Rates, Instructions: b.Instructions})
	fit, err := FitPhaseMLR(rows, []string{"l2"}, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(fit.Regions) != 41 || fit.Regions[0] != "new" {
		t.Fatalf("regions %v", fit.Regions)
	}
	got := fit.Models[0].Targets[0]
	want := []float64{truth.Alpha[0].Z, truth.Alpha[0].X[0], truth.Alpha[1].Z, truth.Alpha[1].X[0], truth.MuEvents[0][0], truth.MuTime[0], truth.Sigma}
	have := []float64{got.Alpha[0].Z, got.Alpha[0].X[0], got.Alpha[1].Z, got.Alpha[1].X[0], got.MuEvents[0][0], got.MuTime[0], got.Sigma}
	for i := range want {
		if math.Abs(want[i]-have[i]) > 1e-7 {
			t.Errorf("coefficient %d = %.10g, want %.10g", i, have[i], want[i])
		}
	}
	if p := fit.Models[0].Power; p == nil || math.Abs(p.K1-k1)/k1 > 1e-9 || math.Abs(p.K0-k0) > 1e-6 {
		t.Errorf("power %+v; want k1 %g k0 %g", p, k1, k0)
	}
	ref := &PhaseMLR{Events: []string{"l2"}, Samples: []MLRSample{a, b}, Targets: []MLRTarget{truth}}
	want0, _, _ := ref.Time(truth.Config)
	got0, _, _ := fit.Models[0].Time(truth.Config)
	if math.Abs(got0-want0) > 1e-9 {
		t.Errorf("unseen phase: %g s, want %g s", got0, want0)
	}
	// Too few training phases for the 8 regressors.
	if _, err := FitPhaseMLR(rows[:3*5], []string{"l2"}, s); err == nil || !strings.Contains(err.Error(), "regressors") {
		t.Errorf("5 phases fitted: %v", err)
	}
}

// TestFitPhaseMLRNamesMissingSample: when no region is measured at every
// sample, the error names the sample no row measures (a --sample that
// matches none of the file's configurations), or else the sample each
// region lacks.
func TestFitPhaseMLRNamesMissingSample(t *testing.T) {
	row := func(region string, c compute.Config) PhaseRow {
		return PhaseRow{Region: region, Config: c, Seconds: 1, Rates: []float64{0.1}}
	}
	rows := []PhaseRow{row("a", cfg(2, 16)), row("a", cfg(2, 8)), row("b", cfg(1, 1)), row("b", cfg(2, 8))}
	for _, c := range []struct {
		samples []compute.Config
		want    string
	}{
		{[]compute.Config{cfg(2, 16), cfg(1.8, 8), cfg(1, 1)},
			"no region is measured at sample cpu 1.8GHz x8 (the rows measure cpu 1GHz x1, cpu 2GHz x16, cpu 2GHz x8)"},
		{[]compute.Config{cfg(2, 16), cfg(1, 1)},
			`region "a" lacks sample cpu 1GHz x1; region "b" lacks sample cpu 2GHz x16`},
	} {
		_, err := FitPhaseMLR(rows, []string{"l2"}, c.samples)
		if err == nil || !strings.Contains(err.Error(), "no region is measured at every sample configuration: "+c.want) {
			t.Errorf("samples %v: error %v, want %q", c.samples, err, c.want)
		}
	}
}

func TestPhaseMLRDecodeErrors(t *testing.T) {
	good, _ := json.Marshal(handModel())
	if _, err := DecodePhaseMLR(good); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ from, to, want string }{
		{`"time_s":1,`, `"time_s":0,`, "positive finite time_s"},
		{`"rates":[0.1]`, `"rates":[]`, "event rates"},
		{`"mu_time":[0.1]`, `"mu_time":[0.1,2]`, "mu_time"},
		{`"alpha":[{"x":[2],"y":[0.1],"z":0.4},`, `"alpha":[`, "one alpha per sample"},
		{`"cpu_ghz":2,"threads":8`, `"cpu_ghz":2,"threads":16`, "twice"},
	} {
		s := strings.Replace(string(good), tc.from, tc.to, 1)
		if s == string(good) {
			t.Fatalf("%q not in %s", tc.from, good)
		}
		if _, err := DecodePhaseMLR(json.RawMessage(s)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s → %s: error %v, want %q", tc.from, tc.to, err, tc.want)
		}
	}
}

func TestReadPhaseRows(t *testing.T) {
	in := "# phases\nregion,cpu_ghz,threads,time_s,instructions,watts,l2\nsolve,2.0,16,1.5,1e10,200,0.1\nsolve,2.0,8,2.5,,,\n"
	rows, ev, err := ReadPhaseRows(strings.NewReader(in), "p.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || len(ev) != 1 || ev[0] != "l2" || rows[0].Config != cfg(2.0, 16) || rows[0].Rates[0] != 0.1 || !math.IsNaN(rows[1].Rates[0]) {
		t.Errorf("rows %+v events %v", rows, ev)
	}
	for _, tc := range []struct{ in, want string }{
		{"", "empty file"},
		{"region,cpu_ghz,time_s\n", "missing column \"threads\""},
		{"region,cpu_ghz,threads,time_s\nx,2,1.5,1\n", "line 2: threads 1.5"},
		{"region,cpu_ghz,threads,time_s\nx,2,1,0\n", "line 2: time_s must be positive"},
		{"region,cpu_ghz,threads,time_s,ev\nx,2,1,1,abc\n", "line 2: column ev"},
		{"region,cpu_ghz,threads,time_s\n,2,1,1\n", "line 2: empty region"},
		{"region,cpu_ghz,threads,time_s,time_s\n", "duplicate"},
	} {
		if _, _, err := ReadPhaseRows(strings.NewReader(tc.in), "p.csv"); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "p.csv") {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

func FuzzReadPhaseRows(f *testing.F) {
	f.Add("region,cpu_ghz,threads,time_s,l2\nsolve,2.0,16,1.5,0.1\n")
	f.Add("region,cpu_ghz,threads,time_s,instructions,watts\na,1,1,1,1e9,100\na,1,2,0.5,1e9,120\n")
	f.Fuzz(func(t *testing.T, in string) {
		rows, ev, err := ReadPhaseRows(strings.NewReader(in), "f.csv")
		if err != nil {
			return
		}
		for _, r := range rows {
			if len(r.Rates) != len(ev) || !(r.Seconds > 0) || r.Config.Threads < 1 {
				t.Fatalf("bad row %+v", r)
			}
		}
		if len(rows) > 0 {
			_, _ = FitPhaseMLR(rows, ev, []compute.Config{rows[0].Config})
		}
	})
}

func FuzzDecodePhaseMLR(f *testing.F) {
	good, _ := json.Marshal(handModel())
	f.Add(string(good))
	f.Fuzz(func(t *testing.T, in string) {
		m, err := DecodePhaseMLR(json.RawMessage(in))
		if err != nil {
			return
		}
		for _, c := range append([]MLRSample(nil), m.Samples...) {
			if _, err := m.Predict(compute.Work{Seconds: 1, At: c.Config}, c.Config); err != nil && m.Power == nil {
				t.Fatalf("sample config does not predict: %v", err)
			}
		}
	})
}

// TestPhaseRowsFromTable reads the same measurements from an Arrow table
// as from CSV.
func TestPhaseRowsFromTable(t *testing.T) {
	in := "region,cpu_ghz,threads,time_s,instructions,l2\nsolve,2.0,16,1.5,1e10,0.1\nsolve,2.0,8,2.5,,0\n"
	want, _, err := ReadPhaseRows(strings.NewReader(in), "p.csv")
	if err != nil {
		t.Fatal(err)
	}
	tab := &arrowtab.Table{Rows: 2, Columns: []arrowtab.Column{
		{Name: "region", Strings: []string{"solve", "solve"}},
		{Name: "cpu_ghz", Numbers: []float64{2, 2}},
		{Name: "threads", Numbers: []float64{16, 8}},
		{Name: "time_s", Numbers: []float64{1.5, 2.5}},
		{Name: "instructions", Numbers: []float64{1e10, 0}},
		{Name: "l2", Numbers: []float64{0.1, 0}},
	}}
	var buf bytes.Buffer
	if err := arrowtab.Encode(&buf, tab); err != nil {
		t.Fatal(err)
	}
	dec, err := arrowtab.Decode(buf.Bytes(), "p.arrow")
	if err != nil {
		t.Fatal(err)
	}
	got, ev, err := PhaseRowsFromTable(dec, "p.arrow")
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != 1 || len(got) != 2 {
		t.Fatalf("rows %+v events %v", got, ev)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Region != w.Region || g.Config != w.Config || g.Seconds != w.Seconds || g.Instructions != w.Instructions ||
			g.Rates[0] != w.Rates[0] {
			t.Errorf("row %d: %+v, want %+v", i, g, w)
		}
	}
	tab.Columns[0] = arrowtab.Column{Name: "region", Numbers: []float64{1, 2}}
	if _, _, err := PhaseRowsFromTable(tab, "p.arrow"); err == nil || !strings.Contains(err.Error(), "p.arrow") {
		t.Errorf("numeric region: %v", err)
	}
}
