package scenarios

import (
	"os"
	"strings"
	"testing"
)

// TestVersionTellsBuildsApart checks that a build without a VCS revision
// (test binaries never have one) names its executable's hash, so that a
// sweep built from other code does not resume from these results.
func TestVersionTellsBuildsApart(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	h, err := hashFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	v := Version()
	if !strings.HasSuffix(v, " exe "+h[:16]) {
		t.Fatalf("Version() = %q, want it to end with the executable's hash %s", v, h[:16])
	}
}
