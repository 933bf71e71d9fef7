package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A sharded sweep merged and reported: the merged directory keeps the
// scenario, so the report replays one point in detail.
func TestShardMergeReport(t *testing.T) {
	dir := t.TempDir()
	var shards []string
	for _, k := range []string{"0/2", "1/2"} {
		out := filepath.Join(dir, "s"+k[:1])
		if code, _, stderr := capsim(t, "sweep", "-o", out, "--shard", k, "--progress", "never"); code != 0 {
			t.Fatalf("sweep %s: %d %s", k, code, stderr)
		}
		shards = append(shards, out)
	}
	merged := filepath.Join(dir, "all")
	if code, _, stderr := capsim(t, append([]string{"merge", "-o", merged}, shards...)...); code != 0 {
		t.Fatalf("merge: %d %s", code, stderr)
	}
	code, out, stderr := capsim(t, "report", merged, "--detail", "policy=static,cap=300")
	if code != 0 {
		t.Fatalf("report: %d %s", code, stderr)
	}
	if !strings.Contains(out, "8 figures") { // makespan, gap, energy; energy–time frontier; gantt, rank power, job power, task frontier
		t.Errorf("report said %q", out)
	}
	page, err := os.ReadFile(filepath.Join(merged, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"One point in detail: machine pal, policy static, cap 300 W", "Gantt chart", "Pareto frontier", "<svg"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	for _, f := range []string{"detail_gantt.png", "detail_rank_power.svg", "detail_job_power.png", "detail_task_frontier.svg", "makespan_0.png", "gap_0.svg", "frontier_pal.svg"} {
		if _, err := os.Stat(filepath.Join(merged, "figures", f)); err != nil {
			t.Error(err)
		}
	}
	for _, tc := range []struct{ spec, err string }{
		{"policy", "not key=value"},
		{"cap=-3", "positive number"},
		{"colour=red", "unknown key"},
	} {
		if code, _, stderr := capsim(t, "report", merged, "--detail", tc.spec); code != 2 || !strings.Contains(stderr, tc.err) {
			t.Errorf("--detail %s: exit %d, %q", tc.spec, code, stderr)
		}
	}
	if code, _, stderr := capsim(t, "report", merged, "--detail", "machine=nope"); code != 1 || !strings.Contains(stderr, `no machine "nope"`) {
		t.Errorf("unknown machine: exit %d, %q", code, stderr)
	}
	// One point named twice (the second time with the defaults or the cap
	// written otherwise, an uncapped point with another cap) was detailed
	// twice, figures and all.
	for _, tc := range []struct {
		details []string
		err     string
	}{
		{[]string{"policy=static,cap=300", "machine=pal,policy=static,cap=300.0"}, "details 1 and 2 (--detail) are one point (machine pal, policy static, cap 300 W)"},
		{[]string{"cap=310", "policy=lp", "policy=uncapped,cap=300", "policy=uncapped,cap=310"}, "details 3 and 4 (--detail) are one point (machine pal, policy uncapped): name each point once"},
	} {
		args := []string{"report", merged}
		for _, d := range tc.details {
			args = append(args, "--detail", d)
		}
		if code, _, stderr := capsim(t, args...); code != 1 || !strings.Contains(stderr, tc.err) {
			t.Errorf("%v: exit %d, %q", tc.details, code, stderr)
		}
	}
}
