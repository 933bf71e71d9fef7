package bound

import (
	"context"
	"fmt"
	"math"

	"github.com/capsim/capsim/optimize/clp"
)

// OrderFreeLower returns a lower bound in seconds on the makespan of every
// schedule of d whose task power stays within capW on average, whatever
// the order of its events: the least makespan of an LP that keeps only
// the DAG's precedence (its tasks and message edges, with their
// latencies), each task's time–energy hull (a duration between its
// fastest and slowest time, an energy above the lower convex envelope of
// its hull points' energies) and the job's energy, Σ task energy ≤ capW ×
// makespan. It leaves out the fixed order's power rows (Bailey et al.,
// SC'15, §2.5), the loads and the shared devices, each of which only
// raises the optimum, so it holds for schedules that leave the LP's
// event order too, below the fixed-order bound (Solver) and the
// order-free optimum (OrderFree). capW is the LP's cap: the cores' task
// power, without the machine's base power.
func OrderFreeLower(ctx context.Context, d *DAG, capW float64) (float64, error) {
	if !(capW > 0) || math.IsInf(capW, 0) {
		return 0, fmt.Errorf("bound: order-free lower bound: cap %g W: want a positive finite cap", capW)
	}
	if err := d.Validate(); err != nil {
		return 0, err
	}
	tau := lowerUnit(d)
	p, err := lowerProblem(d, capW, tau)
	if err != nil {
		return 0, err
	}
	m, err := clp.Load(p)
	if err != nil {
		return 0, fmt.Errorf("bound: order-free lower bound: %w", err)
	}
	defer m.Close()
	r, err := m.SolveContext(ctx, clp.Dual)
	if err != nil {
		return 0, fmt.Errorf("bound: order-free lower bound at %g W: %w", capW, err)
	}
	return math.Max(0, r.Objective*tau), nil
}

// lowerUnit is the LP's unit of time: the most fastest-time work of any
// rank, so that vertex times are of order one.
func lowerUnit(d *DAG) float64 {
	work := map[int]float64{}
	var most float64
	for _, t := range d.Tasks {
		work[t.Rank] += t.Hull[0].Time
		most = math.Max(most, work[t.Rank])
	}
	if !(most > 0) {
		return 1
	}
	return most
}

// lowerProblem is OrderFreeLower's LP in units of tau: a column per vertex
// (its time), then per task of several hull points its duration and its
// energy (W·tau); the objective is Fin's time.
func lowerProblem(d *DAG, capW, tau float64) (*clp.Problem, error) {
	inf := math.Inf(1)
	ncol := d.Vertices
	col := make([]int, len(d.Tasks))
	for i, t := range d.Tasks {
		col[i] = -1
		if len(t.Hull) > 1 {
			col[i] = ncol
			ncol += 2
		}
	}
	p := &clp.Problem{ColLo: make([]float64, ncol), ColUp: make([]float64, ncol), Obj: make([]float64, ncol)}
	for v := range d.Vertices {
		p.ColUp[v] = inf
	}
	p.ColUp[d.Init] = 0
	p.Obj[d.Fin] = 1
	var ts triplets
	row := func(lo, up float64) {
		p.RowLo = append(p.RowLo, lo)
		p.RowUp = append(p.RowUp, up)
		ts.rows++
	}
	var fixedJ float64 // the energy of the tasks of one hull point, J/tau
	for i, t := range d.Tasks {
		h := t.Hull
		ts.add(int32(t.Dst), 1)
		ts.add(int32(t.Src), -1)
		c := col[i]
		if c < 0 {
			row(h[0].Time/tau, inf)
			fixedJ += h[0].Time * h[0].Power / tau
			continue
		}
		ts.add(int32(c), -1)
		row(0, inf)
		p.ColLo[c], p.ColUp[c] = h[0].Time/tau, h[len(h)-1].Time/tau
		p.ColUp[c+1] = inf
		for _, l := range energyEnvelope(h) { // e_i above the energy's envelope
			ts.add(int32(c+1), 1)
			ts.add(int32(c), -l[0])
			row(l[1]/tau, inf)
		}
	}
	for _, m := range d.Messages {
		if m.Src == m.Dst {
			continue
		}
		ts.add(int32(m.Dst), 1)
		ts.add(int32(m.Src), -1)
		row(m.Time/tau, inf)
	}
	for i := range d.Tasks { // Σ e_i ≤ cap·T
		if c := col[i]; c >= 0 {
			ts.add(int32(c+1), 1)
		}
	}
	ts.add(int32(d.Fin), -capW)
	row(-inf, -fixedJ)
	p.Start, p.Index, p.Value = ts.csc(ncol)
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("bound: order-free lower bound: %w", err)
	}
	return p, nil
}
