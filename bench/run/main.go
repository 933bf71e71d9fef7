// Command run reruns capsim's benchmarks and prints the performance tables
// of docs/perf (`make bench` runs it and writes that page and its plots):
//
//	go run ./bench/run [-runs 3] [-max-events 1e7] [-scale-max 1e8] [-only SUBSTRING] [-plot docs/perf]
//	                   [-md docs/perf/README.md]
//	                   [-tables workloads,scale,scaling,bound,lp,sweep,frontier] [-bound-timeout 3m] [-bound-max-tasks 3e7]
//	                   [-frontier-min-tasks 0]
//
// It prints the machine, CPU, commit and date, then per workload of
// bench.Workloads the minimum and median wall time of -runs runs (each in
// a fresh process, so peak RSS is the workload's own), events/s, peak RSS
// and allocations; then the scale targets (random permutations on 4,096
// ranks of 10^7, 10^8 and, with -scale-max 1e9, 10^9 events written by
// `capsim gen pattern` and replayed from disk by `capsim replay`, each in
// a child process: peak RSS, CPU per event and its growth, and
// LogGOPSim's ratios, each against its target with met or not met); then
// the scaling series (bench.Scaling) with time and
// memory per event, drawn with -plot; then the LP bound's table (the
// stencil of examples/bound/stencil32.toml from 10^3 tasks up, with the
// engine and the replay message models side by side, each size under
// -bound-timeout, stopping at the first size that exceeds it or would
// not fit in memory), the LP alone on a synthetic DAG (bound.SyncDAG)
// from 10^3 to 2·10^7 tasks under the same limits, and the
// points per second of a 20-cap × 4-policy sweep of the default scenario
// with 1 and 2 workers, and the energy–time frontier's points per second
// (`capsim frontier` on the LP table's stencil at 10^3, 10^4 and 10^5
// tasks, under the same timeout and size limit). Where CAPSIM_LOGGOPSIM names a
// LogGOPSim binary (and CAPSIM_TXT2BIN its txt2bin), the reference ring
// allreduce is also run through LogGOPSim side by side, with the ratios,
// and every finish time LogGOPSim prints (each host's up to 16 ranks, the
// latest host's beyond) must equal capsim's, or the command fails.
// With -md the same output is also written as a Markdown page (a title,
// the command line that made it and the plots drawn with -plot, then the
// tables), replacing the file once every table is done.
// The project ships no copy of LogGOPSim: build one that keeps program
// order among operations freed together (std::stable_sort), since stock
// LogGOPSim deadlocks on this schedule.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/capsim/capsim/bench"
	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/scenarios/report"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/arrowtrace"
)

// childResult is what a child process reports for one run.
type childResult struct {
	Events int64              `json:"events"`
	WallNs int64              `json:"wall_ns"`
	Allocs uint64             `json:"allocs"`
	RSS    int64              `json:"rss_bytes"`
	Extra  map[string]float64 `json:"extra,omitempty"`
	Ranks  int                `json:"ranks,omitempty"`
	// ReplayCPUNs is a scaling child's CPU time (user and system, all
	// threads) during the replay; BuildRSS its peak RSS while it built
	// the graph, before the peak was reset for the replay.
	ReplayCPUNs int64 `json:"replay_cpu_ns,omitempty"`
	// ReplaySysNs is the part of ReplayCPUNs spent in the kernel (the
	// page faults of the engine's fresh memory, mostly).
	ReplaySysNs int64 `json:"replay_sys_ns,omitempty"`
	BuildRSS    int64 `json:"build_rss_bytes,omitempty"`
	// NotStreamed, for a streaming child (t:INDEX), names what the
	// streaming replay needs the whole graph for ("": it streamed).
	NotStreamed string `json:"not_streamed,omitempty"`
	CPUNs       int64  `json:"-"` // a `capsim` child's user and system time
}

func main() {
	runs := flag.Int("runs", 3, "runs per workload (min and median are reported)")
	maxEvents := flag.Float64("max-events", 1e7, "largest scaling size, in engine events (1e8 needs about 15 GB: the 10^8-event stencil's MPI trace and graph while it is lowered)")
	only := flag.String("only", "", "run only the workloads whose name contains this")
	plotPath := flag.String("plot", "", "draw the scaling series (time and memory per event) into this folder (scaling_time, scaling_memory; PNG and SVG)")
	mdPath := flag.String("md", "", "also write the tables as a Markdown page to this file (docs/perf/README.md for make bench), once every table is done")
	scalingOnly := flag.Bool("scaling-only", false, "run only the scaling series (-tables scaling)")
	scaleMax := flag.Float64("scale-max", 1e8, "scale table: the largest trace, in engine events (10^7, 10^8 or 10^9; 10^9 writes a 29 GB file and takes about 15 minutes)")
	tables := flag.String("tables", "workloads,scale,scaling,bound,lp,sweep,frontier", "the tables to print, comma-separated: workloads (with the peer comparison), scale (the scale targets: replays of 10^7 to 10^9 events from disk, LogGOPSim's ratios), scaling, bound (capsim bound on the stencil), lp (the LP alone on a synthetic DAG), sweep, frontier (capsim frontier on the stencil)")
	boundTimeout := flag.Duration("bound-timeout", 3*time.Minute, "LP table: the longest run of one size; the table stops growing at the first size that exceeds it")
	boundMax := flag.Float64("bound-max-tasks", 3e7, "LP tables: the largest size, in tasks (a size that would not fit in the machine's memory is not run: its row says so)")
	frontierTasks := flag.Int("frontier-min-tasks", 0, "frontier table: skip the sizes below this many tasks (102400 runs only the 10^5 row)")
	child := flag.String("child", "", "internal: run one workload (w:INDEX, s:INDEX or the synthetic LP l:INDEX) or a workload's setup (p:INDEX) in this process")
	dir := flag.String("dir", "", "internal: the inputs' folder")
	cpuProfile := flag.String("cpuprofile", "", "with -child s:INDEX: write a CPU profile of the replay (not of building the graph) to this file")
	flag.Parse()
	if *child != "" {
		if err := runChild(*child, *dir, *maxEvents, *cpuProfile); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	want := map[string]bool{}
	for _, t := range strings.Split(*tables, ",") {
		switch t = strings.TrimSpace(t); t {
		case "workloads", "scale", "scaling", "bound", "lp", "sweep", "frontier":
			want[t] = true
		default:
			fmt.Fprintf(os.Stderr, "bench: -tables: unknown table %q (want workloads, scale, scaling, bound, lp, sweep or frontier)\n", t)
			os.Exit(2)
		}
	}
	if *scalingOnly {
		want = map[string]bool{"scaling": true}
	}
	if *only != "" { // a subset of the workloads alone
		want = map[string]bool{"workloads": true}
	}
	o := options{runs: *runs, maxEvents: *maxEvents, only: *only, plotPath: *plotPath, tables: want, boundTimeout: *boundTimeout, boundMaxTasks: int(*boundMax), scaleMax: *scaleMax, frontierMinTasks: *frontierTasks}
	var page strings.Builder
	w := io.Writer(os.Stdout)
	if *mdPath != "" {
		w = io.MultiWriter(os.Stdout, &page)
	}
	if err := run(w, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	if *mdPath != "" {
		text := mdPage(*mdPath, *plotPath, o.tables["scaling"], os.Args[1:], page.String())
		if err := atomicfile.WriteFile(*mdPath, []byte(text)); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
	}
}

// mdPage is the Markdown page of one run's output body: a title, the
// command line that wrote it, links to the scaling plots (drawn into
// plotDir, linked relative to the page at mdPath) and the body.
func mdPage(mdPath, plotDir string, scaling bool, args []string, body string) string {
	var b strings.Builder
	b.WriteString("# Performance\n\n")
	fmt.Fprintf(&b, "Written by `go run ./bench/run %s`. Rerun it to check any number on this page "+
		"(`make bench` rewrites the whole page and its plots: about an hour, 16 GB of memory and 32 GB of disk at the peak); "+
		"each run's header names its commit, date and machine.\n\n", strings.Join(args, " "))
	if scaling && plotDir != "" {
		rel, err := filepath.Rel(filepath.Dir(mdPath), plotDir)
		if err != nil {
			rel = plotDir
		}
		rel = filepath.ToSlash(rel)
		fmt.Fprintf(&b, "![CPU time per event of the scaling series](%s)\n![peak memory per event of the scaling series](%s)\n\n",
			path.Join(rel, "scaling_time.png"), path.Join(rel, "scaling_memory.png"))
	}
	b.WriteString(body)
	return b.String()
}

// vmHWM returns this process's peak resident set size.
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func runChild(spec, dir string, maxEvents float64, cpuProfile string) error {
	root, err := testenv.FindModuleRoot()
	if err != nil {
		return err
	}
	kind, idx, _ := strings.Cut(spec, ":")
	i, err := strconv.Atoi(idx)
	if err != nil {
		return err
	}
	var m bench.Measure
	res := childResult{}
	switch kind {
	case "p": // a workload's Setup
		if setup := bench.Workloads()[i].Setup; setup != nil {
			return setup(dir)
		}
		return nil
	case "w":
		m, err = bench.Workloads()[i].Run(dir, root)
	case "s":
		pt := bench.Scaling(maxEvents)[i]
		g, gerr := pt.Graph()
		if gerr != nil {
			return gerr
		}
		res.Ranks = g.NumRanks()
		// The replay's own peak: free what building the graph left
		// behind, then reset the peak RSS to the current RSS (Linux 4.0
		// and later; elsewhere the peak stays the whole process's).
		res.BuildRSS = vmHWM()
		runtime.GC()
		debug.FreeOSMemory()
		_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
		if cpuProfile != "" {
			f, err := os.Create(cpuProfile)
			if err != nil {
				return err
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				return err
			}
		}
		start, cpu, sys := time.Now(), testenv.CPUTime(), testenv.SystemTime()
		r, rerr := sim.Run(g, network.DefaultLogGOPS(), sim.Options{})
		m, err = bench.Measure{Wall: time.Since(start)}, rerr
		res.ReplayCPUNs = (testenv.CPUTime() - cpu).Nanoseconds()
		res.ReplaySysNs = (testenv.SystemTime() - sys).Nanoseconds()
		if cpuProfile != "" {
			pprof.StopCPUProfile()
		}
		if r != nil {
			m.Events = r.Events
		}
	case "t": // a scaling point replayed from its Arrow file, window by window
		res, err = streamChild(bench.Scaling(maxEvents)[i], dir)
		if err != nil {
			return err
		}
		return json.NewEncoder(os.Stdout).Encode(res)
	case "l": // the LP alone on a synthetic size
		r, err := syncChild(i)
		if err != nil {
			return err
		}
		r.RSS = vmHWM()
		return json.NewEncoder(os.Stdout).Encode(r)
	default:
		return fmt.Errorf("bad -child %q", spec)
	}
	if err != nil {
		return err
	}
	res.Events, res.WallNs, res.Allocs, res.RSS, res.Extra = m.Events, m.Wall.Nanoseconds(), m.Allocs, vmHWM(), m.Extra
	return json.NewEncoder(os.Stdout).Encode(res)
}

// streamChild writes the graph of scaling point pt as an Arrow file into
// dir, frees it, resets the peak RSS and replays the file window by
// window (arrowtrace.GraphWindows, sim.RunSource): what the replay costs
// from disk, whatever the trace's length. The file is removed afterwards.
func streamChild(pt bench.ScalingPoint, dir string) (childResult, error) {
	var res childResult
	g, err := pt.Graph()
	if err != nil {
		return res, err
	}
	path := filepath.Join(dir, "stream.arrow")
	defer os.Remove(path)
	if err := arrowtrace.WriteGraph(path, g); err != nil {
		return res, err
	}
	res.Ranks = g.NumRanks()
	g = nil
	res.BuildRSS = vmHWM()
	runtime.GC()
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	start, cpu, sys := time.Now(), testenv.CPUTime(), testenv.SystemTime()
	gw, err := arrowtrace.OpenGraphWindows(path)
	if err != nil {
		return res, err
	}
	defer gw.Close()
	r, err := sim.RunSource(gw, network.DefaultLogGOPS(), sim.Options{})
	res.WallNs = time.Since(start).Nanoseconds()
	res.ReplayCPUNs = (testenv.CPUTime() - cpu).Nanoseconds()
	res.ReplaySysNs = (testenv.SystemTime() - sys).Nanoseconds()
	var wg *sim.WholeGraphError
	if errors.As(err, &wg) {
		res.NotStreamed = wg.Feature
		return res, nil
	}
	if err != nil {
		return res, err
	}
	res.Events, res.RSS = r.Events, vmHWM()
	return res, nil
}

// runProcess runs cmd and returns its wall time and peak RSS.
func runProcess(cmd *exec.Cmd) (time.Duration, int64, []byte, error) {
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var rss int64
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = ru.Maxrss << 10 // kB on Linux
		}
	}
	return wall, rss, []byte(out.String()), err
}

// cpuTime returns the user and system time of cmd, which has run.
func cpuTime(cmd *exec.Cmd) time.Duration {
	if cmd.ProcessState == nil {
		return 0
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

type stats struct {
	finish      []int64 // per rank, from a `capsim replay --json` child
	minCPU      time.Duration
	events      int64
	min, median time.Duration
	rss         int64
	allocs      uint64
	extra       map[string]float64
	ranks       int
}

func summarize(rs []childResult, walls []time.Duration) stats {
	sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
	s := stats{min: walls[0], median: walls[len(walls)/2]}
	for i, r := range rs {
		if i == 0 || time.Duration(r.CPUNs) < s.minCPU {
			s.minCPU = time.Duration(r.CPUNs)
		}
		s.events = r.Events
		s.rss = max(s.rss, r.RSS)
		s.allocs = r.Allocs
		s.extra = r.Extra
		s.ranks = r.Ranks
	}
	return s
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func header(w io.Writer, root string) {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(l, "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), ":"))
				break
			}
		}
	}
	commit := "unknown"
	if out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(out))
	}
	host, _ := os.Hostname()
	load := "unknown"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	fmt.Fprintf(w, "```\ncapsim benchmarks: commit %s, %s, %s\nmachine %s: %s, %d cores, %s; load average at the start %s\n```\n\n", commit, time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		runtime.Version(), host, cpu, runtime.NumCPU(), memTotal(), load)
}

func memTotal() string {
	if b := memBytes(); b > 0 {
		return fmt.Sprintf("%.0f GiB", float64(b)/(1<<30))
	}
	return "memory unknown"
}

// memBytes is the machine's memory (MemTotal), 0 where unknown.
func memBytes() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "MemTotal:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// options are the command's settings.
type options struct {
	runs          int
	maxEvents     float64
	only          string
	plotPath      string
	tables        map[string]bool
	boundTimeout  time.Duration
	boundMaxTasks int
	scaleMax      float64
	// frontierMinTasks skips the frontier table's sizes below it.
	frontierMinTasks int
}

func run(w io.Writer, o options) error {
	runs, maxEvents, only, plotPath := o.runs, o.maxEvents, o.only, o.plotPath
	root, err := testenv.FindModuleRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "capsim-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	bin := filepath.Join(tmp, "capsim")
	build := exec.Command("go", "build", "-o", bin, "./cmd/capsim")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build capsim: %v\n%s", err, out)
	}
	header(w, root)
	var ring *peerResult
	if o.tables["workloads"] {
		if ring, err = workloadTable(w, bin, self, tmp, runs, only); err != nil {
			return err
		}
	}
	if o.tables["scale"] {
		if err := scaleTable(w, bin, self, tmp, runs, o.scaleMax, ring, o.tables["workloads"]); err != nil {
			return err
		}
	}
	if o.tables["scaling"] {
		if err := scalingTable(w, self, tmp, maxEvents, plotPath); err != nil {
			return err
		}
	}
	if o.tables["bound"] {
		if err := boundTable(w, bin, root, tmp, o.boundTimeout, o.boundMaxTasks); err != nil {
			return err
		}
	}
	if o.tables["lp"] {
		if err := syncTable(w, self, tmp, o.boundTimeout, o.boundMaxTasks); err != nil {
			return err
		}
	}
	if o.tables["sweep"] {
		if err := sweepTable(w, bin, tmp, runs); err != nil {
			return err
		}
	}
	if o.tables["frontier"] {
		if err := frontierTable(w, bin, root, tmp, o.boundTimeout, o.frontierMinTasks, o.boundMaxTasks); err != nil {
			return err
		}
	}
	return nil
}

// workloadTable prints the table of bench.Workloads and the peer
// comparison, and returns the comparison (nil without LogGOPSim or the
// ring allreduce).
func workloadTable(w io.Writer, bin, self, tmp string, runs int, only string) (*peerResult, error) {
	fmt.Fprintf(w, "Workloads (%d runs each, every run in a fresh process, so the peak RSS is the workload's own; inputs are made in another child):\n\n", runs)
	fmt.Fprintf(w, "| workload | events | min wall | median wall | events/s | peak RSS | allocations | other |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	var ring stats
	for i, wl := range bench.Workloads() {
		if only != "" && !strings.Contains(wl.Name, only) {
			continue
		}
		s, err := measureWorkload(bin, self, tmp, i, runs)
		if err != nil {
			return nil, err
		}
		if i == ringWorkload() {
			ring = s
		}
		allocs := "–"
		if wl.Child == nil {
			allocs = strconv.FormatUint(s.allocs, 10)
		}
		var extra []string
		keys := make([]string, 0, len(s.extra))
		for k := range s.extra {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			extra = append(extra, fmt.Sprintf("%s %.3g", k, s.extra[k]))
		}
		fmt.Fprintf(w, "| %s | %.2f M | %.3f s | %.3f s | %.2f M/s | %s | %s | %s |\n", wl.Name, float64(s.events)/1e6, s.min.Seconds(), s.median.Seconds(),
			float64(s.events)/s.min.Seconds()/1e6, mib(s.rss), allocs, strings.Join(extra, ", "))
	}
	if ring.events == 0 {
		fmt.Fprintln(w, "\n(no peer comparison: the ring allreduce did not run)")
		return nil, nil
	}
	pr, err := peer(bin, tmp, runs, ring)
	if err != nil || pr == nil {
		if err == nil {
			fmt.Fprintln(w, "\n"+noPeer)
		}
		return nil, err
	}
	pr.print(w)
	return pr, nil
}

// ringWorkload is the index in bench.Workloads of the ring allreduce
// replayed by `capsim replay` from its Arrow file, the peer comparison's
// capsim side.
func ringWorkload() int {
	for i, wl := range bench.Workloads() {
		if wl.Child != nil && strings.Contains(wl.Name, "ring allreduce") {
			return i
		}
	}
	return -1
}

// measureWorkload runs workload i of bench.Workloads runs times, each in
// a fresh process, after its setup in another.
func measureWorkload(bin, self, tmp string, i, runs int) (stats, error) {
	wl := bench.Workloads()[i]
	if wl.Setup != nil {
		// In a child: on Linux a child's peak RSS (rusage) starts
		// from its parent's peak at the fork, so this process must
		// never hold a workload's input itself.
		setup := exec.Command(self, "-child", fmt.Sprintf("p:%d", i), "-dir", tmp)
		if _, _, _, err := runProcess(setup); err != nil {
			return stats{}, fmt.Errorf("%s: setup: %w", wl.Name, err)
		}
	}
	var rs []childResult
	var walls []time.Duration
	var finish []int64
	for k := 0; k < runs; k++ {
		var r childResult
		if wl.Child != nil {
			cmd := exec.Command(bin, wl.Child(tmp)...)
			wall, rss, out, err := runProcess(cmd)
			if err != nil {
				return stats{}, fmt.Errorf("%s: %w", wl.Name, err)
			}
			var js replayJSON
			_ = json.Unmarshal(out, &js)
			r = childResult{Events: js.Events, WallNs: wall.Nanoseconds(), RSS: rss, CPUNs: cpuTime(cmd).Nanoseconds()}
			finish = finish[:0]
			for _, rk := range js.Ranks {
				finish = append(finish, rk.FinishNs)
			}
		} else {
			_, _, out, err := runProcess(exec.Command(self, "-child", fmt.Sprintf("w:%d", i), "-dir", tmp))
			if err != nil {
				return stats{}, fmt.Errorf("%s: %w", wl.Name, err)
			}
			if err := json.Unmarshal(out, &r); err != nil {
				return stats{}, fmt.Errorf("%s: %w", wl.Name, err)
			}
		}
		rs = append(rs, r)
		walls = append(walls, time.Duration(r.WallNs))
	}
	s := summarize(rs, walls)
	s.finish = finish
	return s, nil
}

// replayJSON is what the benchmarks read of `capsim replay --json`.
type replayJSON struct {
	Events int64 `json:"events"`
	Ranks  []struct {
		FinishNs int64 `json:"finish_ns"`
	} `json:"ranks"`
}

// scalingTable prints the scaling series, drawn into plotPath when set.
func scalingTable(w io.Writer, self, tmp string, maxEvents float64, plotPath string) error {
	fmt.Fprintf(w, "\nScaling (one run each, replay only, graph built in memory; CPU is the replay's, user and system, \"of which system\" the kernel's part, mostly the page faults of the engine's fresh memory; peak RSS the replay's, graph and engine, after the build's peak; "+
		"stream: the same graph written to an Arrow file and replayed from it window by window (sim.RunSource), CPU and peak RSS of reading and replaying, or what it needs the whole graph for):\n\n"+
		"| workload | ranks | events | wall | CPU | CPU ns/event | of which system | wall ns/event | build peak RSS | replay peak RSS | bytes/event | stream CPU ns/event | stream peak RSS |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	var pts []childResult
	var series []string
	for i, sp := range bench.Scaling(maxEvents) {
		_, _, out, err := runProcess(exec.Command(self, "-child", fmt.Sprintf("s:%d", i), "-dir", tmp, "-max-events", fmt.Sprint(maxEvents)))
		if err != nil {
			return fmt.Errorf("scaling %s: %w", sp.Pattern, err)
		}
		var r childResult
		if err := json.Unmarshal(out, &r); err != nil {
			return err
		}
		pts = append(pts, r)
		series = append(series, sp.Series)
		stream, err := streamColumns(self, tmp, i, maxEvents)
		if err != nil {
			return fmt.Errorf("scaling %s, streamed: %w", sp.Pattern, err)
		}
		ev := float64(r.Events)
		fmt.Fprintf(w, "| %s | %d | %.2f M | %.3f s | %.3f s | %.1f | %.1f | %.1f | %s | %s | %.0f | %s |\n", sp.Pattern, r.Ranks, ev/1e6, float64(r.WallNs)/1e9,
			float64(r.ReplayCPUNs)/1e9, float64(r.ReplayCPUNs)/ev, float64(r.ReplaySysNs)/ev, float64(r.WallNs)/ev, mib(r.BuildRSS), mib(r.RSS), float64(r.RSS)/ev, stream)
	}
	if plotPath != "" {
		return scalingPlot(plotPath, series, pts)
	}
	return nil
}

// streamColumns runs scaling point i as a streaming child and returns
// its two table cells: CPU ns per event and peak RSS, or why it did not
// stream.
func streamColumns(self, tmp string, i int, maxEvents float64) (string, error) {
	_, _, out, err := runProcess(exec.Command(self, "-child", fmt.Sprintf("t:%d", i), "-dir", tmp, "-max-events", fmt.Sprint(maxEvents)))
	if err != nil {
		return "", err
	}
	var r childResult
	if err := json.Unmarshal(out, &r); err != nil {
		return "", err
	}
	if r.NotStreamed != "" {
		return "not streamed: " + r.NotStreamed + " | —", nil
	}
	return fmt.Sprintf("%.1f | %s", float64(r.ReplayCPUNs)/float64(r.Events), mib(r.RSS)), nil
}

// noPeer is the line printed without a LogGOPSim build.
const noPeer = "(no peer comparison: set CAPSIM_LOGGOPSIM and CAPSIM_TXT2BIN to a LogGOPSim build that keeps program order)"

// peerResult is the ring allreduce run through LogGOPSim and capsim.
type peerResult struct {
	lgsMin, lgsMedian, lgsCPU time.Duration
	lgsRSS                    int64
	capsim                    stats
	check                     string // what the finish times compared
}

// wallRatio and rssRatio are capsim's minimum wall time and peak RSS over
// LogGOPSim's.
func (p *peerResult) wallRatio() float64 { return p.capsim.min.Seconds() / p.lgsMin.Seconds() }
func (p *peerResult) rssRatio() float64  { return float64(p.capsim.rss) / float64(p.lgsRSS) }

func (p *peerResult) print(w io.Writer) {
	ring := p.capsim
	fmt.Fprintf(w, "\n| ring allreduce, 1,024 ranks × 1 MiB | min wall | median wall | min CPU | peak RSS |\n| --- | --- | --- | --- | --- |\n")
	fmt.Fprintf(w, "| LogGOPSim | %.3f s | %.3f s | %.3f s | %s |\n", p.lgsMin.Seconds(), p.lgsMedian.Seconds(), p.lgsCPU.Seconds(), mib(p.lgsRSS))
	fmt.Fprintf(w, "| capsim | %.3f s | %.3f s | %.3f s | %s |\n", ring.min.Seconds(), ring.median.Seconds(), ring.minCPU.Seconds(), mib(ring.rss))
	fmt.Fprintf(w, "| capsim / LogGOPSim | %.2f | %.2f | %.2f | %.2f |\n", p.wallRatio(), ring.median.Seconds()/p.lgsMedian.Seconds(),
		ring.minCPU.Seconds()/p.lgsCPU.Seconds(), p.rssRatio())
	fmt.Fprintf(w, "\nFinish times: %s.\n", p.check)
}

// peer runs the reference ring allreduce through LogGOPSim where
// CAPSIM_LOGGOPSIM (and CAPSIM_TXT2BIN) name its binaries, runs times,
// and compares it with capsim's runs ring (nil, nil without LogGOPSim).
// Every finish time LogGOPSim prints must equal capsim's.
func peer(bin, tmp string, runs int, ring stats) (*peerResult, error) {
	lgs, t2b := os.Getenv("CAPSIM_LOGGOPSIM"), os.Getenv("CAPSIM_TXT2BIN")
	if lgs == "" || t2b == "" {
		return nil, nil
	}
	goal := bench.RingGOAL(tmp)
	if out, err := exec.Command(bin, "export", "goal", bench.RingFile(tmp), "-o", goal).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("export goal: %v\n%s", err, out)
	}
	binFile := goal + ".bin"
	if out, err := exec.Command(t2b, "-i", goal, "-o", binFile).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("txt2bin: %v\n%s", err, out)
	}
	p := &peerResult{capsim: ring}
	var walls []time.Duration
	for k := 0; k < runs; k++ {
		cmd := exec.Command(lgs, "-f", binFile)
		wall, r, out, err := runProcess(cmd)
		if err != nil {
			return nil, fmt.Errorf("LogGOPSim: %w", err)
		}
		if cpu := cpuTime(cmd); k == 0 || cpu < p.lgsCPU {
			p.lgsCPU = cpu
		}
		walls = append(walls, wall)
		p.lgsRSS = max(p.lgsRSS, r)
		if p.check, err = sameFinish(out, ring.finish); err != nil {
			return nil, fmt.Errorf("LogGOPSim and capsim disagree on the ring allreduce: %w", err)
		}
	}
	sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
	p.lgsMin, p.lgsMedian = walls[0], walls[len(walls)/2]
	return p, nil
}

// sameFinish compares LogGOPSim's output out with capsim's per-rank finish
// times. LogGOPSim prints every host's time ("Host 3: 1234") for up to 16
// hosts, and beyond that only the latest ("Maximum finishing time at host
// H: T (...)", the first host with the largest time); each printed time
// must equal capsim's. It returns what was compared.
func sameFinish(out []byte, finish []int64) (string, error) {
	if len(finish) == 0 {
		return "", fmt.Errorf("capsim reported no finish times")
	}
	hosts := 0
	for _, l := range strings.Split(string(out), "\n") {
		var h int
		var t int64
		if n, _ := fmt.Sscanf(l, "Host %d: %d", &h, &t); n == 2 {
			if h < 0 || h >= len(finish) || finish[h] != t {
				return "", fmt.Errorf("LogGOPSim: host %d finishes at %d ns, capsim: %v", h, t, finish[min(max(h, 0), len(finish)-1)])
			}
			hosts++
			continue
		}
		if rest, ok := strings.CutPrefix(l, "Maximum finishing time at host "); ok {
			if n, _ := fmt.Sscanf(rest, "%d: %d", &h, &t); n != 2 {
				return "", fmt.Errorf("cannot read LogGOPSim's line %q", l)
			}
			latest := 0
			for r, f := range finish {
				if f > finish[latest] {
					latest = r
				}
			}
			if h != latest || t != finish[latest] {
				return "", fmt.Errorf("LogGOPSim: latest host %d at %d ns, capsim: host %d at %d ns", h, t, latest, finish[latest])
			}
			return fmt.Sprintf("LogGOPSim prints only the latest host beyond 16 ranks: host %d at %d ns in both", h, t), nil
		}
	}
	if hosts == 0 || hosts != len(finish) {
		return "", fmt.Errorf("LogGOPSim printed %d host times for %d ranks", hosts, len(finish))
	}
	return fmt.Sprintf("all %d hosts identical", hosts), nil
}

// scalingPlot draws CPU ns per event and bytes of peak RSS per event against
// events into dir as scaling_time and scaling_memory (PNG and SVG), a
// line per series.
func scalingPlot(dir string, series []string, pts []childResult) error {
	var order []string
	tm, mem := map[string]plotter.XYs{}, map[string]plotter.XYs{}
	for i, r := range pts {
		n := series[i]
		if _, ok := tm[n]; !ok {
			order = append(order, n)
		}
		tm[n] = append(tm[n], plotter.XY{X: float64(r.Events), Y: float64(r.ReplayCPUNs) / float64(r.Events)})
		mem[n] = append(mem[n], plotter.XY{X: float64(r.Events), Y: float64(r.RSS) / float64(r.Events)})
	}
	var figs []report.Figure
	for _, f := range []struct {
		name, title, ylabel string
		pts                 map[string]plotter.XYs
	}{
		{"scaling_time", "capsim replay: CPU time per event", "CPU ns per event", tm},
		{"scaling_memory", "capsim replay: peak memory per event", "bytes of the replay's peak RSS per event", mem},
	} {
		fig, err := report.Lines(f.name, f.title, "engine events", f.ylabel, order, f.pts)
		if err != nil {
			return err
		}
		fig.Plot.X.Scale = plot.LogScale{}
		fig.Plot.X.Tick.Marker = plot.LogTicks{Prec: -1}
		fig.Plot.Y.Min = 0
		figs = append(figs, fig)
	}
	_, err := report.SaveFigures(dir, figs)
	return err
}
