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
	d := w.DAG
	n := d.NumTasks()
	if node.Cores < 1 {
		return nil, fmt.Errorf("task graph run: node needs at least 1 core, has %d", node.Cores)
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
	capNW := node.CapNW()
	res := &TaskResult{
		Start:    make([]int64, n),
		End:      make([]int64, n),
		Config:   make([]int32, n),
		Timeline: make([]PowerStep, 0, n+2),
	}
	remaining := make([]int32, n)
	pending := make([]int32, 0, n)
	choice := make([]int32, n)
	for t := 0; t < n; t++ {
		remaining[t] = d.PredStart[t+1] - d.PredStart[t]
		res.Config[t] = -1
		if remaining[t] == 0 {
			pending = append(pending, int32(t))
		}
	}
	var q eventQueue
	q.init(min(n, node.Cores) + 1) // at most one event per running task
	var seq uint64
	st := TaskState{IdleCores: node.Cores, NextEnd: -1}
	var busy float64 // thread·ns
	done := 0
	res.Timeline = append(res.Timeline, PowerStep{0, 0})
	for {
		if len(pending) > 0 {
			st.NextEnd = -1
			if q.queued() {
				st.NextEnd = int64(q.peekTime())
			}
			ch := choice[:len(pending)]
			for i := range ch {
				ch[i] = -1
			}
			pol.Schedule(&st, pending, ch)
			res.Ticks++
			started := 0
			keep := pending[:0]
			for i, t := range pending {
				c := ch[i]
				if c < 0 {
					keep = append(keep, t)
					continue
				}
				cs := w.Configs[d.Kernel[t]]
				if int(c) >= len(cs) {
					return nil, &TaskError{pol.Name(), fmt.Sprintf("chose configuration %d of %d for task %d (%s)", c, len(cs), t, d.Label(t))}
				}
				cf := cs[c]
				if int(cf.Threads) > st.IdleCores || cf.PowerNW > capNW-st.PowerNW {
					return nil, &TaskError{pol.Name(), fmt.Sprintf("at %d ns started task %d (%s) with %d threads and %g W with %d threads idle and %g W in use: over the node's %d threads or %g W cap",
						st.Now, t, d.Label(t), cf.Threads, cf.Power, st.IdleCores, st.Power, node.Cores, node.Cap)}
				}
				st.IdleCores -= int(cf.Threads)
				st.PowerNW += cf.PowerNW
				st.Power = float64(st.PowerNW) / 1e9
				st.Running++
				res.Start[t] = st.Now
				res.End[t] = st.Now + cf.Time // both ≤ MaxTimeNs: no overflow
				if res.End[t] > graph.MaxTimeNs {
					return nil, &TaskError{pol.Name(), fmt.Sprintf("task %d (%s) started at %d ns would end at %d ns, past %d ns (graph.MaxTimeNs, about 31.7 years)",
						t, d.Label(t), st.Now, res.End[t], graph.MaxTimeNs)}
				}
				res.Config[t] = c
				busy += float64(cf.Threads) * float64(cf.Time)
				q.push(event{time: uint64(res.End[t]), seq: seq, op: t})
				seq++
				started++
			}
			pending = keep
			if started == 0 && st.Running == 0 {
				return nil, &TaskError{pol.Name(), fmt.Sprintf("at %d ns the node is idle and %d task(s) are pending (first %s), but the policy starts none: does the cap allow any configuration?",
					st.Now, len(pending), d.Label(pending[0]))}
			}
			res.PeakPower = max(res.PeakPower, st.Power)
		}
		step(res, st.Now, st.Power)
		if !q.queued() {
			break
		}
		// Process every task end at the next instant.
		st.Now = int64(q.peekTime())
		for q.queued() && int64(q.peekTime()) == st.Now {
			ev := q.pop()
			res.Events++
			t := ev.op
			cf := w.Configs[d.Kernel[t]][res.Config[t]]
			st.IdleCores += int(cf.Threads)
			st.PowerNW -= cf.PowerNW
			st.Power = float64(st.PowerNW) / 1e9
			st.Running--
			done++
			for _, s := range d.Successors(t) {
				remaining[s]--
				if remaining[s] == 0 {
					pending = append(pending, s)
				}
			}
		}
	}
	if done != n {
		return nil, &TaskError{pol.Name(), fmt.Sprintf("%d of %d tasks never ran", n-done, n)}
	}
	res.Makespan = st.Now
	var energy float64 // W·ns over idle
	for i, s := range res.Timeline[:len(res.Timeline)-1] {
		energy += s.Power * float64(res.Timeline[i+1].Time-s.Time)
	}
	if res.Makespan > 0 {
		res.AvgPower = energy / float64(res.Makespan)
		res.Utilization = busy / (float64(node.Cores) * float64(res.Makespan))
	}
	res.Energy = (energy + node.IdleW*float64(res.Makespan)) / 1e9
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
