package accel

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// The per-block optimum through Place: blocks B1 (10, 2), B2 (5, 20), B3
// (8, 4) seconds on (CPU, GPU). Blind CPU 23, blind GPU 26, the best single
// device for the whole region 23 (the CPU), per-block optimum 11 with B1
// and B3 on the GPU and B2 on the CPU.
func TestPlaceT6(t *testing.T) {
	p := &Profile{Version: 1, Devices: []Device{{Name: "gpu", Idioms: map[string]Curve{"k": Constant(1)}, Transfer: Transfer{GBps: 1}}}}
	insts := []Instance{ // device time = V / (1 GB/s)
		{Name: "B1", Idiom: "k", Footprint: 1, Bytes: 2e9, CPUTime: 10},
		{Name: "B2", Idiom: "k", Footprint: 1, Bytes: 20e9, CPUTime: 5},
		{Name: "B3", Idiom: "k", Footprint: 1, Bytes: 4e9, CPUTime: 8},
	}
	for _, tc := range []struct {
		pol     Placement
		want    float64
		devices string // chosen device per block, "-" for the host
	}{
		{HostOnly, 23, "---"},
		{Blind, 26, "ggg"},
		{PerRegion, 23, "---"},
		{PerInstance, 11, "g-g"},
	} {
		pl, err := p.Place(insts, []string{"gpu"}, 0, tc.pol)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, c := range pl.Choices {
			got += map[string]string{"": "-", "gpu": "g"}[c.Device]
		}
		if math.Abs(pl.Time-tc.want) > 1e-9 || got != tc.devices {
			t.Errorf("%v: %g s on %q, want %g s on %q", tc.pol, pl.Time, got, tc.want, tc.devices)
		}
	}
	pl, _ := p.Place(insts, []string{"gpu"}, 0, PerInstance)
	near(t, "optimum host part", pl.Host, 5, 1e-9)
	near(t, "optimum device part", pl.Device, 6, 1e-9)
	if pl.Offloaded != 2 {
		t.Errorf("offloaded %d blocks, want 2", pl.Offloaded)
	}
}

// standIn reads the per-block stand-in of the HYCOM and Milc studies of
// Meswani et al. (Tables VI–IX) from examples/models/meswani-standin.json: one region per
// (application, idiom), its blocks and device curves.
func standIn(t *testing.T) map[string]struct {
	Profile   Profile
	Instances []Instance
} {
	t.Helper()
	b, err := os.ReadFile("../../examples/models/meswani-standin.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Regions []struct {
			Pattern string
			Params  struct {
				Profile   Profile
				Instances []Instance
			}
		}
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	out := map[string]struct {
		Profile   Profile
		Instances []Instance
	}{}
	for _, r := range f.Regions {
		out[r.Pattern] = r.Params
	}
	return out
}

// Meswani et al. Tables VI–IX (cumulative seconds over 256 MPI tasks, no
// transfer cost) from per-block data. The paper publishes only the sums,
// so the blocks are a stand-in decomposition (examples/models/
// meswani-standin.json); what is checked is that blind porting, per-region
// and per-block placement over {CPU, FPGA}, {CPU, GPU} and {CPU, GPU,
// FPGA} turn blocks into the paper's table entries, in particular the
// signature result: HYCOM stream, CPU vs. GPU, per block 6,096 s against
// 28,459 s on the CPU and 44,166 s on the GPU, where one decision per
// region can do no better than 28,459 s.
func TestPlaceMeswaniTables(t *testing.T) {
	regions := standIn(t)
	type row struct {
		region                  string
		cpu, fpga, gpu          float64 // Table VI/VII: blind porting
		optF, optG, optFG, regG float64 // Table VIII/IX; per-region over {CPU, GPU}
	}
	rows := []row{
		{"hycom.gather_scatter", 7768, 495, 638, 495, 638, 448, 638},
		{"hycom.stream", 28459, 2302, 44166, 2297, 6096, 2149, 28459},
		{"milc.gather_scatter", 2376, 334, 399, 334, 399, 334, 399},
		{"milc.stream", 10452, 771, 1087, 770, 1087, 765, 1087},
	}
	sums := map[string]*[8]float64{"hycom": {}, "milc": {}}
	// The blind-porting speedups CPU/device of Tables VI–VII, 7.11–15.69X
	// (gather/scatter on the FPGA), 5.95–12.18X (on the GPU), 12.36–13.56X
	// (stream on the FPGA), and HYCOM stream's loss on the GPU (0.644X).
	speedups := map[string][2]float64{
		"hycom.gather_scatter": {15.69, 12.18}, "milc.gather_scatter": {7.11, 5.95},
		"hycom.stream": {12.36, 0.644}, "milc.stream": {13.56, 9.62},
	}
	for _, r := range rows {
		reg, ok := regions[r.region]
		if !ok {
			t.Fatalf("region %s missing from the stand-in", r.region)
		}
		for k, c := range []struct {
			pol     Placement
			allowed []string
			want    float64
		}{
			{HostOnly, nil, r.cpu},
			{Blind, []string{"fpga"}, r.fpga},
			{Blind, []string{"gpu"}, r.gpu},
			{PerInstance, []string{"fpga"}, r.optF},
			{PerInstance, []string{"gpu"}, r.optG},
			{PerInstance, []string{"fpga", "gpu"}, r.optFG},
			{PerRegion, []string{"gpu"}, r.regG},
			{PerRegion, []string{"fpga", "gpu"}, math.Min(r.fpga, r.gpu)},
		} {
			pl, err := reg.Profile.Place(reg.Instances, c.allowed, 0, c.pol)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(pl.Time-c.want) > 1e-6 {
				t.Errorf("%s %v over %v: %.6f s, paper %g s", r.region, c.pol, c.allowed, pl.Time, c.want)
			}
			sums[strings.Split(r.region, ".")[0]][k] += pl.Time
		}
		var blind [3]float64
		for k, pol := range []Placement{HostOnly, Blind, Blind} {
			pl, _ := reg.Profile.Place(reg.Instances, [][]string{nil, {"fpga"}, {"gpu"}}[k], 0, pol)
			blind[k] = pl.Time
		}
		sp := speedups[r.region]
		near(t, r.region+" FPGA speedup", blind[0]/blind[1], sp[0], 0.005)
		near(t, r.region+" GPU speedup", blind[0]/blind[2], sp[1], 0.005)
	}
	// Table totals. The paper's totals are rounded sums of its rows (±1 s),
	// except HYCOM's CPU total 36,556, which is not 7,768 + 28,459 = 36,227
	// (a misprint in Meswani et al. Table VI): the rows are reproduced, the
	// total is their sum.
	for app, want := range map[string][8]float64{
		"hycom": {36227, 2798, 44803, 2792, 6734, 2596, 29097},
		"milc":  {12827, 1104, 1487, 1104, 1486, 1099, 1486},
	} {
		for k := 0; k < 7; k++ {
			if math.Abs(sums[app][k]-want[k]) > 1+1e-6 {
				t.Errorf("%s total %d: %.3f s, paper %g s (±1 s rounding)", app, k, sums[app][k], want[k])
			}
		}
	}
	// The headline of the issue: from per-idiom aggregates a per-region
	// decision over {CPU, GPU} gives 638 + 28,459 = 29,097 s; per block the
	// paper's 6,734 s, 5.43× the CPU's 36,556 s and 6.65× the GPU's 44,803 s
	// (the paper's "~5.5X" and "~6.5X").
	near(t, "HYCOM CPU vs GPU per block", sums["hycom"][4], 6734, 1e-6)
	near(t, "speedup over the CPU", 36556/sums["hycom"][4], 5.43, 0.005)
	near(t, "speedup over the GPU", 44803/sums["hycom"][4], 6.65, 0.005)
	near(t, "HYCOM all three, speedup over the CPU", 36556/2596.0, 14.08, 0.005)
}

// A scatter and a stream in one basic block, each operating on half of
// the footprint (the graph500 make_bfs rule, Meswani et al. Section
// VII.A.1).
func TestPlaceMixT7(t *testing.T) {
	p := &Profile{Version: 1, Devices: []Device{{Name: "fpga", Transfer: Transfer{GBps: 1},
		Idioms: map[string]Curve{"scatter": Constant(20), "stream": fpgaStream}}}}
	mix := []Share{{"scatter", 0.5}, {"stream", 0.5}}
	for _, tc := range []struct {
		name   string
		d      float64
		wantUS float64
		tol    float64
	}{
		// 2 GB: 1e9 B at 20 GB/s + 1e9 B at Eq. 2's plateau 53 GB/s.
		{"2 GB", 2e9, 68868, 1},
		// 8 MiB: the stream half is priced at 4 MiB, below Eq. 2's
		// saturation (48.037 GB/s, 87.31 µs), not at 8 MiB (53 GB/s,
		// 79.14 µs); the scatter half takes 209.715 µs.
		{"8 MiB", 8388608, 87.31 + 209.715, 0.01},
	} {
		in := Instance{Name: "make_bfs", Mix: mix, Footprint: tc.d, CPUTime: 1}
		comp, x, ok := p.Devices[0].InstanceTime(in, 0)
		if !ok || x != 0 {
			t.Fatalf("%s: ok %v transfer %g", tc.name, ok, x)
		}
		near(t, tc.name+" block µs", comp*1e6, tc.wantUS, tc.tol)
	}
	// A device without one of the mixture's idioms cannot run the block.
	p.Devices[0].Idioms = map[string]Curve{"stream": fpgaStream}
	if _, _, ok := p.Devices[0].InstanceTime(Instance{Mix: mix, Footprint: 2e9}, 0); ok {
		t.Error("a device without the scatter curve ran the mixed block")
	}
}

// Policy invariants on random blocks and curves: the
// per-block optimum over S is at most the best single placement, which is
// at most every blind porting and the host; adding a device never hurts;
// transfer ratios only shrink the set of offloaded blocks; and where every
// block stays on the host the result is HostOnly's exactly.
func TestPlaceInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 20))
	curve := func() Curve {
		return Curve{Points: []Point{{1e4, 0.1 + 20*rng.Float64()}, {1e6, 0.1 + 40*rng.Float64()}, {1e8, 0.1 + 80*rng.Float64()}}}
	}
	for trial := 0; trial < 200; trial++ {
		p := &Profile{Version: 1}
		for _, n := range []string{"a", "b", "c"} {
			p.Devices = append(p.Devices, Device{Name: n, Setup: 1e-5 * rng.Float64(),
				Idioms:   map[string]Curve{"stream": curve(), "gather": curve()},
				Transfer: Transfer{Latency: 1e-5, GBps: 1 + 10*rng.Float64()}})
		}
		var insts []Instance
		for i := 0; i < 1+rng.IntN(6); i++ {
			in := Instance{Idiom: []string{"stream", "gather"}[rng.IntN(2)], Footprint: math.Exp(math.Log(1e3) + rng.Float64()*math.Log(1e6)),
				Count: float64(1 + rng.IntN(100)), CPUTime: 1e-3 * rng.Float64()}
			if rng.IntN(3) == 0 {
				in.Idiom, in.Mix = "", []Share{{"stream", 0.5}, {"gather", 0.5}}
			}
			insts = append(insts, in)
		}
		r := rng.Float64()
		place := func(pol Placement, allowed ...string) Plan {
			pl, err := p.Place(insts, allowed, r, pol)
			if err != nil {
				t.Fatal(err)
			}
			return pl
		}
		host := place(HostOnly).Time
		ab := place(PerInstance, "a", "b")
		abc := place(PerInstance, "a", "b", "c")
		region := place(PerRegion, "a", "b")
		best := math.Min(host, math.Min(place(Blind, "a").Time, place(Blind, "b").Time))
		if !(abc.Time <= ab.Time && ab.Time <= region.Time && region.Time == best) {
			t.Fatalf("trial %d: per-instance {a,b,c} %g, {a,b} %g, per-region %g, best single %g", trial, abc.Time, ab.Time, region.Time, best)
		}
		more := ab
		for _, r2 := range []float64{r + 0.1, r + 1, 1e9} {
			pl, _ := p.Place(insts, []string{"a", "b"}, r2, PerInstance)
			for i, c := range pl.Choices {
				if c.Device != "" && more.Choices[i].Device == "" {
					t.Fatalf("trial %d: block %d offloaded at r = %g but not at a smaller r", trial, i, r2)
				}
			}
			more = pl
		}
		if more.Offloaded == 0 && more.Time != host {
			t.Fatalf("trial %d: all on the host at r = 1e9: %g, HostOnly %g", trial, more.Time, host)
		}
	}
}

func TestPlaceErrors(t *testing.T) {
	p := &Profile{Version: 1, CPU: map[string]Curve{"stream": Constant(10)},
		Devices: []Device{{Name: "gpu", Idioms: map[string]Curve{"stream": Constant(100)}, Transfer: Transfer{GBps: 1}}}}
	ok := Instance{Name: "b", Idiom: "stream", Footprint: 1e6}
	for _, tc := range []struct {
		name    string
		in      Instance
		allowed []string
		pol     Placement
		want    string
	}{
		{"unknown device", ok, []string{"fpga"}, PerInstance, `device "fpga" is not in the profile`},
		{"blind without device", ok, nil, Blind, "blind placement needs a device"},
		{"no idiom", Instance{Name: "b", Footprint: 1}, nil, HostOnly, `instance "b": needs an idiom or a mix`},
		{"idiom and mix", Instance{Name: "b", Idiom: "stream", Mix: []Share{{"stream", 1}}, Footprint: 1}, nil, HostOnly, "not both"},
		{"mix sum", Instance{Name: "b", Mix: []Share{{"stream", 0.5}, {"scatter", 0.4}}, Footprint: 1}, nil, HostOnly, "mix fractions sum to 0.9"},
		{"mix fraction", Instance{Name: "b", Mix: []Share{{"stream", 1.5}, {"scatter", -0.5}}, Footprint: 1}, nil, HostOnly, "fraction in (0, 1]"},
		{"zero footprint", Instance{Name: "b", Idiom: "stream"}, nil, HostOnly, "footprint_bytes 0"},
		{"negative count", Instance{Name: "b", Idiom: "stream", Footprint: 1, Count: -1}, nil, HostOnly, "count -1"},
		{"NaN cpu", Instance{Name: "b", Idiom: "stream", Footprint: 1, CPUTime: math.NaN()}, nil, HostOnly, "cpu_s NaN"},
		{"no host time", Instance{Name: "b", Idiom: "scatter", Footprint: 1}, nil, HostOnly, `instance "b": no cpu_s and no positive CPU curve`},
	} {
		_, err := p.Place([]Instance{tc.in}, tc.allowed, 0, tc.pol)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	// Without cpu_s the host time comes from the CPU curve: 1 MB at 10 GB/s.
	pl, err := p.Place([]Instance{ok}, []string{"gpu"}, 0, PerInstance)
	if err != nil || math.Abs(pl.Choices[0].HostTime-1e-4) > 1e-15 || math.Abs(pl.Time-1e-5) > 1e-15 {
		t.Errorf("host %g, chosen %g (%v); want 100 µs and 10 µs", pl.Choices[0].HostTime, pl.Time, err)
	}
}

func TestDeviceSet(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{"gpu", "gpu", ""},
		{"fpga+gpu", "fpga|gpu", ""},
		{" fpga + gpu ", "fpga|gpu", ""},
		{"fpga++gpu", "", "empty device name"},
		{"gpu+gpu", "", `"gpu" named twice`},
	} {
		got, err := DeviceSet(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(got, "|") != tc.want {
			t.Errorf("%q: %v %v, want %s", tc.in, got, err, tc.want)
		}
	}
}
