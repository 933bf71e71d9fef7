package scenarios

import (
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/internal/units"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/lpchain"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/scenarios/results"
	"github.com/capsim/capsim/traces/importer"
)

// Point is one point of a sweep: a machine, a policy, a power cap and one
// value of every workload parameter axis.
type Point struct {
	Index   int            // position in Points(), stable for a given scenario
	Group   int            // points of one group run in order on one worker
	Machine int            // index into Scenario.Machines
	Policy  string         // see Policies()
	CapW    float64        // 0 for the uncapped policy
	Params  map[string]any // workload parameter overrides of this point
	// Pattern is the point's aggregation pattern number ([aggregate]; 0
	// without).
	Pattern int
	// Done marks a point a resumed sweep has already committed. An
	// evaluator emits nothing for it but redoes what the later points of
	// its group build on (the LP solved at its cap, whose basis the next
	// cap re-solves from), so a resumed sweep's results equal those of
	// one never interrupted.
	Done bool
}

// Metrics is what evaluating a point produces.
type Metrics struct {
	MakespanNs int64
	EnergyJ    float64
	AvgPowerW  float64
	PeakPowerW float64
	// BoundNs is the LP bound for the point's cap (0 when not computed).
	BoundNs int64
	// OverCapNs is how long the schedule's power exceeded the cap.
	OverCapNs int64
	// Infeasible marks a point whose policy has no schedule at its cap
	// (the LP below its least feasible cap); its metrics are null.
	Infeasible bool
	// LeastCapW, for an Infeasible point of the LP's policies, is the
	// least cap the LP has a schedule at, in W (0: not known).
	LeastCapW float64
	// Nodes is the number of nodes an aggregation point ran on.
	Nodes int
	// BelowBound, for a point that finished before the LP bound, says
	// why it could: it went over the cap, or it changed an order the LP
	// fixes (the first one, from bound.Net.Check). Empty otherwise.
	BelowBound string
}

// Evaluator computes the points of one group. Points of a group share the
// machine, the parameter values and the policy and are handed over in
// increasing cap order, so an evaluator can reuse work between caps (an LP
// re-solved from the previous basis). In a resumed sweep, the points of a
// group already finished come with Done set; a group all of whose points
// are finished is not evaluated. Evaluate calls emit once per point not
// Done, as soon as it is finished.
type Evaluator interface {
	Evaluate(ctx context.Context, sc *Scenario, pts []Point, emit func(Point, Metrics) error) error
}

// Checker is an Evaluator that can check a whole scenario before the
// first point (Replayer: Scenario.Check). Run calls it before it opens
// the results directory, so a sweep that cannot run fails at once and
// writes nothing.
type Checker interface {
	Check(sc *Scenario) error
}

// paramAxes returns the parameter axis names in sorted order.
func (s *Scenario) paramAxes() []string {
	keys := make([]string, 0, len(s.Sweep.Params))
	for k := range s.Sweep.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Points expands the sweep into its points, in a deterministic order:
// machines, then parameter combinations, then aggregation patterns (with
// [aggregate]), then policies, then caps.
func (s *Scenario) Points() []Point {
	axes := s.paramAxes()
	combos := []map[string]any{{}}
	for _, a := range axes {
		var next []map[string]any
		for _, c := range combos {
			for _, v := range s.Sweep.Params[a] {
				m := make(map[string]any, len(c)+1)
				for k, x := range c {
					m[k] = x
				}
				m[a] = v
				next = append(next, m)
			}
		}
		combos = next
	}
	var pts []Point
	group := 0
	for mi := range s.Machines {
		pats := []int{0}
		if a := s.Aggregate; a != nil {
			pats = pats[:0]
			for _, p := range a.patterns(&s.Machines[mi]) {
				pats = append(pats, p.ID)
			}
		}
		for _, c := range combos {
			for _, pat := range pats {
				for _, pol := range s.Sweep.Policies {
					caps := s.Sweep.CapsW
					if pol == policy.Uncapped {
						caps = []float64{0}
					}
					for _, cp := range caps {
						pts = append(pts, Point{Index: len(pts), Group: group, Machine: mi, Policy: pol, CapW: cp, Params: c, Pattern: pat})
					}
					group++
				}
			}
		}
	}
	return pts
}

// Fingerprint is a hash of the scenario text alone. A results directory
// is identified by Identity, which also covers the files the scenario
// reads and the capsim version.
func (s *Scenario) Fingerprint() string {
	h := sha256.Sum256(s.Text)
	return hex.EncodeToString(h[:8])
}

// Identity returns what a sweep's results depend on: the scenario's
// values (its text up to comments, layout and key order: canonicalHash),
// the content of every file it reads and the capsim version, with a
// fingerprint over all of them. The files are every file of the workload
// trace as the importer registry reads it (each rank file of a liballprof,
// DUMPI or SimGrid trace, an OTF2 trace's anchor, definitions and event
// files; see importer.Files), models.file, a topology mapping file and the
// aggregate's IPC files. A rerun, a shard or a merge into the same
// directory after any of them changed is refused instead of mixing old
// points with new ones (results.OpenSweep, results.Merge), naming the
// file.
func (s *Scenario) Identity() (results.Sweep, error) {
	sum := sha256.Sum256(s.Text)
	inputs := []results.Input{{Name: "scenario", Path: s.File, Hash: hex.EncodeToString(sum[:])}}
	canon, err := canonicalHash(s.Text)
	if err != nil {
		return results.Sweep{}, fmt.Errorf("%s: %w", s.File, err)
	}
	files, err := s.inputFiles()
	if err != nil {
		return results.Sweep{}, err
	}
	for _, f := range files {
		h := f.hash
		if h == "" {
			if h, err = importer.HashFile(f.path); err != nil {
				return results.Sweep{}, fmt.Errorf("%s: %s: %w", s.File, f.key, err)
			}
		}
		inputs = append(inputs, results.Input{Name: f.name, Path: f.path, Hash: h})
	}
	inputs = append(inputs, results.Input{Name: "capsim", Hash: Version()})
	h := sha256.New()
	for i, in := range inputs { // paths are left out: a moved file is the same input
		if i == 0 {
			// The scenario by what it says (canonicalHash): an edited
			// comment or a reordered table is the same sweep. Its
			// input keeps the text's own hash, for messages.
			in.Hash = canon
		}
		fmt.Fprintf(h, "%s\x00%s\x00", in.Name, in.Hash)
	}
	return results.Sweep{Fingerprint: hex.EncodeToString(h.Sum(nil)[:8]), Points: len(s.Points()),
		Schema: s.Schema(), Inputs: inputs}, nil
}

// inputFile is a file a sweep reads: the scenario key that names it, its
// name in the identity (the key, or for the other files of a multi-file
// trace the key and the file's path within the trace), its path (for a
// member of an archive, ARCHIVE:MEMBER) and, where known, its hash.
type inputFile struct{ key, name, path, hash string }

// inputFiles lists the files the scenario reads, in a fixed order.
func (s *Scenario) inputFiles() ([]inputFile, error) {
	var out []inputFile
	if w := s.Workload; w.Trace != "" {
		p := s.path(w.Trace)
		st, err := os.Stat(p)
		if err != nil {
			return nil, s.keyErr("workload.trace", err)
		}
		ins, err := importer.Inputs(p, w.importOptions())
		var unknown *importer.Error
		if err != nil && (st.IsDir() || !errors.As(err, &unknown)) {
			// A trace of a known format whose files do not fit (a
			// rank file missing, one more .bin than numprocs): the
			// files it would be read from are unknown, and a list of
			// those "no longer read" would hide why.
			return nil, s.keyErr("workload.trace", err)
		}
		if err != nil {
			// A file no format reads: its replay reports why; the
			// identity covers the file as it is.
			ins = []importer.Input{{Path: p}}
		}
		for _, in := range ins {
			name := "workload.trace"
			if in.Rel != "" {
				name += ":" + in.Rel
			}
			out = append(out, inputFile{"workload.trace", name, in.Name(), in.Hash})
		}
	}
	keys := []struct{ key, path string }{{"models.file", s.Models.File}}
	if t := s.Network.Topology; t != nil && t.Mapping != "" && t.Mapping != "block" && t.Mapping != "round-robin" {
		keys = append(keys, struct{ key, path string }{"network.topology.mapping", t.Mapping})
	}
	if a := s.Aggregate; a != nil {
		keys = append(keys, struct{ key, path string }{"aggregate.ipc_model", a.IPCModel}, struct{ key, path string }{"aggregate.ipc_samples", a.IPCSamples})
	}
	for _, k := range keys {
		if k.path != "" {
			out = append(out, inputFile{k.key, k.key, s.path(k.path), ""})
		}
	}
	return out, nil
}

// Version returns the version of the capsim build as a sweep's identity
// records it: what tells whether two builds compute the same numbers
// (version). A rebuild of the same commit from a clean tree, with the
// same Go toolchain and code generation settings and run with the same
// CLP library, has the same version wherever it was built; any other
// build has another.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	exe, _ := os.Executable()
	return version(bi, ok, exe, clp.Version())
}

// codegenSettings are the build settings (go help buildinfo) that change
// the code a build runs, and so may change a number: the target, cgo
// (which links the LP solver), the toolchain's flags and experiments.
// Settings that change no code (-trimpath, -buildmode, the VCS time) are
// left out, so that builds of one commit in two folders agree.
var codegenSettings = map[string]bool{
	"-asmflags": true, "-compiler": true, "-gcflags": true, "-ldflags": true, "-tags": true,
	"-race": true, "-msan": true, "-asan": true, "CGO_ENABLED": true, "GOEXPERIMENT": true,
	"GOOS": true, "GOARCH": true, "GO386": true, "GOAMD64": true, "GOARM": true, "GOARM64": true,
	"GOMIPS": true, "GOMIPS64": true, "GOPPC64": true, "GORISCV64": true, "GOWASM": true,
}

// version describes the build bi (ok false: none recorded) of the
// executable exe, run with CLP library version clpVersion: the module
// version, the VCS revision when the build recorded one, the Go toolchain
// and codegenSettings, the CLP version, and, without a clean revision, the
// executable's Go build ID (or hash).
func version(bi *debug.BuildInfo, ok bool, exe, clpVersion string) string {
	v := "devel"
	var rev, dirty string
	var build []string
	if ok && bi != nil {
		if m := bi.Main.Version; m != "" && m != "(devel)" {
			v = m
		}
		if bi.GoVersion != "" {
			build = append(build, bi.GoVersion)
		}
		for _, st := range bi.Settings {
			switch {
			case st.Key == "vcs.revision":
				rev = st.Value
			case st.Key == "vcs.modified":
				if st.Value == "true" {
					dirty = "+modified"
				}
			case codegenSettings[st.Key]:
				build = append(build, st.Key+"="+st.Value)
			}
		}
	}
	if rev != "" {
		v += " " + rev + dirty
	}
	if len(build) > 0 {
		v += " " + strings.Join(build, " ")
	}
	if clpVersion != "" {
		// CLP is a shared library: upgraded under the same executable,
		// its solutions of a degenerate LP may change.
		v += " clp " + clpVersion
	}
	// Without a clean revision (a build with -buildvcs=false, as GOFLAGS
	// often sets, or from a modified tree) the version alone would not
	// change with the code, and a sweep would resume from results another
	// capsim computed: the executable's own hash tells builds apart.
	if rev == "" || dirty != "" {
		if exe != "" {
			if id := goBuildID(exe); id != "" {
				v += " build " + id
			} else if h, err := importer.HashFile(exe); err == nil {
				v += " exe " + h[:16]
			}
		}
	}
	return v
}

// goBuildID returns the Go build ID an ELF executable carries in its
// .note.go.buildid section, or "" where it has none (another format, or
// a build with -buildid=). Its last part is the go command's hash of the
// executable's content, so it tells builds apart as the file's own hash
// does, read from a few hundred bytes instead of the whole file (hashing
// the 35 MB executable took about 20 ms of every sweep's start).
func goBuildID(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sec := f.Section(".note.go.buildid")
	if sec == nil {
		return ""
	}
	data, err := sec.Data()
	// The note: name size, descriptor size, type (4 bytes each), the
	// name "Go\x00\x00", then the ID.
	if err != nil || len(data) < 16 || string(data[12:16]) != "Go\x00\x00" {
		return ""
	}
	n := f.ByteOrder.Uint32(data[4:8])
	if uint64(n) > uint64(len(data)-16) {
		return ""
	}
	return string(data[16 : 16+n])
}

// pointError names where err, met evaluating point p, arose: the
// scenario and its trace (unless err names the scenario already), the
// machine and the policy. A sweep's deadlock named only "machine pal,
// policy lp".
func (s *Scenario) pointError(p Point, err error) error {
	where := fmt.Sprintf("machine %s, policy %s", s.Machines[p.Machine].Name, p.Policy)
	if w := s.Workload.Trace; w != "" {
		where = "workload.trace " + w + ", " + where
	}
	if s.File != "" && !strings.Contains(err.Error(), s.File) {
		where = s.File + ": " + where
	}
	return fmt.Errorf("%s: %w", where, err)
}

// Schema returns the results table's columns for this scenario.
func (s *Scenario) Schema() results.Schema {
	sc := results.Schema{{Name: "machine", Type: results.String}, {Name: "wait_power", Type: results.String}, {Name: "policy", Type: results.String},
		{Name: "cap_w", Type: results.Float64}}
	for _, a := range s.paramAxes() {
		sc = append(sc, results.Column{Name: "param." + a, Type: axisType(s.Sweep.Params[a])})
	}
	if s.Aggregate != nil {
		sc = append(sc, aggregateColumns()...)
	}
	return append(sc,
		results.Column{Name: "makespan_ns", Type: results.Int64},
		results.Column{Name: "energy_j", Type: results.Float64},
		results.Column{Name: "avg_power_w", Type: results.Float64},
		results.Column{Name: "peak_power_w", Type: results.Float64},
		results.Column{Name: "over_cap_ns", Type: results.Int64},
		results.Column{Name: "bound_ns", Type: results.Int64},
		results.Column{Name: "gap_pct", Type: results.Float64},
		results.Column{Name: "below_bound", Type: results.String},
	)
}

// axisType picks the column type for an axis: int64 when every value is an
// integer, float64 when every value is a number, string otherwise.
func axisType(vs []any) results.Type {
	t := results.Int64
	for _, v := range vs {
		switch v.(type) {
		case int64:
		case float64:
			if t == results.Int64 {
				t = results.Float64
			}
		default:
			return results.String
		}
	}
	return t
}

func axisValue(v any, t results.Type) any {
	switch t {
	case results.Int64:
		return v.(int64)
	case results.Float64:
		switch x := v.(type) {
		case int64:
			return float64(x)
		case float64:
			return x
		}
	}
	return fmt.Sprint(v)
}

// Row turns an evaluated point into a results row.
func (s *Scenario) Row(p Point, m Metrics) results.Row {
	var capW any
	if p.Policy != policy.Uncapped {
		capW = p.CapW
	}
	vals := []any{s.Machines[p.Machine].Name, s.Machines[p.Machine].WaitPower.String(), p.Policy, capW}
	for _, a := range s.paramAxes() {
		vals = append(vals, axisValue(p.Params[a], axisType(s.Sweep.Params[a])))
	}
	if s.Aggregate != nil {
		vals = append(vals, s.aggregateValues(p, m)...)
	}
	if m.Infeasible {
		return results.Row{Index: p.Index, Values: append(vals, nil, nil, nil, nil, nil, nil, nil, nil)}
	}
	var bound, gap, below any
	if m.BelowBound != "" {
		below = m.BelowBound
	}
	if m.BoundNs > 0 {
		bound = m.BoundNs
		gap = units.Pct(100 * (float64(m.MakespanNs)/float64(m.BoundNs) - 1))
	}
	return results.Row{Index: p.Index, Values: append(vals, m.MakespanNs, m.EnergyJ, m.AvgPowerW, m.PeakPowerW,
		m.OverCapNs, bound, gap, below)}
}

// RunOptions controls a sweep run.
type RunOptions struct {
	OutDir  string
	Shard   Shard // zero value: the whole sweep
	Workers int   // 0: one per CPU
	// Progress, when not nil, is told of every finished point.
	Progress func(done, total int)
	// Restart discards the points of another sweep (another scenario,
	// changed input files or capsim version) found in OutDir instead of
	// refusing to run.
	Restart bool
}

// Summary reports what a run did.
type Summary struct {
	Points   int // points in this shard
	Skipped  int // already finished before this run
	Computed int
	Wall     time.Duration
	// NoSchedule says, per machine, policy and parameter values, the
	// caps of this run whose points have no schedule (their rows are
	// empty) and the least cap that has one (Metrics.LeastCapW), one line
	// each: "machine pal, policy lp: no schedule at 190, 200 W: the least
	// feasible cap is 288.8 W".
	NoSchedule []string
}

// Run evaluates the scenario's points (or a shard of them) into the results
// directory opts.OutDir, skipping points finished by an earlier run, and
// then writes the results tables. Groups run in parallel on opts.Workers
// goroutines.
func Run(ctx context.Context, sc *Scenario, ev Evaluator, opts RunOptions) (*Summary, error) {
	start := time.Now()
	all := sc.Points()
	if of := opts.Shard.Of; of > max(len(all), 1) {
		return nil, fmt.Errorf("sweep: shard %d/%d: %d shards for %d points (at most one shard per point)", opts.Shard.K, of, of, len(all))
	}
	if c, ok := ev.(Checker); ok {
		if err := c.Check(sc); err != nil {
			return nil, err
		}
	}
	id, err := sc.Identity()
	if err != nil {
		return nil, err
	}
	store, err := results.OpenSweep(opts.OutDir, id, opts.Restart)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if opts.Restart {
		if err := removeReportFiles(opts.OutDir); err != nil {
			return nil, err
		}
	}
	if err := sc.saveSource(opts.OutDir); err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	// The points done before this run: computed from these inputs, as
	// the journal's identity says. Those of this run are checked against
	// the inputs once it ends (sameInputs).
	prior := make([]bool, len(all))
	for i := range prior {
		prior[i] = store.Done(i)
	}
	var mine []chunk
	if of := opts.Shard.Of; of > 1 {
		mine = PlanWeights(all, of, sc.workloadWeights())[opts.Shard.K]
	} else {
		mine = Plan(all, 1, func(Point) float64 { return 1 })[0]
	}
	var groups [][]Point
	sum := &Summary{}
	for _, c := range mine {
		// The chunk's points, after the points of its group that it
		// re-solves the LP at (marked done: another shard emits them).
		g := slices.Clone(c.group[:c.hi])
		for i := range g {
			if i < c.lo {
				g[i].Done = true
				continue
			}
			sum.Points++
			if g[i].Done = store.Done(g[i].Index); g[i].Done {
				sum.Skipped++
			}
		}
		groups = append(groups, g)
	}
	_, replayer := ev.(Replayer)
	if replayer {
		groups = splitLP(splitChains(groups, sc.Sweep.CapsW))
	}
	groups = slices.DeleteFunc(groups, func(g []Point) bool { // finished groups
		return !slices.ContainsFunc(g, func(p Point) bool { return !p.Done })
	})
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if replayer {
		// The groups of a machine and parameter values (one per
		// policy) build their LP once and solve it once per cap, in
		// chains of caps (lpchain.Split) that workers solve at the same
		// time: each group was split at the chains' bounds, and
		// workers take pieces of different chains and LPs at a time.
		lps := newLPShare(groups, sc.Sweep.CapsW)
		lps.workers = workers
		ev = sharedReplayer{lps}
		groups = interleave(groups, workers, sc.Sweep.CapsW)
	}
	tasks := make([]task, 0, len(groups))
	for _, g := range groups {
		tasks = append(tasks, task{pts: g})
	}
	if replayer {
		tasks = preReplays(tasks, workers)
	}
	var trace *sweepTrace
	if path := os.Getenv(sweepTraceEnv); path != "" {
		trace = &sweepTrace{start: start}
		ctx = context.WithValue(ctx, traceKey{}, trace)
	}
	outer := ctx // the caller's: a signal cancels it
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		done     = sum.Skipped
		running  []Point // the points groups were at when outer was cancelled
		noSched  []infeasiblePoint
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
			cancel()
		}
		mu.Unlock()
	}
	if opts.Progress != nil {
		opts.Progress(done, sum.Points)
	}
	q := &taskQueue{tasks: tasks}
	if replayer {
		lps := ev.(sharedReplayer).lps
		q.ready = func(tk task) bool { return tk.pre || lps.ready(tk.pts) }
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.WithValue(ctx, workerKey{}, w)
			for {
				tk, ok := q.next(ctx)
				if !ok {
					return
				}
				g := tk.pts
				if tk.pre {
					prereplay(ctx, sc, g, ev.(sharedReplayer).lps)
					continue
				}
				end := span(ctx, "group %s %g–%g of %s", g[0].Policy, g[0].CapW, g[len(g)-1].CapW, lpKey(g[0]))
				last := time.Now()
				emitted := map[int]bool{}
				emit := func(p Point, m Metrics) error {
					now := time.Now()
					if err := store.Commit(sc.Row(p, m), now.Sub(last)); err != nil {
						return err
					}
					last = now
					mu.Lock()
					if m.Infeasible && m.LeastCapW > 0 {
						noSched = append(noSched, infeasiblePoint{p, m.LeastCapW})
					}
					emitted[p.Index] = true
					done++
					sum.Computed++
					if opts.Progress != nil {
						opts.Progress(done, sum.Points)
					}
					mu.Unlock()
					return nil
				}
				if err := ev.Evaluate(ctx, sc, g, emit); err != nil {
					if outer.Err() == nil {
						fail(sc.pointError(g[0], err))
					} else {
						// Stopped by the caller: the error tells the
						// evaluator's inner terms (an LP's task-power
						// cap), the point is the user's.
						mu.Lock()
						if i := slices.IndexFunc(g, func(p Point) bool { return !p.Done && !emitted[p.Index] }); i >= 0 {
							running = append(running, g[i])
						}
						mu.Unlock()
					}
				}
				end()
			}
		}()
	}
	wg.Wait()
	if trace != nil {
		if err := trace.writeFile(os.Getenv(sweepTraceEnv)); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("%s: %w", sweepTraceEnv, err)
		}
	}
	if firstErr != nil {
		return sum, firstErr
	}
	if outer.Err() != nil {
		return sum, sc.stopped(running, context.Cause(outer))
	}
	if err := ctx.Err(); err != nil {
		return sum, err
	}
	if sum.Computed > 0 {
		if err := sc.sameInputs(id, store, prior); err != nil {
			return sum, err
		}
	}
	if err := store.Finalize(); err != nil {
		return sum, err
	}
	sum.NoSchedule = sc.noScheduleLines(noSched)
	sum.Wall = time.Since(start)
	return sum, nil
}

// sameInputs checks that the inputs are still id, those the run began
// with: the trace is read again for every workload, so a file rewritten
// while the sweep ran (a trace re-recorded into the same folder) gives
// points of both contents under id. Where they changed, the points this
// run computed (those not prior) are discarded, and the error names the
// files: none is resumed as id's, nor finalized.
func (sc *Scenario) sameInputs(id results.Sweep, store *results.Store, prior []bool) error {
	now, err := sc.Identity()
	if err == nil && now.Fingerprint == id.Fingerprint {
		return nil
	}
	what := "they cannot be read again: "
	if err != nil {
		what += err.Error()
	} else {
		what = results.Changes(id.Inputs, now.Inputs)
	}
	n, kerr := store.Keep(func(i int) bool { return i < len(prior) && prior[i] })
	if kerr != nil {
		return fmt.Errorf("sweep: the inputs changed while the sweep ran (%s), and its points could not be discarded: %w", what, kerr)
	}
	return fmt.Errorf("sweep: the inputs changed while the sweep ran: %s; the %d point(s) it computed may mix both contents and were discarded: rerun it (with --restart, to start from the inputs as they are now)", what, n)
}

// taskQueue hands a run's tasks to its workers: in their order, except
// that a worker skips a task that would wait for another worker (ready
// false: its LP being built, or its chain of caps being solved, see
// lpShare.ready) for the first later one that would not, among the next
// queueLookahead; where none would, it takes the first. The order
// changes no result (a point's metrics depend on its group and chain
// alone), only how long workers wait: with two workers on the default
// scenario's 20 caps, a worker whose lp point waited for the lower
// chain's solve plans an upper cap's point instead.
type taskQueue struct {
	mu    sync.Mutex
	tasks []task
	taken []bool
	head  int // tasks before head are taken
	ready func(task) bool
}

// queueLookahead is how many tasks past the first one not taken a worker
// looks at for one that is ready.
const queueLookahead = 64

// next returns the next task for a worker, or false when there is none
// left or ctx is done.
func (q *taskQueue) next(ctx context.Context) (task, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if ctx.Err() != nil {
		return task{}, false
	}
	if q.taken == nil {
		q.taken = make([]bool, len(q.tasks))
	}
	for q.head < len(q.tasks) && q.taken[q.head] {
		q.head++
	}
	if q.head == len(q.tasks) {
		return task{}, false
	}
	pick := q.head
	if q.ready != nil {
		for i, n := q.head, 0; i < len(q.tasks) && n < queueLookahead; i++ {
			if q.taken[i] {
				continue
			}
			if q.ready(q.tasks[i]) {
				pick = i
				break
			}
			n++
		}
	}
	q.taken[pick] = true
	return q.tasks[pick], true
}

// SourceFile is the file in a results directory that records the scenario
// a sweep ran (its path and text), so that `capsim report` can replay a
// point of it in detail.
const SourceFile = "scenario.json"

type source struct {
	File     string          `json:"file"` // absolute path, or DefaultName
	Text     string          `json:"text"`
	Recorded *recordedSource `json:"recorded,omitempty"` // the trace workload's recorded run
	// RecordedConfig is what the compute times were taken as measured at.
	RecordedConfig RecordedConfig `json:"recorded_config"`
}

// saveSource writes the scenario's path and text into dir, atomically.
func (s *Scenario) saveSource(dir string) error {
	file := s.File
	if file != DefaultName {
		if abs, err := filepath.Abs(file); err == nil {
			file = abs
		}
	}
	b, err := json.MarshalIndent(source{File: file, Text: string(s.Text), Recorded: s.recordedRun(), RecordedConfig: s.RecordedConfig()}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, SourceFile), append(b, '\n'))
}

// LoadSource reads back the scenario a sweep recorded in dir (see
// SourceFile); relative paths in it resolve against its original folder.
func LoadSource(dir string) (*Scenario, error) {
	path := filepath.Join(dir, SourceFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var src source
	if err := json.Unmarshal(b, &src); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sc, err := Parse(src.File, []byte(src.Text))
	if err != nil {
		return nil, err
	}
	sc.recorded = src.Recorded
	if src.RecordedConfig.Source != "" {
		sc.savedConfig = &src.RecordedConfig
	}
	return sc, nil
}

// splitChains splits every group at the bounds of the LP's chains of
// caps (lpchain.Split), in order: each piece's points are one chain's, so
// workers can take the chains of one LP at the same time. A point's
// metrics do not depend on the split: the bounder solves every cap in
// its chain whoever asks first.
func splitChains(groups [][]Point, caps []float64) [][]Point {
	var out [][]Point
	for _, g := range groups {
		lo := 0
		for i := 1; i <= len(g); i++ {
			if i == len(g) || capChain(caps, g[i].CapW) != capChain(caps, g[lo].CapW) {
				out = append(out, g[lo:i])
				lo = i
			}
		}
	}
	return out
}

// splitLP splits the lp and min-energy policies' groups into one group a
// point still to compute: the lp policy plans each cap on a fork of its
// chain's LP at the cap (lpPoint), the min-energy policy on an LP of its
// own (minEnergyPoint), so their points run on any worker, in any order,
// once their chain has solved their cap, and a point computed before
// needs nothing replayed again.
func splitLP(groups [][]Point) [][]Point {
	var out [][]Point
	for _, g := range groups {
		if g[0].Policy != policy.LP && g[0].Policy != policy.MinEnergy {
			out = append(out, g)
			continue
		}
		for i := range g {
			if !g[i].Done {
				out = append(out, g[i:i+1])
			}
		}
	}
	return out
}

// capChain is the LP chain of a cap of the sweep (lpchain.Split), 0 for any
// other.
func capChain(caps []float64, capW float64) int {
	if k := slices.Index(caps, capW); k >= 0 {
		return lpchain.Of(len(caps), k)
	}
	return 0
}

// feedRank orders the groups of one LP chain for interleave: the longest
// first.
func feedRank(pol string) int {
	switch pol {
	case policy.LP:
		return 0
	case policy.Conductor, policy.MinEnergy:
		return 1
	case policy.Uncapped:
		return 3
	}
	return 2
}

// interleave orders groups for the workers. The LP chains (machine and
// parameter values, and chain of caps, see splitChains) are taken in
// batches of workers, and a batch's groups round-robin over its LPs, so
// that consecutive groups belong to different LPs; with several workers
// the LPs' first chains come first, then their second ones, and so on,
// so that the first batch builds as many LPs at once as it can, and at
// most about two batches' chains are held at once. The chains of one LP
// in a batch go one after the other, lowest caps first: a low cap's solve
// costs the most (on the default scenario's 20 caps the lower chain's
// solves take 0.62 s of CPU, the upper's 0.25 s), so its chain is the
// sweep's critical path and goes first, and a worker whose group waits
// for the chain another holds solves the other chain's next cap
// meanwhile (lpchain.Set.Solve); the upper chain's lp points, whose
// solves are cheap, fill in last. (Round-robin over a batch's chains, as
// before, left the lower chain's last solves and headroom searches to the
// end, one worker busy and the other idle: 1.27–1.29 s against
// 1.24–1.25 s with two workers.) The order changes no result (each
// point's metrics depend on its group and its chain alone). The uncapped
// policy's group goes with the first chain. A chain's groups go lp first,
// then conductor, then the others (see feedRank): the lp policy's points
// (one group each, see splitLP) take the chain's caps in order, solving
// the chain's LP as they go, and take the longest (each solves a fork of
// the LP again at several headroom values); the others' points, which
// only read the chain's bounds, fill in after.
func interleave(groups [][]Point, workers int, caps []float64) [][]Point {
	var keys []string
	byKey := map[string][][]Point{}
	chain := map[string]int{}
	lp := map[string]string{} // chain key → LP key
	for _, g := range groups {
		c := capChain(caps, g[0].CapW)
		k := fmt.Sprint(lpKey(g[0]), " chain ", c)
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
			chain[k] = c
			lp[k] = lpKey(g[0])
		}
		byKey[k] = append(byKey[k], g)
	}
	if workers > 1 {
		// The first chains of all LPs first: a batch's workers then
		// build different LPs at once instead of waiting for one.
		slices.SortStableFunc(keys, func(a, b string) int { return chain[a] - chain[b] })
	}
	for _, gs := range byKey {
		slices.SortStableFunc(gs, func(a, b []Point) int { return feedRank(a[0].Policy) - feedRank(b[0].Policy) })
	}
	out := make([][]Point, 0, len(groups))
	for lo := 0; lo < len(keys); lo += workers {
		// The batch's groups by LP, each LP's chains in order.
		var lps []string
		per := map[string][][]Point{}
		for _, k := range keys[lo:min(lo+workers, len(keys))] {
			if _, ok := per[lp[k]]; !ok {
				lps = append(lps, lp[k])
			}
			per[lp[k]] = append(per[lp[k]], byKey[k]...)
		}
		for i := 0; ; i++ {
			added := false
			for _, l := range lps {
				if i < len(per[l]) {
					out = append(out, per[l][i])
					added = true
				}
			}
			if !added {
				break
			}
		}
	}
	return out
}

// task is a worker's unit of work: a group of points to evaluate, or
// with pre, its points to replay ahead of it (prereplay).
type task struct {
	pts []Point
	pre bool
}

// preReplays moves the replays that need no LP to right after the first
// tasks, which build the first LPs (at most one per worker): the uncapped policy's groups, and the
// replays of the other policies' points but the lp policy's (prereplay), whose
// groups then only read their bounds. While one worker builds the LP
// (about 0.16 s of the default scenario's sweep, README, Performance),
// the others replay these points instead of waiting for it, until it is
// built (prereplay leaves the rest to the groups). The order changes no
// result (each point's metrics depend on its group and chain
// alone).
func preReplays(tasks []task, workers int) []task {
	// The first tasks build different LPs at once (interleave): the
	// replays go after them.
	n, keys := 0, map[string]bool{}
	for n < len(tasks) && n < workers && tasks[n].pts[0].Policy != policy.Uncapped && !keys[lpKey(tasks[n].pts[0])] {
		keys[lpKey(tasks[n].pts[0])] = true
		n++
	}
	n = max(n, 1)
	if len(tasks) <= n {
		return tasks
	}
	var early, rest []task
	for _, tk := range tasks[n:] {
		switch tk.pts[0].Policy {
		case policy.Uncapped:
			early = append(early, tk)
			continue
		case policy.LP, policy.MinEnergy:
		default:
			if tk.pts[0].Pattern == 0 {
				early = append(early, task{pts: tk.pts, pre: true})
			}
		}
		rest = append(rest, tk)
	}
	return append(append(append(make([]task, 0, len(tasks)+len(early)), tasks[:n]...), early...), rest...)
}

// StoppedError is a sweep (or capsim bound's caps) stopped by its caller
// (a signal): it names the points, in the scenario's terms, that were
// being computed and are left for a rerun, which resumes a sweep after
// the points committed.
type StoppedError struct {
	Running []string // "point 12 (machine pal, policy lp, cap 300 W)", by point number
	Kept    string   // what became of the work before them; "" for a sweep's "not saved"
	Err     error    // the cause the caller's context was cancelled with
}

func (e *StoppedError) Error() string {
	if len(e.Running) == 0 {
		return "stopped between points"
	}
	kept := e.Kept
	if kept == "" {
		kept = "not saved"
	}
	return "stopped while computing " + strings.Join(e.Running, ", ") + " (" + kept + ")"
}

// Unwrap returns the cause of the stop.
func (e *StoppedError) Unwrap() error { return e.Err }

// stopped is the StoppedError of a sweep stopped with cause while its
// groups were at the points running.
func (s *Scenario) stopped(running []Point, cause error) error {
	slices.SortFunc(running, func(a, b Point) int { return a.Index - b.Index })
	e := &StoppedError{Err: cause}
	for _, p := range running {
		e.Running = append(e.Running, fmt.Sprintf("point %d (%s)", p.Index, s.PointText(p)))
	}
	return e
}

// PointText names point p as the scenario does: its machine, policy,
// cap (with its scope), workload parameters and aggregation pattern.
func (s *Scenario) PointText(p Point) string {
	parts := []string{"machine " + s.Machines[p.Machine].Name, "policy " + p.Policy}
	if p.CapW > 0 {
		parts = append(parts, fmt.Sprintf("cap %g W%s", p.CapW, s.perNode()))
	}
	keys := make([]string, 0, len(p.Params))
	for k := range p.Params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := fmt.Sprint(p.Params[k])
		if str, ok := p.Params[k].(string); ok {
			v = strconv.Quote(str)
		}
		parts = append(parts, k+" = "+v)
	}
	if p.Pattern > 0 {
		parts = append(parts, fmt.Sprintf("pattern %d", p.Pattern))
	}
	return strings.Join(parts, ", ")
}

// infeasiblePoint is a point without a schedule at its cap and the least
// cap that has one.
type infeasiblePoint struct {
	p      Point
	leastW float64
}

// noScheduleLines is Summary.NoSchedule of the points in ps.
func (s *Scenario) noScheduleLines(ps []infeasiblePoint) []string {
	slices.SortFunc(ps, func(a, b infeasiblePoint) int { return a.p.Index - b.p.Index })
	var keys []string
	caps := map[string][]string{}
	least := map[string]float64{}
	for _, x := range ps {
		q := x.p
		q.CapW = 0
		k := s.PointText(q)
		if _, seen := caps[k]; !seen {
			keys = append(keys, k)
		}
		caps[k] = append(caps[k], strconv.FormatFloat(x.p.CapW, 'g', -1, 64))
		least[k] = x.leastW
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = fmt.Sprintf("%s: no schedule at %s W%s: the least feasible cap is %.6g W%s", k, strings.Join(caps[k], ", "), s.perNode(), least[k], s.perNode())
	}
	return out
}

// perNode is " per node" where the sweep's caps are every node's
// (sweep.cap_scope = "node"), for the text after a cap's watts.
func (s *Scenario) perNode() string {
	if s.nodeScope() {
		return " per node"
	}
	return ""
}
