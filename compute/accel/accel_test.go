package accel

import (
	"math"
	"os"
	"strings"
	"testing"
)

var fpgaStream = Curve{A: 13.59, B: -159.2, Sat: 4194304, Plateau: 53.0}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.6f, want %.6f (±%g)", what, got, want, tol)
	}
}

// Values of the FPGA stream curve of Eq. 2 (Meswani et al.), worked out
// by hand, GB = 1e9; below about 122 KB the curve is negative (invalid).
func TestEq2CurveT1(t *testing.T) {
	for _, c := range []struct{ d, bw float64 }{
		{1048576, 29.197}, {2097152, 38.617}, {4194304, 48.037}, {4194305, 53.0},
		{8388608, 53.0}, {262144, 10.358}, {524288, 19.778}, {100000, -2.739},
	} {
		near(t, "BW", fpgaStream.BW(c.d), c.bw, 0.001)
	}
	if _, ok := fpgaStream.Time(100000, 100000); ok {
		t.Error("curve must be invalid at 100,000 B")
	}
	near(t, "zero crossing", math.Exp(159.2/13.59), 122332.2, 0.1)
}

// Times V/BW(D) on the Eq. 2 stream curve, worked out by hand (GB = 1e9).
func TestEq2TimesT2(t *testing.T) {
	for _, c := range []struct{ d, us, tol float64 }{
		{8388608, 158.276, 0.001}, {1048576, 35.913, 0.001}, {1e8, 1887, 1},
	} {
		tm, _ := fpgaStream.Time(c.d, c.d)
		near(t, "time µs", tm*1e6, c.us, c.tol)
	}
}

func t3Device() *Device {
	return &Device{Name: "fpga", Idioms: map[string]Curve{"stream": fpgaStream},
		Transfer: Transfer{Latency: 10e-6, GBps: 4}}
}

func cpuRegion(d float64) Region {
	return Region{Name: "r", Idiom: "stream", Footprint: d, CPUTime: d / (10 * GB)}
}

// Offload decision against the transfer ratio r for a saturated 8 MiB
// stream (CPU 10 GB/s, Eq. 2 device, L = 10 µs, 4 GB/s, exposed size):
// break-even r* = (838.861 − 158.276 − 10)/2097.152 = 0.3198.
func TestOffloadVsRT3(t *testing.T) {
	dev, g := t3Device(), cpuRegion(8388608)
	near(t, "CPU µs", g.CPUTime*1e6, 838.861, 0.001)
	for _, c := range []struct {
		r, us float64
		acc   bool
	}{{0, 158.276, true}, {0.1, 377.991, true}, {0.2, 587.706, true}, {0.3, 797.421, true}, {0.4, 1007.136, false}, {1.0, 2265.428, false}} {
		rep := dev.Decide(g, c.r, WhenFaster)
		near(t, "acc total µs", (rep.DeviceTime+rep.XferTime)*1e6, c.us, 0.001)
		if rep.Offloaded != c.acc {
			t.Errorf("r=%.1f offloaded=%v want %v", c.r, rep.Offloaded, c.acc)
		}
	}
	near(t, "r*", dev.BreakEven(g), 0.3198, 0.00005)
}

// The same setup on smaller regions: 1 MiB breaks even at r* = 0.2249,
// and at 256 KiB the fixed latency alone keeps any r > 0 on the CPU.
func TestSmallRegionsT4(t *testing.T) {
	dev := t3Device()
	g := cpuRegion(1048576)
	near(t, "r=0.2", func() float64 { r := dev.Decide(g, 0.2, WhenFaster); return r.Time * 1e6 }(), 98.342, 0.001)
	r3 := dev.Decide(g, 0.3, WhenFaster)
	if r3.Offloaded {
		t.Error("r=0.3 must stay on CPU")
	}
	near(t, "acc r=0.3", (r3.DeviceTime+r3.XferTime)*1e6, 124.557, 0.001)
	near(t, "r*", dev.BreakEven(g), 0.2249, 0.00005)
	g = cpuRegion(262144)
	if !dev.Decide(g, 0, WhenFaster).Offloaded {
		t.Error("262144 at r=0 must offload")
	}
	r01 := dev.Decide(g, 0.01, WhenFaster)
	if r01.Offloaded {
		t.Error("262144 at r=0.01 must stay on CPU (latency)")
	}
	near(t, "acc r=0.01", (r01.DeviceTime+r01.XferTime)*1e6, 35.965, 0.001)
}

// The two transfer evaluations (L = 10 µs, 4 GB/s): the exposed size
// T_xfer(r·D) against the fraction r·T_xfer(D), the paper's 100 MB / 10 MB
// example of Section VIII.
func TestTransferModesT5(t *testing.T) {
	ex := Transfer{Latency: 10e-6, GBps: 4}
	fr := Transfer{Latency: 10e-6, GBps: 4, Mode: FractionOfFull}
	near(t, "exposed 100MB", ex.Exposed(1e8, 0.1)*1e6, 2510.0, 0.001)
	near(t, "fraction 100MB", fr.Exposed(1e8, 0.1)*1e6, 2501.0, 0.001)
	near(t, "exposed 64K", ex.Exposed(65536, 0.5)*1e6, 18.192, 0.001)
	near(t, "fraction 64K", fr.Exposed(65536, 0.5)*1e6, 13.192, 0.001)
}

// The per-block optimum of three blocks (10, 2), (5, 20), (8, 4) s on
// (CPU, GPU) is 11 s, and the application roll-ups of Meswani et al.
// Tables VI–IX reproduce (Milc 3.39 %, HYCOM 20.01 %).
func TestOptimalAndRollupT6T8(t *testing.T) {
	near(t, "optimal", Optimal([]float64{10, 5, 8}, []float64{2, 20, 4}), 11, 0)
	near(t, "Milc %", 100*Improvement(1350*256, 12827, 1099), 3.39, 0.005)
	near(t, "HYCOM %", 100*Improvement(663*256, 36556, 2596), 20.01, 0.005)
	near(t, "synthetic %", 100*Improvement(1000, 200, 20), 18, 1e-12)
}

// Meswani et al. Section VII (graph500, scale 24): the make_bfs block (a scatter and a
// stream, the half-split rule) predicted 96X faster on the FPGA; with the
// implied CPU time X = 1101.5 s of the 5847 s run, 5847 − X + X/96 =
// 4757 s, an 18.64 % reduction (1.5 % from the measured 4686 s).
func TestGraph500Rollup(t *testing.T) {
	const tapp, x = 5847.0, 1101.5
	ported := tapp * (1 - Improvement(tapp, x, x/96))
	near(t, "ported s", ported, 4757, 0.5)
	near(t, "reduction %", 100*Improvement(tapp, x, x/96), 18.64, 0.005)
}

// Blind porting can lose (as HYCOM's stream on the GPU does in Meswani et
// al. Tables VI–VII): Always against WhenFaster on a curve slow below 2 MiB.
func TestBlindLosesT10(t *testing.T) {
	dev := &Device{Idioms: map[string]Curve{"stream": {Points: []Point{{2097152, 1}, {2097153, 100}}}}, Transfer: Transfer{GBps: 1}}
	g := cpuRegion(1048576)
	near(t, "blind µs", dev.Decide(g, 0, Always).Time*1e6, 1048.576, 0.001)
	if dev.Decide(g, 0, WhenFaster).Offloaded || dev.Decide(g, 0, Never).Offloaded {
		t.Error("optimal/never must keep CPU")
	}
	g = cpuRegion(8388608)
	rep := dev.Decide(g, 0, WhenFaster)
	if !rep.Offloaded {
		t.Error("8 MiB must offload")
	}
	near(t, "gpu µs", rep.Time*1e6, 83.886, 0.001)
}

func TestReadExampleProfile(t *testing.T) {
	f, err := os.Open("testdata/example_profile.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := ReadProfile(f, "example_profile.json")
	if err != nil {
		t.Fatal(err)
	}
	near(t, "BW", p.Devices[0].Idioms["stream"].BW(1048576), 29.197, 0.001)
}

// The per-block optimum through Run: B1 (10,2), B2 (5,20), B3 (8,4) on
// (CPU, GPU), times in s.
func TestRunPerBlockT6(t *testing.T) {
	// Constant device curve of 1 GB/s; Bytes chosen so device time = given seconds.
	dev := &Device{Idioms: map[string]Curve{"k": Constant(1)}, Transfer: Transfer{GBps: 1}}
	regs := []Region{
		{Name: "B1", Idiom: "k", Footprint: 1, Bytes: 2e9, CPUTime: 10},
		{Name: "B2", Idiom: "k", Footprint: 1, Bytes: 20e9, CPUTime: 5},
		{Name: "B3", Idiom: "k", Footprint: 1, Bytes: 4e9, CPUTime: 8},
	}
	_, cpu := Run(dev, regs, 0, Never)
	_, blind := Run(dev, regs, 0, Always)
	reps, opt := Run(dev, regs, 0, WhenFaster)
	near(t, "blind CPU", cpu.Total, 23, 1e-9)
	near(t, "blind GPU", blind.Total, 26, 1e-9)
	near(t, "optimal", opt.Total, 11, 1e-9)
	if !reps[0].Offloaded || reps[1].Offloaded || !reps[2].Offloaded || opt.Offloaded != 2 {
		t.Errorf("choices %+v", reps)
	}
	near(t, "opt cpu part", opt.CPU, 5, 1e-9)
	near(t, "opt dev part", opt.Device, 6, 1e-9)
}

func FuzzReadProfile(f *testing.F) {
	b, err := os.ReadFile("testdata/example_profile.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Fuzz(func(t *testing.T, in string) {
		p, err := ReadProfile(strings.NewReader(in), "f.json")
		if err != nil {
			return
		}
		for i := range p.Devices {
			p.Devices[i].Decide(Region{Idiom: "stream", Footprint: 1e6, CPUTime: 1}, 0.5, WhenFaster)
		}
	})
}

// Tabulated curves interpolate linearly in ln(D) and hold their end values.
func TestTableInterpolation(t *testing.T) {
	c := Curve{Points: []Point{{1000, 1}, {1e6, 50}}}
	near(t, "mid (ln)", c.BW(math.Sqrt(1e9)), 25.5, 1e-9)
	near(t, "below", c.BW(10), 1, 0)
	near(t, "above", c.BW(1e9), 50, 0)
	_, err := ReadProfile(strings.NewReader(`{"version":1,"devices":[{"name":"g","idioms":{},"transfer":{"gbps":1,"mode":"both"}}]}`), "p.json")
	if err == nil || !strings.Contains(err.Error(), `p.json: device "g": unknown transfer mode "both"`) {
		t.Errorf("err %v", err)
	}
}

// A mixed scatter+stream block, each curve at D/2 (the graph500 make_bfs
// block of Meswani et al. Section VII.A.1).
func TestMixedBlockT7(t *testing.T) {
	scatter := Constant(20)
	ts, _ := scatter.Time(1e9, 1e9)
	tm, _ := fpgaStream.Time(1e9, 1e9)
	near(t, "T_BB ms", (ts+tm)*1e3, 68.868, 0.001)
	near(t, "stream ms", tm*1e3, 18.868, 0.001)
}

// The first 2^k grid point where Eq. 2 beats a 10 GB/s CPU:
// 13.59·ln(D) − 159.2 > 10 for D > exp(169.2/13.59) = 255,334.86 B.
func TestCrossoverT12(t *testing.T) {
	near(t, "D_cross", math.Exp(169.2/13.59), 255334.86, 0.01)
	dev, first := t3Device(), 0.0
	for d := 1024.0; d <= 1<<30; d *= 2 {
		if dev.Decide(cpuRegion(d), 0, WhenFaster).Offloaded {
			first = d
			break
		}
	}
	near(t, "first grid point", first, 262144, 0)
}
