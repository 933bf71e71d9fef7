package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/importer"
)

// capsim predict on the stand-in per-block file of Meswani et al. (PMaC accelerator model) reproduces
// Table VIII (HYCOM, optimal device per basic block, seconds over 256
// tasks): the target device is the allowed set.
func TestPredictMeswaniTableVIII(t *testing.T) {
	file := filepath.Join("..", "..", "examples", "models", "meswani-standin.json")
	for _, tc := range []struct {
		region, device string
		work, want     float64
		offloaded      int
	}{
		{"hycom.stream", "fpga", 28459, 2297, 2},
		{"hycom.stream", "gpu", 28459, 6096, 1},
		{"hycom.stream", "fpga+gpu", 28459, 2149, 2},
		{"hycom.gather_scatter", "fpga", 7768, 495, 2},
		{"hycom.gather_scatter", "gpu", 7768, 638, 2},
		{"hycom.gather_scatter", "fpga+gpu", 7768, 448, 2},
	} {
		code, out, stderr := capsim(t, "predict", file, "--region", tc.region, "--work", fmt.Sprint(tc.work), "--device", tc.device, "--json")
		if code != 0 {
			t.Fatalf("%s on %s: exit %d: %s", tc.region, tc.device, code, stderr)
		}
		var p predictJSON
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		if math.Abs(p.Seconds-tc.want) > 1e-6 || p.Offload == nil || offloadedInstances(p.Offload) != tc.offloaded {
			t.Errorf("%s on %s: %.6f s, %+v; paper %g s with %d blocks offloaded", tc.region, tc.device, p.Seconds, p.Offload, tc.want, tc.offloaded)
		}
	}
	code, out, _ := capsim(t, "predict", file, "--region", "hycom.stream", "--work", "28459", "--device", "gpu")
	if code != 0 || !strings.Contains(out, "1 of 3 instances on gpu, policy per-instance") || !strings.Contains(out, "hycom.stream.large  gpu") {
		t.Errorf("text output:\n%s", out)
	}
}

// A replay whose region carries three basic blocks (Meswani et al.'s per-basic-block placement:
// B1 (10, 2), B2 (5, 20), B3 (8, 4) on CPU and GPU) prices every calc of
// the region at 11/23 of its recorded time per instance, at 23/23 per
// region (the CPU wins as a whole) and at 26/23 blind.
func TestReplayPerInstance(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "stencil.arrow")
	if code, _, stderr := capsim(t, "gen", "stencil", "--dims", "2x2", "--iterations", "5", "-o", trace); code != 0 {
		t.Fatal(stderr)
	}
	g, err := loadGraph(trace, importer.Options{}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		policy string
		ratio  float64
	}{{"per-instance", 11.0 / 23}, {"per-region", 1}, {"blind", 26.0 / 23}} {
		models := filepath.Join(dir, tc.policy+".json")
		// Host times in ms per execution; the device moves V bytes at 1 GB/s.
		file := `{"format": "capsim-compute-model", "version": 1, "recorded": {"cpu_ghz": 2.6},
  "regions": [{"pattern": "stencil.compute", "kind": "accel", "params": {
    "profile": {"version": 1, "devices": [{"name": "gpu0", "idioms": {"k": {"plateau_gbps": 1}}, "transfer": {"gbps": 16}}]},
    "instances": [{"name": "B1", "idiom": "k", "footprint_bytes": 1048576, "bytes_moved": 2e6, "cpu_s": 0.010},
                  {"name": "B2", "idiom": "k", "footprint_bytes": 1048576, "bytes_moved": 2e7, "cpu_s": 0.005},
                  {"name": "B3", "idiom": "k", "footprint_bytes": 1048576, "bytes_moved": 4e6, "cpu_s": 0.008}],
    "policy": "` + tc.policy + `"}}]}`
		if err := os.WriteFile(models, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		o := replayJSONOf(t, trace, "--models", models, "--config-region", "stencil.compute=device=gpu0")
		for rk, st := range o.Ranks {
			var want, calcs int64
			for op := g.RankStart[rk]; op < g.RankStart[rk+1]; op++ {
				if g.Kind[op] == graph.Calc {
					want += int64(math.Round(float64(g.Size[op]) * tc.ratio))
					calcs++
				}
			}
			if d := st.ComputeNs - want; d < -calcs || d > calcs {
				t.Errorf("%s rank %d: compute %d ns, want %d (ratio %.4f)", tc.policy, rk, st.ComputeNs, want, tc.ratio)
			}
		}
	}
	_, out, _ := capsim(t, "replay", trace, "--models", filepath.Join(dir, "per-instance.json"), "--config-region", "stencil.compute=device=gpu0")
	for _, want := range []string{"2 of 3 instances offloaded", "placement per instance", "stencil.compute  B2        cpu"} {
		if !strings.Contains(out, want) {
			t.Errorf("replay output lacks %q:\n%s", want, out)
		}
	}
}
