package scenarios

import (
	"errors"
	"math"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
	"github.com/capsim/capsim/traces/mpi"
)

// BoundDAG builds the power-constrained LP's DAG of trace t on machine m:
// every compute event can run at each P-state, taking its recorded time
// scaled by the DVFS model and drawing the P-state's active power; messages
// take the LogGOPS point-to-point cost. Times are in seconds.
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
	return bound.FromTrace(t, func(b int64) float64 { return float64(net.Cost(b)) / 1e9 }, configs)
}

// LPCap converts a job power cap into the LP's cap, which covers the cores'
// task power: the machine's base power is taken off.
func (m *Machine) LPCap(jobCapW float64) float64 { return jobCapW - m.BaseW() }

// bounder computes LP bounds for the caps of one group, re-solving from
// the previous basis.
type bounder struct {
	s *bound.Solver
	m *Machine
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
	return &bounder{s: s, m: m}, nil
}

// at returns the bound in ns at a job cap, or 0 where the cap is below
// what the fixed order needs.
func (b *bounder) at(capW float64) (int64, error) {
	if b == nil {
		return 0, nil
	}
	res, err := b.s.Solve(b.m.LPCap(capW))
	var ie *bound.InfeasibleError
	if errors.As(err, &ie) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return int64(math.Round(res.Makespan * 1e9)), nil
}

func (b *bounder) close() {
	if b != nil {
		b.s.Close()
	}
}
