package modelfile

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/cos"
	"github.com/capsim/capsim/compute/dvfs"
	"github.com/capsim/capsim/traces/graph"
)

const example = `{
  "format": "capsim-compute-model",
  "version": 1,
  "recorded": {"cpu_ghz": 1.2, "mem_ghz": 1.333},
  "default": {"kind": "measured", "params": {"scale": 1}},
  "regions": [
    {"pattern": "solve_*", "kind": "dvfs", "params": {"beta": 0.6, "ref_ghz": 2.0}},
    {"pattern": "lulesh_r1", "kind": "cos", "params": {
      "alpha": [2.0, 1.5, -0.5, -1.0],
      "base": {"at": {"cpu_ghz": 1.2, "mem_ghz": 1.333}, "t": 10, "ts": 4, "llcm": 1.5, "tpi": 0.8}}},
    {"pattern": "bgq_*", "kind": "cos-bgq", "params": {"alpha_knee": 2000, "c1": 20, "beta": 1, "c2": 0, "l2m": 5e6, "inst": 2.5e8, "clock_ghz": 1.6}},
    {"pattern": "tab", "kind": "table", "params": {"key": "tab", "rows": [
      {"key": "tab", "config": {"cpu_ghz": 1.2, "mem_ghz": 1.333}, "seconds": 20, "watts": 30},
      {"key": "tab", "config": {"cpu_ghz": 2.4, "mem_ghz": 1.6}, "seconds": 10, "watts": 50}]}}
  ]
}`

func TestDecodeAndPredict(t *testing.T) {
	f, set, err := Decode(strings.NewReader(example), "example.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Regions) != 4 || len(set.Rules) != 4 {
		t.Fatalf("rules %d", len(set.Rules))
	}
	target := compute.Config{CPUFreqGHz: 2.4, MemFreqGHz: 1.6}
	tests := []struct {
		region string
		sec    float64
		want   float64
		kind   compute.Kind
	}{
		{"other", 3, 3, compute.KindMeasured},
		{"lulesh_r1", 10, 4.4, compute.KindCOSIntel}, // cos_test.go's t1 hand case
		{"tab", 2, 1, compute.KindTable},
		// β 0.6 at 2 GHz: T(f) ∝ 0.4 + 1.2/f; 1.2 → 2.4 GHz: 0.9/1.4.
		{"solve_x", 14, 9, compute.KindDVFS},
	}
	for _, tc := range tests {
		p, _, err := Predict(set, tc.region, tc.sec, target)
		if err != nil {
			t.Fatal(err)
		}
		if d := p.Seconds - tc.want; d > 1e-12 || d < -1e-12 || p.Kind != tc.kind {
			t.Errorf("%s: %g s (%s), want %g (%s)", tc.region, p.Seconds, p.Kind, tc.want, tc.kind)
		}
	}
	p, _, err := Predict(set, "bgq_r2", 0.625, compute.Config{MemThrottle: 100})
	if err != nil || p.Seconds != 0.75 {
		t.Errorf("bgq: %g (%v), want 0.75 (Eq. 11 hinge by hand)", p.Seconds, err)
	}

	// Round trip through Encode.
	var buf bytes.Buffer
	if err := f.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	f2, _, err := Decode(&buf, "again", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f2.Regions) != 4 || f2.Recorded != f.Recorded {
		t.Errorf("round trip lost data: %+v", f2)
	}
}

func TestPricerFromFile(t *testing.T) {
	_, set, err := Decode(strings.NewReader(example), "example.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	b := graph.NewBuilder(1)
	op := graph.CalcOp(10_000_000_000) // 10 s of lulesh_r1
	op.Region = b.Region("lulesh_r1")
	b.Add(0, op)
	b.Add(0, graph.CalcOp(5))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	p, err := compute.NewPricer(g, set, compute.Target{Default: compute.Config{CPUFreqGHz: 2.4, MemFreqGHz: 1.6}})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.CalcDuration(0, 0); got != 4_400_000_000 {
		t.Errorf("priced %d ns, want 4.4e9", got)
	}
	if got := p.CalcDuration(1, 0); got != 5 {
		t.Errorf("region-less op %d, want 5", got)
	}
}

func TestDecodeErrors(t *testing.T) {
	edit := func(from, to string) string { return strings.Replace(example, from, to, 1) }
	tests := map[string]string{
		"format":        edit(`"capsim-compute-model"`, `"other"`),
		"version":       edit(`"version": 1`, `"version": 2`),
		"unknown kind":  edit(`"kind": "dvfs"`, `"kind": "magic"`),
		"unknown param": edit(`"beta": 0.6`, `"betta": 0.6`),
		"bad pattern":   edit(`"solve_*"`, `"solve_["`),
		"no ref":        edit(`"ref_ghz": 2.0`, `"ref_ghz": 0`),
		"bgq mode":      edit(`"clock_ghz": 1.6`, `"clock_ghz": 1.6, "mode": "bent"`),
		"top field":     edit(`"version": 1`, `"version": 1, "extra": 1`),
		"not json":      "{",
	}
	for name, in := range tests {
		if _, _, err := Decode(strings.NewReader(in), "m.json", nil); err == nil {
			t.Errorf("%s: want error", name)
		} else if !strings.Contains(err.Error(), "m.json") {
			t.Errorf("%s: error %q does not name the file", name, err)
		}
	}
}

func TestExtraDecoders(t *testing.T) {
	in := edit1(`"kind": "dvfs"`, `"kind": "accel"`)
	called := false
	extra := Decoders{"accel": func(p json.RawMessage) (compute.Model, error) {
		called = true
		return compute.Measured{Scale: 0.5}, nil
	}}
	_, set, err := Decode(strings.NewReader(in), "m.json", extra)
	if err != nil || !called {
		t.Fatalf("extra decoder: %v called=%v", err, called)
	}
	p, _, _ := Predict(set, "solve_a", 4, compute.Config{})
	if p.Seconds != 2 {
		t.Errorf("accel stand-in: %g, want 2", p.Seconds)
	}
}

func edit1(from, to string) string { return strings.Replace(example, from, to, 1) }

const dvfsCSV = `region,cpu_ghz,seconds,watts
solve,2.0,10,100
solve,1.0,16,60
io,2.0,5,50
io,1.0,5,40
`

func TestFitDVFS(t *testing.T) {
	ss, err := ReadSamples(strings.NewReader(dvfsCSV), "runs.csv")
	if err != nil {
		t.Fatal(err)
	}
	f, reps, err := Fit(ss, FitOptions{Kind: compute.KindDVFS, Recorded: compute.Config{CPUFreqGHz: 2.0}})
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 2 || reps[0].Region != "io" || reps[1].Region != "solve" {
		t.Fatalf("reports %v", reps)
	}
	var buf bytes.Buffer
	if err := f.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	_, set, err := Decode(&buf, "fitted.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	m, _, _ := set.Lookup("solve")
	if d := m.(*dvfs.Model); d.Beta < 0.6-1e-12 || d.Beta > 0.6+1e-12 {
		t.Errorf("solve β = %g, want 0.6", d.Beta)
	}
	p, _, err := Predict(set, "solve", 10, compute.Config{CPUFreqGHz: 1.5})
	if err != nil || p.Seconds < 12-1e-12 || p.Seconds > 12+1e-12 || p.Watts != 80 {
		t.Errorf("solve at 1.5 GHz: %+v %v, want 12 s at 80 W (interpolated)", p, err)
	}
	p, _, _ = Predict(set, "io", 5, compute.Config{CPUFreqGHz: 1.0})
	if p.Seconds != 5 || p.Watts != 40 {
		t.Errorf("io at 1 GHz: %+v, want 5 s at 40 W", p)
	}
}

func TestFitCOSAndTable(t *testing.T) {
	// Measurements of one region at 4 threads (synthetic): the fit must
	// run, pick the 1.2 GHz baseline, and report its rank.
	csv := `region,cpu_ghz,mem_ghz,threads,seconds,ts,llcm,tpi
r,1.2,1.333,4,10,4,1.5,0.8
r,2.4,1.333,4,7,3.5,1.4,0.5
r,1.8,1.6,4,8,3.6,1.45,0.6
r,2.4,1.6,4,6.6,3.4,1.4,0.45
r,1.2,1.6,4,9.6,3.8,1.5,0.78
`
	ss, err := ReadSamples(strings.NewReader(csv), "cos.csv")
	if err != nil {
		t.Fatal(err)
	}
	f, reps, err := Fit(ss, FitOptions{Kind: compute.KindCOSIntel})
	if err != nil {
		t.Fatal(err)
	}
	if reps[0].N != 20 || !strings.Contains(reps[0].Stats, "rank 4") {
		t.Errorf("report %v, want 20 pair rows of rank 4", reps[0])
	}
	set, err := f.Set(nil)
	if err != nil {
		t.Fatal(err)
	}
	m, _, _ := set.Lookup("r")
	if c := m.(*cos.Intel); c.Base.T != 10 || c.Base.At.CPUFreqGHz != 1.2 {
		t.Errorf("baseline %+v, want the 1.2 GHz run", c.Base)
	}

	f, _, err = Fit(ss, FitOptions{Kind: compute.KindTable, Recorded: compute.Config{CPUFreqGHz: 1.2, MemFreqGHz: 1.333, Threads: 4}})
	if err != nil {
		t.Fatal(err)
	}
	set, _ = f.Set(nil)
	p, _, err := Predict(set, "r", 5, compute.Config{CPUFreqGHz: 2.4, MemFreqGHz: 1.6, Threads: 4})
	if err != nil || p.Seconds != 3.3 {
		t.Errorf("table: %+v %v, want 3.3", p, err)
	}
	if _, _, err := Fit(ss, FitOptions{Kind: "nope"}); err == nil {
		t.Error("unknown kind: want error")
	}
}

func TestReadSamplesErrors(t *testing.T) {
	for name, in := range map[string]string{
		"empty":        "",
		"no region":    "cpu_ghz,seconds\n1,1\n",
		"bad column":   "region,seconds,x\na,1,2\n",
		"negative":     "region,seconds,ts\na,1,-2\n",
		"zero seconds": "region,seconds\na,0\n",
		"no rows":      "region,seconds\n",
	} {
		if _, err := ReadSamples(strings.NewReader(in), "s.csv"); err == nil || !strings.Contains(err.Error(), "s.csv") {
			t.Errorf("%s: error %v, want one naming s.csv", name, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(example)
	f.Add(`{"format":"capsim-compute-model","version":1,"regions":[{"pattern":"*","kind":"table","params":{"rows":[]}}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		_, set, err := Decode(strings.NewReader(in), "fuzz", nil)
		if err != nil {
			return
		}
		if !json.Valid([]byte(in)) {
			t.Fatalf("accepted a file that is not one JSON value (trailing data): %q", in)
		}
		var v any
		if json.Unmarshal([]byte(in), &v) == nil && hasNull(v) {
			t.Fatalf("accepted a file with a null value (decoded as 0): %q", in)
		}
		for _, r := range set.Rules {
			_, _ = r.Model.Predict(compute.Work{Seconds: 1, At: set.Recorded}, compute.Config{CPUFreqGHz: 2, MemThrottle: 10})
		}
	})
}

func FuzzReadSamples(f *testing.F) {
	f.Add(dvfsCSV)
	f.Add("region,threads,seconds\na,4,1\n")
	f.Add("region,cpu_ghz,seconds\na,2600,1\n")
	f.Fuzz(func(t *testing.T, in string) {
		ss, err := ReadSamples(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, s := range ss {
			if s.Region == "" || !(s.Seconds > 0) || s.Config.CPUFreqGHz > compute.MaxGHz || s.Config.MemFreqGHz > compute.MaxGHz {
				t.Fatalf("accepted bad sample %+v", s)
			}
		}
		for _, k := range []compute.Kind{compute.KindTable, compute.KindDVFS, compute.KindCOSIntel} {
			_, _, _ = Fit(ss, FitOptions{Kind: k})
		}
	})
}

func TestParseMachine(t *testing.T) {
	tests := []struct {
		in   string
		want Machine
		err  bool
	}{
		{"base=60,idle=4,active=18", Machine{BaseW: 60, IdleW: 4, ActiveW: 18}, false},
		{" active = 10 ", Machine{ActiveW: 10}, false},
		{"idle=5,active=4", Machine{}, true}, // active below idle
		{"base=-1", Machine{}, true},
		{"base=NaN", Machine{}, true},
		{"volts=1", Machine{}, true},
		{"base=1,base=2", Machine{}, true},
		{"", Machine{}, true},
	}
	for _, tc := range tests {
		got, err := ParseMachine(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseMachine(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func FuzzParseMachine(f *testing.F) {
	f.Add("base=60,idle=4,active=18")
	f.Add("active=1e308,idle=1e-300")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMachine(s)
		if err != nil {
			return
		}
		if m.Validate() != nil || m.ActiveW < m.IdleW {
			t.Fatalf("accepted invalid %+v from %q", m, s)
		}
	})
}

// JSON errors name the line of the file they are on.
func TestDecodeErrorLines(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"{\n \"format\": \"capsim-compute-model\",\n \"version\": \"x\"\n}\n", "m.json:3: json: cannot unmarshal string"},
		{"{\n\n  \"format\": ,\n}", "m.json:3: invalid character ','"},
		{"nope", "m.json:1: invalid character 'o'"},
	} {
		_, _, err := Decode(strings.NewReader(tc.text), "m.json", nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.text, err, tc.want)
		}
	}
}

// Every model parameter is checked for range, naming the entry and the
// parameter; before, these decoded and priced to NaN, infinite or
// negative times.
func TestDecodeRanges(t *testing.T) {
	edit := func(from, to string) string {
		if !strings.Contains(example, from) {
			t.Fatalf("example lacks %q", from)
		}
		return strings.Replace(example, from, to, 1)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"beta above 1", edit(`"beta": 0.6`, `"beta": 1.5`), `regions[0] "solve_*" (dvfs): beta = 1.5: want a number in [0, 1]`},
		{"beta negative", edit(`"beta": 0.6`, `"beta": -0.5`), "beta = -0.5"},
		{"negative scale", edit(`"scale": 1`, `"scale": -2`), "default model (measured): scale = -2"},
		{"negative watts", edit(`"scale": 1`, `"scale": 1, "watts": -5`), "watts = -5"},
		{"negative min_ghz", edit(`"ref_ghz": 2.0`, `"ref_ghz": 2.0, "min_ghz": -1`), "min_ghz = -1"},
		{"negative l2m", edit(`"l2m": 5e6`, `"l2m": -5e6`), `regions[2] "bgq_*" (cos-bgq): l2m = -5e+06`},
		{"bgq to infinity", edit(`"beta": 1, "c2": 0, "l2m": 5e6`, `"beta": 1e308, "c2": 0, "l2m": 1e308`), "slope (beta·l2m + c2) = +Inf"},
		{"cos to infinity", edit(`"alpha": [2.0, 1.5, -0.5, -1.0]`, `"alpha": [1e308, 1e308, 1e308, 1e308]`), `regions[1] "lulesh_r1" (cos): prices 1 recorded second`},
		{"negative recorded frequency", edit(`"recorded": {"cpu_ghz": 1.2`, `"recorded": {"cpu_ghz": -1.2`), "recorded: configuration cpu_ghz = -1.2"},
		{"negative table frequency", edit(`"config": {"cpu_ghz": 2.4`, `"config": {"cpu_ghz": -2.4`), "cpu_ghz = -2.4"},
		// A model's own clocks in MHz are refused: read as GHz, a region
		// would be priced against a reference of 2000 GHz, or marked
		// extrapolated.
		{"dvfs reference clock in MHz", edit(`"ref_ghz": 2.0`, `"ref_ghz": 2000`), `regions[0] "solve_*" (dvfs): ref_ghz: 2000 GHz is past 100 GHz (compute.MaxGHz): a clock in MHz?`},
		{"dvfs fitted range in MHz", edit(`"ref_ghz": 2.0`, `"ref_ghz": 2.0, "min_ghz": 1.2, "max_ghz": 2600`), "max_ghz: 2600 GHz is past 100 GHz"},
		{"dvfs fitted range reversed", edit(`"ref_ghz": 2.0`, `"ref_ghz": 2.0, "min_ghz": 2.6, "max_ghz": 1.2`), "min_ghz 2.6 is above max_ghz 1.2"},
		{"dvfs power clocks in MHz", edit(`"ref_ghz": 2.0`, `"ref_ghz": 2.0, "power": [{"ghz": 2000, "watts": 10}]`), "power: P-state: 2000 GHz is past 100 GHz"},
		{"bgq clock in MHz", edit(`"clock_ghz": 1.6`, `"clock_ghz": 1600`), `regions[2] "bgq_*" (cos-bgq): clock_ghz: 1600 GHz is past 100 GHz`},
	} {
		_, _, err := Decode(strings.NewReader(tc.in), "m.json", nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "m.json") {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
}

// hasNull reports whether a decoded JSON value holds a null anywhere.
func hasNull(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case []any:
		for _, e := range x {
			if hasNull(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if hasNull(e) {
				return true
			}
		}
	}
	return false
}
