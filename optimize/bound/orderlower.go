package bound

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/capsim/capsim/optimize/clp"
)

// OrderFreeLower returns a lower bound in seconds on the makespan of every
// schedule of d whose task power stays within capW on average, whatever
// the order of its events and of its resources' items: the least makespan
// of an LP that keeps only the DAG's precedence (its tasks and message
// edges, with their latencies, less res's order edges: each resource may
// serve its items in any order), each task's time–energy hull (a duration
// between its fastest and slowest time, an energy above the lower convex
// envelope of its hull points' energies) and the job's energy, Σ task
// energy ≤ capW × makespan; and no less than the most work one resource
// serves, its items one at a time in any order (Resources.loadBound). It
// leaves out the fixed order's power rows
// (Bailey et al., SC'15, §2.5), the resources' one-at-a-time rule but
// for that sum, the loads and the shared devices, each of which only raises the optimum, so
// it holds for schedules that leave the LP's orders too, below the
// fixed-order bound (Solver) and the order-free optimum (OrderFree). res
// may be nil: every edge of d is then a dependency. capW is the LP's cap:
// the cores' task power, without the machine's base power.
func OrderFreeLower(ctx context.Context, d *DAG, res *Resources, capW float64) (float64, error) {
	if !(capW > 0) || math.IsInf(capW, 0) {
		return 0, fmt.Errorf("bound: order-free lower bound: cap %g W: want a positive finite cap", capW)
	}
	if err := d.Validate(); err != nil {
		return 0, err
	}
	if err := res.check(d); err != nil {
		return 0, err
	}
	if res != nil {
		d = res.free(d)
	}
	load := res.loadBound(d)
	g, err := contract(d)
	if err != nil {
		return 0, err
	}
	var fastJ float64 // every task at its fastest
	for _, t := range d.Tasks {
		fastJ += t.Hull[0].Time * t.Hull[0].Power
	}
	if fastJ <= capW*g.fastest {
		return math.Max(g.fastest, load), nil // no schedule is faster, and this one fits
	}
	tau := lowerUnit(d)
	p, err := lowerProblem(d, g, capW, tau)
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
	return math.Max(load, r.Objective*tau), nil
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

// keyGraph is the DAG with only its key vertices, Init, Fin and the
// tasks' ends: every path of message edges between two of them through
// the others becomes one edge of its longest time, which is all the
// precedence a schedule's key vertices must keep.
type keyGraph struct {
	n         int       // key vertices
	init, fin int       // their indices
	src, dst  []int     // per task
	edges     []Message // between key vertices
	// fastest is Fin's time, in seconds, with every task at its fastest:
	// the least makespan at any cap.
	fastest float64
}

// contract builds d's keyGraph.
func contract(d *DAG) (*keyGraph, error) {
	key := make([]int, d.Vertices)
	for v := range key {
		key[v] = -1
	}
	g := &keyGraph{src: make([]int, len(d.Tasks)), dst: make([]int, len(d.Tasks))}
	mark := func(v int) int {
		if key[v] < 0 {
			key[v] = g.n
			g.n++
		}
		return key[v]
	}
	g.init, g.fin = mark(d.Init), mark(d.Fin)
	for i, t := range d.Tasks {
		g.src[i], g.dst[i] = mark(t.Src), mark(t.Dst)
	}
	out := make([][]int, d.Vertices) // message indices by source
	in := make([]int, d.Vertices)
	for k, m := range d.Messages {
		out[m.Src] = append(out[m.Src], k)
		in[m.Dst]++
	}
	for _, t := range d.Tasks {
		in[t.Dst]++
	}
	order := make([]int, 0, d.Vertices) // topological (Kahn)
	for v := range d.Vertices {
		if in[v] == 0 {
			order = append(order, v)
		}
	}
	taskOut := make([][]int, d.Vertices)
	for i, t := range d.Tasks {
		taskOut[t.Src] = append(taskOut[t.Src], i)
	}
	for h := 0; h < len(order); h++ {
		v := order[h]
		for _, k := range out[v] {
			w := d.Messages[k].Dst
			if in[w]--; in[w] == 0 {
				order = append(order, w)
			}
		}
		for _, i := range taskOut[v] {
			w := d.Tasks[i].Dst
			if in[w]--; in[w] == 0 {
				order = append(order, w)
			}
		}
	}
	if len(order) != d.Vertices {
		return nil, fmt.Errorf("bound: order-free lower bound: the DAG has a cycle")
	}
	pos := make([]int, d.Vertices)
	for p, v := range order {
		pos[v] = p
	}
	g.fastest = fastest(d, order, out, taskOut)
	dist := make([]float64, d.Vertices)
	for v := range dist {
		dist[v] = math.Inf(-1)
	}
	var touched []int
	for _, u := range order {
		if key[u] < 0 || len(out[u]) == 0 {
			continue
		}
		dist[u] = 0
		touched = append(touched[:0], u)
		best := map[int]float64{}
		for p := pos[u]; p < len(order) && len(touched) > 0; p++ {
			v := order[p]
			if math.IsInf(dist[v], -1) {
				continue
			}
			if v != u && key[v] >= 0 {
				if old, ok := best[v]; !ok || dist[v] > old {
					best[v] = dist[v]
				}
				continue
			}
			for _, k := range out[v] {
				m := d.Messages[k]
				if dist[m.Src]+m.Time > dist[m.Dst] {
					if math.IsInf(dist[m.Dst], -1) {
						touched = append(touched, m.Dst)
					}
					dist[m.Dst] = dist[m.Src] + m.Time
				}
			}
		}
		for _, v := range touched {
			dist[v] = math.Inf(-1)
		}
		for v, t := range best {
			g.edges = append(g.edges, Message{Src: key[u], Dst: key[v], Time: t})
		}
	}
	slices.SortFunc(g.edges, func(a, b Message) int { return cmp.Or(cmp.Compare(a.Src, b.Src), cmp.Compare(a.Dst, b.Dst)) })
	return g, nil
}

// fastest is Fin's time in d with every task at its fastest, as soon as
// possible in the topological order.
func fastest(d *DAG, order []int, out, taskOut [][]int) float64 {
	at := make([]float64, d.Vertices)
	for _, v := range order {
		for _, k := range out[v] {
			m := d.Messages[k]
			at[m.Dst] = math.Max(at[m.Dst], at[v]+m.Time)
		}
		for _, i := range taskOut[v] {
			t := d.Tasks[i]
			at[t.Dst] = math.Max(at[t.Dst], at[v]+t.Hull[0].Time)
		}
	}
	return at[d.Fin]
}

// lowerProblem is OrderFreeLower's LP in units of tau over d's keyGraph
// g: a column per key vertex (its time), then per task of several hull
// points its duration and its energy (W·tau); the objective is Fin's
// time.
func lowerProblem(d *DAG, g *keyGraph, capW, tau float64) (*clp.Problem, error) {
	inf := math.Inf(1)
	ncol := g.n
	col := make([]int, len(d.Tasks))
	for i, t := range d.Tasks {
		col[i] = -1
		if len(t.Hull) > 1 {
			col[i] = ncol
			ncol += 2
		}
	}
	p := &clp.Problem{ColLo: make([]float64, ncol), ColUp: make([]float64, ncol), Obj: make([]float64, ncol)}
	for v := range g.n {
		p.ColUp[v] = inf
	}
	p.ColUp[g.init] = 0
	p.Obj[g.fin] = 1
	var ts triplets
	row := func(lo, up float64) {
		p.RowLo = append(p.RowLo, lo)
		p.RowUp = append(p.RowUp, up)
		ts.rows++
	}
	var fixedJ float64 // the energy of the tasks of one hull point, J/tau
	for i, t := range d.Tasks {
		h := t.Hull
		ts.add(int32(g.dst[i]), 1)
		ts.add(int32(g.src[i]), -1)
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
	for _, m := range g.edges {
		ts.add(int32(m.Dst), 1)
		ts.add(int32(m.Src), -1)
		row(m.Time/tau, inf)
	}
	for i := range d.Tasks { // Σ e_i ≤ cap·T
		if c := col[i]; c >= 0 {
			ts.add(int32(c+1), 1)
		}
	}
	ts.add(int32(g.fin), -capW)
	row(-inf, -fixedJ)
	p.Start, p.Index, p.Value = ts.csc(ncol)
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("bound: order-free lower bound: %w", err)
	}
	return p, nil
}
