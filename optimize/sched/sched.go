// Package sched holds the power-constrained task-graph schedulers of
// Anger's thesis (Georgia Tech, 2016, Ch. 5) as policies of the executor in package sim (sim.RunTasks):
// the Fair Scheduler (FS, Algorithm 3), the Core-Constrained Scheduler
// (CCS, Algorithm 4), the Power-Aware Scheduler (PAS, Algorithm 5) and the
// Slack-Aware Scheduler (SAS, Algorithm 6).
//
// FS and CCS respect the power cap statically: they never use more than
// N_static(cap) threads, the most threads whose worst-case peak power fits
// under the cap (Anger, PhD thesis, Georgia Tech, 2016, Ch. 5; our option (b): an unbounded knapsack over the
// profiled (kernel, threads) entries of the graph's kernels). PAS and SAS
// walk tasks down their Pareto frontiers until the tick's tasks fit in the
// idle threads and the remaining power.
//
// CCS, PAS and SAS compare alternatives by our makespan estimate
// M = max over pending tasks T of t_T(config_T) + BL(T), where BL(T) is
// the longest chain of T's successors at their fastest configurations.
// Only the tasks being scheduled enter M ("the schedulers only look at the
// current set of tasks to be scheduled"). A task deferred to a later tick
// contributes D + t_fastest + BL, with D the time to the next scheduling
// point: the first end of a running task or, when nothing runs, the
// shortest fastest time among the pending tasks; when nothing runs, the
// last task left is never deferred. Ties go to the task that became ready
// first. Where the thesis is ambiguous the
// recommended reading is the default and the literal or alternative
// reading is an Options field.
//
// All powers are compared in whole nanowatts, so a schedule that fits the
// cap does so exactly, with no tolerance.
package sched

import (
	"fmt"
	"math"
	"strings"

	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/taskgraph"
)

// Options selects readings of the thesis' ambiguities. The zero value is
// our reading of the thesis throughout.
type Options struct {
	// CCSLargest uses Algorithm 4's literal "makespan is largest seen yet"
	// rule for the losing task instead of the smallest resulting makespan
	// (the thesis is ambiguous here).
	CCSLargest bool
	// CCSFrontier restricts CCS to Pareto points instead of reducing one
	// thread count at a time over the full profile (Anger, 2016, Ch. 5).
	CCSFrontier bool
	// FairDivide gives every ready task numCores/numTasks threads (integer
	// division, the rest idle) instead of dealing the threads round-robin
	// (the thesis is ambiguous here).
	FairDivide bool
	// StaticCores, when positive, overrides the computed static thread
	// limit N_static of FS and CCS (option (a), Anger, 2016, Ch. 5).
	StaticCores int
	// DeferLast changes what PAS and SAS do with a task already at its
	// lowest Pareto point (the thesis is ambiguous here). By default deferral is the
	// step below the frontier and is chosen by the makespan estimate, with
	// the deferred task assumed to start at the next scheduling point and
	// run at its fastest. With DeferLast, deferral is taken only when every
	// task is at its lowest point, the most recently ready task first.
	DeferLast bool
}

// Names lists the policies New knows, in report order.
var Names = []string{"fs", "ccs", "pas", "sas"}

// New returns the policy called name: fs, ccs, pas or sas.
func New(name string, opt Options) (sim.TaskPolicy, error) {
	switch strings.ToLower(name) {
	case "fs", "fair":
		return &Fair{Opt: opt}, nil
	case "ccs":
		return &walker{name: "ccs", mode: modeCCS, opt: opt}, nil
	case "pas":
		return &walker{name: "pas", mode: modePAS, opt: opt}, nil
	case "sas":
		return &walker{name: "sas", mode: modeSAS, opt: opt}, nil
	}
	return nil, fmt.Errorf("unknown policy %q (want one of %s)", name, strings.Join(Names, ", "))
}

// common is what every policy derives from the workload at Start.
type common struct {
	w    *sim.TaskWorkload
	node sim.Node
	// bl[t] is BL(t): the longest chain of t's successors at their
	// fastest configurations, ns.
	bl []float64
	// fastest[k] is kernel k's configuration with the shortest time
	// (ties: fewer threads, then lower frequency).
	fastest []int32
	// top[k][n] is kernel k's configuration with n threads at the highest
	// profiled frequency, or −1 (what FS and CCS choose from).
	top [][]int32
}

func (c *common) start(w *sim.TaskWorkload, node sim.Node) error {
	c.w, c.node = w, node
	d := w.DAG
	c.fastest = make([]int32, len(w.Configs))
	c.top = make([][]int32, len(w.Configs))
	for k, cs := range w.Configs {
		fits := false
		for _, cf := range cs {
			fits = fits || int(cf.Threads) <= node.Cores
		}
		if !fits {
			return fmt.Errorf("kernel %s has no configuration within the node's %d threads", d.Kernels[k], node.Cores)
		}
		best := int32(0)
		top := make([]int32, node.Cores+1)
		for i := range top {
			top[i] = -1
		}
		for i, cf := range cs {
			if cf.Time < cs[best].Time {
				best = int32(i)
			}
			if int(cf.Threads) <= node.Cores {
				if j := top[cf.Threads]; j < 0 || cs[j].FreqGHz <= cf.FreqGHz {
					top[cf.Threads] = int32(i)
				}
			}
		}
		c.fastest[k], c.top[k] = best, top
	}
	wt := make([]float64, d.NumTasks())
	for t := range wt {
		k := d.Kernel[t]
		wt[t] = float64(w.Configs[k][c.fastest[k]].Time)
	}
	_, bl, err := d.LongestPath(wt)
	if err != nil {
		return err
	}
	c.bl = bl
	return nil
}

// StaticCores returns N_static(cap) for a workload: the largest thread
// count N ≤ node.Cores whose worst-case peak power, the largest summed
// power of any multiset of the graph's profiled (kernel, threads) entries
// with at most N threads in all, stays within the cap (Anger, 2016,
// Ch. 5, option (b)). Only the highest-frequency entry of each thread count
// counts, as FS and CCS use no other. Without a cap it is node.Cores.
func StaticCores(w *sim.TaskWorkload, node sim.Node) int {
	if node.Cap == 0 {
		return node.Cores
	}
	type entry struct {
		threads int
		power   int64 // nW
	}
	var es []entry
	for _, cs := range w.Configs {
		best := map[int32]int{}
		for i, cf := range cs {
			if j, ok := best[cf.Threads]; !ok || cs[j].FreqGHz <= cf.FreqGHz {
				best[cf.Threads] = i
			}
		}
		for _, i := range best {
			es = append(es, entry{int(cs[i].Threads), cs[i].PowerNW})
		}
	}
	capNW := node.CapNW()
	peak := make([]int64, node.Cores+1) // peak[n]: worst case with ≤ n threads, nW
	nStatic := 0
	for n := 1; n <= node.Cores; n++ {
		peak[n] = peak[n-1]
		for _, e := range es {
			if e.threads <= n {
				peak[n] = max(peak[n], peak[n-e.threads]+e.power)
			}
		}
		if peak[n] <= capNW {
			nStatic = n
		}
	}
	return nStatic
}

// Fair is the Fair Scheduler (Anger, 2016, Algorithm 3): it deals the free
// threads under the static limit N_static(cap) evenly over all ready
// tasks, round-robin by default. A task dealt more threads than its
// kernel was profiled with gets the largest profiled count below; with
// more ready tasks than free threads, the first tasks get one thread each
// and the rest wait.
type Fair struct {
	Opt     Options
	c       common
	nStatic int
}

// Name returns "fs".
func (f *Fair) Name() string { return "fs" }

// Start computes N_static(cap).
func (f *Fair) Start(w *sim.TaskWorkload, node sim.Node) error {
	if err := f.c.start(w, node); err != nil {
		return err
	}
	f.nStatic = f.Opt.StaticCores
	if f.nStatic <= 0 {
		f.nStatic = StaticCores(w, node)
	}
	f.nStatic = min(f.nStatic, node.Cores)
	return nil
}

// Schedule deals the free threads.
func (f *Fair) Schedule(s *sim.TaskState, pending []int32, choice []int32) {
	used := f.c.node.Cores - s.IdleCores
	free := f.nStatic - used
	if free <= 0 {
		return
	}
	n := len(pending)
	per, rem := free/n, free%n
	if f.Opt.FairDivide {
		rem = 0
	}
	if per == 0 {
		per, rem, n = 1, 0, free
	}
	d := f.c.w.DAG
	for i := 0; i < n; i++ {
		th := per
		if i < rem {
			th++
		}
		top := f.c.top[d.Kernel[pending[i]]]
		for th > 0 && top[th] < 0 {
			th--
		}
		if th > 0 {
			choice[i] = top[th]
		}
	}
}

// RelativePerformance returns T_ref / T: above 1 when the run with
// makespan t is faster than the reference (Fair, for Fig. 25 of the
// thesis).
func RelativePerformance(ref, t int64) float64 {
	if t <= 0 {
		return math.NaN()
	}
	return float64(ref) / float64(t)
}

// Frontier returns kernel k's Pareto-optimal configuration indices of w
// ordered from the fastest (most power) down to the least power.
func Frontier(w *sim.TaskWorkload, k int) []int32 {
	cs := w.Configs[k]
	pc := make([]taskgraph.ProfileConfig, len(cs))
	for i, c := range cs {
		pc[i] = taskgraph.ProfileConfig{Threads: c.Threads, FreqGHz: c.FreqGHz, Time: float64(c.Time), Power: c.Power}
	}
	idx := taskgraph.ParetoIndices(pc)
	out := make([]int32, len(idx))
	for i, j := range idx {
		out[len(idx)-1-i] = int32(j)
	}
	return out
}
