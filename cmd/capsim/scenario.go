package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/scenarios"
	"github.com/capsim/capsim/scenarios/results"
)

func newScenarioCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "scenario",
		Short: "Show and check scenario files",
	}
	c.AddCommand(&cobra.Command{
		Use:   "default",
		Short: "Print the embedded default scenario (a starting point for your own)",
		Args:  nargs(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := cmd.OutOrStdout().Write(scenarios.Default())
			return err
		},
	})
	c.AddCommand(&cobra.Command{
		Use:   "check FILE",
		Short: "Check a scenario file as a sweep would before its first point, and count its points",
		Long: `check parses a scenario file and runs every check 'capsim sweep' runs
before its first point: it builds each workload of the sweep (reading the
trace file or running the generator, lowering collectives), and checks its
rank count against each machine and each policy against the workload.`,
		Args: nargs(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			sc, err := scenarios.Load(a[0])
			if err != nil {
				return err
			}
			printWarnings(cmd.ErrOrStderr(), sc)
			if err := sc.Check(); err != nil {
				return err
			}
			pts := sc.Points()
			fmt.Fprintf(cmd.OutOrStdout(), "%s: scenario %q, %d machine(s), %d point(s)\n", a[0], sc.Name, len(sc.Machines), len(pts))
			return nil
		},
	})
	return c
}

func newMergeCmd() *cobra.Command {
	var (
		out     string
		partial bool
	)
	c := &cobra.Command{
		Use:   "merge SHARD_DIR... -o OUTDIR",
		Short: "Join the results of sweep shards into one table",
		Long: `merge joins the results directories written by 'capsim sweep --shard K/N'
into OUTDIR, producing exactly the results.arrow and results.csv a single run
of the whole sweep writes. All shards must come from the same scenario and
together hold every point exactly once (a shard missing or given twice is
an error that lists the points; --partial merges anyway and lists them).
The shards are only read; OUTDIR must be a new or other directory.`,
		Args: nargs(1, -1),
		RunE: func(cmd *cobra.Command, a []string) error {
			if out == "" {
				return usagef("merge needs -o OUTDIR")
			}
			st, cov, err := results.Merge(out, a, results.MergeOptions{Partial: partial})
			if err != nil {
				return err
			}
			defer st.Close()
			if !cov.Complete() {
				fmt.Fprintf(cmd.ErrOrStderr(), "capsim: warning: merge --partial: %s\n", cov)
			}
			// Keep the scenario's source for 'capsim report' (all shards ran
			// the same one): the first shard's that has it, so that a shard
			// whose copy was lost does not leave the merged folder without.
			for _, d := range a {
				if src, err := os.ReadFile(filepath.Join(d, scenarios.SourceFile)); err == nil {
					if err := atomicfile.WriteFile(filepath.Join(out, scenarios.SourceFile), src); err != nil {
						return err
					}
					break
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "merged %d point(s) from %d shard(s) into %s\n", st.Len(), len(a), out)
			return nil
		},
	}
	c.Flags().StringVarP(&out, "output", "o", "", "results directory to write")
	c.Flags().BoolVar(&partial, "partial", false, "merge shards that miss points or overlap, with a warning listing the points")
	return c
}

// printWarnings prints the scenario's warnings (keys it sets that have no
// effect), one line each.
func printWarnings(w io.Writer, sc *scenarios.Scenario) {
	for _, s := range sc.Warnings {
		fmt.Fprintf(w, "capsim: warning: %s\n", s)
	}
}
