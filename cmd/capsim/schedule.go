package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/optimize/sched"
	"github.com/capsim/capsim/optimize/sched/schedplot"
	"github.com/capsim/capsim/scenarios"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/taskgraph"
)

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
			pols, err := sched.ParsePolicies(policies, opt)
			if err != nil {
				return usageError{err}
			}
			if cores == 0 {
				cores = prof.Machine.Threads
			}
			if cores < 1 || cores > sim.MaxNodeCores {
				return usagef("--cores %d: want 1..%d hardware threads (sim.MaxNodeCores)", cores, sim.MaxNodeCores)
			}
			if opt.StaticCores > cores {
				return usagef("--static-cores %d: more than the node's %d hardware threads", opt.StaticCores, cores)
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
			var tlw io.Writer // nil: no timeline
			if timelinePath != "" {
				tl = &strings.Builder{}
				tl.WriteString("graph,cap_w,policy,time_ns,power_w\n")
				tlw = tl
			}
			rows, err := sched.Compare(graphs, prof, cores, capList, pols, opt, tlw)
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
				if err := sched.WriteTable(out, rows, prof, cores); err != nil {
					return err
				}
			}
			if plotPath != "" {
				if _, err := schedplot.Format(plotPath); err != nil {
					return usageError{err}
				}
				return schedplot.WriteFile(plotPath, rows, pols)
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
