package sim

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/taskgraph"
)

// This file is the dynamic task-graph executor of Anger's thesis (Georgia
// Tech 2016, §5.2): the
// elastic tasks of a DAG run on one node with a fixed number of hardware
// threads ("cores") under a cap on incremental power. A pluggable policy
// picks, at every scheduling point, which ready tasks start and with which
// configuration; a started task keeps its configuration until it ends
// (non-preemptive). The executor runs on the replay engine's event queue
// (eventQueue): every task end is an event at (end time, start order).

// TaskConfig is one way to run a task of some kernel: its thread count,
// frequency, duration and incremental power over the node's idle power.
type TaskConfig struct {
	Threads int32
	FreqGHz float64
	Time    int64   // ns
	Power   float64 // W over idle, a whole number of nW
	PowerNW int64   // Power in nW: the executor sums powers exactly
}

// MaxNodeCores bounds a task node's hardware threads: the static thread
// limit's knapsack runs over every count up to it (10^8 took minutes and
// 800 MB); 65,536 is far past any node.
const MaxNodeCores = 1 << 16

// Node is the machine a task graph runs on.
type Node struct {
	// Cores is the number of hardware threads tasks may use (112 on the
	// thesis' Xeon Phi, Anger's thesis §4.2.1).
	Cores int
	// Cap bounds the summed incremental power of running tasks, in W; 0
	// means no cap. The executor compares in whole nW (CapNW).
	Cap float64
	// IdleW is the node's idle power, added for total power and energy.
	IdleW float64
}

// CapNW returns the cap in nW, rounded to nearest, or math.MaxInt64
// without a cap.
func (n Node) CapNW() int64 {
	if n.Cap == 0 || n.Cap > 1e9 {
		return math.MaxInt64
	}
	return int64(math.Round(n.Cap * 1e9))
}

// TaskWorkload is a DAG with the configurations of its kernels.
type TaskWorkload struct {
	DAG *taskgraph.DAG
	// Configs[k] lists the configurations of kernel k of the DAG, ordered
	// by threads, then frequency.
	Configs [][]TaskConfig
}

// NewTaskWorkload pairs a DAG with profiles, converting times to ns. Every
// kernel of the DAG needs at least one profiled configuration.
func NewTaskWorkload(d *taskgraph.DAG, p *taskgraph.Profiles) (*TaskWorkload, error) {
	w := &TaskWorkload{DAG: d, Configs: make([][]TaskConfig, len(d.Kernels))}
	for k, name := range d.Kernels {
		cs := p.Kernel(name)
		if len(cs) == 0 {
			return nil, fmt.Errorf("task graph %s: kernel %s has no profile", d.Name, name)
		}
		for _, c := range cs {
			ns := math.Round(c.Time * 1e9)
			if !(ns >= 1) || ns > 1e15 {
				return nil, fmt.Errorf("kernel %s, %d threads: time %g s outside 1 ns..1e6 s", name, c.Threads, c.Time)
			}
			nw := math.Round(c.Power * 1e9)
			if !(nw >= 0) || nw > 1e15 {
				return nil, fmt.Errorf("kernel %s, %d threads: power %g W outside 0..1e6 W", name, c.Threads, c.Power)
			}
			w.Configs[k] = append(w.Configs[k], TaskConfig{Threads: c.Threads, FreqGHz: c.FreqGHz, Time: int64(ns), Power: nw / 1e9, PowerNW: int64(nw)})
		}
	}
	return w, nil
}

// Config returns configuration i of task t's kernel.
func (w *TaskWorkload) Config(t int32, i int32) TaskConfig {
	return w.Configs[w.DAG.Kernel[t]][i]
}

// TaskState is what a policy sees at a scheduling point.
type TaskState struct {
	Now       int64   // ns
	IdleCores int     // threads not used by running tasks
	Power     float64 // incremental power of the running tasks, W
	PowerNW   int64   // the same in nW, exact
	Running   int     // number of running tasks
	// NextEnd is when the first running task ends (ns); −1 when none runs.
	NextEnd int64
}

// TaskPolicy decides which ready tasks start. Implementations keep
// per-run state, so one value must not run two graphs at once.
type TaskPolicy interface {
	// Name identifies the policy in reports.
	Name() string
	// Start prepares a run of w on node.
	Start(w *TaskWorkload, node Node) error
	// Schedule is called whenever tasks have become ready (Anger's thesis
	// §5.2.2: "the input to each heuristic is the set of tasks that are
	// ready to run") with the pending tasks in the order they became ready. It sets choice[i] to
	// the configuration index (into the kernel's Configs) pending[i] starts
	// with now, or to −1 to leave it pending. The chosen tasks must fit in
	// s.IdleCores and, with s.Power, under the node's cap.
	Schedule(s *TaskState, pending []int32, choice []int32)
}

// PowerStep is a piece of a piecewise-constant power timeline: from Time
// (ns) until the next step, the running tasks draw Power W over idle.
type PowerStep struct {
	Time  int64
	Power float64
}

// TaskResult is the outcome of a task-graph run.
type TaskResult struct {
	Makespan int64 // ns
	// Start, End and Config per task (Config indexes the kernel's Configs).
	Start, End []int64
	Config     []int32
	// Timeline is the incremental power over time; it ends with a step
	// of 0 W at the makespan.
	Timeline []PowerStep
	// AvgPower and PeakPower are incremental (over idle) W; Energy is
	// the total energy in J, idle included.
	AvgPower, PeakPower, Energy float64
	// Utilization is the busy fraction of the node's threads.
	Utilization float64
	Events      int64 // task-end events processed
	Ticks       int64 // scheduling points (policy calls)
}

// TaskError reports a run that cannot finish.
type TaskError struct {
	Policy string
	Msg    string
}

func (e *TaskError) Error() string { return "task graph run with policy " + e.Policy + ": " + e.Msg }

// RunTasks executes w on node under policy pol.
//
// Scheduling points are the start and every instant at which tasks end:
// all ends at one instant are processed, their successors become ready in
// the order of the ends (ties by start order) and of successor ids, and
// then the policy is called once, if any task is pending. The run fails
// when the node is idle, tasks are pending and the policy starts none.
func RunTasks(w *TaskWorkload, node Node, pol TaskPolicy) (*TaskResult, error) {
	if node.Cores < 1 || node.Cores > MaxNodeCores {
		return nil, fmt.Errorf("task graph run: node has %d cores, want 1..%d (sim.MaxNodeCores)", node.Cores, MaxNodeCores)
	}
	if node.Cap < 0 || math.IsNaN(node.Cap) {
		return nil, fmt.Errorf("task graph run: power cap %g W is negative", node.Cap)
	}
	if !(node.IdleW >= 0) || math.IsInf(node.IdleW, 0) {
		return nil, fmt.Errorf("task graph run: idle power %g W is not a finite number ≥ 0", node.IdleW)
	}
	if err := pol.Start(w, node); err != nil {
		return nil, fmt.Errorf("policy %s: %w", pol.Name(), err)
	}
	run := newTaskRun(w, node, pol)
	for {
		if len(run.pending) > 0 {
			if err := run.schedule(); err != nil {
				return nil, err
			}
		}
		step(run.res, run.st.Now, run.st.Power)
		if !run.q.queued() {
			break
		}
		run.endNext()
	}
	return run.result()
}

// taskRun is the state of one RunTasks.
type taskRun struct {
	w         *TaskWorkload
	d         *taskgraph.DAG
	node      Node
	pol       TaskPolicy
	capNW     int64
	res       *TaskResult
	remaining []int32 // per task, predecessors not yet ended
	pending   []int32 // ready tasks in the order they became ready
	choice    []int32 // the policy's choices, one per pending task
	q         eventQueue
	seq       uint64
	st        TaskState
	busy      float64 // thread·ns
	done      int
}

// newTaskRun prepares a run with the tasks without predecessors pending.
func newTaskRun(w *TaskWorkload, node Node, pol TaskPolicy) *taskRun {
	d := w.DAG
	n := d.NumTasks()
	run := &taskRun{
		w: w, d: d, node: node, pol: pol, capNW: node.CapNW(),
		res: &TaskResult{
			Start:    make([]int64, n),
			End:      make([]int64, n),
			Config:   make([]int32, n),
			Timeline: make([]PowerStep, 0, n+2),
		},
		remaining: make([]int32, n),
		pending:   make([]int32, 0, n),
		choice:    make([]int32, n),
		st:        TaskState{IdleCores: node.Cores, NextEnd: -1},
	}
	for t := 0; t < n; t++ {
		run.remaining[t] = d.PredStart[t+1] - d.PredStart[t]
		run.res.Config[t] = -1
		if run.remaining[t] == 0 {
			run.pending = append(run.pending, int32(t))
		}
	}
	run.q.init(min(n, node.Cores) + 1) // at most one event per running task
	run.res.Timeline = append(run.res.Timeline, PowerStep{0, 0})
	return run
}

// schedule calls the policy once on the pending tasks and starts those it
// chose; it fails if a choice does not fit or if the node stays idle.
func (run *taskRun) schedule() error {
	st, pol, d := &run.st, run.pol, run.d
	st.NextEnd = -1
	if run.q.queued() {
		st.NextEnd = int64(run.q.peekTime())
	}
	ch := run.choice[:len(run.pending)]
	for i := range ch {
		ch[i] = -1
	}
	pol.Schedule(st, run.pending, ch)
	run.res.Ticks++
	started := 0
	keep := run.pending[:0]
	for i, t := range run.pending {
		if ch[i] < 0 {
			keep = append(keep, t)
			continue
		}
		if err := run.start(t, ch[i]); err != nil {
			return err
		}
		started++
	}
	run.pending = keep
	if started == 0 && st.Running == 0 {
		return &TaskError{pol.Name(), fmt.Sprintf("at %d ns the node is idle and %d task(s) are pending (first %s), but the policy starts none: does the cap allow any configuration?",
			st.Now, len(run.pending), d.Label(run.pending[0]))}
	}
	run.res.PeakPower = max(run.res.PeakPower, st.Power)
	return nil
}

// start starts task t in configuration c now and queues its end.
func (run *taskRun) start(t, c int32) error {
	st, res, d, pol := &run.st, run.res, run.d, run.pol
	cs := run.w.Configs[d.Kernel[t]]
	if int(c) >= len(cs) {
		return &TaskError{pol.Name(), fmt.Sprintf("chose configuration %d of %d for task %d (%s)", c, len(cs), t, d.Label(t))}
	}
	cf := cs[c]
	if int(cf.Threads) > st.IdleCores || cf.PowerNW > run.capNW-st.PowerNW {
		return &TaskError{pol.Name(), fmt.Sprintf("at %d ns started task %d (%s) with %d threads and %g W with %d threads idle and %g W in use: over the node's %d threads or %g W cap",
			st.Now, t, d.Label(t), cf.Threads, cf.Power, st.IdleCores, st.Power, run.node.Cores, run.node.Cap)}
	}
	st.IdleCores -= int(cf.Threads)
	st.PowerNW += cf.PowerNW
	st.Power = float64(st.PowerNW) / 1e9
	st.Running++
	res.Start[t] = st.Now
	res.End[t] = st.Now + cf.Time // both ≤ MaxTimeNs: no overflow
	if res.End[t] > graph.MaxTimeNs {
		return &TaskError{pol.Name(), fmt.Sprintf("task %d (%s) started at %d ns would end at %d ns, past %d ns (graph.MaxTimeNs, about 31.7 years)",
			t, d.Label(t), st.Now, res.End[t], graph.MaxTimeNs)}
	}
	res.Config[t] = c
	run.busy += float64(cf.Threads) * float64(cf.Time)
	run.q.push(event{time: uint64(res.End[t]), seq: run.seq, op: t})
	run.seq++
	return nil
}

// endNext advances to the next instant a task ends and processes every
// end at that instant: resources are freed and successors whose last
// predecessor ended become pending.
func (run *taskRun) endNext() {
	st, q, d := &run.st, &run.q, run.d
	st.Now = int64(q.peekTime())
	for q.queued() && int64(q.peekTime()) == st.Now {
		ev := q.pop()
		run.res.Events++
		t := ev.op
		cf := run.w.Configs[d.Kernel[t]][run.res.Config[t]]
		st.IdleCores += int(cf.Threads)
		st.PowerNW -= cf.PowerNW
		st.Power = float64(st.PowerNW) / 1e9
		st.Running--
		run.done++
		for _, s := range d.Successors(t) {
			run.remaining[s]--
			if run.remaining[s] == 0 {
				run.pending = append(run.pending, s)
			}
		}
	}
}

// result checks that every task ran and fills the makespan, power and
// energy figures.
func (run *taskRun) result() (*TaskResult, error) {
	res, n := run.res, run.d.NumTasks()
	if run.done != n {
		return nil, &TaskError{run.pol.Name(), fmt.Sprintf("%d of %d tasks never ran", n-run.done, n)}
	}
	res.Makespan = run.st.Now
	var energy float64 // W·ns over idle
	for i, s := range res.Timeline[:len(res.Timeline)-1] {
		energy += s.Power * float64(res.Timeline[i+1].Time-s.Time)
	}
	if res.Makespan > 0 {
		res.AvgPower = energy / float64(res.Makespan)
		res.Utilization = run.busy / (float64(run.node.Cores) * float64(res.Makespan))
	}
	res.Energy = (energy + run.node.IdleW*float64(res.Makespan)) / 1e9
	return res, nil
}

// step records the power at time t, merging steps at one instant and
// steps that do not change the power.
func step(res *TaskResult, t int64, p float64) {
	tl := res.Timeline
	last := &tl[len(tl)-1]
	if last.Time == t {
		last.Power = p
		if len(tl) >= 2 && tl[len(tl)-2].Power == p {
			res.Timeline = tl[:len(tl)-1]
		}
		return
	}
	if last.Power == p {
		return
	}
	res.Timeline = append(tl, PowerStep{t, p})
}
