// Package energy computes the energy–time frontier of a task DAG with a
// fixed event order: for every deadline T, the least energy of any
// schedule that keeps the order and ends by T. It is the fixed-event-order
// LP of Bailey et al., "Finding the Limits of Power-Constrained
// Application Performance" (SC'15, Figs. 4–6), which optimize/bound
// solves for the least makespan under a power cap, with objective and
// constraint exchanged: minimise energy subject to makespan ≤ T (and,
// optionally, the power cap at every event).
//
// The energy of a schedule is
//
//	Σ_i Σ_g c_ig·t_ig·p_ig + Σ_i w_i·(v_end(i) − v_src(i) − d_i) + Σ_l W_l·(v_dst(l) − v_src(l)) + B·v_fin
//
// where task i runs the fraction c_ig of its work in configuration g of its
// hull (time t_ig, power p_ig; Σ_g c_ig = 1, d_i = Σ_g c_ig·t_ig), waits
// inside its power interval (Src to PowerEnd) draw w_i, its hull's lowest
// power, the loads (idle and waiting cores) draw their constant W_l, and
// the base power B (sockets' idle power) is drawn until the job ends. A
// task's energy is linear in its fractions, so the LP is exact for every
// mix of configurations; a wait charged at the hull's lowest power is at
// most what the bound's model charges (a waiting core draws its task's
// power, Bailey et al., SC'15, §2.6), so the frontier is a lower bound on
// that model's energy too.
//
// Without a cap the LP is solved as its dual, a minimum-cost flow (the
// project time–cost trade-off; flow.go), by the network simplex of
// package mcf, each deadline from the last tree, and the least makespan
// for an energy budget by Newton's method on the convex frontier. With a
// cap CLP solves the LP: the deadline is the upper bound of v_fin's
// column, so a sweep over deadlines re-solves from the previous basis
// with the dual simplex, and the least makespan for an energy budget is
// the same LP with the energy as a row and the makespan as the
// objective.
package energy

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
)

// Options are the frontier's parameters.
type Options struct {
	// BaseW is the power drawn until the job ends whatever its tasks do
	// (the sockets' idle power), in watts.
	BaseW float64
	// CapW, when positive, caps the power the tasks and loads draw
	// between every two events (the bound's LP cap: the job cap less
	// BaseW).
	CapW float64
	// NodeOf, when set, makes CapW every node's cap instead of the job's:
	// rank r is on node NodeOf[r] (−1: on no capped node), and the power
	// of each node's tasks and loads between every two events is at most
	// CapW (bound.Options.NodeOf).
	NodeOf []int
	// LeastMakespan, when positive, is the least makespan of the order
	// (under the cap), in seconds, where the caller knows it (the bound's
	// LP at the same cap): New takes it for Fastest instead of solving
	// the time LP, which TimeFor then solves when first asked.
	LeastMakespan float64
	// lp solves the LP with CLP where there is no cap too (tests compare
	// it with the flow).
	lp bool
	// noReduce keeps every event's time column (tests compare the two).
	noReduce bool
	// crashCols, when not 0, is the least number of columns whose first
	// energy solve starts from crashBasis (tests take 1: every LP).
	crashCols int
	// visits, when not 0, limits ReduceOrder's first searches to
	// max(visits, 0) events (tests make it find few rows, the others on
	// demand).
	visits int
}

// Frontier is the LP of one DAG and order, built once and solved at many
// deadlines and budgets. It is not safe for concurrent use.
type Frontier struct {
	d   *bound.DAG
	o   *bound.Order
	opt Options
	tau float64 // the LP's unit of time, in seconds (the fastest makespan)
	esc float64 // the LP's unit of energy, in joules
	fin int     // v_fin's column
	// kcol is every event's time column (−1 for an event eliminated, see
	// keyEvents), nkey the number of time columns, keys the rows between
	// them and the other events' times.
	kcol []int
	nkey int
	keys *bound.KeyRows
	em   *clp.Model
	tm   *clp.Model
	up   []float64 // em's column upper bounds
	up0  []float64 // the column upper bounds without a deadline (tm's)
	// toFin is, per time column, the longest path from its event to
	// v_fin's (in the LP's unit of time; −Inf where none).
	toFin []float64
	rlo   []float64 // tm's row bounds
	rup   []float64
	rows  lpRows // the energy LP's rows, for the time LP
	// rowOf is the energy LP's row of each of f.keys.Rows, −1 for none
	// (a row within one event that the LP needs not).
	rowOf []int32
	obj   []float64 // the energy LP's objective
	// rounds counts the solves that found rows to add (settle), added
	// the rows added or lengthened.
	rounds, added int
	emSolved      bool // the energy LP has a basis to re-solve from
	// nw, without a cap, is the LP's dual as a minimum-cost flow (flow.go),
	// which solves it in place of em and tm (both nil then).
	nw *flowNet
	// fast is the least makespan (s), fastE the energy of the fastest
	// as-soon-as-possible schedule (J).
	fast, fastE float64
}

// New builds the frontier's LP of d with the fixed order o. The events
// o.Chained marks (every event where it is nil) are kept in order, as in
// the bound's LP: power starts and ends only there, so the power between
// two of them is that of the tasks and loads active at the first. A cap
// below the order's least feasible cap is a *bound.InfeasibleError.
func New(d *bound.DAG, o *bound.Order, opt Options) (*Frontier, error) {
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("energy: %w", err)
	}
	if !(opt.BaseW >= 0) || math.IsInf(opt.BaseW, 0) || !(opt.CapW >= 0) || math.IsInf(opt.CapW, 0) ||
		!(opt.LeastMakespan >= 0) || math.IsInf(opt.LeastMakespan, 0) {
		return nil, fmt.Errorf("energy: base %g W, cap %g W and least makespan %g s: want finite numbers ≥ 0", opt.BaseW, opt.CapW, opt.LeastMakespan)
	}
	if opt.CapW > 0 {
		// Below the least feasible cap no schedule of the order fits: name
		// it rather than leave CLP to report an infeasible LP.
		least, at, err := bound.MinFeasibleNodeCap(d, o, opt.NodeOf)
		if err != nil {
			return nil, fmt.Errorf("energy: %w", err)
		}
		if opt.CapW < least-1e-9 {
			return nil, &bound.InfeasibleError{CapW: opt.CapW, MinCapW: least, Event: at, EventTasks: o.Active(d, at)}
		}
	}
	f := &Frontier{d: d, o: o, opt: opt, tau: o.Makespan}
	if !(f.tau > 0) {
		f.tau = 1
	}
	f.fastE = FastestEnergy(d, o, opt.BaseW)
	f.esc = math.Max(f.fastE, 1e-12)
	p, err := f.problem()
	if err != nil {
		return nil, err
	}
	f.obj = p.Obj
	if opt.CapW == 0 && !opt.lp {
		// Without a cap the least makespan is the longest path with every
		// task at its fastest (or the caller's), and the flow solves every
		// deadline.
		t, ok := f.keys.Earliest(o.Event[d.Fin])
		if opt.LeastMakespan > 0 {
			t, ok = opt.LeastMakespan, true
		}
		if ok {
			f.fast = t
			f.rows = lpRows{lo: f.rows.lo, up: f.rows.up} // its size only
			f.nw = f.newFlow(p)
			return f, nil
		}
	}
	if f.em, err = clp.Load(p); err != nil {
		return nil, fmt.Errorf("energy: loading the LP: %w", err)
	}
	f.up = append([]float64(nil), p.ColUp...)
	f.up0 = p.ColUp
	tp := f.timeProblem(p)
	if f.tm, err = clp.Load(tp); err != nil {
		f.Close()
		return nil, fmt.Errorf("energy: loading the LP: %w", err)
	}
	f.rlo, f.rup = tp.RowLo, tp.RowUp
	if opt.LeastMakespan > 0 {
		f.fast = opt.LeastMakespan
		return f, nil
	}
	if opt.CapW == 0 {
		// Without a cap the least makespan is the longest path with every
		// task at its fastest: no LP needed.
		if t, ok := f.keys.Earliest(o.Event[d.Fin]); ok {
			f.fast = t
			return f, nil
		}
	}
	if err := f.solveFastest(); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Close frees the LPs.
func (f *Frontier) Close() {
	if f.em != nil {
		f.em.Close()
		f.em = nil
	}
	if f.tm != nil {
		f.tm.Close()
		f.tm = nil
	}
}

// Fastest is the least makespan of the order, in seconds.
func (f *Frontier) Fastest() float64 { return f.fast }

// FastestEnergy is the energy, in joules, of the fastest schedule: every
// task at its fastest configuration, as soon as possible (o.Times).
func (f *Frontier) FastestEnergy() float64 { return f.fastE }

// FastestMakespan is the makespan, in seconds, of the fastest schedule
// (FastestEnergy's): Fastest without a cap; under a cap that schedule may
// exceed it, and Fastest, the least makespan within the cap, is longer.
func (f *Frontier) FastestMakespan() float64 { return f.o.Times[f.d.Fin] }

// solveFastest finds the least makespan with the time LP and no budget.
func (f *Frontier) solveFastest() error {
	r, err := f.tm.Solve(firstSolve)
	if err == nil {
		r, err = f.settle(false, r)
	}
	if err != nil {
		return fmt.Errorf("energy: least makespan: %w", err)
	}
	f.fast = r.Objective * f.tau
	return nil
}

// EnergyAt returns the least energy, in joules, of a schedule that keeps
// the order and ends by deadline (seconds), re-solving from the last
// basis. A deadline below Fastest (beyond the solver's tolerance) is an
// error; +Inf gives the least energy of any makespan.
func (f *Frontier) EnergyAt(deadline float64) (float64, error) {
	e, _, err := f.solveAt(deadline)
	return e, err
}

// TimeFor returns the least makespan, in seconds, of a schedule that keeps
// the order within an energy budget in joules: the frontier read the
// other way. A budget below the least energy of any makespan is an error.
func (f *Frontier) TimeFor(budgetJ float64) (float64, error) {
	if math.IsNaN(budgetJ) {
		return 0, fmt.Errorf("energy: budget %g J", budgetJ)
	}
	if f.nw != nil {
		return f.flowTimeFor(budgetJ)
	}
	f.rup[len(f.rup)-1] = budgetJ / f.esc
	if err := f.tm.SetRowBounds(f.rlo, f.rup); err != nil {
		return 0, fmt.Errorf("energy: budget %g J: %w", budgetJ, err)
	}
	r, err := f.tm.Resolve()
	if err == nil {
		r, err = f.settle(false, r)
	}
	if err != nil {
		if least, lerr := f.EnergyAt(math.Inf(1)); lerr == nil && budgetJ < least {
			return 0, fmt.Errorf("energy: budget %g J: no schedule of the order fits (the least energy is %.12g J)", budgetJ, least)
		}
		return 0, fmt.Errorf("energy: budget %g J: no schedule of the order fits: %w", budgetJ, err)
	}
	// No budget makes the order faster than its least makespan; CLP's
	// tolerance, summed along a chain of many events, can (by 2.8·10⁻⁶
	// of it on the default scenario's 16 ranks).
	return math.Max(r.Objective*f.tau, f.fast), nil
}

// Slowest returns the least makespan among the schedules of least energy
// (seconds) and that energy (joules): the frontier's far end, beyond
// which a longer deadline saves nothing.
func (f *Frontier) Slowest() (deadline, energyJ float64, err error) {
	if energyJ, err = f.EnergyAt(math.Inf(1)); err != nil {
		return 0, 0, err
	}
	if f.nw != nil {
		if err := f.flowBelowSlowest(energyJ + 1e-9*f.esc); err != nil {
			return 0, 0, err
		}
	}
	// The budget lies a little above the least energy, which CLP found
	// within its primal tolerance (10⁻⁷ on the energy row, in the LP's
	// unit of energy): the least slack that fits, from 10⁻⁹ of the unit
	// up to budgetSlack.
	for slack := 1e-9; ; slack *= 10 {
		deadline, err = f.TimeFor(energyJ + slack*f.esc)
		if err == nil || slack >= budgetSlack {
			break
		}
	}
	if err != nil {
		return 0, 0, err
	}
	return math.Max(deadline, f.fast), energyJ, nil
}

// firstSolve is how an LP is solved from no basis: CLP's dual simplex
// from its slack basis. On the 10,240-task stencil of bench/run's tables
// (71,682 columns, 153,558 rows) the dual simplex solves the least
// makespan's LP in 22 s, where CLP's barrier has not finished it after
// 77 s of CPU.
const firstSolve = clp.Dual

// budgetSlack is how far above the least energy, in the LP's unit of
// energy, Slowest's budget lies.
const budgetSlack = 1e-6

// WriteMPS writes the energy LP at deadline (seconds) as a free-format
// MPS file for a peer solver; its objective is the energy in units of
// Scale joules.
func (f *Frontier) WriteMPS(path string, deadline float64) error {
	if f.nw != nil {
		opt := f.opt
		opt.lp = true
		g, err := New(f.d, f.o, opt)
		if err != nil {
			return err
		}
		defer g.Close()
		return g.WriteMPS(path, deadline)
	}
	if _, err := f.EnergyAt(deadline); err != nil {
		return err
	}
	return f.em.WriteMPS(path)
}

// Scale is the MPS file's unit of energy in joules (WriteMPS).
func (f *Frontier) Scale() float64 { return f.esc }

// FastestEnergy is the energy, in joules, of d's fastest schedule with
// base power baseW: every task at its fastest configuration at the times
// of o (its as-soon-as-possible schedule), waits inside a task's power
// interval at the hull's lowest power.
func FastestEnergy(d *bound.DAG, o *bound.Order, baseW float64) float64 {
	cfg := make([]int, len(d.Tasks))
	return ScheduleEnergy(d, o.Times, cfg, baseW)
}

// ScheduleEnergy is the energy, in joules, of a schedule of d: vertex
// times in seconds, task i in configuration cfg[i] of its hull, under the
// frontier's model (the package comment). Brute-force checks replay
// discrete configurations with it.
func ScheduleEnergy(d *bound.DAG, times []float64, cfg []int, baseW float64) float64 {
	e := baseW * times[d.Fin]
	for i := range d.Tasks {
		t := &d.Tasks[i]
		c := t.Hull[cfg[i]]
		w := t.Hull[len(t.Hull)-1].Power
		e += c.Time*c.Power + w*(times[t.PowerEnd()]-times[t.Src]-c.Time)
	}
	for _, l := range d.Loads {
		e += l.W * (times[l.Dst] - times[l.Src])
	}
	return e
}

// Stats is the size of a frontier's LP and the work of finding its rows.
type Stats struct {
	// TimeColumns are the LP's time columns (events kept), Columns all
	// its columns (the tasks' fractions too), Rows its rows (the energy
	// LP's; the time LP has one more, the budget).
	TimeColumns, Columns, Rows int
	// Rounds counts the solves whose solutions broke rows of the full
	// event graph, Added the rows those rounds added or lengthened.
	Rounds, Added int
	// Arcs and Pivots, without a cap, are the minimum-cost flow's arcs
	// and the network simplex's pivots so far (the LP is not built then).
	Arcs, Pivots int
}

// Stats returns the LP's size now: rows found on demand stay for every
// later deadline and budget.
func (f *Frontier) Stats() Stats {
	s := Stats{TimeColumns: f.nkey, Columns: len(f.obj), Rows: len(f.rows.lo), Rounds: f.rounds, Added: f.added}
	if f.nw != nil {
		s.Arcs, s.Pivots = f.nw.g.Arcs(), f.nw.g.Pivots()
	}
	return s
}
