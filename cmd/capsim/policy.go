package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/optimize/policy/dctdvfs"
	"github.com/capsim/capsim/optimize/policy/steering"
	"github.com/capsim/capsim/scenarios"
)

// policyFlags are the flags of a policy replay (scenarios.ReplayPolicy):
// those of one policy for 'capsim policy NAME', all of them for the
// deprecated 'capsim replay --policy NAME'.
type policyFlags struct {
	name, scenario, machine string
	netSpec, coll, format   string
	speed, capW, beta       float64
	lpMessages              string
	noBound, asJSON         bool
	slowdownPct             float64
	keepGaps, alignStarts   bool
	replicate, tp           int
	steering                scenarios.SteeringOptions
	predict                 string
	dct                     scenarios.DCTDVFSOptions
	objective, strategy     string
	gran                    string
	flags                   *pflag.FlagSet
}

// policyOwnFlags names the flags each policy takes besides the common
// ones (register defines them).
var policyOwnFlags = map[string][]string{
	scenarios.PolicySteering: {"beta", "no-bound", "speed", "strict-lt", "decision-ns", "predict", "replicate"},
	scenarios.PolicyDCTDVFS: {"beta", "no-bound", "speed", "threads", "serial", "thread-overhead", "tdvfs-ns", "epsilon",
		"coordination-pct", "wait-cap", "objective", "strategy", "granularity", "switch-penalty-ns", "replicate"},
	scenarios.PolicyLP:        nil,
	scenarios.PolicyMinEnergy: {"slowdown-pct"},
}

// otherPolicyFlags refuses a flag of another policy than p.name, which
// replay's deprecated --policy defines for every policy: the replay
// would ignore it. --speed and --replicate are left out: replay has them
// for every trace.
func (p *policyFlags) otherPolicyFlags() error {
	for _, pol := range scenarios.ReplayPolicies {
		if pol == p.name {
			continue
		}
		for _, n := range policyOwnFlags[pol] {
			if n == "speed" || n == "replicate" || slices.Contains(policyOwnFlags[p.name], n) || !p.flags.Changed(n) {
				continue
			}
			return usagef("--%s does not apply to --policy %s: it is --policy %s's", n, p.name, pol)
		}
	}
	return nil
}

// register defines the flags of policy name on f: the common ones (cap,
// scenario, machine, lp-messages and, unless inReplay, the trace and
// network flags replay has too) and policy name's own; every policy's
// when name is "".
func (p *policyFlags) register(f *pflag.FlagSet, name string, inReplay bool) {
	p.flags = f
	if name == "" {
		f.StringVar(&p.name, "policy", "", "power policy to replay an MPI trace under: "+strings.Join(scenarios.ReplayPolicies, ", "))
	}
	own := map[string]bool{}
	for pol, names := range policyOwnFlags {
		if name == "" || pol == name {
			for _, n := range names {
				own[n] = true
			}
		}
	}
	if !inReplay {
		f.StringVar(&p.netSpec, "net", "loggops", "network model, e.g. 'loggops:L=5000,o=200,g=100,G=2,O=1,S=4096'"+map[bool]string{true: " (default: the scenario's [network])"}[onLP(name)])
		f.StringVar(&p.coll, "coll", "", "collective algorithms for MPI traces, e.g. 'allreduce=ring,bcast=binomial'"+map[bool]string{true: " (default: the scenario's)"}[onLP(name)])
		f.StringVar(&p.format, "format", "", formatFlagHelp)
		addKeepGaps(f, &p.keepGaps)
		addAlignStarts(f, &p.alignStarts)
		f.BoolVar(&p.asJSON, "json", false, "print machine-readable JSON")
		if own["replicate"] {
			f.IntVar(&p.replicate, "replicate", 0, "replay a Chakra trace of k NPUs on this many (a multiple of k), every collective spanning all of them")
			f.IntVar(&p.tp, "tp", 0, "with --replicate: tensor-parallel degree K: collectives on a recorded group within a block of K NPUs stay in each copy's block, all others span the N/K NPUs at the same position in every block (docs/reference/chakra.md)")
		}
		if own["speed"] {
			f.Float64Var(&p.speed, "speed", 0, "host speed in flop/s for the flops of a SimGrid time-independent trace (default: the trace's '# smpi/host-speed:' line, else SimGrid's default 20000)")
		}
	}
	capHelp := map[string]string{
		scenarios.PolicySteering:  "power cap in W: the job's, its steering budget the cap less the machine's base power, or, where the scenario's sweep.cap_scope is node, each node's, steered among the node's ranks (default: every core at the middle P-state; per-node caps need an MPI trace)",
		scenarios.PolicyDCTDVFS:   "power cap in W of the LP bound and the replay's time above it: the job's, or each node's where the scenario's sweep.cap_scope is node (default: the policy's peak; per-node caps need an MPI trace)",
		scenarios.PolicyLP:        "power cap in W the LP's schedule holds (required): the job's, or each node's where the scenario's sweep.cap_scope is node",
		scenarios.PolicyMinEnergy: "power cap in W the frontier's schedule holds (required): the job's, or each node's where the scenario's sweep.cap_scope is node",
	}[name]
	if inReplay {
		capHelp = "job power cap in W, with --models or --machine-power: the cap the job's power is checked against (energy.over_cap_ns) and drawn against on the timeline"
	}
	f.Float64Var(&p.capW, "cap", 0, capHelp)
	f.StringVar(&p.scenario, "scenario", "", "scenario giving the machine's P-states and power (default: the embedded one)")
	f.StringVar(&p.machine, "machine", "", "machine of the scenario (default: its first)")
	lpHelp := "the LP bound's messages: replay (measured on a replay at the fastest configurations; the default) or loggops (uncontended cost, optimistic)"
	switch name {
	case scenarios.PolicyLP, scenarios.PolicyMinEnergy:
		lpHelp = "the LP's messages: engine (the engine's LogGOPS semantics as rows, as sweeps and capsim bound; the default), replay (measured on a replay at the fastest configurations) or loggops (uncontended cost, optimistic)"
	case "":
		lpHelp = "the LP bound's messages: engine (--policy lp only, and its default), replay (the default of steering and dct-dvfs) or loggops"
	}
	f.StringVar(&p.lpMessages, "lp-messages", "", lpHelp)
	if own["slowdown-pct"] {
		f.Float64Var(&p.slowdownPct, "slowdown-pct", 0, "the deadline, in percent above the least makespan of the trace's order under the cap (default: the scenario's sweep.slowdown_pct)")
	}
	if own["no-bound"] {
		f.BoolVar(&p.noBound, "no-bound", false, "skip the LP bound")
	}
	if own["beta"] {
		f.Float64Var(&p.beta, "beta", 0, "frequency-sensitive share of compute time (default: 1 − the scenario's memory_boundness; a trace's intensity parameter overrides it)")
	}
	s := &p.steering
	if own["strict-lt"] {
		f.BoolVar(&s.Strict, "strict-lt", false, "use Algorithm 2's printed strict < in step 5 instead of the ≤ fix")
		f.Int64Var(&s.DecisionNs, "decision-ns", 0, "per-iteration cost of deciding the P-states, added to every rank's iteration")
		f.StringVar(&p.predict, "predict", "oracle", "oracle (each iteration's own load) or previous (the previous iteration's)")
	}
	d := &p.dct
	if own["threads"] {
		f.IntVar(&d.Threads, "threads", 0, "OpenMP threads per MPI task as recorded, c_max (default: the machine's threads_per_rank)")
		f.Float64Var(&d.Serial, "serial", 0.05, "Amdahl serial fraction of every phase")
		f.Float64Var(&d.Overhead, "thread-overhead", 0, "per extra thread, share of the one-thread time lost to synchronization")
		f.Int64Var(&d.TDVFSNs, "tdvfs-ns", 10000, "DVFS switching overhead t_dvfs in ns")
		f.Float64Var(&d.Epsilon, "epsilon", 0, "error tolerance ε of Eq. 3.20 (Li, PhD thesis, Virginia Tech 2011)")
		f.Float64Var(&d.CoordinationPct, "coordination-pct", 0, "runtime overhead per coordination round, in % of the phase group's critical time (one round per group for dct-first, two for combined; Li's thesis, Ch. 3, reports 0.736 % on LU-MZ)")
		f.BoolVar(&d.WaitCap, "wait-cap", false, "cap each task's slack by its wait measured in the DCT-only replay")
		f.StringVar(&p.objective, "objective", "phase-only", "phase-only (the thesis) or whole-interval (counts the wait power of unused slack)")
		f.StringVar(&p.strategy, "strategy", "dct-first", "dct-first or combined")
		f.StringVar(&p.gran, "granularity", "one-phase", "one-phase (one thread count per task and phase group) or per-phase")
		f.Int64Var(&d.SwitchPenaltyNs, "switch-penalty-ns", 0, "time charged to a phase whose thread count differs from the previous phase's")
	}
}

// hidePolicyFlags hides replay's policy flags, which only apply with
// its deprecated --policy: 'capsim policy NAME' takes them instead.
func hidePolicyFlags(f *pflag.FlagSet) {
	_ = f.MarkDeprecated("policy", "use 'capsim policy NAME TRACE' with the same flags") // fails only for an undefined flag
	f.VisitAll(func(fl *pflag.Flag) {
		switch fl.Name {
		case "scenario", "machine", "lp-messages", "slowdown-pct", "no-bound", "beta", "strict-lt", "decision-ns", "predict", "threads", "serial",
			"thread-overhead", "tdvfs-ns", "epsilon", "coordination-pct", "wait-cap", "objective", "strategy", "granularity", "switch-penalty-ns":
			fl.Hidden = true
		}
	})
}

// replayPolicy reads the flags into a scenarios.PolicyReplay of trace
// path, runs it and prints the report.
func (p *policyFlags) replayPolicy(cmd *cobra.Command, path string) error {
	r := scenarios.PolicyReplay{Policy: p.name, Trace: path, Import: traceOptions(p.format, p.speed).WithKeepGaps(p.keepGaps).WithAlignStarts(p.alignStarts), Machine: p.machine,
		CapW: p.capW, LPMessages: p.lpMessages, NoBound: p.noBound, Steering: p.steering, DCTDVFS: p.dct}
	r.Import.Chakra.Replicate, r.Import.Chakra.TP = p.replicate, p.tp
	changed := func(name string) bool { return p.flags.Changed(name) }
	var err error
	if changed("net") {
		net, err := network.ParseSpec(p.netSpec)
		if err != nil {
			return usageError{err}
		}
		r.Net = &net
	} else if !onLP(p.name) {
		// Parsed as before for the replay's default, which lp leaves
		// to the scenario.
		if _, err := network.ParseSpec(p.netSpec); err != nil {
			return usageError{err}
		}
	}
	if changed("coll") {
		r.Coll = &p.coll
	}
	if changed("beta") {
		r.Beta = &p.beta
	}
	if p.name == scenarios.PolicyMinEnergy && changed("slowdown-pct") {
		r.SlowdownPct = &p.slowdownPct
	}
	if p.name == scenarios.PolicySteering {
		if r.Steering.Predict, err = steering.ParsePrediction(p.predict); err != nil {
			return usageError{err}
		}
	}
	if p.name == scenarios.PolicyDCTDVFS {
		d := &r.DCTDVFS
		if d.Objective, err = dctdvfs.ParseObjective(p.objective); err != nil {
			return usageError{err}
		}
		if d.Strategy, err = dctdvfs.ParseStrategy(p.strategy); err != nil {
			return usageError{err}
		}
		if d.Granularity, err = dctdvfs.ParseGranularity(p.gran); err != nil {
			return usageError{err}
		}
	}
	if p.scenario != "" {
		if r.Scenario, err = scenarios.Load(p.scenario); err != nil {
			return err
		}
	}
	ctx, stop := signalContextKeeping("nothing was printed or written; the next run removes temporary files")
	defer stop()
	out, err := scenarios.ReplayPolicy(ctx, r)
	if errors.Is(err, scenarios.ErrOption) || errors.Is(err, scenarios.ErrNoMachine) {
		return usageError{err}
	}
	if err != nil {
		return interrupted(ctx, err)
	}
	return writePolicy(cmd.OutOrStdout(), *out, p.asJSON)
}

// newPolicyCmd is 'capsim policy NAME TRACE', one subcommand per policy
// scenarios.ReplayPolicy runs, each with only its own flags.
func newPolicyCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "policy",
		Short: "Replay a trace under a power policy and under none, and compare them with the LP bound",
	}
	about := map[string]struct{ short, long, example string }{
		scenarios.PolicySteering: {"Dynamic Power Steering: per iteration, P-states that balance the ranks within a budget",
			`steering replays an MPI trace under Dynamic Power Steering (Anger, PhD
thesis, Georgia Tech 2016, §5.1, Algorithm 2): per BSP iteration each rank
gets the P-state that balances the iteration's load within the power budget
(the cap less the machine's base power). It replays the trace under no
policy too (every core at the middle P-state) and reports the runtime and
energy of both and the gap to the LP bound at the cap (Bailey et al.,
SC'15). The machine's P-states and power come from the scenario.

Where the scenario's sweep.cap_scope is node, --cap is each node's: every
node steers its own budget (its cap less its share of the base power)
among its ranks, the iteration's critical rank still the job's, and the
LP bound caps every node (MPI traces only).

On an execution graph (a Chakra trace, a GOAL file) iteration k is every
rank's k-th phase (its computation between two communications), a rank's
configurations are its GPU's clocks × its cores' P-states, timed by
replaying the graph, the baseline is static at the cap and the LP bound
the graph's (docs/guide/policies.md).`,
			`  capsim policy steering stencil.arrow --cap 200 --predict previous --json`},
		scenarios.PolicyDCTDVFS: {"DCT + DVFS: thread throttling and slack reclamation for hybrid MPI/OpenMP",
			`dct-dvfs replays an MPI trace of hybrid MPI/OpenMP tasks under dynamic
concurrency throttling and DVFS slack reclamation (Li, PhD thesis, Virginia
Tech 2011, Ch. 3): per phase group each task gets the thread count that
runs its phase fastest and then the frequencies that spend its slack,
chosen by a multiple-choice knapsack. It reports no policy, DCT alone and
DCT + DVFS, and the gap to the LP bound (Bailey et al., SC'15).
Where the scenario's sweep.cap_scope is node, --cap is each node's: the LP
bound caps every node and the replay reports the time some node stands
above its cap (MPI traces only).

On an execution graph (a Chakra trace, a GOAL file) a phase group is
every rank's k-th phase; its operations carry no thread counts, so DCT
keeps them as recorded, and DVFS spends each rank's slack on its tasks'
GPU clocks and P-states (docs/guide/policies.md).`,
			`  capsim policy dct-dvfs lu-mz.arrow --scenario examples/scenarios/hybrid.toml --threads 16 --strategy combined --json`},
		scenarios.PolicyLP: {"The LP bound's own schedule at a cap, rounded within the cap and replayed",
			`lp solves the fixed-event-order LP of Bailey et al. (SC'15) at --cap,
rounds its schedule to the machine's configurations within the cap and
replays it exactly as a sweep's lp point on the scenario's machine,
network and collectives (--net and --coll override the scenario's). At a
cap of the scenario's sweep the LP is solved after the caps of its chain
before it, as the sweep solves it, so the makespan is the sweep's. TRACE is
an MPI trace or an execution graph (a Chakra trace, a GOAL file): a graph's
LP is the one over the engine's semantics (--lp-messages engine), each
kernel's configurations its GPU's clocks, each host operation's the
P-states (docs/guide/gpu-power.md).`,
			`  capsim policy lp stencil.arrow --cap 320 --scenario my.toml --json`},
		scenarios.PolicyMinEnergy: {"The energy–time frontier's schedule at a cap and deadline, rounded within the cap and replayed",
			`min-energy solves the energy–time frontier's LP (capsim frontier: the
fixed-event-order LP of Bailey et al., SC'15, minimising energy subject to
makespan ≤ T) under --cap, at the deadline T that is --slowdown-pct above
the least makespan of the trace's order under the cap, rounds its schedule
to the machine's configurations within the cap as the lp policy does, and
replays it exactly as a sweep's min-energy point on the scenario's
machine, network and collectives. It reports the replay beside the
uncapped one and the LP bound at the cap. TRACE is an MPI trace or an
execution graph, as for lp.`,
			`  capsim policy min-energy stencil.arrow --cap 340 --slowdown-pct 5 --json`},
	}
	for _, name := range scenarios.ReplayPolicies {
		p := &policyFlags{name: name}
		a := about[name]
		sub := &cobra.Command{
			Use:     name + " TRACE",
			Short:   a.short,
			Long:    a.long,
			Example: a.example,
			Args:    nargs(1, 1),
			RunE:    func(cmd *cobra.Command, args []string) error { return p.replayPolicy(cmd, args[0]) },
		}
		p.register(sub.Flags(), name, false)
		c.AddCommand(sub)
	}
	return c
}

// writePolicy writes a policy replay's result as indented JSON (rounded to
// what the models resolve) or as text.
func writePolicy(w io.Writer, out scenarios.PolicyReport, asJSON bool) error {
	if asJSON {
		out.Round()
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	printPolicy(w, out)
	return nil
}

func printPolicy(w io.Writer, r scenarios.PolicyReport) {
	switch r.Policy {
	case policy.LP:
		fmt.Fprintf(w, "trace     %s\npolicy    lp on machine %s: the LP's schedule at %g W, rounded within the cap and replayed\nnetwork   %s\n", r.Trace, r.Machine, r.LP.CapW, r.Network)
	case policy.MinEnergy:
		fmt.Fprintf(w, "trace     %s\npolicy    min-energy on machine %s: the frontier's schedule at %g W, %g %% above the least makespan there, rounded within the cap and replayed\nnetwork   %s\n", r.Trace, r.Machine, r.LP.CapW, r.SlowdownPct, r.Network)
	default:
		fmt.Fprintf(w, "trace     %s\npolicy    %s on machine %s\nnetwork   %s\nphases    %d\n", r.Trace, r.Policy, r.Machine, r.Network, r.Phases)
	}
	switch r.Policy {
	case policy.LP, policy.MinEnergy:
	case policy.Steering:
		if r.BaseGHz > 0 {
			fmt.Fprintf(w, "budget    %g W of P-state power (no policy: every core at %g GHz)\n", r.BudgetW, r.BaseGHz)
		} else {
			fmt.Fprintf(w, "budget    %g W of core and GPU power above idle (no policy: static at the cap)\n", r.BudgetW)
		}
	default:
		threads := fmt.Sprintf("%d per MPI task as recorded", r.Threads)
		if r.Threads == 0 {
			threads = "as recorded (an execution graph has none to throttle)"
		}
		fmt.Fprintf(w, "threads   %s; slack dispersed %d ns; knapsack %.6g J (LP relaxation %.6g J)\n", threads, r.SlackNs, r.KnapsackJ, r.RelaxedJ)
		if r.CoordRounds > 0 {
			fmt.Fprintf(w, "coordination %d rounds, %d ns per task\n", r.CoordRounds, r.CoordNs)
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\tmakespan_ns\tenergy_j\tavg_w\tpeak_w\t")
	row := func(name string, x scenarios.PolicyRun) {
		fmt.Fprintf(tw, "%s\t%d\t%.6f\t%.3f\t%.3f\t\n", name, x.MakespanNs, x.EnergyJ, x.AvgW, x.PeakW)
	}
	if onLP(r.Policy) {
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
	if onLP(r.Policy) && r.Result.OverCapNs > 0 {
		fmt.Fprintf(w, "time above the cap: %d ns\n", r.Result.OverCapNs)
	}
	if r.Policy == policy.Steering && r.Result.OverCapNs > 0 {
		fmt.Fprintf(w, "time above the budget: %d ns (%d phases had no assignment within it)\n", r.Result.OverCapNs, r.OverBudgetPhases)
	}
	if r.Policy == policy.DCTDVFS && r.Result.OverCapNs > 0 {
		fmt.Fprintf(w, "time above the cap: %d ns (DCT + DVFS chooses by slack, not by power)\n", r.Result.OverCapNs)
	}
	if r.Result.NodePeakW > 0 {
		fmt.Fprintf(w, "node peak: %.3f W (per-node caps)\n", r.Result.NodePeakW)
	}
	switch r.LP.Status {
	case "ok":
		fmt.Fprintf(w, "LP bound at %.6g W (%s messages): %d ns, policy gap %.2f %%\n", r.LP.CapW, r.LP.Messages, r.LP.BoundNs, r.LP.GapPct)
	case "":
	case "infeasible":
		fmt.Fprintf(w, "LP bound at %.6g W: infeasible (the cap is below its least feasible cap, %.6g W)\n", r.LP.CapW, r.LP.LeastCapW)
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

// onLP reports whether policy name replays a sweep point on the
// scenario's models (lp, min-energy), rather than a policy's own replay.
func onLP(name string) bool { return name == scenarios.PolicyLP || name == scenarios.PolicyMinEnergy }
