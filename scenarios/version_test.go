package scenarios

import (
	"os"
	"os/exec"
	"runtime/debug"
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

// TestVersionOfBuilds: two builds of one clean commit have one version
// wherever they were built (another folder, -trimpath, another -buildmode)
// and results resume across them; another Go toolchain, target level,
// cgo setting, build tag or CLP library (a shared library upgraded under
// the same executable) is another version, as is any change to the code.
func TestVersionOfBuilds(t *testing.T) {
	build := func(goVersion string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{GoVersion: goVersion, Path: "github.com/capsim/capsim/cmd/capsim",
			Main: debug.Module{Path: "github.com/capsim/capsim", Version: "(devel)"}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	const rev = "2ebf64f84dd7e517babf494e220d65db38f1c665"
	base := []string{"-buildmode", "exe", "-compiler", "gc", "CGO_ENABLED", "1", "GOARCH", "amd64", "GOOS", "linux", "GOAMD64", "v1",
		"vcs", "git", "vcs.revision", rev, "vcs.time", "2026-11-29T11:14:50Z", "vcs.modified", "false"}
	with := func(k, v string) []string {
		s := append([]string(nil), base...)
		for i := 0; i < len(s); i += 2 {
			if s[i] == k {
				s[i+1] = v
				return s
			}
		}
		return append(s, k, v)
	}
	ref := version(build("go1.26.8", base...), true, "", "1.17.6")
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		clp  string
		same bool
	}{
		{"a rebuild", build("go1.26.8", base...), "1.17.6", true},
		{"with -trimpath", build("go1.26.8", with("-trimpath", "true")...), "1.17.6", true},
		{"as a PIE", build("go1.26.8", with("-buildmode", "pie")...), "1.17.6", true},
		{"another Go", build("go1.27.0", base...), "1.17.6", false},
		{"GOAMD64=v3", build("go1.26.8", with("GOAMD64", "v3")...), "1.17.6", false},
		{"without cgo", build("go1.26.8", with("CGO_ENABLED", "0")...), "", false},
		{"a build tag", build("go1.26.8", with("-tags", "netgo")...), "1.17.6", false},
		{"another CLP", build("go1.26.8", base...), "1.17.11", false},
		{"another commit", build("go1.26.8", with("vcs.revision", "1a5ce11c8ed2ecb1c8aa51ab5b5f4ee3bb93a4b5")...), "1.17.6", false},
		{"a modified tree", build("go1.26.8", with("vcs.modified", "true")...), "1.17.6", false},
		{"no revision", build("go1.26.8", base[:len(base)-8]...), "1.17.6", false},
	} {
		if got := version(tc.bi, true, "", tc.clp); (got == ref) != tc.same {
			t.Errorf("%s: version %q, the reference build's %q: want same = %v", tc.name, got, ref, tc.same)
		}
	}
}
