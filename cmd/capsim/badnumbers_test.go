package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/scenarios/results"
)

// TestBadNumbers runs the CLI on numbers that used to give a wrong
// result with exit status 0 (wrapped times, NaN powers), crash (NaN into
// CLP, an index out of range in report) or allocate without bound: each
// now exits with a status below 128 and a message naming what is wrong,
// without a panic.
func TestBadNumbers(t *testing.T) {
	_, p, write := badInputDir(t)
	write("overflow.goal", "num_ranks 1\nrank 0 {\nl1: calc 4000000000000000000\nl2: calc 4000000000000000000\nl3: calc 4000000000000000000\nl2 requires l1\nl3 requires l2\n}\n")
	// Each rank stays within the limit; the replay does not.
	write("chain.goal", `num_ranks 2
rank 0 {
l1: calc 900000000000000000
l2: send 8b to 1 tag 0
l2 requires l1
}
rank 1 {
l1: recv 8b from 0 tag 0
l2: calc 900000000000000000
l2 requires l1
}
`)
	_, def, _ := capsim(t, "scenario", "default")
	write("good.toml", def)
	nan := strings.Replace(def, "idle_power_w = 45.0", "idle_power_w = nan", 1)
	write("nan.toml", nan)
	nanfreq := strings.Replace(def, "freq_ghz = 1.9", "freq_ghz = inf", 1)
	write("nanfreq.toml", nanfreq)
	lineOf := func(text, sub string) string { // "FILE:LINE" of sub's line
		return fmt.Sprint(strings.Count(text[:strings.Index(text, sub)], "\n") + 1)
	}
	nanAt, freqAt := "nan.toml:"+lineOf(nan, "idle_power_w = nan"), "nanfreq.toml:"+lineOf(nanfreq, "freq_ghz = inf")
	write("hugegen.toml", strings.Replace(def, "iterations = 20", "iterations = 100000000", 1))
	axis := func(n int, f func(i int) string) string { // n distinct values
		vs := make([]string, n)
		for i := range vs {
			vs[i] = f(i)
		}
		return "[" + strings.Join(vs, ",") + "]"
	}
	write("hugeaxes.toml", def+"\n[sweep.params]\nbalance = "+axis(2001, func(i int) string { return fmt.Sprint(float64(i) / 2001) })+
		"\nseed = "+axis(2001, func(i int) string { return fmt.Sprint(i + 1) })+"\n")
	write("beta.json", `{"format": "capsim-compute-model", "version": 1, "recorded": {"cpu_ghz": 2.6},
  "default": {"kind": "dvfs", "params": {"beta": 1.5, "ref_ghz": 2.6}}, "regions": []}`)
	// A results directory whose table lacks the policy and cap columns.
	if err := os.MkdirAll(p("cols"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteArrow(filepath.Join(p("cols"), results.ArrowFile), results.Schema{{Name: "machine", Type: results.String}, {Name: "makespan_ns", Type: results.Int64}},
		[]results.Row{{Index: 0, Values: []any{"pal", int64(5)}}}); err != nil {
		t.Fatal(err)
	}

	// phases is examples/models/phases.csv without its comments, with old
	// replaced by new on data line n (the file's line n+1).
	phases := func(n int, old, new string) string {
		b, err := os.ReadFile("../../examples/models/phases.csv")
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, l := range strings.SplitAfter(string(b), "\n") {
			if !strings.HasPrefix(l, "#") {
				lines = append(lines, l)
			}
		}
		lines[n-1] = strings.Replace(lines[n-1], old, new, 1)
		return strings.Join(lines, "")
	}
	for _, tc := range []struct {
		name  string
		args  []string
		parts []string // each must appear in stderr
	}{
		{"overflow calcs", []string{"replay", p("overflow.goal")}, []string{"overflow.goal", "calc 4000000000000000000", "MaxTimeNs"}},
		{"overflow in replay", []string{"replay", p("chain.goal")}, []string{"rank 1 l2: calc 900000000000000000", "exceeds 1000000000000000000 ns"}},
		{"huge L", []string{"replay", p("good.arrow"), "--net", "loggops:L=9000000000000000000"}, []string{"L = 9000000000000000000 ns exceeds", "MaxTimeNs"}},
		{"huge L override", []string{"replay", p("good.arrow"), "--net-override", "comm=0;o=9000000000000000000"}, []string{"o = 9000000000000000000 ns exceeds"}},
		{"NaN idle power", []string{"scenario", "check", p("nan.toml")}, []string{nanAt + ": key machine.idle_power_w", "got NaN"}},
		{"NaN idle power sweep", []string{"sweep", p("nan.toml"), "-o", p("r-nan"), "--progress", "never"}, []string{nanAt, "idle_power_w"}},
		{"NaN idle power bound", []string{"bound", "--scenario", p("nan.toml"), "--cap", "300"}, []string{nanAt, "idle_power_w"}},
		{"infinite frequency", []string{"scenario", "check", p("nanfreq.toml")}, []string{freqAt + ": key machine.pstate.freq_ghz", "pstate 2"}},
		{"absurd generator size", []string{"gen", "stencil", "--dims", "2048x2048", "--iterations", "1000", "-o", p("huge.arrow")}, []string{"gen.MaxEvents"}},
		{"absurd collective", []string{"gen", "coll", "--ranks", "1048576", "--reps", "1048576", "-o", p("huge.arrow")}, []string{"gen.MaxEvents"}},
		{"absurd scenario workload", []string{"sweep", p("hugegen.toml"), "-o", p("r-huge"), "--progress", "never"}, []string{"gen.MaxEvents"}},
		{"absurd axes product", []string{"scenario", "check", p("hugeaxes.toml")}, []string{"key sweep.params", "scenarios.MaxPoints"}},
		{"report missing columns", []string{"report", p("cols"), "--no-detail"}, []string{"results.arrow", "lacks", "policy, cap_w"}},
		{"model beta out of range", []string{"replay", p("good.arrow"), "--models", p("beta.json")}, []string{"beta.json", "beta = 1.5"}},
		{"NaN beta flag", []string{"replay", p("good.arrow"), "--policy", "steering", "--beta", "NaN"}, []string{"--beta NaN", "[0, 1]"}},
		{"NaN cap flag", []string{"bound", p("good.arrow"), "--cap", "NaN"}, []string{"--cap NaN"}},
		{"infinite switch time", []string{"bound", p("good.arrow"), "--cap", "300", "--switch-us", "Inf"}, []string{"--switch-us +Inf"}},
		{"negative workers", []string{"sweep", p("good.toml"), "-o", p("r-w"), "--workers", "-2"}, []string{"--workers -2"}},
		{"NaN cap range", []string{"bound", p("good.arrow"), "--caps", "NaN:400:10"}, []string{"NaN:400:10"}},
		// A cap range of 9e301 caps panicked in makeslice; a huge cap or
		// frontier size ran the LP at +Inf or until killed.
		{"tiny cap step", []string{"bound", p("good.arrow"), "--caps", "290:380:1e-300"}, []string{"caps is too many"}},
		{"huge cap flag", []string{"frontier", p("good.arrow"), "--cap", "1e300"}, []string{"--cap 1e+300: must be a positive power of at most 1e+09 W"}},
		{"huge frontier", []string{"frontier", p("good.arrow"), "--points", "100000000"}, []string{"--points 100000000: want 2 to 10000"}},
		// A prediction past MaxTimeNs printed +Inf s (and --json failed on
		// it); GiB past int64's bytes wrapped to a negative memory; a node
		// of 10^9 cores enumerated its patterns for ever.
		{"predict huge work", []string{"predict", "../../examples/models/stencil.json", "--region", "stencil.compute", "--work", "1e308"}, []string{"--work 1e+308: must be seconds in [0, 1e9]"}},
		{"predict past MaxTimeNs", []string{"predict", "../../examples/models/stencil.json", "--region", "stencil.compute", "--work", "1e9", "--freq", "0.1", "--json"},
			[]string{"--work 1e+09 s", "predicts 2.1e+10 s at cpu 0.1GHz", "graph.MaxTimeNs"}},
		// Measured times and powers past the limits overflowed the fits
		// (an error without a line, or a LAPACK panic on NaN).
		{"fit seconds past MaxSeconds", []string{"fit", write("bigs.csv", "region,cpu_ghz,seconds,watts\na,2.6,1,15\na,2.0,1e308,10\n"), "--kind", "dvfs", "--recorded", "cpu=2.6", "-o", p("f.json")},
			[]string{"bigs.csv: line 3: column seconds: 1e+308 s is past 1e+09 s"}},
		{"fit watts past MaxWatts", []string{"fit", write("bigw.csv", "region,cpu_ghz,seconds,watts\na,2.6,1,15\na,2.0,1.2,1e308\n"), "--kind", "dvfs", "--recorded", "cpu=2.6", "-o", p("f.json")},
			[]string{"bigw.csv: line 3: column watts: 1e+308 W is past 1e+09 W"}},
		{"phase time past MaxSeconds", []string{"fit", write("pht.csv", phases(3, ",2.3,", ",1e308,")), "--kind", "phase-mlr", "--sample", "cpu=2.0,threads=16", "--sample", "cpu=1.0,threads=1", "-o", p("f.json")},
			[]string{"pht.csv: line 3: column time_s: 1e+308 s is past"}},
		{"phase watts past MaxWatts", []string{"fit", write("phw.csv", phases(3, ",228.26086956521738,", ",1e308,")), "--kind", "phase-mlr", "--sample", "cpu=2.0,threads=16", "--sample", "cpu=1.0,threads=1", "-o", p("f.json")},
			[]string{"phw.csv: line 3: column watts: 1e+308 W is past"}},
		{"phase event rate overflowing", []string{"fit", write("phe.csv", phases(3, ",0.2\n", ",1e308\n")), "--kind", "phase-mlr", "--sample", "cpu=2.0,threads=16", "--sample", "cpu=1.0,threads=1", "-o", p("f.json")},
			[]string{"phe.csv: phase-mlr: target cpu 2GHz x8: least squares: a regressor overflows"}},
		// 10^8 threads per task priced a 19 GW node; an overhead share of
		// 1e308 overflowed a calc named in lowered terms.
		{"dct-dvfs threads past the node", []string{"policy", "dct-dvfs", p("good.arrow"), "--no-bound", "--threads", "100000000"}, []string{"--threads 100000000: 8 ranks per node × 100000000 threads exceed the 16 cores of a node of machine pal"}},
		{"dct-dvfs thread overhead 1e308", []string{"policy", "dct-dvfs", p("good.arrow"), "--no-bound", "--thread-overhead", "1e308"}, []string{"--thread-overhead 1e+308: outside [0, 1]"}},
		// A flag named for its time unit had no upper bound: 9.2e18 ns
		// of DVFS overhead wrapped sums, or failed as a lowered calc.
		{"decision cost past MaxTimeNs", []string{"policy", "steering", p("good.arrow"), "--no-bound", "--decision-ns", "9223372036854775807"}, []string{"--decision-ns 9223372036854775807: must be a time in [0, 1e+18] ns"}},
		{"DVFS overhead past MaxTimeNs", []string{"policy", "dct-dvfs", p("good.arrow"), "--no-bound", "--tdvfs-ns", "9223372036854775807"}, []string{"--tdvfs-ns 9223372036854775807: must be a time in [0, 1e+18] ns"}},
		// --clusters 0 was taken as 1; more clusters than samples wrote
		// no model file, failing on an adjusted R² of -Inf.
		{"eiger clusters 0", []string{"fit", "testdata/eiger_two_terms.csv", "--kind", "eiger", "--region", "solve", "--clusters", "0", "-o", p("e.json")}, []string{"--clusters 0: must be a finite number > 0"}},
		{"eiger clusters past the samples", []string{"fit", "testdata/eiger_two_terms.csv", "--kind", "eiger", "--region", "solve", "--clusters", "100000000", "-o", p("e.json")},
			[]string{"100000000 clusters of 20 samples: a cluster needs at least 2 samples to fit (at most 10 clusters)"}},
		// --cores 10^8 ran the static limit's knapsack for minutes; a
		// static limit past the node failed mid-run or was taken as given.
		{"schedule cores 10^8", []string{"schedule", "cholesky:4", "--cap", "60", "--cores", "100000000"}, []string{"--cores 100000000: want 1..65536 hardware threads"}},
		{"schedule static cores past the node", []string{"schedule", "cholesky:4", "--cap", "60", "--policy", "fs", "--cores", "3", "--static-cores", "5"}, []string{"--static-cores 5: more than the node's 3 hardware threads"}},
		{"aggregate node memory past int64", []string{"aggregate", p("good.arrow"), "--node-mem-gb", "1e308"}, []string{"--node-mem-gb 1e+308: must be GiB in [0, 1073741824]"}},
		{"aggregate node of 10^9 cores", []string{"aggregate", p("good.arrow"), "--sockets", "1000x1000x1000"}, []string{"1000000000 cores per node, more than 65536 (aggregate.MaxCores"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := capsim(t, tc.args...)
			if code == 0 || code >= 128 {
				t.Errorf("exit %d, want 1..127; stdout %q stderr %q", code, stdout, stderr)
			}
			for _, part := range tc.parts {
				if !strings.Contains(stderr, part) {
					t.Errorf("stderr %q does not contain %q", stderr, part)
				}
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stderr shows a panic: %q", stderr)
			}
		})
	}
}

// TestByteOrderMark reads every text input a spreadsheet or editor may
// save with a UTF-8 byte-order mark: its first column or task kept the
// mark in its name ("\ufeffregion" an unknown column, "\ufeffPOTRF" a
// kernel without a profile). Each now reads as the same file without it.
func TestByteOrderMark(t *testing.T) {
	_, p, write := badInputDir(t)
	const mark = "\ufeff"
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return mark + string(b)
	}
	write("dvfs.csv", mark+"region,cpu_ghz,seconds,watts\na,2.6,1,15\na,2.0,1.2,10\n")
	write("eiger.csv", read("testdata/eiger_two_terms.csv"))
	write("phases.csv", read("../../examples/models/phases.csv"))
	write("ipc.csv", read("../../examples/models/ipc-training.csv"))
	write("dag.txt", mark+"POTRF(0)\nTRSM(1,0) 0\n")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"dvfs samples", []string{"fit", p("dvfs.csv"), "--kind", "dvfs", "--recorded", "cpu=2.6", "-o", p("dvfs.json")}},
		{"eiger samples", []string{"fit", p("eiger.csv"), "--kind", "eiger", "--region", "solve", "-o", p("eiger.json")}},
		{"phase samples", []string{"fit", p("phases.csv"), "--kind", "phase-mlr", "--sample", "cpu=2.0,threads=16", "--sample", "cpu=1.0,threads=1", "-o", p("mlr.json")}},
		{"IPC samples", []string{"fit", p("ipc.csv"), "--kind", "ipc-mlr", "--sample", "4", "--sample", "5", "--sockets", "2x2x2", "-o", p("ipc.json")}},
		{"task graph", []string{"schedule", p("dag.txt"), "--cap", "60", "--policy", "fs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, stdout, stderr := capsim(t, tc.args...); code != 0 {
				t.Errorf("exit %d; stdout %q stderr %q", code, stdout, stderr)
			}
		})
	}
}
