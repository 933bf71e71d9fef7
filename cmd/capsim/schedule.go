package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/optimize/sched"
	"github.com/capsim/capsim/scenarios"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/taskgraph"
)

// scheduleRow is one (graph, cap, policy) run.
type scheduleRow struct {
	Graph       string  `json:"graph"`
	Tasks       int     `json:"tasks"`
	Policy      string  `json:"policy"`
	CapW        float64 `json:"cap_w"`
	MakespanNs  int64   `json:"makespan_ns"`
	AvgPowerW   float64 `json:"avg_power_w"`
	PeakPowerW  float64 `json:"peak_power_w"`
	EnergyJ     float64 `json:"energy_j"`
	Utilization float64 `json:"utilization"`
	RelPerf     float64 `json:"rel_perf"`
	// GapBestPct is how much slower than the best policy of the same graph
	// and cap this run is, in percent: task graphs have no LP bound (the
	// LP does not model the thread limit), so the best policy found is the
	// reference.
	GapBestPct float64 `json:"gap_best_pct"`
	Events     int64   `json:"events"`
	Ticks      int64   `json:"ticks"`
	WallNs     int64   `json:"wall_ns"`
}

func newScheduleCmd() *cobra.Command {
	var (
		policies, caps, profilesPath, writeProfiles, plotPath string
		writeDAG, timelinePath                                string
		cores                                                 int
		asJSON                                                bool
		opt                                                   sched.Options
	)
	c := &cobra.Command{
		Use:   "schedule DAG... --cap W[,W...|FROM:TO:STEP] [--policy fs,ccs,pas,sas|all]",
		Short: "Schedule task graphs on a power-capped node (FS, CCS, PAS, SAS)",
		Long: `schedule runs task graphs on one node under a cap on incremental power (W
over the node's idle power) with the schedulers of Anger's thesis (Georgia Tech
2016, §5.2): the Fair Scheduler (fs), Core-Constrained (ccs), Power-Aware (pas) and
Slack-Aware (sas). A DAG is a generator spec: cholesky:NT or lu:NT (NT×NT
tiles) or cg:NB[xITERS] (NB row blocks, 10 iterations by default), or a
task-graph text file: one task per line, its kernel (optionally with
coordinates, "GEMM(3,2,1)") followed by the ids (line numbers from 0, not
counting blank and # lines) of the tasks it depends on; --write-dag FILE
writes the first DAG in that form.

Task times and powers come from per-kernel profiles: the built-in Xeon Phi
3120A model (112 threads, 106.9 W idle; see traces/taskgraph) or an Arrow
task-profile file (--profiles; --write-profiles FILE writes the built-in set
as a starting point). For each graph, cap and policy it prints the makespan,
the average and peak incremental power, the node's thread utilization and
the performance relative to fs at the same cap (T_fs / T). --plot draws the
relative performance of ccs, pas and sas against the cap, one panel per
graph (the shape of the thesis' Fig. 25).`,
		Example: `  capsim schedule cholesky:40 --policy sas --cap 60
  capsim schedule cholesky:20 lu:12 cg:16 --policy all --cap 35:250:5 --plot fig25.png
  capsim schedule --write-profiles phi.arrow`,
		Args: func(cmd *cobra.Command, a []string) error {
			if len(a) == 0 && writeProfiles == "" {
				return usagef("schedule takes at least 1 DAG argument")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, a []string) error {
			prof := taskgraph.DefaultProfiles()
			if profilesPath != "" {
				var err error
				if prof, err = arrowtrace.ReadProfiles(profilesPath); err != nil {
					return err
				}
			}
			if writeDAG != "" {
				if len(a) == 0 {
					return usagef("--write-dag needs a DAG argument")
				}
				d, err := loadDAG(a[0])
				if err != nil {
					return err
				}
				if err := atomicfile.Write(writeDAG, func(w io.Writer) error { return taskgraph.Format(w, d) }); err != nil {
					return err
				}
				if caps == "" {
					return nil
				}
			}
			if writeProfiles != "" {
				if err := arrowtrace.WriteProfiles(writeProfiles, prof); err != nil {
					return err
				}
				if len(a) == 0 {
					return nil
				}
			}
			if caps == "" {
				return usagef("--cap is required")
			}
			capList, err := scenarios.ParseCaps(caps)
			if err != nil {
				return usagef("--cap: %v", err)
			}
			pols, err := parsePolicies(policies, opt)
			if err != nil {
				return usageError{err}
			}
			if cores == 0 {
				cores = prof.Machine.Threads
			}
			if cores < 1 {
				return usagef("--cores %d: need at least 1", cores)
			}
			var graphs []*taskgraph.DAG
			for _, spec := range a {
				d, err := loadDAG(spec)
				if err != nil {
					return err
				}
				graphs = append(graphs, d)
			}
			var tl *strings.Builder
			if timelinePath != "" {
				tl = &strings.Builder{}
				tl.WriteString("graph,cap_w,policy,time_ns,power_w\n")
			}
			rows, err := runSchedules(graphs, prof, cores, capList, pols, opt, tl)
			if err != nil {
				return err
			}
			if tl != nil {
				if err := atomicfile.WriteFile(timelinePath, []byte(tl.String())); err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rows); err != nil {
					return err
				}
			} else {
				writeScheduleTable(out, rows, prof, cores)
			}
			if plotPath != "" {
				return plotSchedules(plotPath, rows, a, pols)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&policies, "policy", "all", "policies: a comma-separated list of fs, ccs, pas, sas, or all")
	f.StringVar(&caps, "cap", "", "incremental power cap(s) in W: one value, a comma-separated list or FROM:TO:STEP")
	f.StringVar(&profilesPath, "profiles", "", "Arrow task-profile file (default: the built-in Xeon Phi 3120A model)")
	f.StringVar(&writeProfiles, "write-profiles", "", "write the profiles in use to this Arrow file")
	f.StringVar(&writeDAG, "write-dag", "", "write the first DAG as a task-graph text file (and stop unless --cap is given)")
	f.StringVar(&timelinePath, "timeline", "", "write every run's power timeline (graph,cap_w,policy,time_ns,power_w) to this CSV file")
	f.StringVar(&plotPath, "plot", "", "write relative performance vs cap to this .png or .svg file")
	f.IntVar(&cores, "cores", 0, "hardware threads of the node (default: the profiles' machine)")
	f.BoolVar(&asJSON, "json", false, "print the results as JSON")
	f.BoolVar(&opt.CCSLargest, "ccs-largest", false, "CCS: literal 'largest makespan' losing-task rule (the thesis's wording for CCS)")
	f.BoolVar(&opt.CCSFrontier, "ccs-frontier", false, "CCS: walk Pareto points instead of one thread at a time")
	f.BoolVar(&opt.FairDivide, "fair-divide", false, "FS: integer division instead of round-robin (the thesis names both)")
	f.IntVar(&opt.StaticCores, "static-cores", 0, "FS/CCS: static thread limit instead of the worst-case knapsack N_static(cap)")
	f.BoolVar(&opt.DeferLast, "defer-last", false, "PAS/SAS: defer only when every task is at its lowest point (a literal reading of the thesis)")
	return c
}

// loadDAG reads a task-graph text file (when spec names a file) or
// generates the graph a spec names.
func loadDAG(spec string) (*taskgraph.DAG, error) {
	if st, err := os.Stat(spec); err == nil && !st.IsDir() {
		f, err := os.Open(spec)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return taskgraph.Parse(f, spec)
	}
	d, err := taskgraph.Generate(spec)
	if err != nil {
		return nil, usageError{fmt.Errorf("%w (and no file %s exists)", err, spec)}
	}
	return d, nil
}

func parsePolicies(s string, opt sched.Options) ([]string, error) {
	if s == "all" {
		return sched.Names, nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.ToLower(strings.TrimSpace(p))
		if _, err := sched.New(p, opt); err != nil {
			return nil, fmt.Errorf("--policy: %w", err)
		}
		out = append(out, p)
	}
	return out, nil
}

// runSchedules runs every graph under every cap and policy; fs always
// runs, as the reference of the relative performance.
func runSchedules(graphs []*taskgraph.DAG, prof *taskgraph.Profiles, cores int, caps []float64, pols []string, opt sched.Options, tl *strings.Builder) ([]scheduleRow, error) {
	var rows []scheduleRow
	for _, d := range graphs {
		w, err := sim.NewTaskWorkload(d, prof)
		if err != nil {
			return nil, err
		}
		for _, capW := range caps {
			node := sim.Node{Cores: cores, Cap: capW, IdleW: prof.Machine.IdleW}
			var ref int64
			run := func(name string) (*sim.TaskResult, time.Duration, error) {
				pol, err := sched.New(name, opt)
				if err != nil {
					return nil, 0, err
				}
				t0 := time.Now()
				res, err := sim.RunTasks(w, node, pol)
				if err != nil {
					return nil, 0, fmt.Errorf("%s at %g W: %w", d.Name, capW, err)
				}
				return res, time.Since(t0), nil
			}
			fs, _, err := run("fs")
			if err != nil {
				return nil, err
			}
			ref = fs.Makespan
			first := len(rows)
			best := fs.Makespan
			for _, name := range pols {
				res, wall, err := run(name)
				if err != nil {
					return nil, err
				}
				if tl != nil {
					for _, st := range res.Timeline {
						fmt.Fprintf(tl, "%s,%g,%s,%d,%s\n", d.Name, capW, name, st.Time, strconv.FormatFloat(st.Power, 'g', -1, 64))
					}
				}
				rows = append(rows, scheduleRow{
					Graph: d.Name, Tasks: d.NumTasks(), Policy: name, CapW: capW,
					MakespanNs: res.Makespan, AvgPowerW: res.AvgPower, PeakPowerW: res.PeakPower,
					EnergyJ: res.Energy, Utilization: res.Utilization,
					RelPerf: sched.RelativePerformance(ref, res.Makespan),
					Events:  res.Events, Ticks: res.Ticks, WallNs: wall.Nanoseconds(),
				})
				best = min(best, res.Makespan)
			}
			for i := first; i < len(rows); i++ {
				rows[i].GapBestPct = math.Round(1e4*(float64(rows[i].MakespanNs)/float64(best)-1)) / 100
			}
		}
	}
	return rows, nil
}

func writeScheduleTable(out io.Writer, rows []scheduleRow, prof *taskgraph.Profiles, cores int) {
	fmt.Fprintf(out, "# node: %s, %d threads, idle %.1f W; powers are W over idle\n", prof.Machine.Name, cores, prof.Machine.IdleW)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "graph\ttasks\tcap_W\tpolicy\tmakespan_ms\tavg_W\tpeak_W\tutil\trel_perf\tgap_best_%\twall_ms\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%g\t%s\t%.3f\t%.2f\t%.2f\t%.3f\t%.3f\t%.2f\t%.1f\t\n", r.Graph, r.Tasks, r.CapW, r.Policy,
			float64(r.MakespanNs)/1e6, r.AvgPowerW, r.PeakPowerW, r.Utilization, r.RelPerf, r.GapBestPct, float64(r.WallNs)/1e6)
	}
	tw.Flush()
}

// plotSchedules draws relative performance against the cap, one panel per
// graph and one line per policy other than fs (which is 1 by definition).
func plotSchedules(path string, rows []scheduleRow, specs []string, pols []string) error {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if ext != "png" && ext != "svg" {
		return usagef("--plot %s: want a .png or .svg file", path)
	}
	var graphs []string
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.Graph] {
			seen[r.Graph] = true
			graphs = append(graphs, r.Graph)
		}
	}
	var panels []*plot.Plot
	for _, g := range graphs {
		p := plot.New()
		p.Title.Text = g
		p.X.Label.Text = "power cap (W over idle)"
		p.Y.Label.Text = "performance relative to FS"
		p.Add(plotter.NewGrid())
		var lines []any
		for _, name := range pols {
			if name == "fs" {
				continue
			}
			var xy plotter.XYs
			for _, r := range rows {
				if r.Graph == g && r.Policy == name {
					xy = append(xy, plotter.XY{X: r.CapW, Y: r.RelPerf})
				}
			}
			lines = append(lines, strings.ToUpper(name), xy)
		}
		if err := plotutil.AddLinePoints(p, lines...); err != nil {
			return err
		}
		p.Legend.Top = true
		panels = append(panels, p)
	}
	if len(panels) == 0 {
		return nil
	}
	w := vg.Length(len(panels)) * 12 * vg.Centimeter
	h := 10 * vg.Centimeter
	var c vg.CanvasWriterTo
	if ext == "png" {
		c = vgimg.PngCanvas{Canvas: vgimg.New(w, h)}
	} else {
		c = vgsvg.New(w, h)
	}
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: 1, Cols: len(panels), PadX: vg.Centimeter, PadY: vg.Centimeter / 2,
		PadLeft: vg.Centimeter / 2, PadRight: vg.Centimeter / 2, PadTop: vg.Centimeter / 2, PadBottom: vg.Centimeter / 2}
	grid := [][]*plot.Plot{panels}
	cs := plot.Align(grid, tiles, dc)
	for j, p := range panels {
		p.Draw(cs[0][j])
	}
	return atomicfile.Write(path, func(wr io.Writer) error {
		_, err := c.WriteTo(wr)
		return err
	})
}
