package models

import (
	"math"
	"strings"
	"testing"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/accel"
	"github.com/capsim/capsim/compute/modelfile"
)

// The stand-in per-block model file of the HYCOM and Milc studies of
// Meswani et al. (Tables VI–IX)
// through the model-file path: the target device (one device or a "+" set)
// is the allowed set, the policy places the blocks. Recorded work of one
// execution of a region is its Table VI/VII CPU time. Expected values are
// the paper's Tables VI–IX (seconds over 256 tasks, r = 0).
func TestOffloadInstancesMeswani(t *testing.T) {
	_, set, err := Load("../../examples/models/meswani-standin.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		region, policy, device string
		work, want             float64
		offloaded              int // instances on a device
	}{
		{"hycom.stream", PolicyBlind, "gpu", 28459, 44166, 3},
		{"hycom.stream", PolicyBlind, "fpga", 28459, 2302, 3},
		{"hycom.stream", PolicyPerRegion, "gpu", 28459, 28459, 0},
		{"hycom.stream", PolicyWhenFaster, "gpu", 28459, 28459, 0},
		{"hycom.stream", PolicyPerInstance, "gpu", 28459, 6096, 1},
		{"hycom.stream", PolicyPerInstance, "fpga", 28459, 2297, 2},
		{"hycom.stream", PolicyPerInstance, "fpga+gpu", 28459, 2149, 2},
		{"hycom.stream", PolicyPerRegion, "fpga+gpu", 28459, 2302, 3},
		{"hycom.stream", PolicyNever, "fpga+gpu", 28459, 28459, 0},
		{"hycom.gather_scatter", PolicyPerInstance, "fpga+gpu", 7768, 448, 2},
		{"hycom.gather_scatter", PolicyPerRegion, "gpu", 7768, 638, 2},
		{"milc.stream", PolicyPerInstance, "fpga+gpu", 10452, 765, 3},
		{"milc.stream", PolicyPerInstance, "gpu+fpga", 10452, 765, 3},
		{"milc.gather_scatter", PolicyPerInstance, "fpga+gpu", 2376, 334, 1},
		// Ten executions take ten times as long (ratio method).
		{"hycom.stream", PolicyPerInstance, "gpu", 284590, 60960, 1},
	} {
		m, _, err := set.Lookup(tc.region)
		if err != nil {
			t.Fatal(err)
		}
		off := *m.(*Offload)
		off.Policy = tc.policy
		rep, err := off.Decide(compute.Work{Seconds: tc.work, At: set.Recorded}, compute.Config{Device: tc.device})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range rep.Instances {
			if c.Device != "" {
				n++
			}
		}
		if math.Abs(rep.Pred.Seconds-tc.want) > 1e-6*tc.want || n != tc.offloaded || rep.Offloaded != (n > 0) {
			t.Errorf("%s %s on %s: %.6f s with %d blocks offloaded (%v), paper %g s, want %d blocks",
				tc.region, tc.policy, tc.device, rep.Pred.Seconds, n, rep.Offloaded, tc.want, tc.offloaded)
		}
	}
	// The per-block choices of HYCOM stream over {CPU, GPU, FPGA}: the
	// small block stays on the CPU, the mid-size one (too small for the
	// GPU) goes to the FPGA, the large one to the GPU.
	m, _, _ := set.Lookup("hycom.stream")
	rep, err := m.(*Offload).Decide(compute.Work{Seconds: 28459}, compute.Config{Device: "fpga+gpu"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range rep.Instances {
		got = append(got, c.Instance+"="+c.Device)
	}
	if want := "hycom.stream.small= hycom.stream.mid=fpga hycom.stream.large=gpu"; strings.Join(got, " ") != want {
		t.Errorf("choices %q, want %q", strings.Join(got, " "), want)
	}
}

// Host times follow the CPU model at the target: with the host twice as
// slow (measured, scale 2) block B2 of T6 (5 s host, 20 s device) still
// stays on the host at 10 s, B1 and B3 go to the device; the power is the
// time-weighted mix of host and device power.
func TestOffloadInstancesHostModel(t *testing.T) {
	host, _ := modelfile.NewEntry("", compute.Measured{Scale: 2, Watts: 50})
	prof := accel.Profile{Version: 1, Devices: []accel.Device{{Name: "gpu", Idioms: map[string]accel.Curve{"k": accel.Constant(1)}, Transfer: accel.Transfer{GBps: 1}}}}
	m := &Offload{Profile: prof, Policy: PolicyPerInstance, DeviceWatts: 200, CPU: &host, Instances: []accel.Instance{
		{Name: "B1", Idiom: "k", Footprint: 1, Bytes: 2e9, CPUTime: 10},
		{Name: "B2", Idiom: "k", Footprint: 1, Bytes: 20e9, CPUTime: 5},
		{Name: "B3", Idiom: "k", Footprint: 1, Bytes: 4e9, CPUTime: 8},
	}}
	if err := m.Init(nil); err != nil {
		t.Fatal(err)
	}
	rep, err := m.Decide(compute.Work{Seconds: 23}, compute.Config{Device: "gpu"})
	if err != nil {
		t.Fatal(err)
	}
	// 2 + 10 + 4 = 16 s; power (50·10 + 200·6)/16 = 106.25 W.
	if p := rep.Pred; p.Seconds != 16 || p.Watts != 106.25 || p.Kind != KindAccel || rep.CPU != 46 {
		t.Errorf("prediction %+v, host %g s; want 16 s at 106.25 W, host 46 s", p, rep.CPU)
	}
	if rep.DeviceS != 6 || rep.TransferS != 0 || rep.HostS != 10 {
		t.Errorf("device %g s transfer %g s host %g s, want 6, 0 and 10", rep.DeviceS, rep.TransferS, rep.HostS)
	}
	// On the host the nested model prices all of it.
	if p, err := m.Predict(compute.Work{Seconds: 23}, compute.Config{}); err != nil || p.Seconds != 46 || p.Watts != 50 {
		t.Errorf("host: %+v %v", p, err)
	}
}

func TestOffloadInstancesErrors(t *testing.T) {
	inst := []accel.Instance{{Idiom: "stream", Footprint: 1e6, CPUTime: 1}}
	for _, tc := range []struct {
		m    Offload
		want string
	}{
		{Offload{Profile: t3Profile(), Policy: PolicyPerInstance, Instances: inst, Idiom: "stream"}, "per instance"},
		{Offload{Profile: t3Profile(), Policy: PolicyPerInstance, Instances: inst, CPUSeconds: 1}, "per instance"},
		{Offload{Profile: t3Profile(), Policy: PolicyPerInstance, Instances: []accel.Instance{{Idiom: "gather", Footprint: 1}}}, `instance "#1": no cpu_s`},
		{Offload{Profile: t3Profile(), Policy: PolicyPerInstance, Instances: []accel.Instance{{Mix: []accel.Share{{Idiom: "stream", Fraction: 0.7}}, Footprint: 1, CPUTime: 1}}}, "sum to 0.7"},
		{Offload{Profile: t3Profile(), Policy: "best", Instances: inst}, `policy "best"`},
		{Offload{Profile: t3Profile(), Policy: PolicyNever, Footprint: 1, CPUSeconds: 1}, "give the region's idiom"},
		// An idiom no device runs (a misspelling) would keep the region on the host.
		{Offload{Profile: t3Profile(), Policy: PolicyPerInstance, Instances: []accel.Instance{{Idiom: "strem", Footprint: 1, CPUTime: 1}}}, `idiom "strem" is run by no device of the profile (fpga: stream)`},
		{Offload{Profile: t3Profile(), Policy: PolicyPerRegion, Idiom: "nosuch", Footprint: 1, CPUSeconds: 1}, `idiom "nosuch" is run by no device`},
		{Offload{Profile: t3Profile(), Policy: PolicyPerRegion, Idiom: "stream", Footprint: 1, CPUSeconds: 1, DeviceWatts: 1e308}, "device_watts: want a finite power"},
	} {
		if err := tc.m.Init(nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.m, err, tc.want)
		}
	}
	m := &Offload{Profile: t3Profile(), Policy: PolicyPerInstance, Instances: inst}
	if err := m.Init(nil); err != nil {
		t.Fatal(err)
	}
	for dev, want := range map[string]string{"fpga+gpu": `device "gpu" is not in the profile`, "fpga++": "empty device name"} {
		if _, err := m.Decide(compute.Work{Seconds: 1}, compute.Config{Device: dev}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("device %q: %v, want %q", dev, err, want)
		}
	}
}
