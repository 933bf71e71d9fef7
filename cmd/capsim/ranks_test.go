package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/scenarios"
)

// A 32-rank trace on the 16-rank default machine: every path says the
// trace does not fit, with both rank counts, instead of panicking.
func TestTraceLargerThanMachine(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.arrow")
	if code, _, stderr := capsim(t, "gen", "stencil", "--dims", "8x4", "--iterations", "2", "-o", big); code != 0 {
		t.Fatalf("gen: %s", stderr)
	}
	sc := strings.Replace(string(scenarios.Default()), `generator = "stencil2d"`, "trace = "+`"`+big+`"`, 1)
	sc = sc[:strings.Index(sc, "[workload.params]")] + sc[strings.Index(sc, "[models]"):]
	file := filepath.Join(dir, "big.toml")
	if err := os.WriteFile(file, []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"bound", big, "--cap", "400"},
		{"bound", big, "--caps", "300:400:50"},
		{"bound", "--scenario", file, "--cap", "400"},
		{"replay", big, "--policy", "steering", "--cap", "400"},
		{"replay", big, "--policy", "dct-dvfs"},
		{"scenario", "check", file},
		{"sweep", file, "-o", filepath.Join(dir, "out"), "--progress", "never"},
	} {
		code, _, stderr := capsim(t, args...)
		if code == 0 || strings.Contains(stderr, "panic") || !strings.Contains(stderr, "32 ranks") || !strings.Contains(stderr, "runs 16") {
			t.Errorf("%v: exit %d, stderr %q; want an error naming 32 ranks and the machine's 16", args, code, stderr)
		}
	}
}
