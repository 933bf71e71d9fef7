// Package testenv locates test inputs that live outside the module, such
// as the shared conformance schedules beside the repository.
package testenv

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// ModuleRoot returns the directory holding go.mod, walking up from the
// working directory.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := FindModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// FindModuleRoot is ModuleRoot for programs (such as bench/run) that
// have no testing.TB.
func FindModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the working directory: run inside the capsim module")
		}
		dir = parent
	}
}

// Shared returns the path of sub inside the shared/ folder that sits beside
// the repository (or $CAPSIM_SHARED when set). When it is missing the test
// is skipped, except under CI (env CI set), where it fails.
func Shared(t testing.TB, sub string) string {
	t.Helper()
	base := os.Getenv("CAPSIM_SHARED")
	if base == "" {
		base = filepath.Join(ModuleRoot(t), "..", "shared")
	}
	p := filepath.Join(base, sub)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("shared input %s missing (set CAPSIM_SHARED): %v", p, err)
		}
		t.Skipf("shared input %s missing (set CAPSIM_SHARED to run this test)", p)
	}
	return p
}
