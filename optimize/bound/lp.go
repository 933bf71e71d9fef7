package bound

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
)

// Options controls the LP.
type Options struct {
	Method    clp.Method // default clp.Auto: dual simplex when small, barrier when large
	TimeLimit float64    // seconds per solve, 0 for none
}

// Stats describes the LP.
type Stats struct {
	Variables int     `json:"variables"`
	Rows      int     `json:"rows"`
	Nonzeros  int     `json:"nonzeros"`
	SolveS    float64 `json:"solve_s"`
	Iter      int     `json:"iterations"`
}

// Bound is the LP's optimal schedule at one cap.
type Bound struct {
	CapW     float64
	Makespan float64   // v_fin, the bound
	Vertex   []float64 // vertex times
	Duration []float64 // per task
	Power    []float64 // per task: the hull's power at Duration (≤ the LP's p_i, §2.7 canonicalization)
	Stats    Stats
}

// Solver holds a built LP for one DAG and order, to solve at many caps.
type Solver struct {
	d      *DAG
	o      *Order
	opt    Options
	model  *clp.Model
	colUp  []float64
	pCol0  int // first P_k column
	minCap float64
	minAt  int
	stats  Stats
	solved bool
}

// NewSolver builds the LP of d with the fixed order o.
func NewSolver(d *DAG, o *Order, opt Options) (*Solver, error) {
	if opt.Method == 0 {
		opt.Method = clp.Auto
	}
	s := &Solver{d: d, o: o, opt: opt}
	s.minCap, s.minAt = MinFeasibleCap(d, o)
	p, err := s.build()
	if err != nil {
		return nil, err
	}
	m, err := clp.Load(p)
	if err != nil {
		return nil, err
	}
	m.SetTimeLimit(opt.TimeLimit)
	s.model = m
	s.colUp = p.ColUp
	return s, nil
}

// Close frees the solver's LP.
func (s *Solver) Close() {
	if s.model != nil {
		s.model.Close()
	}
}

// MinFeasibleCap returns the least feasible cap and the event needing it.
func (s *Solver) MinFeasibleCap() (float64, int) { return s.minCap, s.minAt }

type triplet struct {
	row, col int
	v        float64
}

func (s *Solver) build() (*clp.Problem, error) {
	d, o := s.d, s.o
	V, N, K := d.Vertices, len(d.Tasks), o.Events
	ncol := V + 2*N + K
	s.pCol0 = V + 2*N
	inf := math.Inf(1)
	p := &clp.Problem{ColLo: make([]float64, ncol), ColUp: make([]float64, ncol), Obj: make([]float64, ncol)}
	for v := 0; v < V; v++ {
		p.ColUp[v] = inf
	}
	p.ColUp[d.Init] = 0 // (2) v_init = 0
	p.Obj[d.Fin] = 1    // (1) minimize v_fin
	for i, t := range d.Tasks {
		h := t.Hull
		p.ColLo[V+2*i], p.ColUp[V+2*i] = h[0].Time, h[len(h)-1].Time
		p.ColLo[V+2*i+1], p.ColUp[V+2*i+1] = h[len(h)-1].Power, h[0].Power
	}
	for k := 0; k < K; k++ {
		p.ColLo[s.pCol0+k], p.ColUp[s.pCol0+k] = -inf, inf
	}
	var ts []triplet
	row := 0
	addRow := func(lo, up float64, entries ...triplet) {
		for _, e := range entries {
			ts = append(ts, triplet{row, e.col, e.v})
		}
		p.RowLo = append(p.RowLo, lo)
		p.RowUp = append(p.RowUp, up)
		row++
	}
	e := func(col int, v float64) triplet { return triplet{col: col, v: v} }
	// (3)(4) + Finalize fix: v_dst − v_src − d_i ≥ 0 for every task.
	for i, t := range d.Tasks {
		addRow(0, inf, e(t.Dst, 1), e(t.Src, -1), e(V+2*i, -1))
	}
	// Message edges: v_dst − v_src ≥ time.
	for _, m := range d.Messages {
		addRow(m.Time, inf, e(m.Dst, 1), e(m.Src, -1))
	}
	// (7)(8)(9)(11) on a convex hull: p_i above every segment's line.
	for i, t := range d.Tasks {
		h := t.Hull
		for k := 0; k+1 < len(h); k++ {
			sl := frontier.Slope(h, k)
			addRow(h[k].Power-sl*h[k].Time, inf, e(V+2*i+1, 1), e(V+2*i, -sl))
		}
	}
	// (14)(15): the event chain and equal times within an event.
	reps := make([]int, K)
	for k := range reps {
		reps[k] = -1
	}
	order := make([]int, V)
	for v := range order {
		order[v] = v
	}
	sort.SliceStable(order, func(a, b int) bool { return o.Event[order[a]] < o.Event[order[b]] })
	for _, v := range order {
		k := o.Event[v]
		if reps[k] < 0 {
			reps[k] = v
			if k > 0 {
				addRow(0, inf, e(v, 1), e(reps[k-1], -1))
			}
			continue
		}
		addRow(0, 0, e(v, 1), e(reps[k], -1))
	}
	// (12)(13) in delta form: P_k − P_{k−1} − Σ starts + Σ ends = 0, P_k ≤ cap.
	starts := make([][]int, K)
	ends := make([][]int, K)
	for i, t := range d.Tasks {
		a, b := o.Event[t.Src], o.Event[t.Dst]
		if a >= b {
			continue // never active
		}
		starts[a] = append(starts[a], i)
		ends[b] = append(ends[b], i)
	}
	for k := 0; k < K; k++ {
		ents := []triplet{e(s.pCol0+k, 1)}
		if k > 0 {
			ents = append(ents, e(s.pCol0+k-1, -1))
		}
		for _, i := range starts[k] {
			ents = append(ents, e(V+2*i+1, -1))
		}
		for _, i := range ends[k] {
			ents = append(ents, e(V+2*i+1, 1))
		}
		addRow(0, 0, ents...)
	}
	// Triplets to compressed columns.
	sort.SliceStable(ts, func(a, b int) bool {
		if ts[a].col != ts[b].col {
			return ts[a].col < ts[b].col
		}
		return ts[a].row < ts[b].row
	})
	p.Start = make([]int32, ncol+1)
	for _, t := range ts {
		p.Start[t.col+1]++
		p.Index = append(p.Index, int32(t.row))
		p.Value = append(p.Value, t.v)
	}
	for c := 0; c < ncol; c++ {
		p.Start[c+1] += p.Start[c]
	}
	s.stats = Stats{Variables: ncol, Rows: row, Nonzeros: len(ts)}
	return p, p.Validate()
}

// Solve returns the bound at capW, re-solving from the previous basis
// after the first call.
func (s *Solver) Solve(capW float64) (*Bound, error) {
	if capW < s.minCap-1e-9 {
		return nil, &InfeasibleError{CapW: capW, MinCapW: s.minCap, Event: s.minAt, EventTasks: s.o.Active[s.minAt]}
	}
	for k := 0; k < s.o.Events; k++ {
		s.colUp[s.pCol0+k] = capW
	}
	if err := s.model.SetColumnUpper(s.colUp); err != nil {
		return nil, err
	}
	start := time.Now()
	var res *clp.Result
	var err error
	if s.solved {
		res, err = s.model.Resolve()
	} else {
		res, err = s.model.Solve(s.opt.Method)
		s.solved = err == nil
	}
	if err != nil {
		return nil, fmt.Errorf("bound at %g W: %w", capW, err)
	}
	st := s.stats
	st.SolveS, st.Iter = time.Since(start).Seconds(), res.Iterations
	d := s.d
	V := d.Vertices
	b := &Bound{CapW: capW, Makespan: res.Objective, Vertex: res.X[:V], Stats: st,
		Duration: make([]float64, len(d.Tasks)), Power: make([]float64, len(d.Tasks))}
	for i, t := range d.Tasks {
		b.Duration[i] = res.X[V+2*i]
		b.Power[i] = frontier.PowerAt(t.Hull, b.Duration[i])
	}
	return b, nil
}

// WriteMPS writes the LP as last solved (its objective is the makespan).
func (s *Solver) WriteMPS(path string) error { return s.model.WriteMPS(path) }
