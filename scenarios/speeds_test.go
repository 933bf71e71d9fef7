package scenarios

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/capsim/capsim/compute/power"

	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
)

// The accelerator example: the stencil's region priced by the model file
// examples/models/stencil.json. On the CPU its DVFS model gives
// t(f) = t·(0.8·2.6/f + 0.2); on gpu0 one 1 ms call takes
// 5 µs setup + 16 MiB / 200 GB/s = 88.88608 µs of device time and
// 10 µs + 0.1 · 16 MiB / 16 GB/s = 114.8576 µs of exposed transfer
// (Meswani et al., §VII.A), 203.74368 µs in all, at the model's 45 W.
func TestAcceleratorScenario(t *testing.T) {
	sc, err := Load("../examples/scenarios/gpu-node.toml")
	if err != nil {
		t.Fatal(err)
	}
	cpu, gpu := &sc.Machines[0], &sc.Machines[1]
	g, err := sc.Graph(nil)
	if err != nil {
		t.Fatal(err)
	}
	region := -1
	for i, n := range g.Regions {
		if n == "stencil.compute" {
			region = i + 1
		}
	}
	if region < 0 {
		t.Fatalf("no stencil.compute region in %v", g.Regions)
	}
	for _, tc := range []struct {
		m       *Machine
		offload bool
	}{{cpu, false}, {gpu, true}} {
		sp, err := sc.speedsOf(tc.m, g.Regions)
		if err != nil {
			t.Fatal(err)
		}
		for k, p := range tc.m.PStates {
			want := 0.8*2.6/p.FreqGHz + 0.2
			if got := sp.cpuRatio[k][region]; math.Abs(got-want) > 1e-12 {
				t.Errorf("%s at %g GHz: CPU ratio %.12f, want %.12f", tc.m.Name, p.FreqGHz, got, want)
			}
			if sp.offload[k][region] != tc.offload {
				t.Fatalf("%s at %g GHz: offload %v", tc.m.Name, p.FreqGHz, sp.offload[k][region])
			}
			if tc.offload {
				if got := sp.devRatio[k][region]; math.Abs(got-0.20374368) > 1e-12 {
					t.Errorf("gpu0 ratio %.12f, want 0.20374368", got)
				}
				if sp.devWatts[k][region] != 45 {
					t.Errorf("gpu0 power %g W, want the model's 45 W", sp.devWatts[k][region])
				}
			}
		}
	}
	// Uncapped on the gpu node: every stencil call on gpu0. The engine's
	// compute time is Σ round(size · 0.20374368). Under the default wait
	// power ("task") a rank draws its idle core's 4 W until its first
	// call starts, gpu0's 45 W during its calls and its core's 15 W
	// (2.6 GHz) while it waits between them (the device idles); under
	// "idle" the base and idle cores over the run plus (45 − 4) W during
	// offloaded calls only.
	met, rec, err := sc.replay(g, gpu, sc.Net(), nil, "uncapped", 0)
	if err != nil {
		t.Fatal(err)
	}
	var want, compute int64
	for op, k := range g.Kind {
		if k == graph.Calc {
			want += int64(math.Round(float64(g.Size[op]) * 0.20374368))
		}
	}
	for _, r := range rec.res.Ranks {
		compute += r.Compute
	}
	if compute != want {
		t.Errorf("compute %d ns, want %d", compute, want)
	}
	first := make([]int64, g.NumRanks())
	busy := make([]int64, g.NumRanks()) // ns on gpu0
	for r := range first {
		first[r] = -1
	}
	for _, s := range rec.acct.Spans() {
		if g.Kind[s.Op] == graph.Calc {
			busy[s.Rank] += s.End - s.Start
			if first[s.Rank] < 0 || s.Start < first[s.Rank] {
				first[s.Rank] = s.Start
			}
		}
	}
	T := float64(met.MakespanNs) / 1e9
	energy := gpu.BaseW() * T
	for r, f := range first {
		on := float64(busy[r]) / 1e9
		energy += 4*float64(f)/1e9 + 45*on + 15*(T-float64(f)/1e9-on)
	}
	if math.Abs(energy-met.EnergyJ) > 1e-6 {
		t.Errorf("wait power task: energy %.9f J, want %.9f J", met.EnergyJ, energy)
	}
	idle := *gpu
	idle.WaitPower = power.WaitPower{Mode: power.WaitIdle}
	met, _, err = sc.replay(g, &idle, sc.Net(), nil, "uncapped", 0)
	if err != nil {
		t.Fatal(err)
	}
	T = float64(met.MakespanNs) / 1e9
	if energy := (gpu.BaseW()+16*4)*T + 41*float64(compute)/1e9; math.Abs(energy-met.EnergyJ) > 1e-6 {
		t.Errorf("wait power idle: energy %.9f J, want %.9f J", met.EnergyJ, energy)
	}
	// Static at 400 W: a 15 W share per rank; gpu0's 45 W does not fit, so
	// the gpu node runs like the CPU node.
	a, err := sc.Replay(g, gpu, sc.Net(), "static", 400)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sc.Replay(g, cpu, sc.Net(), "static", 400)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("static 400 W: gpu node %+v, cpu node %+v", a, b)
	}
	// The LP may put any task on gpu0: its bound at a high cap beats the
	// CPU node's, and its configurations include the device.
	tr, err := sc.Trace(nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := sc.BoundDAG(tr, gpu, sc.Net())
	if err != nil {
		t.Fatal(err)
	}
	dev := false
	for _, task := range d.Tasks {
		for _, c := range task.Hull {
			dev = dev || strings.HasPrefix(c.Label, "gpu0")
		}
	}
	if !dev {
		t.Error("no task of the gpu node's LP can run on gpu0")
	}
}

// Scenario errors for accelerators and model files name their key.
func TestAcceleratorScenarioErrors(t *testing.T) {
	text := string(Default())
	for _, tc := range []struct{ add, want string }{
		{"[[machine.accelerator]]\nname = \"gpu0\"\nregions = \"*\"\n", "key machine.accelerator: machine pal: accelerators need models.file"},
		{"[[machine.accelerator]]\nregions = \"*\"\n", "key machine.accelerator.name"},
		{"[[machine.accelerator]]\nname = \"gpu0\"\nregions = \"*\"\nper_node = -2\n", "key machine.accelerator.per_node"},
		{"[[machine.accelerator]]\nname = \"gpu0\"\nregions = \"[\"\n", "key machine.accelerator.regions"},
		{"[[machine.accelerator]]\nname = \"gpu0\"\nprofile = \"x.json\"\n", "key machine.accelerator.profile: unknown key"},
	} {
		s := strings.Replace(text, "[network]", tc.add+"\n[network]", 1)
		if _, err := Parse("acc.toml", []byte(s)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.add, err, tc.want)
		}
	}
	s := strings.Replace(text, "memory_boundness = 0.3", `file = "no-such-models.json"`, 1)
	if _, err := Parse("acc.toml", []byte(s)); err == nil || !strings.Contains(err.Error(), "key models.file") {
		t.Errorf("missing model file: %v", err)
	}
}

type calcSpans struct {
	g    *graph.Graph
	span map[int32][2]int64
}

func (c *calcSpans) Busy(op int32, start, end int64) {
	if c.g.Kind[op] == graph.Calc {
		c.span[op] = [2]int64{start, end}
	}
}
func (c *calcSpans) Message(send, recv int32, sent, matched int64) {}

// On gpu-node-shared the 8 ranks of a node share one gpu0: ranks 0–7 use
// device 0 and ranks 8–15 device 1, a device never runs two calls at once,
// so each node's run lasts at least its device's busy time; with a device
// per rank (gpu-node) the stencil's calls overlap and the run is shorter.
func TestSharedAccelerator(t *testing.T) {
	sc, err := Load("../examples/scenarios/gpu-node.toml")
	if err != nil {
		t.Fatal(err)
	}
	own, shared := &sc.Machines[1], &sc.Machines[2]
	if shared.Accelerators[0].PerNode != 1 || own.Accelerators[0].PerNode != 8 {
		t.Fatalf("per_node %d and %d, want 8 and 1", own.Accelerators[0].PerNode, shared.Accelerators[0].PerNode)
	}
	g, err := sc.Graph(nil)
	if err != nil {
		t.Fatal(err)
	}
	makespan := map[string]int64{}
	for _, m := range []*Machine{own, shared} {
		sp, err := sc.speedsOf(m, g.Regions)
		if err != nil {
			t.Fatal(err)
		}
		pl := sp.uniform(g.NumRanks(), 0, nil)
		dev := pl.devices(g, sp, m)
		rank := g.OpRanks()
		busy := map[int32]int64{}
		for op, k := range g.Kind {
			want := int32(-1)
			if k == graph.Calc && g.RegionName(int32(op)) == "stencil.compute" {
				want = rank[op]
				if m == shared {
					want = rank[op] / 8
				}
			}
			if dev[op] != want {
				t.Fatalf("%s: operation %d of rank %d on device %d, want %d", m.Name, op, rank[op], dev[op], want)
			}
		}
		obs := &calcSpans{g: g, span: map[int32][2]int64{}}
		res, err := sim.Run(g, sc.Net(), sim.Options{Pricer: pl.pricer(g), Observer: obs, Device: dev})
		if err != nil {
			t.Fatal(err)
		}
		makespan[m.Name] = res.Makespan
		byDev := map[int32][][2]int64{}
		for op, s := range obs.span {
			if dev[op] >= 0 {
				byDev[dev[op]] = append(byDev[dev[op]], s)
				busy[dev[op]] += s[1] - s[0]
			}
		}
		for d, spans := range byDev {
			sort.Slice(spans, func(a, b int) bool { return spans[a][0] < spans[b][0] })
			for k := 1; k < len(spans); k++ {
				if spans[k][0] < spans[k-1][1] {
					t.Fatalf("%s: device %d runs %v and %v at once", m.Name, d, spans[k-1], spans[k])
				}
			}
			if m == shared && res.Makespan < busy[d] {
				t.Errorf("%s: makespan %d below device %d's busy time %d", m.Name, res.Makespan, d, busy[d])
			}
		}
	}
	if makespan[own.Name] >= makespan[shared.Name] {
		t.Errorf("a device per rank: %d ns, not shorter than one per node: %d ns", makespan[own.Name], makespan[shared.Name])
	}
}

// The LP's DAG of gpu-node-shared lists its two shared devices (one per
// node) and marks the device configurations of every stencil task, on the
// device of its rank's node; with a device per rank (gpu-node) there are
// no device rows. The bounds, with the LP's own (engine) order: a shared
// device only adds rows, so its bound is never below the per-rank one; at
// 500 W (and below) power binds and they are equal (33.497 ms); at 600 W
// the device starts to bind (30.459 against 30.398 ms); from 700 W on it
// sets the bound: 30.063 ms whatever the cap, where a device per rank
// gets 27.489 ms at 700 W and 24.722 ms at 900 W (the rows per window of
// each time step's device tasks, less the halo exchange and allreduce
// after them, see optimize/bound/device.go; with one row per device over
// the whole run the shared bound was 24.722 ms at 900 W too). Every
// schedule replayed on the shared devices takes longer (the sweep's lp
// policy: 47.5 ms at 700–900 W; everything offloaded, uncapped: 54.4 ms).
func TestSharedAcceleratorBound(t *testing.T) {
	sc, err := Load("../examples/scenarios/gpu-node.toml")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := sc.Trace(nil)
	if err != nil {
		t.Fatal(err)
	}
	own, shared := &sc.Machines[1], &sc.Machines[2]
	dOwn, oOwn, err := sc.BoundLP(tr, own, sc.Net())
	if err != nil {
		t.Fatal(err)
	}
	dShared, oShared, err := sc.BoundLP(tr, shared, sc.Net())
	if err != nil {
		t.Fatal(err)
	}
	if len(dOwn.Devices) != 0 {
		t.Errorf("a device per rank: %d device rows' devices, want none", len(dOwn.Devices))
	}
	if len(dShared.Devices) != 2 {
		t.Fatalf("gpu-node-shared: %d devices, want 2", len(dShared.Devices))
	}
	marked := 0
	for _, tk := range dShared.Tasks {
		if tk.OnDevice == nil {
			continue
		}
		marked++
		if tk.Device != tk.Rank/8 {
			t.Errorf("task of rank %d on device %d, want %d", tk.Rank, tk.Device, tk.Rank/8)
		}
		for g, on := range tk.OnDevice {
			if on != strings.HasPrefix(tk.Hull[g].Label, "gpu0 (host ") {
				t.Errorf("rank %d: configuration %q marked %v", tk.Rank, tk.Hull[g].Label, on)
			}
		}
	}
	if marked != 16*20 {
		t.Errorf("%d tasks may run on a shared device, want 320 (16 ranks × 20 iterations)", marked)
	}
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	caps := []float64{900, 700, 600, 500}
	sweep := func(d *bound.DAG, o *bound.Order) []float64 {
		s, err := bound.NewSolver(d, o, bound.Options{KeepBasis: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var out []float64
		for _, c := range caps {
			b, err := s.Solve(shared.LPCap(c))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b.Makespan*1e3)
		}
		return out
	}
	a, b := sweep(dOwn, oOwn), sweep(dShared, oShared)
	// The wait after a task that may run on gpu0 is a load of the least
	// P-state power from the task's end (the device idles then), so task
	// ends are events of the fixed order.
	wantOwn := []float64{24.722, 29.360, 32.247, 35.199}
	wantShared := []float64{32.503, 32.503, 32.520, 35.199}
	for k, c := range caps {
		if math.Abs(a[k]-wantOwn[k]) > 0.001 || math.Abs(b[k]-wantShared[k]) > 0.001 {
			t.Errorf("bound at %g W: a device per rank %.4f ms, shared %.4f ms; want %.3f and %.3f", c, a[k], b[k], wantOwn[k], wantShared[k])
		}
		if b[k] < a[k]*(1-1e-7) {
			t.Errorf("bound at %g W: shared devices %.6f ms below a device per rank's %.6f ms", c, b[k], a[k])
		}
	}
}

// A machine whose accelerator entry names a device set ("fpga+gpu": a node
// with both) and a region carrying three basic blocks (Meswani et al., §VII.A):
// B1 (CPU 10, GPU 2, FPGA 4 ms), B2 (5, 20, 6), B3 (8, 4, 3). Per block
// the region takes 2 + 5 + 3 = 10 of its 23 ms (ratio 10/23) with B2 on
// the host; per region the FPGA alone, 13 ms; and the blocks kept on the
// host draw the P-state's core power, the others the device's 60 W.
func TestAcceleratorDeviceSetPerInstance(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		policy       string
		ratio, hostS float64 // hostS: share of the region's time on the host
	}{{"per-instance", 10.0 / 23, 5.0 / 10}, {"per-region", 13.0 / 23, 0}} {
		models := filepath.Join(dir, tc.policy+".json")
		file := `{"format": "capsim-compute-model", "version": 1, "recorded": {"cpu_ghz": 2.1},
  "regions": [{"pattern": "stencil.compute", "kind": "accel", "params": {
    "profile": {"version": 1, "devices": [
      {"name": "gpu", "idioms": {"a": {"plateau_gbps": 2}, "b": {"plateau_gbps": 3}, "c": {"plateau_gbps": 3}}, "transfer": {"gbps": 16}},
      {"name": "fpga", "idioms": {"a": {"plateau_gbps": 1}, "b": {"plateau_gbps": 10}, "c": {"plateau_gbps": 4}}, "transfer": {"gbps": 16}}]},
    "instances": [{"name": "B1", "idiom": "a", "footprint_bytes": 1e6, "bytes_moved": 4e6, "cpu_s": 0.010},
                  {"name": "B2", "idiom": "b", "footprint_bytes": 1e6, "bytes_moved": 6e7, "cpu_s": 0.005},
                  {"name": "B3", "idiom": "c", "footprint_bytes": 1e6, "bytes_moved": 1.2e7, "cpu_s": 0.008}],
    "policy": "` + tc.policy + `", "device_watts": 60}}]}`
		if err := os.WriteFile(models, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		text := strings.Replace(string(Default()), "[network]", "[[machine.accelerator]]\nname = \"fpga+gpu\"\nregions = \"stencil.compute\"\n\n[network]", 1)
		text = strings.Replace(text, "memory_boundness = 0.3", "file = \""+tc.policy+".json\"", 1)
		sc, err := Parse(filepath.Join(dir, "set.toml"), []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		g, err := sc.Graph(nil)
		if err != nil {
			t.Fatal(err)
		}
		m := &sc.Machines[0]
		sp, err := sc.speedsOf(m, g.Regions)
		if err != nil {
			t.Fatal(err)
		}
		region := 1 + slices.Index(g.Regions, "stencil.compute")
		for k, p := range m.PStates {
			wantW := tc.hostS*p.ActivePowerW + (1-tc.hostS)*60
			if !sp.offload[k][region] || math.Abs(sp.devRatio[k][region]-tc.ratio) > 1e-12 || math.Abs(sp.devWatts[k][region]-wantW) > 1e-9 || sp.device[region] != "fpga+gpu" {
				t.Errorf("%s at %g GHz: offload %v ratio %.12f at %g W on %q, want ratio %.12f at %g W on fpga+gpu",
					tc.policy, p.FreqGHz, sp.offload[k][region], sp.devRatio[k][region], sp.devWatts[k][region], sp.device[region], tc.ratio, wantW)
			}
		}
	}
}
