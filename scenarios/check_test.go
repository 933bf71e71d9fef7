package scenarios

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCheckMatchesSweep: scenarios that `scenario check` accepted before
// but `sweep` rejected (or ran into silent null rows: the lp policy on an
// execution-graph workload) fail Check, and Run fails with the same
// message before it creates the results directory.
func TestCheckMatchesSweep(t *testing.T) {
	dir := t.TempDir()
	goal := "num_ranks 2\nrank 0 {\nl1: calc 1000\nl2: send 8b to 1 tag 0\nl1 requires l2\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "two.goal"), []byte(goal), 0o644); err != nil {
		t.Fatal(err)
	}
	// Three CPUs a rank (a Chakra trace's host thread and GPU streams).
	cpus := "num_ranks 2\nrank 0 {\na: calc 1000 cpu 0\nb: calc 1000 cpu 1\nc: calc 1000 cpu 2\n}\nrank 1 {\na: calc 1000\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "cpus.goal"), []byte(cpus), 0o644); err != nil {
		t.Fatal(err)
	}
	machine := func(nodes, rpn int) string {
		return "name = \"c\"\n[[machine]]\nname = \"m\"\nnodes = " + strconv.Itoa(nodes) + "\ncores_per_socket = 4\nranks_per_node = " + strconv.Itoa(rpn) +
			"\n[[machine.pstate]]\nfreq_ghz = 2.0\nactive_power_w = 10\n"
	}
	for _, tc := range []struct {
		name, text string
		parts      []string
	}{
		{"process grid", machine(1, 4) + "[workload]\ngenerator = \"stencil2d\"\n[sweep]\ncaps_w = [100]\npolicies = [\"static\"]\n",
			[]string{"16 ranks", "machine m runs 4", "1 nodes × 4 ranks_per_node"}},
		{"process grid of one axis value", machine(4, 4) + "[workload]\ngenerator = \"stencil2d\"\n[sweep]\ncaps_w = [100]\npolicies = [\"static\"]\n[sweep.params]\nranks = [16, 32]\n",
			[]string{"at the sweep point ranks = 32: ", "32 ranks", "16"}},
		{"missing trace", machine(1, 2) + "[workload]\ntrace = \"nope.arrow\"\n", []string{"workload.trace", "nope.arrow", "no such file"}},
		{"lp on a task graph without the engine LP", machine(1, 2) + "[workload]\ntrace = \"two.goal\"\n[bound]\nmessages = \"loggops\"\n[sweep]\ncaps_w = [100]\npolicies = [\"lp\"]\n",
			[]string{"policy lp on an execution graph", `messages = "engine"`}},
		{"more CPUs than cores without a GPU", machine(1, 2) + "[workload]\ntrace = \"cpus.goal\"\n[sweep]\ncaps_w = [100]\npolicies = [\"static\"]\n",
			[]string{":6: key machine.ranks_per_node: workload.trace cpus.goal: ", "run up to 3 CPUs at once", "machine m has no [machine.gpu]", "2 ranks × 3 CPUs on a node exceed its 4 cores", "add a [machine.gpu] table"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".toml")
			if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			sc, err := Load(p)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			cerr := sc.Check()
			if cerr == nil {
				t.Fatal("Check accepted it")
			}
			for _, part := range tc.parts {
				if !strings.Contains(cerr.Error(), part) {
					t.Errorf("Check: %q lacks %q", cerr, part)
				}
			}
			out := filepath.Join(dir, "out-"+filepath.Base(p))
			_, rerr := Run(context.Background(), sc, Replayer{}, RunOptions{OutDir: out, Workers: 1})
			if rerr == nil || rerr.Error() != cerr.Error() {
				t.Errorf("Run: %v, want Check's error", rerr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("Run created %s", out)
			}
		})
	}
}
