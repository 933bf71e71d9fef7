package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/otf2"
)

// TestCalibrate runs capsim calibrate on a recorded ping-pong: its JSON
// spec parses and replays the trace within 3 % of its recorded span, and
// the text output offers the same spec and the scenario keys.
func TestCalibrate(t *testing.T) {
	if !otf2.Available {
		t.Skip("built without the OTF2 library")
	}
	path := filepath.Join(testenv.Shared(t, "traces/otf2/pipit-pingpong"), "traces.otf2")
	code, out, errOut := capsim(t, "calibrate", path, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Net          string            `json:"net"`
		Fit          map[string]any    `json:"fit"`
		Unidentified []json.RawMessage `json:"unidentified"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if _, err := network.ParseSpec(rep.Net); err != nil || rep.Fit["one_way_source"] != "ping-pong" || len(rep.Unidentified) == 0 {
		t.Fatalf("net %q (%v), fit %v, unidentified %s", rep.Net, err, rep.Fit, rep.Unidentified)
	}
	code, out, errOut = capsim(t, "replay", path, "--net", rep.Net, "--json")
	if code != 0 {
		t.Fatalf("replay exit %d: %s", code, errOut)
	}
	var res struct {
		Ratio float64 `json:"predicted_over_recorded"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Ratio < 0.97 || res.Ratio > 1.03 {
		t.Errorf("predicted/recorded %g (%v), want within 3 %%", res.Ratio, err)
	}
	_, text, _ := capsim(t, "calibrate", path)
	for _, want := range []string{"net           " + rep.Net, "[network]\nL_ns = ", "unidentified  S = "} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
}

func TestCalibrateBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"calibrate"}, 2, "calibrate takes"},
		{[]string{"calibrate", "x.otf2", "--model", "hockney"}, 2, `--model "hockney"`},
		{[]string{"calibrate", "../../examples/traces/ti.txt"}, 1, "no recorded times"},
	} {
		code, _, errOut := capsim(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, errOut, tc.code, tc.msg)
		}
	}
}

// TestCalibrateLiballprof calibrates from a liballprof trace's per-call
// times: its one message of 128 bytes left rank 0's MPI_Send at
// ...108.123 µs and completed rank 1's MPI_Recv at ...111.0 µs (2,877 ns
// one way, on liballprof's one clock), and the send call took 2,333 ns.
func TestCalibrateLiballprof(t *testing.T) {
	code, out, errOut := capsim(t, "calibrate", epochTrace, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Net string `json:"net"`
		Fit struct {
			OneWay struct {
				Intercept float64 `json:"intercept_ns"`
			} `json:"one_way"`
			Send struct {
				Intercept float64 `json:"intercept_ns"`
			} `json:"send"`
			Source   string `json:"one_way_source"`
			Messages int    `json:"messages"`
		} `json:"fit"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if f := rep.Fit; f.Messages != 1 || f.Source != "messages" || f.OneWay.Intercept != 2877 || f.Send.Intercept != 2333 {
		t.Errorf("fit %+v, want one message of 2877 ns one way, a send call of 2333 ns", f)
	}
}
