package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestReplayPolicy(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "s.arrow")
	if code, _, stderr := capsim(t, "gen", "stencil", "--dims", "2x2", "--iterations", "4", "--imbalance", "random", "--balance", "0.3",
		"--compute-ns", "2000000", "--halo-bytes", "4096", "-o", tr); code != 0 {
		t.Fatal(stderr)
	}
	for _, args := range [][]string{
		{"--policy", "steering"},
		{"--policy", "steering", "--cap", "200", "--predict", "previous", "--lp-messages", "replay"},
		{"--policy", "dct-dvfs", "--threads", "16"},
		{"--policy", "dct-dvfs", "--threads", "16", "--granularity", "per-phase", "--switch-penalty-ns", "1000", "--lp-messages", "replay"},
		{"--policy", "dct-dvfs", "--threads", "16", "--strategy", "combined", "--objective", "whole-interval", "--wait-cap", "--epsilon", "0.1"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, stderr := capsim(t, append([]string{"replay", tr, "--json"}, args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var r policyJSON
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			if r.Phases != 4 || r.Baseline.MakespanNs <= 0 || r.Result.MakespanNs <= 0 || r.Result.EnergyJ <= 0 {
				t.Errorf("output %+v", r)
			}
			if r.EnergyImprovementPct < 0 {
				t.Errorf("energy improvement %g %% < 0", r.EnergyImprovementPct)
			}
			if s := r.LP.Status; s != "ok" && s != "no-solver" {
				t.Errorf("LP status %q", s)
			}
			code, text, _ := capsim(t, append([]string{"replay", tr}, args...)...)
			if code != 0 || !strings.Contains(text, "improvement vs no policy") {
				t.Errorf("text output: %q", text)
			}
		})
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"replay", tr, "--policy", "magic"}, 2, "unknown --policy"},
		{[]string{"replay", tr, "--policy", "steering", "--predict", "tarot"}, 2, "unknown prediction"},
		{[]string{"replay", tr, "--policy", "steering", "--cap", "10"}, 1, "does not cover the base power"},
		{[]string{"replay", tr, "--policy", "dct-dvfs", "--objective", "x"}, 2, "unknown objective"},
		{[]string{"replay", tr, "--policy", "dct-dvfs", "--beta", "2"}, 2, "outside [0, 1]"},
		{[]string{"replay", tr, "--policy", "steering", "--timeline", "x.json"}, 2, "does not apply"},
		{[]string{"replay", tr, "--policy", "steering", "--lp-messages", "pigeon"}, 2, "want loggops or replay"},
	} {
		code, _, stderr := capsim(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%v: exit %d %q, want %d and %q", tc.args, code, stderr, tc.code, tc.msg)
		}
	}
}

func TestSteeringGridCmd(t *testing.T) {
	code, out, stderr := capsim(t, "steering-grid", "--iterations", "2", "--no-bound")
	if code != 0 || strings.Count(out, "\n") != 76 || !strings.Contains(out, "wavefront") {
		t.Errorf("exit %d, %d lines, stderr %q", code, strings.Count(out, "\n"), stderr)
	}
}
