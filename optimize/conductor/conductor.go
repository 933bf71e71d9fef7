// Package conductor reconstructs the Conductor baseline of Bailey et al.
// (SC'15 §4.2; Marathe et al., ISC'15) as SC'15 §4.2 describes it: an equal power share per rank, the fastest discrete configuration
// within it, an Adagio step that slows tasks into the slack their previous
// instance saw, and every few time steps a reallocation of the power that
// non-critical ranks leave unused to the critical ones, with overheads for
// reallocations and configuration switches.
//
// Conductor is a runtime: its decisions in a time step use what it saw in
// earlier ones. Schedule plays it over the task DAG of package bound, one
// time step (a stretch between separators, bound.Steps) at a time, timing
// each step as soon as possible under the DAG's message costs; the result
// is a configuration per task, which callers replay on the sim engine.
// This is a reconstruction, not the published algorithm.
package conductor

import (
	"fmt"
	"math"
	"sort"

	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/frontier"
)

// Params are Conductor's knobs (Bailey et al., SC'15, §4.2; Marathe et al., ISC'15).
type Params struct {
	// Period is K: power is reallocated every Period time steps (the paper:
	// every 5–10 MPI_Pcontrol calls). Default 5.
	Period int
	// ReallocS is the time a reallocation costs every rank (566 µs, §6.2).
	ReallocS float64
	// SwitchS is the time a configuration change costs its task (17 µs
	// average in SP, §6.4).
	SwitchS float64
	// MinTaskS: tasks shorter than this keep the rank's previous power
	// level when their frontier has it (the paper's 1 ms threshold; 0 off).
	MinTaskS float64
	// Margin is the share of the previous instance's slack the Adagio step
	// leaves unused (default 0.1).
	Margin float64
	// GuardW is the power a rank keeps above its measured use when its
	// unused share is reclaimed (default 0.5 W).
	GuardW float64
	// CriticalFrac: ranks whose slack over a period is within this share of
	// the period's length of the least slack are critical (default 0.05).
	CriticalFrac float64
}

// DefaultParams returns our defaults: K = 5, 566 µs per
// reallocation, 17 µs per switch, no minimum task length, a 10% slack
// margin, a 0.5 W guard band and 5% criticality.
func DefaultParams() Params {
	return Params{Period: 5, ReallocS: 566e-6, SwitchS: 17e-6, Margin: 0.1, GuardW: 0.5, CriticalFrac: 0.05}
}

// Validate checks the parameters.
func (p Params) Validate() error {
	switch {
	case p.Period < 1:
		return fmt.Errorf("conductor: period %d, want at least 1 time step", p.Period)
	case p.ReallocS < 0 || p.SwitchS < 0 || p.MinTaskS < 0 || p.GuardW < 0:
		return fmt.Errorf("conductor: negative overhead, minimum task length or guard band")
	case p.Margin < 0 || p.Margin > 1 || p.CriticalFrac < 0 || p.CriticalFrac > 1:
		return fmt.Errorf("conductor: margin %g and critical share %g must be in [0, 1]", p.Margin, p.CriticalFrac)
	}
	return nil
}

// Result is Conductor's schedule.
type Result struct {
	Time     []float64 // per task: duration in seconds, overheads included
	Power    []float64 // per task: power drawn, watts
	Config   []int     // per task: the hull point it runs
	Makespan float64   // in the DAG's timing (callers replay for the engine's)
	Reallocs int
	Switches int
	ShareW   []float64 // per rank: the power share at the end
}

// Schedule runs Conductor on d with the job cap capW (the power the
// tasks may draw together, as for the LP) and returns its schedule.
func Schedule(d *bound.DAG, o *bound.Order, capW float64, p Params) (*Result, error) {
	return ScheduleNodes(d, o, capW, nil, p)
}

// ScheduleNodes is Schedule under per-node caps: rank r is on node
// nodeOf[r] (nil: every rank on one node, Schedule) and capW is every
// node's cap on its tasks' power (as the LP's node chains take it,
// bound.Options.NodeOf). A rank starts at an equal share of its node's
// cap, and reallocation moves power only among the ranks of one node
// (as Iterate moves it within a power domain); which ranks are critical
// is decided over the job.
func ScheduleNodes(d *bound.DAG, o *bound.Order, capW float64, nodeOf []int, p Params) (*Result, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if !(capW > 0) {
		return nil, fmt.Errorf("conductor: cap %g W, want a positive cap", capW)
	}
	ranks := 0
	for _, t := range d.Tasks {
		ranks = max(ranks, t.Rank+1)
	}
	if nodeOf != nil && len(nodeOf) < ranks {
		return nil, fmt.Errorf("conductor: %d ranks placed on nodes, the DAG has %d", len(nodeOf), ranks)
	}
	for r, v := range nodeOf {
		if v < 0 {
			return nil, fmt.Errorf("conductor: rank %d on node %d", r, v)
		}
	}
	n := len(d.Tasks)
	res := &Result{Time: make([]float64, n), Power: make([]float64, n), Config: make([]int, n), ShareW: make([]float64, ranks)}
	if ranks == 0 {
		return res, nil
	}
	c := &conductor{d: d, p: p, ranks: ranks, res: res, nodes: nodeGroups(nodeOf, ranks)}
	c.step, c.nSteps = bound.Steps(d, o)
	c.index()
	if err := c.vertexSteps(); err != nil {
		return nil, err
	}
	c.init(capW)
	for j := 0; j < c.nSteps; j++ {
		c.configure(j)
		c.advance(j)
		c.floats(j)
		c.account(j)
		if (j+1)%p.Period == 0 && j+1 < c.nSteps {
			c.reallocate(maxPower(d, c.byStep[j], ranks))
			res.Reallocs++
			for r := range c.overhead {
				c.overhead[r] = p.ReallocS
				c.busyE[r], c.span[r], c.rankSlack[r] = 0, 0, 0
			}
		}
	}
	res.Makespan = c.times[d.Fin]
	copy(res.ShareW, c.share)
	return res, nil
}

// taskKey names a task by its rank and its position among the rank's
// tasks of a time step: the same key in the next step is its next
// instance.
type taskKey struct{ rank, pos int }

// outEdge is a message edge from a vertex.
type outEdge struct {
	to   int
	time float64
}

// conductor is one Schedule: the DAG by time steps, the shares, and what
// each step's tasks and vertices came to.
type conductor struct {
	d     *bound.DAG
	p     Params
	ranks int
	// nodes lists the ranks of every node under per-node caps (nil: one
	// job cap).
	nodes [][]int
	res   *Result
	step  []int // per task, its time step
	// byStep lists the tasks of each step by rank, in program order; pos
	// is a task's position among its rank's tasks of the step.
	nSteps  int
	byStep  [][]int
	pos     []int
	in      [][]edge
	out     [][]outEdge
	vStep   []int   // per vertex, the step whose tasks end at it
	vByStep [][]int // the vertices of each step, in a topological order
	// A task occupies its rank until the rank's next task starts (through
	// any MPI calls without compute between them), or until its
	// destination for a rank's last task; that occupancy is what its
	// power is charged for. Its slack is smaller: see floats.
	nextOf []int
	share  []float64
	slack  []float64
	prev   map[taskKey]int // previous instance of (rank, position)
	lastW  []float64       // per rank, the power of its last task (NaN: none)
	times  []float64
	done   []bool    // times[v] is known
	float  []float64 // see floats
	isSrc  []bool
	// per-rank use over the current period
	busyE     []float64 // energy (power × time, slack at task power)
	span      []float64
	rankSlack []float64
	overhead  []float64 // reallocation cost for the rank's next task
}

// index sorts the tasks by step, then rank, in program order; a task's
// position among its rank's tasks of the step names its previous
// instance.
func (c *conductor) index() {
	d := c.d
	c.byStep = make([][]int, c.nSteps)
	for i := range d.Tasks {
		c.byStep[c.step[i]] = append(c.byStep[c.step[i]], i)
	}
	c.pos = make([]int, len(d.Tasks))
	for _, ts := range c.byStep {
		sort.SliceStable(ts, func(a, b int) bool { return d.Tasks[ts[a]].Rank < d.Tasks[ts[b]].Rank })
		cnt := map[int]int{}
		for _, i := range ts {
			r := d.Tasks[i].Rank
			c.pos[i] = cnt[r]
			cnt[r]++
		}
	}
}

// vertexSteps orders the vertices topologically, grouped by step: the
// order of the initial schedule's times, with zero-length edges kept in
// order.
func (c *conductor) vertexSteps() error {
	d := c.d
	c.in = make([][]edge, d.Vertices)
	for i, t := range d.Tasks {
		c.in[t.Dst] = append(c.in[t.Dst], edge{from: t.Src, task: i})
	}
	for _, m := range d.Messages {
		c.in[m.Dst] = append(c.in[m.Dst], edge{from: m.Src, task: -1, time: m.Time})
	}
	topo, err := topoOrder(d, c.in)
	if err != nil {
		return err
	}
	c.vStep = make([]int, d.Vertices)
	for i, t := range d.Tasks {
		c.vStep[t.Dst] = max(c.vStep[t.Dst], c.step[i])
	}
	for _, v := range topo { // vertices no task ends at follow their sources
		for _, e := range c.in[v] {
			c.vStep[v] = max(c.vStep[v], c.vStep[e.from])
		}
	}
	c.vByStep = make([][]int, c.nSteps)
	for _, v := range topo {
		k := min(c.vStep[v], c.nSteps-1)
		c.vByStep[k] = append(c.vByStep[k], v)
	}
	return nil
}

// init starts every rank at an equal share of capW, with no history.
func (c *conductor) init(capW float64) {
	d, ranks, n := c.d, c.ranks, len(c.d.Tasks)
	c.nextOf = make([]int, n)
	lastOf := make([]int, ranks)
	for r := range lastOf {
		lastOf[r] = -1
	}
	for i := n - 1; i >= 0; i-- {
		r := d.Tasks[i].Rank
		c.nextOf[i] = lastOf[r]
		lastOf[r] = i
	}
	c.share = make([]float64, ranks)
	for r := range c.share {
		c.share[r] = capW / float64(ranks)
	}
	for _, us := range c.nodes {
		for _, r := range us {
			c.share[r] = capW / float64(len(us))
		}
	}
	c.slack = make([]float64, n)
	c.prev = map[taskKey]int{}
	c.lastW = make([]float64, ranks)
	for r := range c.lastW {
		c.lastW[r] = math.NaN()
	}
	c.times = make([]float64, d.Vertices)
	c.done = make([]bool, d.Vertices)
	c.float = make([]float64, d.Vertices)
	c.isSrc = make([]bool, d.Vertices)
	c.out = make([][]outEdge, d.Vertices)
	for _, t := range d.Tasks {
		c.isSrc[t.Src] = true
	}
	for _, m := range d.Messages {
		c.out[m.Src] = append(c.out[m.Src], outEdge{m.Dst, m.Time})
	}
	c.busyE = make([]float64, ranks)
	c.span = make([]float64, ranks)
	c.rankSlack = make([]float64, ranks)
	c.overhead = make([]float64, ranks)
}

// configure picks the configuration of every task of step j: the fastest
// within its rank's share, slowed by Adagio into (1 − margin) of its
// previous instance's window, and kept at the rank's last power for tasks
// under the minimum length.
func (c *conductor) configure(j int) {
	p, res := c.p, c.res
	for _, i := range c.byStep[j] {
		t := &c.d.Tasks[i]
		h := t.Hull
		k := fastestWithin(h, c.share[t.Rank])
		if pi, ok := c.prev[taskKey{t.Rank, c.pos[i]}]; ok {
			// Adagio: the previous instance ran at a configuration and
			// then waited; fill (1 − margin) of that window.
			tp := h[min(res.Config[pi], len(h)-1)].Time
			allowed := (1 - p.Margin) * (tp + c.slack[pi])
			for k+1 < len(h) && h[k+1].Time <= allowed {
				k++
			}
		}
		if h[k].Time < p.MinTaskS && !math.IsNaN(c.lastW[t.Rank]) {
			for g := range h {
				if h[g].Power == c.lastW[t.Rank] && h[g].Power <= c.share[t.Rank] {
					k = g
				}
			}
		}
		dur := h[k].Time + c.overhead[t.Rank]
		c.overhead[t.Rank] = 0
		if !math.IsNaN(c.lastW[t.Rank]) && h[k].Power != c.lastW[t.Rank] {
			dur += p.SwitchS
			res.Switches++
		}
		c.lastW[t.Rank] = h[k].Power
		res.Time[i], res.Power[i], res.Config[i] = dur, h[k].Power, k
		c.prev[taskKey{t.Rank, c.pos[i]}] = i
	}
}

// advance times the vertices of step j as soon as possible.
func (c *conductor) advance(j int) {
	for _, v := range c.vByStep[j] {
		var at float64
		for _, e := range c.in[v] {
			w := e.time
			if e.task >= 0 {
				w = c.res.Time[e.task]
			}
			at = math.Max(at, c.times[e.from]+w)
		}
		c.times[v] = at
		c.done[v] = true
	}
}

// floats computes how late each vertex of step j could be without
// delaying any task's start or the end (free float with respect to
// tasks). A task's slack is the time its end may move, so the wait for a
// message that is itself on the critical path (a symmetric exchange) is
// not slack.
func (c *conductor) floats(j int) {
	for k := len(c.vByStep[j]) - 1; k >= 0; k-- {
		v := c.vByStep[j][k]
		c.float[v] = 0
		if c.isSrc[v] || v == c.d.Fin {
			continue
		}
		f := math.Inf(1)
		for _, e := range c.out[v] {
			w := 0.0
			if c.done[e.to] {
				w = math.Max(0, c.times[e.to]-c.times[v]-e.time) + c.float[e.to]
			}
			f = math.Min(f, w)
		}
		if !math.IsInf(f, 1) {
			c.float[v] = f
		}
	}
}

// account adds step j's tasks' occupancy, energy and slack to their
// ranks' use over the period.
func (c *conductor) account(j int) {
	d, res, times := c.d, c.res, c.times
	for _, i := range c.byStep[j] {
		t := &d.Tasks[i]
		end := times[t.Dst]
		if nx := c.nextOf[i]; nx >= 0 && c.step[nx] == j {
			end = times[d.Tasks[nx].Src]
		} else if nx >= 0 && times[d.Tasks[nx].Src] > end && c.vStep[d.Tasks[nx].Src] <= j {
			end = times[d.Tasks[nx].Src]
		}
		occ := end - times[t.Src]
		c.slack[i] = math.Max(0, times[t.Dst]-(times[t.Src]+res.Time[i])+c.float[t.Dst])
		c.busyE[t.Rank] += res.Power[i] * occ
		c.span[t.Rank] += occ
		c.rankSlack[t.Rank] += c.slack[i]
	}
}

type edge struct {
	from, task int
	time       float64
}

// fastestWithin is the fastest hull point drawing at most w (the slowest
// when none fits).
func fastestWithin(h []frontier.Config, w float64) int {
	for k := range h {
		if h[k].Power <= w+1e-9 {
			return k
		}
	}
	return len(h) - 1
}

// maxPower is, per rank, the most any of its tasks in a step could use.
func maxPower(d *bound.DAG, tasks []int, ranks int) []float64 {
	out := make([]float64, ranks)
	for _, i := range tasks {
		t := &d.Tasks[i]
		out[t.Rank] = math.Max(out[t.Rank], t.Hull[0].Power)
	}
	return out
}

// nodeGroups lists the ranks below ranks of every node of nodeOf, nil
// for nil.
func nodeGroups(nodeOf []int, ranks int) [][]int {
	if nodeOf == nil {
		return nil
	}
	var out [][]int
	for r := 0; r < ranks; r++ {
		for len(out) <= nodeOf[r] {
			out = append(out, nil)
		}
		out[nodeOf[r]] = append(out[nodeOf[r]], r)
	}
	return out
}

// reallocate moves the power non-critical ranks left unused over the
// period to the critical ones (Bailey et al., SC'15, §4.2; Marathe et
// al., ISC'15), keeping the shares' sum at the cap: the job's or, under
// per-node caps, every node's. Which ranks are critical is decided over
// the job.
func (c *conductor) reallocate(need []float64) {
	longest := 0.0
	for _, s := range c.span {
		longest = math.Max(longest, s)
	}
	critical := make([]bool, c.ranks)
	markCritical(critical, c.rankSlack, longest, c.p.CriticalFrac)
	if c.nodes == nil {
		moveShares(c.share, c.busyE, c.span, critical, c.p, need)
		return
	}
	for _, us := range c.nodes {
		k := len(us)
		sh, be, sp, cr, nd := make([]float64, k), make([]float64, k), make([]float64, k), make([]bool, k), make([]float64, k)
		for j, r := range us {
			sh[j], be[j], sp[j], cr[j], nd[j] = c.share[r], c.busyE[r], c.span[r], critical[r], need[r]
		}
		moveShares(sh, be, sp, cr, c.p, nd)
		for j, r := range us {
			c.share[r] = sh[j]
		}
	}
}

// markCritical marks as critical the units whose slack over a period is
// within frac × length (the period's length) of the least: the critical
// path with a tolerance (Marathe et al., ISC'15), so that units that tie
// for it, as equal ranks of a bulk-synchronous step do, are all critical
// rather than whichever one a replay's path happens to run through.
func markCritical(critical []bool, slack []float64, length, frac float64) {
	least := math.Inf(1)
	for _, s := range slack {
		least = math.Min(least, s)
	}
	for u, s := range slack {
		critical[u] = s <= least+frac*length
	}
}

// moveShares moves the power that the ranks not marked critical left
// unused (their share less their average use busyE/span and the guard
// band) to the critical ones, up to what their fastest configuration
// draws (need), keeping the shares' sum.
func moveShares(share, busyE, span []float64, critical []bool, p Params, need []float64) {
	ranks := len(share)
	var pool float64
	nCrit := 0
	for r := 0; r < ranks; r++ {
		if critical[r] {
			nCrit++
			continue
		}
		used := 0.0
		if span[r] > 0 {
			used = busyE[r] / span[r]
		}
		if h := share[r] - used - p.GuardW; h > 0 {
			share[r] -= h
			pool += h
		}
	}
	if nCrit == ranks || pool == 0 {
		return
	}
	// Give the pool to the critical ranks in equal parts, up to what their
	// fastest configuration draws; what is left goes back to everyone.
	for pool > 1e-12 {
		open := 0
		for r := 0; r < ranks; r++ {
			if critical[r] && share[r] < need[r]-1e-12 {
				open++
			}
		}
		if open == 0 {
			break
		}
		part := pool / float64(open)
		for r := 0; r < ranks; r++ {
			if critical[r] && share[r] < need[r]-1e-12 {
				g := math.Min(part, need[r]-share[r])
				share[r] += g
				pool -= g
			}
		}
	}
	if pool > 0 {
		for r := range share {
			share[r] += pool / float64(ranks)
		}
	}
}

// topoOrder orders the vertices so every edge goes forward.
func topoOrder(d *bound.DAG, in [][]edge) ([]int, error) {
	out := make([][]int, d.Vertices)
	indeg := make([]int, d.Vertices)
	for v := range in {
		for _, e := range in[v] {
			out[e.from] = append(out[e.from], v)
			indeg[v]++
		}
	}
	var order, queue []int
	for v := 0; v < d.Vertices; v++ {
		if indeg[v] == 0 {
			queue = append(queue, v)
		}
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		order = append(order, v)
		for _, w := range out[v] {
			if indeg[w]--; indeg[w] == 0 {
				queue = append(queue, w)
			}
		}
	}
	if len(order) != d.Vertices {
		return nil, fmt.Errorf("conductor: the DAG has a cycle")
	}
	return order, nil
}
