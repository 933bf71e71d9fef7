package scenarios

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/frontier"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/sim/critpath"
	"github.com/capsim/capsim/traces/graph"
)

// The phase-based policies (conductor, steering, dct-dvfs) on an
// execution graph (a Chakra trace, a GOAL file, an Arrow graph).
//
// A rank's phases are its runs of calc operations between two runs of
// communication operations (sends and receives, into which collectives
// are lowered), in the rank's operation order: what the MPI policies
// call the computation between two MPI calls. A rank's power units are
// its CPUs (the engine runs one operation at a time on each): CPU 0 is
// its host core, and so is every other CPU on a machine without
// [machine.gpu]; with one, CPUs other than 0 are the GPU's streams. A
// phase's work on one unit is a task; a configuration is a P-state for a
// core's task and one of the GPU's allowed clocks for a stream's, priced
// by the models a sweep's static point replays with (the regions' DVFS
// rows; the GPU's memory-bound share and recorded clock). A task's power
// is what its unit adds above the floor the job cap already holds
// (lpBaseW): the P-state's power of the task's busiest region on a
// core, the clock's power above the GPU's idle power on a stream (the
// power accountant adds the kernels a GPU's streams run at once). A unit
// never draws more than its running task's power, or its last task's
// while it waits, so a schedule whose units' task powers sum to at most
// the cap less lpBaseW keeps the job under the cap at every instant. A
// task of fences alone (operations of size 0) draws nothing: the
// accountant charges no power for them.

// graphPhases are an execution graph's tasks for the phase-based
// policies.
type graphPhases struct {
	g        *graph.Graph
	gpu      bool        // the machine has a GPU: CPUs other than 0 are its streams
	tasks    []graphTask // by rank, then phase
	phases   []int       // per rank: its number of phases
	taskOf   []int32     // per operation: its task (−1: a communication operation)
	unitRank []int       // per unit: its rank (units are numbered rank by rank)
	unitGPU  []bool      // per unit: a GPU stream
	unitWork []bool      // per unit: some task of it has work (an operation of positive size)
}

// graphTask is a rank's work in one phase on one unit.
type graphTask struct {
	rank, phase, unit int
	onGPU             bool
	work              bool    // some operation has a positive size: fences alone draw nothing
	ops               []int32 // its calc operations, in graph order
}

// unit is the power unit task t runs on.
func (gp *graphPhases) unit(t *graphTask) int { return t.unit }

// units is the number of power units.
func (gp *graphPhases) units() int { return len(gp.unitRank) }

// splitGraph splits g into its tasks; gpu says whether the machine has a
// GPU that runs the operations of CPUs other than 0.
func splitGraph(g *graph.Graph, gpu bool) *graphPhases {
	gp := &graphPhases{g: g, gpu: gpu, phases: make([]int, g.NumRanks()), taskOf: make([]int32, g.NumOps())}
	for r := range g.NumRanks() {
		unitOf := map[uint8]int{} // the rank's units by CPU, in order of first use
		phase, started, afterComm := 0, false, false
		cur := map[uint8]int{} // the phase's task per CPU
		for op := g.RankStart[r]; op < g.RankStart[r+1]; op++ {
			gp.taskOf[op] = -1
			if g.Kind[op] != graph.Calc {
				afterComm = true
				continue
			}
			if afterComm && started {
				phase++
				clear(cur)
			}
			started, afterComm = true, false
			cpu := g.CPU[op]
			u, ok := unitOf[cpu]
			if !ok {
				u = len(gp.unitRank)
				unitOf[cpu] = u
				gp.unitRank = append(gp.unitRank, r)
				gp.unitGPU = append(gp.unitGPU, gpu && cpu != 0)
				gp.unitWork = append(gp.unitWork, false)
			}
			i, ok := cur[cpu]
			if !ok {
				i = len(gp.tasks)
				cur[cpu] = i
				gp.tasks = append(gp.tasks, graphTask{rank: r, phase: phase, unit: u, onGPU: gp.unitGPU[u]})
			}
			gp.tasks[i].ops = append(gp.tasks[i].ops, op)
			gp.taskOf[op] = int32(i)
			if g.Size[op] > 0 {
				gp.tasks[i].work, gp.unitWork[u] = true, true
			}
		}
		if started {
			gp.phases[r] = phase + 1
		}
	}
	return gp
}

// graphMachine is what a machine offers the tasks of an execution graph:
// each unit kind's configurations, fastest first.
type graphMachine struct {
	m  *Machine
	sp *speeds
}

// newGraphMachine prices g's regions on machine m. The phase-based
// policies run every host operation on the cores: a machine with
// [machine.accelerator] entries is refused.
func (sc *Scenario) newGraphMachine(g *graph.Graph, m *Machine) (*graphMachine, error) {
	if len(m.Accelerators) > 0 {
		return nil, fmt.Errorf("machine %s: the phase-based policies on an execution graph run host operations on the cores; drop its [machine.accelerator] entries or use static", m.Name)
	}
	sp, err := sc.speedsOf(m, g.Regions)
	if err != nil {
		return nil, err
	}
	return &graphMachine{m: m, sp: sp}, nil
}

// configs is the number of configurations of a core's (gpu false) or a
// GPU's task.
func (gm *graphMachine) configs(gpu bool) int {
	if gpu {
		return len(gm.m.GPU.Allowed())
	}
	return len(gm.m.PStates)
}

// opNs is calc operation op's duration at configuration k of its unit.
func (gm *graphMachine) opNs(g *graph.Graph, op int32, gpu bool, k int) int64 {
	if gpu {
		return graph.SatNs(float64(g.Size[op]) * gm.m.GPU.Model().Ratio(gm.m.GPU.Allowed()[k].MHz) * gm.m.SpeedFactor)
	}
	x := gm.sp.cpuRatio[k][g.Region[op]+1]
	if math.IsNaN(x) {
		return g.Size[op]
	}
	return graph.SatNs(float64(g.Size[op]) * x)
}

// opW is what calc operation op draws at configuration k of its unit,
// absolute (a GPU's clock power, idle included).
func (gm *graphMachine) opW(g *graph.Graph, op int32, gpu bool, k int) float64 {
	if gpu {
		return gm.m.GPU.Allowed()[k].PowerW
	}
	return gm.sp.cpuWatts[k][g.Region[op]+1]
}

// taskW is task t's power at configuration k above what the job cap
// already holds (see the comment at the top of the file).
func (gm *graphMachine) taskW(gp *graphPhases, t *graphTask, k int) float64 {
	if !t.work {
		return 0
	}
	if t.onGPU {
		return gm.m.GPU.Allowed()[k].PowerW - gm.m.GPU.IdleW
	}
	var w float64
	for _, op := range t.ops {
		w = math.Max(w, gm.opW(gp.g, op, false, k))
	}
	return w
}

// graphRun is one replay of the tasks at chosen configurations.
type graphRun struct {
	met        Metrics
	start, end []int64 // per task: its first operation's start, its last's end (ns)
	makespan   int64
	onPath     []bool // per task: on the critical path (when asked for)
	opts       sim.Options
	net        network.LogGOPS
	// what the replay recorded, for a point's detail
	acct  *power.Accountant
	model power.JobModel
	res   *sim.Result
}

// opTimes records every calc operation's start and end.
type opTimes struct{ start, end []int64 }

func (o *opTimes) Busy(op int32, start, end int64)               { o.start[op], o.end[op] = start, end }
func (o *opTimes) Message(send, recv int32, sent, matched int64) {}

// replayPhaseTasks replays gp's graph with task i at configuration cfg[i] of
// its unit and its first operation of positive size extraNs[i] longer
// (nil: none) on
// machine gm.m under the sweep cap capW (the job's, or per node under
// cap_scope "node"), messages priced by net and cls; path also finds the
// critical path's tasks.
func (sc *Scenario) replayPhaseTasks(gp *graphPhases, gm *graphMachine, net network.LogGOPS, cls *network.Classes, capW float64, cfg []int, extraNs []int64, path bool) (*graphRun, error) {
	g, m := gp.g, gm.m
	if err := m.FitGraph(g, false); err != nil {
		return nil, err
	}
	nodeCapW := 0.0
	if sc.Sweep.CapScope == CapScopeNode {
		nodeCapW = capW
	}
	jobCapW := sc.JobCap(m, capW)
	plan := newTaskPlan(g)
	for i := range gp.tasks {
		t := &gp.tasks[i]
		charged := extraNs == nil || extraNs[i] == 0
		for _, op := range t.ops {
			plan.dur[op] = gm.opNs(g, op, t.onGPU, cfg[i])
			if !charged && g.Size[op] > 0 { // the task's first work, not a fence
				plan.dur[op] = min(graph.MaxTimeNs, plan.dur[op]+extraNs[i])
				charged = true
			}
			plan.w[op] = gm.opW(g, op, t.onGPU, cfg[i])
		}
	}
	fl, err := sc.flowNetwork(m, g.NumRanks())
	if err != nil {
		return nil, err
	}
	acct := power.NewAccountant(g)
	ranks := g.NumRanks()
	if gp.gpu {
		acct.OnDevice(ranks, onGPU(g))
	}
	times := &opTimes{start: make([]int64, g.NumOps()), end: make([]int64, g.NumOps())}
	opts := sim.Options{Pricer: plan, Classes: cls, Flow: fl}
	run := opts
	run.Observer = teeObserver{acct, times}
	var res *sim.Result
	out := &graphRun{opts: opts, net: net}
	if path {
		var p *critpath.Path
		if res, p, err = critpath.Run(g, net, run); err != nil {
			return nil, err
		}
		out.onPath = make([]bool, len(gp.tasks))
		for _, s := range p.Segments {
			if s.Kind == critpath.Compute && s.Op >= 0 {
				if i := gp.taskOf[s.Op]; i >= 0 {
					out.onPath[i] = true
				}
			}
		}
	} else if res, err = sim.Run(g, net, run); err != nil {
		return nil, err
	}
	active := make([]float64, ranks)
	for r := range active {
		active[r] = m.PStates[0].ActivePowerW
	}
	jm := power.JobModel{BaseW: m.BaseW(), IdleW: m.CoreIdlePowerW, ActiveW: active, OpW: plan.w, Wait: m.WaitPower}
	if gp.gpu {
		jm.DeviceIdleW = m.deviceIdleW()
	}
	if out.met, err = sc.powerMetrics(acct, jm, res.Makespan, jobCapW, nodeCapW, m); err != nil {
		return nil, err
	}
	out.makespan, out.acct, out.model, out.res = res.Makespan, acct, jm, res
	out.start, out.end = make([]int64, len(gp.tasks)), make([]int64, len(gp.tasks))
	for i := range gp.tasks {
		s, e := int64(math.MaxInt64), int64(0)
		for _, op := range gp.tasks[i].ops {
			s, e = min(s, times.start[op]), max(e, times.end[op])
		}
		out.start[i], out.end[i] = s, max(s, e)
	}
	return out, nil
}

// taskPlan prices every calc operation with a fixed duration (a
// sim.CalcPricer) and holds its power.
type taskPlan struct {
	dur []int64
	w   []float64
}

func newTaskPlan(g *graph.Graph) *taskPlan {
	p := &taskPlan{dur: make([]int64, g.NumOps()), w: make([]float64, g.NumOps())}
	copy(p.dur, g.Size)
	return p
}

// CalcDuration implements sim.CalcPricer.
func (p *taskPlan) CalcDuration(op int32, start int64) int64 { return p.dur[op] }

// explored is what the configuration exploration measured: per task, its
// time (s) at each configuration of its unit, and the least gap (s) to
// its unit's next task seen in any of the exploration's replays.
type explored struct {
	sec    [][]float64
	minGap []float64
}

// explore replays gp with every task at its unit's k-th configuration for
// every k (the configuration exploration of Conductor, Marathe et al.,
// ISC'15, §4, done by replay: every configuration measured on every
// task), and returns what it measured.
func (sc *Scenario) explore(gp *graphPhases, gm *graphMachine, net network.LogGOPS, cls *network.Classes, capW float64) (*explored, error) {
	n := len(gp.tasks)
	ex := &explored{sec: make([][]float64, n), minGap: make([]float64, n)}
	kmax := gm.configs(false)
	if gp.gpu {
		kmax = max(kmax, gm.configs(true))
	}
	cfg := make([]int, n)
	for k := range kmax {
		for i := range gp.tasks {
			cfg[i] = min(k, gm.configs(gp.tasks[i].onGPU)-1)
		}
		run, err := sc.replayPhaseTasks(gp, gm, net, cls, capW, cfg, nil, false)
		if err != nil {
			return nil, err
		}
		next := gp.nextStarts(run)
		for i := range gp.tasks {
			if k == 0 {
				ex.sec[i] = make([]float64, gm.configs(gp.tasks[i].onGPU))
				ex.minGap[i] = math.Inf(1)
			}
			if k < len(ex.sec[i]) {
				ex.sec[i][k] = math.Max(1e-12, float64(run.end[i]-run.start[i])/1e9)
			}
			ex.minGap[i] = math.Min(ex.minGap[i], math.Max(0, float64(next[i]-run.end[i])/1e9))
		}
	}
	return ex, nil
}

// nextStarts returns, per task, when its unit's next task started in run
// (the makespan for a unit's last task).
func (gp *graphPhases) nextStarts(run *graphRun) []int64 {
	next := make([]int64, len(gp.tasks))
	last := make([]int, gp.units())
	for u := range last {
		last[u] = -1
	}
	for i := range gp.tasks {
		next[i] = run.makespan
		u := gp.unit(&gp.tasks[i])
		if j := last[u]; j >= 0 {
			next[j] = run.start[i]
		}
		last[u] = i
	}
	return next
}

// hull is task i's configurations as measured, fastest first, with the
// slower ones that do not draw less dropped; index maps a hull point to
// the unit's configuration.
func (gm *graphMachine) hull(gp *graphPhases, ex *explored, i int) (h []frontier.Config, index []int) {
	t := &gp.tasks[i]
	for k, sec := range ex.sec[i] {
		w := gm.taskW(gp, t, k)
		if len(h) > 0 && w >= h[len(h)-1].Power {
			continue
		}
		for len(h) > 0 && sec <= h[len(h)-1].Time { // no slower for less: the earlier point is dominated
			h, index = h[:len(h)-1], index[:len(index)-1]
		}
		h, index = append(h, frontier.Config{Time: sec, Power: w}), append(index, k)
	}
	return h, index
}
