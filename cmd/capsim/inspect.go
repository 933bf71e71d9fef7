package main

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/inspect"
)

func newInspectCmd() *cobra.Command {
	var (
		format   string
		speed    float64
		asJSON   bool
		keepGaps bool
	)
	c := &cobra.Command{
		Use:   "inspect TRACE",
		Short: "Summarise a trace: ranks, operations, message sizes, collectives, regions, the recorded run",
		Long: `inspect reads a trace in any format capsim reads (told apart by content;
--format forces one) and prints, without replaying it: its format and ranks,
its operations by kind (MPI calls and compute, or a graph's calc, send and
recv) with their bytes and recorded time, the sizes of the point-to-point
messages (count, total, min/median/max and a histogram by powers of two),
the collectives by kind and communicator, the communicators, the code
regions with their counts and recorded time, and, for traces with
timestamps, the recorded run: each rank's span from MPI_Init's return to
MPI_Finalize's entry, and the measurement gaps left out of the trace (see
docs/reference/recorded-run.md).`,
		Example: `  capsim inspect traces.otf2
  capsim inspect pmpi-trace-rank-0.txt --json`,
		Args: nargs(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			t, err := importer.Read(a[0], traceOptions(format, speed).WithKeepGaps(keepGaps))
			if err != nil {
				return err
			}
			var rep *inspect.Report
			if t.MPI != nil {
				rep = inspect.MPI(t.MPI)
			} else {
				rep = inspect.Graph(t.Graph)
			}
			rep.Trace, rep.Format = a[0], t.Format
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			return inspect.WriteText(w, rep)
		},
	}
	f := c.Flags()
	f.StringVar(&format, "format", "", formatFlagHelp)
	f.Float64Var(&speed, "speed", 0, "host speed in flop/s for the flops of a SimGrid time-independent trace (default: the trace's '# smpi/host-speed:' line, else SimGrid's default 20000)")
	f.BoolVar(&asJSON, "json", false, "print machine-readable JSON")
	addKeepGaps(f, &keepGaps)
	return c
}
