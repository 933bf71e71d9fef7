package scenarios

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// staggerRounds is how many times stagger shortens the faster stretch of
// the tasks it could not place before it runs them wholly at their slower
// point.
const staggerRounds = 6

// stagger replays the split schedule r within the cap at every instant
// where it can (bound.RoundStaggered).
//
// A task's duration does not depend on where within it its faster stretch
// lies, so the replay's timeline is known before the phases are placed:
// replay with every split task at its slower point's power throughout (the
// floor: the least the schedule can draw), then sweep time and decide at
// every instant which running split tasks are in their faster stretch, so
// that the floor plus their extra power (faster minus slower) stays within
// the cap: first the tasks that must (their remaining faster stretch fills
// what is left of the task), then those already fast (fewer switches),
// then by least laxity. A task's last nanosecond stays slower, so it waits
// after it at the slower point's power.
//
// A task that misses part of its faster stretch gets a shorter one (and
// takes longer) and the timeline is replayed again; after staggerRounds
// such rounds, a task that still misses runs wholly at its slower point
// (the power-safe choice). The replay that comes out is within the cap at
// every instant wherever the floor is.
//
// A split task on an accelerator that other ranks share (the LP's
// bound.Task.OnDevice) keeps its faster stretch first: the engine holds
// the device for the task's first stretch, and other ranks' calls queue
// behind it. On a device of its own rank (no OnDevice marks: a rank runs
// one task at a time, nothing queues), where its device stretch lies
// changes no time, so it is placed like a P-state's: the engine still
// holds the rank's device for the first stretch's length, which no other
// rank waits on. Extra switches cost no time: with
// bound.RoundOptions.SwitchS > 0 only one switch per task is charged
// (nor does a device stretch placed in pieces pay its setup or transfer
// latency again: the LP mixes the two points linearly).
func (sc *Scenario) stagger(g *graph.Graph, t *mpi.Trace, r *rounded, jobCapW float64, m *Machine, net network.LogGOPS) (Metrics, *taskRun, error) {
	met, run, _, err := sc.staggerRounds(g, t, r, jobCapW, m, net, false)
	return met, run, err
}

// staggerFits reports whether the split schedule r replays within the cap
// at every instant as it is: its floor stays within jobCapW and every
// split task's faster stretch can be placed in full (stagger's first
// round shortens none). The replay stagger would then give ends when the
// schedule does. It replays the floor once and does not replay the
// placement.
func (sc *Scenario) staggerFits(g *graph.Graph, t *mpi.Trace, r *rounded, jobCapW float64, m *Machine, net network.LogGOPS) (bool, error) {
	_, _, fits, err := sc.staggerRounds(g, t, r, jobCapW, m, net, true)
	return fits, err
}

// staggerRounds is stagger; it also reports whether its first round placed
// every faster stretch in full over a floor within the cap, and with probe
// set it returns that after the first round, without the final replay.
//
// A probe keeps its first round in r.first, so that stagger on the same
// schedule later goes on from there instead of replaying that round again:
// the floor replay and placement are the same, so is the outcome.
func (sc *Scenario) staggerRounds(g *graph.Graph, t *mpi.Trace, r *rounded, jobCapW float64, m *Machine, net network.LogGOPS, probe bool) (Metrics, *taskRun, bool, error) {
	n := len(r.ch)
	allow := make([]float64, n) // seconds at the faster point; −1: the choice's
	for i := range allow {
		allow[i] = -1
	}
	var fits bool
	first := 0
	if f := r.first; f != nil && !probe {
		r.first = nil
		fits = f.fits
		if f.placed != nil {
			met, run, err := sc.replaySchedule(g, t, r, f.placed, jobCapW, m, net)
			if err != nil {
				return Metrics{}, nil, false, fmt.Errorf("staggered rounding: %w", err)
			}
			return met, run, fits, nil
		}
		allow, first = f.allow, 1
	}
	for round := first; ; round++ {
		floor := make([][]power.Phase, n)
		var split []int
		for i := range floor {
			r.setFast(i, allow[i])
			floor[i] = r.phases[i]
			if len(r.phases[i]) == 2 && r.parts[i][0].sec >= 0 && !sharedDevice(r, i) {
				split = append(split, i)
				floor[i] = []power.Phase{{Ns: math.MaxInt64 / 4, Watts: r.phases[i][1].Watts}}
			}
		}
		_, run, err := sc.replaySchedule(g, t, r, floor, jobCapW, m, net)
		if err != nil {
			return Metrics{}, nil, false, err
		}
		start, end := make([]int64, g.NumOps()), make([]int64, g.NumOps())
		for _, s := range run.acct.Spans() {
			if g.Kind[s.Op] == graph.Calc {
				start[s.Op], end[s.Op] = s.Start, s.End
			}
		}
		jobs := make([]bound.FastJob, len(split))
		for k, i := range split {
			op := run.op[i]
			ph := r.phases[i]
			jobs[k] = bound.FastJob{Task: i, Start: start[op], End: end[op] - 1, Need: min(ph[0].Ns, end[op]-start[op]-1),
				DW: ph[0].Watts - ph[1].Watts}
		}
		over, err := sc.placeFast(run, r.d, jobs, jobCapW, m)
		if err != nil {
			return Metrics{}, nil, false, err
		}
		placed := append([][]power.Phase(nil), floor...)
		missed := false
		for _, j := range jobs {
			i := j.Task
			if j.Need > 0 { // missed part of its faster stretch
				missed = true
				h := r.d.Tasks[i].Hull
				got := float64(r.phases[i][0].Ns-j.Need) / 1e9
				if round >= staggerRounds || got <= 0 {
					got = 0
				}
				allow[i] = math.Min(got, r.ch[i].Frac*h[r.ch[i].Fast].Time)
				continue
			}
			fast, slow := r.phases[i][0].Watts, r.phases[i][1].Watts
			cur := j.Start
			var ph []power.Phase
			for _, p := range j.Pieces {
				if p[0] > cur {
					ph = append(ph, power.Phase{Ns: p[0] - cur, Watts: slow})
				}
				ph = append(ph, power.Phase{Ns: p[1] - p[0], Watts: fast})
				cur = p[1]
			}
			placed[i] = append(ph, power.Phase{Ns: math.MaxInt64 / 4, Watts: slow})
		}
		if round == 0 {
			fits = !missed && !over
			if probe {
				f := &staggerFirst{fits: fits}
				if missed {
					f.allow = allow
				} else {
					f.placed = placed
				}
				r.first = f
				return Metrics{}, nil, fits, nil
			}
		}
		if missed {
			continue
		}
		met, run, err := sc.replaySchedule(g, t, r, placed, jobCapW, m, net)
		if err != nil {
			return Metrics{}, nil, false, fmt.Errorf("staggered rounding: %w", err)
		}
		return met, run, fits, nil
	}
}

// placeFast places the faster stretches of jobs over the floor replay
// run (bound.PlaceFast) within sweep cap capW: against the job's power,
// or, where the caps are per node, each node's jobs against its node's
// power (a task's on its rank's node). It reports whether the floor
// itself goes over the cap somewhere.
func (sc *Scenario) placeFast(run *taskRun, d *bound.DAG, jobs []bound.FastJob, capW float64, m *Machine) (over bool, err error) {
	if !sc.nodeScope() {
		curve, err := run.acct.JobCurve(run.model, run.makespan)
		if err != nil {
			return false, err
		}
		bound.PlaceFast(curve, capW, jobs)
		return curve.Over(capW) > 0, nil
	}
	curves, err := run.acct.NodeCurves(run.model, run.makespan, m.nodeLayout(run.model))
	if err != nil {
		return false, err
	}
	byNode := make([][]bound.FastJob, m.Nodes)
	at := make([][]int, m.Nodes)
	for k, j := range jobs {
		n := d.Tasks[j.Task].Rank / m.RanksPerNode
		if n >= m.Nodes {
			return false, fmt.Errorf("task %d of rank %d: beyond the %d nodes of machine %s", j.Task, d.Tasks[j.Task].Rank, m.Nodes, m.Name)
		}
		byNode[n] = append(byNode[n], j)
		at[n] = append(at[n], k)
	}
	for n, c := range curves {
		bound.PlaceFast(c, capW, byNode[n])
		for x, k := range at[n] {
			jobs[k] = byNode[n][x]
		}
		over = over || c.Over(capW) > 0
	}
	return over, nil
}

// replaySchedule replays the schedule r (replayPlanned) with phases as the
// tasks' power phases, in r's scratch memory.
func (sc *Scenario) replaySchedule(g *graph.Graph, t *mpi.Trace, r *rounded, phases [][]power.Phase, jobCapW float64, m *Machine, net network.LogGOPS) (Metrics, *taskRun, error) {
	return sc.replayPlanned(g, t, r.d, r.times, r.powers, r.parts, phases, r.release, r.opRel, r.msgRel, jobCapW, m, net, r.scratch)
}

// staggerFirst is what stagger's first round left of a schedule that a
// probe (staggerFits) replayed: whether it fits, and either where every
// faster stretch went (none missed: the final replay's phases) or the
// faster stretches the second round allows (some missed).
type staggerFirst struct {
	fits   bool
	placed [][]power.Phase
	allow  []float64
}

// sharedDevice reports whether a part of task i runs on an accelerator
// that other ranks share (the LP marks its configurations on it,
// bound.Task.OnDevice), so that when it holds the device matters.
func sharedDevice(r *rounded, i int) bool {
	if r.d.Tasks[i].OnDevice == nil {
		return false
	}
	for _, p := range r.parts[i] {
		if isDeviceLabel(p.label) {
			return true
		}
	}
	return false
}
