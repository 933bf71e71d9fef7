package energy

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
)

// This file is an independent check of the frontier against the
// formulation of Perseus (Chung et al., "Perseus: Reducing Energy Bloat
// in Large Model Training", SOSP'24, §4): on a pipeline-parallel training
// iteration (1F1B), every operation has a convex curve of its effective
// energy (its energy less what the GPU would draw blocked over the same
// time) against its time, quantised to a unit of time, and the
// iteration time–energy frontier is traced from the slowest plan down by
// the Phillips–Dessouky time–cost trade-off: each step shortens the
// critical subgraph by one unit along its least-cost cut, found as a
// minimum cut of a flow with lower bounds (speeding an operation up costs
// its upper bound, slowing one down saves its lower bound). It is a
// peer method over the same DAG and curves, not a second engine: the
// code here follows the paper's algorithm, not its implementation.

// pipeOp is one forward or backward of a microbatch on a stage.
type pipeOp struct {
	stage, mb int
	back      bool
	hull      []frontier.Config // times in whole units
	pred      []int             // operations it waits for
}

// onef1b is the synchronous 1F1B schedule of S stages and M microbatches
// (PipeDream-Flush): stage s runs min(S−s−1, M) forwards, then alternates
// one forward and one backward, then the remaining backwards; a forward
// waits for the previous stage's forward of its microbatch, a backward for
// the next stage's backward (the last stage's for its own forward). It
// returns the operations in every stage's order, stage after stage, and
// each stage's list of operation indices.
func onef1b(S, M int, curve func(stage int, back bool) []frontier.Config) ([]pipeOp, [][]int) {
	var ops []pipeOp
	stages := make([][]int, S)
	idx := map[[3]int]int{}
	for s := range S {
		warm := min(S-s-1, M)
		var seq [][2]int // (mb, back)
		f, b := 0, 0
		for range warm {
			seq = append(seq, [2]int{f, 0})
			f++
		}
		for f < M {
			seq = append(seq, [2]int{f, 0})
			f++
			seq = append(seq, [2]int{b, 1})
			b++
		}
		for b < M {
			seq = append(seq, [2]int{b, 1})
			b++
		}
		for _, x := range seq {
			idx[[3]int{s, x[0], x[1]}] = len(ops)
			stages[s] = append(stages[s], len(ops))
			ops = append(ops, pipeOp{stage: s, mb: x[0], back: x[1] == 1, hull: curve(s, x[1] == 1)})
		}
	}
	for i := range ops {
		o := &ops[i]
		switch {
		case !o.back && o.stage > 0:
			o.pred = append(o.pred, idx[[3]int{o.stage - 1, o.mb, 0}])
		case o.back && o.stage+1 < S:
			o.pred = append(o.pred, idx[[3]int{o.stage + 1, o.mb, 1}])
		case o.back:
			o.pred = append(o.pred, idx[[3]int{o.stage, o.mb, 0}])
		}
	}
	return ops, stages
}

// gpuCurve is an operation's configurations: a GPU's clock from 1.98 GHz
// down to 1.2 GHz, the share beta of its time that scales with the clock,
// power static + dynamic·(f/f₀)³, times rounded to whole units, on the
// (time, power) hull.
func gpuCurve(units, beta, static, dynamic float64) []frontier.Config {
	var cs []frontier.Config
	for _, f := range []float64{1.98, 1.8, 1.65, 1.5, 1.35, 1.2} {
		t := math.Round(units * (beta*1.98/f + 1 - beta))
		cs = append(cs, frontier.Config{Time: t, Power: static + dynamic*math.Pow(f/1.98, 3)})
	}
	h, err := frontier.Hull(cs)
	if err != nil {
		panic(err)
	}
	return h
}

// pipeDAG is the pipeline as the frontier's DAG: one rank per stage, a
// task per operation with its own start and end, the dependencies and
// the stage's order as zero-time edges, and every gap of a stage (before
// its first operation, between two, after its last) a load drawing the
// blocked power w. No event order is kept (Chained all false): the
// frontier is then the time–cost trade-off of the DAG, as in Perseus.
func pipeDAG(ops []pipeOp, stages [][]int, w float64) (*bound.DAG, *bound.Order, error) {
	d := &bound.DAG{Init: 0, Fin: 1, Vertices: 2 + 2*len(ops)}
	src := func(i int) int { return 2 + 2*i }
	dst := func(i int) int { return 3 + 2*i }
	for i, o := range ops {
		d.Tasks = append(d.Tasks, bound.Task{Rank: o.stage, Src: src(i), Dst: dst(i), Hull: o.hull})
		for _, p := range o.pred {
			d.Messages = append(d.Messages, bound.Message{Src: dst(p), Dst: src(i)})
		}
	}
	for s, st := range stages {
		prev := d.Init
		for _, i := range st {
			d.Messages = append(d.Messages, bound.Message{Src: prev, Dst: src(i)})
			d.Loads = append(d.Loads, bound.Load{Rank: s, Src: prev, Dst: src(i), W: w})
			prev = dst(i)
		}
		d.Messages = append(d.Messages, bound.Message{Src: prev, Dst: d.Fin})
		d.Loads = append(d.Loads, bound.Load{Rank: s, Src: prev, Dst: d.Fin, W: w})
	}
	o, err := bound.InitialOrder(d)
	if err != nil {
		return nil, nil, err
	}
	// Every vertex its own event (InitialOrder's events join the vertices
	// of equal times, which the LP would then keep equal), in order of
	// time, init first and fin last.
	vs := make([]int, d.Vertices)
	for v := range vs {
		vs[v] = v
	}
	rank := func(v int) int {
		switch v {
		case d.Init:
			return 0
		case d.Fin:
			return 2
		}
		return 1
	}
	sort.SliceStable(vs, func(a, b int) bool {
		if ra, rb := rank(vs[a]), rank(vs[b]); ra != rb {
			return ra < rb
		}
		return o.Times[vs[a]] < o.Times[vs[b]]
	})
	o.Events = d.Vertices
	for k, v := range vs {
		o.Event[v] = k
	}
	o.Chained = make([]bool, o.Events)
	return d, o, nil
}

// pdOp is an operation of the Phillips–Dessouky solver: its effective
// cost (energy − w·time) at every whole duration from lo to hi, convex
// and non-increasing (the lower convex hull of its configurations'
// points, cut where a longer time no longer saves).
type pdOp struct {
	lo, hi, dur int
	cost        []float64 // cost[q-lo]
}

func (o *pdOp) c(q int) float64 { return o.cost[q-o.lo] }

// newPDOp is the Perseus curve of configurations h (whole-unit times)
// with blocked power w.
func newPDOp(h []frontier.Config, w float64) pdOp {
	type pt struct{ t, c float64 }
	var ps []pt
	for _, c := range h {
		ps = append(ps, pt{c.Time, c.Time*c.Power - w*c.Time})
	}
	sort.Slice(ps, func(a, b int) bool { return ps[a].t < ps[b].t })
	var low []pt // lower convex hull
	for _, p := range ps {
		for len(low) >= 2 {
			a, b := low[len(low)-2], low[len(low)-1]
			if (b.t-a.t)*(p.c-a.c)-(b.c-a.c)*(p.t-a.t) > 0 {
				break
			}
			low = low[:len(low)-1]
		}
		low = append(low, p)
	}
	for len(low) >= 2 && low[len(low)-1].c >= low[len(low)-2].c { // no saving beyond
		low = low[:len(low)-1]
	}
	o := pdOp{lo: int(low[0].t), hi: int(low[len(low)-1].t)}
	for q := o.lo; q <= o.hi; q++ {
		k := 0
		for k+1 < len(low) && float64(q) > low[k+1].t {
			k++
		}
		c := low[k].c
		if k+1 < len(low) {
			a, b := low[k], low[k+1]
			c = a.c + (b.c-a.c)*(float64(q)-a.t)/(b.t-a.t)
		}
		o.cost = append(o.cost, c)
	}
	o.dur = o.hi
	return o
}

// flow is a max-flow network with float capacities (Edmonds–Karp).
type flow struct {
	head     []int
	to, next []int
	capacity []float64
	n        int
}

func newFlow(n int) *flow {
	f := &flow{n: n, head: make([]int, n)}
	for i := range f.head {
		f.head[i] = -1
	}
	return f
}

// add adds edge u→v of capacity c (and its residual v→u of 0); it
// returns the edge's index.
func (f *flow) add(u, v int, c float64) int {
	for _, e := range [][3]float64{{float64(u), float64(v), c}, {float64(v), float64(u), 0}} {
		a := int(e[0])
		f.to = append(f.to, int(e[1]))
		f.capacity = append(f.capacity, e[2])
		f.next = append(f.next, f.head[a])
		f.head[a] = len(f.to) - 1
	}
	return len(f.to) - 2
}

const flowEps = 1e-9

// max pushes the most flow from s to t and returns it.
func (f *flow) max(s, t int) float64 {
	total := 0.0
	for {
		prev := make([]int, f.n)
		for i := range prev {
			prev[i] = -1
		}
		prev[s] = -2
		q := []int{s}
		for len(q) > 0 && prev[t] == -1 {
			u := q[0]
			q = q[1:]
			for e := f.head[u]; e >= 0; e = f.next[e] {
				if v := f.to[e]; prev[v] == -1 && f.capacity[e] > flowEps {
					prev[v] = e
					q = append(q, v)
				}
			}
		}
		if prev[t] == -1 {
			return total
		}
		push := math.Inf(1)
		for v := t; v != s; v = f.to[prev[v]^1] {
			push = math.Min(push, f.capacity[prev[v]])
		}
		for v := t; v != s; v = f.to[prev[v]^1] {
			f.capacity[prev[v]] -= push
			f.capacity[prev[v]^1] += push
		}
		total += push
	}
}

// reach is the set of nodes reachable from s along residual capacity.
func (f *flow) reach(s int) []bool {
	seen := make([]bool, f.n)
	seen[s] = true
	q := []int{s}
	for len(q) > 0 {
		u := q[0]
		q = q[1:]
		for e := f.head[u]; e >= 0; e = f.next[e] {
			if v := f.to[e]; !seen[v] && f.capacity[e] > flowEps {
				seen[v] = true
				q = append(q, v)
			}
		}
	}
	return seen
}

// pdPoint is one plan of the Phillips–Dessouky sweep: its iteration time
// in units and its energy.
type pdPoint struct {
	T      int
	Energy float64
}

// perseus traces the frontier of the pipeline by Phillips–Dessouky steps
// from every operation at its slowest useful duration down to the least
// iteration time, and returns one point per step (energy: the effective
// costs plus w for every stage over the iteration, plus the base power).
func perseus(ops []pipeOp, stages [][]int, w, base float64) []pdPoint {
	n := len(ops)
	pd := make([]pdOp, n)
	for i, o := range ops {
		pd[i] = newPDOp(o.hull, w)
	}
	succ := make([][]int, n)
	preds := make([][]int, n)
	for s := range stages {
		for k := 1; k < len(stages[s]); k++ {
			a, b := stages[s][k-1], stages[s][k]
			succ[a] = append(succ[a], b)
			preds[b] = append(preds[b], a)
		}
	}
	for i, o := range ops {
		for _, p := range o.pred {
			succ[p] = append(succ[p], i)
			preds[i] = append(preds[i], p)
		}
	}
	topo := topoOrder(succ, preds)
	energy := func(T int) float64 {
		e := (w*float64(len(stages)) + base) * float64(T)
		for i := range pd {
			e += pd[i].c(pd[i].dur)
		}
		return e
	}
	var out []pdPoint
	for {
		// Earliest starts and latest finishes: the critical subgraph.
		es, lf := make([]int, n), make([]int, n)
		T := 0
		for _, i := range topo {
			for _, p := range preds[i] {
				es[i] = max(es[i], es[p]+pd[p].dur)
			}
			T = max(T, es[i]+pd[i].dur)
		}
		out = append(out, pdPoint{T, energy(T)})
		for k := len(topo) - 1; k >= 0; k-- {
			i := topo[k]
			lf[i] = T
			for _, s := range succ[i] {
				lf[i] = min(lf[i], lf[s]-pd[s].dur)
			}
		}
		critical := func(i int) bool { return es[i]+pd[i].dur == lf[i] }
		if !pdStep(pd, preds, critical, es, lf) {
			return out
		}
	}
}

// pdStep shortens the critical subgraph by one unit along its min cut,
// and reports whether it could. The flow network is activity-on-arc:
// operation i is the arc 2+2i → 3+2i, a dependency p → i on the critical
// subgraph a dummy arc of no cost, the source 0 and the sink 1.
func pdStep(pd []pdOp, preds [][]int, critical func(int) bool, es, lf []int) bool {
	const inf = 1e15
	n := len(pd)
	N := 2 + 2*n
	type arc struct {
		u, v   int
		lb, ub float64
		op     int // −1: dummy
	}
	var arcs []arc
	for i := range pd {
		if !critical(i) {
			continue
		}
		o := &pd[i]
		lb, ub := 0.0, inf
		if o.dur < o.hi {
			lb = o.c(o.dur) - o.c(o.dur+1) // saved by slowing down
		}
		if o.dur > o.lo {
			ub = o.c(o.dur-1) - o.c(o.dur) // paid to speed up
		}
		arcs = append(arcs, arc{2 + 2*i, 3 + 2*i, lb, ub, i})
		if es[i] == 0 {
			arcs = append(arcs, arc{0, 2 + 2*i, 0, inf, -1})
		}
		if isSink(i, pd, es) {
			arcs = append(arcs, arc{3 + 2*i, 1, 0, inf, -1})
		}
		for _, p := range preds[i] {
			if critical(p) && es[p]+pd[p].dur == es[i] {
				arcs = append(arcs, arc{3 + 2*p, 2 + 2*i, 0, inf, -1})
			}
		}
	}
	// A feasible flow within the lower bounds: circulation through t→s.
	f := newFlow(N + 2)
	sp, tp := N, N+1
	idx := make([]int, len(arcs))
	excess := make([]float64, N)
	for k, a := range arcs {
		idx[k] = f.add(a.u, a.v, a.ub-a.lb)
		excess[a.v] += a.lb
		excess[a.u] -= a.lb
	}
	f.add(1, 0, inf)
	need := 0.0
	for v, x := range excess {
		if x > 0 {
			f.add(sp, v, x)
			need += x
		} else if x < 0 {
			f.add(v, tp, -x)
		}
	}
	if got := f.max(sp, tp); got < need-1e-6*math.Max(1, need) {
		return false // no flow meets the lower bounds
	}
	// Then the most flow from s to t on the residual; the min cut's source
	// side is what the residual still reaches.
	f.max(0, 1)
	S := f.reach(0)
	if S[1] {
		return false // an uncuttable path: the least iteration time
	}
	var speed, slow []int
	for _, a := range arcs {
		switch {
		case S[a.u] && !S[a.v]:
			if a.op < 0 || pd[a.op].dur == pd[a.op].lo {
				return false
			}
			speed = append(speed, a.op)
		case !S[a.u] && S[a.v] && a.op >= 0 && pd[a.op].dur < pd[a.op].hi:
			// An operation at its slowest stays (its lower bound, the
			// saving, is 0): its paths are shortened more than once.
			slow = append(slow, a.op)
		}
	}
	if len(speed) == 0 {
		return false
	}
	for _, i := range speed {
		pd[i].dur--
	}
	for _, i := range slow {
		pd[i].dur++
	}
	return true
}

// isSink reports whether operation i has no successor in the critical
// subgraph's sense: it ends the iteration (es+dur is the iteration time).
func isSink(i int, pd []pdOp, es []int) bool {
	T := 0
	for k := range pd {
		T = max(T, es[k]+pd[k].dur)
	}
	return es[i]+pd[i].dur == T
}

func topoOrder(succ, preds [][]int) []int {
	deg := make([]int, len(succ))
	for i := range preds {
		deg[i] = len(preds[i])
	}
	var q, out []int
	for i, d := range deg {
		if d == 0 {
			q = append(q, i)
		}
	}
	for len(q) > 0 {
		i := q[0]
		q = q[1:]
		out = append(out, i)
		for _, s := range succ[i] {
			if deg[s]--; deg[s] == 0 {
				q = append(q, s)
			}
		}
	}
	return out
}

// TestPerseusAgrees traces the frontier of a 1F1B pipeline (4 stages, 8
// microbatches; stage 0's operations 20 % longer, a backward twice a
// forward; times in units of 1 ms, so energies in mJ; blocked power
// 70 W, base power 0) both ways: by
// Perseus's Phillips–Dessouky steps on quantised time and by the
// frontier's LP at the same iteration times. Both minimise the same
// energy over the same DAG and curves: at every step up to the
// frontier's least energy they agree (the LP's optimum at a whole
// iteration time is whole, the DAG's constraint matrix being totally
// unimodular); beyond it the LP's plan ends sooner and the min-cut plan
// uses more.
func TestPerseusAgrees(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	const S, M, w = 4, 8, 70.0
	curve := func(stage int, back bool) []frontier.Config {
		u := 20.0
		if stage == 0 {
			u *= 1.2
		}
		if back {
			u *= 2
		}
		return gpuCurve(u, 0.8, 90, 210)
	}
	ops, stages := onef1b(S, M, curve)
	start := time.Now()
	pts := perseus(ops, stages, w, 0)
	took := time.Since(start)
	d, o, err := pipeDAG(ops, stages, w)
	if err != nil {
		t.Fatal(err)
	}
	f, err := New(d, o, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start = time.Now()
	for _, p := range pts {
		if _, err := f.EnergyAt(float64(p.T)); err != nil {
			t.Fatal(err)
		}
	}
	tookLP := time.Since(start)
	slow, least, err := f.Slowest()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| iteration time (ms) | Perseus (mJ) | frontier LP (mJ) |\n| ---: | ---: | ---: |\n")
	worst, compared := 0.0, 0
	for k, p := range pts {
		e, err := f.EnergyAt(float64(p.T))
		if err != nil {
			t.Fatal(err)
		}
		if float64(p.T) > slow*(1+1e-9) {
			// Past the frontier's least energy the LP's plan ends
			// sooner (a later deadline saves nothing more); the
			// min-cut plan ends at p.T and waits longer.
			if p.Energy < e*(1-1e-9) {
				t.Errorf("at %d units the min-cut plan uses %.6f J, below the frontier's %.6f J", p.T, p.Energy, e)
			}
		} else {
			compared++
			worst = math.Max(worst, math.Abs(p.Energy-e)/e)
		}
		if k%40 == 0 || k == len(pts)-1 {
			fmt.Fprintf(&b, "| %d | %.3f | %.3f |\n", p.T, p.Energy, e)
		}
	}
	t.Logf("%d operations; Perseus: %d steps from %d to %d units in %v; the frontier's LP at the same times in %v: least iteration time %g units, least energy %.3f by %g units; %d steps at or below it agree within %.1e\n%s",
		len(ops), len(pts), pts[0].T, pts[len(pts)-1].T, took, tookLP, f.Fastest(), least, slow, compared, worst, b.String())
	if last := pts[len(pts)-1].T; math.Abs(float64(last)-f.Fastest()) > 1e-6 {
		t.Errorf("Perseus stops at %d units, the LP's least iteration time is %g", last, f.Fastest())
	}
	if compared < len(pts)/2 {
		t.Errorf("only %d of %d steps compared", compared, len(pts))
	}
	if worst > 1e-6 {
		t.Errorf("Perseus and the LP differ by %.2e of the energy", worst)
	}
}
