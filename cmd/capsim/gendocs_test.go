package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReferenceUpToDate regenerates the CLI reference and fails when
// docs/reference/cli.md differs: a flag or help text changed without the
// reference.
func TestReferenceUpToDate(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := capsim(t, "gendocs", dir); code != 0 {
		t.Fatalf("gendocs: exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(filepath.Join(dir, referenceFile))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "docs", "reference", referenceFile))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("docs/reference/%s is stale (%v): regenerate it with `go run ./cmd/capsim gendocs docs/reference` from the repository root", referenceFile, err)
	}
	// Hidden and deprecated flags and commands stay out of it.
	for _, s := range []string{"## capsim gendocs", "`--flow-exact`", "`--policy` | string | | power policy to replay", "`--topology` | string | `2x2x2`"} {
		if strings.Contains(string(got), s) {
			t.Errorf("the reference has %q", s)
		}
	}
	for _, s := range []string{"## capsim policy steering", "## capsim completion bash", "| `--sockets` | string | `2x2x2` |"} {
		if !strings.Contains(string(got), s) {
			t.Errorf("the reference lacks %q", s)
		}
	}
}
