package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
)

// floatNoise matches a decimal with a run of 9s or 0s far past what the
// models resolve (288.79999999999995, 319.2000000000003): JSON and CSV
// numbers are rounded to 1e-6 W, 1e-9 J, 1 ns and 1e-6 %.
var floatNoise = regexp.MustCompile(`\d\.\d*(9{6,}|0{6,}[1-9])\d*`)

// measured matches a JSON field that is measured on the host (the wall
// time of an LP's build, order and solve, of a replay, and the replay's
// event rate): those are not model numbers, vary from run to run, and hold
// a run of 9s or 0s by chance (events_per_s 7505104.8999999).
var measured = regexp.MustCompile(`"(build_s|order_s|solve_s|replay_s|events_per_s|wall_s|wall_ns)": *-?[0-9][0-9.e+-]*`)

// noise returns the first decimal in text past what the models resolve,
// the measured fields left out, or "".
func noise(text string) string {
	return floatNoise.FindString(measured.ReplaceAllString(text, `"$1": 0`))
}

// TestNoise: the check finds float noise in model numbers whatever the
// measured fields hold, and never in those.
func TestNoise(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`"energy_j": 2.9999999,`, "2.9999999"},
		{`"avg_w": 319.2000000000003`, "9.2000000000003"},
		{`"events_per_s": 7505104.8999999, "replay_s": 0.100000012,`, ""},
		{"\"lp\": {\n    \"build_s\": 0.1000000012,\n    \"solve_s\": 1.999999901\n  }", ""},
		{`"solve_s": 0.25, "static_peak_w": 319.20000001`, "9.20000001"},
		{`"energy_j": 2.943410232, "events_per_s": 7505104.823551154`, ""},
	} {
		if got := noise(c.text); got != c.want {
			t.Errorf("%q: %q, want %q", c.text, got, c.want)
		}
	}
}

func TestOutputsAreRoundedToTheModel(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	dir := t.TempDir()
	wave, hyb := filepath.Join(dir, "wave.arrow"), filepath.Join(dir, "hyb.arrow")
	for _, args := range [][]string{
		{"gen", "stencil", "--dims", "4x4", "--iterations", "4", "--imbalance", "wavefront", "--balance", "0.25", "--intensity", "0.7", "-o", wave},
		{"gen", "stencil", "--dims", "2x2", "--iterations", "4", "--imbalance", "random", "--balance", "0.3", "-o", hyb},
	} {
		if code, _, stderr := capsim(t, args...); code != 0 {
			t.Fatal(stderr)
		}
	}
	out := filepath.Join(dir, "sw")
	for _, args := range [][]string{
		{"bound", "--cap", "330", "--json"},
		{"bound", "--caps", "300:340:20", "--json"},
		{"replay", wave, "--policy", "steering", "--json"},
		{"replay", hyb, "--policy", "dct-dvfs", "--json"},
		{"replay", wave, "--models", filepath.Join("..", "..", "examples", "models", "stencil.json"), "--json"},
		{"sweep", "-o", out, "--progress", "never"},
	} {
		code, stdout, stderr := capsim(t, args...)
		if code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
		if m := noise(stdout); m != "" {
			t.Errorf("%v prints %s", args, m)
		}
	}
	csv, err := os.ReadFile(filepath.Join(out, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if m := floatNoise.FindString(string(csv)); m != "" {
		t.Errorf("results.csv has %s", m)
	}
	if !strings.Contains(string(csv), "wait_power") {
		t.Error("results.csv does not record wait_power")
	}
}
