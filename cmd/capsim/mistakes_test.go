package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/graph"
)

// TestMistakes runs the CLI on mistakes that used to exit 0: an output
// written over an input (the trace replaced by its own timeline), a flag
// that has no effect without another one, a count written as 0 taken as
// its default, a device a region's model cannot run on, and a fit whose
// error named neither the file nor the rows. Each is refused, exit status
// 2 for a usage error and 1 otherwise, with a message naming what is
// wrong; no input is modified and no output written.
func TestMistakes(t *testing.T) {
	dir, p, write := badInputDir(t)
	if err := os.Symlink(p("good.arrow"), p("link.arrow")); err != nil {
		t.Fatal(err)
	}
	write("runs.csv", "region,cpu_ghz,seconds,watts\na,2.6,1,15\na,2.0,1.2,10\n")
	write("mhz.csv", "region,cpu_ghz,seconds,watts\na,2.6,1,15\na,2000,1.2,10\n")
	write("faster.csv", "region,cpu_ghz,seconds,watts\na,2.6,1,15\na,2.0,0.5,10\n")
	write("dvfs.json", `{"format": "capsim-compute-model", "version": 1, "recorded": {"cpu_ghz": 2.6},
  "regions": [{"pattern": "stencil.*", "kind": "dvfs", "params": {"beta": 0.8, "ref_ghz": 2.6}}]}`)
	write("two.goal", "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 0\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n")
	write("mhz.json", `{"format": "capsim-compute-model", "version": 1, "recorded": {"cpu_ghz": 2600},
  "regions": [{"pattern": "stencil.*", "kind": "dvfs", "params": {"beta": 0.8, "ref_ghz": 2.6}}]}`)
	write("bom.json", "\xef\xbb\xbf{\"format\": \"capsim-compute-model\", \"version\": 1, \"regions\": []}")
	write("typo.json", `{"format": "capsim-compute-model", "version": 1, "recorded": {"cpu_ghz": 2.6},
  "regions": [{"pattern": "stencil.compte", "kind": "dvfs", "params": {"beta": 0.8, "ref_ghz": 2.6}}]}`)
	write("empty.json", "\n")
	write("runs.csv.gz", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03binary")
	write("cfgtypo.csv", "key,cpu_ghz,threads,seconds,watts\nstencil.compte,2.6,8,1,20\nstencil.compte,2.0,8,1.2,15\n")
	good := p("good.arrow")
	if b, err := os.ReadFile(good); err != nil || os.WriteFile(p("copy.arrow"), b, 0o644) != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p("mine"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("mine/results.csv", "my own table\n")
	_, def, _ := capsim(t, "scenario", "default")
	write("s.toml", def)
	write("slowdown.toml", def+"slowdown_pct = 5\n")
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		parts []string
	}{
		{"timeline over the trace", []string{"replay", good, "--timeline", good}, 2, []string{"--timeline", "is the input", "good.arrow"}},
		{"export over the trace through a link", []string{"export", "goal", p("link.arrow"), "-o", good}, 2, []string{"--output", "is the input", "link.arrow"}},
		{"import over the trace", []string{"import", "trace", good, "-o", p("link.arrow")}, 2, []string{"is the input"}},
		{"fit over its samples", []string{"fit", p("runs.csv"), "--kind", "dvfs", "--recorded", "cpu=2.6", "-o", p("runs.csv")}, 2, []string{"--output-file", "is the input", "runs.csv"}},
		{"frontier CSV over the trace", []string{"frontier", good, "--csv", good}, 2, []string{"--csv", "is the input"}},
		{"power over the model file", []string{"replay", good, "--models", p("dvfs.json"), "--power", p("dvfs.json")}, 2, []string{"--power", "is --models"}},
		{"two outputs in one file", []string{"replay", good, "--models", p("dvfs.json"), "--timeline", p("t.out"), "--power", p("t.out")}, 2,
			[]string{"--timeline", "--power", "name one file"}},
		{"gen into a .goal name", []string{"gen", "pattern", "binomialtreebcast", "-o", p("x.goal")}, 2, []string{"--output", "x.goal", "writes an Arrow trace", "export goal"}},
		{"import into a .goal name", []string{"import", "trace", good, "-o", p("x.GOAL")}, 2, []string{"x.GOAL", "writes an Arrow trace"}},
		{"export goal into a .arrow name", []string{"export", "goal", good, "-o", p("x.arrow")}, 2, []string{"x.arrow", "writes GOAL text"}},
		{"export goal into a .gz name", []string{"export", "goal", good, "-o", p("x.goal.gz")}, 2, []string{"x.goal.gz", "uncompressed", "gzip it afterwards"}},
		{"power into a .csv name", []string{"replay", good, "--models", p("dvfs.json"), "--power", p("p.csv")}, 2, []string{"--power", "p.csv", "writes an Arrow table"}},
		{"fit into a .csv name", []string{"fit", p("runs.csv"), "--kind", "dvfs", "--recorded", "cpu=2.6", "-o", p("model.csv")}, 2, []string{"--output-file", "model.csv", "JSON model file"}},
		{"sweep into standard output", []string{"sweep", p("s.toml"), "-o", "-"}, 2, []string{"--output -", "results directory, not a stream"}},
		{"merge into standard output", []string{"merge", p("mine"), "-o", "/dev/stdout"}, 2, []string{"--output /dev/stdout", "results directory, not a stream"}},
		{"two outputs on standard output", []string{"replay", good, "--models", p("dvfs.json"), "--timeline", "-", "--power", "-"}, 2,
			[]string{"--timeline and --power write to standard output"}},
		{"order-free nodes without order-free", []string{"bound", good, "--cap", "300", "--order-free-nodes", "5"}, 2, []string{"--order-free-nodes needs --order-free"}},
		{"order-free nodes 0", []string{"bound", good, "--cap", "300", "--order-free", "--order-free-nodes", "0"}, 2, []string{"--order-free-nodes 0", "> 0"}},
		{"switch time under lp rounding", []string{"bound", good, "--cap", "300", "--switch-us", "145"}, 2, []string{"--switch-us applies with --rounding split or staggered, not --rounding lp"}},
		{"mapping without topology", []string{"replay", good, "--mapping", "round-robin"}, 2, []string{"--mapping needs --topology"}},
		{"flow model without topology", []string{"replay", good, "--flow-cm02"}, 2, []string{"--flow-cm02 needs --topology"}},
		{"tensor parallelism without replicate", []string{"replay", good, "--tp", "4"}, 2, []string{"--tp needs --replicate"}},
		{"eiger option on a dvfs fit", []string{"fit", p("runs.csv"), "--kind", "dvfs", "--recorded", "cpu=2.6", "--clusters", "3", "-o", p("m.json")}, 2,
			[]string{"--clusters applies with --kind eiger, not --kind dvfs"}},
		{"rounds of another pattern", []string{"gen", "pattern", "binomialtreebcast", "--rounds", "4", "-o", p("g.arrow")}, 2,
			[]string{"--rounds applies to the random_permutation pattern, not binomialtreebcast"}},
		{"segments 0", []string{"gen", "pattern", "pipelinedring", "--segments", "0", "-o", p("g.arrow")}, 2, []string{"--segments 0", "> 0"}},
		{"steering grid of 0 iterations", []string{"steering-grid", "--iterations", "0", "--no-bound"}, 2, []string{"--iterations 0", "> 0"}},
		{"octants 0", []string{"gen", "sweep3d", "--octants", "0", "-o", p("g.arrow")}, 2, []string{"--octants 0", "> 0"}},
		{"sigma 0", []string{"gen", "stencil", "--imbalance", "wavefront", "--balance", "0.5", "--sigma", "0", "-o", p("g.arrow")}, 2, []string{"--sigma 0", "> 0"}},
		{"balance without imbalance", []string{"gen", "stencil", "--balance", "0.5", "-o", p("g.arrow")}, 2,
			[]string{"--balance has no effect with --imbalance none"}},
		{"seed without random loads", []string{"gen", "stencil", "--imbalance", "charged-field", "--balance", "0.5", "--seed", "7", "-o", p("g.arrow")}, 2,
			[]string{"--seed has no effect with --imbalance charged-field: it applies to random"}},
		{"root of an allreduce", []string{"gen", "coll", "--root", "3", "-o", p("g.arrow")}, 2, []string{"root 3: allreduce has no root"}},
		{"predict at 0 GHz", []string{"predict", p("dvfs.json"), "--region", "stencil.compute", "--freq", "0"}, 2, []string{"--freq 0", "> 0 GHz"}},
		{"config cpu=0", []string{"predict", p("dvfs.json"), "--region", "stencil.compute", "--config", "cpu=0"}, 2, []string{"cpu=0: want a frequency > 0 GHz"}},
		{"config threads=0", []string{"replay", good, "--models", p("dvfs.json"), "--config", "threads=0"}, 2, []string{"threads=0: want a thread count > 0"}},
		{"predict on a device the model lacks", []string{"predict", p("dvfs.json"), "--region", "stencil.compute", "--device", "gpu0"}, 2,
			[]string{`device "gpu0"`, "dvfs model", "host only"}},
		{"sweep into a folder of other files", []string{"sweep", p("s.toml"), "-o", p("mine"), "--progress", "never"}, 1,
			[]string{"mine is not a results folder", "results.csv", "new or empty folder"}},
		{"calibrate from one trace twice", []string{"calibrate", good, p("link.arrow")}, 2, []string{"are one trace", "give each trace once"}},
		{"calibrate from a copy of one trace", []string{"calibrate", good, p("copy.arrow")}, 2,
			[]string{"good.arrow and", "copy.arrow hold the same recording", "give each trace once"}},
		{"replicate an Arrow trace", []string{"replay", good, "--replicate", "8"}, 1, []string{"--replicate", "chakra traces", "format arrow"}},
		{"roofline of an Arrow trace", []string{"replay", good, "--roofline", "ops=1e12"}, 1, []string{"--roofline", "chakra traces", "format arrow"}},
		{"timeline ranks without a timeline", []string{"replay", good, "--timeline-ranks", "0-1"}, 2, []string{"--timeline-ranks needs --timeline"}},
		{"fit of compressed samples", []string{"fit", p("runs.csv.gz"), "--kind", "dvfs", "--recorded", "cpu=2.6", "-o", p("m.json")}, 1,
			[]string{"runs.csv.gz: a gzip-compressed file, not text: unpack it first"}},
		{"empty model file", []string{"replay", good, "--models", p("empty.json")}, 1, []string{"empty.json:1: an empty file, not JSON text"}},
		{"configuration table key misspelt", []string{"bound", good, "--cap", "300", "--table", p("cfgtypo.csv")}, 1,
			[]string{"cfgtypo.csv", `compute region "stencil.compute" has no rows in the configuration table (its keys: "stencil.compte")`}},
		{"timeline window after the replay's end", []string{"replay", good, "--timeline", p("w.json"), "--timeline-window", "1000s:"}, 2,
			[]string{`--timeline-window "1000s:" starts at 1000.000000000 s`, "not before the replay's end", "would show nothing"}},
		{"host speed of an Arrow trace", []string{"replay", good, "--speed", "1e9"}, 1, []string{"good.arrow", "--speed", "simgrid traces", "format arrow"}},
		{"collective algorithms of an execution graph", []string{"replay", p("two.goal"), "--coll", "allreduce=ring"}, 1,
			[]string{"two.goal", "--coll", "execution graph (format goal)"}},
		{"scenario on a plain replay", []string{"replay", good, "--scenario", p("s.toml")}, 2,
			[]string{"--scenario applies to power-policy replays ('capsim policy NAME TRACE'), not to a plain replay"}},
		{"machine on a plain replay", []string{"replay", good, "--machine", "nosuch"}, 2, []string{"--machine applies to power-policy replays"}},
		{"deadline on a plain replay", []string{"replay", good, "--slowdown-pct", "5"}, 2, []string{"--slowdown-pct applies to power-policy replays"}},
		{"LP messages on a plain replay", []string{"replay", good, "--lp-messages", "replay"}, 2, []string{"--lp-messages applies to power-policy replays"}},
		{"dct-dvfs threads on an lp replay", []string{"replay", good, "--policy", "lp", "--cap", "300", "--threads", "4"}, 2,
			[]string{"--threads does not apply to --policy lp: it is --policy dct-dvfs's"}},
		{"steering's beta on a min-energy replay", []string{"replay", good, "--policy", "min-energy", "--cap", "300", "--beta", "0.5"}, 2,
			[]string{"--beta does not apply to --policy min-energy: it is --policy steering's"}},
		{"policy on a machine of other ranks", []string{"policy", "lp", p("two.goal"), "--cap", "300"}, 1,
			[]string{"two.goal: 2 ranks, but machine pal of <embedded default.toml> runs 16", "give --scenario"}},
		{"config clock in MHz", []string{"replay", good, "--models", p("dvfs.json"), "--config", "cpu=2600"}, 2, []string{"cpu=2600", "past 100 GHz", "MHz"}},
		{"recorded clock in MHz", []string{"replay", good, "--models", p("dvfs.json"), "--recorded-ghz", "2600"}, 2, []string{"--recorded-ghz", "past 100 GHz", "MHz"}},
		{"bound's recorded clock in MHz", []string{"bound", good, "--cap", "300", "--recorded-ghz", "2600"}, 2, []string{"2600 GHz is past 100 GHz"}},
		{"predict at 2600 GHz", []string{"predict", p("dvfs.json"), "--region", "stencil.compute", "--freq", "2600"}, 2, []string{"--freq 2600", "at most 100 GHz"}},
		{"model file recorded in MHz", []string{"replay", good, "--models", p("mhz.json")}, 1, []string{"mhz.json", "cpu_ghz", "2600 GHz is past 100 GHz"}},
		{"fit samples in MHz", []string{"fit", p("mhz.csv"), "--kind", "dvfs", "--recorded", "cpu=2.6", "-o", p("m.json")}, 1,
			[]string{"mhz.csv: line 3: column cpu_ghz: 2000 GHz is past 100 GHz"}},
		{"model file with a byte-order mark", []string{"replay", good, "--models", p("bom.json")}, 1,
			[]string{"bom.json:1: the file starts with a UTF-8 byte-order mark"}},
		{"model pattern misspelt", []string{"replay", good, "--models", p("typo.json")}, 1,
			[]string{"typo.json", `model pattern "stencil.compte" prices no compute region`, `"stencil.compute"`, "misspelt"}},
		{"dvfs fit faster at a lower clock", []string{"fit", p("faster.csv"), "--kind", "dvfs", "--recorded", "cpu=2.6", "-o", p("m.json")}, 1,
			[]string{"faster.csv", `region "a"`, "beta", "slower at a higher clock", "2 GHz 0.5 s (line 3)"}},
		// The LP's messages of a bound the replay skips would do nothing.
		{"LP messages without the bound", []string{"policy", "steering", good, "--cap", "300", "--no-bound", "--lp-messages", "loggops"}, 2,
			[]string{"--lp-messages loggops", "--no-bound skips the bound"}},
		{"LP messages without dct-dvfs's bound", []string{"policy", "dct-dvfs", good, "--cap", "300", "--no-bound", "--lp-messages", "replay"}, 2,
			[]string{"--lp-messages replay", "--no-bound skips the bound"}},
		{"Conductor option on an execution graph", []string{"bound", p("two.goal"), "--cap", "300", "--conductor-period", "7"}, 2,
			[]string{"--conductor-period sets the Conductor baseline, which an execution graph"}},
		{"min-energy's deadline in a sweep without it", []string{"scenario", "check", p("slowdown.toml")}, 1,
			[]string{"slowdown.toml:65: key sweep.slowdown_pct", "does not run min-energy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := listDir(t, dir)
			trace, err := os.ReadFile(good)
			if err != nil {
				t.Fatal(err)
			}
			code, _, stderr := capsim(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tc.code, stderr)
			}
			for _, part := range tc.parts {
				if !strings.Contains(stderr, part) {
					t.Errorf("stderr %q does not contain %q", stderr, part)
				}
			}
			if after, err := os.ReadFile(good); err != nil || !bytes.Equal(after, trace) {
				t.Errorf("the trace changed (%v)", err)
			}
			for f := range listDir(t, dir) {
				if !before[f] {
					t.Errorf("left %s behind", f)
				}
			}
		})
	}
}

// TestReportRefusesPartial: a report of a shard, or of a sweep stopped
// early, showed some caps and policies and not others as if they were the
// sweep; it is refused naming the missing points, and --partial reports
// them with a note on the page.
func TestReportRefusesPartial(t *testing.T) {
	_, p, write := badInputDir(t)
	_, def, _ := capsim(t, "scenario", "default")
	write("s.toml", strings.NewReplacer("iterations = 20", "iterations = 2", `"290:380:10"`, `"300:340:20"`,
		`policies = ["uncapped", "static", "conductor", "lp"]`, `policies = ["uncapped", "static"]`).Replace(def))
	shard := p("shard")
	if code, _, stderr := capsim(t, "sweep", p("s.toml"), "-o", shard, "--shard", "0/2", "--progress", "never"); code != 0 {
		t.Fatalf("sweep: %d %s", code, stderr)
	}
	code, _, stderr := capsim(t, "report", shard, "--no-detail")
	if code != 1 || !strings.Contains(stderr, "points missing") || !strings.Contains(stderr, "--partial") {
		t.Errorf("report of a shard: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(shard, "report.html")); err == nil {
		t.Errorf("report of a shard wrote report.html")
	}
	if code, _, stderr := capsim(t, "report", shard, "--no-detail", "--partial"); code != 0 {
		t.Fatalf("report --partial: %d %s", code, stderr)
	}
	page, err := os.ReadFile(filepath.Join(shard, "report.html"))
	if err != nil || !strings.Contains(string(page), "Partial results") || !strings.Contains(string(page), "points missing") {
		t.Errorf("report --partial does not say the results are partial (%v)", err)
	}
}

// TestStandardInput: "-" names standard input, as for most tools; it was
// taken as a file named "-" ("stat -: no such file or directory").
func TestStandardInput(t *testing.T) {
	_, p, write := badInputDir(t)
	goal := write("two.goal", "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 0\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n")
	for _, args := range [][]string{{"replay", "-"}, {"inspect", "-"}, {"import", "goal", "-", "-o", p("x.arrow")}} {
		f, err := os.Open(goal)
		if err != nil {
			t.Fatal(err)
		}
		saved, err := syscall.Dup(0)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Dup3(int(f.Fd()), 0, 0); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := capsim(t, args...)
		syscall.Dup3(saved, 0, 0)
		syscall.Close(saved)
		f.Close()
		if code != 0 || !strings.Contains(stdout, "/dev/stdin") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// TestStandardOutput: an output given as "-" is standard output, as an
// argument "-" is standard input, and what the command prints for its
// reader goes to standard error then: gen, import and export wrote a file
// named "-", and with -o /dev/stdout a line "wrote …" after the Arrow
// data made it unreadable ("corrupt Arrow file footer").
func TestStandardOutput(t *testing.T) {
	_, p, write := badInputDir(t)
	goal := write("two.goal", "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 0\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n")
	for _, tc := range []struct {
		name, file string
		args       []string
	}{
		{"gen", "g.arrow", []string{"gen", "stencil", "-o", "-"}},
		{"import", "i.arrow", []string{"import", "trace", goal, "-o", "-"}},
		{"export", "e.goal", []string{"export", "goal", goal, "-o", "/dev/stdout"}},
	} {
		f, err := os.Create(p(tc.file))
		if err != nil {
			t.Fatal(err)
		}
		saved, err := syscall.Dup(1)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Dup3(int(f.Fd()), 1, 0); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := capsim(t, tc.args...)
		syscall.Dup3(saved, 1, 0)
		syscall.Close(saved)
		f.Close()
		if code != 0 || stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", tc.name, code, stdout, stderr)
		}
		if _, err := os.Stat("-"); err == nil {
			os.Remove("-")
			t.Errorf("%s: wrote a file named -", tc.name)
		}
		if code, out, errOut := capsim(t, "replay", p(tc.file)); code != 0 || !strings.Contains(out, "makespan") {
			t.Errorf("%s: replay of what it wrote to standard output: exit %d, %s%s", tc.name, code, out, errOut)
		}
	}
}

// TestScenarioFromPipe: a scenario read from a pipe has no folder for its
// relative paths to start from; they were looked for under /dev/fd
// ("stat /dev/fd/dt/testtrace.meta"). They are refused naming the key.
func TestScenarioFromPipe(t *testing.T) {
	_, p, _ := badInputDir(t)
	_, def, _ := capsim(t, "scenario", "default")
	text := strings.Replace(def, "[workload]\ngenerator = \"stencil2d\"", "[workload]\ntrace = \"good.arrow\"", 1)
	text = text[:strings.Index(text, "[workload.params]")] + text[strings.Index(text, "[models]"):]
	fifo := p("pipe.toml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write([]byte(text))
		f.Close()
	}()
	code, _, stderr := capsim(t, "scenario", "check", fifo)
	if code != 1 || !strings.Contains(stderr, `pipe.toml:`) || !strings.Contains(stderr, `key workload.trace: "good.arrow" is relative to the scenario's folder, but the scenario was read from a pipe`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestMergeKeepsScenario: merge copied scenario.json from its first shard
// only, so a first shard that had lost it left the merged folder without
// one (report --detail then refused it) while the other shard had it.
func TestMergeKeepsScenario(t *testing.T) {
	_, p, write := badInputDir(t)
	_, def, _ := capsim(t, "scenario", "default")
	write("s.toml", strings.NewReplacer("iterations = 20", "iterations = 2", `"290:380:10"`, `"300:340:20"`,
		`policies = ["uncapped", "static", "conductor", "lp"]`, `policies = ["uncapped", "static"]`).Replace(def))
	for _, k := range []string{"0", "1"} {
		if code, _, stderr := capsim(t, "sweep", p("s.toml"), "-o", p("shard"+k), "--shard", k+"/2", "--progress", "never"); code != 0 {
			t.Fatalf("sweep: %d %s", code, stderr)
		}
	}
	want, err := os.ReadFile(p("shard1/scenario.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(p("shard0/scenario.json"))
	if code, _, stderr := capsim(t, "merge", p("shard0"), p("shard1"), "-o", p("all")); code != 0 {
		t.Fatalf("merge: %d %s", code, stderr)
	}
	if got, err := os.ReadFile(p("all/scenario.json")); err != nil || !bytes.Equal(got, want) {
		t.Errorf("merged folder's scenario.json: %v (equal %v)", err, bytes.Equal(got, want))
	}
}

// TestExportGOALSaysStartsLost: GOAL has no start times, so a trace whose
// ranks started apart (recorded start offsets, which replay keeps) exports
// to a GOAL file that replays every rank from 0, a different makespan; the
// export says so instead of silently. A trace of ranks started together
// exports without a note.
func TestExportGOALSaysStartsLost(t *testing.T) {
	_, p, _ := badInputDir(t)
	tr, err := arrowtrace.ReadMPI(p("good.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	tr.Recorded = &graph.Recorded{StartNs: []int64{0, 0, 5_000_000, 0}}
	if err := arrowtrace.WriteMPI(p("late.arrow"), tr); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in   string
		note bool
	}{{"good.arrow", false}, {"late.arrow", true}} {
		code, _, stderr := capsim(t, "export", "goal", p(tc.in), "-o", p(tc.in+".goal"))
		if code != 0 || strings.Contains(stderr, "starts every rank at 0") != tc.note || tc.note && !strings.Contains(stderr, "5 ms apart") {
			t.Errorf("%s: exit %d, stderr %q, want a note: %v", tc.in, code, stderr, tc.note)
		}
	}
	_, orig, _ := capsim(t, "replay", p("late.arrow"))
	_, exported, _ := capsim(t, "replay", p("late.arrow.goal"))
	if orig[:strings.Index(orig, "events")] == exported[:strings.Index(exported, "events")] {
		t.Errorf("the offsets changed nothing; the test shows nothing:\n%s", orig)
	}
}

// TestOutputsWrittenAtomically: every file a command writes goes through
// internal/atomicfile (a temporary file renamed into place), so that a
// full disk, an error or a kill leaves the previous file, never a part of
// the new one; frontier --csv truncated its file first and left it empty
// on a full disk.
func TestOutputsWrittenAtomically(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, call := range []string{"os.WriteFile(", "os.Create(", "os.OpenFile("} {
				if strings.Contains(line, call) {
					t.Errorf("%s:%d: %s writes in place; use atomicfile", f, i+1, strings.TrimSuffix(call, "("))
				}
			}
		}
	}
}
