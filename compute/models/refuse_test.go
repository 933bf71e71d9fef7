package models

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/compute/modelfile"
)

// Model files that would silently change a replay are refused with the
// file, and the line or the model's key: a region pasted after the file's
// closing brace (dropped by a decoder that stops at the first value), and
// an accelerator curve whose plateau makes the device ineligible for every
// large region.
func TestModelFileRefused(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "offload.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, text, want string
	}{
		{"region after the closing brace", string(good) + `,{"pattern": "x", "kind": "measured", "params": {"scale": 2}}` + "\n",
			"m.json:31: trailing data"},
		{"second object", string(good) + "{}\n", "m.json:31: trailing data"},
		{"stray bracket", string(good) + "]\n", "m.json:31: trailing data"},
		{"negative plateau", strings.Replace(string(good), `"plateau_gbps": 53.0`, `"plateau_gbps": -200`, 1),
			`m.json: regions[0] "triad" (accel): profile: device "fpga-hc1" idiom "stream": plateau_gbps = -200`},
		{"zero plateau", strings.Replace(string(good), `"plateau_gbps": 53.0`, `"plateau_gbps": 0`, 1), `idiom "stream": plateau_gbps = 0`},
		{"negative cpu plateau", strings.Replace(string(good), `"plateau_gbps": 10`, `"plateau_gbps": -1`, 1), `cpu idiom "stream": plateau_gbps = -1`},
		// encoding/json keeps the last of two equal keys: the file is refused instead.
		{"duplicate key", strings.Replace(string(good), `"beta": 0.5,`, `"beta": 0.5, "beta": 0.9,`, 1), "m.json:26: key regions[0].params.cpu.params.beta given twice"},
		{"duplicate kind", strings.Replace(string(good), `"kind": "accel",`, `"kind": "accel", "kind": "dvfs",`, 1), "m.json:8: key regions[0].kind given twice"},
		// A negative latency or setup priced an offloaded region at a negative time.
		{"negative latency", strings.Replace(string(good), `"latency_s": 1e-5`, `"latency_s": -1`, 1), `device "fpga-hc1": transfer latency_s = -1`},
		{"negative setup", strings.Replace(string(good), `"name": "fpga-hc1",`, `"name": "fpga-hc1", "setup_s": -5e-6,`, 1), `device "fpga-hc1": setup_s = -5e-06`},
		{"huge setup", strings.Replace(string(good), `"name": "fpga-hc1",`, `"name": "fpga-hc1", "setup_s": 1e300,`, 1), `setup_s = 1e+300`},
		{"negative directions", strings.Replace(string(good), `"directions": 1`, `"directions": -1`, 1), "transfer directions = -1"},
		{"idiom no device runs", strings.Replace(string(good), `"idiom": "stream"`, `"idiom": "streem", "cpu_s": 0.001`, 1), `idiom "streem" is run by no device of the profile (fpga-hc1: stream)`},
		// encoding/json decoded a null as 0, and named neither line nor key
		// of a misspelt one, nor a gzipped file ("invalid character '\x1f'").
		{"null parameter", strings.Replace(string(good), `"beta": 0.5,`, `"beta": null,`, 1), "m.json:26: key regions[0].params.cpu.params.beta is null"},
		{"misspelt key", strings.Replace(string(good), `"version": 1`, `"versoin": 1`, 1), `m.json:3: json: unknown field "versoin"`},
		{"gzipped", "\x1f\x8b\x08\x00" + string(good), "m.json:1: a gzip-compressed file, not JSON text: unpack it first"},
		// The first entry that matches prices a region: a second entry with
		// the same pattern was accepted and never applied.
		{"region pattern twice", strings.Replace(string(good), `"regions": [`, `"regions": [{"pattern": "triad", "kind": "measured", "params": {"scale": 2}},`, 1),
			`m.json: regions[1]: pattern "triad" is regions[0]'s too`},
		{"huge device power", strings.Replace(string(good), `"ratio": 0.3,`, `"ratio": 0.3, "device_watts": 1e308,`, 1), "device_watts: want a finite power ≥ 0 and at most 1e+09 W"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := modelfile.Decode(strings.NewReader(tc.text), "m.json", Decoders())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, _, err := modelfile.Decode(strings.NewReader(string(good)+"\n\n"), "m.json", Decoders()); err != nil {
		t.Errorf("trailing white space: %v", err)
	}
}
