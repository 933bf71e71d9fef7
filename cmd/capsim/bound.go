package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/scenarios"
	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

type boundJSON struct {
	CapW            float64     `json:"cap_w"`
	BoundNs         int64       `json:"bound_ns"`
	RoundedNs       *int64      `json:"rounded_ns"`
	RoundedPeakW    float64     `json:"rounded_peak_w"`
	RoundedOverCap  int64       `json:"rounded_over_cap_ns"`
	StaticNs        int64       `json:"static_ns"`
	ConductorNs     *int64      `json:"conductor_ns"`
	GapStaticPct    float64     `json:"gap_static_pct"`
	MinFeasibleCapW float64     `json:"min_feasible_cap_w"`
	UncappedNs      int64       `json:"uncapped_ns"`
	LPUncappedNs    int64       `json:"lp_uncapped_ns"`
	Messages        string      `json:"messages"` // how the LP priced communication (bound.messages)
	LP              bound.Stats `json:"lp"`
}

func newBoundCmd() *cobra.Command {
	var (
		capW                     float64
		caps, scenarioPath, mach string
		mps                      string
		asJSON                   bool
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
the fixed event order needs exits with status 1 and names that minimum.
The LP prices a message at its uncontended LogGOPS cost and a collective
as a synchronization point, while replays also charge NIC serialization and
the collective's algorithm; lp_uncapped_ns (the LP's DAG with no cap) shows
how far apart the two network views are for the trace.
rounded_ns replays the LP schedule with every task split between its two
adjacent P-states for its LP duration, as soon as possible: events may then
reorder and the job may exceed the cap (rounded_over_cap_ns says how long).
Not built yet: Conductor (reported as null).`,
		Example: `  capsim bound --cap 330 --json
  capsim bound stencil.arrow --caps 290:380:10 --mps lp.mps`,
		Args: nargs(0, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			if (capW > 0) == (caps != "") {
				return usagef("give exactly one of --cap and --caps")
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
			if len(a) == 1 {
				if t, err = arrowtrace.ReadMPI(a[0]); err != nil {
					return err
				}
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
			g, err := lower.Lower(t, lower.Options{Algorithm: algs})
			if err != nil {
				return err
			}
			net := sc.Net()
			d, err := sc.BoundDAG(t, m, net)
			if err != nil {
				return err
			}
			o, err := bound.InitialOrder(d, 0)
			if err != nil {
				return err
			}
			s, err := bound.NewSolver(d, o, bound.Options{})
			if err != nil {
				return err
			}
			defer s.Close()
			minLP, _ := s.MinFeasibleCap()
			minCap := minLP + m.BaseW()
			unc, err := sc.Replay(g, m, net, "uncapped", 0)
			if err != nil {
				return err
			}
			var out []boundJSON
			for _, cw := range capList {
				b, err := s.Solve(m.LPCap(cw))
				var ie *bound.InfeasibleError
				if errors.As(err, &ie) {
					return fmt.Errorf("power cap %g W is below the least power the schedule needs: %.6g W (event %d runs %d tasks at their slowest)",
						cw, minCap, ie.Event, len(ie.EventTasks))
				}
				if err != nil {
					return err
				}
				st, err := sc.Replay(g, m, net, "static", cw)
				if err != nil {
					return err
				}
				rd, err := sc.ReplayBound(g, t, d, b, m, net)
				if err != nil {
					return err
				}
				bn := int64(math.Round(b.Makespan * 1e9))
				rns := rd.MakespanNs
				out = append(out, boundJSON{CapW: cw, BoundNs: bn, StaticNs: st.MakespanNs, MinFeasibleCapW: minCap,
					RoundedNs: &rns, RoundedPeakW: rd.PeakPowerW, RoundedOverCap: rd.OverCapNs,
					UncappedNs: unc.MakespanNs, Messages: sc.Bound.Messages, LPUncappedNs: int64(math.Round(o.Makespan * 1e9)), LP: b.Stats, GapStaticPct: math.Round(1e4*(float64(st.MakespanNs)/float64(bn)-1)) / 100})
			}
			if mps != "" {
				if err := s.WriteMPS(mps); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				if len(out) == 1 {
					return enc.Encode(out[0])
				}
				return enc.Encode(out)
			}
			fmt.Fprintf(w, "machine %s, %d ranks; least feasible cap %.6g W\nunconstrained makespan: replayed %d ns, in the LP's DAG %d ns (messages: %s)\n",
				m.Name, len(t.Ranks), minCap, unc.MakespanNs, out[0].LPUncappedNs, sc.Bound.Messages)
			fmt.Fprintf(w, "LP: %d variables, %d rows, %d nonzeros\n\n", out[0].LP.Variables, out[0].LP.Rows, out[0].LP.Nonzeros)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "cap_w\tbound_ns\trounded_ns\tover_cap_ns\tstatic_ns\tstatic_gap_%\tsolve_s\t")
			for _, r := range out {
				fmt.Fprintf(tw, "%g\t%d\t%d\t%d\t%d\t%.2f\t%.4f\t\n", r.CapW, r.BoundNs, *r.RoundedNs, r.RoundedOverCap, r.StaticNs, r.GapStaticPct, r.LP.SolveS)
			}
			return tw.Flush()
		},
	}
	f := c.Flags()
	f.Float64Var(&capW, "cap", 0, "job power cap in watts")
	f.StringVar(&caps, "caps", "", "a sweep of caps FROM:TO:STEP in watts (re-solved from the previous basis)")
	f.StringVar(&scenarioPath, "scenario", "", "scenario giving the machine, network and model (default: the embedded one)")
	f.StringVar(&mach, "machine", "", "machine of the scenario (default: its first)")
	f.StringVar(&mps, "mps", "", "write the LP (as last solved) to this MPS file")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	return c
}
