package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"
	"strings"

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
OUTDIR is tied to the scenario text, the content of every file it reads
(trace, model file) and the capsim version: when any of them changed, a
rerun is refused with a message naming it (--restart discards the old
points instead). One run at a time writes OUTDIR (a lock; a second exits
at once naming the holder). Ctrl-C stops within a second, keeping every
finished point, and exits with status 130.`,
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
			sc, err := loadScenario(a)
			if err != nil {
				return err
			}
			bar, done := newProgress(progress, cmd.ErrOrStderr(), "sweep")
			opts.Progress = bar
			ctx, stop := signalContext()
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
			fmt.Fprintf(cmd.OutOrStdout(), "scenario %q: %d point(s), %d computed, %d already done, %.2f s\nresults: %s and %s\n",
				sc.Name, sum.Points, sum.Computed, sum.Skipped, sum.Wall.Seconds(),
				filepath.Join(out, results.ArrowFile), filepath.Join(out, results.CSVFile))
			return nil
		},
	}
	c.Flags().StringVarP(&out, "output", "o", "", "results directory (created; rerun to resume)")
	c.Flags().StringVar(&shard, "shard", "", "run share K of N (K/N, 0-based)")
	c.Flags().IntVar(&workers, "workers", 0, "parallel workers (0: one per CPU)")
	c.Flags().BoolVar(&restart, "restart", false, "discard the points in OUTDIR of another sweep (the scenario, a file it reads or capsim changed) instead of refusing")
	c.Flags().StringVar(&progress, "progress", "auto", "progress bar: auto (when stderr is a terminal), always, never")
	return c
}

func newReportCmd() *cobra.Command {
	var (
		scenarioFile, detail string
		noDetail             bool
	)
	c := &cobra.Command{
		Use:   "report OUTDIR",
		Short: "Write plots (PNG, SVG) and a self-contained HTML report of a sweep's results",
		Long: `report reads OUTDIR/results.arrow and writes OUTDIR/figures/ (PNG and SVG)
and OUTDIR/report.html, a self-contained page (inline SVG, no network) with
makespan and energy against the power cap per policy with the LP bound, the
results table, and one point replayed again in detail: a Gantt chart of the
ranks, each rank's power over time, the job's power against the cap, and the
longest task's configurations with their Pareto frontier and convex hull.
The scenario comes from OUTDIR/scenario.json, which 'capsim sweep' writes
(or --scenario); --detail picks the point (default: the first machine, the
static policy and the median cap).`,
		Example: `  capsim report out/demo/sweep
  capsim report out/my --detail machine=pal,policy=static,cap=320`,
		Args: nargs(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			dir := a[0]
			pick, err := parsePick(detail)
			if err != nil {
				return usageError{err}
			}
			schema, rows, err := results.ReadArrow(filepath.Join(dir, results.ArrowFile))
			if err != nil {
				return err
			}
			figs, err := report.Figures(schema, rows)
			if err != nil {
				return err
			}
			var extra []report.Section
			if !noDetail {
				sc, err := reportScenario(dir, scenarioFile)
				if err != nil {
					return err
				}
				if sc != nil {
					sec, err := sc.Detail(pick, "detail_")
					if err != nil {
						return err
					}
					extra = append(extra, sec)
				}
			}
			all := append([]report.Figure(nil), figs...)
			for _, sec := range extra {
				all = append(all, sec.Figures...)
			}
			if _, err := report.SaveFigures(filepath.Join(dir, "figures"), all); err != nil {
				return err
			}
			page := filepath.Join(dir, "report.html")
			if err := atomicfile.Write(page, func(w io.Writer) error {
				return report.WriteHTML(w, "capsim sweep: "+filepath.Base(filepath.Clean(dir)), schema, rows, figs, extra)
			}); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "report: %s (%d figures in %s)\n", page, len(all), filepath.Join(dir, "figures"))
			return nil
		},
	}
	c.Flags().StringVar(&scenarioFile, "scenario", "", "scenario file of the sweep (default: OUTDIR/scenario.json)")
	c.Flags().StringVar(&detail, "detail", "", "point to show in detail: machine=NAME,policy=uncapped|static,cap=W")
	c.Flags().BoolVar(&noDetail, "no-detail", false, "leave out the detailed replay of one point")
	return c
}

// reportScenario returns the scenario a report details: --scenario, else
// the one the sweep recorded, else nil (older results directories).
func reportScenario(dir, file string) (*scenarios.Scenario, error) {
	if file != "" {
		return scenarios.Load(file)
	}
	sc, err := scenarios.LoadSource(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return sc, err
}

// parsePick reads --detail's machine=NAME,policy=P,cap=W.
func parsePick(spec string) (scenarios.Pick, error) {
	var p scenarios.Pick
	if spec == "" {
		return p, nil
	}
	for _, kv := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return p, fmt.Errorf("--detail %q: %q is not key=value", spec, kv)
		}
		switch strings.TrimSpace(k) {
		case "machine":
			p.Machine = v
		case "policy":
			p.Policy = v
		case "cap":
			c, err := strconv.ParseFloat(v, 64)
			if err != nil || !(c > 0) || math.IsInf(c, 0) {
				return p, fmt.Errorf("--detail %q: cap %q is not a positive number of watts", spec, v)
			}
			p.CapW = c
		default:
			return p, fmt.Errorf("--detail %q: unknown key %q (want machine, policy, cap)", spec, k)
		}
	}
	return p, nil
}
