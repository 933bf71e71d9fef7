package scenarios

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"

	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/internal/units"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/optimize/policy/dctdvfs"
	"github.com/capsim/capsim/optimize/policy/steering"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// The policies ReplayPolicy runs: each replays one trace under the
// policy and under none, and compares the two (steering and dct-dvfs
// also an execution graph: replayGraphPolicy).
const (
	// PolicySteering is Dynamic Power Steering (Anger, PhD thesis,
	// Georgia Tech 2016, §5.1): per BSP iteration, P-states that balance
	// the ranks within a power budget.
	PolicySteering = policy.Steering
	// PolicyDCTDVFS is concurrency throttling and DVFS slack reclamation
	// for hybrid MPI/OpenMP (Li, PhD thesis, Virginia Tech 2011, Ch. 3).
	PolicyDCTDVFS = policy.DCTDVFS
	// PolicyLP is the LP bound's own schedule at the cap (Bailey et al.,
	// SC'15), rounded within the cap and replayed as a sweep's lp point.
	PolicyLP = policy.LP
	// PolicyMinEnergy is the energy–time frontier's schedule at the cap
	// (optimize/energy): the least energy of the trace's order by the
	// least makespan under the cap slowed by PolicyReplay.SlowdownPct,
	// rounded within the cap and replayed as a sweep's min-energy point.
	PolicyMinEnergy = policy.MinEnergy
)

// ReplayPolicies lists the policies ReplayPolicy runs, in the order
// help texts name them.
var ReplayPolicies = []string{PolicySteering, PolicyDCTDVFS, PolicyLP, PolicyMinEnergy}

// PolicyReplay is one replay of a trace under a power policy.
type PolicyReplay struct {
	Policy string           // PolicySteering, PolicyDCTDVFS, PolicyLP or PolicyMinEnergy
	Trace  string           // the trace file (any format importer reads; execution graphs for steering and dct-dvfs)
	Import importer.Options // how to read it

	// Scenario gives the machine's P-states and power (nil: the embedded
	// default); for PolicyLP also the network, collectives and models.
	Scenario *Scenario
	Machine  string // machine of Scenario ("": its first)

	// Net is the network (nil: LogGOPSim's defaults, and for PolicyLP the
	// scenario's network); Coll the collective algorithms (nil: the
	// format's own, and for PolicyLP the scenario's).
	Net  *network.LogGOPS
	Coll *string

	// CapW is the power cap in W. Steering: the job's, its budget the
	// cap less the machine's base power (0: every core at the middle
	// P-state); dct-dvfs: the job's, the LP bound's cap (0: the policy's
	// peak); both refuse a cap under the scenario's per-node caps
	// (sweep.cap_scope = node). lp and min-energy: required, the job's or
	// each node's as the scenario's sweep.cap_scope says.
	CapW float64
	// Beta is the frequency-sensitive share of compute time (nil: 1 −
	// the scenario's memory_boundness). Not for PolicyLP.
	Beta *float64
	// LPMessages is the LP bound's message model: MessagesReplay or
	// MessagesLogGOPS for steering and dct-dvfs (default replay),
	// also MessagesEngine for lp (its default).
	LPMessages string
	NoBound    bool // skip the LP bound (not for PolicyLP)
	// SlowdownPct, for PolicyMinEnergy, is its deadline's slowdown over
	// the least makespan under the cap, in percent (nil: the scenario's
	// sweep.slowdown_pct).
	SlowdownPct *float64

	Steering SteeringOptions
	DCTDVFS  DCTDVFSOptions
}

// SteeringOptions are PolicySteering's own options.
type SteeringOptions struct {
	// Strict uses Algorithm 2's printed strict < in step 5 instead of ≤.
	Strict     bool
	Predict    steering.Prediction
	DecisionNs int64 // per-iteration cost of deciding the P-states
}

// DCTDVFSOptions are PolicyDCTDVFS's own options (Li's thesis, Ch. 3).
type DCTDVFSOptions struct {
	// Threads is c_max, the OpenMP threads per MPI task as recorded (0:
	// the machine's threads_per_rank if > 1, else its cores per node).
	Threads         int
	Serial          float64 // Amdahl serial fraction of every phase
	Overhead        float64 // per extra thread, share of one-thread time lost
	TDVFSNs         int64   // DVFS switching overhead t_dvfs
	Epsilon         float64 // error tolerance ε of Eq. 3.20
	CoordinationPct float64 // runtime overhead per coordination round, % in [0, 100)
	WaitCap         bool    // cap each task's slack by its DCT-only wait
	Objective       dctdvfs.Objective
	Strategy        dctdvfs.Strategy
	Granularity     dctdvfs.Granularity
	SwitchPenaltyNs int64
}

// PolicyReport is the outcome of ReplayPolicy, as capsim policy --json
// prints it.
type PolicyReport struct {
	Trace    string     `json:"trace"`
	Policy   string     `json:"policy"`
	Machine  string     `json:"machine"`
	Network  string     `json:"network"`
	Phases   int        `json:"phases"`
	BudgetW  float64    `json:"budget_w,omitempty"` // steering
	BaseGHz  float64    `json:"baseline_ghz,omitempty"`
	Threads  int        `json:"threads,omitempty"` // dct-dvfs c_max
	Baseline PolicyRun  `json:"baseline"`
	DCT      *PolicyRun `json:"dct,omitempty"`
	Result   PolicyRun  `json:"policy_run"`
	// RuntimeImprovementPct and EnergyImprovementPct compare the policy
	// with no policy (positive = better).
	RuntimeImprovementPct float64 `json:"runtime_improvement_pct"`
	EnergyImprovementPct  float64 `json:"energy_improvement_pct"`
	OverBudgetPhases      int     `json:"over_budget_phases,omitempty"`
	SlackNs               int64   `json:"slack_ns,omitempty"`
	CoordRounds           int     `json:"coordination_rounds,omitempty"`
	CoordNs               int64   `json:"coordination_ns,omitempty"`
	KnapsackJ             float64 `json:"knapsack_j,omitempty"`
	// SlowdownPct is min-energy's deadline over the least makespan
	// under the cap, in percent.
	SlowdownPct float64     `json:"slowdown_pct,omitempty"`
	RelaxedJ    float64     `json:"knapsack_lp_relaxation_j,omitempty"`
	LP          PolicyBound `json:"lp_bound"`
}

// PolicyRun is one replay's makespan and energy. Its fields are those
// of steering.Summary and dctdvfs.Summary, which convert to it.
type PolicyRun struct {
	MakespanNs int64   `json:"makespan_ns"`
	EnergyJ    float64 `json:"energy_j"`
	AvgW       float64 `json:"avg_w"`
	PeakW      float64 `json:"peak_w"`
	OverCapNs  int64   `json:"over_cap_ns,omitempty"`
	// NodePeakW is the highest power of any node under per-node caps
	// (steering and dct-dvfs with a --cap where sweep.cap_scope is node).
	NodePeakW float64 `json:"node_peak_w,omitempty"`
}

// PolicyBound is the policy's gap to the LP bound.
type PolicyBound struct {
	CapW    float64 `json:"cap_w"`
	BoundNs int64   `json:"bound_ns"`
	GapPct  float64 `json:"gap_pct"`
	Status  string  `json:"status"`
	// LeastCapW, where Status is "infeasible", is the least cap the LP
	// has a schedule at (its least feasible cap), in W like CapW.
	LeastCapW float64 `json:"least_cap_w,omitempty"`
	// Messages is the LP's message model: engine, loggops or replay.
	Messages string `json:"messages"`
}

// Round rounds the report's watts, joules and percentages to what the
// models resolve (package internal/units), as printed outputs show them.
func (o *PolicyReport) Round() {
	o.BudgetW = units.Watts(o.BudgetW)
	o.RuntimeImprovementPct, o.EnergyImprovementPct = units.Pct(o.RuntimeImprovementPct), units.Pct(o.EnergyImprovementPct)
	o.KnapsackJ, o.RelaxedJ = units.Joules(o.KnapsackJ), units.Joules(o.RelaxedJ)
	o.LP.CapW, o.LP.LeastCapW, o.LP.GapPct = units.Watts(o.LP.CapW), units.Watts(o.LP.LeastCapW), units.Pct(o.LP.GapPct)
	for _, r := range []*PolicyRun{&o.Baseline, o.DCT, &o.Result} {
		if r != nil {
			r.EnergyJ, r.AvgW, r.PeakW, r.NodePeakW = units.Joules(r.EnergyJ), units.Watts(r.AvgW), units.Watts(r.PeakW), units.Watts(r.NodePeakW)
		}
	}
}

func policyBound(g policy.Gap, messages string) PolicyBound {
	return PolicyBound{CapW: g.CapW, BoundNs: g.BoundNs, GapPct: g.Pct, Status: g.Status, LeastCapW: g.LeastCapW, Messages: messages}
}

// ReplayPolicy replays r.Trace under r.Policy and under no policy on the
// scenario's machine and reports both and the policy's gap to the LP
// bound. ctx stops PolicyLP's replays (its LP solves take the longest).
func ReplayPolicy(ctx context.Context, r PolicyReplay) (*PolicyReport, error) {
	if r.CapW < 0 {
		return nil, optionf("--cap %g is negative", r.CapW)
	}
	sc := r.Scenario
	if sc == nil {
		var err error
		if sc, err = LoadDefault(); err != nil {
			return nil, err
		}
	}
	m, mi, err := sc.MachineByName(r.Machine)
	if err != nil {
		return nil, err
	}
	switch r.Policy {
	case PolicyLP, PolicyMinEnergy:
		return replayLPPolicy(ctx, r, sc, m, mi)
	case PolicySteering, PolicyDCTDVFS:
	default:
		return nil, optionf("unknown --policy %q (want steering, dct-dvfs, lp or min-energy)", r.Policy)
	}
	messages := r.LPMessages
	switch messages {
	case "":
		messages = MessagesReplay
	case MessagesEngine:
		return nil, optionf("--lp-messages engine applies to --policy lp; the gap of %s is to an LP over replay or loggops messages", r.Policy)
	case MessagesReplay, MessagesLogGOPS:
	default:
		return nil, optionf("--lp-messages %q: want loggops or replay", messages)
	}
	if r.NoBound && r.LPMessages != "" {
		return nil, optionf("--lp-messages %s sets the LP bound's messages, but --no-bound skips the bound: give one of them", r.LPMessages)
	}
	beta := 1 - sc.Models.MemoryBoundness
	if r.Beta != nil {
		if !(*r.Beta >= 0 && *r.Beta <= 1) {
			return nil, optionf("--beta %g outside [0, 1]", *r.Beta)
		}
		beta = *r.Beta
	}
	net, err := network.ParseSpec("loggops")
	if err != nil {
		return nil, err
	}
	if r.Net != nil {
		net = *r.Net
	}
	var coll string
	if r.Coll != nil {
		coll = *r.Coll
	}
	algs, err := lower.ParseAlgorithms(coll)
	if err != nil {
		return nil, asOption(err)
	}
	it, err := importer.Read(r.Trace, r.Import) // its errors name the trace
	if err != nil {
		return nil, err
	}
	if r.CapW > 0 {
		if err := sc.capScopeFits(r.Policy, it.MPI != nil); err != nil {
			return nil, asOption(fmt.Errorf("--cap %g W: %w", r.CapW, err))
		}
	}
	if it.MPI == nil {
		g, err := it.Lower(algs)
		if err != nil {
			return nil, err
		}
		out, err := replayGraphPolicy(ctx, r, sc, m, g, net)
		return out, inGraphTerms(err, r.Trace, g)
	}
	t := it.MPI
	g, em, err := it.LowerMapped(algs)
	if err != nil {
		return nil, err
	}
	// The LP's communication: uncontended LogGOPS messages, or measured on
	// a replay with every compute event at its fastest configuration.
	var calibrate func(sim.CalcPricer) (bound.Comm, error)
	if messages == MessagesReplay {
		calibrate = func(p sim.CalcPricer) (bound.Comm, error) { return sc.ReplayComm(t, g, em, m, net, p) }
	}
	if err := m.FitRanks(len(t.Ranks), false); err != nil {
		return nil, fmt.Errorf("%s: %w", r.Trace, err)
	}
	pstates := make([]power.PState, len(m.PStates))
	for i, ps := range m.PStates {
		pstates[i] = power.PState{GHz: ps.FreqGHz, Watts: ps.ActivePowerW}
	}
	out := &PolicyReport{Trace: r.Trace, Policy: r.Policy, Machine: m.Name, Network: net.String()}
	// A rank's share of its node's base power: ranks_per_node ranks share
	// a node, which draws its base power once.
	rankBaseW := m.BaseW() / float64(m.Ranks())
	if r.Policy == PolicySteering {
		s := r.Steering
		mach := steering.Machine{SleepW: m.CoreIdlePowerW, Beta: beta, Wait: m.WaitPower, PStates: pstates,
			BaseW: rankBaseW * float64(len(t.Ranks))}
		o := steering.Options{Machine: mach, Strict: s.Strict, Predict: s.Predict, NoBound: r.NoBound, Calibrate: calibrate, DecisionNs: s.DecisionNs}
		if r.CapW > 0 {
			if o.Nodes, err = sc.policyNodes(r, m, len(t.Ranks), rankBaseW); err != nil {
				return nil, err
			}
			baseW, of := mach.BaseW, fmt.Sprintf("%d ranks", len(t.Ranks))
			if o.Nodes != nil {
				baseW, of = o.Nodes.BaseW, fmt.Sprintf("a node of %d ranks", m.RanksPerNode)
			}
			if o.BudgetW = r.CapW - baseW; o.BudgetW <= 0 {
				return nil, fmt.Errorf("--cap %g W does not cover the base power %g W of %s", r.CapW, baseW, of)
			}
		}
		res, err := steering.Run(t, g, net, o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Trace, r.inMPITerms(err, t, g, em))
		}
		out.Phases, out.BudgetW, out.BaseGHz = res.Phases, res.BudgetW, res.BaseGHz
		out.Baseline, out.Result = PolicyRun(res.Baseline), PolicyRun(res.Steered)
		out.RuntimeImprovementPct, out.EnergyImprovementPct = res.RuntimePct, res.EnergyPct
		out.OverBudgetPhases = res.OverPhase
		out.LP = policyBound(res.Gap, messages)
		return out, nil
	}
	d := r.DCTDVFS
	cmax, err := dctThreads(d.Threads, m)
	if err != nil {
		return nil, err
	}
	if !(d.CoordinationPct >= 0 && d.CoordinationPct < 100) {
		return nil, optionf("--coordination-pct %g outside [0, 100)", d.CoordinationPct)
	}
	node := dctdvfs.Node{Threads: dctdvfs.PowersOfTwo(cmax), IdleW: rankBaseW,
		CoreIdleW: m.CoreIdlePowerW, WaitW: float64(cmax) * m.CoreIdlePowerW, Wait: m.WaitPower, PStates: perCore(pstates, m)}
	o := dctdvfs.Options{Node: node, Profile: dctdvfs.Profile{Default: dctdvfs.Scaling{Serial: d.Serial, Overhead: d.Overhead, Beta: beta}},
		Strategy: d.Strategy, Objective: d.Objective, TDVFSNs: d.TDVFSNs, Epsilon: d.Epsilon, WaitCap: d.WaitCap, CapW: r.CapW, NoBound: r.NoBound,
		Granularity: d.Granularity, SwitchPenaltyNs: d.SwitchPenaltyNs, Calibrate: calibrate, Coordination: d.CoordinationPct / 100}
	if r.CapW > 0 {
		if o.Nodes, err = sc.policyNodes(r, m, len(t.Ranks), rankBaseW); err != nil {
			return nil, err
		}
	}
	res, err := dctdvfs.Run(t, g, net, o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Trace, r.inMPITerms(err, t, g, em))
	}
	dct := PolicyRun(res.DCT)
	out.Phases, out.Threads = res.Groups, cmax
	out.Baseline, out.DCT, out.Result = PolicyRun(res.Baseline), &dct, PolicyRun(res.DCTDVFS)
	out.RuntimeImprovementPct = policy.Improvement(float64(res.Baseline.MakespanNs), float64(res.DCTDVFS.MakespanNs))
	out.EnergyImprovementPct = res.EnergySavedPct
	out.SlackNs, out.KnapsackJ, out.RelaxedJ = res.SlackNs, res.KnapsackJ, res.RelaxedJ
	if d.CoordinationPct > 0 {
		out.CoordRounds, out.CoordNs = res.CoordRounds, res.CoordNs
	}
	out.LP = policyBound(res.Gap, messages)
	return out, nil
}

// replayLPPolicy replays r.Trace under the lp or the min-energy policy:
// the LP bound's schedule at r.CapW, or the energy–time frontier's,
// rounded (staggered within the cap) and replayed exactly as a sweep's
// point of the policy (Replayer) on the scenario's machine,
// network and collectives (r.Net and r.Coll override the scenario's), with
// the LP's messages from r.LPMessages (default engine). At a cap of the
// scenario's sweep the LP is solved after the caps of its chain before
// it, as the sweep solves it, so the makespan is the sweep's.
func replayLPPolicy(ctx context.Context, r PolicyReplay, sc *Scenario, m *Machine, mi int) (*PolicyReport, error) {
	if r.CapW <= 0 {
		return nil, optionf("--policy %s needs --cap (the power cap in W: the job's, or each node's under sweep.cap_scope = node)", r.Policy)
	}
	if r.SlowdownPct != nil {
		if r.Policy != PolicyMinEnergy {
			return nil, optionf("--slowdown-pct applies to --policy min-energy")
		}
		if v := *r.SlowdownPct; !(v >= 0) || math.IsInf(v, 0) {
			return nil, optionf("--slowdown-pct %g: want a finite percentage ≥ 0", v)
		}
		sc.Sweep.SlowdownPct = *r.SlowdownPct
	}
	for _, o := range []struct {
		name string
		set  bool
	}{{"speed", r.Import.SimGrid.Speed != 0}, {"beta", r.Beta != nil}, {"no-bound", r.NoBound}} {
		if o.set {
			return nil, optionf("--%s does not apply to --policy %s (it replays the scenario's models and always solves the LP)", o.name, r.Policy)
		}
	}
	messages := r.LPMessages
	switch messages {
	case "":
		messages = MessagesEngine
	case MessagesEngine, MessagesReplay, MessagesLogGOPS:
	default:
		return nil, optionf("--lp-messages %q: want engine, replay or loggops", messages)
	}
	sc.Bound.Messages = messages
	if messages == MessagesEngine {
		sc.Bound.SlackPolicy = "local" // the engine LP keeps its reference replay's order
	}
	if r.Net != nil {
		net := *r.Net
		if net.LogGP {
			return nil, optionf("--net %s: --policy %s replays LogGOPS networks (a scenario's [network])", net, r.Policy)
		}
		n := &sc.Network
		n.LNs, n.ONs, n.GapNs, n.GNsPerByte, n.ONsPerByte, n.SBytes, n.HBytes = Ns(net.Latency), Ns(net.Overhead), Ns(net.Gap), net.GapPerByte, net.OverheadPerByte, net.EagerLimit, net.HeaderBytes
	}
	if r.Coll != nil {
		if _, err := lower.ParseAlgorithms(*r.Coll); err != nil {
			return nil, asOption(err)
		}
		sc.Network.Collective = *r.Coll
	}
	// Both replays read the trace: a pipe is copied once.
	trace, rename, done, err := importer.Reopenable(r.Trace)
	if err != nil {
		return nil, err
	}
	defer done()
	abs, err := filepath.Abs(trace)
	if err != nil {
		return nil, err
	}
	sc.Workload = Workload{Trace: abs, Format: r.Import.Format}
	got := map[string]Metrics{}
	emit := func(pt Point, met Metrics) error { got[pt.Policy] = met; return nil }
	for _, pt := range []Point{{Machine: mi, Policy: policy.Uncapped}, {Machine: mi, Policy: r.Policy, CapW: r.CapW}} {
		if err := (Replayer{}).Evaluate(ctx, sc, []Point{pt}, emit); err != nil {
			if ctx.Err() != nil {
				// Stopped: the solver's error names the LP's task-power
				// cap, the user gave this one.
				what := fmt.Sprintf("policy %s at cap %g W%s of %s", pt.Policy, pt.CapW, sc.perNode(), r.Trace)
				if pt.Policy == policy.Uncapped {
					what = "the uncapped replay of " + r.Trace
				}
				return nil, &StoppedError{Running: []string{what}, Kept: "nothing is printed", Err: context.Cause(ctx)}
			}
			var re *RanksError
			if errors.As(err, &re) {
				// The uncapped replay is the first to meet it: name the
				// trace and the scenario, not a policy not asked for.
				return nil, fmt.Errorf("%s: %d ranks, but machine %s of %s runs %d (%d nodes × %d ranks_per_node): policy %s replays a trace as a sweep does, on a machine of as many ranks; give --scenario with one",
					r.Trace, re.Ranks, re.Machine.Name, sc.File, re.Machine.Ranks(), re.Machine.Nodes, re.Machine.RanksPerNode, r.Policy)
			}
			var ce *CoresError
			if errors.As(err, &ce) {
				return nil, fmt.Errorf("%s: %w (machine %s of %s)", r.Trace, ce, ce.Machine.Name, sc.File)
			}
			return nil, fmt.Errorf("%s: policy %s: %w", r.Trace, pt.Policy, rename(err))
		}
	}
	base, lp := got[policy.Uncapped], got[r.Policy]
	if lp.Infeasible {
		if lp.LeastCapW > 0 {
			on := ""
			if sc.nodeScope() {
				on = " on every node"
			}
			return nil, fmt.Errorf("%s: the LP has no schedule at %g W: the cap is below the least power the schedule needs%s, %.6g W", r.Trace, r.CapW, on, lp.LeastCapW)
		}
		return nil, fmt.Errorf("%s: the LP has no schedule at %g W: the cap is below its least feasible cap (capsim bound prints it)", r.Trace, r.CapW)
	}
	run := func(x Metrics) PolicyRun {
		return PolicyRun{MakespanNs: x.MakespanNs, EnergyJ: x.EnergyJ, AvgW: x.AvgPowerW, PeakW: x.PeakPowerW, OverCapNs: x.OverCapNs}
	}
	out := &PolicyReport{Trace: r.Trace, Policy: r.Policy, Machine: m.Name, Network: sc.Net().String(), Baseline: run(base), Result: run(lp),
		RuntimeImprovementPct: policy.Improvement(float64(base.MakespanNs), float64(lp.MakespanNs)),
		EnergyImprovementPct:  policy.Improvement(base.EnergyJ, lp.EnergyJ),
		LP: PolicyBound{CapW: r.CapW, BoundNs: lp.BoundNs, Status: "ok", Messages: messages,
			GapPct: policyGap(lp.MakespanNs, lp.BoundNs)}}
	if r.Policy == PolicyMinEnergy {
		out.SlowdownPct = sc.Sweep.SlowdownPct
	}
	return out, nil
}

// policyGap is how much slower than its bound b a replay of ns runs, in
// percent; a bound of 0 ns (a job without work, whose replay takes none
// either) gives 0, never NaN.
func policyGap(ns, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return 100 * float64(ns-b) / float64(b)
}

// inMPITerms names the operations of a deadlocked policy replay of t,
// lowered to g with em, or of its truncated message, by their MPI calls
// and where each was read (importer.Located: an OTF2 archive is read
// again for its locations and timestamps).
func (r PolicyReplay) inMPITerms(err error, t *mpi.Trace, g *graph.Graph, em *lower.EventMap) error {
	return inTraceTerms(err, func() func(op int32) string {
		return em.Describer(importer.Located(t, r.Trace, r.Import), g)
	})
}

// perCore returns the busy power of one core per P-state, which DCT
// multiplies by a phase's threads: a machine's active_power_w is a busy
// rank's, of its threads_per_rank threads (docs/reference/scenarios.md,
// "Power model"), so each core draws its share.
func perCore(pstates []power.PState, m *Machine) []power.PState {
	if m.ThreadsPerRank <= 1 {
		return pstates
	}
	out := make([]power.PState, len(pstates))
	for i, ps := range pstates {
		out[i] = power.PState{GHz: ps.GHz, Watts: ps.Watts / float64(m.ThreadsPerRank)}
	}
	return out
}

// dctThreads is DCT's c_max on machine m, the OpenMP threads each MPI
// task ran with: threads as given (--threads), else the machine's
// threads_per_rank, whose busy power its active_power_w is (perCore).
// The ranks of a node run on its cores, so their threads together may
// not exceed them, as for a machine's threads_per_rank: more would price
// cores the node does not have.
func dctThreads(threads int, m *Machine) (int, error) {
	cores := m.SocketsPerNode * m.CoresPerSocket
	per := max(m.RanksPerNode, 1)
	switch {
	case threads < 0:
		return 0, optionf("--threads %d < 1", threads)
	case threads*per > cores:
		ranks := fmt.Sprintf("%d ranks", per)
		if per == 1 {
			ranks = "1 rank"
		}
		return 0, optionf("--threads %d: %s per node × %d threads exceed the %d cores of a node of machine %s (c_max is the threads an MPI task ran with; a machine of fewer ranks_per_node runs more threads per rank)", threads, ranks, threads, cores, m.Name)
	case threads > 0:
		return threads, nil
	}
	return max(m.ThreadsPerRank, 1), nil
}
