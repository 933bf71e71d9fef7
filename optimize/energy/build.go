package energy

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
)

// entry is one coefficient of the LP's matrix.
type entry struct {
	row, col int32
	val      float64
}

// lpRows collects the LP's rows as entries.
type lpRows struct {
	ents   []entry
	lo, up []float64
}

func (r *lpRows) add(col int, v float64) {
	r.ents = append(r.ents, entry{int32(len(r.lo)), int32(col), v})
}

func (r *lpRows) end(lo, up float64) {
	r.lo = append(r.lo, lo)
	r.up = append(r.up, up)
}

// csc compresses the entries by columns (rows stay in increasing order).
func (r *lpRows) csc(ncol int) (start, index []int32, value []float64) {
	start = make([]int32, ncol+1)
	for _, e := range r.ents {
		start[e.col+1]++
	}
	for c := 0; c < ncol; c++ {
		start[c+1] += start[c]
	}
	next := append([]int32(nil), start[:ncol]...)
	index = make([]int32, len(r.ents))
	value = make([]float64, len(r.ents))
	for _, e := range r.ents {
		at := next[e.col]
		next[e.col]++
		index[at], value[at] = e.row, e.val
	}
	return start, index, value
}

// problem writes the energy LP: one time column per key event of the
// order (in units of f.tau; the vertices of an event share it; see
// keyEvents), then one fraction c_ig per configuration of every task,
// with the objective the energy in units of f.esc. v_fin's column's upper
// bound is the deadline (none yet).
func (f *Frontier) problem() (*clp.Problem, error) {
	d, o, tau := f.d, f.o, f.tau
	rows := f.keyEvents()
	ncol := f.nkey
	first := make([]int, len(d.Tasks))
	for i, t := range d.Tasks {
		first[i] = ncol
		ncol += len(t.Hull)
	}
	if ncol > math.MaxInt32 {
		return nil, fmt.Errorf("energy: %d columns exceed CLP's 32-bit indices", ncol)
	}
	inf := math.Inf(1)
	p := &clp.Problem{ColLo: make([]float64, ncol), ColUp: make([]float64, ncol), Obj: make([]float64, ncol)}
	for c := range p.ColUp {
		p.ColUp[c] = inf
	}
	col := func(v int) int { return f.kcol[o.Event[v]] }
	p.ColUp[col(d.Init)] = 0 // v_init = 0
	f.fin = col(d.Fin)
	var r lpRows
	p.Obj[f.fin] += f.opt.BaseW * tau
	for i := range d.Tasks {
		t := &d.Tasks[i]
		src, dst, end := col(t.Src), col(t.Dst), col(t.PowerEnd())
		w := t.Hull[len(t.Hull)-1].Power
		p.Obj[end] += w * tau
		p.Obj[src] -= w * tau
		// v_dst − v_src − Σ_g c_ig·t_ig ≥ 0, and Σ_g c_ig = 1.
		r.add(dst, 1)
		r.add(src, -1)
		for g, c := range t.Hull {
			r.add(first[i]+g, -c.Time/tau)
			p.Obj[first[i]+g] = c.Time*c.Power - w*c.Time
		}
		r.end(0, inf)
		for g := range t.Hull {
			r.add(first[i]+g, 1)
		}
		r.end(1, 1)
	}
	for _, l := range d.Loads {
		p.Obj[col(l.Dst)] += l.W * tau
		p.Obj[col(l.Src)] -= l.W * tau
	}
	f.rowOf = make([]int32, len(rows))
	for j, e := range rows { // the messages and the event order (14)
		f.rowOf[j] = -1
		if a, b := f.kcol[e.From], f.kcol[e.To]; a != b || e.Len > 0 {
			f.rowOf[j] = int32(len(r.lo))
			f.precedenceRow(&r, e)
		}
	}
	switch {
	case f.opt.CapW > 0 && f.opt.NodeOf != nil:
		if err := f.nodeCapRows(&r, first); err != nil {
			return nil, err
		}
	case f.opt.CapW > 0:
		f.capRows(&r, first)
	}
	for c := range p.Obj {
		p.Obj[c] /= f.esc
	}
	p.RowLo, p.RowUp = r.lo, r.up
	p.Start, p.Index, p.Value = r.csc(ncol)
	f.rows = r
	return p, p.Validate()
}

// precedenceRow writes the row t_To − t_From ≥ Len of e.
func (f *Frontier) precedenceRow(r *lpRows, e bound.Precedence) {
	r.add(f.kcol[e.To], 1)
	r.add(f.kcol[e.From], -1)
	r.end(e.Len/f.tau, math.Inf(1))
}

// keyEvents chooses the events that keep a time column (f.kcol, f.nkey):
// those a task or a load starts or ends at, and those bound.ReduceOrder
// keeps; every other event only passes precedence on, and the rows it
// returns between key events stand for the chain and the messages. The
// LP is a relaxation until its solution meets every row (settle adds
// those it breaks, see KeyRows.Check), and f.keys sets the other events'
// times for a schedule.
func (f *Frontier) keyEvents() []bound.Precedence {
	d, o := f.d, f.o
	key := make([]bool, o.Events)
	for i := range d.Tasks {
		key[o.Event[d.Tasks[i].PowerEnd()]] = true
	}
	for _, l := range d.Loads {
		key[o.Event[l.Src]], key[o.Event[l.Dst]] = true, true
	}
	key[o.Event[d.Init]], key[o.Event[d.Fin]] = true, true
	if f.opt.noReduce {
		for k := range key {
			key[k] = true
		}
	}
	var chained []bool
	if o.Chained != nil {
		chained = make([]bool, o.Events)
		for k := range chained {
			chained[k] = f.chained(k)
		}
	}
	if f.opt.visits != 0 {
		f.keys = bound.ReduceOrderWithin(d, o, chained, key, f.opt.visits)
	} else {
		f.keys = bound.ReduceOrder(d, o, chained, key)
	}
	f.kcol = make([]int, o.Events)
	f.nkey = 0
	toFin := f.keys.ToEvent(o.Event[d.Fin])
	for k, ok := range key {
		f.kcol[k] = -1
		if ok {
			f.kcol[k] = f.nkey
			f.nkey++
			f.toFin = append(f.toFin, toFin[k]/f.tau)
		}
	}
	return f.keys.Rows
}

// capRows writes, for every event k before the last, the power the tasks
// active between k and k+1 draw (Σ_g c_ig·p_ig, the hull's power at the
// task's duration) plus the loads' ≤ the cap.
func (f *Frontier) capRows(r *lpRows, first []int) {
	d, o := f.d, f.o
	loads := o.Power(d, func(int) float64 { return 0 })
	inf := math.Inf(1)
	// Power changes only at chained events: one row per chained event k
	// (before the last) covers the stretch to the next chained event.
	row := make([]int, o.Events)
	for k := 0; k+1 < o.Events; k++ {
		row[k] = -1
		if k == 0 || f.chained(k) {
			row[k] = len(r.lo)
			r.end(-inf, f.opt.CapW-loads[k])
		}
	}
	for i := range d.Tasks {
		t := &d.Tasks[i]
		for k := o.Event[t.Src]; k < o.Event[t.PowerEnd()] && k+1 < o.Events; k++ {
			if row[k] < 0 {
				continue
			}
			for g, c := range t.Hull {
				r.ents = append(r.ents, entry{int32(row[k]), int32(first[i] + g), c.Power})
			}
		}
	}

}

// nodeCapRows is capRows under node caps (Options.NodeOf): per node, a
// row at each chained event where one of its tasks is active, over its
// tasks' columns, ≤ the cap less its loads' power there.
func (f *Frontier) nodeCapRows(r *lpRows, first []int) error {
	d, o := f.d, f.o
	loads, err := o.NodePower(d, f.opt.NodeOf, func(int) float64 { return 0 })
	if err != nil {
		return fmt.Errorf("energy: %w", err)
	}
	inf := math.Inf(1)
	row := make([][]int32, len(loads)) // per node and event: its row, −1 none yet
	for i := range d.Tasks {
		t := &d.Tasks[i]
		n := f.opt.NodeOf[t.Rank]
		if n < 0 {
			continue
		}
		if row[n] == nil {
			row[n] = make([]int32, o.Events)
			for k := range row[n] {
				row[n][k] = -1
			}
		}
		for k := o.Event[t.Src]; k < o.Event[t.PowerEnd()] && k+1 < o.Events; k++ {
			if k != 0 && !f.chained(k) {
				continue
			}
			if row[n][k] < 0 {
				row[n][k] = int32(len(r.lo))
				r.end(-inf, f.opt.CapW-loads[n][k])
			}
			for g, c := range t.Hull {
				r.ents = append(r.ents, entry{row[n][k], int32(first[i] + g), c.Power})
			}
		}
	}
	return nil
}

// timeProblem is p with the makespan as its objective and the energy as
// its last row, ≤ the budget (none yet).
func (f *Frontier) timeProblem(p *clp.Problem) *clp.Problem {
	r := lpRows{ents: append([]entry(nil), f.rows.ents...), lo: append([]float64(nil), f.rows.lo...), up: append([]float64(nil), f.rows.up...)}
	for c, v := range p.Obj {
		if v != 0 {
			r.add(c, v)
		}
	}
	r.end(math.Inf(-1), math.Inf(1))
	ncol := len(p.Obj)
	tp := &clp.Problem{ColLo: p.ColLo, ColUp: p.ColUp, Obj: make([]float64, ncol), RowLo: r.lo, RowUp: r.up}
	tp.Obj[f.fin] = 1
	tp.Start, tp.Index, tp.Value = r.csc(ncol)
	return tp
}

// chained reports whether event k is kept in order: every event where
// o.Chained is nil, else those it marks (where power starts or ends).
func (f *Frontier) chained(k int) bool {
	return f.o.Chained == nil || f.o.Chained[k] || k == f.o.Events-1
}
