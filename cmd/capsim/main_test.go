package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// capsim runs the CLI in-process and returns its exit status and output.
func capsim(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	badScenario := filepath.Join(dir, "bad.toml")
	os.WriteFile(badScenario, []byte("colour = 1\n"), 0o644)
	for _, tc := range []struct {
		args    []string
		code    int
		errPart string
	}{
		{[]string{"--help"}, 0, ""},
		{[]string{"scenario", "default"}, 0, ""},
		{[]string{"no-such-command"}, 2, "unknown command"},
		{[]string{"scenario", "default", "--bogus"}, 2, "unknown flag"},
		{[]string{"scenario", "default", "extra"}, 2, "takes 0 argument"},
		{[]string{"merge", "x"}, 2, "-o OUTDIR"},
		{[]string{"scenario", "check", filepath.Join(dir, "missing.toml")}, 1, "missing.toml"},
		{[]string{"scenario", "check", badScenario}, 1, "bad.toml:1: key colour: unknown key"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, stderr := capsim(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.errPart) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.errPart)
			}
		})
	}
}

func TestScenarioDefaultRoundTrips(t *testing.T) {
	code, out, _ := capsim(t, "scenario", "default")
	if code != 0 {
		t.Fatal(code)
	}
	p := filepath.Join(t.TempDir(), "s.toml")
	os.WriteFile(p, []byte(out), 0o644)
	code, out, stderr := capsim(t, "scenario", "check", p)
	if code != 0 || !strings.Contains(out, "point(s)") {
		t.Fatalf("check: %d %q %q", code, out, stderr)
	}
}
