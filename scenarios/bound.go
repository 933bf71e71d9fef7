package scenarios

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/compute/table"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/conductor"
	"github.com/capsim/capsim/optimize/frontier"
	"github.com/capsim/capsim/optimize/lpchain"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// BoundDAG builds the power-constrained LP's DAG of trace t on machine m:
// every compute event can run at each P-state, taking its recorded time
// scaled by its region's model and drawing the P-state's active power, or
// on an accelerator where the machine has one for its region (see speeds).
// Communication is priced as bound.messages says: measured on a replay at
// the fastest P-state (the default, see bound.ReplayComm) or at the uncontended
// LogGOPS cost of each message, with a rank's sends
// queued at its network interface (g + (s−1)·G each). Times are in seconds.
func (sc *Scenario) BoundDAG(t *mpi.Trace, m *Machine, net network.LogGOPS) (*bound.DAG, error) {
	d, _, err := sc.BoundLP(t, m, net)
	return d, err
}

// BoundLP is BoundDAG with the LP's event order: with bound.messages =
// "engine" the reference replay's (bound.FromGraph), else
// the scenario's initial order (bound.InitialOrderWith).
func (sc *Scenario) BoundLP(t *mpi.Trace, m *Machine, net network.LogGOPS) (*bound.DAG, *bound.Order, error) {
	d, o, _, err := sc.boundLP(t, m, net, sc.Bound.Messages == MessagesEngine)
	return d, o, err
}

// BoundLPNet is BoundLP that also returns, with bound.messages =
// "engine", the Net the DAG comes from (nil otherwise): its Starts are the
// release times of a replay that follows the LP's schedule
// (ReplayRoundedPlan).
func (sc *Scenario) BoundLPNet(t *mpi.Trace, m *Machine, net network.LogGOPS) (*bound.DAG, *bound.Order, *bound.Net, error) {
	return sc.boundLP(t, m, net, sc.Bound.Messages == MessagesEngine)
}

// PlanLP is the DAG and initial order that the Conductor baseline plans
// on (package optimize/conductor): the trace's tasks with the message
// times of a replay at the fastest configurations (or their uncontended
// costs with bound.messages = "loggops"), whose collectives over all
// ranks are the time steps Conductor reallocates power at. The engine's
// LP (BoundLP with "engine") has no such steps: it is a bound, not a
// runtime's view of the run.
func (sc *Scenario) PlanLP(t *mpi.Trace, m *Machine, net network.LogGOPS) (*bound.DAG, *bound.Order, error) {
	d, o, _, err := sc.boundLP(t, m, net, false)
	return d, o, err
}

func (sc *Scenario) boundLP(t *mpi.Trace, m *Machine, net network.LogGOPS, engine bool) (*bound.DAG, *bound.Order, *bound.Net, error) {
	if err := m.FitRanks(len(t.Ranks), false); err != nil {
		return nil, nil, nil, err
	}
	var regions []string
	if len(t.Regions) > 1 {
		regions = t.Regions[1:] // trace region j is row index j
	}
	sp, err := sc.speedsOf(m, regions)
	if err != nil {
		return nil, nil, nil, err
	}
	configs := func(r int, e *mpi.Event) []frontier.Config {
		return sp.configs(e.Region, float64(e.Duration)/1e9)
	}
	d, o, n, err := sc.lpWithComm(t, m, net, configs, false, engine)
	if err != nil {
		return nil, nil, nil, err
	}
	sp.markDevices(d, t, m)
	return d, o, n, d.Validate()
}

// lpWithComm is dagWithComm with the LP's event order.
func (sc *Scenario) lpWithComm(t *mpi.Trace, m *Machine, net network.LogGOPS, configs bound.ConfigFunc, recorded, engine bool) (*bound.DAG, *bound.Order, *bound.Net, error) {
	if engine {
		n, err := sc.BoundNet(t, m, net, configs)
		if err != nil {
			return nil, nil, nil, err
		}
		return n.DAG, n.Order, n, nil
	}
	d, err := sc.dagWithComm(t, m, net, configs, recorded)
	if err != nil {
		return nil, nil, nil, err
	}
	o, err := bound.InitialOrderWith(d, sc.Bound.OrderOptions())
	return d, o, nil, err
}

// BoundNet builds the LP of trace t over the engine's semantics
// (bound.FromGraph): t lowered with the scenario's collective algorithms,
// every compute event a task with configs' configurations, messages with
// the scenario's network classes, each at no less than its uncontended
// route on the scenario's topology where it has one (bound.GraphOptions.Flow);
// a core draws the machine's idle power
// before its rank's first task and the machine's wait power while waiting
// (machine.wait_power; by default its last task's, Bailey et al., SC'15, §3.3).
func (sc *Scenario) BoundNet(t *mpi.Trace, m *Machine, net network.LogGOPS, configs bound.ConfigFunc) (*bound.Net, error) {
	g, em, cls, err := sc.lowerForBound(t)
	if err != nil {
		return nil, err
	}
	type ref struct{ r, i int }
	event := make([]ref, g.NumOps())
	for i := range event {
		event[i] = ref{-1, -1}
	}
	for r := range t.Ranks {
		for i := range t.Ranks[r].Events {
			if t.Ranks[r].Events[i].Kind != mpi.Compute {
				continue
			}
			from, to := em.Ops(r, i)
			for op := from; op < to; op++ {
				if g.Kind[op] == graph.Calc {
					event[op] = ref{r, i}
					break
				}
			}
		}
	}
	fl, err := sc.flowNetwork(m, g.NumRanks())
	if err != nil {
		return nil, err
	}
	n, err := bound.FromGraph(g, net, bound.GraphOptions{
		Flow: fl,
		Configs: func(op int32) []frontier.Config {
			if e := event[op]; e.r >= 0 {
				return configs(e.r, &t.Ranks[e.r].Events[e.i])
			}
			return nil
		},
		Event:   func(op int32) int { return event[op].i },
		Classes: cls,
		IdleW:   m.CoreIdlePowerW,
		Wait:    lpWait(m),
		WaitAfter: func(op int32) (float64, bool) {
			if e := event[op]; e.r >= 0 {
				return offloadWait(m, configs(e.r, &t.Ranks[e.r].Events[e.i]))
			}
			return 0, false
		},
	})
	if err != nil {
		return nil, fmt.Errorf("the LP over the engine's semantics: %w", err)
	}
	return n, nil
}

// lowerForBound lowers t with the scenario's collective algorithms, keeping
// the map from operations back to trace events, and classifies its
// messages by the scenario's network overrides.
func (sc *Scenario) lowerForBound(t *mpi.Trace) (*graph.Graph, *lower.EventMap, *network.Classes, error) {
	coll, err := lower.ParseAlgorithms(sc.Network.Collective)
	if err != nil {
		return nil, nil, nil, sc.keyError("network.collectives", err.Error())
	}
	opt, err := sc.lowerOptions(coll)
	if err != nil {
		return nil, nil, nil, err
	}
	g, em, err := lower.LowerMapped(t, opt)
	if err != nil {
		return nil, nil, nil, err
	}
	cls, err := sc.Classes(g, t)
	if err != nil {
		return nil, nil, nil, err
	}
	return g, em, cls, nil
}

// lpWait is the machine's wait power (machine.wait_power) as the LP
// charges it: the task's power, or a constant (the core's idle power or a
// polling power).
func lpWait(m *Machine) bound.WaitPower {
	switch m.WaitPower.Mode {
	case power.WaitIdle:
		return bound.WaitPower{Constant: true, W: m.CoreIdlePowerW}
	case power.WaitFixed:
		return bound.WaitPower{Constant: true, W: m.WaitPower.Watts}
	}
	return bound.WaitPower{}
}

// dagWithComm builds the LP's DAG of trace t with the given compute
// configurations and communication priced as bound.messages says. The
// calibration replay runs every calc at its recorded duration if recorded
// is set, else at its fastest P-state on machine m.
func (sc *Scenario) dagWithComm(t *mpi.Trace, m *Machine, net network.LogGOPS, configs bound.ConfigFunc, recorded bool) (*bound.DAG, error) {
	if sc.Bound.Messages == MessagesLogGOPS {
		return bound.FromTraceNIC(t, msgSeconds(net), nicGapSeconds(net), configs)
	}
	g, em, cls, err := sc.lowerForBound(t)
	if err != nil {
		return nil, err
	}
	var pricer sim.CalcPricer
	if recorded {
		pricer = recordedPricer{g}
	}
	cm, err := sc.calibrate(t, g, em, m, net, cls, pricer)
	if err != nil {
		return nil, err
	}
	return bound.FromTraceComm(t, cm, configs)
}

// TableDAG builds the LP's DAG of trace t with a configuration table
// (package compute/table; Bailey et al., SC'15, §3.2, Table 1): a compute event of region R can
// run in every configuration of the table's key R, taking its recorded
// time scaled by the row's time over the key's fastest row (traces are
// recorded at the fastest configuration) and drawing the row's watts.
// Communication is priced as in BoundDAG, calibrated on a replay at the
// recorded durations. Times are in seconds.
func (sc *Scenario) TableDAG(t *mpi.Trace, tb *table.Table, m *Machine, net network.LogGOPS) (*bound.DAG, error) {
	d, _, err := sc.TableLP(t, tb, m, net)
	return d, err
}

// TableLP is TableDAG with the LP's event order (see BoundLP).
func (sc *Scenario) TableLP(t *mpi.Trace, tb *table.Table, m *Machine, net network.LogGOPS) (*bound.DAG, *bound.Order, error) {
	return sc.tableLP(t, tb, m, net, sc.Bound.Messages == MessagesEngine)
}

// TablePlanLP is TableLP for the Conductor baseline (see PlanLP).
func (sc *Scenario) TablePlanLP(t *mpi.Trace, tb *table.Table, m *Machine, net network.LogGOPS) (*bound.DAG, *bound.Order, error) {
	return sc.tableLP(t, tb, m, net, false)
}

func (sc *Scenario) tableLP(t *mpi.Trace, tb *table.Table, m *Machine, net network.LogGOPS, engine bool) (*bound.DAG, *bound.Order, error) {
	if err := m.FitRanks(len(t.Ranks), false); err != nil {
		return nil, nil, err
	}
	byKey := map[string][]table.Row{}
	for _, r := range tb.Rows {
		byKey[r.Key] = append(byKey[r.Key], r)
	}
	rows := make([][]frontier.Config, len(t.Regions))
	for i, name := range t.Regions {
		rs := byKey[name]
		if len(rs) == 0 {
			continue
		}
		fastest := math.Inf(1)
		for _, r := range rs {
			fastest = math.Min(fastest, r.Seconds)
		}
		for _, r := range rs {
			rows[i] = append(rows[i], frontier.Config{Time: r.Seconds / fastest, Power: r.Watts, Label: r.Config.String()})
		}
	}
	var missing error
	configs := func(r int, e *mpi.Event) []frontier.Config {
		base := rows[e.Region]
		if base == nil {
			if missing == nil {
				keys := make([]string, 0, len(byKey))
				for k := range byKey {
					keys = append(keys, strconv.Quote(k))
				}
				sort.Strings(keys)
				missing = fmt.Errorf("rank %d: compute region %q has no rows in the configuration table (its keys: %s)", r, t.Regions[e.Region], strings.Join(keys, ", "))
			}
			return []frontier.Config{{Time: 1, Power: 0}}
		}
		cs := make([]frontier.Config, len(base))
		sec := math.Max(float64(e.Duration)/1e9, 1e-12)
		for k, c := range base {
			cs[k] = frontier.Config{Time: c.Time * sec, Power: c.Power, Label: c.Label}
		}
		return cs
	}
	d, o, _, err := sc.lpWithComm(t, m, net, configs, true, engine)
	if missing != nil {
		return nil, nil, missing
	}
	return d, o, err
}

// ReplayStaticDAG replays the Static baseline over the LP's DAG (Bailey et al., SC'15,
// §4.1, in its discrete form): every rank gets an equal share of the cap
// above the machine's base power, and every task runs at the fastest of
// its configurations within that share (the slowest when none fits, so
// the run may exceed the cap). With capW 0 every task runs at its fastest.
func (sc *Scenario) ReplayStaticDAG(g *graph.Graph, t *mpi.Trace, d *bound.DAG, capW float64, m *Machine, net network.LogGOPS) (Metrics, error) {
	share := math.Inf(1)
	switch {
	case capW > 0 && sc.nodeScope():
		share = sc.lpCapOf(m, capW) / float64(m.RanksPerNode)
	case capW > 0:
		share = m.LPCap(capW) / float64(len(t.Ranks))
	}
	times := make([]float64, len(d.Tasks))
	powers := make([]float64, len(d.Tasks))
	parts := make([][]taskPart, len(d.Tasks))
	for i, tk := range d.Tasks {
		h := tk.Hull
		k := len(h) - 1
		for j := range h {
			if h[j].Power <= share+1e-9 {
				k = j
				break
			}
		}
		times[i], powers[i] = h[k].Time, h[k].Power
		parts[i] = []taskPart{{h[k].Label, -1}}
	}
	return sc.replayTasks(g, t, d, times, powers, parts, capW, m, net)
}

// taskPart is a stretch of a task at one configuration: its hull
// point's label and its seconds (negative: the whole task).
type taskPart struct {
	label string
	sec   float64
}

// recordedPricer prices every calc at its recorded duration: the fastest
// row of a configuration table, as TableDAG scales the rows.
type recordedPricer struct{ g *graph.Graph }

// CalcDuration implements sim.CalcPricer.
func (p recordedPricer) CalcDuration(op int32, start int64) int64 { return p.g.Size[op] }

// msgSeconds is a message edge's time: the uncontended LogGOPS cost.
func msgSeconds(net network.LogGOPS) func(int64) float64 {
	return func(b int64) float64 { return float64(net.Cost(b)) / 1e9 }
}

// nicGapSeconds is how long a message holds the sender's network
// interface (LogGOPS.SendGap), in seconds: the LP's DAG serializes a
// rank's sends by it (bound.FromTraceNIC).
func nicGapSeconds(net network.LogGOPS) func(int64) float64 {
	return func(b int64) float64 { return float64(net.SendGap(b)) / 1e9 }
}

// LPCap converts a job power cap into the LP's cap, which covers the cores'
// task power: the machine's base power is taken off.
func (m *Machine) LPCap(jobCapW float64) float64 { return jobCapW - m.lpBaseW() }

// bounder computes LP bounds for the caps of one group, re-solving from
// the previous basis (package optimize/lpchain), and holds the DAG for
// the Conductor baseline. A shared bounder serves every group of a sweep
// run with the same machine and workload parameters (one per policy; see
// lpShare), from several workers at once. Right after a cap of forkCaps,
// its chain forks its LP (lpchain.Set.Fork) for the lp policy, which
// searches that cap's headroom from the bound's basis (lpPoint) on any
// worker while the chain goes on.
type bounder struct {
	s  *bound.Solver // the LP as built; nil without the LP solver
	lp *lpchain.Set  // s solved at the sweep's caps; nil without s
	// mu guards pd and po, and serializes belowBound.
	mu sync.Mutex
	m  *Machine
	d  *bound.DAG
	o  *bound.Order
	t  *mpi.Trace
	n  *bound.Net // the engine LP's Net (nil for the other message models)
	// pd, po are what Conductor plans on (PlanLP), built when first
	// asked for where they differ from d, o.
	sc  *Scenario
	net network.LogGOPS
	pd  *bound.DAG
	po  *bound.Order
	// forkCaps are the indices among the sweep's caps whose solved LP
	// the lp policy plans on (lpPoint): a chain forks its LP there.
	// Set before the first solve, never written after.
	forkCaps map[int]bool
	// guard keeps the lp policy's replays that do not depend on the cap
	// (capSafe), shared by its points at every cap.
	guard guardRuns
}

// belowBound says why a point replayed with opts under net on graph g
// finished before the bound: over the cap, or the first order of the
// engine LP it changed (Net.Check), replaying it again under observation.
func (b *bounder) belowBound(g *graph.Graph, met Metrics, opts sim.Options, net network.LogGOPS) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return belowBound(b.n, g, met, opts, net)
}

// orderChangedPrefix starts belowBound's reason where the replay left an
// order of the engine LP.
const orderChangedPrefix = "order changed: "

// OrderChanged reports whether a below_bound reason says the replay left
// the LP's event order, so that its makespan may be below the fixed-order
// bound without contradicting it.
func OrderChanged(belowBound string) bool { return strings.HasPrefix(belowBound, orderChangedPrefix) }

// belowBound says why a point replayed with opts under net on graph g
// finished before the bound of the engine LP's Net n (nil for the other
// message models): over the cap, or the first order of n it changed
// (Net.Check), replaying it again under observation.
func belowBound(n *bound.Net, g *graph.Graph, met Metrics, opts sim.Options, net network.LogGOPS) string {
	if met.OverCapNs > 0 {
		return fmt.Sprintf("over the cap for %d ns", met.OverCapNs)
	}
	if n == nil {
		return "the LP's message model is no bound (bound.messages)"
	}
	if !sameOps(n.Graph(), g) {
		return "replayed on another graph than the LP's (not checked)"
	}
	opts.Observer = nil
	rec, err := bound.Observe(n.Graph(), net, opts)
	if err != nil {
		return "not checked: " + err.Error()
	}
	c, err := n.Check(rec, make([]float64, len(n.TaskOp)), 0)
	switch {
	case err != nil:
		return "not checked: " + err.Error()
	case !c.Kept:
		return orderChangedPrefix + c.Order
	}
	return "kept the LP's orders within the cap: a bound violation, please report it"
}

// plan returns the DAG and order the Conductor baseline plans on.
func (b *bounder) plan() (*bound.DAG, *bound.Order, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sc.Bound.Messages != MessagesEngine {
		return b.d, b.o, nil
	}
	if b.pd == nil {
		d, o, err := b.sc.PlanLP(b.t, b.m, b.net)
		if err != nil {
			return nil, nil, err
		}
		b.pd, b.po = d, o
	}
	return b.pd, b.po, nil
}

func (sc *Scenario) newBounder(t *mpi.Trace, m *Machine, net network.LogGOPS) (*bounder, error) {
	return sc.newBounderOn(t, m, net, 0)
}

// newBounderOn is newBounder with the LP built and its blocks solved on
// at most workers goroutines (bound.Options.Workers; 0: GOMAXPROCS). A
// sweep passes its own worker count, so that `--workers 1` runs on one
// core; the LP's results do not depend on it.
func (sc *Scenario) newBounderOn(t *mpi.Trace, m *Machine, net network.LogGOPS, workers int) (*bounder, error) {
	if t == nil {
		return nil, nil
	}
	d, o, n, err := sc.BoundLPNet(t, m, net)
	if err != nil {
		return nil, err
	}
	b := &bounder{m: m, d: d, o: o, t: t, n: n, sc: sc, net: net}
	if clp.Available() {
		if b.s, err = bound.NewSolver(d, o, sc.lpOptions(m, d, bound.Options{KeepBasis: true, CutTasks: sc.Bound.CutTasks(), Workers: workers})); err != nil {
			return nil, err
		}
		b.lp = lpchain.New(b.s, lpchain.Options{CapsW: sc.Sweep.CapsW, LPCap: b.lpCap, Fork: func(k int) bool { return b.forkCaps[k] }, Span: span})
	}
	return b, nil
}

// lpCap is the LP's cap for a sweep cap (Scenario.lpCapOf): the job cap
// less the machine's idle power, or the node cap less a node's share.
func (b *bounder) lpCap(capW float64) float64 { return b.sc.lpCapOf(b.m, capW) }

// newGraphBounder is newBounderOn for an execution-graph workload g with
// message classes cls: the LP of graphNet.
func (sc *Scenario) newGraphBounder(g *graph.Graph, cls *network.Classes, m *Machine, net network.LogGOPS, workers int) (*bounder, error) {
	if sc.Bound.Messages != MessagesEngine {
		return nil, nil // the other message models read an MPI trace
	}
	n, err := sc.graphNet(g, m, net, cls)
	if err != nil {
		return nil, err
	}
	b := &bounder{m: m, d: n.DAG, o: n.Order, n: n, sc: sc, net: net}
	if clp.Available() {
		if b.s, err = bound.NewSolver(b.d, b.o, sc.lpOptions(m, b.d, bound.Options{KeepBasis: true, CutTasks: sc.Bound.CutTasks(), Workers: workers})); err != nil {
			return nil, err
		}
		b.lp = lpchain.New(b.s, lpchain.Options{CapsW: sc.Sweep.CapsW, LPCap: b.lpCap, Fork: func(k int) bool { return b.forkCaps[k] }, Span: span})
	}
	return b, nil
}

// solve returns the LP's schedule at a job cap, or nil where the cap is
// below what the fixed order needs or there is no solver. A cap of the
// sweep is solved in its chain (lpchain.Split), after the chain's caps
// before it; another cap by a copy of the LP kept for them.
func (b *bounder) solve(ctx context.Context, capW float64) (*bound.Bound, error) {
	if b == nil || b.lp == nil {
		return nil, nil
	}
	return b.lp.Solve(ctx, capW)
}

// busy says whether solving cap capW of the sweep would now wait for
// another goroutine: its chain is being solved (sweep.go's taskQueue then
// gives the worker another group first). Caps not of the sweep's list are
// never busy.
func (b *bounder) busy(capW float64) bool {
	if b == nil || b.lp == nil {
		return false
	}
	return b.lp.Busy(capW)
}

// at returns the bound in ns at a job cap, or 0 where there is none.
func (b *bounder) at(ctx context.Context, capW float64) (int64, error) {
	res, err := b.solve(ctx, capW)
	if res == nil || err != nil {
		return 0, err
	}
	ns, err := graph.SecondsToNs(res.Makespan)
	if err != nil {
		return 0, fmt.Errorf("LP bound at %g W: makespan: %w", capW, err)
	}
	return ns, nil
}

func (b *bounder) close() {
	if b == nil || b.lp == nil {
		return
	}
	b.lp.Close()
}

// fork returns the LP's schedule at a job cap and a fork of the LP
// (bound.Solver.Fork) as it was right after solving it, for the lp
// policy to plan on (lpPoint); the caller closes the fork. Both are nil
// where the LP has no schedule at the cap. A cap of the sweep is solved
// in its chain and must be one of forkCaps; another cap by a new copy
// of the LP, from scratch.
func (b *bounder) fork(ctx context.Context, capW float64) (*bound.Bound, *bound.Solver, error) {
	if b == nil || b.lp == nil {
		return nil, nil, nil
	}
	return b.lp.Fork(ctx, capW)
}

// opPricer gives calc operations fixed durations (ns); -1 keeps the
// recorded size.
type opPricer struct {
	g   *graph.Graph
	dur []int64
}

func (p *opPricer) CalcDuration(op int32, start int64) int64 {
	if d := p.dur[op]; d >= 0 {
		return d
	}
	return p.g.Size[op]
}

// ReplayBound replays the LP's schedule rounded for the lp policy of a
// sweep: split tasks with their faster stretches staggered so that the
// job stays within the cap at every instant (bound.RoundStaggered), with
// no switch overhead. See ReplayRounded.
func (sc *Scenario) ReplayBound(g *graph.Graph, t *mpi.Trace, d *bound.DAG, b *bound.Bound, m *Machine, net network.LogGOPS) (Metrics, error) {
	return sc.ReplayRounded(g, t, d, b, bound.RoundOptions{Policy: bound.RoundStaggered}, m, net)
}

// replayBound is ReplayBound following the engine LP's schedule (see
// ReplayRoundedPlan) where the bounder has its Net.
func (sc *Scenario) replayBound(g *graph.Graph, bd *bounder, b *bound.Bound, m *Machine, net network.LogGOPS) (Metrics, error) {
	return sc.ReplayRoundedPlan(g, bd.t, bd.d, b, bound.RoundOptions{Policy: bound.RoundStaggered}, m, net, bd.n)
}

// ReplayRounded rounds the LP's schedule b with a policy (bound.Round) and
// replays it on the engine: each compute task takes its rounded duration.
// Power is accounted at every instant: a split task draws its faster
// point's power for its faster stretch (first, under RoundSplit; where the
// job's power fits, under RoundStaggered, see stagger) and the slower
// point's for the rest, and waits after it at the slower point's. The
// replay is as soon as possible, so events may reorder and the job may
// exceed the cap; OverCapNs reports for how long.
func (sc *Scenario) ReplayRounded(g *graph.Graph, t *mpi.Trace, d *bound.DAG, b *bound.Bound, ro bound.RoundOptions, m *Machine, net network.LogGOPS) (Metrics, error) {
	met, _, err := sc.replayRounded(g, t, d, b, ro, m, net, nil)
	return met, err
}

// ReplayRoundedPlan is ReplayRounded for the engine LP's schedule b of
// Net plan (BoundLPNet): the staggered rounding then starts every calc and
// send, and processes every message, no earlier than b does (Net.Starts),
// so that the replay keeps the LP's orders where as soon as possible it
// would reorder them (and end later: the engine is not monotone).
func (sc *Scenario) ReplayRoundedPlan(g *graph.Graph, t *mpi.Trace, d *bound.DAG, b *bound.Bound, ro bound.RoundOptions, m *Machine, net network.LogGOPS, plan *bound.Net) (Metrics, error) {
	met, _, err := sc.replayRounded(g, t, d, b, ro, m, net, plan)
	return met, err
}

// replayRounded is ReplayRounded that also returns what the replay
// recorded.
func (sc *Scenario) replayRounded(g *graph.Graph, t *mpi.Trace, d *bound.DAG, b *bound.Bound, ro bound.RoundOptions, m *Machine, net network.LogGOPS, plan *bound.Net) (Metrics, *taskRun, error) {
	r, err := roundLP(g, d, b, ro, plan)
	if err != nil {
		return Metrics{}, nil, err
	}
	jobCapW := b.CapW + m.BaseW()
	if sc.nodeScope() {
		jobCapW = b.CapW + m.nodeLPBaseW() // the node cap (lpCapOf)
	}
	var met Metrics
	var run *taskRun
	if ro.Policy == bound.RoundStaggered {
		met, run, err = sc.stagger(g, t, r, jobCapW, m, net)
	} else {
		met, run, err = sc.replayPhased(g, t, d, r.times, r.powers, r.parts, r.phases, jobCapW, m, net)
	}
	if err != nil {
		return met, nil, err
	}
	if met.BoundNs, err = graph.SecondsToNs(b.Makespan); err != nil {
		return met, nil, fmt.Errorf("LP bound at %g W: makespan: %w", b.CapW, err)
	}
	return met, run, nil
}

// roundLP rounds the LP's schedule b with a policy (bound.Round) for
// replayPhased, or, under RoundStaggered, for stagger: each task is then
// released when b starts it, and each operation and message of g as the
// engine LP's plan starts it (when plan is not nil and of g).
func roundLP(g *graph.Graph, d *bound.DAG, b *bound.Bound, ro bound.RoundOptions, plan *bound.Net) (*rounded, error) {
	ch, err := bound.Round(d, b, ro)
	if err != nil {
		return nil, err
	}
	return newRounded(g, d, b, ch, ro.Policy == bound.RoundStaggered, plan), nil
}

// newRounded is the schedule b of d with every task's configurations
// chosen (ch) for replayPhased, or, where staggered, for stagger: each
// task is then released when b starts it, and each operation and message
// of g as the engine LP's plan starts it (when plan is not nil and of g).
func newRounded(g *graph.Graph, d *bound.DAG, b *bound.Bound, ch []bound.Choice, staggered bool, plan *bound.Net) *rounded {
	r := &rounded{d: d, ch: ch, times: make([]float64, len(ch)), powers: make([]float64, len(ch)),
		parts: make([][]taskPart, len(ch)), phases: make([][]power.Phase, len(ch))}
	for i := range ch {
		r.set(i, false)
	}
	if staggered {
		// A runtime following the LP's schedule starts each task when
		// the schedule does: as soon as possible, the replay reorders
		// events the LP keeps in order and ends later than it.
		r.release = make([]float64, len(ch))
		for i := range ch {
			r.release[i] = b.Vertex[d.Tasks[i].Src]
		}
		if plan != nil && sameOps(plan.Graph(), g) {
			r.opRel, r.msgRel = plan.Starts(b)
		}
	}
	return r
}

// rounded is a rounded LP schedule as replayPhased takes it.
type rounded struct {
	d             *bound.DAG
	ch            []bound.Choice
	times, powers []float64
	release       []float64 // per task, its start in the LP's schedule (staggered)
	opRel, msgRel []int64   // per operation: Net.Starts (staggered, engine LP)
	parts         [][]taskPart
	phases        [][]power.Phase
	first         *staggerFirst // stagger's first round where staggerFits ran it (r as it left it)
	// scratch, where set, is the engine memory r's replays reuse (the
	// replays of one headroom search, lpPlanner.scratch).
	scratch *sim.Scratch
}

// set prices task i as its choice says (its faster stretch first), or
// wholly at its slower point when slow is set.
func (r *rounded) set(i int, slow bool) {
	if slow {
		r.setFast(i, 0)
		return
	}
	r.setFast(i, -1)
}

// setFast prices task i with fastS seconds at its faster point (the rest
// of its work at the slower one; negative: the choice's share).
func (r *rounded) setFast(i int, fastS float64) {
	c, h := r.ch[i], r.d.Tasks[i].Hull
	if c.Slow != c.Fast && fastS >= 0 {
		if fastS <= 0 {
			c = bound.Choice{Fast: c.Slow, Slow: c.Slow, Frac: 1, Time: h[c.Slow].Time, Power: h[c.Slow].Power}
		} else if frac := fastS / h[c.Fast].Time; frac < c.Frac {
			sw := c.Time - c.Frac*h[c.Fast].Time - (1-c.Frac)*h[c.Slow].Time // the switch overhead
			ts := (1-frac)*h[c.Slow].Time + sw
			c.Frac, c.Time = frac, fastS+ts
			c.Power = (h[c.Fast].Power*fastS + h[c.Slow].Power*ts) / c.Time
		}
	}
	r.times[i], r.powers[i], r.phases[i] = c.Time, c.Power, nil
	if c.Slow == c.Fast {
		r.parts[i] = []taskPart{{h[c.Fast].Label, -1}}
		return
	}
	tf := c.Frac * h[c.Fast].Time
	r.parts[i] = []taskPart{{h[c.Fast].Label, tf}, {h[c.Slow].Label, (1 - c.Frac) * h[c.Slow].Time}}
	r.phases[i] = []power.Phase{{Ns: graph.SatNs(tf * 1e9), Watts: h[c.Fast].Power}, {Ns: math.MaxInt64 / 4, Watts: h[c.Slow].Power}}
}

// ReplayConductor runs the Conductor baseline (package optimize/conductor)
// at a sweep cap over the LP's DAG, the job's or every node's
// (conductor.ScheduleNodes, as the scenario's sweep.cap_scope says), and
// replays its per-task configurations on the engine.
func (sc *Scenario) ReplayConductor(g *graph.Graph, t *mpi.Trace, d *bound.DAG, o *bound.Order, capW float64, p conductor.Params, m *Machine, net network.LogGOPS) (Metrics, *conductor.Result, error) {
	met, r, _, err := sc.replayConductor(g, t, d, o, capW, p, m, net)
	return met, r, err
}

// replayConductor is ReplayConductor that also returns what the replay
// recorded.
func (sc *Scenario) replayConductor(g *graph.Graph, t *mpi.Trace, d *bound.DAG, o *bound.Order, capW float64, p conductor.Params, m *Machine, net network.LogGOPS) (Metrics, *conductor.Result, *taskRun, error) {
	r, err := conductor.ScheduleNodes(d, o, sc.lpCapOf(m, capW), sc.lpNodeOf(m, d), p)
	if err != nil {
		return Metrics{}, nil, nil, err
	}
	parts := make([][]taskPart, len(d.Tasks))
	for i, tk := range d.Tasks {
		parts[i] = []taskPart{{tk.Hull[r.Config[i]].Label, -1}}
	}
	met, run, err := sc.replayPhased(g, t, d, r.Time, r.Power, parts, nil, capW, m, net)
	return met, r, run, err
}

// replayTasks replays g with every LP task's calc operation taking the
// given time (seconds) at the given power (watts); the cap is the job's.
// A task runs on its region's accelerator (queueing for it where ranks
// share it) for the parts of it, parts[i], whose configuration is the
// device's: its whole length, or the device part's seconds first.
func (sc *Scenario) replayTasks(g *graph.Graph, t *mpi.Trace, d *bound.DAG, times, powers []float64, parts [][]taskPart, jobCapW float64, m *Machine, net network.LogGOPS) (Metrics, error) {
	met, _, err := sc.replayPhased(g, t, d, times, powers, parts, nil, jobCapW, m, net)
	return met, err
}

// taskRun is what replayPhased recorded: each LP task's calc operation,
// the accountant and the power model it priced the run with.
type taskRun struct {
	op       []int32
	acct     *power.Accountant
	model    power.JobModel
	makespan int64
	res      *sim.Result
	net      network.LogGOPS
	opts     sim.Options // without its observer
}

// replayPhased is replayTasks where task i may switch configuration
// mid-task: phases[i] (nil: none) gives its power phase by phase from its
// start, for the instantaneous power accounting.
func (sc *Scenario) replayPhased(g *graph.Graph, t *mpi.Trace, d *bound.DAG, times, powers []float64, parts [][]taskPart, phases [][]power.Phase, jobCapW float64, m *Machine, net network.LogGOPS) (Metrics, *taskRun, error) {
	return sc.replayPlanned(g, t, d, times, powers, parts, phases, nil, nil, nil, jobCapW, m, net, nil)
}

// sameOps reports whether a and b have the same operations (kinds, ranks
// and sizes), so that one's per-operation arrays index the other's.
func sameOps(a, b *graph.Graph) bool {
	if a == nil || b == nil || a.NumOps() != b.NumOps() || a.NumRanks() != b.NumRanks() {
		return false
	}
	for op := range a.NumOps() {
		if a.Kind[op] != b.Kind[op] || a.Peer[op] != b.Peer[op] || (a.Kind[op] != graph.Calc && a.Size[op] != b.Size[op]) {
			return false
		}
	}
	return true
}

// replayPlanned is replayPhased with every task i starting no earlier than
// release[i] seconds (nil: as soon as possible), or, when opRel is set,
// every operation no earlier than opRel and every message processed no
// earlier than msgRel (sim.Options.Release, ReleaseMsg). scr, where not
// nil, is the engine's memory, reused from the replay before.
func (sc *Scenario) replayPlanned(g *graph.Graph, t *mpi.Trace, d *bound.DAG, times, powers []float64, parts [][]taskPart, phases [][]power.Phase, release []float64, opRel, msgRel []int64, jobCapW float64, m *Machine, net network.LogGOPS, scr *sim.Scratch) (Metrics, *taskRun, error) {
	if err := m.FitGraph(g, false); err != nil {
		return Metrics{}, nil, err
	}
	var sp *speeds
	if len(m.Accelerators) > 0 {
		var err error
		if sp, err = sc.speedsOf(m, g.Regions); err != nil {
			return Metrics{}, nil, err
		}
	}
	calcOf, err := taskCalcs(g, t)
	if err != nil {
		return Metrics{}, nil, err
	}
	pl, err := planOps(g, d, calcOf, sp, times, powers, parts, phases, release)
	if err != nil {
		return Metrics{}, nil, err
	}
	gpus := t == nil && m.GPU != nil // an execution graph's kernels on its ranks' GPUs
	if t == nil {
		pl.lift(g, m)
	}
	cls, err := sc.Classes(g, t)
	if err != nil {
		return Metrics{}, nil, err
	}
	acct := power.NewAccountant(g)
	if gpus {
		acct.OnDevice(g.NumRanks(), onGPU(g))
	}
	var dev []int32
	if sp != nil {
		dev = sp.devices(g, m, func(op, _ int32) bool { return pl.onDev[op] })
	}
	rel := pl.rel
	if opRel != nil {
		rel = opRel
	}
	opts := sim.Options{Pricer: &opPricer{g: g, dur: pl.dur}, Classes: cls, Device: dev, Release: rel, ReleaseMsg: msgRel}
	if opts.Flow, err = sc.flowNetwork(m, g.NumRanks()); err != nil {
		return Metrics{}, nil, err
	}
	if dev != nil {
		opts.DeviceNs = pl.devNs
	}
	run := opts
	run.Observer, run.Scratch = acct, scr
	res, err := sim.Run(g, net, run)
	if err != nil {
		return Metrics{}, nil, err
	}
	active := make([]float64, g.NumRanks())
	for r := range active {
		active[r] = m.PStates[0].ActivePowerW
	}
	// Between tasks a rank draws the machine's wait power (by default its
	// last task's, as the LP charges slack, Bailey et al., SC'15, §3.3).
	// An MPI trace runs nothing on a GPU: the machine's GPUs idle. An
	// execution graph's kernels run on them (as the replayer's, replay),
	// each GPU drawing its idle power while it runs none.
	jm := power.JobModel{BaseW: m.BaseW() + m.gpuIdleW(), IdleW: m.CoreIdlePowerW, ActiveW: active, OpW: pl.opW, OpPhases: pl.opPhases, OpWaitW: pl.waitW, Wait: m.WaitPower}
	if gpus {
		jm.BaseW = m.BaseW()
		jm.DeviceIdleW = m.deviceIdleW()
	}
	met, err := sc.powerMetrics(acct, jm, res.Makespan, sc.JobCap(m, jobCapW), sc.nodeCapW(jobCapW), m)
	if err != nil {
		return Metrics{}, nil, err
	}
	return met, &taskRun{op: pl.taskOp, acct: acct, model: jm, makespan: res.Makespan, res: res, net: net, opts: opts}, nil
}

// taskCalcs returns the calc operation in g of an LP task: of the LP of
// MPI trace t, through its compute event (eventCalcs); of the LP of an
// execution graph (t nil, graphNet), its own.
func taskCalcs(g *graph.Graph, t *mpi.Trace) (func(bound.Task) (int32, bool), error) {
	if t == nil {
		return func(task bound.Task) (int32, bool) {
			op := graphTaskOp(task)
			return op, op >= 0 && int(op) < g.NumOps() && g.Kind[op] == graph.Calc
		}, nil
	}
	eventCalc, err := eventCalcs(g, t)
	if err != nil {
		return nil, err
	}
	return func(task bound.Task) (int32, bool) {
		op, ok := eventCalc[task.Rank][task.Event]
		return op, ok
	}, nil
}

// eventCalcs maps every compute event of t, per rank, to its calc
// operation in g: the k-th calc of a rank is its k-th compute event
// (lowering adds no calcs of its own without a reduction cost).
func eventCalcs(g *graph.Graph, t *mpi.Trace) ([]map[int]int32, error) {
	calcOf := make([][]int32, len(t.Ranks))
	for r := range t.Ranks {
		for id := g.RankStart[r]; id < g.RankStart[r+1]; id++ {
			if g.Kind[id] == graph.Calc {
				calcOf[r] = append(calcOf[r], id)
			}
		}
	}
	eventCalc := make([]map[int]int32, len(t.Ranks))
	for r, rk := range t.Ranks {
		eventCalc[r] = map[int]int32{}
		k := 0
		for i := range rk.Events {
			if rk.Events[i].Kind == mpi.Compute {
				if k >= len(calcOf[r]) {
					return nil, fmt.Errorf("rank %d: more compute events than calc operations", r)
				}
				eventCalc[r][i] = calcOf[r][k]
				k++
			}
		}
	}
	return eventCalc, nil
}

// opPlan is a replay's per-operation plan: each calc's duration (ns, −1:
// its recorded size), power, device use and release, and each LP task's
// calc.
type opPlan struct {
	dur      []int64
	opW      []float64
	onDev    []bool
	waitW    []float64 // an offloaded task's wait power (power.JobModel.OpWaitW)
	devNs    []int64   // how long a calc holds its device (−1: all of it)
	taskOp   []int32
	rel      []int64 // nil without releases
	opPhases [][]power.Phase
}

// planOps prices every LP task's calc operation with its time, power,
// parts on the device and phases (phases and release may be nil).
func planOps(g *graph.Graph, d *bound.DAG, calcOf func(bound.Task) (int32, bool), sp *speeds, times, powers []float64, parts [][]taskPart, phases [][]power.Phase, release []float64) (*opPlan, error) {
	n := g.NumOps()
	pl := &opPlan{dur: make([]int64, n), opW: make([]float64, n), onDev: make([]bool, n), waitW: make([]float64, n), devNs: make([]int64, n), taskOp: make([]int32, len(d.Tasks))}
	for i := range pl.dur {
		pl.dur[i], pl.devNs[i] = -1, -1
	}
	if release != nil {
		pl.rel = make([]int64, n)
	}
	if phases != nil {
		pl.opPhases = make([][]power.Phase, n)
	}
	for i, task := range d.Tasks {
		op, ok := calcOf(task)
		if !ok {
			return nil, fmt.Errorf("LP task %d has no calc operation", i)
		}
		pl.taskOp[i] = op
		if phases != nil {
			pl.opPhases[op] = phases[i]
		}
		var err error
		if pl.rel != nil {
			// The LP's times are at least 0 but for its tolerance (a
			// start a few ns before 0 is 0).
			if pl.rel[op], err = graph.SecondsToNs(math.Max(release[i], 0)); err != nil {
				return nil, fmt.Errorf("LP task %d (%s): start: %w", i, g.Describe(op), err)
			}
		}
		if pl.dur[op], err = graph.SecondsToNs(times[i]); err != nil {
			return nil, fmt.Errorf("LP task %d (%s): %w", i, g.Describe(op), err)
		}
		pl.opW[op] = powers[i]
		if sp != nil {
			if err := pl.device(g, sp, op, parts[i]); err != nil {
				return nil, fmt.Errorf("LP task %d (%s) on its device: %w", i, g.Describe(op), err)
			}
		}
	}
	return pl, nil
}

// lift adds back to every task's power and phases what graphNet's LP
// leaves out of them (Machine.graphLift).
func (pl *opPlan) lift(g *graph.Graph, m *Machine) {
	for _, op := range pl.taskOp {
		w := m.graphLift(g, op)
		pl.opW[op] += w
		if pl.opPhases == nil || pl.opPhases[op] == nil {
			continue
		}
		ph := make([]power.Phase, len(pl.opPhases[op]))
		for k, p := range pl.opPhases[op] {
			ph[k] = power.Phase{Ns: p.Ns, Watts: p.Watts + w}
		}
		pl.opPhases[op] = ph
	}
}

// device marks calc op on its region's accelerator for the parts of it
// whose configuration is the device's: its whole length, or the device
// parts' seconds first.
func (pl *opPlan) device(g *graph.Graph, sp *speeds, op int32, parts []taskPart) error {
	devSec, whole := 0.0, false
	for _, pt := range parts {
		if sp.onDevice(g.Region[op]+1, pt.label) {
			pl.onDev[op] = true
			pl.waitW[op] = sp.hostWatts(int(g.Region[op])+1, pt.label)
			whole = whole || pt.sec < 0
			devSec += pt.sec
		}
	}
	if pl.onDev[op] && !whole {
		var err error
		pl.devNs[op], err = graph.SecondsToNs(devSec)
		return err
	}
	return nil
}

// lpShare hands the groups of one sweep run that share a machine and
// workload parameters (the groups of its policies) one bounder: the LP is
// built and solved at each cap once instead of once per policy, and a
// group's points get the same bounds as when it runs alone. A bounder is
// closed when the last group using it is done.
type lpShare struct {
	mu   sync.Mutex
	refs map[string]int // groups still to release each bounder
	bds  map[string]*shared[*bounder]
	// workers is the sweep's worker count, which also bounds each LP's
	// goroutines (newBounderOn).
	workers int
	// forks are each bounder's forkCaps: its lp points still to compute.
	forks map[string]map[int]bool
	// wls are the workloads of the groups of each key, built once (the
	// lp policy's points are groups of their own, see splitLP).
	wls map[string]*shared[workload]
	// plans are the Conductor's plans of each key (plan).
	plans map[string]*shared[lpPlan]
	// pre holds the replays of points made before their group ran
	// (prereplay), by point index, under pmu.
	pmu sync.Mutex
	pre map[int]replayed
}

// replayed is a point's replay (replayPoint): its metrics without the
// bound's columns, and how it was replayed (for belowBound).
type replayed struct {
	met  Metrics
	opts sim.Options
	net  network.LogGOPS
}

// putPre keeps a point's replay made ahead of its group.
func (l *lpShare) putPre(index int, r replayed) {
	l.pmu.Lock()
	defer l.pmu.Unlock()
	if l.pre == nil {
		l.pre = map[int]replayed{}
	}
	l.pre[index] = r
}

// takePre returns and forgets a point's replay made ahead of its group.
func (l *lpShare) takePre(index int) (replayed, bool) {
	if l == nil {
		return replayed{}, false
	}
	l.pmu.Lock()
	defer l.pmu.Unlock()
	r, ok := l.pre[index]
	delete(l.pre, index)
	return r, ok
}

// shared is a value that the groups of one key build once and share.
type shared[T any] struct {
	once  sync.Once
	v     T
	err   error
	built atomic.Bool // once has run
}

// sharedOf returns the value of key in m, built by build on first use;
// mu guards m.
func sharedOf[T any](mu *sync.Mutex, m map[string]*shared[T], key string, build func() (T, error)) (T, error) {
	mu.Lock()
	sv := m[key]
	if sv == nil {
		sv = &shared[T]{}
		m[key] = sv
	}
	mu.Unlock()
	sv.once.Do(func() {
		sv.v, sv.err = build()
		sv.built.Store(true)
	})
	return sv.v, sv.err
}

// workload is a group's trace and its graph.
type workload struct {
	t *mpi.Trace
	g *graph.Graph
}

// lpPlan is the DAG and event order the Conductor baseline plans on.
type lpPlan struct {
	d *bound.DAG
	o *bound.Order
}

// lpKey identifies the LP of a group's points.
func lpKey(p Point) string { return fmt.Sprint(p.Machine, " ", p.Params) }

// newLPShare prepares the bounders of groups (release each one's key once).
func newLPShare(groups [][]Point, caps []float64) *lpShare {
	l := &lpShare{refs: map[string]int{}, bds: map[string]*shared[*bounder]{}, forks: map[string]map[int]bool{},
		wls: map[string]*shared[workload]{}, plans: map[string]*shared[lpPlan]{}}
	for _, g := range groups {
		if g[0].Policy != policy.Uncapped {
			k := lpKey(g[0])
			l.refs[k]++
			for c := range lpForkCaps(g, caps) {
				if l.forks[k] == nil {
					l.forks[k] = map[int]bool{}
				}
				l.forks[k][c] = true
			}
		}
	}
	return l
}

// lpForkCaps returns the indices among the sweep's caps of the lp points
// of pts still to compute (bounder.forkCaps).
func lpForkCaps(pts []Point, caps []float64) map[int]bool {
	out := map[int]bool{}
	for _, p := range pts {
		if p.Policy != policy.LP || p.Done {
			continue
		}
		if k := slices.Index(caps, p.CapW); k >= 0 {
			out[k] = true
		}
	}
	return out
}

// get returns the bounder of key, built by build on first use.
func (l *lpShare) get(key string, build func() (*bounder, error)) (*bounder, error) {
	return sharedOf(&l.mu, l.bds, key, build)
}

// entry returns key's bounder as get shares it, nil where no group has
// asked for it yet.
func (l *lpShare) entry(key string) *shared[*bounder] {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bds[key]
}

// built says whether key's bounder is built (get).
func (l *lpShare) built(key string) bool {
	sb := l.entry(key)
	return sb != nil && sb.built.Load()
}

// ready says whether the group pts could run now without waiting for
// another worker: its LP is built or nobody builds it yet, and no chain
// of its caps is being solved (bounder.busy). It only guides the order
// in which workers take groups; a group that is not ready still runs
// correctly, after waiting.
func (l *lpShare) ready(pts []Point) bool {
	if pts[0].Policy == policy.Uncapped {
		return true
	}
	sb := l.entry(lpKey(pts[0]))
	switch {
	case sb == nil:
		return true // the group would build the LP itself
	case !sb.built.Load():
		return false // another worker builds it
	}
	for _, p := range pts {
		if !p.Done && sb.v.busy(p.CapW) {
			return false
		}
	}
	return true
}

// planLP returns the DAG and order the Conductor baseline of key's
// groups plans on (PlanLP of the groups' trace t on machine m under net),
// built on first use (bounder.plan builds the same where it is not
// shared).
func (l *lpShare) planLP(key string, sc *Scenario, t *mpi.Trace, m *Machine, net network.LogGOPS) (*bound.DAG, *bound.Order, error) {
	p, err := sharedOf(&l.mu, l.plans, key, func() (lpPlan, error) {
		d, o, err := sc.PlanLP(t, m, net)
		return lpPlan{d, o}, err
	})
	return p.d, p.o, err
}

// workload returns the workload of key's groups, built by build on first
// use. Replays only read it, so the groups share it.
func (l *lpShare) workload(key string, build func() (*mpi.Trace, *graph.Graph, error)) (*mpi.Trace, *graph.Graph, error) {
	w, err := sharedOf(&l.mu, l.wls, key, func() (workload, error) {
		t, g, err := build()
		return workload{t, g}, err
	})
	return w.t, w.g, err
}

// release marks one group of key done, closing its bounder after the last.
func (l *lpShare) release(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.refs[key]--; l.refs[key] > 0 {
		return
	}
	delete(l.wls, key)
	delete(l.plans, key)
	if sb := l.bds[key]; sb != nil {
		sb.v.close()
		delete(l.bds, key)
	}
}
