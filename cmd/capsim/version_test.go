package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestBuildVersion(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"none", nil, false, "devel (no build information)"},
		{"no vcs", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "devel (no VCS revision: built outside a repository or with -buildvcs=false)"},
		{"clean", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"},
			Settings: vcs("vcs.revision", "abc123", "vcs.time", "2026-11-28T18:00:00Z", "vcs.modified", "false")}, true,
			"v1.2.3 (revision abc123, 2026-11-28T18:00:00Z)"},
		{"modified", &debug.BuildInfo{Main: debug.Module{Version: ""},
			Settings: vcs("vcs.revision", "abc123", "vcs.modified", "true")}, true, "devel (revision abc123, modified)"},
	} {
		if got := buildVersion(tc.bi, tc.ok); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestVersionFlag(t *testing.T) {
	code, out, stderr := capsim(t, "--version")
	if code != 0 || out != "capsim "+capsimVersion()+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

func TestCompletion(t *testing.T) {
	for shell, want := range map[string]string{
		"bash":       "__start_capsim",
		"zsh":        "#compdef capsim",
		"fish":       "complete -c capsim",
		"powershell": "Register-ArgumentCompleter",
	} {
		code, out, stderr := capsim(t, "completion", shell)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("completion %s: exit %d, stderr %q, stdout lacks %q", shell, code, stderr, want)
		}
	}
	// The completion script completes subcommands and their flags.
	code, out, _ := capsim(t, "__complete", "sw")
	if code != 0 || !strings.Contains(out, "sweep") {
		t.Errorf("__complete sw: exit %d, %q", code, out)
	}
}
