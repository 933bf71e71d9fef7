package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/scenarios"
	"github.com/capsim/capsim/scenarios/report"
	"github.com/capsim/capsim/scenarios/results"
)

func loadScenario(args []string) (*scenarios.Scenario, error) {
	if len(args) == 0 {
		return scenarios.LoadDefault()
	}
	return scenarios.Load(args[0])
}

func newSweepCmd() *cobra.Command {
	var (
		out, shard, progress string
		workers              int
	)
	c := &cobra.Command{
		Use:   "sweep [SCENARIO] -o OUTDIR",
		Short: "Run a scenario's sweep (the embedded default when SCENARIO is left out)",
		Long: `sweep runs every point of a scenario (machines × workload parameters ×
policies × power caps) in parallel and writes OUTDIR/results.arrow and
OUTDIR/results.csv, one row per point. Points are committed as they finish:
rerun the same command after an interruption (even SIGKILL) and it resumes,
skipping finished points. --shard K/N runs a deterministic share of the
points; join shards with 'capsim merge'.`,
		Example: `  capsim sweep -o out/demo
  capsim sweep my.toml -o out/my --shard 0/4`,
		Args: nargs(0, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			if out == "" {
				return usagef("sweep needs -o OUTDIR")
			}
			if err := validProgress(progress); err != nil {
				return err
			}
			opts := scenarios.RunOptions{OutDir: out, Workers: workers}
			if shard != "" {
				sh, err := scenarios.ParseShard(shard)
				if err != nil {
					return usageError{err}
				}
				opts.Shard = sh
			}
			sc, err := loadScenario(a)
			if err != nil {
				return err
			}
			bar, done := newProgress(progress, cmd.ErrOrStderr(), "sweep")
			opts.Progress = bar
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			sum, err := scenarios.Run(ctx, sc, scenarios.Replayer{}, opts)
			done()
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "scenario %q: %d point(s), %d computed, %d already done, %.2f s\nresults: %s and %s\n",
				sc.Name, sum.Points, sum.Computed, sum.Skipped, sum.Wall.Seconds(),
				filepath.Join(out, results.ArrowFile), filepath.Join(out, results.CSVFile))
			return nil
		},
	}
	c.Flags().StringVarP(&out, "output", "o", "", "results directory (created; rerun to resume)")
	c.Flags().StringVar(&shard, "shard", "", "run share K of N (K/N, 0-based)")
	c.Flags().IntVar(&workers, "workers", 0, "parallel workers (0: one per CPU)")
	c.Flags().StringVar(&progress, "progress", "auto", "progress bar: auto (when stderr is a terminal), always, never")
	return c
}

func newReportCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "report OUTDIR",
		Short: "Write plots (PNG, SVG) and a self-contained HTML report of a sweep's results",
		Args:  nargs(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			dir := a[0]
			schema, rows, err := results.ReadArrow(filepath.Join(dir, results.ArrowFile))
			if err != nil {
				return err
			}
			figs, err := report.Figures(schema, rows)
			if err != nil {
				return err
			}
			if _, err := report.SaveFigures(filepath.Join(dir, "figures"), figs); err != nil {
				return err
			}
			page := filepath.Join(dir, "report.html")
			if err := atomicfile.Write(page, func(w io.Writer) error {
				return report.WriteHTML(w, "capsim sweep: "+filepath.Base(filepath.Clean(dir)), schema, rows, figs, nil)
			}); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "report: %s (%d figures in %s)\n", page, len(figs), filepath.Join(dir, "figures"))
			return nil
		},
	}
	return c
}
