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
		if m := floatNoise.FindString(stdout); m != "" {
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
