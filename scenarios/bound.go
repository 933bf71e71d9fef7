package scenarios

import (
	"errors"
	"fmt"
	"math"

	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// BoundDAG builds the power-constrained LP's DAG of trace t on machine m:
// every compute event can run at each P-state, taking its recorded time
// scaled by the DVFS model and drawing the P-state's active power.
// Communication is priced as bound.messages says: measured on a replay at
// the fastest P-state (the default, see replayComm) or at the uncontended
// LogGOPS cost of each message. Times are in seconds.
func (sc *Scenario) BoundDAG(t *mpi.Trace, m *Machine, net network.LogGOPS) (*bound.DAG, error) {
	model := sc.dvfsModel(m)
	configs := func(r int, e *mpi.Event) []frontier.Config {
		cs := make([]frontier.Config, 0, len(m.PStates))
		for _, p := range m.PStates {
			f, _ := model.Factor(model.RefGHz, p.FreqGHz)
			sec := float64(e.Duration) * f * m.SpeedFactor / 1e9
			if sec <= 0 {
				sec = 1e-12 // an empty region still occupies its rank for an instant
			}
			cs = append(cs, frontier.Config{Time: sec, Power: p.ActivePowerW})
		}
		return cs
	}
	if sc.Bound.Messages == MessagesLogGOPS {
		return bound.FromTrace(t, func(b int64) float64 { return float64(net.Cost(b)) / 1e9 }, configs)
	}
	coll, err := lower.ParseAlgorithms(sc.Network.Collective)
	if err != nil {
		return nil, &ParseError{File: sc.File, Key: "network.collectives", Msg: err.Error()}
	}
	g, em, err := lower.LowerMapped(t, lower.Options{Algorithm: coll})
	if err != nil {
		return nil, err
	}
	cls, err := sc.Classes(g, t)
	if err != nil {
		return nil, err
	}
	cm, err := sc.calibrate(t, g, em, m, net, cls)
	if err != nil {
		return nil, err
	}
	return bound.FromTraceComm(t, cm, configs)
}

// LPCap converts a job power cap into the LP's cap, which covers the cores'
// task power: the machine's base power is taken off.
func (m *Machine) LPCap(jobCapW float64) float64 { return jobCapW - m.BaseW() }

// bounder computes LP bounds for the caps of one group, re-solving from
// the previous basis.
type bounder struct {
	s *bound.Solver
	m *Machine
	d *bound.DAG
	t *mpi.Trace
}

func (sc *Scenario) newBounder(t *mpi.Trace, m *Machine, net network.LogGOPS) (*bounder, error) {
	if t == nil || !clp.Available() {
		return nil, nil
	}
	d, err := sc.BoundDAG(t, m, net)
	if err != nil {
		return nil, err
	}
	o, err := bound.InitialOrder(d, 0)
	if err != nil {
		return nil, err
	}
	s, err := bound.NewSolver(d, o, bound.Options{})
	if err != nil {
		return nil, err
	}
	return &bounder{s: s, m: m, d: d, t: t}, nil
}

// solve returns the LP's schedule at a job cap, or nil where the cap is
// below what the fixed order needs.
func (b *bounder) solve(capW float64) (*bound.Bound, error) {
	if b == nil {
		return nil, nil
	}
	res, err := b.s.Solve(b.m.LPCap(capW))
	var ie *bound.InfeasibleError
	if errors.As(err, &ie) {
		return nil, nil
	}
	return res, err
}

// at returns the bound in ns at a job cap, or 0 where there is none.
func (b *bounder) at(capW float64) (int64, error) {
	res, err := b.solve(capW)
	if res == nil || err != nil {
		return 0, err
	}
	return int64(math.Round(res.Makespan * 1e9)), nil
}

func (b *bounder) close() {
	if b != nil {
		b.s.Close()
	}
}

// opPricer gives calc operations fixed durations (ns); -1 keeps the
// recorded size.
type opPricer struct {
	g   *graph.Graph
	dur []int64
}

func (p *opPricer) CalcDuration(op int32, start int64) int64 {
	if d := p.dur[op]; d >= 0 {
		return d
	}
	return p.g.Size[op]
}

// ReplayBound replays the LP's schedule rounded by splitting (note 003 §4):
// every compute task runs for its LP duration, a mix of the two adjacent
// frontier points, drawing the frontier's power at that duration. The
// replay is as soon as possible, so events may reorder and the job may
// briefly exceed the cap; OverCapNs reports it.
func (sc *Scenario) ReplayBound(g *graph.Graph, t *mpi.Trace, d *bound.DAG, b *bound.Bound, m *Machine, net network.LogGOPS) (Metrics, error) {
	// The k-th calc of a rank is its k-th compute event (lowering adds no
	// calcs of its own without a reduction cost).
	calcOf := make([][]int32, len(t.Ranks))
	for r := range t.Ranks {
		for id := g.RankStart[r]; id < g.RankStart[r+1]; id++ {
			if g.Kind[id] == graph.Calc {
				calcOf[r] = append(calcOf[r], id)
			}
		}
	}
	dur := make([]int64, g.NumOps())
	for i := range dur {
		dur[i] = -1
	}
	opW := make([]float64, g.NumOps())
	eventCalc := make([]map[int]int32, len(t.Ranks))
	for r, rk := range t.Ranks {
		eventCalc[r] = map[int]int32{}
		k := 0
		for i := range rk.Events {
			if rk.Events[i].Kind == mpi.Compute {
				if k >= len(calcOf[r]) {
					return Metrics{}, fmt.Errorf("rank %d: more compute events than calc operations", r)
				}
				eventCalc[r][i] = calcOf[r][k]
				k++
			}
		}
	}
	for i, task := range d.Tasks {
		op, ok := eventCalc[task.Rank][task.Event]
		if !ok {
			return Metrics{}, fmt.Errorf("LP task %d has no calc operation", i)
		}
		dur[op] = int64(math.Round(b.Duration[i] * 1e9))
		opW[op] = b.Power[i]
	}
	acct := power.NewAccountant(g)
	res, err := sim.Run(g, net, sim.Options{Pricer: &opPricer{g: g, dur: dur}, Observer: acct})
	if err != nil {
		return Metrics{}, err
	}
	active := make([]float64, g.NumRanks())
	for r := range active {
		active[r] = m.PStates[0].ActivePowerW
	}
	rep, err := acct.Report(power.JobModel{BaseW: m.BaseW(), IdleW: m.CoreIdlePowerW, ActiveW: active, OpW: opW}, res.Makespan, b.CapW+m.BaseW())
	if err != nil {
		return Metrics{}, err
	}
	round := func(x float64) float64 { return math.Round(x*1e9) / 1e9 }
	return Metrics{MakespanNs: res.Makespan, EnergyJ: round(rep.EnergyJ), AvgPowerW: round(rep.AvgW),
		PeakPowerW: round(rep.PeakW), OverCapNs: rep.OverCapNs, BoundNs: int64(math.Round(b.Makespan * 1e9))}, nil
}
