package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/capsim/capsim/optimize/bound"
)

// boundSize is one size of the LP table: the stencil
// of examples/bound/stencil32.toml (a charged-field 2-D stencil) on px × py
// ranks for iters iterations, one compute task per rank and iteration.
type boundSize struct{ px, py, iters int }

func (b boundSize) ranks() int { return b.px * b.py }
func (b boundSize) tasks() int { return b.ranks() * b.iters }

// boundSizes grow from 10^3 to 10^6 tasks in ranks and iterations, with
// 2·10^5 (twice the ranks of 10^5) between the last two.
var boundSizes = []boundSize{{8, 4, 32}, {16, 8, 80}, {32, 16, 200}, {32, 32, 200}, {64, 32, 500}}

// boundModels are the message models the table compares: the default
// (the engine's LogGOPS semantics as rows, a true bound) and the replay
// model (message times taken from one replay; no bound).
var boundModels = []string{"engine", "replay"}

// boundScenario writes the stencil32 scenario scaled to size s with the
// LP's message model into dir and returns its path and the caps flag: six
// caps from 28.1 to 43.8 W a rank (900–1,400 W at 32 ranks).
func boundScenario(root, dir string, s boundSize, messages string) (string, string, error) {
	b, err := os.ReadFile(filepath.Join(root, "examples", "bound", "stencil32.toml"))
	if err != nil {
		return "", "", err
	}
	text := string(b)
	for key, v := range map[string]int{"nodes": s.ranks() / 2, "ranks": s.ranks(), "px": s.px, "py": s.py, "iterations": s.iters} {
		re := regexp.MustCompile(`(?m)^` + key + ` = \d+`)
		if !re.MatchString(text) {
			return "", "", fmt.Errorf("%s: no line %q to scale", "examples/bound/stencil32.toml", key+" = N")
		}
		text = re.ReplaceAllString(text, fmt.Sprintf("%s = %d", key, v))
	}
	// The sweep's caps scale with the ranks too: a cap at or below the
	// machine's idle floor is an error at parse time.
	k := float64(s.ranks()) / 32
	caps := fmt.Sprintf("%g:%g:%g", 900*k, 1400*k, 100*k)
	re := regexp.MustCompile(`(?m)^caps = ".*"`)
	if !re.MatchString(text) {
		return "", "", fmt.Errorf("%s: no line %q to scale", "examples/bound/stencil32.toml", `caps = "…"`)
	}
	text = re.ReplaceAllString(text, fmt.Sprintf("caps = %q", caps))
	text += fmt.Sprintf("\n[bound]\nmessages = %q\n", messages)
	path := filepath.Join(dir, fmt.Sprintf("bound-%d-%s.toml", s.tasks(), messages))
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return "", "", err
	}
	return path, caps, nil
}

// boundRow is what one `capsim bound --json` run gives the table.
type boundRow struct {
	tasks, rows, cols, blocks, caps int
	order, build, first, rest       float64 // s: DAG and event order, LP build, first cap's solve, mean of the others
	wall, cpu                       time.Duration
	rss                             int64
	timedOut                        bool
}

// timedRun is what runWithin measured of a process.
type timedRun struct {
	wall, cpu time.Duration
	rss       int64
	out       []byte
	timedOut  bool // the timeout stopped it
}

// runWithin runs the program name with args, stopping it after timeout,
// and returns its wall and CPU time, peak RSS and standard output; the
// error is the process's, nil where the timeout stopped it.
func runWithin(timeout time.Duration, name string, args ...string) (timedRun, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	wall, rss, out, err := runProcess(cmd)
	r := timedRun{wall: wall, cpu: cpuTime(cmd), rss: rss, out: out}
	if ctx.Err() != nil {
		r.timedOut = true
		return r, nil
	}
	return r, err
}

// boundRun runs `capsim bound` on one size and model under a timeout.
func boundRun(bin, root, dir string, s boundSize, messages string, timeout time.Duration) (boundRow, error) {
	path, caps, err := boundScenario(root, dir, s, messages)
	if err != nil {
		return boundRow{}, err
	}
	run, err := runWithin(timeout, bin, "bound", "--scenario", path, "--caps", caps, "--json")
	r := boundRow{tasks: s.tasks(), wall: run.wall, cpu: run.cpu, rss: run.rss, timedOut: run.timedOut}
	if r.timedOut {
		return r, nil
	}
	if err != nil {
		return r, fmt.Errorf("capsim bound on %d tasks (%s): %w", s.tasks(), messages, err)
	}
	var rs []struct {
		Infeasible bool `json:"infeasible"`
		LP         struct {
			Tasks     int     `json:"tasks"`
			Variables int     `json:"variables"`
			Rows      int     `json:"rows"`
			Blocks    int     `json:"blocks"`
			OrderS    float64 `json:"order_s"`
			BuildS    float64 `json:"build_s"`
			SolveS    float64 `json:"solve_s"`
		} `json:"lp"`
	}
	if err := json.Unmarshal(run.out, &rs); err != nil {
		return r, fmt.Errorf("capsim bound on %d tasks (%s): %w", s.tasks(), messages, err)
	}
	for _, x := range rs {
		if x.Infeasible {
			continue
		}
		if r.caps == 0 {
			r.tasks, r.cols, r.rows, r.blocks, r.order, r.build, r.first = x.LP.Tasks, x.LP.Variables, x.LP.Rows, x.LP.Blocks, x.LP.OrderS, x.LP.BuildS, x.LP.SolveS
		} else {
			r.rest += x.LP.SolveS
			r.rows = max(r.rows, x.LP.Rows) // lazy rows added by later caps
		}
		r.caps++
	}
	if r.caps == 0 {
		return r, errors.New("capsim bound: every cap infeasible")
	}
	if r.caps > 1 {
		r.rest /= float64(r.caps - 1)
	}
	return r, nil
}

// beyond returns the memory, in bytes, that tasks would need at perTask
// bytes a task (the peak RSS a task of the previous size), and whether it
// exceeds mem, the machine's memory (never where mem or perTask is
// unknown, 0).
func beyond(perTask float64, tasks int, mem int64) (need float64, over bool) {
	need = perTask * float64(tasks)
	return need, mem > 0 && need > float64(mem)
}

// syncSize is one size of the synthetic LP table: bound.SyncDAG with
// ranks × steps tasks of 6 configurations.
type syncSize struct{ ranks, steps int }

func (s syncSize) tasks() int { return s.ranks * s.steps }

// syncSizes grow from 10^3 to 2·10^7 tasks; 1,024 × 1,000 is the million-task
// case of optimize/bound's BenchmarkBoundMillion.
var syncSizes = []syncSize{{32, 32}, {128, 80}, {512, 200}, {1024, 1000}, {2048, 2000}, {2048, 5000}, {4096, 5000}}

// syncChild runs in a child process: the LP of synthetic size i built and
// solved once at the middle of its feasible caps (as BenchmarkBoundMillion
// does), with its size and times in Extra and the number of tasks as
// Events.
func syncChild(i int) (childResult, error) {
	if i < 0 || i >= len(syncSizes) {
		return childResult{}, fmt.Errorf("no synthetic LP size %d", i)
	}
	sz := syncSizes[i]
	d := bound.SyncDAG(sz.ranks, sz.steps, 6, 1)
	start := time.Now()
	o, err := bound.InitialOrder(d)
	if err != nil {
		return childResult{}, err
	}
	s, err := bound.NewSolver(d, o, bound.Options{})
	if err != nil {
		return childResult{}, err
	}
	defer s.Close()
	minCap, _ := s.MinFeasibleCap()
	b, err := s.Solve(minCap + (100*float64(sz.ranks)-minCap)/2)
	if err != nil {
		return childResult{}, err
	}
	st := b.Stats
	return childResult{Events: int64(len(d.Tasks)), WallNs: time.Since(start).Nanoseconds(), Ranks: sz.ranks, Extra: map[string]float64{
		"variables": float64(st.Variables), "rows": float64(st.Rows), "nonzeros": float64(st.Nonzeros),
		"blocks": float64(st.Blocks), "iterations": float64(st.Iter), "build_s": st.BuildS, "solve_s": st.SolveS,
	}}, nil
}

// syncTable prints the LP alone on the synthetic DAG (syncSizes), one
// child process a size, growing until a size exceeds timeout or maxTasks,
// or would not fit in the machine's memory at the previous size's bytes a
// task (not run; its row says so).
func syncTable(w io.Writer, self, dir string, timeout time.Duration, maxTasks int) error {
	fmt.Fprintf(w, "\nThe LP alone on the synthetic DAG (`bound.SyncDAG`: ranks × steps tasks of 6 configurations, a collective after every step; the order, the build and one solve at the middle of the feasible caps; one run each, at most %s; \"LP\" is that time in the child, \"wall\" and \"CPU\" the whole process's, the DAG's generation included):\n\n", timeout)
	fmt.Fprintf(w, "| tasks | ranks × steps | columns | rows | nonzeros | blocks | build | solve | iterations | LP | wall | CPU | peak RSS |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	mem, perTask := memBytes(), 0.0
	for i, sz := range syncSizes {
		if sz.tasks() > maxTasks {
			break
		}
		if need, over := beyond(perTask, sz.tasks(), mem); over {
			fmt.Fprintf(w, "| %d | %d × %d | | | | | | | | | not run: about %.0f GiB at %.0f bytes a task, above this machine's %s | | |\n",
				sz.tasks(), sz.ranks, sz.steps, need/(1<<30), perTask, memTotal())
			break
		}
		run, err := runWithin(timeout, self, "-child", fmt.Sprintf("l:%d", i), "-dir", dir)
		if run.timedOut {
			fmt.Fprintf(w, "| %d | %d × %d | | | | | | | | | > %s (stopped) | | %s |\n", sz.tasks(), sz.ranks, sz.steps, timeout, mib(run.rss))
			break
		}
		if err != nil {
			return fmt.Errorf("synthetic LP %d × %d: %w", sz.ranks, sz.steps, err)
		}
		var r childResult
		if err := json.Unmarshal(run.out, &r); err != nil {
			return fmt.Errorf("synthetic LP %d × %d: %w", sz.ranks, sz.steps, err)
		}
		x := r.Extra
		fmt.Fprintf(w, "| %d | %d × %d | %.0f | %.0f | %.0f | %.0f | %.2f s | %.2f s | %.0f | %.2f s | %.2f s | %.2f s | %s |\n", r.Events, sz.ranks, sz.steps,
			x["variables"], x["rows"], x["nonzeros"], x["blocks"], x["build_s"], x["solve_s"], x["iterations"], float64(r.WallNs)/1e9, run.wall.Seconds(), run.cpu.Seconds(), mib(run.rss))
		perTask = float64(run.rss) / float64(sz.tasks())
	}
	return nil
}

// bound is the bound's own time: the DAG and event order, the LP's
// build and its solves at every cap (the rest of the wall time replays
// the rounded, Static and Conductor schedules).
func (r boundRow) bound() float64 { return r.order + r.build + r.first + r.rest*float64(r.caps-1) }

// boundTable prints the LP table: each size with both message models
// (engine, the default, then replay), then their ratios, growing until a
// run exceeds timeout or the size exceeds maxTasks. A model also stops
// at a size whose peak RSS, at its previous size's bytes a task, would
// exceed the machine's memory: it is not run, and its row says so.
func boundTable(w io.Writer, bin, root, dir string, timeout time.Duration, maxTasks int) error {
	fmt.Fprintf(w, "\nLP bound (`capsim bound` on examples/bound/stencil32.toml scaled in ranks and iterations, 6 caps of 28.1–43.8 W a rank, default cuts; one run each, at most %s; \"bound\": DAG and order + LP build + every cap's solve, the rest of the wall time replays the rounded, Static and Conductor schedules):\n\n", timeout)
	fmt.Fprintf(w, "| tasks | ranks | messages | rows | columns | blocks | DAG and order | LP build | solve, first cap | solve, each later cap | bound | wall | CPU | peak RSS |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	type pair struct{ e, r boundRow }
	var pairs []pair
	stopped := map[string]bool{}
	perTask := map[string]float64{} // peak RSS a task at the model's last size
	mem := memBytes()
	for _, s := range boundSizes {
		if s.tasks() > maxTasks {
			break
		}
		var p pair
		for _, msg := range boundModels {
			if stopped[msg] {
				continue
			}
			if need, over := beyond(perTask[msg], s.tasks(), mem); over {
				stopped[msg] = true
				fmt.Fprintf(w, "| %d | %d | %s | | | | | | | | | not run: about %.0f GiB at %.0f KiB a task, above this machine's %s | | |\n",
					s.tasks(), s.ranks(), msg, need/(1<<30), perTask[msg]/1024, memTotal())
				continue
			}
			r, err := boundRun(bin, root, dir, s, msg, timeout)
			if err != nil {
				return err
			}
			if r.timedOut {
				stopped[msg] = true
				fmt.Fprintf(w, "| %d | %d | %s | | | | | | | | | > %s (stopped) | | %s |\n", s.tasks(), s.ranks(), msg, timeout, mib(r.rss))
				continue
			}
			fmt.Fprintf(w, "| %d | %d | %s | %d | %d | %d | %.2f s | %.2f s | %.3f s | %.3f s | %.1f s | %.1f s | %.1f s | %s |\n", r.tasks, s.ranks(), msg, r.rows, r.cols, r.blocks,
				r.order, r.build, r.first, r.rest, r.bound(), r.wall.Seconds(), r.cpu.Seconds(), mib(r.rss))
			perTask[msg] = float64(r.rss) / float64(r.tasks)
			if msg == "engine" {
				p.e = r
			} else {
				p.r = r
			}
		}
		if p.e.caps > 0 && p.r.caps > 0 {
			pairs = append(pairs, p)
		}
		if stopped["engine"] && stopped["replay"] {
			break
		}
	}
	if len(pairs) > 0 {
		fmt.Fprintf(w, "\n| tasks | rows engine/replay | DAG and order engine/replay | LP build engine/replay | solve (all caps) engine/replay | bound engine/replay | wall engine/replay | CPU engine/replay | peak RSS engine/replay |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
		for _, p := range pairs {
			solve := func(r boundRow) float64 { return r.first + r.rest*float64(r.caps-1) }
			fmt.Fprintf(w, "| %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", p.e.tasks, float64(p.e.rows)/float64(p.r.rows), p.e.order/p.r.order, p.e.build/p.r.build,
				solve(p.e)/solve(p.r), p.e.bound()/p.r.bound(), p.e.wall.Seconds()/p.r.wall.Seconds(), p.e.cpu.Seconds()/p.r.cpu.Seconds(), float64(p.e.rss)/float64(p.r.rss))
		}
	}
	return nil
}

// sweepTable prints points per second of the default scenario swept over
// 20 caps (290–385 W) × its 4 policies, and of the same over two
// workloads (balance 0.25 and 0.5: two LPs), with 1 and 2 workers, and
// two copies of the 1-worker sweep run at once (what the machine's cores
// give two processes at the moment: the reference for the workers'
// speed-up on a shared machine),
// runs times each; it checks that the results are byte-identical across
// runs and worker counts.
func sweepTable(w io.Writer, bin, dir string, runs int) error {
	def, err := exec.Command(bin, "scenario", "default").Output()
	if err != nil {
		return fmt.Errorf("capsim scenario default: %w", err)
	}
	re := regexp.MustCompile(`(?m)^caps = "[^"]*"`)
	if !re.Match(def) {
		return errors.New("the default scenario has no caps line")
	}
	one := re.ReplaceAll(def, []byte(`caps = "290:385:5"`))
	two := append(slices.Clip(one), "\n[sweep.params]\nbalance = [0.25, 0.5]\n"...)
	fmt.Fprintf(w, "\nSweeps (`capsim sweep` of the default scenario over 20 caps × 4 policies; %d runs each; \"1, 2 copies\": two 1-worker sweeps run at once, points and CPU time summed):\n\n", runs)
	fmt.Fprintf(w, "| sweep | workers | points | min wall | median wall | points/s (min wall) | median CPU time | peak RSS |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	var notes []string
	for _, sw := range []struct {
		name string
		text []byte
	}{{"default, 1 workload", one}, {"default × 2 workloads (balance 0.25, 0.5)", two}} {
		path := filepath.Join(dir, fmt.Sprintf("sweep%d.toml", len(notes)))
		if err := os.WriteFile(path, sw.text, 0o644); err != nil {
			return err
		}
		var first []byte
		best := map[string]time.Duration{}
		identical := true
		for _, mode := range []string{"1", "2", "1, 2 copies"} {
			var walls, cpus []time.Duration
			var rss int64
			points := 0
			for k := 0; k < runs; k++ {
				out := filepath.Join(dir, fmt.Sprintf("sweep-%d", k))
				var cmds []*exec.Cmd
				if mode == "1, 2 copies" {
					for c := 0; c < 2; c++ {
						cmds = append(cmds, exec.Command(bin, "sweep", path, "-o", fmt.Sprintf("%s-%d", out, c), "--workers", "1", "--progress", "never"))
					}
				} else {
					cmds = append(cmds, exec.Command(bin, "sweep", path, "-o", out, "--workers", mode, "--progress", "never"))
				}
				start := time.Now()
				errs := make(chan error, len(cmds))
				for _, c := range cmds {
					go func() { _, _, _, err := runProcess(c); errs <- err }()
				}
				for range cmds {
					if err := <-errs; err != nil {
						return fmt.Errorf("capsim sweep (%s, %s): %w", sw.name, mode, err)
					}
				}
				walls = append(walls, time.Since(start))
				var cpu time.Duration
				points = 0
				for _, c := range cmds {
					cpu += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
					if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
						rss = max(rss, ru.Maxrss<<10)
					}
					csv, err := os.ReadFile(filepath.Join(c.Args[4], "results.csv"))
					if err != nil {
						return err
					}
					points += strings.Count(string(csv), "\n") - 1
					if len(cmds) == 1 {
						if first == nil {
							first = csv
						}
						identical = identical && string(csv) == string(first)
					}
					os.RemoveAll(c.Args[4])
				}
				cpus = append(cpus, cpu)
			}
			s := summarize(nil, walls)
			slices.Sort(cpus)
			best[mode] = s.min
			fmt.Fprintf(w, "| %s | %s | %d | %.3f s | %.3f s | %.1f | %.3f s | %s |\n", sw.name, mode, points, s.min.Seconds(), s.median.Seconds(), float64(points)/s.min.Seconds(),
				cpus[len(cpus)/2].Seconds(), mib(rss))
		}
		same := "byte-identical"
		if !identical {
			same = "DIFFERENT"
		}
		notes = append(notes, fmt.Sprintf("%s: speed-up from 2 workers %.2f× (two 1-worker copies at once: %.2f× the points/s of one); results.csv %s across runs and worker counts",
			sw.name, best["1"].Seconds()/best["2"].Seconds(), 2*best["1"].Seconds()/best["1, 2 copies"].Seconds(), same))
	}
	fmt.Fprintf(w, "\n%s\n", strings.Join(notes, "\n"))
	return nil
}
