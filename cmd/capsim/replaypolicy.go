package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/internal/units"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/optimize/policy/dctdvfs"
	"github.com/capsim/capsim/optimize/policy/steering"
	"github.com/capsim/capsim/scenarios"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/lower"
)

// policyFlags are replay's --policy flags: a power policy decides every
// compute event's configuration and the engine replays the trace under it
// and under no policy.
type policyFlags struct {
	name, scenario, machine string
	capW                    float64
	// steering
	strict  bool
	predict string
	// dct-dvfs
	threads                     int
	serial, overhead, beta, eps float64
	coordPct                    float64
	tdvfsNs                     int64
	waitCap                     bool
	objective, strategy, gran   string
	switchNs                    int64
	lpMessages                  string
	decisionNs                  int64
	noBound                     bool
	flags                       *pflag.FlagSet
}

func (p *policyFlags) register(f *pflag.FlagSet) {
	p.flags = f
	f.StringVar(&p.name, "policy", "", "power policy to replay an MPI trace under: steering (Dynamic Power Steering), dct-dvfs (DCT + DVFS slack reclamation) or lp (the LP bound's own schedule at --cap, rounded and replayed as a sweep's lp point)")
	f.Float64Var(&p.capW, "cap", 0, "job power cap in W. steering: its budget is the cap less the machine's base power (default: every core at the middle P-state); dct-dvfs: the cap of the LP bound (default: the policy's peak); without --policy, with --models or --machine-power: the cap the job's power is checked against (energy.over_cap_ns) and drawn against on the timeline")
	f.StringVar(&p.scenario, "scenario", "", "policy: scenario giving the machine's P-states and power (default: the embedded one)")
	f.StringVar(&p.machine, "machine", "", "policy: machine of the scenario (default: its first)")
	f.BoolVar(&p.strict, "strict-lt", false, "steering: use Algorithm 2's printed strict < in step 5 instead of the ≤ fix")
	f.Int64Var(&p.decisionNs, "decision-ns", 0, "steering: per-iteration cost of deciding the P-states, added to every rank's iteration")
	f.StringVar(&p.predict, "predict", "oracle", "steering: oracle (each iteration's own load) or previous (the previous iteration's)")
	f.IntVar(&p.threads, "threads", 0, "dct-dvfs: OpenMP threads per MPI task as recorded, c_max (default: the machine's threads_per_rank if > 1, else its cores per node)")
	f.Float64Var(&p.serial, "serial", 0.05, "dct-dvfs: Amdahl serial fraction of every phase")
	f.Float64Var(&p.overhead, "thread-overhead", 0, "dct-dvfs: per extra thread, share of the one-thread time lost to synchronization")
	f.Float64Var(&p.beta, "beta", 0, "frequency-sensitive share of compute time (default: 1 − the scenario's memory_boundness; a trace's intensity parameter overrides it)")
	f.Int64Var(&p.tdvfsNs, "tdvfs-ns", 10000, "dct-dvfs: DVFS switching overhead t_dvfs in ns")
	f.Float64Var(&p.eps, "epsilon", 0, "dct-dvfs: error tolerance ε of Eq. 3.20")
	f.Float64Var(&p.coordPct, "coordination-pct", 0, "dct-dvfs: runtime overhead per coordination round, in % of the phase group's critical time (one round per group for dct-first, two for combined; Li, PhD thesis 2011, Ch. 3, reports 0.736 % on LU-MZ)")
	f.BoolVar(&p.waitCap, "wait-cap", false, "dct-dvfs: cap each task's slack by its wait measured in the DCT-only replay")
	f.StringVar(&p.objective, "objective", "phase-only", "dct-dvfs: phase-only (the thesis) or whole-interval (counts the wait power of unused slack)")
	f.StringVar(&p.strategy, "strategy", "dct-first", "dct-dvfs: dct-first or combined")
	f.StringVar(&p.gran, "granularity", "one-phase", "dct-dvfs: one-phase (one thread count per task and phase group) or per-phase")
	f.Int64Var(&p.switchNs, "switch-penalty-ns", 0, "dct-dvfs: time charged to a phase whose thread count differs from the previous phase's")
	f.StringVar(&p.lpMessages, "lp-messages", "", "policy: the LP bound's messages: engine (the engine's LogGOPS semantics as rows, as sweeps and capsim bound; --policy lp only, and its default), replay (measured on a replay at the fastest configurations; the default of steering and dct-dvfs) or loggops (uncontended cost, optimistic)")
	f.BoolVar(&p.noBound, "no-bound", false, "policy: skip the LP bound")
}

// policyJSON is the output of replay --policy.
type policyJSON struct {
	Trace    string   `json:"trace"`
	Policy   string   `json:"policy"`
	Machine  string   `json:"machine"`
	Network  string   `json:"network"`
	Phases   int      `json:"phases"`
	BudgetW  float64  `json:"budget_w,omitempty"` // steering
	BaseGHz  float64  `json:"baseline_ghz,omitempty"`
	Threads  int      `json:"threads,omitempty"` // dct-dvfs c_max
	Baseline runJSON  `json:"baseline"`
	DCT      *runJSON `json:"dct,omitempty"`
	Result   runJSON  `json:"policy_run"`
	// RuntimeImprovementPct and EnergyImprovementPct compare the policy
	// with no policy (positive = better).
	RuntimeImprovementPct float64 `json:"runtime_improvement_pct"`
	EnergyImprovementPct  float64 `json:"energy_improvement_pct"`
	OverBudgetPhases      int     `json:"over_budget_phases,omitempty"`
	SlackNs               int64   `json:"slack_ns,omitempty"`
	CoordRounds           int     `json:"coordination_rounds,omitempty"`
	CoordNs               int64   `json:"coordination_ns,omitempty"`
	KnapsackJ             float64 `json:"knapsack_j,omitempty"`
	RelaxedJ              float64 `json:"knapsack_lp_relaxation_j,omitempty"`
	LP                    lpJSON  `json:"lp_bound"`
}

type runJSON struct {
	MakespanNs int64   `json:"makespan_ns"`
	EnergyJ    float64 `json:"energy_j"`
	AvgW       float64 `json:"avg_w"`
	PeakW      float64 `json:"peak_w"`
	OverCapNs  int64   `json:"over_cap_ns,omitempty"`
}

type lpJSON struct {
	CapW    float64 `json:"cap_w"`
	BoundNs int64   `json:"bound_ns"`
	GapPct  float64 `json:"gap_pct"`
	Status  string  `json:"status"`
	// Messages is the LP's message model: loggops or replay.
	Messages string `json:"messages"`
}

// round rounds the output's watts, joules and percentages to what the
// models resolve (package internal/units).
func (o *policyJSON) round() {
	o.BudgetW = units.Watts(o.BudgetW)
	o.RuntimeImprovementPct, o.EnergyImprovementPct = units.Pct(o.RuntimeImprovementPct), units.Pct(o.EnergyImprovementPct)
	o.KnapsackJ, o.RelaxedJ = units.Joules(o.KnapsackJ), units.Joules(o.RelaxedJ)
	o.LP.CapW, o.LP.GapPct = units.Watts(o.LP.CapW), units.Pct(o.LP.GapPct)
	for _, r := range []*runJSON{&o.Baseline, o.DCT, &o.Result} {
		if r != nil {
			r.EnergyJ, r.AvgW, r.PeakW = units.Joules(r.EnergyJ), units.Watts(r.AvgW), units.Watts(r.PeakW)
		}
	}
}

func gapJSON(g policy.Gap, messages string) lpJSON {
	return lpJSON{CapW: g.CapW, BoundNs: g.BoundNs, GapPct: g.Pct, Status: g.Status, Messages: messages}
}

// machine returns the scenario machine the policy runs on and the
// scenario's default frequency-sensitive share.
func (p *policyFlags) loadMachine() (*scenarios.Scenario, *scenarios.Machine, float64, error) {
	var sc *scenarios.Scenario
	var err error
	if p.scenario == "" {
		sc, err = scenarios.LoadDefault()
	} else {
		sc, err = scenarios.Load(p.scenario)
	}
	if err != nil {
		return nil, nil, 0, err
	}
	m := &sc.Machines[0]
	if p.machine != "" {
		m = nil
		for i := range sc.Machines {
			if sc.Machines[i].Name == p.machine {
				m = &sc.Machines[i]
			}
		}
		if m == nil {
			return nil, nil, 0, usagef("scenario has no machine %q", p.machine)
		}
	}
	beta := 1 - sc.Models.MemoryBoundness
	if p.flags != nil && p.flags.Changed("beta") {
		if !(p.beta >= 0 && p.beta <= 1) {
			return nil, nil, 0, usagef("--beta %g outside [0, 1]", p.beta)
		}
		beta = p.beta
	}
	return sc, m, beta, nil
}

// run replays trace path under the policy.
func (p *policyFlags) run(cmd *cobra.Command, path string, topt importer.Options, netSpec, coll string, asJSON bool) error {
	if p.name != "steering" && p.name != "dct-dvfs" && p.name != "lp" {
		return usagef("unknown --policy %q (want steering, dct-dvfs or lp)", p.name)
	}
	if p.capW < 0 {
		return usagef("--cap %g is negative", p.capW)
	}
	for _, f := range []string{"timeline", "libstdcxx-order", "net-override", "models", "config", "config-region", "power", "machine-power"} {
		if p.flags != nil && p.flags.Changed(f) {
			return usagef("--%s does not apply to --policy replays", f)
		}
	}
	if p.name == "lp" {
		return p.runLP(cmd, path, topt, netSpec, coll, asJSON)
	}
	switch p.lpMessages {
	case "":
		p.lpMessages = scenarios.MessagesReplay
	case scenarios.MessagesEngine:
		return usagef("--lp-messages engine applies to --policy lp; the gap of %s is to an LP over replay or loggops messages", p.name)
	}
	net, err := network.ParseSpec(netSpec)
	if err != nil {
		return usageError{err}
	}
	algs, err := lower.ParseAlgorithms(coll)
	if err != nil {
		return usageError{err}
	}
	it, err := loadMPI(path, topt)
	if err != nil {
		return fmt.Errorf("--policy: %w", err)
	}
	t := it.MPI
	g, em, err := it.LowerMapped(algs)
	if err != nil {
		return err
	}
	sc, m, beta, err := p.loadMachine()
	if err != nil {
		return err
	}
	// The LP's communication follows the scenario's bound.messages, as in
	// capsim bound: measured on a replay at the fastest P-state by default.
	// The LP's communication: uncontended LogGOPS messages, or measured on
	// a replay with every compute event at its fastest configuration.
	var calibrate func(sim.CalcPricer) (bound.Comm, error)
	switch p.lpMessages {
	case scenarios.MessagesLogGOPS:
	case scenarios.MessagesReplay:
		calibrate = func(p sim.CalcPricer) (bound.Comm, error) { return sc.ReplayComm(t, g, em, m, net, p) }
	default:
		return usagef("--lp-messages %q: want loggops or replay", p.lpMessages)
	}
	if err := m.FitRanks(len(t.Ranks), false); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	ranksOnMachine := m.Ranks()
	out := policyJSON{Trace: path, Policy: p.name, Machine: m.Name, Network: net.String()}
	switch p.name {
	case "steering":
		pred, err := steering.ParsePrediction(p.predict)
		if err != nil {
			return usageError{err}
		}
		mach := steering.Machine{SleepW: m.CoreIdlePowerW, Beta: beta, Wait: m.WaitPower,
			BaseW: m.BaseW() / float64(ranksOnMachine) * float64(len(t.Ranks))}
		for _, ps := range m.PStates {
			mach.PStates = append(mach.PStates, power.PState{GHz: ps.FreqGHz, Watts: ps.ActivePowerW})
		}
		o := steering.Options{Machine: mach, Strict: p.strict, Predict: pred, NoBound: p.noBound, Calibrate: calibrate, DecisionNs: p.decisionNs}
		if p.capW > 0 {
			if o.BudgetW = p.capW - mach.BaseW; o.BudgetW <= 0 {
				return fmt.Errorf("--cap %g W does not cover the base power %g W of %d ranks", p.capW, mach.BaseW, len(t.Ranks))
			}
		}
		res, err := steering.Run(t, g, net, o)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		out.Phases, out.BudgetW, out.BaseGHz = res.Phases, res.BudgetW, res.BaseGHz
		out.Baseline = runJSON(res.Baseline)
		out.Result = runJSON(res.Steered)
		out.RuntimeImprovementPct, out.EnergyImprovementPct = res.RuntimePct, res.EnergyPct
		out.OverBudgetPhases = res.OverPhase
		out.LP = gapJSON(res.Gap, p.lpMessages)
	case "dct-dvfs":
		obj, err := dctdvfs.ParseObjective(p.objective)
		if err != nil {
			return usageError{err}
		}
		strat, err := dctdvfs.ParseStrategy(p.strategy)
		if err != nil {
			return usageError{err}
		}
		gran, err := dctdvfs.ParseGranularity(p.gran)
		if err != nil {
			return usageError{err}
		}
		cmax := p.threads
		if cmax == 0 {
			cmax = m.ThreadsPerRank
			if cmax <= 1 {
				cmax = m.SocketsPerNode * m.CoresPerSocket
			}
		}
		if cmax < 1 {
			return usagef("--threads %d < 1", cmax)
		}
		if !(p.coordPct >= 0 && p.coordPct < 100) {
			return usagef("--coordination-pct %g outside [0, 100)", p.coordPct)
		}
		node := dctdvfs.Node{Threads: dctdvfs.PowersOfTwo(cmax), IdleW: float64(m.SocketsPerNode) * m.IdlePowerW,
			CoreIdleW: m.CoreIdlePowerW, WaitW: float64(cmax) * m.CoreIdlePowerW, Wait: m.WaitPower}
		for _, ps := range m.PStates {
			node.PStates = append(node.PStates, power.PState{GHz: ps.FreqGHz, Watts: ps.ActivePowerW})
		}
		o := dctdvfs.Options{Node: node, Profile: dctdvfs.Profile{Default: dctdvfs.Scaling{Serial: p.serial, Overhead: p.overhead, Beta: beta}},
			Strategy: strat, Objective: obj, TDVFSNs: p.tdvfsNs, Epsilon: p.eps, WaitCap: p.waitCap, CapW: p.capW, NoBound: p.noBound,
			Granularity: gran, SwitchPenaltyNs: p.switchNs, Calibrate: calibrate, Coordination: p.coordPct / 100}
		res, err := dctdvfs.Run(t, g, net, o)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		out.Phases, out.Threads = res.Groups, cmax
		out.Baseline = runJSON{MakespanNs: res.Baseline.MakespanNs, EnergyJ: res.Baseline.EnergyJ, AvgW: res.Baseline.AvgW, PeakW: res.Baseline.PeakW}
		out.DCT = &runJSON{MakespanNs: res.DCT.MakespanNs, EnergyJ: res.DCT.EnergyJ, AvgW: res.DCT.AvgW, PeakW: res.DCT.PeakW}
		out.Result = runJSON{MakespanNs: res.DCTDVFS.MakespanNs, EnergyJ: res.DCTDVFS.EnergyJ, AvgW: res.DCTDVFS.AvgW, PeakW: res.DCTDVFS.PeakW}
		out.RuntimeImprovementPct = policy.Improvement(float64(res.Baseline.MakespanNs), float64(res.DCTDVFS.MakespanNs))
		out.EnergyImprovementPct = res.EnergySavedPct
		out.SlackNs, out.KnapsackJ, out.RelaxedJ = res.SlackNs, res.KnapsackJ, res.RelaxedJ
		if p.coordPct > 0 {
			out.CoordRounds, out.CoordNs = res.CoordRounds, res.CoordNs
		}
		out.LP = gapJSON(res.Gap, p.lpMessages)
	}
	return writePolicy(cmd.OutOrStdout(), out, asJSON)
}

// runLP replays trace path under the lp policy: the LP bound's schedule
// at --cap, rounded (staggered within the cap) and replayed exactly as a
// sweep's lp point (scenarios.Replayer) on the scenario's machine,
// network and collectives (--net and --coll override the scenario's),
// with the LP's messages from --lp-messages (default engine). At a cap
// of the scenario's sweep the LP is solved after the caps of its chain
// before it, as the sweep solves it, so the makespan is the sweep's.
func (p *policyFlags) runLP(cmd *cobra.Command, path string, topt importer.Options, netSpec, coll string, asJSON bool) error {
	if p.capW <= 0 {
		return usagef("--policy lp needs --cap (the job power cap in W)")
	}
	for _, f := range []string{"speed", "beta", "no-bound"} {
		if p.flags != nil && p.flags.Changed(f) {
			return usagef("--%s does not apply to --policy lp (it replays the scenario's models and always solves the LP)", f)
		}
	}
	sc, m, _, err := p.loadMachine()
	if err != nil {
		return err
	}
	switch p.lpMessages {
	case "":
		p.lpMessages = scenarios.MessagesEngine
	case scenarios.MessagesEngine, scenarios.MessagesReplay, scenarios.MessagesLogGOPS:
	default:
		return usagef("--lp-messages %q: want engine, replay or loggops", p.lpMessages)
	}
	sc.Bound.Messages = p.lpMessages
	if p.lpMessages == scenarios.MessagesEngine {
		sc.Bound.SlackPolicy = "local" // the engine LP keeps its reference replay's order
	}
	if p.flags != nil && p.flags.Changed("net") {
		net, err := network.ParseSpec(netSpec)
		if err != nil {
			return usageError{err}
		}
		if net.LogGP {
			return usagef("--net %s: --policy lp replays LogGOPS networks (a scenario's [network])", netSpec)
		}
		n := &sc.Network
		n.LNs, n.ONs, n.GapNs, n.GNsPerByte, n.ONsPerByte, n.SBytes = scenarios.Ns(net.Latency), scenarios.Ns(net.Overhead), scenarios.Ns(net.Gap), net.GapPerByte, net.OverheadPerByte, net.EagerLimit
	}
	if p.flags != nil && p.flags.Changed("coll") {
		if _, err := lower.ParseAlgorithms(coll); err != nil {
			return usageError{err}
		}
		sc.Network.Collective = coll
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	sc.Workload = scenarios.Workload{Trace: abs, Format: topt.Format}
	mi := 0
	for i := range sc.Machines {
		if &sc.Machines[i] == m {
			mi = i
		}
	}
	ctx, stop := signalContext()
	defer stop()
	got := map[string]scenarios.Metrics{}
	emit := func(pt scenarios.Point, met scenarios.Metrics) error { got[pt.Policy] = met; return nil }
	for _, pt := range []scenarios.Point{{Machine: mi, Policy: "uncapped"}, {Machine: mi, Policy: "lp", CapW: p.capW}} {
		if err := (scenarios.Replayer{}).Evaluate(ctx, sc, []scenarios.Point{pt}, emit); err != nil {
			return interrupted(ctx, fmt.Errorf("%s: policy %s: %w", path, pt.Policy, err))
		}
	}
	base, lp := got["uncapped"], got["lp"]
	if lp.Infeasible {
		return fmt.Errorf("%s: the LP has no schedule at %g W: the cap is below its least feasible cap (capsim bound prints it)", path, p.capW)
	}
	run := func(x scenarios.Metrics) runJSON {
		return runJSON{MakespanNs: x.MakespanNs, EnergyJ: x.EnergyJ, AvgW: x.AvgPowerW, PeakW: x.PeakPowerW, OverCapNs: x.OverCapNs}
	}
	out := policyJSON{Trace: path, Policy: p.name, Machine: m.Name, Network: sc.Net().String(), Baseline: run(base), Result: run(lp),
		RuntimeImprovementPct: policy.Improvement(float64(base.MakespanNs), float64(lp.MakespanNs)),
		EnergyImprovementPct:  policy.Improvement(base.EnergyJ, lp.EnergyJ),
		LP: lpJSON{CapW: p.capW, BoundNs: lp.BoundNs, Status: "ok", Messages: p.lpMessages,
			GapPct: 100 * float64(lp.MakespanNs-lp.BoundNs) / float64(lp.BoundNs)}}
	return writePolicy(cmd.OutOrStdout(), out, asJSON)
}

func printPolicy(w io.Writer, r policyJSON) {
	if r.Policy == "lp" {
		fmt.Fprintf(w, "trace     %s\npolicy    lp on machine %s: the LP's schedule at %g W, rounded within the cap and replayed\nnetwork   %s\n", r.Trace, r.Machine, r.LP.CapW, r.Network)
	} else {
		fmt.Fprintf(w, "trace     %s\npolicy    %s on machine %s\nnetwork   %s\nphases    %d\n", r.Trace, r.Policy, r.Machine, r.Network, r.Phases)
	}
	switch r.Policy {
	case "lp":
	case "steering":
		fmt.Fprintf(w, "budget    %g W of P-state power (no policy: every core at %g GHz)\n", r.BudgetW, r.BaseGHz)
	default:
		fmt.Fprintf(w, "threads   %d per MPI task as recorded; slack dispersed %d ns; knapsack %.6g J (LP relaxation %.6g J)\n", r.Threads, r.SlackNs, r.KnapsackJ, r.RelaxedJ)
		if r.CoordRounds > 0 {
			fmt.Fprintf(w, "coordination %d rounds, %d ns per task\n", r.CoordRounds, r.CoordNs)
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\tmakespan_ns\tenergy_j\tavg_w\tpeak_w\t")
	row := func(name string, x runJSON) {
		fmt.Fprintf(tw, "%s\t%d\t%.6f\t%.3f\t%.3f\t\n", name, x.MakespanNs, x.EnergyJ, x.AvgW, x.PeakW)
	}
	if r.Policy == "lp" {
		row("uncapped", r.Baseline)
	} else {
		row("no policy", r.Baseline)
	}
	if r.DCT != nil {
		row("dct only", *r.DCT)
	}
	row(r.Policy, r.Result)
	tw.Flush()
	fmt.Fprintf(w, "\nimprovement vs no policy: runtime %.2f %%, energy %.2f %%\n", r.RuntimeImprovementPct, r.EnergyImprovementPct)
	if r.Policy == "lp" && r.Result.OverCapNs > 0 {
		fmt.Fprintf(w, "time above the cap: %d ns\n", r.Result.OverCapNs)
	}
	if r.Policy == "steering" && r.Result.OverCapNs > 0 {
		fmt.Fprintf(w, "time above the budget: %d ns (%d phases had no assignment within it)\n", r.Result.OverCapNs, r.OverBudgetPhases)
	}
	switch r.LP.Status {
	case "ok":
		fmt.Fprintf(w, "LP bound at %.6g W (%s messages): %d ns, policy gap %.2f %%\n", r.LP.CapW, r.LP.Messages, r.LP.BoundNs, r.LP.GapPct)
	case "":
	default:
		fmt.Fprintf(w, "LP bound at %.6g W: %s\n", r.LP.CapW, r.LP.Status)
	}
}

// newSteeringGridCmd prints Dynamic Power Steering's improvement over the
// compute-intensity × imbalance grid of the stencil generator.
func newSteeringGridCmd() *cobra.Command {
	var (
		asJSON, noBound bool
		iters           int
	)
	c := &cobra.Command{
		Use:   "steering-grid",
		Short: "Dynamic Power Steering over the compute-intensity × imbalance grid (charged field, wavefront, random)",
		Long: `steering-grid generates a 4×4 stencil (20 iterations of 2 ms, 4 KiB halos)
for every imbalance pattern (charged-field, wavefront, random), compute
intensity and balance in {0, 0.25, 0.5, 0.75, 1}, steers it on the DPS machine
of Anger's thesis §5.1 (P-states 2.1/1.9/1.7/1.5/1.4 GHz at 20/17/14/12/11 W per core,
5 W sleeping; budget: all cores at 1.7 GHz) and prints the runtime and energy
improvement over no steering and the gap to the LP bound (Anger's thesis
Figs. 23–24).`,
		Args: nargs(0, 0),
		RunE: func(cmd *cobra.Command, a []string) error {
			s := steering.DefaultGrid()
			s.Options.NoBound = noBound
			if iters > 0 {
				s.Iterations = iters
			}
			rows, err := steering.Grid(s)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			return steering.WriteGrid(w, rows)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().BoolVar(&noBound, "no-bound", false, "skip the LP bound")
	c.Flags().IntVar(&iters, "iterations", 0, "iterations per stencil (default 20)")
	return c
}

// writePolicy writes a policy replay's result as indented JSON (rounded to
// what the models resolve) or as text.
func writePolicy(w io.Writer, out policyJSON, asJSON bool) error {
	if asJSON {
		out.round()
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	printPolicy(w, out)
	return nil
}
