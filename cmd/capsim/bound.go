package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/capsim/capsim/compute/table"
	"github.com/capsim/capsim/internal/units"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/conductor"
	"github.com/capsim/capsim/scenarios"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

type boundJSON struct {
	CapW    float64 `json:"cap_w"`
	BoundNs int64   `json:"bound_ns"`
	// Infeasible marks a cap below the least the fixed order needs
	// (min_feasible_cap_w); the row has no bound and no replays.
	Infeasible       bool        `json:"infeasible,omitempty"`
	Rounding         string      `json:"rounding"`
	RoundedNs        *int64      `json:"rounded_ns"`
	RoundedPeakW     float64     `json:"rounded_peak_w"`
	RoundedOverCap   int64       `json:"rounded_over_cap_ns"`
	RoundedSwitches  int         `json:"rounded_switches"`
	StaticNs         int64       `json:"static_ns"`
	StaticPeakW      float64     `json:"static_peak_w"`
	StaticOverCap    int64       `json:"static_over_cap_ns"`
	ConductorNs      *int64      `json:"conductor_ns"`
	ConductorPeakW   float64     `json:"conductor_peak_w"`
	ConductorOverCap int64       `json:"conductor_over_cap_ns"`
	GapRoundedPct    float64     `json:"gap_rounded_pct"`
	GapStaticPct     float64     `json:"gap_static_pct"`
	GapConductorPct  float64     `json:"gap_conductor_pct"`
	MinFeasibleCapW  float64     `json:"min_feasible_cap_w"`
	UncappedNs       int64       `json:"uncapped_ns"`
	LPUncappedNs     int64       `json:"lp_uncapped_ns"`
	Messages         string      `json:"messages"` // how the LP priced communication (bound.messages)
	Order            string      `json:"order"`    // the initial schedule's slack-reduction policy (note 003 §2.5)
	Events           int         `json:"events"`   // events of the fixed order
	LP               bound.Stats `json:"lp"`
	// RecordedConfig is what the trace's compute times were taken as
	// measured at (assumed: the machine's fastest P-state).
	RecordedConfig scenarios.RecordedConfig `json:"recorded_config"`
	// With --order-free: the least makespan over every event order (note
	// 003 §3), how far the fixed order's bound is above it, (T_LP/T_free −
	// 1)·100, and the LPs its search solved. Absent without the flag, and
	// order_free_ns null where no order keeps the cap.
	OrderFreeNs     *int64   `json:"order_free_ns,omitempty"`
	OrderFreeGapPct *float64 `json:"order_free_gap_pct,omitempty"`
	OrderFreeLPs    int      `json:"order_free_lps,omitempty"`
}

// gapPct is how much slower than the bound a makespan is, in percent
// (note 003 §9.3: (T_base/T_LP − 1)·100), to two decimals. A bound of
// 0 ns (a job without work: every task and message takes no time, so
// its replays take none either) gives a gap of 0, never NaN, so the
// table and JSON stay numbers.
func gapPct(ns, boundNs int64) float64 {
	if boundNs <= 0 {
		return 0
	}
	return math.Round(1e4*(float64(ns)/float64(boundNs)-1)) / 100
}

func newBoundCmd() *cobra.Command {
	var (
		capW                     float64
		caps, scenarioPath, mach string
		mps, rounding, form      string
		tablePath, format        string
		slackPolicy              string
		method                   string
		asJSON, orderFree        bool
		keepGaps                 bool
		switchUs, minTaskMs      float64
		recordedGHz              float64
		workers                  int
		timeLimit                float64
		cuts                     string
		cp                       = conductor.DefaultParams()
		condReallocUs            = cp.ReallocS * 1e6
		condSwitchUs             = cp.SwitchS * 1e6
		condMinTaskMs            float64
	)
	c := &cobra.Command{
		Use:   "bound [TRACE] (--cap W | --caps FROM:TO:STEP)",
		Short: "Power-constrained optimal makespan of an MPI trace (the fixed-event-order LP on CLP)",
		Long: `bound computes the least makespan an MPI trace can reach under a job power
cap when every compute task may run at any P-state of the machine (and mix
two adjacent ones): the fixed-event-order linear program of Bailey et al.
(SC'15), solved with COIN-OR CLP. It also replays the Static policy (every
rank gets an equal share of the cap) on capsim's engine for comparison.

The machine, network and DVFS model come from a scenario (--scenario; the
embedded default when left out), and so does the workload when TRACE is left
out. Caps are job power in watts, sockets' idle power included; the LP caps
the cores' task power, cap minus the base power. A cap below the least power
the fixed event order needs exits with status 1 and names that minimum;
with --caps, each such cap is reported on the standard error with that
minimum and marked in the output (JSON "infeasible": true), the other caps
are solved, and the exit status is 1 only when every cap is infeasible.
The scenario's [bound] messages picks the LP's network view (docs/bound.md):
"engine", the default, writes the engine's LogGOPS semantics (CPU overheads, NIC gaps on
both sides, latency, eager/rendezvous, each collective's algorithm as its
messages) as rows under the order of operations on every CPU and NIC of a
replay at every task's fastest configuration: a bound over every schedule
that keeps those orders, whose lp_uncapped_ns equals the fastest replay
(above 512 tasks relaxed into blocks at events where no task runs: still a
bound, slightly looser; see --cuts); "loggops" prices a message at its
uncontended cost and a collective as a synchronization point (a looser
bound); "replay" takes message times from one replay at the fastest
configuration, contention included, which other schedules can beat (no
bound). Conductor plans on the "replay" model's DAG whatever the setting.
lp_uncapped_ns (the LP's DAG with no cap) shows how far the LP's network
view is from the replay's. A core draws its last task's power while it
waits (note 003 §2.6) and its idle power before its first task.
rounded_ns replays the LP schedule rounded by --rounding, as soon as
possible: split runs every task for its LP duration as a mix of its two
adjacent P-states (one mid-task switch, --switch-us, none for tasks under
--min-task-ms), nearest runs it at the P-state nearest in time, power-safe
at the slower of the two (never above the LP's power), staggered splits
as split does but places each task's faster stretch where the job's power
fits the cap at every instant (the slower point where it cannot), and lp,
the default and the sweep's lp policy, replays staggered the LP's
schedule at the cap less the least headroom that fits under the cap at
every instant (docs/bound.md). Events may reorder in the replay and the job may
exceed the cap: rounded_over_cap_ns says how long, from the power at every
instant (a split task draws its faster point's power while in it).
Between its tasks a rank draws the machine's wait_power (default: its last
task's power).
conductor_ns replays the Conductor baseline (note 003 §6.2: equal shares,
an Adagio step into observed slack, power moved from non-critical to
critical ranks every --conductor-period collectives, with overheads).
The gaps are (T/T_LP − 1)·100, and 0 where T_LP is 0 ns (a job without work).
--order-free adds, per cap, the least makespan over every order of the
events where power changes (note 003 §3: the check the paper runs with a
flow ILP), found by an exact branch and bound over event orders for DAGs
of at most 30 edges (tasks and messages; a larger one is refused): JSON
order_free_ns, order_free_gap_pct ((T_LP/T_free − 1)·100) and
order_free_lps, and two table columns; with --caps it is also tried at
caps the fixed order cannot meet.
With --table, every compute task may run in any configuration of its
region's rows (time scaled from the fastest row, watts above idle), and
Static (and the uncapped run) pick per task from those configurations.`,
		Example: `  capsim bound --cap 330 --json
  capsim bound stencil.arrow --caps 290:380:10 --mps lp.mps`,
		Args: nargs(0, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			ctx, stop := signalContext()
			defer stop()
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
			capList := []float64{capW}
			if caps != "" {
				var err error
				if capList, err = scenarios.ParseCapRange(caps); err != nil {
					return usageError{err}
				}
			}
			var sc *scenarios.Scenario
			var err error
			if scenarioPath == "" {
				sc, err = scenarios.LoadDefault()
			} else {
				sc, err = scenarios.Load(scenarioPath)
			}
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("recorded-ghz") {
				if err := sc.SetRecordedGHz(recordedGHz); err != nil {
					return usageError{err}
				}
			}
			rc := sc.RecordedConfig()
			m := &sc.Machines[0]
			if mach != "" {
				m = nil
				for i := range sc.Machines {
					if sc.Machines[i].Name == mach {
						m = &sc.Machines[i]
					}
				}
				if m == nil {
					return usagef("scenario has no machine %q", mach)
				}
			}
			var t *mpi.Trace
			var formatAlgs map[mpi.Kind]string // the trace format's own collectives (liballprof: schedgen's)
			if len(a) == 1 {
				it, err := loadMPI(a[0], traceOptions(format, 0).WithKeepGaps(keepGaps))
				if err != nil {
					return err
				}
				t, formatAlgs = it.MPI, it.Collectives
			} else if t, err = sc.Trace(nil); err != nil {
				return err
			}
			if t == nil {
				return fmt.Errorf("the bound needs an MPI trace; the scenario's workload is an execution graph")
			}
			algs, err := lower.ParseAlgorithms(sc.Network.Collective)
			if err != nil {
				return err
			}
			for k, alg := range formatAlgs {
				if _, set := algs[k]; !set {
					algs[k] = alg
				}
			}
			g, err := lower.Lower(t, lower.Options{Algorithm: algs})
			if err != nil {
				return err
			}
			net := sc.Net()
			var d, pd *bound.DAG // the LP's DAG; the one Conductor plans on
			var o, po *bound.Order
			var plan *bound.Net // the engine LP's, whose schedule the rounding follows
			var orderS float64  // making the LP's DAG and event order (JSON lp.order_s)
			orderStart := time.Now()
			if tablePath != "" {
				f, err := os.Open(tablePath)
				if err != nil {
					return err
				}
				tb, err := table.ReadCSV(f, tablePath)
				f.Close()
				if err != nil {
					return err
				}
				d, o, err = sc.TableLP(t, tb, m, net)
				if err != nil {
					return fmt.Errorf("%s: %w", tablePath, err)
				}
				orderS = time.Since(orderStart).Seconds()
				pd, po = d, o
				if sc.Bound.Messages == scenarios.MessagesEngine {
					if pd, po, err = sc.TablePlanLP(t, tb, m, net); err != nil {
						return fmt.Errorf("%s: %w", tablePath, err)
					}
				}
			} else {
				if d, o, plan, err = sc.BoundLPNet(t, m, net); err != nil {
					return err
				}
				orderS = time.Since(orderStart).Seconds()
				pd, po = d, o
				if sc.Bound.Messages == scenarios.MessagesEngine {
					if pd, po, err = sc.PlanLP(t, m, net); err != nil {
						return err
					}
				}
			}
			oo := sc.Bound.OrderOptions() // the scenario's [bound], unless the flags say otherwise
			if cmd.Flags().Changed("slack-policy") {
				if oo.Slack, err = bound.ParseSlackPolicy(slackPolicy); err != nil {
					return usageError{err}
				}
			}
			if sc.Bound.Messages == scenarios.MessagesEngine && cmd.Flags().Changed("slack-policy") {
				return usagef("--slack-policy applies to the LP's \"replay\" and \"loggops\" message models ([bound] messages); the \"engine\" LP keeps the order of its reference replay (docs/bound.md)")
			}
			if cmd.Flags().Changed("slack-policy") {
				if o, err = bound.InitialOrderWith(d, oo); err != nil {
					return err
				}
			}
			ro := bound.RoundOptions{SwitchS: switchUs * 1e-6, MinTaskS: minTaskMs * 1e-3}
			lpRounding := rounding == "lp" // the sweep's lp policy: staggered, with headroom
			if !lpRounding {
				if ro.Policy, err = bound.ParseRounding(rounding); err != nil {
					return usageError{fmt.Errorf("%w (or lp)", err)}
				}
			}
			opt := bound.Options{KeepBasis: len(capList) > 1, Workers: workers, TimeLimit: timeLimit, CutTasks: sc.Bound.CutTasks()}
			if cmd.Flags().Changed("cuts") {
				if opt.CutTasks, err = scenarios.ParseCuts(cuts); err != nil {
					return usageError{err}
				}
			}
			if opt.Form, err = bound.ParseForm(form); err != nil {
				return usageError{err}
			}
			if opt.Method, err = clp.ParseMethod(method); err != nil {
				return usageError{err}
			}
			cp.ReallocS, cp.SwitchS, cp.MinTaskS = condReallocUs*1e-6, condSwitchUs*1e-6, condMinTaskMs*1e-3
			if err := cp.Validate(); err != nil {
				return usageError{err}
			}
			s, err := bound.NewSolver(d, o, opt)
			if err != nil {
				return err
			}
			defer s.Close()
			var free *bound.OrderFree
			if orderFree {
				if free, err = bound.NewOrderFree(d, o, bound.OrderFreeOptions{}); err != nil {
					return fmt.Errorf("--order-free: %w", err)
				}
			}
			// orderFreeAt fills row r's order-free columns at cap cw.
			orderFreeAt := func(r *boundJSON, cw float64) error {
				if free == nil {
					return nil
				}
				res, err := free.SolveContext(ctx, m.LPCap(cw))
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
				r.OrderFreeNs, r.OrderFreeLPs = &ns, res.LPs
				if r.BoundNs > 0 {
					g := gapPct(r.BoundNs, ns)
					r.OrderFreeGapPct = &g
				}
				return nil
			}
			var lpPol *scenarios.LPPolicy
			if lpRounding {
				if lpPol, err = sc.NewLPPolicy(s, g, t, d, plan, m, net); err != nil {
					return err
				}
			}
			minLP, _ := s.MinFeasibleCap()
			minCap := minLP + m.BaseW()
			replay := func(policy string, cw float64) (scenarios.Metrics, error) {
				if tablePath != "" {
					return sc.ReplayStaticDAG(g, t, d, cw, m, net)
				}
				return sc.Replay(g, m, net, policy, cw)
			}
			unc, err := replay("uncapped", 0)
			if err != nil {
				return err
			}
			var out []boundJSON
			var infeasible []string
			var stopped error // SIGINT: print the caps finished, then exit 130
			for _, cw := range capList {
				b, err := s.SolveContext(ctx, m.LPCap(cw))
				if err != nil && ctx.Err() != nil {
					stopped = interrupted(ctx, err)
					break
				}
				var ie *bound.InfeasibleError
				if errors.As(err, &ie) {
					msg := fmt.Sprintf("power cap %g W is below the least power the schedule needs: %.6g W (event %d runs %d tasks at their slowest)",
						cw, minCap, ie.Event, len(ie.EventTasks))
					if len(capList) == 1 {
						return errors.New(msg)
					}
					// --caps: report it and go on with the other caps.
					fmt.Fprintln(cmd.ErrOrStderr(), "capsim bound: "+msg)
					infeasible = append(infeasible, fmt.Sprint(cw))
					row := boundJSON{CapW: cw, Infeasible: true, RecordedConfig: rc, MinFeasibleCapW: minCap, UncappedNs: unc.MakespanNs,
						Messages: sc.Bound.Messages, LPUncappedNs: int64(math.Round(o.Makespan * 1e9)), Order: o.Policy, Events: o.Events}
					if err := orderFreeAt(&row, cw); err != nil {
						if ctx.Err() != nil {
							stopped = interrupted(ctx, err)
							break
						}
						return err
					}
					out = append(out, row)
					continue
				}
				if err != nil {
					return err
				}
				st, err := replay("static", cw)
				if err != nil {
					return err
				}
				var rd scenarios.Metrics
				switches := 0
				roundName := rounding
				if lpPol != nil {
					if rd, _, switches, err = lpPol.Replay(ctx, cw, b); err != nil {
						if ctx.Err() != nil {
							stopped = interrupted(ctx, err)
							break
						}
						return err
					}
				} else {
					if rd, err = sc.ReplayRoundedPlan(g, t, d, b, ro, m, net, plan); err != nil {
						return err
					}
					ch, err := bound.Round(d, b, ro)
					if err != nil {
						return err
					}
					for _, c := range ch {
						if c.Switched {
							switches++
						}
					}
					roundName = ro.Policy.String()
				}
				cd, _, err := sc.ReplayConductor(g, t, pd, po, cw, cp, m, net)
				if err != nil {
					return err
				}
				bn, err := graph.SecondsToNs(b.Makespan)
				if err != nil {
					return fmt.Errorf("LP bound at %g W: makespan: %w", cw, err)
				}
				lpUnc, err := graph.SecondsToNs(o.Makespan)
				if err != nil {
					return fmt.Errorf("LP initial schedule: makespan: %w", err)
				}
				rns, cns := rd.MakespanNs, cd.MakespanNs
				out = append(out, boundJSON{CapW: cw, BoundNs: bn, MinFeasibleCapW: minCap, RecordedConfig: rc,
					Rounding: roundName, RoundedNs: &rns, RoundedPeakW: rd.PeakPowerW, RoundedOverCap: rd.OverCapNs, RoundedSwitches: switches,
					StaticNs: st.MakespanNs, StaticPeakW: st.PeakPowerW, StaticOverCap: st.OverCapNs,
					ConductorNs: &cns, ConductorPeakW: cd.PeakPowerW, ConductorOverCap: cd.OverCapNs,
					GapRoundedPct: gapPct(rns, bn), GapStaticPct: gapPct(st.MakespanNs, bn), GapConductorPct: gapPct(cns, bn),
					UncappedNs: unc.MakespanNs, Messages: sc.Bound.Messages, LPUncappedNs: lpUnc,
					Order: o.Policy, Events: o.Events, LP: b.Stats})
				if err := orderFreeAt(&out[len(out)-1], cw); err != nil {
					if ctx.Err() != nil {
						out = out[:len(out)-1]
						stopped = interrupted(ctx, err)
						break
					}
					return err
				}
			}
			for i := range out { // what the models resolve (internal/units)
				r := &out[i]
				r.MinFeasibleCapW = units.Watts(r.MinFeasibleCapW)
				r.LP.BuildS, r.LP.SolveS = units.Seconds(r.LP.BuildS), units.Seconds(r.LP.SolveS)
				if !r.Infeasible {
					r.LP.OrderS = units.Seconds(orderS)
				}
			}
			if len(out) == 0 {
				return stopped
			}
			if mps != "" && stopped == nil {
				if err := s.WriteMPS(mps); err != nil {
					return err
				}
			}
			if len(infeasible) == len(out) {
				return fmt.Errorf("every cap (%s W) is below the least power the schedule needs: %.6g W", strings.Join(infeasible, ", "), minCap)
			}
			var first boundJSON // the first solved row
			for _, r := range out {
				if !r.Infeasible {
					first = r
					break
				}
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				if len(out) == 1 && len(capList) == 1 {
					return enc.Encode(out[0])
				}
				if err := enc.Encode(out); err != nil {
					return err
				}
				return stopped
			}
			fmt.Fprintf(w, "machine %s, %d ranks; least feasible cap %.6g W\nunconstrained makespan: replayed %d ns, in the LP's DAG %d ns (messages: %s)\n",
				m.Name, len(t.Ranks), minCap, unc.MakespanNs, first.LPUncappedNs, sc.Bound.Messages)
			st := first.LP
			fmt.Fprintf(w, "recorded: %s\n", rc)
			fmt.Fprintf(w, "event order: %d events, %s\n", first.Events, first.Order)
			fmt.Fprintf(w, "LP (%s form): %d variables, %d rows, %d nonzeros in %d blocks, built in %.3f s; rounding %s\n\n",
				st.Form, st.Variables, st.Rows, st.Nonzeros, st.Blocks, st.BuildS, first.Rounding)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			// With --order-free, two columns after the bound: the
			// order-free optimum and the bound's excess over it.
			freeHead, freeCols := "", func(r boundJSON) string { return "" }
			if free != nil {
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
			fmt.Fprintln(tw, "cap_w\tbound_ns\t"+freeHead+"rounded_ns\tgap_%\tover_cap_ns\tstatic_ns\tgap_%\tconductor_ns\tgap_%\tsolve_s\t")
			for _, r := range out {
				if r.Infeasible {
					fmt.Fprintf(tw, "%g\tinfeasible (least %.6g W)\t%s\t\t\t\t\t\t\t\t\n", r.CapW, r.MinFeasibleCapW, freeCols(r))
					continue
				}
				fmt.Fprintf(tw, "%g\t%d\t%s%d\t%.2f\t%d\t%d\t%.2f\t%d\t%.2f\t%.3f\t\n", r.CapW, r.BoundNs, freeCols(r), *r.RoundedNs, r.GapRoundedPct, r.RoundedOverCap,
					r.StaticNs, r.GapStaticPct, *r.ConductorNs, r.GapConductorPct, r.LP.SolveS)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			return stopped
		},
	}
	f := c.Flags()
	f.Float64Var(&capW, "cap", 0, "job power cap in watts")
	f.StringVar(&caps, "caps", "", "a sweep of caps FROM:TO:STEP in watts (re-solved from the previous basis)")
	f.StringVar(&scenarioPath, "scenario", "", "scenario giving the machine, network and model (default: the embedded one)")
	f.StringVar(&mach, "machine", "", "machine of the scenario (default: its first)")
	f.Float64Var(&recordedGHz, "recorded-ghz", 0, "core frequency the trace's compute times were measured at, in GHz (workload.recorded_ghz; default: the scenario's, else assumed the machine's fastest P-state)")
	f.StringVar(&mps, "mps", "", "write the LP (as last solved) to this free-format MPS file, its objective the makespan in ns")
	f.StringVar(&format, "format", "", formatFlagHelp)
	addKeepGaps(f, &keepGaps)
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.BoolVar(&orderFree, "order-free", false, fmt.Sprintf("also compute the order-free optimum (note 003 §3: the least makespan over every event order, an exact search) for DAGs of at most %d edges", bound.OrderFreeMaxEdges))
	f.StringVar(&tablePath, "table", "", "configuration table (CSV: key,cpu_ghz,threads,seconds,watts; keys are compute regions) for the tasks' configurations instead of the machine's P-states")
	f.StringVar(&rounding, "rounding", "lp", "rounding of the LP schedule: lp (staggered with headroom: the sweep's lp policy), staggered, split, nearest or power-safe")
	f.Float64Var(&switchUs, "switch-us", 0, "split rounding: time of a mid-task P-state switch in µs (the paper measured 145)")
	f.Float64Var(&minTaskMs, "min-task-ms", 0, "split rounding: tasks shorter than this (ms) run at the slower P-state instead (the paper: 1)")
	f.StringVar(&form, "form", "default", "LP task form: increment (the default; mix with shared devices), mix or segment")
	f.StringVar(&slackPolicy, "slack-policy", "local", "initial schedule's slack reduction (note 003 §2.5): local (tasks stretch into their local slack; the ASAP event order) or late (vertices also move as late as possible); default: the scenario's bound.slack_policy")
	f.StringVar(&method, "method", "auto", "CLP method: auto, dual, primal, barrier or barrier-nocross")
	f.StringVar(&cuts, "cuts", "auto", "engine LP: relax it into blocks of at least this many tasks, cut where no task runs (a valid, slightly looser bound, docs/bound.md); auto: every 64 tasks on LPs of over 512 tasks; none: the exact LP; default: the scenario's bound.cuts")
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
