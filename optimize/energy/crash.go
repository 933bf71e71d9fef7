package energy

import "github.com/capsim/capsim/optimize/clp"

// atLower is CLP's status of a column or row at its lower bound.
const atLower = 3

// crashCols is the least number of columns of an energy LP whose first
// solve starts from crashBasis: on the 1,024-task stencil of bench/run's
// tables (7,170 columns) the primal simplex from it takes 6,054
// iterations to the dual simplex's 12,266 from no basis, and both well
// under a second; smaller LPs keep the dual simplex's vertex.
const crashCols = 10000

// firstEnergySolve solves the energy LP from no basis of its own: the
// primal simplex from the fastest schedule's basis (crashBasis) where the
// LP has at least f.opt.crashCols columns (crashCols where 0) and the
// basis is known, else the dual simplex from CLP's slack basis
// (firstSolve).
func (f *Frontier) firstEnergySolve() (*clp.Result, error) {
	lim := f.opt.crashCols
	if lim == 0 {
		lim = crashCols
	}
	if len(f.obj) >= lim {
		if b := f.crashBasis(); b != nil {
			if err := f.em.SetBasis(b); err != nil {
				return nil, err
			}
			return f.em.ResolvePrimal()
		}
	}
	return f.em.Solve(firstSolve)
}

// crashBasis returns a basis of the energy LP at the as-soon-as-possible
// schedule of its own rows with every task at its fastest configuration,
// a feasible point at every deadline from the least makespan up, for the
// primal simplex to start from: every time column reached by a row is
// basic, the row that sets it (the longest into it) tight at its bound;
// each task's fastest fraction basic, its others and its convexity row
// at their bounds; every other row's slack basic. The rows that set the
// columns form a tree from v_init, so the basis is triangular. It returns
// nil where the LP has rows it does not know the shape of (cap rows, a
// message against the order).
func (f *Frontier) crashBasis() []byte {
	if f.opt.CapW > 0 || f.keys.Back() {
		return nil
	}
	type in struct {
		from int
		w    float64
		row  int32
	}
	into := make([][]in, f.nkey)
	d, o := f.d, f.o
	col := func(v int) int { return f.kcol[o.Event[v]] }
	for i := range d.Tasks {
		t := &d.Tasks[i]
		into[col(t.Dst)] = append(into[col(t.Dst)], in{col(t.Src), t.Hull[0].Time / f.tau, int32(2 * i)})
	}
	for j, e := range f.keys.Rows {
		if j < len(f.rowOf) && f.rowOf[j] >= 0 {
			a, b := f.kcol[e.From], f.kcol[e.To]
			if a >= b {
				return nil
			}
			into[b] = append(into[b], in{a, e.Len / f.tau, f.rowOf[j]})
		}
	}
	ncol, nrow := len(f.obj), len(f.rows.lo)
	st := make([]byte, ncol+nrow)
	for j := range st {
		st[j] = atLower
	}
	for j := ncol; j < ncol+nrow; j++ {
		st[j] = basic
	}
	t := make([]float64, f.nkey)
	for c := range f.nkey {
		best := int32(-1)
		for _, r := range into[c] {
			if v := t[r.from] + r.w; best < 0 || v > t[c] {
				t[c], best = v, r.row
			}
		}
		if best >= 0 && c != f.kcol[o.Event[d.Init]] {
			st[c] = basic
			st[ncol+int(best)] = atLower
		}
	}
	first := f.nkey
	for i := range d.Tasks {
		st[first] = basic
		st[ncol+2*i+1] = atLower
		first += len(d.Tasks[i].Hull)
	}
	return st
}
