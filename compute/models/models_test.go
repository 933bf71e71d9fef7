package models

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/accel"
	"github.com/capsim/capsim/compute/eiger"
	"github.com/capsim/capsim/compute/modelfile"
)

// t3Profile is the offload case of accel's TestOffloadVsRT3: CPU stream
// 10 GB/s, the FPGA stream curve
// of Eq. 2, transfer L = 10 µs, B∞ = 4 GB/s, one direction, exposed_size.
func t3Profile() accel.Profile {
	return accel.Profile{
		Version: 1,
		CPU:     map[string]accel.Curve{"stream": accel.Constant(10)},
		Devices: []accel.Device{{
			Name:     "fpga",
			Idioms:   map[string]accel.Curve{"stream": {A: 13.59, B: -159.2, Sat: 4194304, Plateau: 53}},
			Transfer: accel.Transfer{Latency: 10e-6, GBps: 4, Directions: 1, Mode: accel.ExposedSize},
		}},
	}
}

func TestOffloadNote004T3T4(t *testing.T) {
	tests := []struct {
		name      string
		d, r      float64
		policy    string
		wantUS    float64
		offloaded bool
	}{
		{"T3 r=0 offloads", 8388608, 0, PolicyWhenFaster, 158.276, true},
		{"T3 r=0.3 offloads", 8388608, 0.3, PolicyWhenFaster, 797.421, true},
		{"T3 r=0.4 stays on the CPU", 8388608, 0.4, PolicyWhenFaster, 838.861, false},
		{"T3 r=1 blind porting loses", 8388608, 1, PolicyAlways, 2265.428, true},
		{"T3 never", 8388608, 0, PolicyNever, 838.861, false},
		{"T4 D=1MiB r=0.2", 1048576, 0.2, PolicyWhenFaster, 98.342, true},
		{"T4 D=1MiB r=0.3", 1048576, 0.3, PolicyWhenFaster, 104.858, false},
		{"T4 D=256KiB r=0 offloads", 262144, 0, PolicyWhenFaster, 25.309, true},
		{"T4 D=256KiB r=0.01 latency kills it", 262144, 0.01, PolicyWhenFaster, 26.214, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &Offload{Profile: t3Profile(), Idiom: "stream", Footprint: tc.d, Ratio: tc.r, Policy: tc.policy}
			if err := m.Init(nil); err != nil {
				t.Fatal(err)
			}
			cpu := tc.d / 10e9 // one recorded instance on the host
			rep, err := m.Decide(compute.Work{Seconds: cpu}, compute.Config{Device: "fpga"})
			if err != nil {
				t.Fatal(err)
			}
			if got := rep.Pred.Seconds * 1e6; math.Abs(got-tc.wantUS) > 1e-3 || rep.Offloaded != tc.offloaded {
				t.Errorf("time %.3f µs offloaded %v, want %.3f µs offloaded %v", got, rep.Offloaded, tc.wantUS, tc.offloaded)
			}
			// Ten recorded instances take ten times as long (ratio method).
			p, err := m.Predict(compute.Work{Seconds: 10 * cpu}, compute.Config{Device: "fpga"})
			if err != nil || math.Abs(p.Seconds*1e6-10*tc.wantUS) > 1e-2 {
				t.Errorf("10 instances: %.3f µs, %v; want %.3f", p.Seconds*1e6, err, 10*tc.wantUS)
			}
		})
	}
}

func TestOffloadHostModelAndErrors(t *testing.T) {
	host, _ := modelfile.NewEntry("", compute.Measured{Scale: 2, Watts: 50})
	m := &Offload{Profile: t3Profile(), Idiom: "stream", Footprint: 8388608, Policy: PolicyWhenFaster, CPU: &host, CPUSeconds: 1e-3, DeviceWatts: 30}
	if err := m.Init(nil); err != nil {
		t.Fatal(err)
	}
	p, err := m.Predict(compute.Work{Seconds: 2e-3}, compute.Config{})
	if err != nil || p.Seconds != 4e-3 || p.Watts != 50 {
		t.Errorf("host: %+v %v, want 4 ms at 50 W", p, err)
	}
	// Two instances of 1 ms: device 2×158.276 µs at r = 0.
	p, err = m.Predict(compute.Work{Seconds: 2e-3}, compute.Config{Device: "fpga"})
	if err != nil || math.Abs(p.Seconds-2*158.276e-6) > 1e-9 || p.Watts != 30 || p.Kind != KindAccel {
		t.Errorf("device: %+v %v", p, err)
	}
	if _, err := m.Predict(compute.Work{Seconds: 1}, compute.Config{Device: "gpu9"}); err == nil || !strings.Contains(err.Error(), "gpu9") {
		t.Errorf("unknown device: %v", err)
	}
	bad := []Offload{
		{Profile: t3Profile(), Idiom: "stream", Footprint: 1, Policy: "sometimes"},
		{Profile: t3Profile(), Idiom: "stream", Footprint: 0, Policy: PolicyNever},
		{Profile: t3Profile(), Idiom: "stream", Footprint: 1e6, Ratio: 2, Policy: PolicyNever},
		{Profile: t3Profile(), Idiom: "gather", Footprint: 1e6, Policy: PolicyNever}, // no cpu_s, no CPU curve
	}
	for i, b := range bad {
		if err := b.Init(nil); err == nil {
			t.Errorf("bad[%d] accepted", i)
		}
	}
}

// An Eiger model of T = 1 + 6/f recovers the ratio of that formula.
func TestEigerRatio(t *testing.T) {
	var X [][]float64
	var y []float64
	for _, f := range []float64{1.2, 1.4, 1.6, 1.8, 2.0, 2.2, 2.4, 2.6} {
		for _, n := range []float64{100, 200} {
			X = append(X, []float64{f, n})
			y = append(y, 1+6/f+0.01*n)
		}
	}
	e, err := eiger.Fit([]string{InputCPU, "n"}, X, y, eiger.Options{Threshold: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	m := &Eiger{Time: e, Fixed: map[string]float64{"n": 100}}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	p, err := m.Predict(compute.Work{Seconds: 3, At: compute.Config{CPUFreqGHz: 2.6}}, compute.Config{CPUFreqGHz: 1.6})
	want := 3 * (1 + 6/1.6 + 1) / (1 + 6/2.6 + 1)
	if err != nil || math.Abs(p.Seconds-want) > 1e-6 || p.Flags&compute.NoPower == 0 {
		t.Errorf("predict: %+v %v, want %.6f s", p, err, want)
	}
	if _, err := m.Predict(compute.Work{Seconds: 1, At: compute.Config{CPUFreqGHz: 2.6}}, compute.Config{}); err == nil {
		t.Error("missing cpu_ghz accepted")
	}
	if err := (&Eiger{Time: e}).Validate(); err == nil || !strings.Contains(err.Error(), `"n"`) {
		t.Errorf("missing fixed n: %v", err)
	}
}

func TestDecodersLoadFile(t *testing.T) {
	_, set, err := Load("testdata/offload.json")
	if err != nil {
		t.Fatal(err)
	}
	m, pat, err := set.Lookup("triad")
	if err != nil || pat != "triad" || m.Kind() != KindAccel {
		t.Fatalf("lookup: %v %q %v", m, pat, err)
	}
	p, _, err := modelfile.Predict(set, "triad", 838.861e-6, compute.Config{CPUFreqGHz: 2.6, Device: "fpga-hc1"})
	if err != nil || math.Abs(p.Seconds*1e6-797.421) > 1e-3 {
		t.Errorf("triad offloaded: %v µs %v, want 797.421", p.Seconds*1e6, err)
	}
	// On the host the nested DVFS model prices 1.3 GHz: β = 0.5 → ×1.5.
	p, _, err = modelfile.Predict(set, "triad", 1, compute.Config{CPUFreqGHz: 1.3})
	if err != nil || math.Abs(p.Seconds-1.5) > 1e-12 {
		t.Errorf("triad on host: %v %v, want 1.5 s", p.Seconds, err)
	}
	for _, in := range []string{
		`{"format":"capsim-compute-model","version":1,"recorded":{},"regions":[{"pattern":"a","kind":"accel","params":{"policy":"x"}}]}`,
		`{"format":"capsim-compute-model","version":1,"recorded":{},"regions":[{"pattern":"a","kind":"eiger","params":{}}]}`,
	} {
		if _, _, err := modelfile.Decode(strings.NewReader(in), "bad.json", Decoders()); err == nil {
			t.Errorf("accepted %s", in)
		}
	}
}

func FuzzDecodeOffload(f *testing.F) {
	b, _ := json.Marshal(Offload{Profile: t3Profile(), Idiom: "stream", Footprint: 1e6, Ratio: 0.1, Policy: PolicyWhenFaster})
	f.Add(string(b))
	f.Add(`{"profile":{"version":1,"devices":[]},"idiom":"x","footprint_bytes":1,"cpu_s":1,"policy":"never","cpu":{"kind":"dvfs","params":{"beta":1,"ref_ghz":2}}}`)
	f.Add(`{"profile":{"version":1,"devices":[{"name":"fpga","idioms":{"stream":{"plateau_gbps":50},"scatter":{"plateau_gbps":20}},"transfer":{"gbps":4}}]},"ratio":0.2,"policy":"per-instance","instances":[{"name":"bfs","mix":[{"idiom":"scatter","fraction":0.5},{"idiom":"stream","fraction":0.5}],"footprint_bytes":2e9,"count":3,"cpu_s":0.5},{"idiom":"stream","footprint_bytes":1e5,"cpu_s":1e-4}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		m, err := DecodeOffload(json.RawMessage(in), Decoders())
		if err != nil {
			return
		}
		for _, dev := range []string{"", "fpga", "fpga+gpu"} {
			p, err := m.Predict(compute.Work{Seconds: 1, At: compute.Config{CPUFreqGHz: 2}}, compute.Config{CPUFreqGHz: 1, Device: dev})
			if err == nil && (p.Seconds < 0 || math.IsNaN(p.Seconds)) {
				t.Fatalf("prediction %+v from %s", p, in)
			}
		}
	})
}

func FuzzDecodeEiger(f *testing.F) {
	var X [][]float64
	var y []float64
	for _, ghz := range []float64{1.2, 1.6, 2.0, 2.6} {
		X = append(X, []float64{ghz, 7})
		y = append(y, 1+6/ghz)
	}
	e, err := eiger.Fit([]string{InputCPU, "n"}, X, y, eiger.Options{Threshold: 1e-6})
	if err != nil {
		f.Fatal(err)
	}
	b, _ := json.Marshal(&Eiger{Time: e, Fixed: map[string]float64{"n": 7}})
	f.Add(string(b))
	f.Add(`{"time":{"version":1,"names":["threads"],"params":[0],"mean":[1],"std":[1],"clusters":[{"center":null,"terms":[{"kind":1,"i":0}],"beta":[0,1],"stats":{"n":1,"r2":1,"adj_r2":1,"mape":0}}]}}`)
	f.Fuzz(func(t *testing.T, in string) {
		m, err := DecodeEiger(json.RawMessage(in))
		if err != nil {
			return
		}
		at := compute.Config{CPUFreqGHz: 2, Threads: 2, MemFreqGHz: 1, MemThrottle: 1}
		p, err := m.Predict(compute.Work{Seconds: 1, At: at}, compute.Config{CPUFreqGHz: 1, Threads: 1, MemFreqGHz: 2, MemThrottle: 2})
		if err == nil && (p.Seconds < 0 || math.IsNaN(p.Seconds)) {
			t.Fatalf("prediction %+v from %s", p, in)
		}
	})
}
