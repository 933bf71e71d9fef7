package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/scenarios"
	"github.com/capsim/capsim/traces/chakra"
	"github.com/capsim/capsim/traces/goal"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// printPath prints the critical path's shares and its first and last
// segments.
func printPath(w io.Writer, p *scenarios.CriticalPathReport) {
	pct := func(v int64) float64 {
		if p.LengthNs == 0 {
			return 0
		}
		return 100 * float64(v) / float64(p.LengthNs)
	}
	fmt.Fprintf(w, "\ncritical path: %d segments, %d ns: compute %.1f %%, communication %.1f %%, wait %.1f %%\n",
		len(p.Segments), p.LengthNs, pct(p.ComputeNs), pct(p.CommNs), pct(p.WaitNs))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "rank\tkind\top\tstart_ns\tns\t")
	for i, s := range p.Segments {
		if len(p.Segments) > 40 && i == 20 {
			fmt.Fprintln(tw, "...\t\t\t\t\t")
		}
		if len(p.Segments) > 40 && i >= 20 && i < len(p.Segments)-20 {
			continue
		}
		rank := fmt.Sprint(s.Rank)
		if s.Peer != nil {
			rank = fmt.Sprintf("%d→%d", s.Rank, *s.Peer)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t\n", rank, s.Kind, s.Op, s.StartNs, s.Ns)
	}
	tw.Flush()
	if len(p.Segments) > 40 {
		fmt.Fprintf(w, "(%d segments left out at ...; --json lists all)\n", len(p.Segments)-40)
	}
}

func newReplayCmd() *cobra.Command {
	var (
		netSpec, coll, format      string
		asJSON, libOrder, critPath bool
		keepGaps, alignStarts      bool
		replicate, tp              int
		roofline                   string
		speed                      float64
		netOverrides               []string
		topoSpec, mapping          string
		flowOpts                   scenarios.FlowOptions
		flowExact                  bool // deprecated, no effect
		tlOpts                     scenarios.TimelineOptions
		mo                         scenarios.ModelOptions
		pol                        policyFlags // deprecated --policy replays
		policyOnly                 []string    // pol's flags but --cap and --policy: no effect without --policy
	)
	c := &cobra.Command{
		Use:   "replay TRACE",
		Short: "Replay a trace and report makespan and per-rank time",
		Long: `replay runs a trace on capsim's discrete-event engine under a LogGOPS network
model and prints the makespan, each rank's finish time and where its time
went (compute, communication overhead, waiting), and the engine's speed.

TRACE is any trace capsim reads, told apart by content (--format forces
one): capsim's Arrow execution graphs and MPI traces (IPC file or stream,
as pyarrow, polars or DuckDB write them), GOAL text schedules, liballprof
traces (the rank-0 .dat file or its folder), SimGrid time-independent
traces (the index file of smpirun -trace-ti or a single-file trace) and
DUMPI traces (the .meta file or its folder), also packed in a .tar, .tar.gz
or .zip archive or through a pipe (<(tar cz trace/)); see
docs/reference/trace-formats.md.
Network parameters left out of --net take LogGOPSim's defaults (L=2500
o=1500 g=1000 G=6 O=0 S=65535, ns and bytes); 'loggp:' instead of
'loggops:' prices the bytes in flight as LogGP and SimGrid do (see package
network and docs/reference/trace-formats.md). To replay under a power policy
(steering, dct-dvfs, lp) run 'capsim policy NAME TRACE'.`,
		Example: `  capsim replay allreduce.goal --net 'loggops:L=5000,o=200,g=100,G=2,O=1,S=4096' --json
  capsim replay stencil.arrow --timeline stencil.trace.json
  capsim replay <(tar cz otf2-trace/)
  capsim replay ring.arrow --timeline ring.perfetto-trace --timeline-ranks 0-15,512 --timeline-window 2ms:3ms
  capsim replay stencil.arrow --models examples/models/stencil.json --config freq=1.6 --power power.arrow`,
		Args: nargs(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			if pol.name != "" { // deprecated: capsim policy NAME runs the same replay (policy.go)
				for _, f := range []string{"timeline", "libstdcxx-order", "net-override", "models", "config", "config-region", "power", "machine-power"} {
					if cmd.Flags().Changed(f) {
						return usagef("--%s does not apply to --policy replays", f)
					}
				}
				if err := pol.otherPolicyFlags(); err != nil {
					return err
				}
				pol.netSpec, pol.coll, pol.format, pol.speed, pol.asJSON, pol.keepGaps, pol.alignStarts = netSpec, coll, format, speed, asJSON, keepGaps, alignStarts
				return pol.replayPolicy(cmd, a[0])
			}
			for _, f := range policyOnly {
				if cmd.Flags().Changed(f) {
					// The plain replay would ignore it: a scenario's
					// machine and network, a policy's parameter.
					return usagef("--%s applies to power-policy replays ('capsim policy NAME TRACE'), not to a plain replay", f)
				}
			}
			net, err := network.ParseSpec(netSpec)
			if err != nil {
				return usageError{err}
			}
			if err := checkModels(&mo); err != nil {
				return err
			}
			if pol.capW < 0 {
				return usagef("--cap %g is negative", pol.capW)
			}
			if pol.capW > 0 && mo.File == "" && mo.Machine == "" {
				return usagef("--cap without --policy needs --models or --machine-power (the job's power to hold against the cap)")
			}
			topt := traceOptions(format, speed).WithKeepGaps(keepGaps).WithAlignStarts(alignStarts)
			topt.Chakra.Replicate, topt.Chakra.TP = replicate, tp
			if roofline != "" {
				rl, err := chakra.ParseRoofline(roofline)
				if err != nil {
					return usagef("--roofline: %v", err)
				}
				topt.Chakra.Roofline = rl
			}
			r := scenarios.TraceReplay{Trace: a[0], Import: topt, Coll: coll, Net: net, NetOverrides: netOverrides,
				Topology: topoSpec, Mapping: mapping, Flow: flowOpts, Libstdcxx: libOrder, CritPath: critPath, Timeline: tlOpts,
				Models: mo, CapW: pol.capW}
			out, err := scenarios.ReplayTrace(r)
			if errors.Is(err, scenarios.ErrOption) {
				return usageError{err}
			}
			if err != nil {
				return err
			}
			out.PeakRSSBytes = peakRSS()
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(out)
			}
			printReplay(w, out)
			printRecorded(w, out)
			printModels(w, out.Models)
			if out.CriticalPath != nil {
				printPath(w, out.CriticalPath)
			}
			if tlOpts.Path != "" {
				fmt.Fprintf(w, "timeline: %s (open it in https://ui.perfetto.dev or chrome://tracing)\n", tlOpts.Path)
			}
			return nil
		},
	}
	c.Flags().StringVar(&netSpec, "net", "loggops", "network model, e.g. 'loggops:L=5000,o=200,g=100,G=2,O=1,S=4096'")
	c.Flags().StringArrayVar(&netOverrides, "net-override", nil, "give selected messages their own parameters: 'comm=NAME|NUMBER,region=GLOB;L=..,o=..' (repeatable; the first match wins)")
	c.Flags().StringVar(&topoSpec, "topology", "", "share links of a topology among messages (flow model), e.g. 'fattree:k=4,n=3,oversub=2,bw=12.5,hop_ns=100', 'fattree:down=4x4x4,up=1x2x2', 'crossbar:bw=10Gb/s,hop_ns=1000' (a private link per node), 'torus:dims=8x8x8', 'dragonfly:groups=9,routers=4,hosts=4,global=2' (see docs/design/network.md)")
	c.Flags().StringVar(&mapping, "mapping", "block", "with --topology: place ranks on nodes in blocks, round-robin, or as a file gives (one node per line, line r for rank r)")
	c.Flags().BoolVar(&flowOpts.Neighbours, "flow-neighbours", false, "with --topology: re-rate only the flows sharing a link with a starting or ending one instead of their whole connected component: faster on large components (congested tori), but not max-min fair (docs/design/network.md)")
	// Exact max-min fairness is the flow model's only sharing rule:
	// --flow-exact is accepted for scripts that ask for it and does
	// nothing but print pflag's deprecation notice (on stderr, noticesTo).
	c.Flags().BoolVar(&flowExact, "flow-exact", false, "no effect: exact max-min fairness is the default")
	_ = c.Flags().MarkDeprecated("flow-exact", "it has no effect: exact max-min fairness is the default") // fails only for an undefined flag
	c.Flags().BoolVar(&flowOpts.CM02, "flow-cm02", false, "with --topology: share flows as SimGrid's CM02 model does (bottlenecks shared in inverse proportion to route latency instead of equally)")
	c.Flags().BoolVar(&flowOpts.BytesFirst, "flow-bytes-first", false, "with --topology: start a flow's bytes with its send, on its whole route, and add the route's latency after its last byte (a coarser timing: it can overstate contention several times, docs/design/network.md)")
	c.Flags().StringVar(&coll, "coll", "", "collective algorithms for MPI traces: 'openmpi' or 'mpich' (chosen per call as those libraries do), 'default', and/or per collective, e.g. 'allreduce=ring,bcast=binomial'")
	c.Flags().IntVar(&replicate, "replicate", 0, "replay a Chakra trace of k NPUs on this many (a multiple of k), every collective spanning all of them")
	c.Flags().IntVar(&tp, "tp", 0, "with --replicate: tensor-parallel degree K: collectives on a recorded group within a block of K NPUs stay in each copy's block, all others span the N/K NPUs at the same position in every block (docs/reference/chakra.md)")
	c.Flags().StringVar(&roofline, "roofline", "", "time the computations of a Chakra trace recorded without a duration from num_ops and tensor_size, as ASTRA-sim's roofline: 'ops=R[,mem=B]', peak operations/s and memory bytes/s (e.g. 'ops=989e12,mem=3.35e12'; docs/reference/chakra.md)")
	c.Flags().StringVar(&format, "format", "", formatFlagHelp)
	addKeepGaps(c.Flags(), &keepGaps)
	addAlignStarts(c.Flags(), &alignStarts)
	c.Flags().Float64Var(&speed, "speed", 0, "host speed in flop/s for the flops of a SimGrid time-independent trace (default: the trace's '# smpi/host-speed:' line, else SimGrid's default 20000)")
	c.Flags().BoolVar(&asJSON, "json", false, "print machine-readable JSON")
	c.Flags().BoolVar(&critPath, "critical-path", false, "find the critical path: the chain of computations, message overheads, messages in flight and NIC gaps that sets the makespan (replays with a recorder; the engine's speed is then not comparable)")
	c.Flags().StringVar(&tlOpts.Path, "timeline", "", "write a timeline to this file: Perfetto's protobuf trace if it ends in .perfetto-trace or .pftrace, trace-event JSON otherwise")
	c.Flags().StringVar(&tlOpts.Ranks, "timeline-ranks", "", "show only these ranks in the timeline, e.g. '0-15,512'")
	c.Flags().StringVar(&tlOpts.Window, "timeline-window", "", "show only this time window in the timeline, FROM:TO with units, e.g. '2ms:3.5ms' (either side may be empty)")
	c.Flags().IntVar(&tlOpts.RanksPerNode, "ranks-per-node", 0, "name each rank's node in the timeline (ranks placed on nodes in blocks of this many); with a per-core power model, also a power counter per node")
	addModelFlags(c.Flags(), &mo)
	var before []string
	c.Flags().VisitAll(func(f *pflag.Flag) { before = append(before, f.Name) })
	pol.register(c.Flags(), "", true)
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "cap" && f.Name != "policy" && !slices.Contains(before, f.Name) {
			policyOnly = append(policyOnly, f.Name)
		}
	})
	hidePolicyFlags(c.Flags())
	c.Flags().BoolVar(&libOrder, "libstdcxx-order", false, "order operations freed together exactly as LogGOPSim built with GCC (unstable beyond 16; see the sim package docs)")
	return c
}

func printReplay(w io.Writer, r *scenarios.ReplayReport) {
	fmt.Fprintf(w, "trace     %s\nnetwork   %s\nmakespan  %d ns (%.6f s)\nevents    %d in %.3f s (%.2f M events/s), %d operations, peak RSS %.0f MiB\n\n",
		r.Trace, r.Network, r.MakespanNs, float64(r.MakespanNs)/1e9, r.Events, r.ReplayS, r.EventsPerSec/1e6, r.Operations, float64(r.PeakRSSBytes)/(1<<20))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\tfinish_ns\tcompute_ns\tcomm_ns\twait_ns\t")
	limit := len(r.Ranks)
	if limit > 64 {
		limit = 32
	}
	for _, rk := range r.Ranks[:limit] {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t\n", rk.Rank, rk.FinishNs, rk.ComputeNs, rk.CommNs, rk.WaitNs)
	}
	tw.Flush()
	if limit < len(r.Ranks) {
		fmt.Fprintf(w, "... %d more ranks (use --json for all)\n", len(r.Ranks)-limit)
	}
}

func newImportCmd() *cobra.Command {
	c := &cobra.Command{Use: "import", Short: "Convert other trace formats into capsim's Arrow traces"}
	var out, format, coll string
	var keepGaps bool
	run := func(cmd *cobra.Command, a []string, forced string) error {
		if out == "" {
			return usagef("import needs -o OUT.arrow")
		}
		if forced != "" {
			format = forced
		}
		o := importer.ConvertOptions{Options: importer.Options{Format: format}.WithKeepGaps(keepGaps), Lower: coll != ""}
		if o.Lower {
			algs, err := lower.ParseAlgorithms(coll)
			if err != nil {
				return usageError{err}
			}
			o.Algorithms = algs
		}
		cv, err := importer.Convert(a[0], out, o)
		if err != nil {
			return err
		}
		w := cmd.OutOrStdout()
		if !cv.MPI {
			fmt.Fprintf(w, "%s: %s trace, %d ranks, %d operations, %d dependencies -> %s\n", a[0], cv.Format, cv.Ranks, cv.Ops, cv.Deps, out)
			return nil
		}
		fmt.Fprintf(w, "%s: %s trace, %d ranks, %d MPI events -> %s (MPI trace)\n", a[0], cv.Format, cv.Ranks, cv.Events, out)
		if spec := mpi.AlgorithmsSpec(cv.FormatCollectives); spec != "" {
			fmt.Fprintf(w, "note: %s keeps the %s trace's collective algorithms (--coll '%s'), with which it replays\n", out, cv.Format, spec)
		}
		return nil
	}
	trace := &cobra.Command{
		Use:   "trace TRACE -o OUT.arrow",
		Short: "Convert any trace capsim reads into an Arrow MPI trace (MPI-level formats) or execution graph",
		Long: `trace converts a trace in any format capsim reads (told apart by content;
--format forces one) into capsim's Arrow format: MPI-level traces (liballprof)
stay MPI traces unless --coll asks for the execution graph lowered with those
collective algorithms; GOAL and other graph-level traces become execution graphs.`,
		Args: nargs(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error { return run(cmd, a, "") },
	}
	trace.Flags().StringVarP(&out, "output", "o", "", "Arrow file to write")
	trace.Flags().StringVar(&format, "format", "", formatFlagHelp)
	addKeepGaps(trace.Flags(), &keepGaps)
	trace.Flags().StringVar(&coll, "coll", "", "lower MPI traces into an execution graph with these collective algorithms ('default' for the format's own, 'openmpi', 'mpich', or e.g. 'allreduce=ring')")
	g := &cobra.Command{
		Use:   "goal IN.goal -o OUT.arrow",
		Short: "Convert a GOAL text schedule (LogGOPSim, ATLAHS) into an Arrow execution graph",
		Args:  nargs(1, 1),
		RunE:  func(cmd *cobra.Command, a []string) error { return run(cmd, a, "goal") },
	}
	g.Flags().StringVarP(&out, "output", "o", "", "Arrow file to write")
	c.AddCommand(trace, g)
	return c
}

func newExportCmd() *cobra.Command {
	c := &cobra.Command{Use: "export", Short: "Convert capsim traces into other formats"}
	var out, coll, format string
	var keepGaps bool
	g := &cobra.Command{
		Use:   "goal TRACE -o OUT.goal",
		Short: "Write a trace (graph or MPI trace) as GOAL text for LogGOPSim",
		Args:  nargs(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			if out == "" {
				return usagef("export goal needs -o OUT.goal")
			}
			gr, err := loadGraph(a[0], traceOptions(format, 0).WithKeepGaps(keepGaps), coll)
			if err != nil {
				return err
			}
			if err := atomicfile.Write(out, func(w io.Writer) error { return goal.Write(w, gr) }); err != nil {
				return err
			}
			if len(gr.StartNs) > 0 {
				lo, hi := slices.Min(gr.StartNs), slices.Max(gr.StartNs)
				if hi > lo {
					// GOAL has no start times: LogGOPSim and capsim start
					// every rank of the file at 0.
					fmt.Fprintf(cmd.ErrOrStderr(), "note: %s starts every rank at 0 (GOAL has no start times); the trace starts them where the recorded run did, up to %s apart, and replays so unless --align-starts\n", out, graph.FormatMs(hi-lo))
				}
			}
			if gr.Causal {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: %s replays in LogGOPSim's release order: GOAL cannot say that the trace's CPUs are streams of one device, whose dependencies hold across them (the trace's replay)\n", out)
			}
			return nil
		},
	}
	g.Flags().StringVarP(&out, "output", "o", "", "GOAL file to write")
	g.Flags().StringVar(&coll, "coll", "", "collective algorithms for MPI traces ('openmpi', 'mpich', 'default' or e.g. 'allreduce=ring')")
	g.Flags().StringVar(&format, "format", "", formatFlagHelp)
	addKeepGaps(g.Flags(), &keepGaps)
	c.AddCommand(g)
	return c
}
