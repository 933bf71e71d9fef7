package scenarios

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/capsim/capsim/compute/table"
	"github.com/capsim/capsim/internal/units"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/conductor"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// BoundConfig is what RunBound computes: the caps, the workload, the LP's
// options and the rounding and Conductor baselines it replays.
type BoundConfig struct {
	// CapsW are the power caps in watts (the job's, or each node's where
	// the scenario's sweep.cap_scope is node), in the order solved (each
	// from the previous cap's basis). With one cap, a cap below the least
	// the fixed order needs is an error; with more, such a cap is a row
	// marked Infeasible and reported on Warn.
	CapsW []float64
	// Machine is the scenario's machine to run on (Scenario.MachineByName).
	Machine *Machine
	// Trace is the MPI trace to bound; Graph, where Trace is nil, the
	// execution graph (a Chakra, GOAL or graph-level Arrow trace), whose
	// LP is the one over the engine's semantics (graphNet) and which has
	// no Conductor baseline; both nil take the scenario's workload.
	Trace *mpi.Trace
	Graph *graph.Graph
	// Collectives are the trace format's own collective algorithms, used
	// for the kinds the scenario's network.collectives leaves out.
	Collectives map[mpi.Kind]string
	// TracePath and Import are the file Trace or Graph was read from and
	// how, so that an error message can read it again for where each
	// call was recorded (an OTF2 archive's locations and timestamps, a
	// GOAL file's lines; importer.Located, importer.GraphDescriber);
	// "" when unknown.
	TracePath string
	Import    importer.Options
	// TablePath, where set, is a configuration table (compute/table CSV)
	// giving every compute task its configurations instead of the
	// machine's P-states.
	TablePath string
	// Slack, where set, replaces the scenario's bound.slack_policy for the
	// LP's initial schedule.
	Slack *bound.SlackPolicy
	// LPRounding replays the LP's schedule as the sweep's lp policy does
	// (staggered, with headroom, LPPolicy); otherwise Round says how.
	LPRounding bool
	Round      bound.RoundOptions
	// Solver are the LP's options; KeepBasis is set from the number of
	// caps.
	Solver bound.Options
	// Conductor are the Conductor baseline's parameters.
	Conductor conductor.Params
	// OrderFree adds the order-free optimum of every cap
	// (bound.OrderFree); OrderFreeNodes, when not 0, is the most nodes
	// its search explores at one cap (bound.DefaultOrderFreeNodes).
	OrderFree      bool
	OrderFreeNodes int
	// MPS, where set, is the file the LP is written to as last solved.
	MPS string
	// Warn receives one line per infeasible cap of several.
	Warn io.Writer
	// Progress, where set, is told before the first cap and after each
	// cap how many of the caps are done, and which cap is being solved.
	Progress func(done, total int, capW float64)
}

// BoundRow is one cap's result of RunBound (capsim bound --json).
type BoundRow struct {
	CapW    float64 `json:"cap_w"`
	BoundNs int64   `json:"bound_ns"`
	// Infeasible marks a cap below the least the fixed order needs
	// (min_feasible_cap_w); the row has no bound and no replays.
	Infeasible       bool    `json:"infeasible,omitempty"`
	Rounding         string  `json:"rounding"`
	RoundedNs        *int64  `json:"rounded_ns"`
	RoundedPeakW     float64 `json:"rounded_peak_w"`
	RoundedOverCap   int64   `json:"rounded_over_cap_ns"`
	RoundedSwitches  int     `json:"rounded_switches"`
	StaticNs         int64   `json:"static_ns"`
	StaticPeakW      float64 `json:"static_peak_w"`
	StaticOverCap    int64   `json:"static_over_cap_ns"`
	ConductorNs      *int64  `json:"conductor_ns"` // null for an execution graph (no Conductor baseline)
	ConductorPeakW   float64 `json:"conductor_peak_w"`
	ConductorOverCap int64   `json:"conductor_over_cap_ns"`
	GapRoundedPct    float64 `json:"gap_rounded_pct"`
	GapStaticPct     float64 `json:"gap_static_pct"`
	GapConductorPct  float64 `json:"gap_conductor_pct"`
	// Where a replay ended before the bound, why (as a sweep's
	// below_bound column says: over the cap, or the first order of the
	// LP it changed), and whether it left the LP's event order: then its
	// negative gap does not contradict the fixed-order bound, which holds
	// for that order only (order_free_lower_ns holds for every order).
	RoundedBelowBound     string  `json:"rounded_below_bound,omitempty"`
	RoundedOrderChanged   bool    `json:"rounded_order_changed,omitempty"`
	StaticBelowBound      string  `json:"static_below_bound,omitempty"`
	StaticOrderChanged    bool    `json:"static_order_changed,omitempty"`
	ConductorBelowBound   string  `json:"conductor_below_bound,omitempty"`
	ConductorOrderChanged bool    `json:"conductor_order_changed,omitempty"`
	MinFeasibleCapW       float64 `json:"min_feasible_cap_w"`
	// OrderFreeLowerNs is a makespan no schedule beats at this cap,
	// whatever its event order (bound.OrderFreeLower: the DAG's
	// dependencies, each task's time–energy hull and energy ≤ cap ×
	// makespan): the floor under replays that leave the LP's order, where
	// their messages take no less than the LP's DAG prices them
	// (uncapped_over_lp_pct ≥ 0).
	OrderFreeLowerNs int64 `json:"order_free_lower_ns"`
	UncappedNs       int64 `json:"uncapped_ns"`
	LPUncappedNs     int64 `json:"lp_uncapped_ns"`
	// UncappedOverLPPct is how far the uncapped replay is above the LP's
	// DAG at every task's fastest, GapPct(uncapped_ns, lp_uncapped_ns):
	// what the LP's message model leaves out.
	UncappedOverLPPct float64 `json:"uncapped_over_lp_pct"`
	// Contention, with a network topology, says that link contention is
	// outside the LP.
	Contention string      `json:"contention,omitempty"`
	Messages   string      `json:"messages"` // how the LP priced communication (bound.messages)
	Order      string      `json:"order"`    // the initial schedule's slack-reduction policy (Bailey et al., SC'15, §3.3)
	Events     int         `json:"events"`   // events of the fixed order
	LP         bound.Stats `json:"lp"`
	// RecordedConfig is what the trace's compute times were taken as
	// measured at (assumed: the machine's fastest P-state).
	RecordedConfig RecordedConfig `json:"recorded_config"`
	// With BoundConfig.OrderFree: the least makespan over every event
	// order (Bailey et al., SC'15, §3.4), how far the fixed order's bound
	// is above it, (T_LP/T_free − 1)·100, the LPs its search solved and
	// the pairs of power events and of resource items the DAG leaves
	// unordered (what it may branch on). Absent without it, and
	// order_free_ns null where no order keeps the cap.
	OrderFreeNs     *int64   `json:"order_free_ns,omitempty"`
	OrderFreeGapPct *float64 `json:"order_free_gap_pct,omitempty"`
	OrderFreeLPs    int      `json:"order_free_lps,omitempty"`
	OrderFreePairs  int      `json:"order_free_pairs,omitempty"`
}

// BoundReport is what RunBound found.
type BoundReport struct {
	Rows       []BoundRow // one per cap solved, in order
	Machine    string     // the machine's name
	Ranks      int        // the workload's ranks
	MinCapW    float64    // the least cap the fixed order needs (the job's, or every node's under CapScope node)
	CapScope   string     // what the caps bound: CapScopeJob or CapScopeNode (sweep.cap_scope)
	UncappedNs int64      // the replay at every task's fastest configuration
	Messages   string     // bound.messages
	OrderFree  bool       // the rows have order-free columns
	// RecordedConfig is what the trace's compute times were taken as
	// measured at (assumed: the machine's fastest P-state).
	RecordedConfig RecordedConfig
	// Stopped, a *StoppedError naming the cap it was at, is where RunBound
	// stopped early because its context ended; Rows
	// then holds the caps finished.
	Stopped error
}

// GapPct is how much slower than the bound a makespan is, in percent,
// (T/T_LP − 1)·100 (the speedups of Bailey et al., SC'15, Figs. 10–11),
// to two decimals. A bound of 0 ns (a job without work: every task and
// message takes no time, so its replays take none either) gives a gap of
// 0, never NaN, so the table and JSON stay numbers.
func GapPct(ns, boundNs int64) float64 {
	if boundNs <= 0 {
		return 0
	}
	return math.Round(1e4*(float64(ns)/float64(boundNs)-1)) / 100
}

// ContentionNote says that the contention of topology t's links is
// outside the LP, and how the LP of message model messages
// (bound.messages) prices a message instead: the engine LP at its
// uncontended route (bound.GraphOptions.Flow), the loggops LP at its
// uncontended LogGOPS cost without the topology, the replay LP at its
// time in a replay without the topology.
func ContentionNote(t *NetTopology, messages string) string {
	how := "it prices every message at its uncontended route: the route's latency and its bytes over the route's narrowest link, plus o + L and the endpoints' o, (s-1)O and g"
	switch messages {
	case MessagesLogGOPS:
		how = "it prices every message at its uncontended LogGOPS cost, without the topology's routes"
	case MessagesReplay:
		how = "it takes message times from a replay without the topology"
	}
	return fmt.Sprintf("link contention on the %s topology (%s) is outside the LP: %s", t.Kind, t.Spec(), how)
}

// boundRun is one RunBound: the LP built once and solved at every cap,
// with the replays it is compared with.
type boundRun struct {
	sc     *Scenario
	cfg    BoundConfig
	m      *Machine
	net    network.LogGOPS
	t      *mpi.Trace // nil for an execution graph
	g      *graph.Graph
	cls    *network.Classes // an execution graph's message classes (Scenario.Classes)
	d, pd  *bound.DAG       // the LP's DAG; the one Conductor plans on
	o, po  *bound.Order     // their event orders
	plan   *bound.Net       // the engine LP's, whose schedule the rounding follows
	orderS float64          // making the LP's DAG and event order (lp.order_s)
	s      *bound.Solver
	free   *bound.OrderFree
	lpPol  *LPPolicy
	algs   map[mpi.Kind]string // the collective algorithms r.g is lowered with
	minCap float64
	unc    Metrics
}

// RunBound computes the power-constrained LP bound of Bailey et al.
// (SC'15) at every cap of cfg, with the replays of its rounded schedule
// and of the Static and Conductor baselines (capsim bound).
func (sc *Scenario) RunBound(ctx context.Context, cfg BoundConfig) (*BoundReport, error) {
	r := &boundRun{sc: sc, cfg: cfg, m: cfg.Machine, net: sc.Net()}
	if err := r.lower(); err != nil {
		return nil, err
	}
	if err := r.buildLP(); err != nil {
		return nil, err
	}
	if err := r.newSolver(); err != nil {
		return nil, err
	}
	defer r.s.Close()
	rep := &BoundReport{Machine: r.m.Name, Ranks: r.g.NumRanks(), MinCapW: r.minCap, CapScope: sc.Sweep.CapScope, UncappedNs: r.unc.MakespanNs,
		Messages: sc.Bound.Messages, OrderFree: r.free != nil, RecordedConfig: sc.recordedConfig(cfg.Trace == nil && cfg.Graph == nil && sc.Workload.Generator != "")}
	var infeasible []string
	for i, cw := range cfg.CapsW {
		if cfg.Progress != nil {
			cfg.Progress(i, len(cfg.CapsW), cw)
		}
		row, stop, err := r.solveCap(ctx, cw)
		if stop != nil {
			// The solver's error names the LP's task-power cap: the
			// stop is told at the cap the user gave.
			rep.Stopped = &StoppedError{Running: []string{fmt.Sprintf("cap %g W%s", cw, sc.perNode())}, Kept: "the caps before it are printed", Err: stop}
			break
		}
		if err != nil {
			return nil, err
		}
		if row.Infeasible {
			infeasible = append(infeasible, fmt.Sprint(cw))
		}
		rep.Rows = append(rep.Rows, row)
	}
	if cfg.Progress != nil && rep.Stopped == nil {
		cfg.Progress(len(cfg.CapsW), len(cfg.CapsW), 0)
	}
	for i := range rep.Rows {
		rep.Rows[i].RecordedConfig = rep.RecordedConfig
	}
	r.resolveUnits(rep.Rows)
	if len(rep.Rows) == 0 {
		return rep, nil
	}
	if cfg.MPS != "" && rep.Stopped == nil {
		if err := r.s.WriteMPS(cfg.MPS); err != nil {
			return nil, err
		}
	}
	if len(infeasible) == len(rep.Rows) {
		return nil, fmt.Errorf("every cap (%s W) is below the least power the schedule needs: %.6g W", strings.Join(infeasible, ", "), r.minCap)
	}
	return rep, nil
}

// lower takes the trace (the scenario's workload unless cfg has one) and
// lowers it with the scenario's collective algorithms, the trace format's
// own for the kinds the scenario leaves out; an execution graph as it is.
func (r *boundRun) lower() error {
	r.t, r.g = r.cfg.Trace, r.cfg.Graph
	if r.t == nil && r.g == nil {
		var err error
		if r.t, r.g, _, err = r.sc.workload(nil); err != nil {
			return err
		}
	}
	if r.t == nil {
		return nil
	}
	algs, err := lower.ParseAlgorithms(r.sc.Network.Collective)
	if err != nil {
		return err
	}
	for k, alg := range r.cfg.Collectives {
		if _, set := algs[k]; !set {
			algs[k] = alg
		}
	}
	r.algs = algs
	opt, err := r.sc.lowerOptions(algs)
	if err != nil {
		return err
	}
	r.g, err = lower.Lower(r.t, opt)
	if path, imp := r.source(); err != nil && path != "" {
		err = importer.Relowered(err, r.t, path, imp, opt)
	}
	return err
}

// source is the file the trace or graph was read from and how: the
// configuration's, else the scenario's workload; "" when unknown.
func (r *boundRun) source() (string, importer.Options) {
	if r.cfg.Trace != nil || r.cfg.Graph != nil || r.sc.Workload.Trace == "" {
		return r.cfg.TracePath, r.cfg.Import
	}
	return r.sc.path(r.sc.Workload.Trace), r.sc.Workload.importOptions()
}

// inMPITerms names the operations of a deadlocked replay of the trace
// (the LP's reference replay, a policy's), or of its truncated message,
// by their MPI calls; those of a GOAL file's graph by their lines.
func (r *boundRun) inMPITerms(err error) error {
	return inTraceTerms(err, func() func(op int32) string {
		path, imp := r.source()
		if r.t == nil {
			if path == "" {
				return nil
			}
			return importer.GraphDescriber(path, r.g)
		}
		opt, err := r.sc.lowerOptions(r.algs)
		if err != nil {
			return nil
		}
		t := r.t
		if path != "" {
			t = importer.Located(t, path, imp)
		}
		return mpiDescriber(t, opt)
	})
}

// buildLP builds the LP's DAG and event order, and what Conductor plans
// on: from the configuration table where there is one, else from the
// machine's P-states.
func (r *boundRun) buildLP() error {
	if r.t == nil {
		return r.inMPITerms(r.buildGraphLP())
	}
	return r.inMPITerms(r.buildLPs())
}

// buildLPs is buildLP of an MPI trace before a deadlock of its replays is
// named in MPI terms.
func (r *boundRun) buildLPs() error {
	sc, t, m, net := r.sc, r.t, r.m, r.net
	engine := sc.Bound.Messages == MessagesEngine
	start := time.Now()
	var err error
	if path := r.cfg.TablePath; path != "" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		tb, err := table.ReadCSV(f, path)
		f.Close()
		if err != nil {
			return err
		}
		if r.d, r.o, err = sc.TableLP(t, tb, m, net); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		r.orderS = time.Since(start).Seconds()
		r.pd, r.po = r.d, r.o
		if engine {
			if r.pd, r.po, err = sc.TablePlanLP(t, tb, m, net); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
	} else {
		if r.d, r.o, r.plan, err = sc.BoundLPNet(t, m, net); err != nil {
			return err
		}
		r.orderS = time.Since(start).Seconds()
		r.pd, r.po = r.d, r.o
		if engine {
			if r.pd, r.po, err = sc.PlanLP(t, m, net); err != nil {
				return err
			}
		}
	}
	if r.cfg.Slack != nil {
		oo := sc.Bound.OrderOptions()
		oo.Slack = *r.cfg.Slack
		if r.o, err = bound.InitialOrderWith(r.d, oo); err != nil {
			return err
		}
	}
	return nil
}

// buildGraphLP builds the LP of an execution graph: the one over the
// engine's semantics (graphNet), whose schedule the rounding follows.
func (r *boundRun) buildGraphLP() error {
	switch {
	case r.cfg.TablePath != "":
		return fmt.Errorf("a configuration table gives an MPI trace's compute regions their configurations; the workload is an execution graph")
	case r.sc.Bound.Messages != MessagesEngine:
		return fmt.Errorf("the bound of an execution graph is the LP over the engine's semantics: set [bound] messages = %q (it is %q)", MessagesEngine, r.sc.Bound.Messages)
	case r.cfg.Slack != nil:
		return fmt.Errorf("the engine LP of an execution graph keeps the order of its reference replay: no slack policy applies")
	}
	// The LP prices each rank on the machine's cores and GPUs: a graph
	// of more ranks than the machine runs has no placement (frontier
	// builds this LP without the bound's replay, which checks it too).
	if err := r.m.FitGraph(r.g, false); err != nil {
		if r.cfg.Trace == nil && r.cfg.Graph == nil && r.sc.Workload.Trace != "" {
			return fmt.Errorf("%s: workload.trace %s: %w", r.sc.File, r.sc.Workload.Trace, err)
		}
		return err
	}
	start := time.Now()
	var err error
	if r.cls, err = r.sc.Classes(r.g, nil); err != nil {
		return err
	}
	if r.plan, err = r.sc.graphNet(r.g, r.m, r.net, r.cls); err != nil {
		return err
	}
	r.d, r.o = r.plan.DAG, r.plan.Order
	r.orderS = time.Since(start).Seconds()
	return nil
}

// newSolver builds the LP's solver, the order-free search, the lp
// rounding's planner and the uncapped replay.
func (r *boundRun) newSolver() error {
	opt := r.sc.lpOptions(r.m, r.d, r.cfg.Solver)
	opt.KeepBasis = len(r.cfg.CapsW) > 1
	var err error
	if r.s, err = bound.NewSolver(r.d, r.o, opt); err != nil {
		return err
	}
	if err := r.prepare(); err != nil {
		r.s.Close()
		return err
	}
	return nil
}

// prepare makes what every cap shares once the solver is built.
func (r *boundRun) prepare() error {
	var err error
	if r.cfg.OrderFree && r.sc.nodeScope() {
		return fmt.Errorf("--order-free solves under the job's cap; the scenario's caps are per node (sweep.cap_scope = %q)", CapScopeNode)
	}
	if r.cfg.OrderFree {
		opt := bound.OrderFreeOptions{Resources: r.resources(), MaxNodes: r.cfg.OrderFreeNodes}
		if r.free, err = bound.NewOrderFree(r.d, r.o, opt); err != nil {
			return fmt.Errorf("--order-free: %w", err)
		}
	}
	if r.cfg.LPRounding {
		if r.lpPol, err = r.sc.NewLPPolicy(r.s, r.g, r.t, r.d, r.plan, r.m, r.net); err != nil {
			return err
		}
	}
	minLP, _ := r.s.MinFeasibleCap()
	r.minCap = minLP + r.sc.lpBaseOf(r.m)
	r.unc, err = r.replay(policy.Uncapped, 0)
	return err
}

// replay replays a baseline policy at a job cap: over the LP's DAG with a
// configuration table, else as a sweep does.
func (r *boundRun) replay(pol string, capW float64) (Metrics, error) {
	p, err := r.replayed(pol, capW)
	return p.met, err
}

// replayed is replay that also returns how the point was replayed (for
// belowBound; without a configuration table only, whose LP has no Net).
func (r *boundRun) replayed(pol string, capW float64) (replayed, error) {
	if r.cfg.TablePath != "" {
		met, err := r.sc.ReplayStaticDAG(r.g, r.t, r.d, capW, r.m, r.net)
		return replayed{met: met, net: r.net}, err
	}
	met, rec, err := r.sc.replay(r.g, r.m, r.net, r.cls, pol, capW)
	if err != nil {
		return replayed{}, err
	}
	return replayed{met, rec.opts, rec.net}, nil
}

// below is belowBound for a replay p of the bound command against the
// bound bn: the reason ("" where p ends at or after bn) and whether p
// left the LP's order.
func (r *boundRun) below(p replayed, bn int64) (string, bool) {
	if bn <= 0 || p.met.MakespanNs >= bn {
		return "", false
	}
	why := belowBound(r.plan, r.g, p.met, p.opts, p.net)
	return why, OrderChanged(why)
}

// solveCap solves the LP at job cap cw and replays the rounded schedule
// and the baselines there. stop is the context's error where it stopped.
func (r *boundRun) solveCap(ctx context.Context, cw float64) (row BoundRow, stop, err error) {
	b, err := r.s.SolveContext(ctx, r.sc.lpCapOf(r.m, cw))
	if err != nil && ctx.Err() != nil {
		return row, err, nil
	}
	var ie *bound.InfeasibleError
	if errors.As(err, &ie) {
		return r.infeasible(ctx, cw, ie)
	}
	if err != nil {
		return row, nil, err
	}
	if row, err = r.replays(ctx, cw, b); err != nil {
		if ctx.Err() != nil {
			return row, err, nil
		}
		return row, nil, err
	}
	if err := r.orderFreeAt(ctx, &row, cw); err != nil {
		if ctx.Err() != nil {
			return row, err, nil
		}
		return row, nil, err
	}
	if err := r.lowerAt(ctx, &row, cw); err != nil {
		if ctx.Err() != nil {
			return row, err, nil
		}
		return row, nil, err
	}
	return row, nil, nil
}

// resources are the LP's DAG's serialised resources, whose order the
// order-free columns leave free: the engine LP's (nil for a DAG without
// them).
func (r *boundRun) resources() *bound.Resources {
	if r.plan != nil && r.plan.DAG == r.d {
		return r.plan.Resources()
	}
	return nil
}

// lowerAt fills row's order-free lower bound at cap cw.
func (r *boundRun) lowerAt(ctx context.Context, row *BoundRow, cw float64) error {
	// Under node caps, the job's cap of nodes × cw: every schedule within
	// the node caps is within it, so the bound stays a lower bound.
	lo, err := bound.OrderFreeLower(ctx, r.d, r.resources(), r.m.LPCap(r.sc.JobCap(r.m, cw)))
	if err != nil {
		return err
	}
	ns, err := graph.SecondsToNs(lo)
	if err != nil {
		return fmt.Errorf("order-free lower bound at %g W: %w", cw, err)
	}
	if float64(ns) > lo*1e9 && ns > 0 {
		ns-- // rounded down: a lower bound
	}
	row.OrderFreeLowerNs = ns
	return nil
}

// infeasible is the row of a cap below the least the fixed order needs,
// an error where it is the only cap.
func (r *boundRun) infeasible(ctx context.Context, cw float64, ie *bound.InfeasibleError) (row BoundRow, stop, err error) {
	msg := fmt.Sprintf("power cap %g W is below the least power the schedule needs: %.6g W (event %d runs %d tasks at their slowest)",
		cw, r.minCap, ie.Event, len(ie.EventTasks))
	if len(r.cfg.CapsW) == 1 {
		return row, nil, errors.New(msg)
	}
	if r.cfg.Warn != nil {
		fmt.Fprintln(r.cfg.Warn, "capsim bound: "+msg)
	}
	row = BoundRow{CapW: cw, Infeasible: true, MinFeasibleCapW: r.minCap, UncappedNs: r.unc.MakespanNs,
		Messages: r.sc.Bound.Messages, LPUncappedNs: int64(math.Round(r.o.Makespan * 1e9)), Order: r.o.Policy, Events: r.o.Events}
	if err := r.orderFreeAt(ctx, &row, cw); err != nil {
		if ctx.Err() != nil {
			return row, err, nil
		}
		return row, nil, err
	}
	return row, nil, nil
}

// replays is the row of a solved cap: the rounded schedule's, Static's and
// Conductor's replays against the bound b.
func (r *boundRun) replays(ctx context.Context, cw float64, b *bound.Bound) (BoundRow, error) {
	stp, err := r.replayed(policy.Static, cw)
	if err != nil {
		return BoundRow{}, err
	}
	rdp, roundName, switches, err := r.rounded(ctx, cw, b)
	if err != nil {
		return BoundRow{}, err
	}
	st, rd := stp.met, rdp.met
	bn, err := graph.SecondsToNs(b.Makespan)
	if err != nil {
		return BoundRow{}, fmt.Errorf("LP bound at %g W: makespan: %w", cw, err)
	}
	lpUnc, err := graph.SecondsToNs(r.o.Makespan)
	if err != nil {
		return BoundRow{}, fmt.Errorf("LP initial schedule: makespan: %w", err)
	}
	rns := rd.MakespanNs
	row := BoundRow{CapW: cw, BoundNs: bn, MinFeasibleCapW: r.minCap,
		Rounding: roundName, RoundedNs: &rns, RoundedPeakW: rd.PeakPowerW, RoundedOverCap: rd.OverCapNs, RoundedSwitches: switches,
		StaticNs: st.MakespanNs, StaticPeakW: st.PeakPowerW, StaticOverCap: st.OverCapNs,
		GapRoundedPct: GapPct(rns, bn), GapStaticPct: GapPct(st.MakespanNs, bn),
		UncappedNs: r.unc.MakespanNs, Messages: r.sc.Bound.Messages, LPUncappedNs: lpUnc,
		Order: r.o.Policy, Events: r.o.Events, LP: b.Stats}
	row.RoundedBelowBound, row.RoundedOrderChanged = r.below(rdp, bn)
	row.StaticBelowBound, row.StaticOrderChanged = r.below(stp, bn)
	if r.t != nil {
		if err := r.conductor(&row, cw, bn); err != nil {
			return BoundRow{}, err
		}
	}
	return row, nil
}

// conductor fills row's Conductor columns at job cap cw against the
// bound bn ns.
func (r *boundRun) conductor(row *BoundRow, cw float64, bn int64) error {
	cd, _, crun, err := r.sc.replayConductor(r.g, r.t, r.pd, r.po, cw, r.cfg.Conductor, r.m, r.net)
	if err != nil {
		return err
	}
	cns := cd.MakespanNs
	row.ConductorNs, row.ConductorPeakW, row.ConductorOverCap, row.GapConductorPct = &cns, cd.PeakPowerW, cd.OverCapNs, GapPct(cns, bn)
	row.ConductorBelowBound, row.ConductorOrderChanged = r.below(replayed{cd, crun.opts, crun.net}, bn)
	return nil
}

// rounded replays the LP's schedule b at job cap cw rounded as cfg says,
// and returns the rounding's name and how many tasks switch mid-task.
func (r *boundRun) rounded(ctx context.Context, cw float64, b *bound.Bound) (replayed, string, int, error) {
	if r.lpPol != nil {
		rd, run, c, err := r.lpPol.replay(ctx, cw, b)
		if err != nil {
			return replayed{}, "", 0, err
		}
		return replayed{rd, run.opts, run.net}, policy.LP, c.Switches, nil
	}
	ro := r.cfg.Round
	rd, run, err := r.sc.replayRounded(r.g, r.t, r.d, b, ro, r.m, r.net, r.plan)
	if err != nil {
		return replayed{}, "", 0, err
	}
	ch, err := bound.Round(r.d, b, ro)
	if err != nil {
		return replayed{}, "", 0, err
	}
	switches := 0
	for _, c := range ch {
		if c.Switched {
			switches++
		}
	}
	return replayed{rd, run.opts, run.net}, ro.Policy.String(), switches, nil
}

// orderFreeAt fills row's order-free columns at cap cw.
func (r *boundRun) orderFreeAt(ctx context.Context, row *BoundRow, cw float64) error {
	if r.free == nil {
		return nil
	}
	res, err := r.free.SolveContext(ctx, r.m.LPCap(cw))
	if errors.Is(err, bound.ErrNoOrder) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--order-free at %g W: %w", cw, err)
	}
	ns, err := graph.SecondsToNs(res.Makespan)
	if err != nil {
		return fmt.Errorf("order-free optimum at %g W: makespan: %w", cw, err)
	}
	row.OrderFreeNs, row.OrderFreeLPs, row.OrderFreePairs = &ns, res.LPs, r.free.Pairs()
	if row.BoundNs > 0 {
		g := GapPct(row.BoundNs, ns)
		row.OrderFreeGapPct = &g
	}
	return nil
}

// resolveUnits rounds the rows' watts and seconds to what the models
// resolve (internal/units).
func (r *boundRun) resolveUnits(rows []BoundRow) {
	for i := range rows {
		row := &rows[i]
		row.MinFeasibleCapW = units.Watts(row.MinFeasibleCapW)
		row.UncappedOverLPPct = GapPct(row.UncappedNs, row.LPUncappedNs)
		if t := r.sc.Network.Topology; t != nil {
			row.Contention = ContentionNote(t, r.sc.Bound.Messages)
		}
		row.LP.BuildS, row.LP.SolveS = units.Seconds(row.LP.BuildS), units.Seconds(row.LP.SolveS)
		if !row.Infeasible {
			row.LP.OrderS = units.Seconds(r.orderS)
		}
	}
}
