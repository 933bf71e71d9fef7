package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
)

// Degenerate but valid traces run to the end: a SimGrid ping-pong
// recorded without compute actions (no powered task for the bound's slack
// index) under steering, and an MPI hello world (0 ns of work) whose bound
// is 0 ns, with gaps 0 in the table and the JSON, never NaN.
func TestDegenerateTraces(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	dir := t.TempDir()
	pp := filepath.Join(dir, "pp.txt")
	hello := filepath.Join(dir, "hello.txt")
	os.WriteFile(pp, []byte("0 init\n1 init\n0 send 1 0 1000\n1 recv 0 0 1000\n0 finalize\n1 finalize\n"), 0o644)
	os.WriteFile(hello, []byte("0 init\n1 init\n0 finalize\n1 finalize\n"), 0o644)
	if code, _, stderr := capsim(t, "replay", "--policy", "steering", "--cap", "300", pp); code != 0 {
		t.Fatalf("steering on a ping-pong: exit %d: %s", code, stderr)
	}
	code, out, stderr := capsim(t, "bound", "--caps", "300:310:10", hello)
	if code != 0 || strings.Contains(out, "NaN") {
		t.Fatalf("bound on hello world: exit %d:\n%s%s", code, out, stderr)
	}
	code, out, stderr = capsim(t, "bound", "--caps", "300:310:10", "--json", hello)
	if code != 0 {
		t.Fatalf("bound --json on hello world: exit %d: %s", code, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		for _, k := range []string{"gap_rounded_pct", "gap_static_pct", "gap_conductor_pct"} {
			if r[k] != 0.0 {
				t.Errorf("cap %v: %s = %v, want 0", r["cap_w"], k, r[k])
			}
		}
	}
}

// A deadlock inside a collective of a SimGrid trace (any MPI-level format,
// not only Arrow MPI traces) is reported by the MPI call: the barrier and
// which of its communicator's collectives it is, not only the lowered
// "recv 0b from 0 tag 1073741824".
func TestDeadlockInCollectiveNamed(t *testing.T) {
	p := filepath.Join(t.TempDir(), "dl.txt")
	os.WriteFile(p, []byte("0 init\n1 init\n0 recv 1 0 10\n0 barrier\n1 barrier\n1 send 0 0 10\n0 finalize\n1 finalize\n"), 0o644)
	code, _, stderr := capsim(t, "replay", p)
	if code != 1 || !strings.Contains(stderr, "rank 1: MPI_Barrier 0 bytes on comm world") || !strings.Contains(stderr, "collective call #1 on comm 0 of rank 1") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// An execution graph without work (every task of 0 ns) has an LP bound of
// 0 ns under every policy, as `bound` gives, and a policy gap of 0, never
// NaN: steering and dct-dvfs reported it as an infeasible LP, lp and
// min-energy printed a gap of NaN %.
func TestDegenerateGraphPolicyBound(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "zero.goal")
	os.WriteFile(p, []byte("num_ranks 1\nrank 0 {\nl1: calc 0\n}\n"), 0o644)
	sc := filepath.Join(dir, "one.toml")
	os.WriteFile(sc, []byte(`name = "one"
[[machine]]
name = "m"
nodes = 1
sockets_per_node = 1
cores_per_socket = 4
ranks_per_node = 1
idle_power_w = 20.0
core_idle_power_w = 1.0
[[machine.pstate]]
freq_ghz = 2.6
active_power_w = 9.0
[[machine.pstate]]
freq_ghz = 2.0
active_power_w = 6.0
[workload]
trace = "zero.goal"
`), 0o644)
	for _, policy := range []string{"steering", "dct-dvfs", "lp", "min-energy"} {
		code, out, stderr := capsim(t, "policy", policy, p, "--cap", "300", "--scenario", sc)
		if code != 0 || !strings.Contains(out, "LP bound at 300 W (engine messages): 0 ns, policy gap 0.00 %") ||
			strings.Contains(out, "infeasible") || strings.Contains(out, "NaN") {
			t.Errorf("policy %s: exit %d:\n%s%s", policy, code, out, stderr)
		}
	}
}
