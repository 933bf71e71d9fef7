package scenarios

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/scenarios/results"
)

// writeFiles writes name → content under dir, making folders as needed.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// multiFileScenario is sweepTOML reading the trace at trace (relative to
// dir), whose files the fake evaluator never opens: only the identity
// reads them.
func multiFileScenario(t *testing.T, dir, trace string) *Scenario {
	t.Helper()
	text := strings.NewReplacer(`generator = "stencil2d"`, `trace = "`+trace+`"`, "iterations = [10, 20]", `"network.L_ns" = [1000, 2500]`).Replace(sweepTOML)
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

// liballprofRanks is a four-rank liballprof trace; rank 2's file says v.
func liballprofRanks(v string) map[string]string {
	m := map[string]string{}
	for r, name := range []string{"t-0.dat", "t-1.dat", "t-2.dat", "t-3.dat"} {
		m[filepath.Join("lap", name)] = "MPI_Init:1:2\n# rank " + string(rune('0'+r)) + "\n"
	}
	m[filepath.Join("lap", "t-2.dat")] += "# " + v + "\n"
	return m
}

// TestRankFileChangeRefused: re-recording one rank of a multi-file trace
// (liballprof rank 2, given by its rank-0 file) changes the sweep's
// identity, and the rerun into the same folder is refused naming that
// file, where before it resumed ("3 already done") with the old numbers.
func TestRankFileChangeRefused(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	writeFiles(t, dir, liballprofRanks("first recording"))
	sc := multiFileScenario(t, dir, "lap/t-0.dat")
	if _, err := Run(context.Background(), sc, fakeEval{}, RunOptions{OutDir: out, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, liballprofRanks("second recording"))
	_, err := Run(context.Background(), sc, fakeEval{}, RunOptions{OutDir: out, Workers: 2})
	if !errors.Is(err, results.ErrMismatch) || !strings.Contains(err.Error(), "workload.trace:t-2.dat "+filepath.Join(dir, "lap", "t-2.dat")+" changed") {
		t.Fatalf("rerun after rank 2 changed: err = %v, want ErrMismatch naming t-2.dat", err)
	}
	if strings.Contains(err.Error(), "t-1.dat") {
		t.Errorf("message names an unchanged rank: %v", err)
	}
}

// dumpiTrace is a two-rank DUMPI trace (.meta and .bin files) in folder d;
// the .bin files say v.
func dumpiTrace(d, v string) map[string]string {
	return map[string]string{
		filepath.Join(d, "x.meta"):          "numprocs=2\nfileprefix=x\n",
		filepath.Join(d, "x-0000.bin"):      "rank 0 " + v,
		filepath.Join(d, "x-0001.bin"):      "rank 1 " + v,
		filepath.Join(d, "unrelated.notes"): v,
	}
}

// TestShardsOfChangedBinRefused: a DUMPI trace's .bin files replaced
// between shard 0 and shard 1 make the shards two sweeps, which merge
// refuses, naming a .bin file; a file beside the trace that the importer
// does not read changes nothing.
func TestShardsOfChangedBinRefused(t *testing.T) {
	dir := t.TempDir()
	var shards []string
	for k, v := range []string{"old", "new"} {
		writeFiles(t, dir, dumpiTrace("dt", v))
		sc := multiFileScenario(t, dir, "dt/x.meta")
		d := filepath.Join(dir, "shard", string(rune('0'+k)))
		if _, err := Run(context.Background(), sc, fakeEval{}, RunOptions{OutDir: d, Shard: Shard{K: k, Of: 2}, Workers: 2}); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d)
	}
	_, _, err := results.Merge(filepath.Join(dir, "merged"), shards, results.MergeOptions{})
	if !errors.Is(err, results.ErrMismatch) || !strings.Contains(err.Error(), "workload.trace:x-0000.bin") {
		t.Errorf("merge: err = %v, want ErrMismatch naming x-0000.bin", err)
	}
	a, _ := multiFileScenario(t, dir, "dt/x.meta").Identity()
	writeFiles(t, dir, map[string]string{filepath.Join("dt", "unrelated.notes"): "edited"})
	b, _ := multiFileScenario(t, dir, "dt/x.meta").Identity()
	if a.Fingerprint != b.Fingerprint {
		t.Errorf("a file beside the trace that it does not read changed the identity")
	}
}

// TestOTF2FolderIdentity: an OTF2 trace given as its folder (as the
// importer reads it) has an identity over its anchor, definitions and
// event files, instead of failing on hashing a directory; the anchor file
// itself gives the same files.
func TestOTF2FolderIdentity(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		filepath.Join("tr", "traces.otf2"):     "\x03\x42OTF2\x00anchor",
		filepath.Join("tr", "traces.def"):      "defs",
		filepath.Join("tr", "traces", "0.evt"): "events of 0",
		filepath.Join("tr", "traces", "0.def"): "local defs of 0",
		filepath.Join("tr", "traces", "1.evt"): "events of 1",
		filepath.Join("tr", "traces", "1.def"): "local defs of 1",
	})
	folder, err := multiFileScenario(t, dir, "tr").Identity()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range folder.Inputs {
		names = append(names, in.Name)
	}
	want := "scenario workload.trace:traces.otf2 workload.trace:traces.def workload.trace:traces/0.def workload.trace:traces/0.evt workload.trace:traces/1.def workload.trace:traces/1.evt capsim"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("inputs %s\nwant %s", got, want)
	}
	anchor, err := multiFileScenario(t, dir, "tr/traces.otf2").Identity()
	if err != nil || len(anchor.Inputs) != len(folder.Inputs) {
		t.Errorf("the anchor file: %v, %d inputs, want %d", err, len(anchor.Inputs), len(folder.Inputs))
	}
	writeFiles(t, dir, map[string]string{filepath.Join("tr", "traces", "1.evt"): "events of 1, rerecorded"})
	again, err := multiFileScenario(t, dir, "tr").Identity()
	if err != nil {
		t.Fatal(err)
	}
	if again.Fingerprint == folder.Fingerprint {
		t.Error("a changed event file left the identity unchanged")
	}
}

// A topology mapping file is an input: editing it changes the identity,
// and the mismatch names it.
func TestMappingFileIdentity(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"map.txt": "0\n0\n0\n0\n"})
	text := strings.Replace(sweepTOML, "[workload]", "[network.topology]\nkind = \"crossbar\"\nmapping = \"map.txt\"\n\n[workload]", 1)
	p := filepath.Join(dir, "s.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	id := func() results.Sweep {
		sc, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		sw, err := sc.Identity()
		if err != nil {
			t.Fatal(err)
		}
		return sw
	}
	a := id()
	found := false
	for _, in := range a.Inputs {
		found = found || in.Name == "network.topology.mapping" && in.Path == filepath.Join(dir, "map.txt")
	}
	if !found {
		t.Fatalf("inputs %+v lack the mapping file", a.Inputs)
	}
	writeFiles(t, dir, map[string]string{"map.txt": "0\n0\n1\n1\n"})
	if b := id(); b.Fingerprint == a.Fingerprint {
		t.Error("an edited mapping file left the identity unchanged")
	}
}

// copyTree copies the files of folder src (recursively) to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Every file of every trace format a sweep reads is in its identity:
// changing one rank's file of a SimGrid trace (given by its index),
// one NPU's file of a Chakra trace (given as its folder or as one NPU's
// file) or a GOAL schedule refuses the rerun into the same folder,
// naming that file, and a file beside the trace that it does not read
// changes nothing.
func TestTraceFilesIdentity(t *testing.T) {
	chakra := filepath.Join(testenv.Shared(t, "traces/chakra/pytorch-kineto-1rank"), "chakra.0.et")
	for _, tc := range []struct {
		name, trace, changed, named string
		setup                       func(t *testing.T, dir string)
	}{
		{"simgrid index", "ti/cg.txt", "ti/cg/rank-5.txt", "workload.trace:cg/rank-5.txt", func(t *testing.T, dir string) {
			copyTree(t, filepath.Join("..", "traces", "simgrid", "testdata", "ti"), filepath.Join(dir, "ti"))
		}},
		{"chakra folder", "et", "et/chakra.1.et", "workload.trace:chakra.1.et", func(t *testing.T, dir string) {
			b, err := os.ReadFile(chakra)
			if err != nil {
				t.Fatal(err)
			}
			writeFiles(t, dir, map[string]string{"et/chakra.0.et": string(b), "et/chakra.1.et": string(b)})
		}},
		{"chakra NPU file", "et/chakra.0.et", "et/chakra.1.et", "workload.trace:chakra.1.et", func(t *testing.T, dir string) {
			b, err := os.ReadFile(chakra)
			if err != nil {
				t.Fatal(err)
			}
			writeFiles(t, dir, map[string]string{"et/chakra.0.et": string(b), "et/chakra.1.et": string(b)})
		}},
		{"goal", "s.goal", "s.goal", "workload.trace", func(t *testing.T, dir string) {
			b, err := os.ReadFile(filepath.Join("..", "traces", "inspect", "testdata", "small.goal"))
			if err != nil {
				t.Fatal(err)
			}
			writeFiles(t, dir, map[string]string{"s.goal": string(b)})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			sc := multiFileScenario(t, dir, tc.trace)
			a, err := sc.Identity()
			if err != nil {
				t.Fatal(err)
			}
			writeFiles(t, dir, map[string]string{filepath.Join(filepath.Dir(tc.changed), "notes.txt"): "not a trace file"})
			if b, err := sc.Identity(); err != nil || b.Fingerprint != a.Fingerprint {
				t.Errorf("a file beside the trace changed the identity (%v)", err)
			}
			out := filepath.Join(dir, "out")
			if _, err := Run(context.Background(), sc, fakeEval{}, RunOptions{OutDir: out, Workers: 2}); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(filepath.Join(dir, tc.changed), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("\n")
			f.Close()
			_, err = Run(context.Background(), sc, fakeEval{}, RunOptions{OutDir: out, Workers: 2})
			want := tc.named + " " + filepath.Join(dir, tc.changed) + " changed"
			if !errors.Is(err, results.ErrMismatch) || !strings.Contains(err.Error(), want) {
				t.Errorf("rerun after %s changed: err = %v, want ErrMismatch naming %q", tc.changed, err, want)
			}
		})
	}
}

// An aggregation sweep's IPC model and samples files are inputs: editing
// either changes the identity, and the identity names both.
func TestAggregateIPCFilesIdentity(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join("..", "examples", "models"), filepath.Join(dir, "models"))
	copyTree(t, filepath.Join("..", "examples", "scenarios"), filepath.Join(dir, "scenarios"))
	p := filepath.Join(dir, "scenarios", "aggregate.toml")
	id := func() results.Sweep {
		t.Helper()
		sc, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		sw, err := sc.Identity()
		if err != nil {
			t.Fatal(err)
		}
		return sw
	}
	a := id()
	for _, key := range []string{"aggregate.ipc_model", "aggregate.ipc_samples"} {
		if !slices.ContainsFunc(a.Inputs, func(in results.Input) bool { return in.Name == key }) {
			t.Errorf("inputs %+v lack %s", a.Inputs, key)
		}
	}
	last := a.Fingerprint
	for _, f := range []string{"ipc-model.json", "ipc-app.csv"} {
		fh, err := os.OpenFile(filepath.Join(dir, "models", f), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fh.WriteString("\n")
		fh.Close()
		if b := id(); b.Fingerprint == last {
			t.Errorf("an edited %s left the identity unchanged", f)
		} else {
			last = b.Fingerprint
		}
	}
}

// A scenario is in a sweep's identity by what it says, not how it is
// written: a comment, blank lines, indentation, the order of keys or of
// tables, or another spelling of one value leaves a results folder
// resumable, while a changed value, a key added, an integer written as a
// float or a reordered array is another sweep, refused naming the
// scenario file.
func TestScenarioEditsIdentity(t *testing.T) {
	for _, tc := range []struct {
		name     string
		from, to string // the first match of from in sweepTOML becomes to
		same     bool
	}{
		{"comment", "[workload]", "# the workload\n[workload]", true},
		{"trailing comment", "caps_w = [100, 150, 200, 250]", "caps_w = [100, 150, 200, 250]   # watts", true},
		{"blank lines and indentation", "name = \"a\"\nnodes = 1", "  name   =   \"a\"\n\n\n  nodes = 1", true},
		{"key order", "nodes = 1\ncores_per_socket = 4", "cores_per_socket = 4\nnodes = 1", true},
		{"table order", "[sweep]\ncaps_w = [100, 150, 200, 250]\npolicies = [\"uncapped\", \"static\"]\n[sweep.params]\niterations = [10, 20]\n",
			"[sweep.params]\niterations = [10, 20]\n[sweep]\ncaps_w = [100, 150, 200, 250]\npolicies = [\"uncapped\", \"static\"]\n", true},
		{"literal string", `generator = "stencil2d"`, `generator = 'stencil2d'`, true},
		{"float spelling", "freq_ghz = 2.0", "freq_ghz = 2.000", true},
		{"integer spelling", "active_power_w = 10", "active_power_w = 1_0", true},
		{"a number", "caps_w = [100, 150, 200, 250]", "caps_w = [100, 150, 200, 260]", false},
		{"an integer as a float", "active_power_w = 10", "active_power_w = 10.0", false},
		{"a key added", "[workload]", "[workload]\nrecorded_ghz = 2.0", false},
		{"array order", `policies = ["uncapped", "static"]`, `policies = ["static", "uncapped"]`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(sweepTOML, tc.from) {
				t.Fatalf("sweepTOML lacks %q", tc.from)
			}
			dir := t.TempDir()
			p := filepath.Join(dir, "s.toml")
			out := filepath.Join(dir, "out")
			run := func(text string) (*Summary, error) {
				t.Helper()
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				sc, err := Load(p)
				if err != nil {
					t.Fatal(err)
				}
				return Run(context.Background(), sc, fakeEval{}, RunOptions{OutDir: out, Workers: 2})
			}
			if _, err := run(sweepTOML); err != nil {
				t.Fatal(err)
			}
			sum, err := run(strings.Replace(sweepTOML, tc.from, tc.to, 1))
			switch {
			case tc.same && err != nil:
				t.Errorf("resume after the edit: %v, want every point already done", err)
			case tc.same && sum.Computed != 0:
				t.Errorf("resume after the edit computed %d points, want 0", sum.Computed)
			case !tc.same && (!errors.Is(err, results.ErrMismatch) || !strings.Contains(err.Error(), "scenario "+p+" changed")):
				t.Errorf("resume after the edit: err = %v, want ErrMismatch naming %s", err, p)
			}
		})
	}
}

// rewritingEval is fakeEval that calls rewrite once, after its first
// point: a trace re-recorded into the same folder while a sweep runs.
type rewritingEval struct {
	fakeEval
	once    *sync.Once
	rewrite func()
}

func (e rewritingEval) Evaluate(ctx context.Context, sc *Scenario, pts []Point, emit func(Point, Metrics) error) error {
	return e.fakeEval.Evaluate(ctx, sc, pts, func(p Point, m Metrics) error {
		err := emit(p, m)
		e.once.Do(e.rewrite)
		return err
	})
}

// TestInputChangedDuringSweep: a rank file rewritten while the sweep
// runs (its points read the trace again for every workload) fails the
// sweep naming the file, instead of finalizing a table whose points mix
// both recordings under the first one's identity; the points the run
// computed are discarded, those of an earlier run kept, and the table is
// not written again.
func TestInputChangedDuringSweep(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	writeFiles(t, dir, liballprofRanks("first recording"))
	sc := multiFileScenario(t, dir, "lap/t-0.dat")
	if _, err := Run(context.Background(), sc, fakeEval{}, RunOptions{OutDir: out, Shard: Shard{K: 0, Of: 2}, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	before, err := results.ReadCoverage(out)
	if err != nil {
		t.Fatal(err)
	}
	table, err := os.ReadFile(filepath.Join(out, results.CSVFile))
	if err != nil {
		t.Fatal(err)
	}
	ev := rewritingEval{once: new(sync.Once), rewrite: func() { writeFiles(t, dir, liballprofRanks("second recording")) }}
	_, err = Run(context.Background(), sc, ev, RunOptions{OutDir: out, Workers: 2})
	if err == nil || !strings.Contains(err.Error(), "changed while the sweep ran") || !strings.Contains(err.Error(), filepath.Join(dir, "lap", "t-2.dat")) {
		t.Fatalf("sweep whose rank 2 changed while it ran: err = %v, want one naming t-2.dat", err)
	}
	after, err := results.ReadCoverage(out)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(after.Missing, before.Missing) {
		t.Errorf("points missing after the run: %v, want those missing before it: %v", after.Missing, before.Missing)
	}
	if b, err := os.ReadFile(filepath.Join(out, results.CSVFile)); err != nil || !bytes.Equal(b, table) {
		t.Errorf("%s written again after the inputs changed (%v)", results.CSVFile, err)
	}
	// The first recording back: the points of the first run resume.
	writeFiles(t, dir, liballprofRanks("first recording"))
	sum, err := Run(context.Background(), sc, fakeEval{}, RunOptions{OutDir: out, Workers: 2})
	if err != nil || sum.Skipped != before.Points-len(before.Missing) {
		t.Errorf("rerun on the first recording: %v, %+v; want the first run's points skipped", err, sum)
	}
}

// TestTraceFilesThatDoNotFitNamed: a trace whose files no longer fit
// together (one more DUMPI .bin than numprocs, a liballprof rank file
// missing) has no identity, and its error says why, naming the file: a
// report of results swept from it said instead that every .bin file was
// "no longer read". The trace is named once.
func TestTraceFilesThatDoNotFitNamed(t *testing.T) {
	for _, tc := range []struct {
		name, trace, want string
		files             map[string]string
		change            func(dir string)
	}{
		{"a .bin past numprocs", "dt/x.meta", "x-0002.bin", dumpiTrace("dt", "v"), func(dir string) {
			writeFiles(t, dir, map[string]string{filepath.Join("dt", "x-0002.bin"): "rank 2"})
		}},
		{"a rank file missing", "lap/t-0.dat", "rank 2", liballprofRanks("v"), func(dir string) {
			os.Remove(filepath.Join(dir, "lap", "t-2.dat"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tc.files)
			sc := multiFileScenario(t, dir, tc.trace)
			out := filepath.Join(dir, "out")
			if _, err := Run(context.Background(), sc, fakeEval{}, RunOptions{OutDir: out, Workers: 2}); err != nil {
				t.Fatal(err)
			}
			tc.change(dir)
			err := sc.checkResults(out)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "no longer read") {
				t.Errorf("report check: %v, want an error naming %s", err, tc.want)
			} else if n := strings.Count(err.Error(), filepath.Join(dir, tc.trace)+":"); n != 1 {
				t.Errorf("report check: %v names the trace %d times", err, n)
			}
		})
	}
}
