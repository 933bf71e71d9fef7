package energy

import (
	"errors"
	"fmt"
	"math"

	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
)

// Schedule is the frontier's schedule at one deadline: the LP's vertex
// times and every task's mix of configurations, as a policy replays it.
type Schedule struct {
	// Deadline is the deadline solved at and Energy the least energy
	// (joules) of a schedule that keeps the order and ends by it.
	Deadline, Energy float64
	// Makespan is the schedule's end (v_fin), at most Deadline.
	Makespan float64
	// Vertex is every vertex's time in seconds (the time of its event).
	Vertex []float64
	// Tasks is every task's configurations: at most two points of its
	// hull, the share of its work at the faster one, its duration and
	// its time-averaged power (bound.Choice; Switched where it mixes
	// two).
	Tasks []bound.Choice
}

// ScheduleAt solves the frontier at deadline (seconds, as EnergyAt) and
// returns its schedule. A task the LP runs as a mix of more than two
// configurations (possible where cap rows bind) takes instead the mix
// of two that spends the least energy at the LP's duration (on the
// lower convex hull of its configurations' (time, energy) points).
func (f *Frontier) ScheduleAt(deadline float64) (*Schedule, error) {
	e, x, err := f.solveAt(deadline)
	if err != nil {
		return nil, err
	}
	d, o := f.d, f.o
	s := &Schedule{Deadline: deadline, Energy: e, Makespan: x[f.fin] * f.tau,
		Vertex: make([]float64, d.Vertices), Tasks: make([]bound.Choice, len(d.Tasks))}
	t := make([]float64, o.Events)
	for k, c := range f.kcol {
		if c >= 0 {
			t[k] = x[c] * f.tau
		}
	}
	f.keys.Fill(t) // seconds, as the rows' lengths
	for v := range s.Vertex {
		s.Vertex[v] = math.Max(0, t[o.Event[v]])
	}
	col := f.nkey
	for i := range d.Tasks {
		h := d.Tasks[i].Hull
		s.Tasks[i] = mixOf(h, x[col:col+len(h)])
		col += len(h)
	}
	return s, nil
}

// mixTol is the least share of a task's work the LP's solution counts as
// run in a configuration (CLP's primal tolerance is 10⁻⁷).
const mixTol = 1e-9

// mixOf is the choice of hull h that the LP's fractions c make: the one
// or two configurations it runs, or, where it runs more, the two of least
// energy at its duration.
func mixOf(h []frontier.Config, c []float64) bound.Choice {
	var used []int
	dur, sum := 0.0, 0.0
	for g, v := range c {
		v = math.Max(v, 0)
		dur += v * h[g].Time
		sum += v
		if v > mixTol {
			used = append(used, g)
		}
	}
	if sum > 0 {
		dur /= sum
	}
	switch len(used) {
	case 0:
		return whole(h, 0)
	case 1:
		return whole(h, used[0])
	case 2:
		a, b := used[0], used[1]
		return mix(h, a, b, c[a]/(c[a]+c[b]))
	}
	a, b, frac := energyBracket(h, dur)
	if a == b {
		return whole(h, a)
	}
	return mix(h, a, b, frac)
}

func whole(h []frontier.Config, k int) bound.Choice {
	return bound.Choice{Fast: k, Slow: k, Frac: 1, Time: h[k].Time, Power: h[k].Power, PeakW: h[k].Power}
}

// mix runs the share frac of the work at configuration a (the faster) and
// the rest at b.
func mix(h []frontier.Config, a, b int, frac float64) bound.Choice {
	tf, ts := frac*h[a].Time, (1-frac)*h[b].Time
	t := tf + ts
	return bound.Choice{Fast: a, Slow: b, Frac: frac, Time: t, Power: (tf*h[a].Power + ts*h[b].Power) / t, PeakW: h[a].Power, Switched: true}
}

// energyBracket returns the two configurations of h whose mix at duration
// dur (between h's fastest and slowest) spends the least energy, and the
// share of the work at the faster: the segment of the lower convex hull
// of the (time, energy) points above dur.
func energyBracket(h []frontier.Config, dur float64) (fast, slow int, frac float64) {
	low := lowerHull([]int(nil), len(h), func(g int) float64 { return h[g].Time }, func(g int) float64 { return h[g].Time * h[g].Power })
	for k := 0; k+1 < len(low); k++ {
		a, b := low[k], low[k+1]
		if dur <= h[b].Time {
			// Work share x at a: x·t_a + (1−x)·t_b = dur.
			x := (h[b].Time - dur) / (h[b].Time - h[a].Time)
			return a, b, math.Min(1, math.Max(0, x))
		}
	}
	last := low[len(low)-1]
	return last, last, 1
}

// lowerHull appends to low the points g < n, by time t(g), that lie on
// the lower convex hull of the points (t(g), e(g)): a point drops the
// last one kept while that one lies on or above the line from the one
// before it to the new point.
func lowerHull[I int | int32](low []I, n int, t, e func(g int) float64) []I {
	first := len(low)
	for g := 0; g < n; g++ {
		for len(low)-first >= 2 {
			a, b := int(low[len(low)-2]), int(low[len(low)-1])
			ta, tb, ea, eb := t(a), t(b), e(a), e(b)
			if (tb-ta)*(e(g)-ea)-(eb-ea)*(t(g)-ta) > 0 {
				break
			}
			low = low[:len(low)-1]
		}
		low = append(low, I(g))
	}
	return low
}

// solveAt is EnergyAt that also returns the LP's column values.
func (f *Frontier) solveAt(deadline float64) (float64, []float64, error) {
	if math.IsNaN(deadline) {
		return 0, nil, fmt.Errorf("energy: deadline %g s: want a number of seconds", deadline)
	}
	if deadline < f.fast*(1-1e-9) {
		return 0, nil, fmt.Errorf("energy: deadline %g s is below the least makespan %g s", deadline, f.fast)
	}
	if f.nw != nil {
		end := math.Max(deadline, f.fast) / f.tau
		e, _, err := f.flowAt(end)
		if err != nil {
			return 0, nil, fmt.Errorf("energy: deadline %g s: %w", deadline, err)
		}
		return e * f.esc, f.nw.x, nil
	}
	r, err := f.energyLP(math.Max(deadline, f.fast)/f.tau, false)
	// At the least makespan itself, found by an LP within its tolerance,
	// the energy LP can be primal infeasible by as little (a first solve
	// on examples/scenarios/gpu-training-lp.toml's graph at 600 W): a
	// deadline that much later is the same point.
	for nudge := 1e-9; isInfeasible(err) && deadline <= f.fast*(1+leastTol) && nudge <= leastTol; nudge *= 10 {
		r, err = f.energyLP(f.fast*(1+nudge)/f.tau, true)
	}
	if err != nil {
		return 0, nil, fmt.Errorf("energy: deadline %g s: %w", deadline, err)
	}
	return r.Objective * f.esc, r.X, nil
}

// leastTol is how far above the least makespan, relative to it, a
// deadline at it is solved where the LP is infeasible exactly there.
const leastTol = 1e-6

// energyLP solves the energy LP with v_fin at most end (in the LP's unit
// of time), from the last basis where there is one (or where warm, that
// of a solve that failed) and with the rows it breaks added (settle).
func (f *Frontier) energyLP(end float64, warm bool) (*clp.Result, error) {
	// Every event's time is at most the deadline less its longest path
	// to v_fin: rows the LP has the whole of imply it, and it keeps the
	// LP bounded while it lacks some (settle).
	for c, l := range f.toFin {
		if !math.IsInf(l, -1) {
			f.up[c] = math.Min(f.up0[c], end-l)
		}
	}
	if err := f.em.SetColumnUpper(f.up); err != nil {
		return nil, err
	}
	var r *clp.Result
	var err error
	if f.emSolved || warm {
		r, err = f.em.Resolve()
	} else {
		r, err = f.firstEnergySolve()
	}
	if err != nil {
		return nil, err
	}
	f.emSolved = true
	return f.settle(true, r)
}

// isInfeasible reports whether err is CLP's "primal infeasible".
func isInfeasible(err error) bool {
	var se *clp.StatusError
	return errors.As(err, &se) && se.Status == clp.PrimalInfeasible
}
