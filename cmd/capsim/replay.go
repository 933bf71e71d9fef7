package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/network/flow"
	"github.com/capsim/capsim/network/topo"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/sim/critpath"
	"github.com/capsim/capsim/sim/timeline"
	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/goal"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

type rankJSON struct {
	Rank      int   `json:"rank"`
	FinishNs  int64 `json:"finish_ns"`
	ComputeNs int64 `json:"compute_ns"`
	CommNs    int64 `json:"comm_ns"`
	WaitNs    int64 `json:"wait_ns"`
	// Messages the replay matched: the trace's point-to-point ones, then
	// those its collectives were lowered into (MPI traces only).
	MsgsSent      int64 `json:"msgs_sent"`
	BytesSent     int64 `json:"bytes_sent"`
	MsgsRecv      int64 `json:"msgs_recv"`
	BytesRecv     int64 `json:"bytes_recv"`
	CollMsgsSent  int64 `json:"coll_msgs_sent"`
	CollBytesSent int64 `json:"coll_bytes_sent"`
	CollMsgsRecv  int64 `json:"coll_msgs_recv"`
	CollBytesRecv int64 `json:"coll_bytes_recv"`
}

type replayJSON struct {
	Trace        string      `json:"trace"`
	Network      string      `json:"network"`
	MakespanNs   int64       `json:"makespan_ns"`
	Ranks        []rankJSON  `json:"ranks"`
	Operations   int         `json:"operations"`
	Events       int64       `json:"events"`
	EventsPerSec float64     `json:"events_per_s"`
	ReplayS      float64     `json:"replay_s"`
	PeakRSSBytes int64       `json:"peak_rss_bytes"`
	Models       *modelsJSON `json:"models,omitempty"`
	Topology     string      `json:"topology,omitempty"`
	FlowEvents   int64       `json:"flow_events,omitempty"`
	Links        []linkJSON  `json:"links,omitempty"`
	CriticalPath *pathJSON   `json:"critical_path,omitempty"`
}

// pathJSON is a replay's critical path (--critical-path).
type pathJSON struct {
	LengthNs  int64         `json:"length_ns"`
	ComputeNs int64         `json:"compute_ns"`
	CommNs    int64         `json:"comm_ns"`
	WaitNs    int64         `json:"wait_ns"`
	Segments  []segmentJSON `json:"segments"`
}

type segmentJSON struct {
	Rank    int32  `json:"rank"`
	Peer    *int32 `json:"peer,omitempty"`
	Kind    string `json:"kind"`
	Op      string `json:"op"`
	StartNs int64  `json:"start_ns"`
	Ns      int64  `json:"ns"`
}

func newPathJSON(g *graph.Graph, p *critpath.Path) *pathJSON {
	out := &pathJSON{LengthNs: p.Length(), Segments: make([]segmentJSON, 0, len(p.Segments))}
	out.ComputeNs, out.CommNs, out.WaitNs = p.Shares()
	for _, s := range p.Segments {
		j := segmentJSON{Rank: s.Rank, Kind: s.Kind.String(), Op: critpath.Describe(g, s), StartNs: s.Start, Ns: s.Duration()}
		if s.Peer >= 0 {
			peer := s.Peer
			j.Peer = &peer
		}
		out.Segments = append(out.Segments, j)
	}
	return out
}

// printPath prints the critical path's shares and its first and last
// segments.
func printPath(w io.Writer, p *pathJSON) {
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
		netSpec, coll, timelinePath, format string
		tlRanks, tlWindow                   string
		ranksPerNode                        int
		asJSON, libOrder, critPath          bool
		speed                               float64
		netOverrides                        []string
		topoSpec, mapping                   string
		flowExact, flowCM02, flowBytesFirst bool
		flowNeighbours                      bool
		mf                                  modelFlags
		pol                                 policyFlags
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
DUMPI traces (the .meta file or its folder); see docs/trace-formats.md.
Network parameters left out of --net take LogGOPSim's defaults (L=2500
o=1500 g=1000 G=6 O=0 S=65535, ns and bytes); 'loggp:' instead of
'loggops:' prices the bytes in flight as LogGP and SimGrid do (see package
network and docs/trace-formats.md).`,
		Example: `  capsim replay allreduce.goal --net 'loggops:L=5000,o=200,g=100,G=2,O=1,S=4096' --json
  capsim replay stencil.arrow --timeline stencil.trace.json
  capsim replay ring.arrow --timeline ring.perfetto-trace --timeline-ranks 0-15,512 --timeline-window 2ms:3ms
  capsim replay stencil.arrow --models examples/models/stencil.json --config freq=1.6 --power power.arrow`,
		Args: nargs(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			if pol.name != "" { // replaypolicy.go
				return pol.run(cmd, a[0], traceOptions(format, speed), netSpec, coll, asJSON)
			}
			net, err := network.ParseSpec(netSpec)
			if err != nil {
				return usageError{err}
			}
			if err := mf.check(); err != nil {
				return err
			}
			if pol.capW < 0 {
				return usagef("--cap %g is negative", pol.capW)
			}
			if pol.capW > 0 && mf.models == "" && mf.machine == "" {
				return usagef("--cap without --policy needs --models or --machine-power (the job's power to hold against the cap)")
			}
			g, comms, err := loadGraphComms(a[0], traceOptions(format, speed), coll)
			if err != nil {
				return err
			}
			opts := sim.Options{LibstdcxxOrder: libOrder}
			if opts.Classes, err = netClasses(g, net, netOverrides, comms); err != nil {
				return err
			}
			if topoSpec != "" {
				top, err := topo.Parse(topoSpec)
				if err != nil {
					return usageError{err}
				}
				m, err := topo.Map(mapping, g.NumRanks(), top)
				if err != nil {
					return usageError{err}
				}
				opts.Flow = &sim.FlowNetwork{Topology: top, Mapping: m, Neighbours: flowNeighbours, CM02: flowCM02, BytesFirst: flowBytesFirst}
				if flowExact {
					fmt.Fprintln(cmd.ErrOrStderr(), "capsim: --flow-exact has no effect: exact max-min fairness is the default")
				}
			}
			collTag := int32(0) // only lowered MPI traces tag collective messages
			if comms != nil {
				collTag = lower.CollectiveTagBase
			}
			// The message counts of a completed replay follow from the
			// graph (sim.CountMessages): nothing observes the replay
			// unless a timeline or the models need it.
			var tl *timeline.Writer
			var tlBuf *os.File
			if timelinePath != "" {
				tlBuf, err = os.CreateTemp("", "capsim-timeline-*")
				if err != nil {
					return err
				}
				defer os.Remove(tlBuf.Name())
				defer tlBuf.Close()
				tlOpt := timeline.Options{Format: timeline.FormatFor(timelinePath), RanksPerNode: ranksPerNode}
				if tlOpt.Ranks, err = timeline.ParseRanks(tlRanks, g.NumRanks()); err != nil {
					return usageError{err}
				}
				if tlWindow != "" {
					if tlOpt.From, tlOpt.To, err = timeline.ParseWindow(tlWindow); err != nil {
						return usageError{err}
					}
				}
				if tl, err = timeline.NewWith(tlBuf, g, tlOpt); err != nil {
					return usageError{err}
				}
				opts.Observer = tl
			}
			mr, err := mf.setup(g, &opts)
			if err != nil {
				return err
			}
			start := time.Now()
			var res *sim.Result
			var path *critpath.Path
			if critPath {
				res, path, err = critpath.Run(g, net, opts)
			} else {
				res, err = sim.Run(g, net, opts)
			}
			wall := time.Since(start)
			if err != nil {
				return fmt.Errorf("%s: %w", a[0], deadlockInMPITerms(err, a[0], coll))
			}
			mj, err := mr.finish(res, tl, ranksPerNode, pol.capW)
			if err != nil {
				return err
			}
			if tl != nil {
				if err := tl.Close(); err != nil {
					return err
				}
				if err := copyAtomic(timelinePath, tlBuf); err != nil {
					return err
				}
			}
			out := replayJSON{Trace: a[0], Network: net.String(), MakespanNs: res.Makespan, Operations: g.NumOps(),
				Events: res.Events, ReplayS: wall.Seconds(), PeakRSSBytes: peakRSS(), Models: mj}
			if wall > 0 {
				out.EventsPerSec = float64(res.Events) / wall.Seconds()
			}
			if opts.Flow != nil {
				out.Topology = opts.Flow.Topology.String()
				out.FlowEvents = res.FlowEvents
				out.Links = linksJSON(res.Links, opts.Flow.Topology, res.Makespan)
			}
			if path != nil {
				out.CriticalPath = newPathJSON(g, path)
			}
			msgs := sim.CountMessages(g, collTag)
			for r, st := range res.Ranks {
				m := msgs[r]
				out.Ranks = append(out.Ranks, rankJSON{Rank: r, FinishNs: st.Finish, ComputeNs: st.Compute, CommNs: st.Comm, WaitNs: st.Wait,
					MsgsSent: m.Sent, BytesSent: m.SentBytes, MsgsRecv: m.Recv, BytesRecv: m.RecvBytes,
					CollMsgsSent: m.CollSent, CollBytesSent: m.CollSentBytes, CollMsgsRecv: m.CollRecv, CollBytesRecv: m.CollRecvBytes})
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(out)
			}
			printReplay(w, out)
			printModels(w, out.Models)
			if out.CriticalPath != nil {
				printPath(w, out.CriticalPath)
			}
			if timelinePath != "" {
				fmt.Fprintf(w, "timeline: %s (open it in https://ui.perfetto.dev or chrome://tracing)\n", timelinePath)
			}
			return nil
		},
	}
	c.Flags().StringVar(&netSpec, "net", "loggops", "network model, e.g. 'loggops:L=5000,o=200,g=100,G=2,O=1,S=4096'")
	c.Flags().StringArrayVar(&netOverrides, "net-override", nil, "give selected messages their own parameters: 'comm=NAME|NUMBER,region=GLOB;L=..,o=..' (repeatable; the first match wins)")
	c.Flags().StringVar(&topoSpec, "topology", "", "share links of a topology among messages (flow model), e.g. 'fattree:k=4,n=3,oversub=2,bw=12.5,hop_ns=100', 'fattree:down=4x4x4,up=1x2x2', 'torus:dims=8x8x8', 'dragonfly:groups=9,routers=4,hosts=4,global=2' (see docs/network.md)")
	c.Flags().StringVar(&mapping, "mapping", "block", "with --topology: place ranks on nodes in blocks, round-robin, or as a file gives (one node per line, line r for rank r)")
	c.Flags().BoolVar(&flowNeighbours, "flow-neighbours", false, "with --topology: re-rate only the flows sharing a link with a starting or ending one instead of their whole connected component: faster on large components (congested tori), but not max-min fair (docs/network.md)")
	// --flow-exact selected exact max-min fairness before it became the
	// default: still accepted, hidden (cobra's deprecation notice would
	// go to stdout, into --json's output).
	c.Flags().BoolVar(&flowExact, "flow-exact", false, "no effect: exact max-min fairness is the default")
	_ = c.Flags().MarkHidden("flow-exact") // fails only for an undefined flag
	c.Flags().BoolVar(&flowCM02, "flow-cm02", false, "with --topology: share flows as SimGrid's CM02 model does (bottlenecks shared in inverse proportion to route latency instead of equally)")
	c.Flags().BoolVar(&flowBytesFirst, "flow-bytes-first", false, "with --topology: start a flow's bytes with its send, on its whole route, and add the route's latency after its last byte (the timing before issue 21; it can overstate contention several times, docs/network.md)")
	c.Flags().StringVar(&coll, "coll", "", "collective algorithms for MPI traces, e.g. 'allreduce=ring,bcast=binomial'")
	c.Flags().StringVar(&format, "format", "", formatFlagHelp)
	c.Flags().Float64Var(&speed, "speed", 0, "host speed in flop/s for the flops of a SimGrid time-independent trace (default: the trace's '# smpi/host-speed:' line, else SimGrid's default 20000)")
	c.Flags().BoolVar(&asJSON, "json", false, "print machine-readable JSON")
	c.Flags().BoolVar(&critPath, "critical-path", false, "find the critical path: the chain of computations, message overheads, messages in flight and NIC gaps that sets the makespan (replays with a recorder; the engine's speed is then not comparable)")
	c.Flags().StringVar(&timelinePath, "timeline", "", "write a timeline to this file: Perfetto's protobuf trace if it ends in .perfetto-trace or .pftrace, trace-event JSON otherwise")
	c.Flags().StringVar(&tlRanks, "timeline-ranks", "", "show only these ranks in the timeline, e.g. '0-15,512'")
	c.Flags().StringVar(&tlWindow, "timeline-window", "", "show only this time window in the timeline, FROM:TO with units, e.g. '2ms:3.5ms' (either side may be empty)")
	c.Flags().IntVar(&ranksPerNode, "ranks-per-node", 0, "name each rank's node in the timeline (ranks placed on nodes in blocks of this many); with a per-core power model, also a power counter per node")
	mf.add(c.Flags())
	pol.register(c.Flags())
	c.Flags().BoolVar(&libOrder, "libstdcxx-order", false, "order operations freed together exactly as LogGOPSim built with GCC (unstable beyond 16; see the sim package docs)")
	return c
}

// copyAtomic copies the content of f (rewound) to path atomically.
func copyAtomic(path string, f *os.File) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := io.Copy(w, f)
		return err
	})
}

func printReplay(w io.Writer, r replayJSON) {
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
	run := func(cmd *cobra.Command, a []string, forced string) error {
		if out == "" {
			return usagef("import needs -o OUT.arrow")
		}
		if forced != "" {
			format = forced
		}
		w := cmd.OutOrStdout()
		if format == "goal" || format == "" && coll == "" && isGOAL(a[0]) {
			// Streamed: memory bounded by one rank block, whatever the
			// schedule's length.
			st, err := streamGOAL(a[0], out)
			if err == nil {
				fmt.Fprintf(w, "%s: goal trace, %d ranks, %d operations, %d dependencies -> %s\n", a[0], st.Ranks, st.Ops, st.Deps, out)
				return nil
			}
			if !errors.Is(err, importer.ErrRankOrder) {
				return err
			}
		}
		t, err := importer.Read(a[0], importer.Options{Format: format})
		if err != nil {
			return err
		}
		if t.MPI != nil && coll == "" {
			if err := arrowtrace.WriteMPI(out, t.MPI); err != nil {
				return err
			}
			fmt.Fprintf(w, "%s: %s trace, %d ranks, %d MPI events -> %s (MPI trace)\n", a[0], t.Format, len(t.MPI.Ranks), t.MPI.NumEvents(), out)
			if spec := collSpec(t.Collectives); spec != "" {
				fmt.Fprintf(w, "note: %s traces replay with --coll '%s' by default; pass it when replaying %s\n", t.Format, spec, out)
			}
			return nil
		}
		algs, err := lower.ParseAlgorithms(coll)
		if err != nil {
			return usageError{err}
		}
		gr, err := t.Lower(algs)
		if err != nil {
			return err
		}
		if err := arrowtrace.WriteGraph(out, gr); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s: %s trace, %d ranks, %d operations, %d dependencies -> %s\n", a[0], t.Format, gr.NumRanks(), gr.NumOps(), gr.NumDeps(), out)
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
	trace.Flags().StringVar(&coll, "coll", "", "lower MPI traces into an execution graph with these collective algorithms ('default' for the format's own)")
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
	g := &cobra.Command{
		Use:   "goal TRACE -o OUT.goal",
		Short: "Write a trace (graph or MPI trace) as GOAL text for LogGOPSim",
		Args:  nargs(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			if out == "" {
				return usagef("export goal needs -o OUT.goal")
			}
			gr, err := loadGraph(a[0], traceOptions(format, 0), coll)
			if err != nil {
				return err
			}
			return atomicfile.Write(out, func(w io.Writer) error { return goal.Write(w, gr) })
		},
	}
	g.Flags().StringVarP(&out, "output", "o", "", "GOAL file to write")
	g.Flags().StringVar(&coll, "coll", "", "collective algorithms for MPI traces")
	g.Flags().StringVar(&format, "format", "", formatFlagHelp)
	c.AddCommand(g)
	return c
}

// collSpec writes algorithms as a --coll value, kinds in order.
func collSpec(algs map[mpi.Kind]string) string {
	var parts []string
	for _, k := range mpi.Kinds() {
		if a, ok := algs[k]; ok {
			parts = append(parts, k.String()+"="+a)
		}
	}
	return strings.Join(parts, ",")
}

// isGOAL reports whether the registry sniffs path as GOAL.
func isGOAL(path string) bool {
	f, err := importer.Detect(path)
	return err == nil && f.Name == "goal"
}

// streamGOAL converts the GOAL file in to an Arrow graph at out, streamed
// and written atomically.
func streamGOAL(in, out string) (importer.Stats, error) {
	f, err := os.Open(in)
	if err != nil {
		return importer.Stats{}, err
	}
	defer f.Close()
	var st importer.Stats
	err = atomicfile.Write(out, func(w io.Writer) error {
		var err error
		st, err = importer.GOALToArrow(bufio.NewReaderSize(f, 1<<20), in, w)
		return err
	})
	return st, err
}

// deadlockInMPITerms names the operations of a deadlocked replay of the
// MPI trace at path by their MPI calls (importer.Trace.OpDescriber).
func deadlockInMPITerms(err error, path, coll string) error {
	var dl *sim.DeadlockError
	if !errors.As(err, &dl) {
		return err
	}
	algs, aerr := lower.ParseAlgorithms(coll)
	t, terr := importer.Read(path, importer.Options{})
	if aerr != nil || terr != nil {
		return err
	}
	if describe := t.OpDescriber(algs); describe != nil {
		dl.Rewrite(describe)
	}
	return err
}

// linkJSON is one link's statistics in replay --json (links that carried
// at least one flow).
type linkJSON struct {
	ID          int32   `json:"id"`
	BandwidthGB float64 `json:"bandwidth_gb_s"`
	Bytes       int64   `json:"bytes"`
	Flows       int64   `json:"flows"`
	BusyNs      int64   `json:"busy_ns"`
	PeakFlows   int32   `json:"peak_flows"`
	Utilisation float64 `json:"utilisation"` // bytes / (bandwidth × makespan)
}

func linksJSON(st []flow.LinkStats, t topo.Topology, makespan int64) []linkJSON {
	var out []linkJSON
	for id, s := range st {
		if s.Flows == 0 {
			continue
		}
		l := linkJSON{ID: int32(id), BandwidthGB: t.Link(int32(id)).Bandwidth, Bytes: s.Bytes, Flows: s.Flows, BusyNs: s.BusyNs, PeakFlows: s.Peak}
		if makespan > 0 {
			l.Utilisation = float64(s.Bytes) / (l.BandwidthGB * float64(makespan))
		}
		out = append(out, l)
	}
	return out
}
