package scenarios

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/scenarios/results"
)

// traceScenario writes a scenario that reads the trace file w.arrow (the
// fake evaluator never opens it; only its content's hash matters here).
func traceScenario(t *testing.T, dir, trace string) *Scenario {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "w.arrow"), []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer(`generator = "stencil2d"`, `trace = "w.arrow"`, "iterations = [10, 20]", `"network.L_ns" = [1000, 2500]`).Replace(sweepTOML)
	p := filepath.Join(dir, "s.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestChangedInputRefused: the scenario's text is unchanged but the trace
// it reads changed between two runs into one directory. The second run
// kept the first run's points and mixed them with new ones before; now it
// is refused with a message naming the file, and --restart starts over.
func TestChangedInputRefused(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	sc := traceScenario(t, dir, "version 1")
	n := len(sc.Points())
	if _, err := Run(context.Background(), sc, fakeEval{}, RunOptions{OutDir: out, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	sc = traceScenario(t, dir, "version 2")
	_, err := Run(context.Background(), sc, fakeEval{}, RunOptions{OutDir: out, Workers: 2})
	if !errors.Is(err, results.ErrMismatch) {
		t.Fatalf("rerun after the trace changed: err = %v, want ErrMismatch", err)
	}
	for _, part := range []string{"workload.trace", filepath.Join(dir, "w.arrow"), "changed", "--restart"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("message %q lacks %q", err, part)
		}
	}
	if strings.Contains(err.Error(), "scenario "+sc.File) {
		t.Errorf("message %q blames the unchanged scenario text", err)
	}
	sum, err := Run(context.Background(), sc, fakeEval{}, RunOptions{OutDir: out, Workers: 2, Restart: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Computed != n || sum.Skipped != 0 {
		t.Errorf("restart computed %d and skipped %d of %d points", sum.Computed, sum.Skipped, n)
	}
	// An unchanged rerun resumes as before.
	if sum, err = Run(context.Background(), sc, fakeEval{}, RunOptions{OutDir: out, Workers: 2}); err != nil || sum.Skipped != n {
		t.Errorf("unchanged rerun: %+v, %v", sum, err)
	}
}

// TestShardsOfChangedInputRefused: shards run against different versions
// of the trace do not merge.
func TestShardsOfChangedInputRefused(t *testing.T) {
	dir := t.TempDir()
	var shards []string
	for k, trace := range []string{"version 1", "version 2"} {
		sc := traceScenario(t, dir, trace)
		d := filepath.Join(dir, "shard", string(rune('0'+k)))
		if _, err := Run(context.Background(), sc, fakeEval{}, RunOptions{OutDir: d, Shard: Shard{K: k, Of: 2}, Workers: 2}); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d)
	}
	_, _, err := results.Merge(filepath.Join(dir, "merged"), shards, results.MergeOptions{})
	if !errors.Is(err, results.ErrMismatch) || !strings.Contains(err.Error(), "workload.trace") {
		t.Errorf("merge: err = %v, want ErrMismatch naming workload.trace", err)
	}
}
