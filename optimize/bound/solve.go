package bound

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
)

// solve is SolveContext for the LP as loaded.
func (s *Solver) solve(ctx context.Context, capW float64) (*Bound, error) {
	if capW < s.minCap-1e-9 {
		return nil, &InfeasibleError{CapW: capW, MinCapW: s.minCap, Event: s.minAt, EventTasks: s.o.Active(s.d, s.minAt)}
	}
	st := s.stats
	start := time.Now()
	bs := s.planSolve(ctx, capW)
	bs.each(bs.alone, func(js []int) { bs.work(js[0]) })
	if ctx.Err() == nil {
		bs.each(bs.chains, bs.chainWork)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("bound at %g W: %w", capW, err)
	}
	for j := range s.blocks {
		if bs.twin[j] >= 0 && !bs.scratch[j] {
			s.twins++
		}
	}
	out, err := s.collect(bs, &st)
	if err != nil {
		return nil, err
	}
	s.capW = capW
	out.Makespan = out.Vertex[s.d.Fin]
	if s.opt.NodeOf != nil {
		s.nodeSlack.nodeOf = s.opt.NodeOf
		compact(s.d, s.o, out, &s.nodeSlack)
	} else {
		compact(s.d, s.o, out, jobSlack{&s.slack})
	}
	st.SolveS = time.Since(start).Seconds()
	out.Stats = st
	return out, nil
}

// blockSolve is one solve of every block of a Solver at a cap: how each
// block is solved and what came out.
//
// A block to solve from scratch whose shape an earlier one's has (the
// same rows, columns and sparsity pattern: a code's time steps, cut
// alike) starts instead from the optimal basis of an earlier block of its
// shape (twin[j] ≥ 0), nearly its own: the first block of each shape is
// solved from scratch first, then the others in chains of twinChain
// blocks in order, each chain's first from the first block's basis and
// the others from their predecessor's, the chains on the goroutines. The
// chains do not depend on the goroutines, so neither do the results; any
// basis gives the optimum.
type blockSolve struct {
	s      *Solver
	ctx    context.Context
	capW   float64
	res    []*clp.Result
	errs   []error
	warm   []bool
	method []clp.Method
	twin   []int
	basis  [][]byte // per block some twin starts from: its basis
	// scratch[j] is set for a twin that solves from scratch after all:
	// its shape's first block took under twinMinIter iterations from
	// scratch (no basis can save much there), or an earlier twin of its
	// chain took more iterations from its predecessor's basis than the
	// first block took from scratch (the basis misleads the dual simplex:
	// on the synthetic DAG of BenchmarkBoundMillion, 10 iterations a block
	// from scratch, 700 from a twin's basis). Both depend on the chain's
	// own solves alone, never on the goroutines.
	scratch       []bool
	alone, chains [][]int // the blocks solved first, one by one; the twins' chains
}

// planSolve decides how each block is solved at capW: its method, and
// the twin whose basis it starts from (see blockSolve).
func (s *Solver) planSolve(ctx context.Context, capW float64) *blockSolve {
	n := len(s.blocks)
	bs := &blockSolve{s: s, ctx: ctx, capW: capW, res: make([]*clp.Result, n), errs: make([]error, n), warm: make([]bool, n),
		method: make([]clp.Method, n), twin: make([]int, n), basis: make([][]byte, n), scratch: make([]bool, n)}
	type shapeRun struct {
		first, prev, n, chain int // its first block, last twin, twins, chain
	}
	runs := map[uint64][]*shapeRun{}
	for j, b := range s.blocks {
		bs.method[j] = s.method(b)
		bs.twin[j] = -1
		var run *shapeRun
		if !s.opt.noTwins && capW < b.needFast && !(b.solved && s.opt.KeepBasis) && bs.method[j] != clp.BarrierNoCross {
			for _, r := range runs[b.shape] {
				if sameShape(s.blocks[r.first], b) {
					run = r
					break
				}
			}
			if run == nil {
				runs[b.shape] = append(runs[b.shape], &shapeRun{first: j})
			}
		}
		if run == nil {
			bs.alone = append(bs.alone, []int{j})
			continue
		}
		if run.n%twinChain == 0 {
			bs.twin[j] = run.first
			run.chain = len(bs.chains)
			bs.chains = append(bs.chains, nil)
		} else {
			bs.twin[j] = run.prev
		}
		bs.chains[run.chain] = append(bs.chains[run.chain], j)
		bs.basis[bs.twin[j]] = []byte{} // read after its solve
		run.prev = j
		run.n++
	}
	return bs
}

// work solves block j at the cap as planned.
func (bs *blockSolve) work(j int) {
	ctx, capW, s := bs.ctx, bs.capW, bs.s
	b := s.blocks[j]
	if bs.errs[j] = ctx.Err(); bs.errs[j] != nil {
		return
	}
	for _, c := range b.pCol {
		b.colUp[c] = capW
	}
	if err := b.model.SetColumnUpper(b.colUp); err != nil {
		bs.errs[j] = err
		return
	}
	switch {
	case capW >= b.needFast:
		bs.method[j] = -1 // the fastest schedule, no LP
		return
	case b.solved && s.opt.KeepBasis:
		bs.res[j], bs.errs[j] = b.model.ResolveContext(ctx)
		bs.warm[j], bs.method[j] = true, clp.Dual
		return
	case bs.twin[j] >= 0 && !bs.scratch[j]:
		if bs.errs[j] = b.model.SetBasis(bs.basis[bs.twin[j]]); bs.errs[j] == nil {
			bs.res[j], bs.errs[j] = b.model.ResolveContext(ctx)
		}
		bs.method[j] = clp.Dual
	default:
		bs.res[j], bs.errs[j] = b.model.SolveContext(ctx, bs.method[j])
	}
	b.solved = bs.errs[j] == nil
	if b.solved && bs.basis[j] != nil {
		bs.basis[j], bs.errs[j] = b.model.Basis()
	}
}

// chainWork solves a chain of twins in order (see blockSolve.scratch).
func (bs *blockSolve) chainWork(js []int) {
	first := bs.twin[js[0]]
	i0 := -1 // the iterations of the shape's first block, from scratch
	if r := bs.res[first]; r != nil && bs.errs[first] == nil && !bs.warm[first] {
		i0 = r.Iterations
	}
	cold := i0 < twinMinIter
	for _, j := range js {
		bs.scratch[j] = cold
		bs.work(j)
		if !cold && bs.res[j] != nil && bs.res[j].Iterations > i0 {
			cold = true
		}
	}
}

// each runs run on every list of blocks of todo, on the Solver's
// goroutines.
func (bs *blockSolve) each(todo [][]int, run func(js []int)) {
	ctx := bs.ctx
	w := min(bs.s.opt.Workers, len(todo))
	if w <= 1 {
		for _, js := range todo {
			run(js)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan []int)
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for js := range next {
				run(js)
			}
		}()
	}
	for _, js := range todo {
		if ctx.Err() != nil {
			for _, j := range js {
				bs.errs[j] = ctx.Err()
			}
			continue
		}
		next <- js
	}
	close(next)
	wg.Wait()
}

// collect puts the blocks' solutions end to end into one schedule,
// counting their iterations in st.
func (s *Solver) collect(bs *blockSolve, st *Stats) (*Bound, error) {
	d := s.d
	out := &Bound{CapW: bs.capW, Vertex: make([]float64, d.Vertices),
		Duration: make([]float64, len(d.Tasks)), Power: make([]float64, len(d.Tasks))}
	var offset float64
	for j, b := range s.blocks {
		if bs.errs[j] != nil {
			return nil, fmt.Errorf("bound at %g W, LP of events %d–%d: %w", bs.capW, b.lo, b.hi, bs.errs[j])
		}
		r := bs.res[j]
		if r == nil { // every task at its fastest, as soon as possible
			s.fastest(out, b, offset)
			offset += b.fastLen
			continue
		}
		st.Iter += r.Iterations
		st.Method, st.Warm = bs.method[j].String(), bs.warm[j]
		s.fill(out, b, r, offset)
		offset += r.Objective * b.tau
	}
	return out, nil
}

// fastest writes block b's part of out as its fastest schedule, as soon
// as possible, from offset seconds.
func (s *Solver) fastest(out *Bound, b *block, offset float64) {
	t0 := s.o.Times[b.verts[0]]
	for _, v := range b.verts {
		out.Vertex[v] = offset + s.o.Times[v] - t0
	}
	for _, i := range b.tasks {
		h := s.d.Tasks[i].Hull
		out.Duration[i], out.Power[i] = h[0].Time, h[0].Power
	}
}

// fill writes block b's part of out from its LP solution r, from offset
// seconds.
func (s *Solver) fill(out *Bound, b *block, r *clp.Result, offset float64) {
	t := make([]float64, len(b.key))
	for e, c := range b.kcol {
		if c >= 0 {
			t[e] = r.X[c] * b.tau
		}
	}
	b.events.fill(b.key, t)
	for k, v := range b.verts {
		out.Vertex[v] = offset + t[b.vev[k]]
	}
	for _, i := range b.tasks {
		tk := &s.d.Tasks[i]
		c, h := s.taskCol[i], tk.Hull
		var dur float64
		switch {
		case c < 0:
			dur = h[0].Time
		case s.opt.Form == FormMix:
			for g := range h {
				dur += h[g].Time * r.X[int(c)+g]
			}
		case s.opt.Form == FormIncrement:
			dur = h[0].Time
			for g := 0; g+1 < len(h); g++ {
				dur += r.X[int(c)+g] * b.tau
			}
		default:
			dur = r.X[c] * b.tau
		}
		// The canonical form: the mix of the two adjacent hull points
		// with the same duration, which never needs more power.
		dur = math.Min(math.Max(dur, h[0].Time), h[len(h)-1].Time)
		out.Duration[i], out.Power[i] = dur, frontier.PowerAt(h, dur)
	}
}
