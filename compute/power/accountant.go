package power

// Replay power accounting. A job's power at any instant is a constant base
// (sockets idle, uncore) plus, per rank, its core's active power while the
// rank computes or drives communication, and the core's idle power while it
// waits (the two-state core of Anger's thesis Ch. 4 and the sleeping cores
// of Dynamic Power Steering, note 001 §2.1–2.2 and §3.1).

import (
	"fmt"
	"sort"

	"github.com/capsim/capsim/traces/graph"
)

// JobModel gives a job's power parameters for an Accountant.
type JobModel struct {
	// OpW, when set, gives per operation the power of its core while the
	// operation runs, overriding ActiveW for operations with a value > 0
	// (for schedules that choose a configuration per task).
	OpW []float64

	BaseW   float64   // constant power of the job's sockets and uncore
	IdleW   float64   // power of one waiting core
	ActiveW []float64 // per rank: power of the rank's core while busy
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
	return nil
}

type interval struct {
	start, end int64
	rank, op   int32
}

// Accountant records when each rank is busy during a replay. It is a
// sim.Observer: pass it in sim.Options.
type Accountant struct {
	rank []int32
	busy []interval
}

// NewAccountant returns an Accountant for replays of g.
func NewAccountant(g *graph.Graph) *Accountant { return &Accountant{rank: g.OpRanks()} }

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
	IdleJ     float64 // base and waiting-core power over the whole run
	DynamicJ  float64 // the extra of busy cores over idle ones
	AvgW      float64
	PeakW     float64
	OverCapNs int64 // time spent above the cap (0 when no cap is given)
}

// Report computes the energy over [0, makespan] and the power profile; cap
// (W) is the power cap to check, 0 for none.
func (a *Accountant) Report(m JobModel, makespan int64, capW float64) (Report, error) {
	n := len(m.ActiveW)
	for _, iv := range a.busy {
		if int(iv.rank) >= n {
			return Report{}, fmt.Errorf("power: rank %d has no active power", iv.rank)
		}
	}
	floor := m.BaseW + float64(n)*m.IdleW
	var rep Report
	T := float64(makespan) / 1e9
	rep.IdleJ = floor * T
	for _, iv := range a.busy {
		rep.DynamicJ += (m.active(iv) - m.IdleW) * float64(iv.end-iv.start) / 1e9
	}
	rep.EnergyJ = rep.IdleJ + rep.DynamicJ
	if makespan > 0 {
		rep.AvgW = rep.EnergyJ / T
	}
	steps := a.steps(m)
	w := floor
	rep.PeakW = floor
	last := int64(0)
	for _, s := range steps {
		if capW > 0 && w > capW+1e-9 {
			rep.OverCapNs += s.t - last
		}
		w += s.dw
		last = s.t
		if w > rep.PeakW {
			rep.PeakW = w
		}
	}
	if capW > 0 && floor > capW+1e-9 && makespan > last {
		rep.OverCapNs += makespan - last
	}
	return rep, nil
}

func (m JobModel) active(iv interval) float64 {
	if int(iv.op) < len(m.OpW) && m.OpW[iv.op] > 0 {
		return m.OpW[iv.op]
	}
	return m.ActiveW[iv.rank]
}

type step struct {
	t  int64
	dw float64
}

// steps returns the power changes of the busy intervals in time order,
// ends before starts at the same instant.
func (a *Accountant) steps(m JobModel) []step {
	steps := make([]step, 0, 2*len(a.busy))
	for _, iv := range a.busy {
		extra := m.active(iv) - m.IdleW
		steps = append(steps, step{iv.start, extra}, step{iv.end, -extra})
	}
	sort.Slice(steps, func(i, j int) bool {
		if steps[i].t != steps[j].t {
			return steps[i].t < steps[j].t
		}
		return steps[i].dw < steps[j].dw
	})
	return steps
}

// Profile returns the job power as a step function: power[i] holds from
// times[i] until times[i+1] (or the end of the run).
func (a *Accountant) Profile(m JobModel) (times []int64, watts []float64) {
	steps := a.steps(m)
	w := m.BaseW + float64(len(m.ActiveW))*m.IdleW
	times, watts = []int64{0}, []float64{w}
	for _, s := range steps {
		w += s.dw
		if s.t == times[len(times)-1] {
			watts[len(watts)-1] = w
			continue
		}
		times = append(times, s.t)
		watts = append(watts, w)
	}
	return times, watts
}

// BusySpan is one busy interval an Accountant recorded: operation Op kept
// its rank's core busy from Start to End (ns).
type BusySpan struct {
	Op, Rank   int32
	Start, End int64
}

// Spans returns the recorded busy intervals in the order the engine
// reported them.
func (a *Accountant) Spans() []BusySpan {
	out := make([]BusySpan, len(a.busy))
	for i, iv := range a.busy {
		out[i] = BusySpan{Op: iv.op, Rank: iv.rank, Start: iv.start, End: iv.end}
	}
	return out
}

// RankSteps returns each rank's power over [0, makespan] under m: the
// core's power while busy and IdleW while waiting (the base power is not
// included; it is the job's, not a rank's). Busy intervals of one rank must
// not overlap, as they do not on one-CPU ranks.
func (a *Accountant) RankSteps(m JobModel, makespan int64) ([]Step, error) {
	if err := m.Validate(len(m.ActiveW)); err != nil {
		return nil, err
	}
	per := make([][]Interval, len(m.ActiveW))
	for _, iv := range a.busy {
		if int(iv.rank) >= len(per) {
			return nil, fmt.Errorf("power: rank %d has no active power", iv.rank)
		}
		per[iv.rank] = append(per[iv.rank], Interval{Start: iv.start, End: iv.end, Watts: m.active(iv)})
	}
	out := make([]Step, len(per))
	for r, iv := range per {
		s, err := Rank(iv, m.IdleW, makespan)
		if err != nil {
			return nil, fmt.Errorf("rank %d: %w", r, err)
		}
		out[r] = s
	}
	return out, nil
}
