package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/scenarios"
)

func newFrontierCmd() *cobra.Command {
	var (
		capW                          float64
		points                        int
		scenarioPath, mach, csvPath   string
		tablePath, format             string
		asJSON, keepGaps, alignStarts bool
	)
	c := &cobra.Command{
		Use:   "frontier [TRACE]",
		Short: "Energy–time frontier of a trace: the least energy for every deadline (the fixed-event-order LP)",
		Long: `frontier computes, for deadlines from the least makespan of the trace's event
order to the least that reaches the least energy, the least energy of any
schedule that keeps that order and ends by the deadline: the LP of capsim bound
(Bailey et al., SC'15) with objective and constraint exchanged, minimising
energy subject to makespan ≤ T. Without --cap it is solved as its dual, a
minimum-cost flow, by the network simplex; with --cap by CLP; either way each
deadline from the last solution (docs/design/frontier.md). Energy is every task's power times its time
on its P-states (a task may mix adjacent ones), a wait inside a task's power
interval at the task's lowest P-state power, idle and waiting cores' loads,
and the machine's base power until the job ends, in joules.

The output lists the deadlines and energies (JSON "points"), the same curve
read the other way ("by_budget": the least makespan for energy budgets from
the least energy to the fastest schedule's, each solved, not interpolated), and the
energy saved against the fastest schedule (every task at its fastest
P-state, as soon as possible) at the least makespan and at 5 % longer.
--cap adds a power cap that every schedule keeps too: the job's, or every
node's where the scenario's sweep.cap_scope is node. The machine,
network and DVFS model come from a scenario as for capsim bound, and so
does the LP of an execution graph (a Chakra trace, a GOAL file): the one
over the engine's semantics, kernels at their GPU's clocks.`,
		Example: `  capsim frontier --json
  capsim frontier stencil.arrow --points 21 --csv frontier.csv`,
		Args: nargs(0, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			ctx, stop := signalContextKeeping("nothing was printed or written; the next run removes temporary files")
			defer stop()
			if c := cmd.Flags().Lookup("cap"); c.Changed && !(capW > 0 && !math.IsInf(capW, 0)) {
				return usagef("--cap %s: want a positive number of watts", c.Value)
			}
			if points < 2 || points > scenarios.MaxFrontierPoints {
				return usagef("--points %d: want 2 to %d", points, scenarios.MaxFrontierPoints)
			}
			cfg := scenarios.FrontierConfig{CapW: capW, Points: points, TablePath: tablePath}
			sc, err := scenarios.LoadOrDefault(scenarioPath)
			if err != nil {
				return err
			}
			imp := traceOptions(format, 0).WithKeepGaps(keepGaps).WithAlignStarts(alignStarts)
			if cfg.Machine, cfg.Trace, cfg.Graph, cfg.Collectives, err = lpInputs(sc, mach, a, imp); err != nil {
				return err
			}
			if len(a) > 0 {
				cfg.TracePath, cfg.Import = a[0], imp
			}
			rep, err := sc.RunFrontier(ctx, cfg)
			if err != nil {
				return interrupted(ctx, inTrace(a, err))
			}
			if csvPath != "" {
				if err := atomicfile.WriteFile(csvPath, frontierCSV(rep)); err != nil {
					return fmt.Errorf("--csv: %w", err)
				}
			}
			return printFrontier(cmd.OutOrStdout(), rep, asJSON)
		},
	}
	f := c.Flags()
	f.Float64Var(&capW, "cap", 0, "power cap in watts that every schedule keeps too, the job's or each node's (sweep.cap_scope; default: none)")
	f.IntVar(&points, "points", 11, "deadlines the frontier is solved at, evenly spaced on whole nanoseconds (fewer where it spans fewer; one where the least makespan already reaches the least energy)")
	f.StringVar(&scenarioPath, "scenario", "", "scenario giving the machine, network and model (default: the embedded one)")
	f.StringVar(&mach, "machine", "", "machine of the scenario (default: its first)")
	f.StringVar(&csvPath, "csv", "", "also write the frontier's points to this CSV file (deadline_ns,energy_j)")
	f.StringVar(&format, "format", "", formatFlagHelp)
	addKeepGaps(f, &keepGaps)
	addAlignStarts(f, &alignStarts)
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.StringVar(&tablePath, "table", "", "configuration table (CSV: key,cpu_ghz,threads,seconds,watts; keys are compute regions) for the tasks' configurations instead of the machine's P-states")
	return c
}

// frontierCSV is the frontier's points as CSV.
func frontierCSV(rep *scenarios.FrontierReport) []byte {
	var b bytes.Buffer
	b.WriteString("deadline_ns,energy_j\n")
	for _, p := range rep.Points {
		fmt.Fprintf(&b, "%d,%g\n", p.DeadlineNs, p.EnergyJ)
	}
	return b.Bytes()
}

// printFrontier writes rep as JSON or as a headline and a table.
func printFrontier(w io.Writer, rep *scenarios.FrontierReport, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(w, "machine %s, %d ranks", rep.Machine, rep.Ranks)
	if rep.CapW > 0 {
		fmt.Fprintf(w, ", cap %g W", rep.CapW)
	}
	fmt.Fprintf(w, "\nfastest schedule: %d ns, %.6g J\n", rep.FastestNs, rep.FastestEnergyJ)
	if rep.CapW > 0 {
		fmt.Fprintf(w, "least makespan within the cap: %d ns\n", rep.LeastNs)
	}
	fmt.Fprintf(w, "energy saved: %.2f %% at the least makespan, %.2f %% at 5 %% slower\n", rep.SavedPct0, rep.SavedPct5)
	if len(rep.Points) == 1 {
		fmt.Fprintln(w, "the least makespan already has the least energy: no later deadline saves any")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "deadline_ns\tenergy_j\t")
	for _, p := range rep.Points {
		fmt.Fprintf(tw, "%d\t%.6f\t\n", p.DeadlineNs, p.EnergyJ)
	}
	return tw.Flush()
}
