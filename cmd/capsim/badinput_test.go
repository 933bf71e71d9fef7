package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/capsim/capsim/scenarios/results"
)

// TestBadInput runs the CLI on bad input: every error names the file (or
// flag) and what is wrong, exits 1 (2 for usage errors), never panics, and
// leaves no half-written output behind.
func TestBadInput(t *testing.T) {
	dir, p, write := badInputDir(t)
	good, err := os.ReadFile(p("good.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	write("truncated.arrow", string(good[:len(good)/2]))
	write("notarrow.arrow", "hello, world\n")
	// A trace whose footer points outside the file (this panicked in
	// arrowtrace.Detect before).
	badFooter := append([]byte(nil), good...)
	copy(badFooter[len(badFooter)-20:], "00000000")
	write("badfooter.arrow", string(badFooter))
	write("bad.goal", "num_ranks 2\nrank 0 {\nl1: send 10b to 1 tag 0\n")
	write("badop.goal", "num_ranks 1\nrank 0 {\nl1: frobnicate 10\n}\n")
	write("badruns.csv", "region,cpu_ghz,seconds,watts\nstencil.compute,2.6,10,15\nstencil.compute,abc,1,2\n")
	write("bad.json", "{\n  \"format\":\n")
	write("trace.tar.gz", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xed\xc1\x01")
	write("run-0.dat", "MPI_Init:-:1:2:1.0\nMPI_Finalize:3.0:-\n")
	write("run-1.dat", "MPI_Init:-:1:2:1.0\nMPI_Finalize:3.0:-\n")

	// A sweep of the default scenario, then a scenario that says
	// something else (another seed: a comment alone is the same sweep).
	_, def, _ := capsim(t, "scenario", "default")
	write("s.toml", def)
	write("other.toml", strings.Replace(def, "seed = ", "seed = 2\n# ", 1))
	write("wrongtype.toml", strings.Replace(def, "nodes = ", "nodes = \"two\"\n# ", 1))
	write("syntax.toml", def+"\n[sweep\n")
	write("notrace.toml", regexp.MustCompile(`(?s)\[workload\].*?\[models\]`).ReplaceAllString(def, "[workload]\ntrace = \"nope.arrow\"\n\n[models]"))
	if code, _, stderr := capsim(t, "sweep", p("s.toml"), "-o", p("res"), "--progress", "never"); code != 0 {
		t.Fatalf("sweep: %d %s", code, stderr)
	}
	// A results directory whose results.arrow is corrupt: its footer
	// points outside the file (this panicked in arrow-go before).
	res2 := p("res2")
	if err := os.MkdirAll(res2, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"points.jsonl", "scenario.json", "results.arrow"} {
		b, err := os.ReadFile(filepath.Join(p("res"), f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "results.arrow" {
			copy(b[len(b)-20:], "00000000")
		}
		os.WriteFile(filepath.Join(res2, f), b, 0o644)
	}
	// A journal with a bad entry.
	res3 := p("res3")
	os.MkdirAll(res3, 0o755)
	j, _ := os.ReadFile(filepath.Join(p("res"), "points.jsonl"))
	os.WriteFile(filepath.Join(res3, "points.jsonl"), append(j, "{\"point\":1,\"values\":[1]}\n"...), 0o644)

	// A sweep of a trace that then changes (same scenario
	// text); a shard holding only some points; an execution-graph workload
	// under the lp policy; a machine with fewer ranks than the trace.
	tiny := "name = \"tiny\"\n[[machine]]\nname = \"m\"\nnodes = 1\ncores_per_socket = 4\nranks_per_node = 4\n" +
		"[[machine.pstate]]\nfreq_ghz = 2.0\nactive_power_w = 10\n[workload]\ntrace = \"t.arrow\"\n" +
		"[sweep]\ncaps_w = [100]\npolicies = [\"uncapped\", \"static\"]\n"
	write("t.arrow", string(good))
	write("tiny.toml", tiny)
	if code, _, stderr := capsim(t, "sweep", p("tiny.toml"), "-o", p("res-tiny"), "--progress", "never"); code != 0 {
		t.Fatalf("sweep tiny: %d %s", code, stderr)
	}
	if code, _, stderr := capsim(t, "gen", "stencil", "--dims", "2x2", "--iterations", "3", "-o", p("t.arrow")); code != 0 {
		t.Fatalf("gen: %d %s", code, stderr)
	}
	write("grid.toml", strings.Replace(tiny, "ranks_per_node = 4", "ranks_per_node = 2", 1))
	write("two.goal", "num_ranks 2\nrank 0 {\nl1: calc 1000\nl2: send 8b to 1 tag 0\nl1 requires l2\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n")
	write("lpgraph.toml", strings.NewReplacer("ranks_per_node = 4", "ranks_per_node = 2", "t.arrow", "two.goal",
		`policies = ["uncapped", "static"]`, `policies = ["lp"]`, "[sweep]", "[bound]\nmessages = \"loggops\"\n[sweep]").Replace(tiny))
	journal, err := os.ReadFile(filepath.Join(p("res"), "points.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(p("res"), p("reslink")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(p("part"), 0o755)
	os.WriteFile(filepath.Join(p("part"), "points.jsonl"), []byte(strings.Join(strings.SplitAfter(string(journal), "\n")[:3], "")), 0o644)

	// Results directories a failing command may create (holding only the
	// complete journal header and scenario copy, written before any point).
	mayCreate := map[string]string{"scenario trace missing": p("r-notrace"), "merge --partial": p("m-partial")}
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		parts []string // each must appear in stderr
	}{
		{"missing trace", []string{"replay", p("missing.arrow")}, 1, []string{"missing.arrow", "no such file"}},
		{"truncated arrow", []string{"replay", p("truncated.arrow")}, 1, []string{"truncated.arrow", "Arrow"}},
		{"corrupt arrow footer", []string{"replay", p("badfooter.arrow")}, 1, []string{"badfooter.arrow", "malformed Arrow data"}},
		{"fit bad CSV value", []string{"fit", p("badruns.csv"), "--kind", "dvfs", "--recorded", "cpu=2.6", "-o", p("solve.json")}, 1,
			[]string{"badruns.csv: line 3: column cpu_ghz:", `"abc"`}},
		{"fit corrupt arrow", []string{"fit", p("badfooter.arrow"), "--kind", "eiger", "-o", p("e.json")}, 1,
			[]string{"badfooter.arrow", "malformed Arrow data"}},
		{"import bad goal", []string{"import", "goal", p("bad.goal"), "-o", p("g.arrow")}, 1, []string{"bad.goal:3"}},
		{"not arrow", []string{"bound", p("notarrow.arrow"), "--cap", "300"}, 1, []string{"notarrow.arrow"}},
		{"goal unterminated rank", []string{"replay", p("bad.goal")}, 1, []string{"bad.goal:3", "missing }"}},
		{"goal unknown op", []string{"replay", p("badop.goal")}, 1, []string{"badop.goal:3"}},
		{"negative ranks per device", []string{"replay", p("good.arrow"), "--models", "../../examples/models/stencil.json", "--ranks-per-device", "-1"}, 2,
			[]string{"--ranks-per-device -1"}},
		{"ranks per device without models", []string{"replay", p("good.arrow"), "--ranks-per-device", "4"}, 2, []string{"--ranks-per-device needs --models"}},
		{"model file syntax", []string{"replay", p("good.arrow"), "--models", p("bad.json")}, 1, []string{"bad.json:2:", "unexpected EOF"}},
		{"scenario wrong type", []string{"scenario", "check", p("wrongtype.toml")}, 1, []string{"wrongtype.toml:", ": key machine.nodes: incompatible types"}},
		{"scenario syntax", []string{"scenario", "check", p("syntax.toml")}, 1, []string{"syntax.toml"}},
		{"scenario trace missing", []string{"sweep", p("notrace.toml"), "-o", p("r-notrace"), "--progress", "never"}, 1,
			[]string{"notrace.toml:", ": key workload.trace:", "nope.arrow", "no such file"}},
		{"results of another scenario", []string{"sweep", p("other.toml"), "-o", p("res"), "--progress", "never"}, 1,
			[]string{"points.jsonl", "different sweep", "another output directory"}},
		{"bad journal line", []string{"sweep", p("s.toml"), "-o", res3, "--progress", "never"}, 1,
			[]string{"points.jsonl line", `unknown field "point"`}},
		{"corrupt results.arrow", []string{"report", res2, "--no-detail"}, 1, []string{"results.arrow", "malformed Arrow data"}},
		{"sweep into a file", []string{"sweep", p("s.toml"), "-o", p("good.arrow"), "--progress", "never"}, 1, []string{"good.arrow"}},
		{"cap below minimum", []string{"bound", p("good.arrow"), "--cap", "1"}, 1, []string{"below the least power"}},
		{"negative cap", []string{"bound", p("good.arrow"), "--cap", "-5"}, 2, []string{"--cap -5", "positive"}},
		{"bad cap range", []string{"bound", p("good.arrow"), "--caps", "300:200:10"}, 2, []string{"cap range", "300:200:10"}},
		{"bad shard", []string{"sweep", p("s.toml"), "-o", p("shard"), "--shard", "3/2"}, 2, []string{"shard", "3/2"}},
		{"bad detail", []string{"report", p("res"), "--detail", "cap=abc"}, 2, []string{"--detail", "cap"}},
		{"bad net spec", []string{"replay", p("good.arrow"), "--net", "loggops:L=x"}, 2, []string{"loggops:L=x", "L="}},
		{"bad collective", []string{"replay", p("good.arrow"), "--coll", "allreduce=zzz"}, 2, []string{"allreduce", "zzz"}},
		{"bad dims", []string{"gen", "stencil", "--dims", "4xq", "-o", p("g.arrow")}, 2, []string{"--dims", "4xq"}},
		{"unknown flag", []string{"replay", p("good.arrow"), "--frobnicate"}, 2, []string{"unknown flag"}},
		{"gzip tarball", []string{"replay", p("trace.tar.gz")}, 1, []string{"trace.tar.gz: read the gzip archive: unexpected EOF"}},
		{"liballprof rank 1", []string{"export", "goal", p("run-1.dat"), "-o", p("x.goal")}, 1,
			[]string{"this is the liballprof trace of rank 1: pass the rank-0 file", "run-0.dat"}},
		{"forced unknown format", []string{"replay", p("good.arrow"), "--format", "otf3"}, 1, []string{`unknown trace format "otf3"`}},
		{"forced wrong format", []string{"replay", p("good.arrow"), "--format", "goal"}, 1, []string{"good.arrow:1:"}},
		{"mps in missing folder", []string{"bound", p("good.arrow"), "--cap", "1e6", "--mps", p("nodir/x.mps")}, 1, []string{"--mps", "x.mps", "no such file"}},
		{"merge onto an input", []string{"merge", p("res"), "-o", p("res")}, 1, []string{"is the input"}},
		{"merge onto an input through a link", []string{"merge", p("res"), "-o", p("reslink")}, 1, []string{"is the input"}},
		{"merge a shard twice", []string{"merge", p("res"), p("res"), "-o", p("m-twice")}, 1, []string{"more than one shard", "--partial"}},
		{"merge a missing shard", []string{"merge", p("part"), "-o", p("m-missing")}, 1, []string{"points missing", "--partial"}},
		{"merge --partial", []string{"merge", p("part"), "-o", p("m-partial"), "--partial"}, 0, []string{"warning", "points missing"}},
		{"trace changed since the last run", []string{"sweep", p("tiny.toml"), "-o", p("res-tiny"), "--progress", "never"}, 1,
			[]string{"workload.trace", "t.arrow", "changed", "--restart"}},
		{"lp policy on a task graph without the engine LP", []string{"scenario", "check", p("lpgraph.toml")}, 1, []string{"policy lp on an execution graph", `messages = "engine"`}},
		{"lp policy on a task graph without the engine LP, sweep", []string{"sweep", p("lpgraph.toml"), "-o", p("r-lpgraph"), "--progress", "never"}, 1,
			[]string{"policy lp on an execution graph", `messages = "engine"`}},
		{"machine too small for the trace", []string{"scenario", "check", p("grid.toml")}, 1, []string{"4 ranks", "runs 2"}},
		{"timeline in missing dir", []string{"replay", p("good.arrow"), "--timeline", p("nodir/t.json")}, 1, []string{"t.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := listDir(t, dir)
			code, _, stderr := capsim(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tc.code, stderr)
			}
			for _, part := range tc.parts {
				if !strings.Contains(stderr, part) {
					t.Errorf("stderr %q does not contain %q", stderr, part)
				}
			}
			if tc.code != 0 && (code == 0 || code >= 128) {
				t.Errorf("exit %d: want a failure status below 128", code)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stderr shows a panic: %q", stderr)
			}
			// Nothing half-written: a failed command creates no files
			// (temporary ones included) but the lock file of a results
			// directory it opened.
			for f := range listDir(t, dir) {
				if !before[f] && filepath.Base(f) != results.LockFile &&
					(mayCreate[tc.name] == "" || !strings.HasPrefix(f, mayCreate[tc.name])) {
					t.Errorf("left %s behind", f)
				}
			}
		})
	}
}

func listDir(t *testing.T, dir string) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	filepath.Walk(dir, func(path string, _ os.FileInfo, err error) error {
		if err == nil {
			seen[path] = true
		}
		return nil
	})
	return seen
}

// badInputDir returns a fresh folder for the bad-input tests holding a
// good 2×2 stencil trace (good.arrow), a function giving a file's path in
// it, and one writing a file there.
func badInputDir(t *testing.T) (dir string, p func(string) string, write func(name, text string) string) {
	t.Helper()
	dir = t.TempDir()
	p = func(name string) string { return filepath.Join(dir, name) }
	write = func(name, text string) string {
		if err := os.WriteFile(p(name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p(name)
	}
	if code, _, stderr := capsim(t, "gen", "stencil", "--dims", "2x2", "--iterations", "2", "-o", p("good.arrow")); code != 0 {
		t.Fatalf("gen: %d %s", code, stderr)
	}
	return dir, p, write
}
