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
