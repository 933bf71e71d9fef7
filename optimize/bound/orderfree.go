package bound

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
)

// The order-free optimum (Bailey et al., SC'15, §3.4 and Appendix): the
// least makespan over every schedule of the DAG, whatever the order of
// its events, under the LP's model (a task draws its power from its start
// to its power end, loads draw theirs, the cap holds at every instant,
// and each serialised resource serves one item at a time). The paper
// computes it with a flow-based ILP whose solver picks the event order
// (§3.3) and compares it with the fixed-order LP on a small DAG: within
// 1.9 % on 103 of 106 caps (§3.4).
//
// OrderFree computes it exactly by a branch and bound over two kinds of
// order, and only where the DAG leaves them open:
//
//   - The order of the items on each resource (Resources: a CPU slot, a
//     network interface's sides). The DAG's edges that fix the reference
//     replay's order are dropped; a node's LP holds the items of a
//     resource apart only where the node decided their order. Where the
//     LP's schedule runs two items of one resource at once, the search
//     branches on that pair: one before the other, or the other before
//     the one. Pairs the DAG orders never overlap and are never branched
//     on.
//   - The weak order of the power vertices (where a task's or a load's
//     power starts or ends), the "practical substitute" of §3.4: a
//     schedule's vertex times, in order, are a weak order, and under it
//     the fixed-order LP's rows are exactly the schedule's instantaneous
//     power (between consecutive events the set of active intervals is
//     the index rule's, §2.5). The search fixes it event by event from
//     time 0; a node's LP keeps the rows of its placed events and only
//     the DAG's rows for the rest, which come after.
//
// A node's LP is a relaxation of every schedule below it (an LP of the
// DAG's dependencies, its decided orders and the energy, Σ energy ≤ cap ×
// makespan, as OrderFreeLower), so a node whose LP is not below the best
// schedule found is cut. A node whose LP schedule (tasks stretched into
// the time their vertices leave them, which only lowers power) keeps the
// cap at every instant is tried as a whole: the LP of that schedule's own
// power order and resource orders is solved, and where it is as fast the
// node needs no further branching. The first incumbent is the traced
// order's LP. The branching is over the pairs and power events of the
// DAG only; a DAG whose orders are all fixed by its edges is one LP.

// DefaultOrderFreeNodes is the most nodes OrderFree explores at one cap
// unless OrderFreeOptions.MaxNodes says otherwise.
const DefaultOrderFreeNodes = 300_000

// OrderFreeOptions bound the search.
type OrderFreeOptions struct {
	// Resources, when not nil, are the DAG's serialised resources
	// (Net.Resources): their order is chosen too, their order edges are
	// dropped.
	Resources *Resources
	// MaxNodes stops a search that has explored this many nodes at one
	// cap with an error wrapping ErrSearchLimit (a schedule at the tasks'
	// fastest times counts 1, an LP 100); 0 means
	// DefaultOrderFreeNodes.
	MaxNodes int
}

// ErrNoOrder is a cap under which no event order is feasible: some
// instant needs more power even with every task at its slowest.
var ErrNoOrder = errors.New("no event order keeps the cap")

// ErrSearchLimit is a search stopped at OrderFreeOptions.MaxNodes.
var ErrSearchLimit = errors.New("the order-free search reached its limit of nodes")

// OrderFree finds the order-free optimum of a DAG at any cap.
type OrderFree struct {
	d       *DAG // the DAG without its resource order edges
	opt     OrderFreeOptions
	ivs     []interval
	pv      []int    // the power vertices
	pvOf    []int    // index in pv of each vertex, −1 for others
	need    [][]int8 // need[a][b]: −1 no path from pv[a] to pv[b]; 0 a path of length 0; 1 a longer one
	traced  [][]int  // the traced order's events of pv indices, nil without one
	items   [][]Span // per resource, its items
	seed    []Message
	pairs   int // pairs of items or power vertices the DAG leaves unordered
	graph   *itemGraph
	tau     float64 // the unit of time of the LPs: the fastest makespan
	taskCol []int   // per task: its d column (p, then e, are the next), −1 for one point
	ncol    int
	// energy[i]: the lower convex envelope of task i's energy d·p(d) at
	// its hull points, as lines (slope W, intercept J) it lies above
	energy [][][2]float64
	// inT[j]: interval j ends no later than Fin in every schedule
	inT []bool
}

// interval is a power interval: task (≥ 0) from its Src until its power
// end, or a load of w watts (task −1).
type interval struct {
	src, end int
	task     int
	w        float64
}

// OrderFreeResult is the order-free optimum at one cap.
type OrderFreeResult struct {
	CapW     float64
	Makespan float64   // the optimum, seconds
	Vertex   []float64 // an optimal schedule's vertex times
	// Events is the optimal schedule's weak order of the power vertices:
	// the vertices of each event, events in time order.
	Events [][]int
	LPs    int // LPs solved by the search
	Nodes  int // nodes explored, an LP counting 100
}

// LimitError is a search stopped at OrderFreeOptions.MaxNodes; it wraps
// ErrSearchLimit. The optimum lies between Lower and Best (seconds; Best
// is +Inf where no schedule was found).
type LimitError struct {
	CapW        float64
	Nodes       int
	Pairs       int
	Lower, Best float64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("bound: order-free optimum at %g W: %v (%d; %d pairs of power events or resource items unordered by the DAG): the optimum lies between %.9g and %.9g s",
		e.CapW, ErrSearchLimit, e.Nodes, e.Pairs, e.Lower, e.Best)
}

func (e *LimitError) Unwrap() error { return ErrSearchLimit }

// maxPrepWork is the most vertex–edge visits NewOrderFree spends on the
// DAG's paths (one longest-path pass per power vertex and per resource
// item).
const maxPrepWork = 2_000_000_000

// NewOrderFree prepares the search for d. o, when not nil, is the fixed
// order whose LP optimum (with opt.Resources in their traced order)
// seeds the search: the order-free optimum is then never above it. A DAG
// with shared devices is refused, and so is one whose paths between
// power vertices and resource items are too long to list.
func NewOrderFree(d *DAG, o *Order, opt OrderFreeOptions) (*OrderFree, error) {
	if opt.MaxNodes == 0 {
		opt.MaxNodes = DefaultOrderFreeNodes
	}
	if len(d.Devices) > 0 {
		return nil, fmt.Errorf("bound: the order-free optimum does not model shared devices (the DAG has %d)", len(d.Devices))
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	res := opt.Resources
	if err := res.check(d); err != nil {
		return nil, err
	}
	d = res.free(d)
	f := &OrderFree{d: d, opt: opt, pvOf: make([]int, d.Vertices)}
	if res != nil {
		f.items = res.Items
		for _, items := range res.Items {
			for j := 1; j < len(items); j++ {
				f.seed = append(f.seed, Message{Src: int(items[j-1].End), Dst: int(items[j].Start)})
			}
		}
	}
	power := make([]bool, d.Vertices)
	power[d.Init], power[d.Fin] = true, true
	for i := range d.Tasks {
		t := &d.Tasks[i]
		f.ivs = append(f.ivs, interval{src: t.Src, end: t.PowerEnd(), task: i})
		power[t.Src], power[t.PowerEnd()] = true, true
	}
	for _, l := range d.Loads {
		f.ivs = append(f.ivs, interval{src: l.Src, end: l.Dst, task: -1, w: l.W})
		power[l.Src], power[l.Dst] = true, true
	}
	for v := range f.pvOf {
		f.pvOf[v] = -1
		if power[v] {
			f.pvOf[v] = len(f.pv)
			f.pv = append(f.pv, v)
		}
	}
	nItems := 0
	for _, items := range f.items {
		nItems += len(items)
	}
	if work := (len(f.pv) + nItems) * (d.Vertices + len(d.Tasks) + len(d.Messages)); work > maxPrepWork {
		return nil, fmt.Errorf("bound: the order-free optimum lists the paths between %d power vertices and %d resource items over %d vertices: too large a DAG to search",
			len(f.pv), nItems, d.Vertices)
	}
	topo, err := topoOrder(d)
	if err != nil {
		return nil, err
	}
	d.Messages = append(d.Messages, impliedOrders(newLongest(d, topo), f.items)...)
	lp := newLongest(d, topo)
	f.need = make([][]int8, len(f.pv))
	for a, va := range f.pv {
		dist := lp.from(va)
		f.need[a] = make([]int8, len(f.pv))
		for b, vb := range f.pv {
			switch {
			case b == a || math.IsInf(dist[vb], -1):
				f.need[a][b] = -1
			case dist[vb] > 0:
				f.need[a][b] = 1
			default:
				f.need[a][b] = 0
			}
		}
	}
	f.pairs = f.countPairs(lp)
	f.graph = newItemGraph(f, lp)
	fast, err := InitialOrder(d)
	if err != nil {
		return nil, err
	}
	f.tau = fast.Makespan
	if !(f.tau > 0) {
		f.tau = 1
	}
	f.taskCol = make([]int, len(d.Tasks))
	f.ncol = d.Vertices
	for i, t := range d.Tasks {
		f.taskCol[i] = -1
		if len(t.Hull) > 1 {
			f.taskCol[i] = f.ncol
			f.ncol += 3
			f.energy = append(f.energy, energyEnvelope(t.Hull))
		} else {
			f.energy = append(f.energy, nil)
		}
	}
	fin := f.pvOf[d.Fin]
	for _, iv := range f.ivs {
		e := f.pvOf[iv.end]
		f.inT = append(f.inT, e == fin || f.need[e][fin] >= 0)
	}
	if o != nil {
		if len(o.Event) != d.Vertices {
			return nil, fmt.Errorf("bound: the fixed order has %d vertices, the DAG %d", len(o.Event), d.Vertices)
		}
		byEv := map[int][]int{}
		var keys []int
		for a, v := range f.pv {
			k := o.Event[v]
			if byEv[k] == nil {
				keys = append(keys, k)
			}
			byEv[k] = append(byEv[k], a)
		}
		sort.Ints(keys)
		for _, k := range keys {
			f.traced = append(f.traced, byEv[k])
		}
	}
	return f, nil
}

// Pairs returns how many pairs of power vertices, and of items of one
// resource, the DAG leaves unordered: the orders the search may branch
// on.
func (f *OrderFree) Pairs() int { return f.pairs }

// countPairs counts the pairs Pairs returns.
func (f *OrderFree) countPairs(lp *longest) int {
	n := 0
	for a := range f.pv {
		for b := a + 1; b < len(f.pv); b++ {
			if f.need[a][b] < 0 && f.need[b][a] < 0 {
				n++
			}
		}
	}
	for _, items := range f.items {
		after := make([][]bool, len(items)) // after[j][k]: item k starts after item j ends
		for j, it := range items {
			dist := lp.from(int(it.End))
			after[j] = make([]bool, len(items))
			for k, u := range items {
				after[j][k] = !math.IsInf(dist[u.Start], -1)
			}
		}
		for j := range items {
			for k := j + 1; k < len(items); k++ {
				if !after[j][k] && !after[k][j] {
					n++
				}
			}
		}
	}
	return n
}

// impliedOrders returns the orders of items the DAG forces, as edges
// from one item's end to the other's start: where a path from item a's
// start reaches item b's end at a positive distance, b cannot come
// before a (a would start at or after b's end), so a comes first. The
// edges only state what every schedule of the model keeps, and give
// the bounds the item's place: a message's processing, whose start
// completes the receive, precedes the calc that waits for it.
func impliedOrders(lp *longest, items [][]Span) []Message {
	var out []Message
	for _, res := range items {
		for _, a := range res {
			dist := lp.from(int(a.Start))
			var after []int32
			for _, b := range res {
				if b != a && dist[b.End] > 0 {
					after = append(after, b.Start)
				}
			}
			if len(after) == 0 {
				continue
			}
			from := lp.from(int(a.End))
			for _, v := range after {
				if math.IsInf(from[v], -1) {
					out = append(out, Message{Src: int(a.End), Dst: int(v)})
				}
			}
		}
	}
	return out
}

// longest finds longest paths in a DAG at its tasks' fastest times.
type longest struct {
	topo []int
	out  [][]Message
	dist []float64
}

func newLongest(d *DAG, topo []int) *longest {
	l := &longest{topo: topo, out: make([][]Message, d.Vertices), dist: make([]float64, d.Vertices)}
	for _, t := range d.Tasks {
		l.out[t.Src] = append(l.out[t.Src], Message{Src: t.Src, Dst: t.Dst, Time: t.Hull[0].Time})
	}
	for _, m := range d.Messages {
		l.out[m.Src] = append(l.out[m.Src], m)
	}
	return l
}

// from returns the longest path from v to every vertex, −Inf where none
// (valid until the next call).
func (l *longest) from(v int) []float64 {
	for u := range l.dist {
		l.dist[u] = math.Inf(-1)
	}
	l.dist[v] = 0
	for _, u := range l.topo {
		if math.IsInf(l.dist[u], -1) {
			continue
		}
		for _, e := range l.out[u] {
			l.dist[e.Dst] = math.Max(l.dist[e.Dst], l.dist[u]+e.Time)
		}
	}
	return l.dist
}

// energyEnvelope returns the lines of the lower convex envelope of the
// points (t_g, t_g·p_g) of hull h. A task's energy d·p(d) is concave on
// each hull segment (p falls linearly), so it lies above the segment's
// chord, hence above the chords' convex envelope.
func energyEnvelope(h []frontier.Config) [][2]float64 {
	pts := make([]frontier.Config, len(h))
	for g, c := range h {
		pts[g] = frontier.Config{Time: c.Time, Power: c.Time * c.Power}
	}
	var env []frontier.Config
	for _, q := range pts {
		for len(env) >= 2 {
			a, b := env[len(env)-2], env[len(env)-1]
			if (b.Power-a.Power)*(q.Time-a.Time) >= (q.Power-a.Power)*(b.Time-a.Time) {
				env = env[:len(env)-1]
				continue
			}
			break
		}
		env = append(env, q)
	}
	var lines [][2]float64
	for k := 0; k+1 < len(env); k++ {
		sl := (env[k+1].Power - env[k].Power) / (env[k+1].Time - env[k].Time)
		lines = append(lines, [2]float64{sl, env[k].Power - sl*env[k].Time})
	}
	return lines
}

// node is a prefix of a weak order, the events placed so far (pv
// indices) and each power vertex's event (−1: not placed), with the
// orders decided between items of a resource (edges from one's end to
// the other's start).
type node struct {
	events [][]int
	at     []int
	placed int
	dec    []Message
}

func (n *node) child(ev []int) *node {
	c := &node{events: append(slices.Clip(n.events), ev), at: slices.Clone(n.at), placed: n.placed + len(ev), dec: n.dec}
	for _, a := range ev {
		c.at[a] = len(n.events)
	}
	return c
}

// decide returns n with item a before item b.
func (n *node) decide(a, b Span) *node {
	c := *n
	c.dec = append(slices.Clip(n.dec), Message{Src: int(a.End), Dst: int(b.Start)})
	return &c
}

// newNode is the root: nothing placed, the decisions dec.
func (f *OrderFree) newNode(dec []Message) *node {
	n := &node{at: make([]int, len(f.pv)), dec: dec}
	for a := range n.at {
		n.at[a] = -1
	}
	return n
}

// lpSol is a node LP's optimum: the makespan in seconds, vertex times and
// task durations in seconds.
type lpSol struct {
	obj  float64
	t, d []float64
}

// search is one cap's branch and bound.
type search struct {
	f     *OrderFree
	ctx   context.Context
	capW  float64
	lps   int
	nodes int
	lower float64 // the root's bound
	best  float64
	sol   *lpSol
	ord   [][]int
}

// Solve returns the order-free optimum at capW (watts, the LP's cap), or
// an error wrapping ErrNoOrder when no order keeps it.
func (f *OrderFree) Solve(capW float64) (*OrderFreeResult, error) {
	return f.SolveContext(context.Background(), capW)
}

// SolveContext is Solve that stops when ctx is done; the error then wraps
// ctx.Err().
func (f *OrderFree) SolveContext(ctx context.Context, capW float64) (*OrderFreeResult, error) {
	if !clp.Available() {
		return nil, clp.ErrNoSolver
	}
	s := &search{f: f, ctx: ctx, capW: capW, best: math.Inf(1)}
	if f.traced != nil {
		n := f.newNode(f.seed)
		for _, ev := range f.traced {
			n = n.child(ev)
		}
		sol, err := s.lp(n)
		if err != nil {
			return nil, err
		}
		if sol != nil {
			s.best, s.sol, s.ord = sol.obj, sol, n.events
		}
	}
	root := f.newNode(nil)
	if _, _, lb, ok := s.heads(root); ok {
		s.lower = lb
	}
	if err := s.visit(root); err != nil {
		var le *LimitError
		if errors.As(err, &le) {
			le.Best = s.best
		}
		return nil, err
	}
	if s.sol == nil {
		return nil, fmt.Errorf("bound: order-free optimum at %g W: %w", capW, ErrNoOrder)
	}
	r := &OrderFreeResult{CapW: capW, Makespan: s.best, Vertex: s.sol.t, LPs: s.lps, Nodes: s.nodes}
	for _, ev := range s.ord {
		vs := make([]int, len(ev))
		for j, a := range ev {
			vs[j] = f.pv[a]
		}
		sort.Ints(vs)
		r.Events = append(r.Events, vs)
	}
	return r, nil
}

// lpNodes is what one LP counts toward OrderFreeOptions.MaxNodes: on the
// 2×2 stencils of docs/design/bound.md an LP takes about as long as 100
// schedules at the tasks' fastest times, so the limit bounds the time.
const lpNodes = 100

// count counts w nodes, or stops the search at the limit.
func (s *search) count(w int) error {
	if s.nodes+w > s.f.opt.MaxNodes {
		return &LimitError{CapW: s.capW, Nodes: s.nodes, Pairs: s.f.pairs, Lower: s.lower, Best: s.best}
	}
	s.nodes += w
	return nil
}

// maxNext is the most power vertices that may come next at a node: the
// node has a child per nonempty subset of them.
const maxNext = 12

// tol is the relative tolerance of the search's comparisons of makespans
// and of its grouping of times into events (CLP's are 1e-7 absolute, on
// times in units of the fastest makespan).
const tol = 1e-6

// branch explores the orders that extend n, whose LP optimum is sol.
func (s *search) branch(n *node, sol *lpSol) error {
	f := s.f
	if err := s.ctx.Err(); err != nil {
		return err
	}
	if sol.obj >= s.best-tol*f.tau {
		return nil
	}
	a, b, clash := s.overlap(sol)
	if n.placed == len(f.pv) && !clash {
		s.best, s.sol, s.ord = sol.obj, sol, n.events
		return nil
	}
	// The LP's schedule may keep the cap already: then the LP of its own
	// orders is feasible at (about) the node's optimum, which no order
	// extending n can beat.
	if ord, ok := s.keepsCap(sol); ok {
		leaf := f.newNode(s.itemOrder(n.dec, sol))
		for _, ev := range ord {
			leaf = leaf.child(ev)
		}
		ls, err := s.lp(leaf)
		if err != nil {
			return err
		}
		if ls != nil && ls.obj < s.best {
			s.best, s.sol, s.ord = ls.obj, ls, leaf.events
		}
		if ls != nil && ls.obj <= sol.obj+tol*f.tau {
			return nil
		}
	}
	if clash {
		return s.branchPair(n, a, b, sol.t)
	}
	// Children: the next event is a nonempty set of unplaced power
	// vertices with no unplaced predecessor at a positive distance,
	// closed under unplaced predecessors at distance 0.
	var cand []int
	for a := range f.pv {
		if n.at[a] >= 0 {
			continue
		}
		ok := true
		for b := range f.pv {
			if n.at[b] < 0 && f.need[b][a] == 1 {
				ok = false
				break
			}
		}
		if ok {
			cand = append(cand, a)
		}
	}
	if len(cand) > maxNext {
		return fmt.Errorf("bound: order-free optimum at %g W: %d power events could come next, at most %d can be branched on (%d subsets)",
			s.capW, len(cand), maxNext, 1<<maxNext-1)
	}
	init := f.pvOf[f.d.Init]
	type kid struct {
		n   *node
		sol *lpSol
	}
	var kids []kid
	for mask := 1; mask < 1<<len(cand); mask++ {
		var ev []int
		in := make(map[int]bool)
		for j, a := range cand {
			if mask&(1<<j) != 0 {
				ev = append(ev, a)
				in[a] = true
			}
		}
		if len(n.events) == 0 && !in[init] {
			continue // time 0 is Init's
		}
		closed := true
		for _, a := range ev {
			for b := range f.pv {
				if n.at[b] < 0 && !in[b] && f.need[b][a] >= 0 {
					closed = false
				}
			}
		}
		if !closed {
			continue
		}
		c := n.child(ev)
		cs, err := s.lp(c)
		if err != nil {
			return err
		}
		if cs != nil && cs.obj < s.best-tol*f.tau {
			kids = append(kids, kid{c, cs})
		}
	}
	sort.SliceStable(kids, func(i, j int) bool { return kids[i].sol.obj < kids[j].sol.obj })
	for _, k := range kids {
		if err := s.branch(k.n, k.sol); err != nil {
			return err
		}
	}
	return nil
}

// branchPair explores n's orders with item a before item b and with b
// before a, first the one that keeps a schedule with times t (a
// parent's) more nearly: the item that starts first, first.
func (s *search) branchPair(n *node, a, b Span, t []float64) error {
	if t != nil && (t[b.Start] < t[a.Start] || (t[b.Start] == t[a.Start] && t[b.End] < t[a.End])) {
		a, b = b, a
	}
	if err := s.visit(n.decide(a, b)); err != nil {
		return err
	}
	return s.visit(n.decide(b, a))
}

// overlap returns two items of one resource that sol runs at once (each
// starts before the other ends, by more than the tolerance): the pair
// whose later start is earliest.
func (s *search) overlap(sol *lpSol) (a, b Span, ok bool) {
	f := s.f
	eps := tol * f.tau
	first := math.Inf(1)
	for _, items := range f.items {
		for j, x := range items {
			for _, y := range items[j+1:] {
				xs, xe, ys, ye := sol.t[x.Start], sol.t[x.End], sol.t[y.Start], sol.t[y.End]
				if xs < ye-eps && ys < xe-eps {
					if at := math.Max(xs, ys); at < first {
						first, a, b, ok = at, x, y, true
					}
				}
			}
		}
	}
	return a, b, ok
}

// itemOrder returns dec with every resource's items in the order of
// their times in sol (start, then end, then the reference order).
func (s *search) itemOrder(dec []Message, sol *lpSol) []Message {
	out := slices.Clip(dec)
	for _, items := range s.f.items {
		by := slices.Clone(items)
		slices.SortStableFunc(by, func(x, y Span) int {
			if c := cmpTime(sol.t[x.Start], sol.t[y.Start]); c != 0 {
				return c
			}
			return cmpTime(sol.t[x.End], sol.t[y.End])
		})
		for j := 1; j < len(by); j++ {
			out = append(out, Message{Src: int(by[j-1].End), Dst: int(by[j].Start)})
		}
	}
	return out
}

func cmpTime(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// keepsCap reports whether sol's schedule, every task stretched into the
// time between its vertices (as slow as its hull allows), keeps the cap at
// every instant, and returns its weak order of the power vertices (times
// within tol·tau are one event).
func (s *search) keepsCap(sol *lpSol) ([][]int, bool) {
	f := s.f
	byTime := make([]int, len(f.pv))
	for a := range byTime {
		byTime[a] = a
	}
	t := func(a int) float64 { return sol.t[f.pv[a]] }
	sort.SliceStable(byTime, func(i, j int) bool { return t(byTime[i]) < t(byTime[j]) })
	ev := make([]int, len(f.pv))
	var ord [][]int
	for j, a := range byTime {
		if j == 0 || t(a) > t(ord[len(ord)-1][0])+tol*f.tau {
			ord = append(ord, nil)
		}
		ord[len(ord)-1] = append(ord[len(ord)-1], a)
		ev[a] = len(ord) - 1
	}
	p := make([]float64, len(ord)+1)
	for _, iv := range f.ivs {
		a, b := ev[f.pvOf[iv.src]], ev[f.pvOf[iv.end]]
		if a >= b {
			continue
		}
		w := iv.w
		if iv.task >= 0 {
			task := &f.d.Tasks[iv.task]
			dur := math.Min(sol.t[task.Dst]-sol.t[task.Src], task.Hull[len(task.Hull)-1].Time)
			w = frontier.PowerAt(task.Hull, dur)
		}
		p[a] += w
		p[b] -= w
	}
	var w float64
	for k := range ord {
		w += p[k]
		if w > s.capW*(1+1e-9)+1e-9 {
			return nil, false
		}
	}
	return ord, true
}

// lp solves node n's LP: nil when it is infeasible.
func (s *search) lp(n *node) (*lpSol, error) {
	f, d := s.f, s.f.d
	if err := s.count(lpNodes); err != nil {
		return nil, err
	}
	tau := f.tau
	inf := math.Inf(1)
	p := &clp.Problem{ColLo: make([]float64, f.ncol), ColUp: make([]float64, f.ncol), Obj: make([]float64, f.ncol)}
	for v := 0; v < d.Vertices; v++ {
		p.ColUp[v] = inf
	}
	p.ColUp[d.Init] = 0
	for i, t := range d.Tasks {
		if c := f.taskCol[i]; c >= 0 {
			h := t.Hull
			p.ColLo[c], p.ColUp[c] = h[0].Time/tau, h[len(h)-1].Time/tau
			p.ColLo[c+1], p.ColUp[c+1] = h[len(h)-1].Power, h[0].Power
			p.ColUp[c+2] = inf
		}
	}
	// Every other vertex as early as it can be, at a weight that moves
	// the makespan by at most 1e-9·tau: the overlaps the search branches
	// on are then the schedule's, not a degenerate vertex's.
	for v := range d.Vertices {
		p.Obj[v] = 1e-9 / float64(d.Vertices)
	}
	p.Obj[d.Fin] = 1
	var ts triplets
	row := func(lo, up float64) {
		p.RowLo = append(p.RowLo, lo)
		p.RowUp = append(p.RowUp, up)
		ts.rows++
	}
	for i, t := range d.Tasks {
		ts.add(int32(t.Dst), 1)
		ts.add(int32(t.Src), -1)
		c := f.taskCol[i]
		if c < 0 {
			row(t.Hull[0].Time/tau, inf)
			continue
		}
		ts.add(int32(c), -1)
		row(0, inf)
		for k := 0; k+1 < len(t.Hull); k++ { // p_i above every segment's line
			sl := frontier.Slope(t.Hull, k)
			ts.add(int32(c), -sl*tau)
			ts.add(int32(c+1), 1)
			row(t.Hull[k].Power-sl*t.Hull[k].Time, inf)
		}
		for _, l := range f.energy[i] { // e_i (W·tau) above the energy's envelope
			ts.add(int32(c+2), 1)
			ts.add(int32(c), -l[0])
			row(l[1]/tau, inf)
		}
	}
	for _, m := range d.Messages {
		ts.add(int32(m.Dst), 1)
		ts.add(int32(m.Src), -1)
		row(m.Time/tau, inf)
	}
	for _, m := range n.dec {
		ts.add(int32(m.Dst), 1)
		ts.add(int32(m.Src), -1)
		row(0, inf)
	}
	// The placed events: ties (15), the chain (14), the unplaced power
	// vertices after the last one, and the power at each (12)(13).
	for k, ev := range n.events {
		rep := int32(f.pv[ev[0]])
		for _, a := range ev[1:] {
			ts.add(int32(f.pv[a]), 1)
			ts.add(rep, -1)
			row(0, 0)
		}
		if k > 0 {
			ts.add(rep, 1)
			ts.add(int32(f.pv[n.events[k-1][0]]), -1)
			row(0, inf)
		}
	}
	if k := len(n.events); k > 0 {
		last := int32(f.pv[n.events[k-1][0]])
		for a := range f.pv {
			if n.at[a] < 0 {
				ts.add(int32(f.pv[a]), 1)
				ts.add(last, -1)
				row(0, inf)
			}
		}
	}
	for k := range n.events {
		var fixed float64
		hasVar := false
		for _, iv := range f.ivs {
			a, b := n.at[f.pvOf[iv.src]], n.at[f.pvOf[iv.end]]
			if a < 0 || a > k || (b >= 0 && b <= k) {
				continue
			}
			if iv.task < 0 {
				fixed += iv.w
				continue
			}
			if c := f.taskCol[iv.task]; c >= 0 {
				ts.add(int32(c+1), 1)
				hasVar = true
			} else {
				fixed += d.Tasks[iv.task].Hull[0].Power
			}
		}
		if fixed > s.capW*(1+1e-12) {
			return nil, nil // the constant powers alone break the cap
		}
		if hasVar {
			row(-inf, s.capW-fixed)
		}
	}
	s.energyRows(n, &ts, row)
	p.Start, p.Index, p.Value = ts.csc(f.ncol)
	m, err := clp.Load(p)
	if err != nil {
		return nil, fmt.Errorf("bound: order-free optimum: %w", err)
	}
	defer m.Close()
	m.SetPresolve(false)
	s.lps++
	r, err := m.SolveContext(s.ctx, clp.Dual)
	var se *clp.StatusError
	if errors.As(err, &se) && se.Status == clp.PrimalInfeasible {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bound: order-free optimum at %g W: %w", s.capW, err)
	}
	sol := &lpSol{obj: r.X[d.Fin] * tau, t: make([]float64, d.Vertices), d: make([]float64, len(d.Tasks))}
	for v := range sol.t {
		sol.t[v] = r.X[v] * tau
	}
	for i, t := range d.Tasks {
		if c := f.taskCol[i]; c >= 0 {
			sol.d[i] = r.X[c] * tau
		} else {
			sol.d[i] = t.Hull[0].Time
		}
	}
	return sol, nil
}

// energyRows adds the energy cuts, valid under every order: the job's
// energy up to Fin is at most cap·T, and from the node's last placed
// event on at most cap·(T − t_last). A task's energy over its power
// interval is at least its energy at its duration (above e_i) plus its
// slowest power over the rest; a load's is W times its length.
func (s *search) energyRows(n *node, ts *triplets, row func(lo, up float64)) {
	f, d := s.f, s.f.d
	tail := len(n.events) > 0
	var last int32
	if tail {
		last = int32(f.pv[n.events[len(n.events)-1][0]])
	}
	for _, cut := range []bool{false, true} {
		if cut && !tail {
			continue
		}
		var rhs float64
		for j, iv := range f.ivs {
			if !f.inT[j] {
				continue
			}
			src := int32(iv.src)
			if cut {
				if n.at[f.pvOf[iv.end]] >= 0 {
					continue // over before t_last
				}
				if n.at[f.pvOf[iv.src]] >= 0 {
					src = last // counted from t_last at its least power
				}
			}
			whole := !cut || n.at[f.pvOf[iv.src]] < 0
			w := iv.w
			if iv.task >= 0 {
				h := d.Tasks[iv.task].Hull
				w = h[len(h)-1].Power
				if c := f.taskCol[iv.task]; c >= 0 && whole {
					ts.add(int32(c+2), 1)
					ts.add(int32(c), -w)
				} else if c < 0 {
					w = h[0].Power
				}
			}
			ts.add(int32(iv.end), w)
			ts.add(src, -w)
		}
		ts.add(int32(d.Fin), -s.capW)
		if cut {
			ts.add(last, s.capW)
		}
		row(math.Inf(-1), rhs)
	}
}
