package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/capsim/capsim/scenarios"
	"github.com/capsim/capsim/scenarios/results"
)

func newSweepCmd() *cobra.Command {
	var (
		out, shard, progress string
		workers              int
		restart              bool
	)
	c := &cobra.Command{
		Use:   "sweep [SCENARIO] -o OUTDIR",
		Short: "Run a scenario's sweep (the embedded default when SCENARIO is left out)",
		Long: `sweep runs every point of a scenario (machines × workload parameters ×
policies × power caps) in parallel and writes OUTDIR/results.arrow and
OUTDIR/results.csv, one row per point. Points are committed as they finish:
rerun the same command after an interruption (even SIGKILL) and it resumes,
skipping finished points. --shard K/N runs a deterministic share of the
points; join shards with 'capsim merge'.
OUTDIR is tied to what the scenario says (its comments, layout and key
order aside), the content of every file it reads (every file of the trace,
model file, mapping file) and the capsim version (its commit, or without a
clean one its executable; its Go toolchain and CLP library): when any of
them changed, a rerun is refused with a message naming it (--restart
discards the old points instead). One run at a time writes OUTDIR (a lock; a second exits
at once naming the holder). Ctrl-C (SIGTERM) stops within a second,
keeping every finished point, and exits with status 130 (143).`,
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
			opts := scenarios.RunOptions{OutDir: out, Workers: workers, Restart: restart}
			if shard != "" {
				sh, err := scenarios.ParseShard(shard)
				if err != nil {
					return usageError{err}
				}
				opts.Shard = sh
			}
			var path string
			if len(a) == 1 {
				path = a[0]
			}
			sc, err := scenarios.LoadOrDefault(path)
			if err != nil {
				return err
			}
			printWarnings(cmd.ErrOrStderr(), sc)
			bar, done := newProgress(progress, cmd.ErrOrStderr(), "sweep")
			opts.Progress = bar
			ctx, stop := signalContextKeeping(fmt.Sprintf("the points finished are kept in %s; rerun the same command to resume, which removes temporary files", out))
			defer stop()
			sum, err := scenarios.Run(ctx, sc, scenarios.Replayer{}, opts)
			done()
			if err != nil {
				err = interrupted(ctx, err)
				var ie interruptedError
				if errors.As(err, &ie) && sum != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "capsim: %d of %d point(s) finished and kept in %s; rerun the same command to resume\n",
						sum.Skipped+sum.Computed, sum.Points, out)
				}
				return err
			}
			for _, l := range sum.NoSchedule {
				fmt.Fprintf(cmd.ErrOrStderr(), "capsim: note: %s\n", l)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "scenario %q: %d point(s), %d computed, %d already done, %.2f s\nresults: %s and %s\n",
				sc.Name, sum.Points, sum.Computed, sum.Skipped, sum.Wall.Seconds(),
				filepath.Join(out, results.ArrowFile), filepath.Join(out, results.CSVFile))
			return nil
		},
	}
	c.Flags().StringVarP(&out, "output", "o", "", "results directory (created; rerun to resume)")
	c.Flags().StringVar(&shard, "shard", "", "run share K of N (K/N, 0-based)")
	c.Flags().IntVar(&workers, "workers", 0, "parallel workers, also the most goroutines each LP solves on (0: one per CPU)")
	c.Flags().BoolVar(&restart, "restart", false, "discard the points in OUTDIR of another sweep (the scenario, a file it reads or capsim changed) instead of refusing")
	c.Flags().StringVar(&progress, "progress", "auto", "progress bar: auto (when stderr is a terminal), always, never")
	return c
}

func newReportCmd() *cobra.Command {
	var (
		scenarioFile string
		details      []string
		noDetail     bool
		partial      bool
	)
	c := &cobra.Command{
		Use:   "report OUTDIR [OTHER]",
		Short: "Write a self-contained HTML report and figures (PNG, SVG) of a sweep's results",
		Long: `report reads OUTDIR/results.arrow and writes OUTDIR/report.html, a
self-contained page (inline SVG, no network), and OUTDIR/figures/ (PNG at
1600 × 900 px and SVG). The page opens with what was simulated (machines,
network, workload, caps, policies) and the headline (the best policy at each
cap and its gap to the LP bound), then makespan, gap to the bound and energy
against the power cap per policy, every machine compared with the first
(speedup, energy, energy-delay per cap), one point replayed again in detail
(where each rank's time went, a Gantt chart of the ranks with the point's
critical path over it, the path segment by segment with its shares
computing, communicating and waiting and the LP bound at the cap, a heat
map of every rank's power, the job's power against the cap, the longest
task's configurations with their Pareto frontier and convex hull), and the
results table with units (the exact
values stay in results.arrow and results.csv).

With a second folder OTHER (the same workload swept on another machine or
with another model), it compares OUTDIR with OTHER point by point instead
and writes OUTDIR/compare.html.

The scenario comes from OUTDIR/scenario.json, which 'capsim sweep' writes
(or --scenario); --detail picks points (default: the first machine, the
static policy, else uncapped, else the sweep's first, and the median cap;
where that point has no schedule, the median cap of that policy that has
one, else the uncapped run, else the first point with one) and may be
repeated. Where the inputs
(trace, model file, capsim) are no longer those of the results, the detail
is refused, and a page --no-detail says which input changed and leaves out
the energy–time frontier, which it would compute from the current inputs.`,
		Example: `  capsim report out/demo/sweep
  capsim report out/my --detail machine=pal,policy=lp,cap=320 --detail policy=conductor,cap=300
  capsim report out/gpu out/cpu`,
		Args: nargs(1, 2),
		RunE: func(cmd *cobra.Command, a []string) error {
			opt := scenarios.ReportOptions{NoDetail: noDetail, Partial: partial}
			for _, d := range details {
				p, err := scenarios.ParsePick(d)
				if err != nil {
					return usageError{fmt.Errorf("--%w", err)}
				}
				opt.Detail = append(opt.Detail, p)
			}
			if scenarioFile != "" {
				sc, err := scenarios.Load(scenarioFile)
				if err != nil {
					return err
				}
				opt.Scenario = sc
			}
			if len(a) == 2 {
				opt.Compare = a[1]
			}
			files, err := scenarios.WriteReport(a[0], opt)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "report: %s (%d figures in %s)\n", files.Page, files.Count, files.Figures)
			return nil
		},
	}
	c.Flags().StringVar(&scenarioFile, "scenario", "", "scenario file of the sweep (default: OUTDIR/scenario.json)")
	c.Flags().StringArrayVar(&details, "detail", nil, "point to show in detail: machine=NAME,policy=POLICY,cap=W (repeatable)")
	c.Flags().BoolVar(&noDetail, "no-detail", false, "leave out the detailed replay of points")
	c.Flags().BoolVar(&partial, "partial", false, "report a folder that holds only some of its sweep's points (a shard, a sweep stopped early), saying so on the page")
	return c
}
