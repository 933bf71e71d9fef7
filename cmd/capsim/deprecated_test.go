package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/scenarios"
)

// TestDeprecatedKeyWarns checks that scenario check and sweep accept a
// scenario setting network.topology.exact and say once on stderr that the
// key has no effect.
func TestDeprecatedKeyWarns(t *testing.T) {
	dir := t.TempDir()
	text := strings.Replace(string(scenarios.Default()), "[workload]",
		"[network.topology]\nkind = \"fattree\"\nk = 2\nn = 1\nexact = true\n\n[workload]", 1)
	text = strings.Replace(text, `policies = ["uncapped", "static", "conductor", "lp"]`, `policies = ["uncapped"]`, 1)
	path := filepath.Join(dir, "exact.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	const want = "network.topology.exact: deprecated: has no effect"
	for _, args := range [][]string{
		{"scenario", "check", path},
		{"sweep", path, "-o", filepath.Join(dir, "out"), "--progress", "never"},
	} {
		code, _, stderr := capsim(t, args...)
		if code != 0 || strings.Count(stderr, want) != 1 || !strings.Contains(stderr, "capsim: warning: "+path+":") {
			t.Errorf("%s: exit %d, stderr %q; want exit 0 and %q once", strings.Join(args, " "), code, stderr, want)
		}
	}
	// A scenario without the key gets no warning.
	code, _, stderr := capsim(t, "scenario", "check", writeDefault(t, dir))
	if code != 0 || strings.Contains(stderr, "warning") {
		t.Errorf("default scenario: exit %d, stderr %q", code, stderr)
	}
}

// writeDefault writes the default scenario into dir and returns its path.
func writeDefault(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "default.toml")
	if err := os.WriteFile(p, scenarios.Default(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
