package power

// Replay power accounting. A job's power at any instant is a constant base
// (sockets idle, uncore) plus, per rank, the power its WaitPower model
// gives: a task's configuration power while the task runs (phase by phase
// for a task that switches configuration), idle power before the rank's
// first task, and the wait power between tasks and after the last one
// (WaitTask, as Bailey et al., SC'15, §3.3 charge slack; the sleeping
// cores of Anger's thesis, Georgia Tech 2016, §4.1 and of its Dynamic
// Power Steering, §5.1, are WaitIdle).

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/capsim/capsim/traces/graph"
)

// JobModel gives a job's power parameters for an Accountant.
type JobModel struct {
	// OpW, when set, gives per operation the power of its core while the
	// operation runs, overriding ActiveW for operations with a value > 0
	// (for schedules that choose a configuration per task).
	OpW []float64
	// OpPhases, when set, gives a task (calc operation) that switches
	// configuration its phases; they override OpW for the instantaneous
	// power while it runs, and its last phase is its power for the wait
	// after it.
	OpPhases [][]Phase
	// OpWaitW, when set, gives per operation the power that stands for
	// the task's own in the wait after it (WaitTask mode), overriding
	// the task's (last phase's) power for operations with a value > 0: a
	// task offloaded to a device draws the device's power while it runs,
	// but the device idles while its rank then waits in MPI, so the wait
	// draws the core's power in the task's configuration.
	OpWaitW []float64

	BaseW   float64   // constant power of the job's sockets and uncore
	IdleW   float64   // power of one idle core
	ActiveW []float64 // per rank: power of the rank's core in a task without OpW
	// Wait is what a rank draws between its tasks (default: the power of
	// its most recent task).
	Wait WaitPower
	// DeviceIdleW gives, per device an Accountant accounts apart from its
	// rank's core (Accountant.OnDevice: unit len(ActiveW)+k is device k),
	// what the device draws whenever it runs no task: before its first,
	// between its tasks and after its last, whatever Wait says. Its tasks
	// draw their OpW.
	DeviceIdleW []float64
}

// units is the number of power units of m: its ranks, then its devices.
func (m JobModel) units() int { return len(m.ActiveW) + len(m.DeviceIdleW) }

// unitIdle returns what unit u draws before its first task and the wait
// model between its tasks: the core's for a rank, the device's idle power
// for a device.
func (m JobModel) unitIdle(u int) (float64, WaitPower) {
	if k := u - len(m.ActiveW); k >= 0 {
		return m.DeviceIdleW[k], WaitPower{Mode: WaitIdle}
	}
	return m.IdleW, m.Wait
}

// Validate checks the model against a job of ranks ranks.
func (m JobModel) Validate(ranks int) error {
	if len(m.ActiveW) != ranks {
		return fmt.Errorf("power: %d active powers for %d ranks", len(m.ActiveW), ranks)
	}
	if m.BaseW < 0 || m.IdleW < 0 {
		return fmt.Errorf("power: negative base or idle power")
	}
	for r, w := range m.ActiveW {
		if w < 0 {
			return fmt.Errorf("power: rank %d active power %g is negative", r, w)
		}
	}
	for k, w := range m.DeviceIdleW {
		if !(w >= 0) || math.IsInf(w, 0) {
			return fmt.Errorf("power: device %d idle power %g W: want a finite number ≥ 0", k, w)
		}
	}
	return m.Wait.Validate()
}

type interval struct {
	start, end int64
	rank, op   int32
}

// Accountant records when each rank is busy during a replay. It is a
// sim.Observer: pass it in sim.Options.
type Accountant struct {
	rank []int32 // per op: its power unit (its rank, or ranks+rank on its device)
	calc []bool  // per op: a task (calc operation)
	busy []interval
	// ranks is the rank count OnDevice numbered devices from (0: none).
	ranks int32
}

// NewAccountant returns an Accountant for replays of g.
func NewAccountant(g *graph.Graph) *Accountant {
	calc := make([]bool, g.NumOps())
	for op, k := range g.Kind {
		calc[op] = k == graph.Calc
	}
	// An operation is busy once at most (sim.Observer), so one allocation
	// holds the replay's intervals.
	return &Accountant{rank: g.OpRanks(), calc: calc, busy: make([]interval, 0, g.NumOps())}
}

// OnDevice accounts the operations for which onDev reports true on their
// rank's device instead of its core: operations of rank r on power unit
// ranks+r, where ranks is the job model's (len(JobModel.ActiveW)), so that
// JobModel.DeviceIdleW gives the device's idle power and its tasks do not
// stand for the core's in the core's waits. Call it before the replay.
func (a *Accountant) OnDevice(ranksN int, onDev func(op int32) bool) {
	ranks := int32(ranksN)
	a.ranks = ranks
	for op := range a.rank {
		if onDev(int32(op)) && a.rank[op] < ranks {
			a.rank[op] += ranks
		}
	}
}

// Busy records that op kept its rank busy from start to end.
func (a *Accountant) Busy(op int32, start, end int64) {
	if end > start {
		a.busy = append(a.busy, interval{start, end, a.rank[op], op})
	}
}

// Message is part of sim.Observer; messages cost no core power of their own.
func (a *Accountant) Message(send, recv int32, sent, matched int64) {}

// Report is the power and energy of a replay.
type Report struct {
	EnergyJ   float64 // total
	IdleJ     float64 // base and idle-core power over the whole run
	DynamicJ  float64 // the rest: what ranks draw above their idle cores
	AvgW      float64
	PeakW     float64
	OverCapNs int64 // time spent above the cap at any instant (0 when no cap is given)
}

// AvgW is the average power of a run of energyJ over makespan ns whose
// instantaneous power peaks at peakW: energyJ/makespan, and for a run of
// 0 ns, whose average is undefined, the power it draws at its one
// instant, peakW (the idle floor of a run where nothing runs), so that
// its average never falls below its floor nor is NaN.
func AvgW(energyJ float64, makespan int64, peakW float64) float64 {
	if makespan <= 0 {
		return peakW
	}
	return energyJ / (float64(makespan) / 1e9)
}

// Report computes the energy over [0, makespan] and the power profile; cap
// (W) is the power cap to check, 0 for none. Peak and over-cap time come
// from the instantaneous power (phases included), not task averages.
func (a *Accountant) Report(m JobModel, makespan int64, capW float64) (Report, error) {
	ranks, err := a.curves(m, makespan)
	if err != nil {
		return Report{}, err
	}
	return report(ranks, m, makespan, capW), nil
}

// report is Report from the units' curves (Accountant.curves).
func report(ranks []Step, m JobModel, makespan int64, capW float64) Report {
	var rep Report
	T := float64(makespan) / 1e9
	rep.IdleJ = (m.BaseW + float64(len(m.ActiveW))*m.IdleW) * T
	for _, w := range m.DeviceIdleW {
		rep.IdleJ += w * T
	}
	rep.EnergyJ = m.BaseW * T
	for _, s := range ranks {
		rep.EnergyJ += s.Energy()
	}
	rep.DynamicJ = rep.EnergyJ - rep.IdleJ
	sum(ranks, m.BaseW, makespan).segments(func(from, to int64, w float64) {
		rep.PeakW = max(rep.PeakW, w)
		if capW > 0 && w > capW+1e-9 {
			rep.OverCapNs += to - from
		}
	})
	rep.AvgW = AvgW(rep.EnergyJ, makespan, rep.PeakW)
	return rep
}

func (m JobModel) active(iv interval) float64 {
	if int(iv.op) < len(m.OpW) && m.OpW[iv.op] > 0 {
		return m.OpW[iv.op]
	}
	if int(iv.rank) >= len(m.ActiveW) {
		return 0 // a device task without a power of its own
	}
	return m.ActiveW[iv.rank]
}

// waitAfter is the power that stands for op's own in the wait after it:
// OpWaitW's where set, else w, the power op ended at.
func (m JobModel) waitAfter(op int32, w float64) float64 {
	if int(op) < len(m.OpWaitW) && m.OpWaitW[op] > 0 {
		return m.OpWaitW[op]
	}
	return w
}

// edge is a change of a rank's power: dw while n more tasks run; a task's
// final end (op ≥ 0) sets the power the rank waits at, last.
type edge struct {
	t    int64
	dw   float64
	n    int
	op   int32
	last float64
}

// curves returns every rank's power over [0, makespan] under m (base power
// excluded; see WaitPower). Tasks of one rank that overlap (several CPUs)
// add up.
func (a *Accountant) curves(m JobModel, makespan int64) ([]Step, error) {
	if err := m.Wait.Validate(); err != nil {
		return nil, err
	}
	per, err := a.edges(m, makespan)
	if err != nil {
		return nil, err
	}
	out := make([]Step, len(per))
	for r, ev := range per {
		idle, wait := m.unitIdle(r)
		out[r] = rankCurve(ev, idle, wait, makespan)
	}
	return out, nil
}

// edges returns each rank's power edges under m: a rise and a fall per
// computation, or per phase of a computation with phases; MPI calls and
// their overheads have none (they draw the wait power).
func (a *Accountant) edges(m JobModel, makespan int64) ([][]edge, error) {
	n := m.units()
	// Each rank's edges in one allocation: two per task, or two per phase.
	count := make([]int, n)
	for _, iv := range a.busy {
		if int(iv.rank) >= n {
			return nil, fmt.Errorf("power: rank %d has no active power", iv.rank)
		}
		if iv.end > makespan {
			return nil, fmt.Errorf("power: rank %d busy until %d ns, after the makespan %d ns", iv.rank, iv.end, makespan)
		}
		if !a.calc[iv.op] {
			continue // MPI calls and their overheads draw the wait power
		}
		k := 1
		if int(iv.op) < len(m.OpPhases) {
			k = max(k, len(m.OpPhases[iv.op]))
		}
		count[iv.rank] += 2 * k
	}
	total := 0
	for _, c := range count {
		total += c
	}
	all := make([]edge, 0, total)
	per := make([][]edge, n)
	for r, c := range count {
		per[r], all = all[:0:c], all[c:c]
	}
	for _, iv := range a.busy {
		if !a.calc[iv.op] {
			continue
		}
		e := per[iv.rank]
		var ph []Phase
		if int(iv.op) < len(m.OpPhases) {
			ph = m.OpPhases[iv.op]
		}
		if len(ph) == 0 {
			w := m.active(iv)
			e = append(e, edge{iv.start, w, 1, -1, 0}, edge{iv.end, -w, -1, iv.op, m.waitAfter(iv.op, w)})
		} else {
			cur := iv.start
			for j, p := range ph {
				end := cur + p.Ns
				if j == len(ph)-1 || end > iv.end {
					end = iv.end
				}
				if end <= cur {
					continue
				}
				e = append(e, edge{cur, p.Watts, 1, -1, 0}, edge{end, -p.Watts, -1, -1, 0})
				if end == iv.end {
					e[len(e)-1].op, e[len(e)-1].last = iv.op, m.waitAfter(iv.op, p.Watts)
					break
				}
				cur = end
			}
		}
		per[iv.rank] = e
	}
	return per, nil
}

// rankCurve turns one unit's edges into its power over [0, makespan]:
// the summed power of its running computations, and while none runs the
// wait power after its first computation (idle power before it), with
// equal neighbours merged.
func rankCurve(ev []edge, idle float64, wait WaitPower, makespan int64) Step {
	// slices.SortFunc runs the same pattern-defeating quicksort as
	// sort.Slice, without its reflection: equal edges end in the same
	// order, so their powers add up in the same order.
	slices.SortFunc(ev, func(a, b edge) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.op, b.op)
	})
	s := Step{Times: []int64{0}, Watts: []float64{idle}, End: makespan}
	var sum, lastW float64
	running, seen := 0, false
	for k := 0; k < len(ev); {
		t := ev[k].t
		for ; k < len(ev) && ev[k].t == t; k++ {
			sum += ev[k].dw
			running += ev[k].n
			if ev[k].op >= 0 {
				seen, lastW = true, ev[k].last
			}
		}
		var w float64
		switch {
		case running > 0:
			w = sum
		case seen:
			sum, w = 0, wait.Power(lastW, idle)
		default:
			sum, w = 0, idle
		}
		last := len(s.Times) - 1
		switch {
		case t == s.Times[last]:
			s.Watts[last] = w
		case t < makespan:
			s.Times = append(s.Times, t)
			s.Watts = append(s.Watts, w)
		}
	}
	// Merge equal neighbours (a task starting where one ends at the
	// same power).
	j := 0
	for i := 1; i < len(s.Times); i++ {
		if s.Watts[i] == s.Watts[j] {
			continue
		}
		j++
		s.Times[j], s.Watts[j] = s.Times[i], s.Watts[i]
	}
	s.Times, s.Watts = s.Times[:j+1], s.Watts[:j+1]
	return s
}

// sum adds rank curves and a base power into the job's curve over
// [0, end), merging equal neighbours.
func sum(ranks []Step, baseW float64, end int64) Step {
	type delta struct {
		t  int64
		dw float64
	}
	var ds []delta
	w := baseW
	for _, s := range ranks {
		for i, t := range s.Times {
			if i == 0 {
				w += s.Watts[0] // every curve starts at 0
				continue
			}
			ds = append(ds, delta{t, s.Watts[i] - s.Watts[i-1]})
		}
	}
	slices.SortFunc(ds, func(a, b delta) int { return cmp.Compare(a.t, b.t) }) // as rankCurve's
	out := Step{Times: []int64{0}, Watts: []float64{w}, End: end}
	for k := 0; k < len(ds); {
		t := ds[k].t
		for ; k < len(ds) && ds[k].t == t; k++ {
			w += ds[k].dw
		}
		if t >= end {
			break
		}
		if last := len(out.Times) - 1; out.Times[last] == t {
			out.Watts[last] = w
		} else {
			out.Times = append(out.Times, t)
			out.Watts = append(out.Watts, w)
		}
	}
	return out
}

// JobCurve returns the job's power over [0, makespan] under m as a step
// function: the base power plus every rank's (see WaitPower).
func (a *Accountant) JobCurve(m JobModel, makespan int64) (Step, error) {
	if err := m.Validate(len(m.ActiveW)); err != nil {
		return Step{}, err
	}
	ranks, err := a.curves(m, makespan)
	if err != nil {
		return Step{}, err
	}
	return sum(ranks, m.BaseW, makespan), nil
}

// Profile returns the job power as a step function: power[i] holds from
// times[i] until times[i+1] (or the end of the run, taken as the end of
// the last recorded busy interval).
func (a *Accountant) Profile(m JobModel) (times []int64, watts []float64) {
	var end int64
	for _, iv := range a.busy {
		end = max(end, iv.end)
	}
	end++ // so the curves show the last task's end
	ranks, err := a.curves(m, end)
	if err != nil {
		w := m.BaseW + float64(len(m.ActiveW))*m.IdleW
		for _, d := range m.DeviceIdleW {
			w += d
		}
		return []int64{0}, []float64{w}
	}
	job := sum(ranks, m.BaseW, end)
	return job.Times, job.Watts
}

// BusySpan is one busy interval an Accountant recorded: operation Op of
// rank Rank kept its rank's core, or its device (OnDevice), busy from
// Start to End (ns).
type BusySpan struct {
	Op, Rank   int32
	Start, End int64
	Device     bool
}

// Spans returns the recorded busy intervals in the order the engine
// reported them.
func (a *Accountant) Spans() []BusySpan {
	out := make([]BusySpan, len(a.busy))
	for i, iv := range a.busy {
		out[i] = BusySpan{Op: iv.op, Rank: iv.rank, Start: iv.start, End: iv.end}
		if a.ranks > 0 && iv.rank >= a.ranks {
			out[i].Rank, out[i].Device = iv.rank-a.ranks, true
		}
	}
	return out
}
