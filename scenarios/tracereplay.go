package scenarios

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/internal/units"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/network/flow"
	"github.com/capsim/capsim/network/topo"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/sim/critpath"
	"github.com/capsim/capsim/sim/timeline"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// TraceReplay is one replay of a trace on the engine (ReplayTrace), as
// capsim replay runs it.
type TraceReplay struct {
	Trace  string           // the trace file, any format importer reads
	Import importer.Options // how to read it
	Coll   string           // collective algorithms of MPI traces ("": the format's own)

	Net network.LogGOPS
	// NetOverrides give selected messages their own parameters
	// (network.ParseOverride specs over Net; the first match wins).
	NetOverrides []string
	// Topology, when set, shares its links among messages (the flow
	// model); Mapping places ranks on its nodes (topo.Map).
	Topology  string
	Mapping   string
	Flow      FlowOptions
	Libstdcxx bool // order freed operations as LogGOPSim built with GCC
	CritPath  bool // find the critical path
	Timeline  TimelineOptions
	Models    ModelOptions
	CapW      float64 // job power cap the models' power is checked against (0: none)
}

// FlowOptions select the flow model's variants (sim.FlowNetwork).
type FlowOptions struct {
	Neighbours, CM02, BytesFirst bool
}

// TimelineOptions ask for a timeline file of the replay.
type TimelineOptions struct {
	Path string // "": none; Perfetto's protobuf for .perfetto-trace or .pftrace, trace-event JSON otherwise
	// Ranks and Window select what it shows (timeline.ParseRanks,
	// timeline.ParseWindow; "": everything).
	Ranks, Window string
	// RanksPerNode names each rank's node (blocks of this many; 0: none)
	// and, with a per-core power model, adds a power counter per node.
	RanksPerNode int
}

// ReplayReport is the outcome of ReplayTrace, as capsim replay --json
// prints it.
type ReplayReport struct {
	Trace        string              `json:"trace"`
	Network      string              `json:"network"`
	MakespanNs   int64               `json:"makespan_ns"`
	Ranks        []RankReport        `json:"ranks"`
	Operations   int                 `json:"operations"`
	Events       int64               `json:"events"`
	EventsPerSec float64             `json:"events_per_s"`
	ReplayS      float64             `json:"replay_s"`
	PeakRSSBytes int64               `json:"peak_rss_bytes"` // left to the caller
	Models       *ModelsReport       `json:"models,omitempty"`
	Topology     string              `json:"topology,omitempty"`
	FlowEvents   int64               `json:"flow_events,omitempty"`
	Links        []LinkReport        `json:"links,omitempty"`
	CriticalPath *CriticalPathReport `json:"critical_path,omitempty"`
	// The recorded run, for traces with timestamps (graph.Recorded):
	// its span and PredictedNs, the replay's span by the same
	// definition (the longest rank's, from its start), and their ratio.
	RecordedNs  int64         `json:"recorded_ns,omitempty"`
	PredictedNs int64         `json:"predicted_ns,omitempty"`
	Ratio       float64       `json:"predicted_over_recorded,omitempty"`
	Gaps        *GapsReport   `json:"measurement_gaps,omitempty"`
	Starts      *StartsReport `json:"starts,omitempty"`
}

// GapsReport is what an import left out of (or kept in) a trace as
// measurement gaps, over all ranks.
type GapsReport struct {
	Ns    int64  `json:"ns"`
	OffNs int64  `json:"recording_off_ns"`
	Kept  bool   `json:"kept"`
	Note  string `json:"note"`
}

// StartsReport says, for a trace whose ranks started apart in the
// recorded run (graph.Recorded.StartNs), whether the replay started them
// there or together.
type StartsReport struct {
	SpreadNs int64  `json:"recorded_spread_ns"` // between the first and the last rank's start
	Aligned  bool   `json:"aligned"`            // every rank started at 0
	Note     string `json:"note"`
}

// addRecorded puts the trace's recorded run beside the prediction in
// out: the job's and each rank's recorded span, the replay's span by the
// same definition (each rank from its start, graph.Graph.StartNs, to its
// finish; the longest), their ratio, the measurement gaps and the ranks'
// starts. It changes nothing when the trace has no recorded run.
func addRecorded(out *ReplayReport, g *graph.Graph) {
	rec := g.Recorded
	if !rec.Known() {
		return
	}
	for i := range out.Ranks {
		rk := &out.Ranks[i]
		rk.StartNs = g.RankStartNs(rk.Rank)
		rk.RecordedNs = rec.RankNs(rk.Rank)
		rk.GapNs = rec.GapNs(rk.Rank)
		out.PredictedNs = max(out.PredictedNs, rk.FinishNs-rk.StartNs)
	}
	out.RecordedNs = rec.JobNs()
	if out.RecordedNs > 0 {
		out.Ratio = float64(out.PredictedNs) / float64(out.RecordedNs)
	} else {
		out.PredictedNs = 0
	}
	if all, off := rec.TotalGapNs(); all > 0 {
		out.Gaps = &GapsReport{Ns: all, OffNs: off, Kept: rec.GapsKept, Note: rec.Note()}
	}
	if sp := rec.StartSpreadNs(); sp > 0 {
		st := &StartsReport{SpreadNs: sp, Aligned: g.StartNs == nil}
		if st.Aligned {
			st.Note = fmt.Sprintf("every rank started at 0, though the recorded run started them up to %s apart", graph.FormatMs(sp))
		} else {
			st.Note = fmt.Sprintf("each rank started where the recorded run started it, up to %s after the first (--align-starts: all at 0)", graph.FormatMs(sp))
		}
		out.Starts = st
	}
}

// RankReport is one rank's time and messages in a replay.
type RankReport struct {
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
	// The recorded run, for traces with timestamps (graph.Recorded),
	// and when the replay started the rank (graph.Graph.StartNs; its
	// predicted span is FinishNs − StartNs).
	RecordedNs int64 `json:"recorded_ns,omitempty"`
	GapNs      int64 `json:"gap_ns,omitempty"`
	StartNs    int64 `json:"start_ns,omitempty"`
}

// CriticalPathReport is a replay's critical path (package sim/critpath).
type CriticalPathReport struct {
	LengthNs  int64         `json:"length_ns"`
	ComputeNs int64         `json:"compute_ns"`
	CommNs    int64         `json:"comm_ns"`
	WaitNs    int64         `json:"wait_ns"`
	Segments  []PathSegment `json:"segments"`
}

// PathSegment is one segment of a critical path.
type PathSegment struct {
	Rank    int32  `json:"rank"`
	Peer    *int32 `json:"peer,omitempty"`
	Kind    string `json:"kind"`
	Op      string `json:"op"`
	StartNs int64  `json:"start_ns"`
	Ns      int64  `json:"ns"`
}

func newCriticalPathReport(g *graph.Graph, p *critpath.Path) *CriticalPathReport {
	out := &CriticalPathReport{LengthNs: p.Length(), Segments: make([]PathSegment, 0, len(p.Segments))}
	out.ComputeNs, out.CommNs, out.WaitNs = p.Shares()
	for _, s := range p.Segments {
		j := PathSegment{Rank: s.Rank, Kind: s.Kind.String(), Op: critpath.Describe(g, s), StartNs: s.Start, Ns: s.Duration()}
		if s.Peer >= 0 {
			peer := s.Peer
			j.Peer = &peer
		}
		out.Segments = append(out.Segments, j)
	}
	return out
}

// LinkReport is one link's statistics in a replay with a topology (links
// that carried at least one flow).
type LinkReport struct {
	ID          int32   `json:"id"`
	BandwidthGB float64 `json:"bandwidth_gb_s"`
	Bytes       int64   `json:"bytes"`
	Flows       int64   `json:"flows"`
	BusyNs      int64   `json:"busy_ns"`
	PeakFlows   int32   `json:"peak_flows"`
	Utilisation float64 `json:"utilisation"` // bytes / (bandwidth × makespan)
}

func linkReports(st []flow.LinkStats, t topo.Topology, makespan int64) []LinkReport {
	var out []LinkReport
	for id, s := range st {
		if s.Flows == 0 {
			continue
		}
		l := LinkReport{ID: int32(id), BandwidthGB: t.Link(int32(id)).Bandwidth, Bytes: s.Bytes, Flows: s.Flows, BusyNs: s.BusyNs, PeakFlows: s.Peak}
		if makespan > 0 {
			l.Utilisation = float64(s.Bytes) / (l.BandwidthGB * float64(makespan))
		}
		out = append(out, l)
	}
	return out
}

// ErrOption is wrapped by errors about an option of ReplayTrace or
// ReplayPolicy (a spec that does not parse, an option that does not apply
// or is out of range): the caller's mistake, not the trace's or the
// machine's.
var ErrOption = errors.New("option")

type optionError struct{ err error }

func (e optionError) Error() string        { return e.err.Error() }
func (e optionError) Unwrap() error        { return e.err }
func (e optionError) Is(target error) bool { return target == ErrOption }

// optionf returns an error wrapping ErrOption.
func optionf(format string, a ...any) error { return optionError{fmt.Errorf(format, a...)} }

// asOption wraps err, when not nil, as an ErrOption error.
func asOption(err error) error {
	if err == nil {
		return nil
	}
	return optionError{err}
}

// LoadGraph reads a trace in any format the importer registry reads and
// returns its execution graph, MPI traces lowered with the collective
// algorithms of coll (e.g. "allreduce=ring"; kinds left out take the
// format's choice; an unknown algorithm is an ErrOption error), and, for
// an MPI trace, the names of its communicators (nil for graph-level
// traces).
func LoadGraph(path string, opt importer.Options, coll string) (*graph.Graph, func(int32) string, error) {
	g, t, _, err := loadGraph(path, opt, coll)
	if err != nil {
		return nil, nil, err
	}
	if t.MPI == nil {
		return g, nil, nil
	}
	return g, t.CommName, nil
}

// loadGraph is LoadGraph that also returns the imported trace and the
// algorithms it was lowered with, which name a deadlock's operations by
// their MPI calls (deadlockInMPITerms) without reading the trace again:
// a pipe can be read only once.
func loadGraph(path string, opt importer.Options, coll string) (*graph.Graph, *importer.Trace, map[mpi.Kind]string, error) {
	algs, err := lower.ParseAlgorithms(coll)
	if err != nil {
		return nil, nil, nil, asOption(err)
	}
	t, err := importer.Read(path, opt)
	if err != nil {
		return nil, nil, nil, err
	}
	g, err := t.Lower(algs)
	if err != nil {
		return nil, nil, nil, err
	}
	return g, t, algs, nil
}

// ReplayTrace replays r.Trace on the engine and reports the makespan,
// each rank's time and messages, and what r asks for besides: the
// models' pricing and energy, link statistics, the critical path, the
// timeline and power files. A deadlock of an MPI-level trace is named in
// MPI terms (importer.Trace.OpDescriber).
//
// A plain replay of an Arrow execution-graph file or a GOAL file (no
// collective algorithms, network overrides, topology, critical path,
// timeline or models) reads it window by window (replayStreamed) where
// the file's form and the engine allow,
// so that its memory does not grow with the trace; otherwise, or where
// that replay fails, the whole graph is read and replayed, which gives the
// same report.
func ReplayTrace(r TraceReplay) (*ReplayReport, error) {
	if out, ok := replayStreamed(r); ok {
		return out, nil
	}
	return replayGraph(r)
}

// replayGraph is ReplayTrace on the whole graph.
func replayGraph(r TraceReplay) (*ReplayReport, error) {
	g, trace, algs, err := loadGraph(r.Trace, r.Import, r.Coll)
	if err != nil {
		return nil, err
	}
	var comms func(int32) string
	if trace.MPI != nil {
		comms = trace.CommName
	}
	net := r.Net
	opts := sim.Options{LibstdcxxOrder: r.Libstdcxx}
	if opts.Classes, err = netClasses(g, net, r.NetOverrides, comms); err != nil {
		return nil, err
	}
	if r.Topology != "" {
		top, err := topo.Parse(r.Topology)
		if err != nil {
			return nil, asOption(err)
		}
		m, err := topo.Map(r.Mapping, g.NumRanks(), top)
		if err != nil {
			return nil, asOption(err)
		}
		f := r.Flow
		opts.Flow = &sim.FlowNetwork{Topology: top, Mapping: m, Neighbours: f.Neighbours, CM02: f.CM02, BytesFirst: f.BytesFirst}
	}
	collTag := int32(0) // only lowered MPI traces tag collective messages
	if comms != nil {
		collTag = lower.CollectiveTagBase
	}
	// The message counts of a completed replay follow from the graph
	// (sim.CountMessages): nothing observes the replay unless a timeline
	// or the models need it.
	var tl *timeline.Writer
	var tlBuf *os.File
	var tlFrom int64 // the start of the timeline's window
	if t := r.Timeline; t.Path != "" {
		tlBuf, err = os.CreateTemp("", "capsim-timeline-*")
		if err != nil {
			return nil, err
		}
		defer os.Remove(tlBuf.Name())
		defer tlBuf.Close()
		tlOpt := timeline.Options{Format: timeline.FormatFor(t.Path), RanksPerNode: t.RanksPerNode}
		if tlOpt.Ranks, err = timeline.ParseRanks(t.Ranks, g.NumRanks()); err != nil {
			return nil, asOption(err)
		}
		if t.Window != "" {
			if tlOpt.From, tlOpt.To, err = timeline.ParseWindow(t.Window); err != nil {
				return nil, asOption(err)
			}
			tlFrom = tlOpt.From
		}
		if tl, err = timeline.NewWith(tlBuf, g, tlOpt); err != nil {
			return nil, asOption(err)
		}
		opts.Observer = tl
	}
	mr, err := r.Models.setup(g, &opts)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	var res *sim.Result
	var path *critpath.Path
	if r.CritPath {
		res, path, err = critpath.Run(g, net, opts)
	} else {
		res, err = sim.Run(g, net, opts)
	}
	wall := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Trace, deadlockInMPITerms(err, trace, algs))
	}
	mj, err := mr.finish(res, tl, r.Timeline.RanksPerNode, r.CapW)
	if err != nil {
		return nil, err
	}
	if tl != nil {
		if tlFrom > 0 && tlFrom >= res.Makespan {
			return nil, asOption(fmt.Errorf("--timeline-window %q starts at %s, not before the replay's end at %s: its timeline would show nothing",
				r.Timeline.Window, units.FormatNs(tlFrom), units.FormatNs(res.Makespan)))
		}
		if err := tl.Close(); err != nil {
			return nil, err
		}
		if err := copyAtomic(r.Timeline.Path, tlBuf); err != nil {
			return nil, err
		}
	}
	out := &ReplayReport{Trace: r.Trace, Network: net.String(), MakespanNs: res.Makespan, Operations: g.NumOps(),
		Events: res.Events, ReplayS: wall.Seconds(), Models: mj}
	if wall > 0 {
		out.EventsPerSec = float64(res.Events) / wall.Seconds()
	}
	if opts.Flow != nil {
		out.Topology = opts.Flow.Topology.String()
		out.FlowEvents = res.FlowEvents
		out.Links = linkReports(res.Links, opts.Flow.Topology, res.Makespan)
	}
	if path != nil {
		out.CriticalPath = newCriticalPathReport(g, path)
	}
	msgs := sim.CountMessages(g, collTag)
	for r, st := range res.Ranks {
		m := msgs[r]
		out.Ranks = append(out.Ranks, RankReport{Rank: r, FinishNs: st.Finish, ComputeNs: st.Compute, CommNs: st.Comm, WaitNs: st.Wait,
			MsgsSent: m.Sent, BytesSent: m.SentBytes, MsgsRecv: m.Recv, BytesRecv: m.RecvBytes,
			CollMsgsSent: m.CollSent, CollBytesSent: m.CollSentBytes, CollMsgsRecv: m.CollRecv, CollBytesRecv: m.CollRecvBytes})
	}
	addRecorded(out, g)
	return out, nil
}

// netClasses parses network overrides over net and classifies g's
// messages; nil when there are none.
func netClasses(g *graph.Graph, net network.LogGOPS, specs []string, comms func(int32) string) (*network.Classes, error) {
	var ovs []network.Override
	for _, s := range specs {
		o, err := network.ParseOverride(s, net)
		if err != nil {
			return nil, asOption(err)
		}
		ovs = append(ovs, o)
	}
	return network.Classify(g, net, ovs, comms)
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

// deadlockInMPITerms names the operations of a deadlocked replay of the
// imported trace t, lowered with algs, or of its truncated message, by
// their MPI calls (importer.Trace.OpDescriber).
func deadlockInMPITerms(err error, t *importer.Trace, algs map[mpi.Kind]string) error {
	return inTraceTerms(err, func() func(op int32) string { return t.OpDescriber(algs) })
}
