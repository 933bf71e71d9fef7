package models

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/modelfile"
	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/traces/graph"
)

// FuzzModelFile decodes arbitrary model files with every model kind: it
// must never panic, and a file it accepts must price recorded work to a
// finite, non-negative time and power at every configuration it can price
// (the recorded one, other frequencies, thread counts, memory throttles),
// and a pricer built on it must give calc durations the replay accepts or
// reports (0..graph.MaxTimeNs+1), never a wrapped one.
func FuzzModelFile(f *testing.F) {
	if b, err := os.ReadFile("../../examples/models/stencil.json"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"format": "capsim-compute-model", "version": 1, "recorded": {"cpu_ghz": 2.6},
  "default": {"kind": "dvfs", "params": {"beta": 0.5, "ref_ghz": 2.6}}, "regions": [
  {"pattern": "a*", "kind": "measured", "params": {"scale": 2, "watts": 10}},
  {"pattern": "b", "kind": "cos-bgq", "params": {"alpha_knee": 2000, "c1": 20, "beta": 1, "c2": 0, "l2m": 5e6, "inst": 2.5e8, "clock_ghz": 1.6}},
  {"pattern": "c", "kind": "cos", "params": {"alpha": [2.0, 1.5, -0.5, -1.0], "base": {"at": {"cpu_ghz": 1.2, "mem_ghz": 1.333}, "t": 10, "ts": 4, "llcm": 1.5, "tpi": 0.8}}},
  {"pattern": "t", "kind": "table", "params": {"key": "t", "rows": [{"key": "t", "config": {"cpu_ghz": 2.6}, "seconds": 2, "watts": 30}]}}]}`))
	f.Add([]byte(`{"format": "capsim-compute-model", "version": 1, "recorded": {"cpu_ghz": 2.6},
  "default": {"kind": "dvfs", "params": {"beta": 1.5, "ref_ghz": 2.6}}, "regions": []}`))
	f.Add([]byte(`{"format": "capsim-compute-model", "version": 1, "recorded": {"cpu_ghz": 2.6},
  "default": {"kind": "measured", "params": {"scale": 1e308}}, "regions": []}`))
	f.Fuzz(func(t *testing.T, text []byte) {
		file, set, err := modelfile.Decode(bytes.NewReader(text), "fuzz.json", Decoders())
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if !json.Valid(text) {
			t.Fatalf("accepted a file that is not one JSON value (trailing data): %q", text)
		}
		rec := file.Recorded
		var targets []compute.Config
		for _, x := range []float64{1, 0.5, 0.9, 1.7, 3} {
			c := rec
			c.CPUFreqGHz = rec.CPUFreqGHz * x
			c.MemFreqGHz = rec.MemFreqGHz * x
			targets = append(targets, c)
			c.Threads, c.MemThrottle = 1+rec.Threads*2, 100*x
			targets = append(targets, c)
		}
		models := []compute.Model{set.Default}
		for _, r := range set.Rules {
			models = append(models, r.Model)
			if o, ok := r.Model.(*Offload); ok { // and on each of its devices
				for _, d := range o.Profile.Devices {
					c := rec
					c.Device = d.Name
					targets = append(targets, c)
				}
			}
		}
		for i, m := range models {
			if m == nil {
				continue
			}
			for _, c := range targets {
				p, err := m.Predict(compute.Work{Seconds: 1.5, At: rec}, c)
				if err != nil {
					continue
				}
				if !(p.Seconds >= 0) || math.IsInf(p.Seconds, 0) || !(p.Watts >= 0) || p.Watts > power.MaxWatts {
					t.Fatalf("model %d (%s) prices 1.5 s at %s as %g s, %g W", i, m.Kind(), c, p.Seconds, p.Watts)
				}
			}
		}
		// A pricer over one calc per rule's pattern (taken literally) and
		// one in no region.
		b := graph.NewBuilder(1)
		for _, r := range set.Rules {
			op := graph.CalcOp(1e9)
			op.Region = b.Region(r.Pattern)
			b.Add(0, op)
		}
		b.Add(0, graph.CalcOp(1e9))
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range targets[:3] {
			pr, err := compute.NewPricer(g, set, compute.Target{Default: c})
			if err != nil {
				continue
			}
			for op := range g.NumOps() {
				if d := pr.CalcDuration(int32(op), 0); d < 0 || d > graph.MaxTimeNs+1 {
					t.Fatalf("calc %d priced at %d ns", op, d)
				}
			}
		}
	})
}
