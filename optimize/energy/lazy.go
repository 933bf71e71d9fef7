package energy

import (
	"fmt"

	"github.com/capsim/capsim/optimize/clp"
)

// The LP starts with the rows between key events that bound.ReduceOrder's
// short searches find, a relaxation of the LP over every event. After
// every solve, settle checks the solution against every row of the full
// event graph (bound.KeyRows.Check) and, where it breaks some, adds them
// to both LPs and solves again from the last basis (the new rows' slacks
// basic: the dual simplex's start). The solution that breaks none is the
// full LP's optimum, a relaxation's optimum being feasible; rows added
// stay for every later deadline and budget.

// settleTol is the violation, in the LP's unit of time (the least
// makespan), under which a solution is taken to meet a row: a hundredth
// of CLP's primal tolerance, so that a row missing is found however
// little it binds (a row the LP has, broken within CLP's tolerance, is
// passed over).
const settleTol = 1e-9

// maxRounds bounds the solves of one deadline or budget that add rows.
const maxRounds = 10000

// settle returns r, the energy LP's result (energyLP) or the time LP's,
// once its solution meets every row of the full event graph, adding the
// rows it breaks and solving again until it does.
func (f *Frontier) settle(energyLP bool, r *clp.Result) (*clp.Result, error) {
	t := make([]float64, f.o.Events)
	for round := 0; ; round++ {
		for k, c := range f.kcol {
			if c >= 0 {
				t[k] = r.X[c] * f.tau
			}
		}
		changed := f.keys.Check(t, settleTol*f.tau)
		if len(changed) == 0 {
			return r, nil
		}
		if round == maxRounds {
			return nil, fmt.Errorf("%d rounds of rows added (%d rows), and the solution still breaks %d", round, len(f.keys.Rows), len(changed))
		}
		f.rounds++
		f.added += len(changed)
		if err := f.grow(changed); err != nil {
			return nil, err
		}
		m := f.tm
		if energyLP {
			m = f.em
		}
		var err error
		if r, err = m.Resolve(); err != nil {
			return nil, err
		}
	}
}

// grow writes the rows of f.keys.Rows at the places changed (added or
// lengthened by Check) into both LPs and reloads them, each from its
// last basis where it has one.
func (f *Frontier) grow(changed []int) error {
	nr := len(f.rows.lo)
	for _, j := range changed {
		for len(f.rowOf) <= j {
			f.rowOf = append(f.rowOf, -1)
		}
		e := f.keys.Rows[j]
		if at := f.rowOf[j]; at >= 0 {
			f.rows.lo[at] = e.Len / f.tau
			continue
		}
		f.rowOf[j] = int32(len(f.rows.lo))
		f.precedenceRow(&f.rows, e)
	}
	added := len(f.rows.lo) - nr
	ncol := len(f.obj)
	p := &clp.Problem{ColLo: make([]float64, ncol), ColUp: f.up, Obj: f.obj, RowLo: f.rows.lo, RowUp: f.rows.up}
	p.Start, p.Index, p.Value = f.rows.csc(ncol)
	em, err := reload(f.em, p, ncol+nr, added)
	if err != nil {
		return err
	}
	f.em.Close()
	f.em = em
	tp := f.timeProblem(&clp.Problem{ColLo: p.ColLo, ColUp: f.up0, Obj: p.Obj})
	budget := f.rup[len(f.rup)-1]
	f.rlo, f.rup = tp.RowLo, tp.RowUp
	f.rup[len(f.rup)-1] = budget
	tm, err := reload(f.tm, tp, ncol+nr, added)
	if err != nil {
		return err
	}
	f.tm.Close()
	f.tm = tm
	return nil
}

// basic is CLP's status of a basic column or row.
const basic = 1

// reload loads p, the LP of old with added rows inserted after its first
// keep columns and rows, and gives it old's basis with the new rows'
// slacks basic, where old has one.
func reload(old *clp.Model, p *clp.Problem, keep, added int) (*clp.Model, error) {
	m, err := clp.Load(p)
	if err != nil {
		return nil, fmt.Errorf("loading the LP with rows added: %w", err)
	}
	b, err := old.Basis()
	if err != nil {
		return m, nil // never solved: CLP starts from its own
	}
	nb := make([]byte, 0, len(b)+added)
	nb = append(nb, b[:keep]...)
	for range added {
		nb = append(nb, basic)
	}
	nb = append(nb, b[keep:]...)
	if len(nb) != len(p.Obj)+len(p.RowLo) {
		m.Close()
		return nil, fmt.Errorf("a basis of %d statuses for %d columns and %d rows", len(nb), len(p.Obj), len(p.RowLo))
	}
	if err := m.SetBasis(nb); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}
