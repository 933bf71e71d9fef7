package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/mpi"
)

func newGenCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "gen",
		Short: "Generate workloads: stencils, sweeps, collective benchmarks, schedgen patterns",
	}
	c.AddCommand(newGenStencil(), newGenSweep(), newGenColl(), newGenPattern())
	return c
}

// parseDims reads "4x4" or "2x3x2".
func parseDims(s string) ([]int, error) {
	var dims []int
	for _, p := range strings.Split(s, "x") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, usagef("--dims %q: want extents such as 4x4 or 2x3x2", s)
		}
		dims = append(dims, n)
	}
	return dims, nil
}

func writeMPI(cmd *cobra.Command, out string, t *mpi.Trace) error {
	if out == "" {
		return usagef("%s needs -o FILE.arrow", cmd.CommandPath())
	}
	if err := arrowtrace.WriteMPI(out, t); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: MPI trace, %d ranks, %d events\n", out, len(t.Ranks), t.NumEvents())
	return nil
}

func newGenStencil() *cobra.Command {
	var (
		s    gen.Stencil
		dims string
		out  string
	)
	c := &cobra.Command{
		Use:   "stencil -o FILE.arrow",
		Short: "A bulk-synchronous 2-D/3-D halo-exchange stencil with load imbalance",
		Long: `stencil writes an MPI trace of a halo-exchange stencil: per iteration each
rank computes, exchanges halos with its face neighbours and joins an allreduce.
The most loaded rank computes --compute-ns per iteration; rank i computes
compute-ns × (balance + (1 − balance) × pattern_i), where the --imbalance
pattern (none, random, charged-field, wavefront) follows Anger's thesis §5.1.2.`,
		Example: `  capsim gen stencil --dims 4x4 --iterations 20 --imbalance charged-field --balance 0.5 -o stencil.arrow`,
		Args:    nargs(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := parseDims(dims)
			if err != nil {
				return err
			}
			s.Dims = d
			for _, key := range gen.ImbalanceParams {
				if uses := gen.ImbalanceReaders(key); cmd.Flags().Changed(key) && !slices.Contains(uses, s.Imbalance) {
					return usagef("--%s has no effect with --imbalance %s: it applies to %s", key, s.Imbalance, strings.Join(uses, ", "))
				}
			}
			t, err := s.Generate()
			if err != nil {
				return usageError{err}
			}
			return writeMPI(cmd, out, t)
		},
	}
	f := c.Flags()
	f.StringVar(&dims, "dims", "4x4", "process grid, e.g. 4x4 or 4x4x2")
	f.IntVar(&s.Iterations, "iterations", 10, "BSP iterations")
	f.Int64Var(&s.HaloBytes, "halo-bytes", 32768, "bytes per face exchange")
	f.Int64Var(&s.ComputeNs, "compute-ns", 1000000, "compute time of the most loaded rank per iteration (ns)")
	f.StringVar(&s.Imbalance, "imbalance", "none", "none, random, charged-field or wavefront")
	f.Float64Var(&s.Balance, "balance", 1, "load balance in [0,1]: 1 is perfectly balanced")
	f.Float64Var(&s.Intensity, "intensity", 1, "compute intensity in [0,1] (1 = compute bound), recorded for models")
	f.Int64Var(&s.AllreduceBytes, "allreduce-bytes", 8, "bytes of the per-iteration allreduce (0 for none)")
	f.BoolVar(&s.Periodic, "periodic", false, "wrap the process grid around")
	f.Float64Var(&s.Sigma, "sigma", 0.15, "width of the charged-field and wavefront Gaussians, a fraction of the grid's extent (the grid spans 0 to 1)")
	f.Uint64Var(&s.Seed, "seed", 1, "seed of the random pattern")
	f.StringVarP(&out, "output", "o", "", "trace file to write")
	return c
}

func newGenSweep() *cobra.Command {
	var (
		s   gen.Sweep
		out string
	)
	c := &cobra.Command{
		Use:   "sweep3d -o FILE.arrow",
		Short: "A sweep3d-like wavefront on a 2-D process grid",
		Args:  nargs(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := s.Generate()
			if err != nil {
				return usageError{err}
			}
			return writeMPI(cmd, out, t)
		},
	}
	f := c.Flags()
	f.IntVar(&s.Px, "px", 4, "process grid extent in x")
	f.IntVar(&s.Py, "py", 4, "process grid extent in y")
	f.IntVar(&s.Octants, "octants", 8, "octants (1..8)")
	f.IntVar(&s.Blocks, "blocks", 10, "blocks per octant")
	f.Int64Var(&s.ComputeNs, "compute-ns", 100000, "compute per block (ns)")
	f.Int64Var(&s.Bytes, "bytes", 4096, "bytes per face message")
	f.StringVarP(&out, "output", "o", "", "trace file to write")
	return c
}

func newGenColl() *cobra.Command {
	var (
		c    gen.Collective
		kind string
		root int32
		out  string
	)
	cmd := &cobra.Command{
		Use:   "coll --collective KIND -o FILE.arrow",
		Short: "A collective micro-benchmark (any MPI collective, optionally on a subcommunicator)",
		Args:  nargs(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			k, err := mpi.ParseKind(kind)
			if err != nil {
				return usageError{err}
			}
			c.Kind, c.Root = k, root
			t, err := c.Generate()
			if err != nil {
				return usageError{err}
			}
			return writeMPI(cmd, out, t)
		},
	}
	f := cmd.Flags()
	f.StringVar(&kind, "collective", "allreduce", "collective: barrier, bcast, reduce, allreduce, allgather, alltoall, alltoallv, gather, scatter, reduce_scatter, scan")
	deprecatedAlias(f, "kind", "collective") // --kind is fit's model kind
	f.IntVar(&c.Ranks, "ranks", 16, "ranks")
	f.IntVar(&c.CommSize, "comm-size", 0, "run on a subcommunicator of the first N ranks (0: all)")
	f.Int64Var(&c.Bytes, "bytes", 1024, "payload per rank")
	f.Int32Var(&root, "root", 0, "root of rooted collectives")
	f.IntVar(&c.Reps, "reps", 10, "repetitions")
	f.Int64Var(&c.GapNs, "gap-ns", 0, "compute between repetitions (ns)")
	f.StringVarP(&out, "output", "o", "", "trace file to write")
	return cmd
}

func newGenPattern() *cobra.Command {
	var (
		o   gen.PatternOptions
		out string
	)
	var names []string
	for _, p := range gen.Patterns() {
		names = append(names, string(p))
	}
	c := &cobra.Command{
		Use:     "pattern NAME -o FILE.arrow",
		Short:   "A LogGOPSim schedgen pattern as an execution graph",
		Long:    "pattern writes one of LogGOPSim's schedgen patterns (or random_permutation, rounds of messages along random permutations of the ranks) as an Arrow execution graph: " + strings.Join(names, ", ") + ". random_permutation is written window by window without holding its graph (up to 2^30 operations: 10^9 events is --ranks 4096 --rounds 81380); the others are built whole (up to 2^27 operations).",
		Example: `  capsim gen pattern allreduce_ring --ranks 1024 --bytes 1048576 -o ring.arrow`,
		Args:    nargs(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			if out == "" {
				return usagef("gen pattern needs -o FILE.arrow")
			}
			for _, fp := range []struct {
				flag string
				pat  gen.Pattern
			}{{"segments", gen.PipelinedRing}, {"rounds", gen.RandomPermutation}, {"seed", gen.RandomPermutation}} {
				if cmd.Flags().Changed(fp.flag) && gen.Pattern(a[0]) != fp.pat {
					return usagef("--%s applies to the %s pattern, not %s (it would have no effect)", fp.flag, fp.pat, a[0])
				}
			}
			if gen.Pattern(a[0]) == gen.RandomPermutation {
				// Written window by window: its graph is never held.
				src, err := gen.NewPermutationSource(o)
				if err != nil {
					return usageError{err}
				}
				if err := arrowtrace.WriteSource(out, src, nil); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: execution graph, %d ranks, %d operations\n", out, src.NumRanks(), src.NumOps())
				return nil
			}
			g, err := gen.GeneratePattern(gen.Pattern(a[0]), o)
			if err != nil {
				return usageError{err}
			}
			if err := arrowtrace.WriteGraph(out, g); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: execution graph, %d ranks, %d operations\n", out, g.NumRanks(), g.NumOps())
			return nil
		},
	}
	f := c.Flags()
	f.IntVar(&o.Ranks, "ranks", 16, "ranks")
	f.Int64Var(&o.Bytes, "bytes", 1024, "message size (allreduce_ring: vector size)")
	f.IntVar(&o.Segments, "segments", 8, "pipelinedring: segments")
	f.IntVar(&o.Rounds, "rounds", 1, "random_permutation: rounds")
	f.Uint64Var(&o.Seed, "seed", 1, "random_permutation: seed of the permutations")
	f.StringVarP(&out, "output", "o", "", "graph file to write")
	return c
}
