package scenarios

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/lpchain"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// The lp policy replays the LP's schedule, but the LP meets the cap with
// time-averaged power (Bailey et al., SC'15, Fig. 6, Eqs. 10–11): a task it runs as a mix of two
// adjacent hull points draws the faster point's power for part of its
// time. At every instant only some of the split tasks can be in their
// faster stretch at once (the instantaneous cap is a knapsack; the LP's
// average constraint is its fractional relaxation), so the schedule the
// LP computes at the cap itself rarely replays within the cap as it is,
// and stagger, which then shortens faster stretches, ends up to 4–6 %
// after the bound on the default scenario.
//
// The planner leaves the LP that headroom instead: it solves the LP at the
// cap less δ watts of task power and takes the least δ whose schedule
// replays within the full cap as it is (staggerFits), so that the replay
// ends when that schedule does. The loss is then what δ costs the LP,
// about half a P-state step of one core: on the default scenario it is
// 0–0.5 % over the bound at every cap, against 0–4.5 % without headroom.
const (
	// headroomFirst is the least headroom tried, in quanta; the others
	// double it, up to headroomMost.
	headroomFirst = 1.0 / 8
	// headroomMost is the most headroom tried, in quanta, unless
	// headroomShare of the job cap is more: a replay also goes over the
	// cap where its floor of slower points does (waits at a task's power
	// that last longer than the LP's), which a quantum need not cover.
	headroomMost = 2.0
	// headroomShare is the most headroom tried, as a share of the job cap
	// (when more than headroomMost quanta).
	headroomShare = 0.04
	// headroomBisect is how many bisection steps refine δ between the
	// last try that did not fit and the first that did.
	headroomBisect = 4
)

// lpPlanner is a copy of a bounder's LP that the lp policy solves at the
// cap less headroom values (replayLP): a fork of the LP right after it
// solved the cap (in a sweep its chain's, bounder.fork; in capsim bound
// the caller's, LPPolicy), so that every
// cap's search starts from the basis of the bound at that cap, whatever
// was planned before, and the caps' searches run at the same time.
type lpPlanner struct {
	s        *bound.Solver
	bd       *bounder
	quantumW float64 // the largest power step between adjacent hull points
	// fork, where s is nil, takes s when the search first solves (a cap
	// whose schedule fits as it is needs no copy of the LP).
	fork func() (*bound.Solver, error)
	// scratch is the engine memory the search's replays reuse, one
	// after another (sim.Scratch): they replay one graph.
	scratch sim.Scratch
}

// lpPoint is the lp policy's point at job cap capW on g: the replay of
// replayLP on a fork of the LP right after the bounder solved the cap
// (its chain's, for a cap of the sweep, see bounder.fork), with the
// bound at the cap. It depends on the cap's chain alone, never on the
// other points planned, so the points of a chain are planned on any
// worker in any order, and a resumed run replans nothing before them.
// b is nil (and there is no replay) where the LP has no schedule at the
// cap or there is no LP solver.
func (sc *Scenario) lpPoint(ctx context.Context, bd *bounder, g *graph.Graph, capW float64, net network.LogGOPS) (met Metrics, run *taskRun, b *bound.Bound, err error) {
	b, f, err := bd.fork(ctx, capW)
	if err != nil || b == nil {
		return Metrics{}, nil, nil, err
	}
	defer f.Close()
	p := &lpPlanner{s: f, bd: bd, quantumW: powerQuantum(bd.d)}
	if met, run, _, err = sc.replayLP(ctx, p, g, capW, net, b); err != nil {
		return Metrics{}, nil, nil, err
	}
	if met.BoundNs, err = graph.SecondsToNs(b.Makespan); err != nil {
		return Metrics{}, nil, nil, fmt.Errorf("LP bound at %g W: makespan: %w", capW, err)
	}
	return met, run, b, nil
}

// powerQuantum is the largest difference in power between adjacent
// points of a task's hull: the most that one task moving between the two
// points of its mix changes the job's instantaneous power.
func powerQuantum(d *bound.DAG) float64 {
	q := 0.0
	for _, t := range d.Tasks {
		for k := 1; k < len(t.Hull); k++ {
			q = math.Max(q, math.Abs(t.Hull[k-1].Power-t.Hull[k].Power))
		}
	}
	return q
}

// solveAt solves the planner's LP at a job cap less headroomW watts; nil
// where it has no schedule there.
func (p *lpPlanner) solveAt(ctx context.Context, jobCapW, headroomW float64) (*bound.Bound, error) {
	if p.s == nil {
		s, err := p.fork()
		if err != nil {
			return nil, fmt.Errorf("lp policy at %g W: %w", jobCapW, err)
		}
		p.s = s
	}
	return lpchain.SolveFeasible(ctx, p.s, p.bd.lpCap(jobCapW)-headroomW)
}

// replayLP is the lp policy at job cap capW on graph g: the LP's schedule
// at the cap less the least headroom that replays within the cap at every
// instant (see lpPlanner), rounded and staggered. It returns the replay
// and the choice made (headroom, switches), with BoundNs left to the caller
// (the bound is the LP at the cap itself). With no headroom up to
// max(headroomMost quanta, headroomShare of the cap) that fits, or where stagger's replay of the
// schedule at the cap itself is better (see better), it is that replay;
// where the cap does not bind or the replay is still over the cap, the
// guard's replay where better (capSafe).
// at is p's LP's schedule at the cap itself where p has just solved it
// (nil: replayLP solves it first).
func (sc *Scenario) replayLP(ctx context.Context, p *lpPlanner, g *graph.Graph, capW float64, net network.LogGOPS, at *bound.Bound) (Metrics, *taskRun, lpChoice, error) {
	bd, m := p.bd, p.bd.m
	jobCapW := capW
	safe, err := sc.newCapSafe(g, bd.t, m, net, capW, &bd.guard)
	if err != nil {
		return Metrics{}, nil, lpChoice{}, err
	}
	ro := bound.RoundOptions{Policy: bound.RoundStaggered}
	probes := 0
	end := span(ctx, "plan cap %g", capW)
	defer func() { end(" probes ", probes) }()
	probe := func(h float64) (*bound.Bound, *rounded, bool, error) {
		probes++
		b := at
		var err error
		if h != 0 || b == nil {
			b, err = p.solveAt(ctx, jobCapW, h)
		}
		if err != nil || b == nil {
			return nil, nil, false, err
		}
		r, err := roundLP(g, bd.d, b, ro, bd.n)
		if err != nil {
			return nil, nil, false, err
		}
		r.scratch = &p.scratch
		fits, err := sc.staggerFits(g, bd.t, r, jobCapW, m, net)
		return b, r, fits, err
	}
	b0, r0, fits, err := probe(0)
	if err != nil {
		return Metrics{}, nil, lpChoice{}, err
	}
	if b0 == nil {
		return Metrics{}, nil, lpChoice{}, fmt.Errorf("the LP has no schedule at %g W (below its least feasible cap)", capW)
	}
	bestR, bestH := r0, 0.0
	if !fits {
		r, h, err := leastHeadroom(p.quantumW, capW, func(h float64) (*rounded, bool, bool, error) {
			b, r, ok, err := probe(h)
			return r, b != nil, ok, err
		})
		if err != nil {
			return Metrics{}, nil, lpChoice{}, err
		}
		if r != nil {
			bestR, bestH = r, h
		}
	}
	met, run, err := sc.stagger(g, bd.t, bestR, jobCapW, m, net)
	if err != nil {
		return Metrics{}, nil, lpChoice{}, err
	}
	c := choiceOf(bestR, bestH)
	if bestR != r0 {
		// Stagger shortening the faster stretches of the schedule at the
		// cap itself can still end sooner (where few tasks miss).
		met0, run0, err := sc.stagger(g, bd.t, r0, jobCapW, m, net)
		if err != nil {
			return Metrics{}, nil, lpChoice{}, err
		}
		if better(met0, met) {
			met, run, c = met0, run0, choiceOf(r0, 0)
		}
	}
	if !safe.binds() && better(safe.unc.met, met) {
		return safe.unc.met, safe.unc.run, lpChoice{}, nil
	}
	if gm, grun, ok, err := safe.within(met, run); err != nil || ok {
		return gm, grun, lpChoice{}, err
	}
	return met, run, c, nil
}

// capSafe is the lp policy's guard on the cap at every instant. The LP
// meets the cap at its own events with its own task lengths and no power
// between tasks; a replay also draws power while a rank waits (the
// machine's wait_power) and runs messages as the network and its
// topology make them, so it can go over the cap whatever the headroom.
// The guard holds replays that need no LP:
//   - the uncapped one, the lp policy's wherever the cap does not bind
//     (the cap is at or above its peak) unless the LP's schedule replays
//     sooner within the cap (it can where ranks share an accelerator,
//     which the uncapped run queues every call on);
//   - the soonest uniform one within the cap (static), the lp policy's
//     wherever the LP's schedule does not replay within the cap: within
//     the cap by construction wherever the slowest P-state is.
//
// The uncapped replay and the uniform replays at each P-state's cap do
// not depend on the cap asked for, so they are replayed once per graph,
// machine and network (guardRuns) and only their time over the cap is
// counted again for each cap.
type capSafe struct {
	pol  string // the policy it guards, for errors
	sc   *Scenario
	g    *graph.Graph
	m    *Machine
	net  network.LogGOPS
	cls  *network.Classes
	runs *guardRuns
	capW float64
	unc  safeRun
	st   *safeRun // static's replay, once replayed
}

// safeRun is one of capSafe's replays.
type safeRun struct {
	met Metrics
	run *taskRun
}

// newCapSafe replays g uncapped at job cap capW on machine m, with the
// network classes of the scenario's sweep (Scenario.Classes), keeping
// the replays that do not depend on the cap in runs (nil: none kept).
func (sc *Scenario) newCapSafe(g *graph.Graph, t *mpi.Trace, m *Machine, net network.LogGOPS, capW float64, runs *guardRuns) (*capSafe, error) {
	c, err := sc.newCapGuard(policy.LP, g, t, m, net, capW, runs)
	if err != nil {
		return nil, err
	}
	if c.unc, err = c.kept(policy.Uncapped, 0); err != nil {
		return nil, err
	}
	return c, nil
}

// newCapGuard is newCapSafe without the uncapped replay, for policy pol
// where it only needs within (min-energy: the uncapped replay is never
// its choice).
func (sc *Scenario) newCapGuard(pol string, g *graph.Graph, t *mpi.Trace, m *Machine, net network.LogGOPS, capW float64, runs *guardRuns) (*capSafe, error) {
	cls, err := sc.Classes(g, t)
	if err != nil {
		return nil, fmt.Errorf("%s policy at %g W: %w", pol, capW, err)
	}
	return &capSafe{pol: pol, sc: sc, g: g, m: m, net: net, cls: cls, capW: capW, runs: runs}, nil
}

// within returns the guard's replay in place of met and run where they go
// over the cap and the soonest uniform replay within it (static) is
// better (ok true); met and run where they keep the cap.
func (c *capSafe) within(met Metrics, run *taskRun) (Metrics, *taskRun, bool, error) {
	if met.OverCapNs == 0 {
		return met, run, false, nil
	}
	st, err := c.static()
	if err != nil {
		return Metrics{}, nil, false, err
	}
	if better(st.met, met) {
		return st.met, st.run, true, nil
	}
	return met, run, false, nil
}

// binds reports whether the cap binds: the uncapped replay goes over it
// (its peak is the job's, which a node cap leaves to OverCapNs).
func (c *capSafe) binds() bool {
	return c.unc.met.OverCapNs > 0 || (!c.sc.nodeScope() && c.unc.met.PeakPowerW > c.capW)
}

// static returns the soonest of the uniform replays within the cap: the
// static policy's at the cap, and the static policy's at each lower cap
// that a slower P-state's busy power fills (every rank at that P-state),
// where that replay is within it. A slower P-state can end sooner (a
// memory-bound or communication-bound run: on the 64-rank stencil at
// 1400 W, 41.15 ms at 1.5 GHz against 42.69 ms at 1.9 GHz).
func (c *capSafe) static() (safeRun, error) {
	if c.st != nil {
		return *c.st, nil
	}
	best, err := c.replay(policy.Static, c.capW)
	if err != nil {
		return safeRun{}, err
	}
	ranks, baseW := float64(c.m.Nodes*c.m.RanksPerNode), c.m.BaseW()
	if c.sc.nodeScope() { // per node: the static policy's node caps
		ranks, baseW = float64(c.m.RanksPerNode), baseW/float64(c.m.Nodes)
	}
	for _, p := range c.m.PStates {
		capW := baseW + ranks*p.ActivePowerW
		if capW >= c.capW || capW <= baseW {
			continue // the static policy's at c.capW, or one faster
		}
		r, err := c.kept(policy.Static, capW)
		if err != nil {
			return safeRun{}, err
		}
		// Within capW is within c.capW: the metrics but OverCapNs do not
		// depend on the cap.
		if r.met.OverCapNs == 0 && better(r.met, best.met) {
			best = r
		}
	}
	c.st = &best
	return best, nil
}

// replay replays g under policy pol at job cap capW.
func (c *capSafe) replay(pol string, capW float64) (safeRun, error) {
	met, rec, err := c.sc.replay(c.g, c.m, c.net, c.cls, pol, capW)
	if err != nil {
		return safeRun{}, fmt.Errorf("%s policy at %g W: %s replay at %g W: %w", c.pol, c.capW, pol, capW, err)
	}
	return safeRun{met, &taskRun{acct: rec.acct, model: rec.model, makespan: rec.res.Makespan, res: rec.res, net: rec.net, opts: rec.opts}}, nil
}

// kept is replay at capW for a replay that depends on capW alone, never
// on c.capW (pol's P-states and devices are those of capW), taken from
// c.runs where replayed before, with its time over the cap counted
// against c.capW.
func (c *capSafe) kept(pol string, capW float64) (safeRun, error) {
	if c.runs == nil {
		r, err := c.replay(pol, capW)
		if err != nil {
			return safeRun{}, err
		}
		return c.overCap(r)
	}
	k := guardKey{g: c.g, m: c.m, net: c.net, pol: pol, capW: capW}
	e := c.runs.entry(k)
	e.once.Do(func() { e.r, e.err = c.replay(pol, capW) })
	if e.err != nil {
		return safeRun{}, e.err
	}
	return c.overCap(e.r)
}

// overCap returns r with its time over c.capW: the replay's power profile
// does not depend on the cap it is checked against.
func (c *capSafe) overCap(r safeRun) (safeRun, error) {
	over, err := c.sc.overCap(r.run.acct, r.run.model, r.run.makespan, c.capW, c.m)
	if err != nil {
		return safeRun{}, fmt.Errorf("%s policy at %g W: %w", c.pol, c.capW, err)
	}
	r.met.OverCapNs = over
	return r, nil
}

// guardRuns keeps the guard's replays that do not depend on the cap, for
// the lp policy's points at every cap of one LP (a bounder's): safe for
// concurrent use, each replayed once.
type guardRuns struct {
	mu   sync.Mutex
	runs map[guardKey]*guardRun
}

// guardKey is what one of the guard's replays depends on.
type guardKey struct {
	g    *graph.Graph
	m    *Machine
	net  network.LogGOPS
	pol  string
	capW float64
}

// guardRun is one kept replay, replayed by the first to ask for it.
type guardRun struct {
	once sync.Once
	r    safeRun
	err  error
}

func (k *guardRuns) entry(key guardKey) *guardRun {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.runs == nil {
		k.runs = map[guardKey]*guardRun{}
	}
	e := k.runs[key]
	if e == nil {
		e = &guardRun{}
		k.runs[key] = e
	}
	return e
}

// leastHeadroom returns the least headroom under job cap capW, in watts
// of task power, whose schedule replays within the cap as it is, and that
// schedule; nil where none up to max(headroomMost quanta, headroomShare
// of the cap) does, or quantumW is 0. probe plans at a headroom: its
// rounded schedule, whether the LP had one there (false: too much
// headroom, below the LP's least feasible cap) and whether it fits.
//
// The tries are headroomFirst quanta doubled k times, k = 0…K, up to the
// most; the least that fits is found by bisection on k (leastTry), which
// takes the try that doubling from the first would stop at, where fitting
// is monotone in the headroom, with ⌈log2(K+2)⌉ tries instead of up to
// K+1: at 10^4 tasks (128 ranks) the least headroom that fits is 5–9
// quanta, the first try that fits 6 or 7 doublings of the least. Then
// headroomBisect steps of bisection refine it between the last try that
// did not fit and the first that did.
func leastHeadroom(quantumW, capW float64, probe func(h float64) (r *rounded, solved, fits bool, err error)) (*rounded, float64, error) {
	if quantumW <= 0 {
		return nil, 0, nil
	}
	most := math.Max(headroomMost*quantumW, headroomShare*capW)
	var tries []float64
	for h := headroomFirst * quantumW; h <= most; h *= 2 {
		tries = append(tries, h)
	}
	fitted := map[int]*rounded{} // the schedules of the tries that fit
	top, err := leastTry(len(tries), func(k int) (bool, bool, error) {
		r, solved, ok, err := probe(tries[k])
		if ok {
			fitted[k] = r
		}
		return ok, solved, err
	})
	if err != nil {
		return nil, 0, err
	}
	topR := fitted[top]
	if topR == nil {
		return nil, 0, nil
	}
	lo, hi, hiR := 0.0, tries[top], topR
	if top > 0 {
		lo = tries[top-1]
	}
	for range headroomBisect {
		h := (lo + hi) / 2
		r, solved, ok, err := probe(h)
		if err != nil {
			return nil, 0, err
		}
		if solved && ok {
			hi, hiR = h, r
		} else {
			lo = h
		}
	}
	return hiR, hi, nil
}

// leastTry returns the least k in [0, n) at which try fits, or n where
// none does, by bisection, assuming that a try fits at every k above one
// that fits: with at most ⌈log2(n+1)⌉ tries instead of the k+1 of trying
// 0, 1, … in turn. try also reports whether any try at k or above can
// fit (false: none can, as for headroom below the LP's least feasible
// cap), and an error, which ends the search.
func leastTry(n int, try func(k int) (fits, more bool, err error)) (int, error) {
	lo, top := -1, n // no fit at lo or below; a fit at top (n: none known)
	found := false   // whether top fits (else top is n, or none fits from top on)
	for top-lo > 1 {
		k := lo + (top-lo)/2
		fits, more, err := try(k)
		if err != nil {
			return 0, err
		}
		switch {
		case fits:
			top, found = k, true
		case !more:
			top, found = k, false
		default:
			lo = k
		}
	}
	if !found {
		return n, nil
	}
	return top, nil
}

// lpChoice is what the lp policy chose at a cap.
type lpChoice struct {
	HeadroomW float64 // the LP was solved at the cap less this much task power
	Switches  int     // tasks that switch P-state mid-task
}

func choiceOf(r *rounded, h float64) lpChoice {
	c := lpChoice{HeadroomW: h}
	for _, ch := range r.ch {
		if ch.Switched {
			c.Switches++
		}
	}
	return c
}

// LPPolicy is a sweep's lp policy (the LP's schedule at the least
// headroom under the cap that replays within it at every instant, see
// docs/design/bound.md) over an LP its caller built and solves at caps of its
// own (capsim bound). As the sweep's, it plans each cap on a fork of the
// caller's LP right after the caller solved it (bound.Solver.Fork), so
// that its search for headroom starts from the basis of the bound at
// that cap and the schedule at the cap itself is the bound's own.
type LPPolicy struct {
	sc  *Scenario
	g   *graph.Graph
	net network.LogGOPS
	bd  *bounder
	q   float64 // powerQuantum of the LP's DAG
}

// NewLPPolicy returns the lp policy over solver s of DAG d (built from
// trace t on machine m; plan is the engine LP's Net, or nil), replaying
// on graph g under net. The caller keeps s, and closes it after the
// policy's last Replay.
func (sc *Scenario) NewLPPolicy(s *bound.Solver, g *graph.Graph, t *mpi.Trace, d *bound.DAG, plan *bound.Net, m *Machine, net network.LogGOPS) (*LPPolicy, error) {
	if s == nil {
		return nil, fmt.Errorf("lp policy: no LP solver")
	}
	return &LPPolicy{sc: sc, g: g, net: net, bd: &bounder{s: s, m: m, d: d, t: t, n: plan, sc: sc, net: net}, q: powerQuantum(d)}, nil
}

// Replay replays the lp policy at job cap capW, where b is the schedule
// the policy's solver has just computed at capW (its last solve), and
// returns its metrics (BoundNs unset), the headroom in watts its LP was
// solved with, and how many tasks switch P-state mid-task. It plans on a
// fork of the solver, taken when its search first re-solves and closed
// before it returns: the solver is left as it was.
func (l *LPPolicy) Replay(ctx context.Context, capW float64, b *bound.Bound) (met Metrics, headroomW float64, switches int, err error) {
	met, _, c, err := l.replay(ctx, capW, b)
	return met, c.HeadroomW, c.Switches, err
}

// replay is Replay that also returns what the replay recorded.
func (l *LPPolicy) replay(ctx context.Context, capW float64, b *bound.Bound) (Metrics, *taskRun, lpChoice, error) {
	if b == nil {
		return Metrics{}, nil, lpChoice{}, fmt.Errorf("lp policy at %g W: no LP schedule", capW)
	}
	p := &lpPlanner{bd: l.bd, quantumW: l.q, fork: l.bd.s.Fork}
	defer func() {
		if p.s != nil {
			p.s.Close()
		}
	}()
	return l.sc.replayLP(ctx, p, l.g, capW, l.net, b)
}

// better reports whether replay a beats b for the lp policy: within the
// cap before over it, then the sooner end, then less energy.
func better(a, b Metrics) bool {
	if (a.OverCapNs == 0) != (b.OverCapNs == 0) {
		return a.OverCapNs == 0
	}
	if a.OverCapNs != b.OverCapNs && a.OverCapNs > 0 {
		return a.OverCapNs < b.OverCapNs
	}
	if a.MakespanNs != b.MakespanNs {
		return a.MakespanNs < b.MakespanNs
	}
	return a.EnergyJ < b.EnergyJ
}
