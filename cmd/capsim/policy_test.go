package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// capsim policy NAME and the deprecated capsim replay --policy NAME run
// the same replay (scenarios.ReplayPolicy): equal output, and the old form
// prints its deprecation notice on the standard error only.
func TestPolicyCommandMatchesReplay(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "s.arrow")
	if code, _, stderr := capsim(t, "gen", "stencil", "--dims", "2x2", "--iterations", "4", "--imbalance", "random", "--balance", "0.3",
		"--compute-ns", "2000000", "--halo-bytes", "4096", "-o", tr); code != 0 {
		t.Fatal(stderr)
	}
	for _, args := range [][]string{
		{"steering", "--cap", "200", "--predict", "previous", "--no-bound"},
		{"dct-dvfs", "--threads", "2", "--strategy", "combined", "--no-bound", "--json"},
	} {
		code, want, stderr := capsim(t, append([]string{"policy", args[0], tr}, args[1:]...)...)
		if code != 0 {
			t.Fatalf("policy %v: exit %d: %s", args, code, stderr)
		}
		if strings.Contains(stderr, "deprecated") {
			t.Errorf("policy %v: %s", args, stderr)
		}
		code, got, stderr := capsim(t, append([]string{"replay", tr, "--policy"}, args...)...)
		if code != 0 || got != want {
			t.Errorf("replay --policy %v: exit %d, output\n%s\nwant\n%s", args, code, got, want)
		}
		if !strings.Contains(stderr, "--policy has been deprecated, use 'capsim policy NAME TRACE'") {
			t.Errorf("replay --policy %v: stderr %q lacks the deprecation notice", args, stderr)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"policy", "steering", tr, "--threads", "4"}, 2, "unknown flag: --threads"},
		{[]string{"policy", "lp", tr, "--beta", "0.5"}, 2, "unknown flag: --beta"},
		{[]string{"policy", "lp", tr}, 2, "needs --cap"},
		{[]string{"policy", "steering", tr, "--machine", "nope"}, 2, `no machine "nope"`},
		{[]string{"policy", "dct-dvfs", tr, "--objective", "x"}, 2, "unknown objective"},
	} {
		code, _, stderr := capsim(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%v: exit %d %q, want %d and %q", tc.args, code, stderr, tc.code, tc.msg)
		}
	}
}

// Each policy command lists only its own flags; replay lists none of
// them (its --policy is deprecated).
func TestPolicyHelpFlags(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		has, lack []string
	}{
		{[]string{"policy", "steering", "--help"}, []string{"--predict", "--strict-lt", "--cap", "--net"}, []string{"--threads", "--objective"}},
		{[]string{"policy", "dct-dvfs", "--help"}, []string{"--threads", "--objective", "--coordination-pct"}, []string{"--predict", "--strict-lt"}},
		{[]string{"policy", "lp", "--help"}, []string{"--cap", "--lp-messages", "--scenario"}, []string{"--beta", "--no-bound", "--predict", "--threads"}},
		{[]string{"replay", "--help"}, []string{"--cap", "--topology", "--models"}, []string{"--policy", "--predict", "--threads", "--objective", "--lp-messages", "--flow-exact"}},
	} {
		code, out, _ := capsim(t, tc.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d", tc.args, code)
		}
		for _, f := range tc.has {
			if !strings.Contains(out, f+" ") {
				t.Errorf("%v: help lacks %s", tc.args, f)
			}
		}
		for _, f := range tc.lack {
			if strings.Contains(out, f+" ") {
				t.Errorf("%v: help lists %s", tc.args, f)
			}
		}
	}
}
