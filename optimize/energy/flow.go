package energy

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
	"github.com/capsim/capsim/optimize/mcf"
)

// Without a cap the energy LP is a convex-cost tension problem: every row
// is a difference of two event times (a precedence, a task's duration
// row, a bound by the deadline) and every task's energy is a convex
// piecewise-linear function of its duration, the lower convex hull of its
// configurations' (time, energy) points, plus terms linear in the event
// times (the waits, the loads, the base power). It is the project time–
// cost trade-off of Fulkerson ("A network flow computation for project
// cost curves", Management Science 7(2), 1961) and Kelley ("Critical-path
// planning and scheduling: mathematical basis", Operations Research 9(3),
// 1961), whose dual is a minimum-cost flow (Ahuja, Magnanti & Orlin,
// Network Flows, 1993, ch. 9 and 14): a node per time column whose
// supply is minus its time's coefficient in the energy (the init event's
// balances them), an uncapacitated arc of cost −len per row t_b − t_a ≥
// len, per task one arc per segment of its hull of cost −(the segment's
// longer duration) and capacity the step in the hull's slopes there (the
// fastest segment's arc uncapacitated), an arc from fin to init of cost
// T (the deadline), and one from every other event to fin of cost minus
// its longest path there (a row of the full event graph that the key
// events' rows into fin may fall short of: with it the solutions at the
// least energy need fewer rounds of rows on demand, and with the deadline
// it bounds every event's time, t_c ≤ T − ℓ(c), as the LP's column
// bounds do; a deadline arc from every event, the same bound, made each
// new deadline's pivots dearer).
// The flow's potentials are the optimal times (t = π(init) − π) and the
// flow on the deadline arc is the frontier's slope −dE/dT.
//
// A sweep over deadlines changes only the deadline arc's cost, under
// which the last tree stays a feasible flow: the primal network simplex
// (package mcf) re-solves from it. Rows found on demand (settle, as the
// LP's) are new arcs at flow 0, feasible too.

// flowNet is the frontier's minimum-cost flow.
type flowNet struct {
	g    *mcf.Network
	init int // the init event's node (its time column)
	// deadline is fin's arc to init, of cost the deadline.
	deadline int
	arcOf    []int32 // per f.keys.Rows: its arc, −1 none
	// hv lists, per task, the configurations on the lower convex hull of
	// its (time, energy) points (hs[i] to hs[i+1]), as their places in
	// the LP's columns, with their times (units of f.tau).
	hv  []int32
	hs  []int32
	ht  []float64
	t   []float64 // event times (seconds), for Check
	x   []float64 // the LP's columns
	end float64   // the deadline solved at last (units of f.tau)
	// known are the deadlines solved so far, by deadline, with their
	// energies and slopes: exact, so rows added later change none.
	known []solved
}

// solved is one deadline's solution: the deadline t (units of f.tau), the
// least energy e (units of f.esc) and the slope −dE/dT there.
type solved struct{ t, e, slope float64 }

// flowTol is the pricing tolerance of the flow's simplex, in the LP's
// unit of time: a reduced cost above −flowTol prices out.
const flowTol = 1e-12

// newFlow writes the minimum-cost flow of the energy LP p (problem).
func (f *Frontier) newFlow(p *clp.Problem) *flowNet {
	d, o := f.d, f.o
	n := f.nkey
	g := mcf.New(n)
	g.SetTolerance(flowTol)
	nw := &flowNet{g: g, init: f.kcol[o.Event[d.Init]], t: make([]float64, o.Events), x: make([]float64, len(p.Obj))}
	sum := 0.0
	for c := range n {
		if c != nw.init {
			g.SetSupply(c, -p.Obj[c])
			sum += p.Obj[c]
		}
	}
	g.SetSupply(nw.init, sum)
	col := f.nkey
	nw.hs = append(nw.hs, 0)
	for i := range d.Tasks {
		h := d.Tasks[i].Hull
		src, dst := f.kcol[o.Event[d.Tasks[i].Src]], f.kcol[o.Event[d.Tasks[i].Dst]]
		f.taskArcs(nw, src, dst, col, h, p.Obj[col:col+len(h)])
		col += len(h)
	}
	nw.arcOf = make([]int32, len(f.keys.Rows))
	for j, e := range f.keys.Rows {
		nw.arcOf[j] = -1
		if f.rowOf[j] >= 0 {
			nw.arcOf[j] = int32(g.AddArc(f.kcol[e.From], f.kcol[e.To], mcf.Inf, -e.Len/f.tau))
		}
	}
	for c := range n {
		if c != nw.init {
			g.AddArc(nw.init, c, mcf.Inf, 0) // t_c ≥ 0
			if c == f.fin {
				nw.deadline = g.AddArc(c, nw.init, mcf.Inf, 0)
			} else if !math.IsInf(f.toFin[c], -1) {
				// t_fin − t_c ≥ the longest path from c to fin: a row of
				// the full event graph that the searches' rows into fin
				// may fall short of.
				g.AddArc(c, f.fin, mcf.Inf, -f.toFin[c])
			}
		}
	}
	return nw
}

// taskArcs adds the arcs of one task from node src to node dst: its
// hull's configurations (times h, energies e in the LP's units, columns
// from col) reduced to their lower convex hull, one arc per segment.
func (f *Frontier) taskArcs(nw *flowNet, src, dst, col int, h []frontier.Config, e []float64) {
	first := len(nw.hv)
	nw.hv = lowerHull(nw.hv, len(h), func(g int) float64 { return h[g].Time / f.tau }, func(g int) float64 { return e[g] })
	for j := first; j < len(nw.hv); j++ {
		nw.ht = append(nw.ht, h[nw.hv[j]].Time/f.tau)
		nw.hv[j] += int32(col)
	}
	nw.hs = append(nw.hs, int32(len(nw.hv)))
	// Segment j (from vertex j−1 to j) has slope s_j < 0, rising with j.
	// The flow on the task's arcs is the price of its time: up to |s_m|
	// at its slowest time, then each segment's longer time, the fastest
	// uncapacitated.
	hv, ht := nw.hv[first:], nw.ht[first:]
	slope := func(j int) float64 {
		return (e[hv[j]-int32(col)] - e[hv[j-1]-int32(col)]) / (ht[j] - ht[j-1])
	}
	m := len(hv) - 1
	prev := 0.0
	for j := m; j >= 1; j-- {
		s := -slope(j)
		nw.g.AddArc(src, dst, s-prev, -ht[j])
		prev = s
	}
	nw.g.AddArc(src, dst, mcf.Inf, -ht[0])
}

// flowAt solves the flow with the deadline end (units of f.tau; +Inf:
// none), adding the rows its solutions break, and returns the energy in
// the LP's unit and the slope −dE/dT there (the flow on the deadline
// arc); nw.x holds the LP's columns.
func (f *Frontier) flowAt(end float64) (e, slope float64, err error) {
	if math.IsInf(end, 1) {
		return f.flowLeast()
	}
	nw := f.nw
	nw.end = end
	nw.g.SetCost(nw.deadline, end)
	for round := 0; ; round++ {
		if err := nw.g.Solve(); err != nil {
			return 0, 0, err
		}
		f.flowTimes()
		changed := f.keys.Check(nw.t, settleTol*f.tau)
		if len(changed) == 0 {
			break
		}
		if round == maxRounds {
			return 0, 0, fmt.Errorf("%d rounds of rows added (%d rows), and the solution still breaks %d", round, len(f.keys.Rows), len(changed))
		}
		f.rounds++
		f.added += len(changed)
		f.growFlow(changed)
	}
	slope = nw.g.Flow(nw.deadline)
	f.flowColumns()
	for c, v := range nw.x {
		e += f.obj[c] * v
	}
	j, found := slices.BinarySearchFunc(nw.known, end, func(p solved, t float64) int { return cmp.Compare(p.t, t) })
	if !found {
		nw.known = slices.Insert(nw.known, j, solved{end, e, slope})
	}
	return e, slope, nil
}

// flowLeast is flowAt at no deadline: at a deadline where the deadline
// arc carries no flow the frontier is flat from there on (it is convex
// and non-increasing), so it doubles a deadline from 4 least makespans
// until it carries none.
func (f *Frontier) flowLeast() (e, slope float64, err error) {
	end := math.Max(4, 2*f.nw.end)
	for k := 0; k < 64; k++ {
		if e, slope, err = f.flowAt(end); err != nil || slope == 0 {
			return e, 0, err
		}
		end *= 2
	}
	return 0, 0, fmt.Errorf("the least energy needs a deadline beyond %g s", end*f.tau)
}

// flowTimes sets nw.t (seconds) at the key events from the potentials.
func (f *Frontier) flowTimes() {
	nw := f.nw
	pi0 := nw.g.Potential(nw.init)
	for k, c := range f.kcol {
		if c >= 0 {
			nw.t[k] = (pi0 - nw.g.Potential(c)) * f.tau
		}
	}
}

// flowColumns sets nw.x, the LP's columns, from nw.t: the time columns,
// and per task the mix of the two configurations of its lower hull
// around its duration, the least of its gap and its slowest time.
func (f *Frontier) flowColumns() {
	nw, d, o := f.nw, f.d, f.o
	clear(nw.x)
	for k, c := range f.kcol {
		if c >= 0 {
			nw.x[c] = nw.t[k] / f.tau
		}
	}
	for i := range d.Tasks {
		t := &d.Tasks[i]
		gap := nw.x[f.kcol[o.Event[t.Dst]]] - nw.x[f.kcol[o.Event[t.Src]]]
		hv, ht := nw.hv[nw.hs[i]:nw.hs[i+1]], nw.ht[nw.hs[i]:nw.hs[i+1]]
		j := 1
		for j < len(hv)-1 && gap > ht[j] {
			j++
		}
		if len(hv) == 1 || gap >= ht[len(ht)-1] {
			nw.x[hv[len(hv)-1]] = 1
			continue
		}
		if gap <= ht[0] {
			nw.x[hv[0]] = 1
			continue
		}
		// Share a at vertex j−1: a·t_{j−1} + (1−a)·t_j = gap.
		a := (ht[j] - gap) / (ht[j] - ht[j-1])
		nw.x[hv[j-1]] = a
		nw.x[hv[j]] = 1 - a
	}
}

// growFlow adds the rows of f.keys.Rows at the places changed (added or
// lengthened by Check) to the flow, as arcs, and to the LP's rows (its
// size in Stats).
func (f *Frontier) growFlow(changed []int) {
	nw := f.nw
	for _, j := range changed {
		for len(f.rowOf) <= j {
			f.rowOf = append(f.rowOf, -1)
			nw.arcOf = append(nw.arcOf, -1)
		}
		e := f.keys.Rows[j]
		if a := nw.arcOf[j]; a >= 0 {
			nw.g.SetCost(int(a), -e.Len/f.tau)
			f.rows.lo[f.rowOf[j]] = e.Len / f.tau
			continue
		}
		f.rowOf[j] = int32(len(f.rows.lo))
		f.precedenceRow(&f.rows, e)
		nw.arcOf[j] = int32(nw.g.AddArc(f.kcol[e.From], f.kcol[e.To], mcf.Inf, -e.Len/f.tau))
	}
}

// flowBelowSlowest solves, after the least energy, deadlines below the
// makespan of its schedule, from a thousandth of the least makespan
// below it and twice as far each time, until one needs more energy than
// budgetJ (or the least makespan is reached): flowTimeFor's Newton steps
// for a budget just above the least energy then start there, a few small
// steps from the slowest deadline, rather than from the least makespan.
// The least energy's schedule meets its own makespan, so the slowest
// deadline lies at or below it.
func (f *Frontier) flowBelowSlowest(budgetJ float64) error {
	b := budgetJ / f.esc
	tol := budgetTol * math.Max(1, math.Abs(b))
	fast := f.fast / f.tau
	m := f.nw.t[f.o.Event[f.d.Fin]] / f.tau
	for step := 1e-3 * fast; ; step *= 2 {
		t := m - step
		if t <= fast {
			return nil
		}
		e, _, err := f.flowAt(t)
		if err != nil || e-b > tol {
			return err
		}
	}
}

// maxNewton bounds the deadlines flowTimeFor solves for one budget.
const maxNewton = 200

// flowTimeFor is TimeFor on the flow: Newton's method on the frontier
// E(T) − budget from the left of the answer. E is convex and
// non-increasing, so each step, where the tangent at T meets the budget,
// stays at or below the least deadline that meets it, and on a
// piecewise-linear E it lands there after finitely many steps (the slope
// is the flow on the deadline arc: at a breakpoint, one of the slopes
// on either side, and a step from the left one lands short of the next
// piece, never past the answer).
func (f *Frontier) flowTimeFor(budgetJ float64) (float64, error) {
	b := budgetJ / f.esc
	tol := budgetTol * math.Max(1, math.Abs(b))
	// Start from the latest deadline solved whose energy is above the
	// budget (its slope known), else from the least makespan.
	t := f.fast / f.tau
	var e, slope float64
	have := false
	for _, p := range f.nw.known {
		if p.e-b > tol && p.t >= t {
			t, e, slope, have = p.t, p.e, p.slope, true
		}
	}
	for range maxNewton {
		if !have {
			var err error
			if e, slope, err = f.flowAt(t); err != nil {
				return 0, fmt.Errorf("energy: budget %g J: %w", budgetJ, err)
			}
		}
		have = false
		if e-b <= tol {
			return t * f.tau, nil
		}
		if !(slope > 0) {
			return 0, fmt.Errorf("energy: budget %g J: no schedule of the order fits (the least energy is %.12g J)", budgetJ, e*f.esc)
		}
		next := t + (e-b)/slope
		if !(next > t) {
			return t * f.tau, nil // the step is below float64's resolution
		}
		t = next
	}
	return 0, fmt.Errorf("energy: budget %g J: no deadline found in %d steps", budgetJ, maxNewton)
}

// budgetTol is how far above a budget, relative to it, an energy is
// taken to meet it: the flow's energies are exact to rounding.
const budgetTol = 1e-13
