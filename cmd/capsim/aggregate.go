package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/capsim/capsim/compute/models"
	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/aggregate"
)

func newAggregateCmd() *cobra.Command {
	var (
		format, coll, topoSpec, ipcSpec, powerSpec, interSpec, csvPath string
		ipcModel, ipcSamples                                           string
		interNet, intraNet, sameDie, sameSocket, crossSocket           string
		nodeMemGB, taskMemGB, threshold                                float64
		keepGaps, alignStarts                                          bool
		nodes                                                          int
		exhaustive                                                     int64
		replay                                                         bool
	)
	c := &cobra.Command{
		Use:   "aggregate TRACE",
		Short: "Task-aggregation what-if: place the trace's ranks on fewer nodes (Li, PhD thesis 2011, Ch. 4)",
		Long: `aggregate enumerates the aggregation patterns of a node topology (2x2x2:
the 8 patterns of Dong Li's System G), groups the trace's ranks into nodes by
their communication (Kernighan-Lin on the thesis's edge costs, exhaustive for
small counts), prices computation by per-pattern IPC (--ipc, or predicted from
samples under P4 and P5 by an IPC model, --ipc-model: Eqs. 4.1-4.3) and
communication by the
LogGP parameters of each placement class with an interference table (an
upper bound), and chooses a pattern by Eq. 4.5 with the performance threshold
and the thesis's ranking (fewer nodes, processors, dies), and by energy with
unused nodes asleep. --replay also replays every pattern on the engine.
See docs/design/aggregation.md.`,
		Args: nargs(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			top, err := aggregate.ParseTopology(topoSpec)
			if err != nil {
				return usageError{err}
			}
			if nodeMemGB < 0 || taskMemGB < 0 || threshold < 0 || nodes < 0 || exhaustive < 0 {
				return usagef("--node-mem-gb, --task-mem-gb, --threshold, --nodes and --exhaustive must not be negative")
			}
			top.MemoryBytes = int64(nodeMemGB * (1 << 30))
			cfg := aggregate.Config{Topology: top, Nodes: nodes, TaskMemBytes: int64(taskMemGB * (1 << 30)),
				Threshold: threshold, ExhaustiveLimit: exhaustive}
			for _, s := range []struct {
				spec string
				cls  []aggregate.Class
			}{{interNet, []aggregate.Class{aggregate.InterNode}},
				{intraNet, []aggregate.Class{aggregate.SameDie, aggregate.SameSocket, aggregate.CrossSocket}},
				{sameDie, []aggregate.Class{aggregate.SameDie}}, {sameSocket, []aggregate.Class{aggregate.SameSocket}},
				{crossSocket, []aggregate.Class{aggregate.CrossSocket}}} {
				if s.spec == "" {
					continue
				}
				p, err := network.ParseSpec(s.spec)
				if err != nil {
					return usageError{err}
				}
				for _, k := range s.cls {
					cfg.Net[k] = p
				}
			}
			if ipcSpec != "" {
				if ipcModel != "" {
					return usagef("set --ipc or --ipc-model, not both")
				}
				if cfg.IPC, err = aggregate.ParseIPC(ipcSpec); err != nil {
					return usageError{err}
				}
			}
			if (ipcModel == "") != (ipcSamples == "") {
				return usagef("--ipc-model and --ipc-samples go together")
			}
			if ipcModel != "" {
				if cfg.IPC, _, err = models.PredictIPCFiles(ipcModel, ipcSamples, topoSpec); err != nil {
					return err
				}
			}
			if powerSpec != "" {
				if cfg.Power, err = aggregate.ParsePower(powerSpec); err != nil {
					return usageError{err}
				}
			}
			if interSpec != "" {
				if cfg.Interference, err = aggregate.ParseInterference(interSpec); err != nil {
					return usageError{err}
				}
			}
			g, err := loadGraph(a[0], traceOptions(format, 0).WithKeepGaps(keepGaps).WithAlignStarts(alignStarts), coll)
			if err != nil {
				return err
			}
			res, err := aggregate.Evaluate(aggregate.FromGraph(g), cfg)
			if err != nil {
				return err
			}
			var rep []aggregate.Replayed
			bySim := -1
			if replay {
				if rep, bySim, err = aggregate.Replay(g, cfg, res); err != nil {
					return err
				}
			}
			if csvPath != "" {
				if err := atomicfile.Write(csvPath, func(w io.Writer) error { return aggregate.WriteCSV(w, res, rep, bySim) }); err != nil {
					return fmt.Errorf("aggregate: writing %s: %w", csvPath, err)
				}
			}
			return aggregate.WriteTable(cmd.OutOrStdout(), res, rep, bySim)
		},
	}
	f := c.Flags()
	f.StringVar(&format, "format", "", formatFlagHelp)
	addKeepGaps(f, &keepGaps)
	addAlignStarts(f, &alignStarts)
	f.StringVar(&coll, "coll", "", "collective algorithms for lowering MPI traces ('default' for the format's own, 'openmpi', 'mpich', or e.g. 'allreduce=ring')")
	f.StringVar(&topoSpec, "sockets", "2x2x2", "node layout SOCKETSxDIESxCORES")
	deprecatedAlias(f, "topology", "sockets")
	f.Float64Var(&nodeMemGB, "node-mem-gb", 8, "node memory in GiB (0: not checked)")
	f.Float64Var(&taskMemGB, "task-mem-gb", 0, "memory of each task in GiB (0: not checked)")
	f.IntVar(&nodes, "nodes", 0, "nodes of the machine (0: one per rank)")
	f.StringVar(&ipcSpec, "ipc", "", "IPC per pattern, e.g. 1=2.0,4=1.95,5=1.95,8=1.7 (every pattern; empty: computation unchanged)")
	f.StringVar(&ipcModel, "ipc-model", "", "IPC model file (capsim fit --kind ipc-mlr) predicting every pattern's IPC (Li, PhD thesis 2011, Eqs. 4.1-4.3)")
	f.StringVar(&ipcSamples, "ipc-samples", "", "with --ipc-model: the trace's tasks measured under the sample patterns (CSV: case, pattern, ipc, event rates)")
	f.StringVar(&interNet, "inter", "loggops", "network spec of inter-node messages")
	f.StringVar(&intraNet, "intra", "loggops:L=300,o=200,g=0,G=1", "network spec of every intra-node class (an illustrative default, not from the thesis)")
	f.StringVar(&sameDie, "same-die", "", "network spec of same-die messages (overrides --intra)")
	f.StringVar(&sameSocket, "same-socket", "", "network spec of same-socket messages (overrides --intra)")
	f.StringVar(&crossSocket, "cross-socket", "", "network spec of cross-socket messages (overrides --intra)")
	f.StringVar(&interSpec, "interference", "", "interference rows CLASS/NOISE/MAXBYTES=FACTOR,… (e.g. cross-socket/2/0=2.82)")
	f.StringVar(&powerSpec, "node-power", "", "node power base=W,core=W,sleep=W for the energy choice")
	deprecatedAlias(f, "power", "node-power")
	f.Float64Var(&threshold, "threshold", aggregate.DefaultThreshold, "Eq. 4.5 performance-loss threshold, a fraction of the reference time")
	f.Int64Var(&exhaustive, "exhaustive", 10000, "group exhaustively up to this many partitions, else by Kernighan-Lin")
	f.StringVar(&csvPath, "csv", "", "also write one row per pattern to this CSV file")
	f.BoolVar(&replay, "replay", false, "also replay every pattern on the engine and choose by replayed energy")
	return c
}
