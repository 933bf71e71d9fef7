package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/conductor"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/scenarios"
)

// boundJSON is a row of capsim bound --json.
type boundJSON = scenarios.BoundRow

func newBoundCmd() *cobra.Command {
	var (
		capW                     float64
		caps, scenarioPath, mach string
		mps, rounding, form      string
		tablePath, format        string
		slackPolicy              string
		method                   string
		asJSON, orderFree        bool
		keepGaps, alignStarts    bool
		switchUs, minTaskMs      float64
		recordedGHz              float64
		workers, orderFreeNodes  int
		timeLimit                float64
		progress                 string
		cuts                     string
		cp                       = conductor.DefaultParams()
		condReallocUs            = cp.ReallocS * 1e6
		condSwitchUs             = cp.SwitchS * 1e6
		condMinTaskMs            float64
	)
	c := &cobra.Command{
		Use:   "bound [TRACE] (--cap W | --caps FROM:TO:STEP)",
		Short: "Power-constrained optimal makespan of a trace (the fixed-event-order LP on CLP)",
		Long: `bound computes the least makespan an MPI trace can reach under a job power
cap when every compute task may run at any P-state of the machine (and mix
two adjacent ones): the fixed-event-order linear program of Bailey et al.
(SC'15), solved with COIN-OR CLP. It also replays the Static policy (every
rank gets an equal share of the cap) on capsim's engine for comparison.
An execution graph (a Chakra trace, a GOAL file) is bounded by the "engine"
LP of the graph itself: each kernel may run at any clock its GPU allows,
each host operation at any P-state, and a core or GPU draws at least its
floor (idle, or the slowest P-state's power) at every instant; it has no
Conductor baseline (conductor_ns null) and takes no --table.

The machine, network and DVFS model come from a scenario (--scenario; the
embedded default when left out), and so does the workload when TRACE is left
out. Caps are job power in watts, sockets' idle power included; the LP caps
the cores' task power, cap minus the base power. Where the scenario's caps
are per node (sweep.cap_scope = "node"), each cap is every node's: the LP
caps each node's task power, the cap minus the node's share of the base
power, the Conductor baseline of an MPI trace moves power only among a
node's ranks, and --order-free, which solves under the job's cap, is not
run. A cap below the least power
the fixed event order needs exits with status 1 and names that minimum;
with --caps, each such cap is reported on the standard error with that
minimum and marked in the output (JSON "infeasible": true), the other caps
are solved, and the exit status is 1 only when every cap is infeasible.
The scenario's [bound] messages picks the LP's network view (docs/design/bound.md):
"engine", the default, writes the engine's LogGOPS semantics (CPU overheads, NIC gaps on
both sides, latency, eager/rendezvous, each collective's algorithm as its
messages) as rows under the order of operations on every CPU and NIC of a
replay at every task's fastest configuration: a bound over every schedule
that keeps those orders, whose lp_uncapped_ns equals the fastest replay
(above 512 tasks relaxed into blocks at events where no task runs and the
fastest schedule loses nothing: still a bound, slightly looser; see --cuts).
With a network.topology, the engine LP prices every message at its
uncontended route (the route's latency and its bytes over the route's
narrowest link, plus o + L and the endpoints' o, (s-1)·O and g) and its
reference replay runs so: lp_uncapped_ns is then that replay's, and
uncapped_over_lp_pct the links' contention, which the LP leaves out
(JSON contention). "loggops" prices a message at its
uncontended cost and a collective as a synchronization point (a looser
bound); "replay" takes message times from one replay at the fastest
configuration, contention included, which other schedules can beat (no
bound). Conductor plans on the "replay" model's DAG whatever the setting.
lp_uncapped_ns (the LP's DAG with no cap) shows how far the LP's network
view is from the replay's. A core draws its last task's power while it
waits (Bailey et al., SC'15, §3.3) and its idle power before its first task.
rounded_ns replays the LP schedule rounded by --rounding, as soon as
possible: split runs every task for its LP duration as a mix of its two
adjacent P-states (one mid-task switch, --switch-us, none for tasks under
--min-task-ms), nearest runs it at the P-state nearest in time, power-safe
at the slower of the two (never above the LP's power), staggered splits
as split does but places each task's faster stretch where the job's power
fits the cap at every instant (the slower point where it cannot), and lp,
the default and the sweep's lp policy, replays staggered the LP's
schedule at the cap less the least headroom that fits under the cap at
every instant (docs/design/bound.md). Events may reorder in the replay and the job may
exceed the cap: rounded_over_cap_ns says how long, from the power at every
instant (a split task draws its faster point's power while in it).
Between its tasks a rank draws the machine's wait_power (default: its last
task's power).
conductor_ns replays the Conductor baseline (Bailey et al., SC'15, §4.2; Marathe et al., ISC'15: equal shares,
an Adagio step into observed slack, power moved from non-critical to
critical ranks every --conductor-period collectives, with overheads).
The gaps are (T/T_LP − 1)·100, and 0 where T_LP is 0 ns (a job without work).
--order-free adds, per cap, the least makespan over every order (Bailey
et al., SC'15, §3.4: the check the paper runs with a flow ILP): of the
events where power changes, and of the items each CPU and network
interface serves one at a time (engine messages). An exact branch and
bound decides only the pairs the DAG leaves unordered, with LP bounds;
it stops with an error after --order-free-nodes nodes at one cap (a
schedule at the tasks' fastest times counts 1, an LP 100), giving the
interval it had narrowed the optimum to. JSON
order_free_ns, order_free_gap_pct ((T_LP/T_free − 1)·100), order_free_lps
and order_free_pairs (the unordered pairs), and two table columns; with
--caps it is also tried at caps the fixed order cannot meet.
With --table, every compute task may run in any configuration of its
region's rows (time scaled from the fastest row, watts above idle), and
Static (and the uncapped run) pick per task from those configurations.`,
		Example: `  capsim bound --cap 330 --json
  capsim bound stencil.arrow --caps 290:380:10 --mps lp.mps`,
		Args: nargs(0, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			ctx, stop := signalContextKeeping("nothing was printed or written; the next run removes temporary files")
			defer stop()
			if err := validProgress(progress); err != nil {
				return err
			}
			if c := cmd.Flags().Lookup("cap"); c.Changed && !(capW > 0 && !math.IsInf(capW, 0)) {
				return usagef("--cap %s: want a positive number of watts", c.Value)
			}
			if (capW > 0) == (caps != "") {
				return usagef("give exactly one of --cap and --caps")
			}
			if mps != "" { // before the solve, not after minutes of it
				if err := clp.CheckWritable(mps); err != nil {
					return fmt.Errorf("--mps: %w", err)
				}
			}
			cfg := scenarios.BoundConfig{CapsW: []float64{capW}, TablePath: tablePath, OrderFree: orderFree, OrderFreeNodes: orderFreeNodes, MPS: mps, Warn: cmd.ErrOrStderr(),
				Round:  bound.RoundOptions{SwitchS: switchUs * 1e-6, MinTaskS: minTaskMs * 1e-3},
				Solver: bound.Options{Workers: workers, TimeLimit: timeLimit}}
			var err error
			if caps != "" {
				if cfg.CapsW, err = scenarios.ParseCapRange(caps); err != nil {
					return usageError{err}
				}
			}
			sc, err := scenarios.LoadOrDefault(scenarioPath)
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("recorded-ghz") {
				if err := sc.SetRecordedGHz(recordedGHz); err != nil {
					return usageError{err}
				}
			}
			imp := traceOptions(format, 0).WithKeepGaps(keepGaps).WithAlignStarts(alignStarts)
			if cfg.Machine, cfg.Trace, cfg.Graph, cfg.Collectives, err = lpInputs(sc, mach, a, imp); err != nil {
				return err
			}
			if len(a) > 0 {
				cfg.TracePath, cfg.Import = a[0], imp
			}
			if cfg.Trace == nil {
				// An execution graph's bound has no Conductor baseline.
				for _, n := range []string{"conductor-period", "conductor-realloc-us", "conductor-switch-us", "conductor-min-task-ms", "conductor-margin", "conductor-guard-w", "conductor-critical"} {
					if cmd.Flags().Changed(n) {
						return usagef("--%s sets the Conductor baseline, which an execution graph (a Chakra, GOAL or graph-level Arrow trace) has none of (its conductor_ns is empty): drop it", n)
					}
				}
			}
			if cmd.Flags().Changed("slack-policy") {
				sp, err := bound.ParseSlackPolicy(slackPolicy)
				if err != nil {
					return usageError{err}
				}
				if sc.Bound.Messages == scenarios.MessagesEngine {
					return usagef("--slack-policy applies to the LP's \"replay\" and \"loggops\" message models ([bound] messages); the \"engine\" LP keeps the order of its reference replay (docs/design/bound.md)")
				}
				cfg.Slack = &sp
			}
			cfg.LPRounding = rounding == policy.LP // the sweep's lp policy: staggered, with headroom
			if !cfg.LPRounding {
				if cfg.Round.Policy, err = bound.ParseRounding(rounding); err != nil {
					return usageError{fmt.Errorf("%w (or lp)", err)}
				}
			}
			cfg.Solver.CutTasks = sc.Bound.CutTasks()
			// A bar over the caps, naming the cap and the LP's solve.
			bar, note, barDone := newProgressNote(progress, cmd.ErrOrStderr(), "bound")
			defer barDone()
			var curCap float64
			cfg.Solver.Round = func(round, added int) {
				note(fmt.Sprintf("%g W, LP solve %d (%d rows added)", curCap, round, added))
			}
			cfg.Progress = func(done, total int, capW float64) {
				curCap = capW
				if bar != nil {
					bar(done, total)
				}
				if done < total {
					note(fmt.Sprintf("%g W", capW))
				}
			}
			if cmd.Flags().Changed("cuts") {
				if cfg.Solver.CutTasks, err = scenarios.ParseCuts(cuts); err != nil {
					return usageError{err}
				}
			}
			if cfg.Solver.Form, err = bound.ParseForm(form); err != nil {
				return usageError{err}
			}
			if cfg.Solver.Method, err = clp.ParseMethod(method); err != nil {
				return usageError{err}
			}
			cp.ReallocS, cp.SwitchS, cp.MinTaskS = condReallocUs*1e-6, condSwitchUs*1e-6, condMinTaskMs*1e-3
			if err := cp.Validate(); err != nil {
				return usageError{err}
			}
			cfg.Conductor = cp
			rep, err := sc.RunBound(ctx, cfg)
			if err != nil {
				return inTrace(a, err)
			}
			stopped := interrupted(ctx, rep.Stopped) // SIGINT: print the caps finished, then exit 130
			if len(rep.Rows) == 0 {
				return stopped
			}
			if err := printBound(cmd.OutOrStdout(), rep, len(cfg.CapsW) == 1, asJSON); err != nil {
				return err
			}
			return stopped
		},
	}
	f := c.Flags()
	f.Float64Var(&capW, "cap", 0, "power cap in watts: the job's, or each node's where the scenario's sweep.cap_scope is node")
	f.StringVar(&caps, "caps", "", "a sweep of caps FROM:TO:STEP in watts (re-solved from the previous basis)")
	f.StringVar(&scenarioPath, "scenario", "", "scenario giving the machine, network and model (default: the embedded one)")
	f.StringVar(&mach, "machine", "", "machine of the scenario (default: its first)")
	f.Float64Var(&recordedGHz, "recorded-ghz", 0, "core frequency the trace's compute times were measured at, in GHz (workload.recorded_ghz; default: the scenario's, else assumed the machine's fastest P-state)")
	f.StringVar(&mps, "mps", "", "write the LP (as last solved) to this free-format MPS file, its objective the makespan in ns")
	f.StringVar(&format, "format", "", formatFlagHelp)
	addKeepGaps(f, &keepGaps)
	addAlignStarts(f, &alignStarts)
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.BoolVar(&orderFree, "order-free", false, "also compute the order-free optimum (Bailey et al., SC'15, §3.4): the least makespan over every order of the power events and of the items on each CPU and network interface, an exact branch and bound")
	f.IntVar(&orderFreeNodes, "order-free-nodes", bound.DefaultOrderFreeNodes, "with --order-free, the most nodes its search explores at one cap before it stops with an error that gives the optimum's interval")
	f.StringVar(&tablePath, "table", "", "configuration table (CSV: key,cpu_ghz,threads,seconds,watts; keys are compute regions) for the tasks' configurations instead of the machine's P-states")
	f.StringVar(&rounding, "rounding", "lp", "rounding of the LP schedule: lp (staggered with headroom: the sweep's lp policy), staggered, split, nearest or power-safe")
	f.Float64Var(&switchUs, "switch-us", 0, "split rounding: time of a mid-task P-state switch in µs (the paper measured 145)")
	f.Float64Var(&minTaskMs, "min-task-ms", 0, "split rounding: tasks shorter than this (ms) run at the slower P-state instead (the paper: 1)")
	f.StringVar(&form, "form", "default", "LP task form: increment (the default; mix with shared devices), mix or segment")
	f.StringVar(&slackPolicy, "slack-policy", "local", "initial schedule's slack reduction (Bailey et al., SC'15, §3.3): local (tasks stretch into their local slack; the ASAP event order) or late (vertices also move as late as possible); default: the scenario's bound.slack_policy")
	f.StringVar(&method, "method", "auto", "CLP method: auto, dual, primal, barrier or barrier-nocross")
	f.StringVar(&cuts, "cuts", "auto", "engine LP: relax it into blocks of at least this many tasks, cut where no task runs and the fastest schedule loses nothing (a valid, slightly looser bound, docs/design/bound.md); auto: 64 on LPs of over 512 tasks; none: the exact LP; default: the scenario's bound.cuts")
	f.StringVar(&progress, "progress", "auto", "progress bar over the caps, naming the LP's solve: auto (when stderr is a terminal), always, never")
	f.Float64Var(&timeLimit, "time-limit", 0, "CLP time limit per LP block in seconds (0: none); a block that hits it is an error")
	f.IntVar(&workers, "workers", 0, "LP blocks solved at once (default: GOMAXPROCS)")
	f.IntVar(&cp.Period, "conductor-period", cp.Period, "Conductor: reallocate power every this many time steps (collectives over all ranks)")
	f.Float64Var(&condReallocUs, "conductor-realloc-us", condReallocUs, "Conductor: cost of a reallocation in µs")
	f.Float64Var(&condSwitchUs, "conductor-switch-us", condSwitchUs, "Conductor: cost of a P-state change in µs")
	f.Float64Var(&condMinTaskMs, "conductor-min-task-ms", 0, "Conductor: tasks shorter than this (ms) keep the previous P-state")
	f.Float64Var(&cp.Margin, "conductor-margin", cp.Margin, "Conductor: share of observed slack left unused by its Adagio step")
	f.Float64Var(&cp.GuardW, "conductor-guard-w", cp.GuardW, "Conductor: power a rank keeps above its use when reclaimed, W")
	f.Float64Var(&cp.CriticalFrac, "conductor-critical", cp.CriticalFrac, "Conductor: ranks within this share of a period of the least slack are critical")
	return c
}

// printBound writes rep as JSON (one object for a single cap) or as a
// table.
func printBound(w io.Writer, rep *scenarios.BoundReport, single, asJSON bool) error {
	out := rep.Rows
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if len(out) == 1 && single {
			return enc.Encode(out[0])
		}
		return enc.Encode(out)
	}
	var first boundJSON // the first solved row
	for _, r := range out {
		if !r.Infeasible {
			first = r
			break
		}
	}
	per := ""
	if rep.CapScope == scenarios.CapScopeNode {
		per = " per node (sweep.cap_scope = node: every cap is each node's)"
	}
	fmt.Fprintf(w, "machine %s, %d ranks; least feasible cap %.6g W%s\nunconstrained makespan: replayed %d ns, in the LP's DAG %d ns (messages: %s)\n",
		rep.Machine, rep.Ranks, rep.MinCapW, per, rep.UncappedNs, first.LPUncappedNs, rep.Messages)
	fmt.Fprintf(w, "uncapped replay against the LP's DAG: %+.2f %%\n", first.UncappedOverLPPct)
	if first.Contention != "" {
		fmt.Fprintln(w, first.Contention)
	}
	if first.UncappedOverLPPct < 0 {
		fmt.Fprintln(w, "warning: the uncapped replay beats the LP's DAG: the LP prices messages above this network, so neither bound_ns nor lower_ns bounds these replays")
	}
	st := first.LP
	fmt.Fprintf(w, "event order: %d events, %s\n", first.Events, first.Order)
	fmt.Fprintf(w, "recorded: %s\n", rep.RecordedConfig)
	fmt.Fprintf(w, "LP (%s form): %d variables, %d rows, %d nonzeros in %d blocks, built in %.3f s; rounding %s\n\n",
		st.Form, st.Variables, st.Rows, st.Nonzeros, st.Blocks, st.BuildS, first.Rounding)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// With --order-free, two columns after the bound: the
	// order-free optimum and the bound's excess over it.
	freeHead, freeCols := "", func(r boundJSON) string { return "" }
	if rep.OrderFree {
		freeHead = "order_free_ns\tlp_over_%\t"
		freeCols = func(r boundJSON) string {
			switch {
			case r.OrderFreeNs == nil:
				return "infeasible\t\t"
			case r.OrderFreeGapPct == nil:
				return fmt.Sprintf("%d\t\t", *r.OrderFreeNs)
			}
			return fmt.Sprintf("%d\t%.2f\t", *r.OrderFreeNs, *r.OrderFreeGapPct)
		}
	}
	fmt.Fprintln(tw, "cap_w\tbound_ns\tlower_ns\t"+freeHead+"rounded_ns\tgap_%\tover_cap_ns\tstatic_ns\tgap_%\tconductor_ns\tgap_%\tsolve_s\t")
	var notes []string
	for _, r := range out {
		if r.Infeasible {
			fmt.Fprintf(tw, "%g\tinfeasible (least %.6g W)\t\t%s\t\t\t\t\t\t\t\t\n", r.CapW, r.MinFeasibleCapW, freeCols(r))
			continue
		}
		gap := func(pol string, pct float64, why string, changed bool) string {
			return gapCell(&notes, r.CapW, pol, pct, why, changed)
		}
		cond := "–\t–" // an execution graph: no Conductor baseline
		if r.ConductorNs != nil {
			cond = fmt.Sprintf("%d\t%s", *r.ConductorNs, gap("conductor", r.GapConductorPct, r.ConductorBelowBound, r.ConductorOrderChanged))
		}
		fmt.Fprintf(tw, "%g\t%d\t%d\t%s%d\t%s\t%d\t%d\t%s\t%s\t%.3f\t\n", r.CapW, r.BoundNs, r.OrderFreeLowerNs, freeCols(r),
			*r.RoundedNs, gap("rounded", r.GapRoundedPct, r.RoundedBelowBound, r.RoundedOrderChanged), r.RoundedOverCap,
			r.StaticNs, gap("static", r.GapStaticPct, r.StaticBelowBound, r.StaticOrderChanged), cond, r.LP.SolveS)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nlower_ns: no schedule beats it at the cap, whatever its event order, where messages take at least the LP's prices (the DAG's dependencies, each task's time-energy hull, energy <= cap x makespan, and each CPU's and network interface's work served one item at a time).")
	for i, n := range notes {
		if i == 0 {
			fmt.Fprintln(w, "\nA replay below the bound does not contradict it where it left the LP's event order: the bound holds for that order only.")
		}
		fmt.Fprintln(w, n)
	}
	return nil
}

// gapCell is a gap column of the bound table: the percentage, and where a
// replay ended before the bound, why in brief ("order changed" where it
// left the LP's event order), with a footnote numbered in notes giving
// the reason in full. A negative gap is never printed bare.
func gapCell(notes *[]string, capW float64, pol string, pct float64, why string, changed bool) string {
	if why == "" {
		return fmt.Sprintf("%.2f", pct)
	}
	*notes = append(*notes, fmt.Sprintf("[%d] %g W, %s: %s", len(*notes)+1, capW, pol, why))
	tag := "below the bound"
	if changed {
		tag = "order changed"
	}
	return fmt.Sprintf("%.2f (%s) [%d]", pct, tag, len(*notes))
}
