package scenarios

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/importer"
)

// TestVersionTellsBuildsApart checks that a build without a VCS revision
// (test binaries never have one) names its executable's Go build ID, as
// `go tool buildid` prints it, or its hash where it has none, so that a
// sweep built from other code does not resume from these results.
func TestVersionTellsBuildsApart(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	v := Version()
	if id := goBuildID(exe); id != "" {
		out, err := exec.Command("go", "tool", "buildid", exe).Output()
		if err != nil {
			t.Skipf("go tool buildid: %v", err)
		}
		if want := strings.TrimSpace(string(out)); id != want {
			t.Fatalf("goBuildID = %q, go tool buildid says %q", id, want)
		}
		if !strings.HasSuffix(v, " build "+id) {
			t.Fatalf("Version() = %q, want it to end with the build ID %s", v, id)
		}
		return
	}
	h, err := importer.HashFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(v, " exe "+h[:16]) {
		t.Fatalf("Version() = %q, want it to end with the executable's hash %s", v, h[:16])
	}
}
