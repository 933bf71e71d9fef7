package scenarios

import (
	"io"
	"os"
	"time"

	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/goal"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/importer"
)

// replayStreamed replays r from its file window by window
// (arrowtrace.GraphWindows or goal.Windows, sim.RunSource) and reports
// true, where r is a plain replay of an Arrow execution-graph file or a
// GOAL file in windowed form that the engine can stream (its ranks start
// together, or AlignStarts starts them so); false otherwise, or where the
// replay failed (replayGraph then gives the report or names the error).
func replayStreamed(r TraceReplay) (*ReplayReport, bool) {
	m := r.Models
	if r.Coll != "" || len(r.NetOverrides) > 0 || r.Topology != "" || r.CritPath || r.Timeline.Path != "" || r.CapW != 0 ||
		m.File != "" || m.Config != "" || len(m.Regions) > 0 || m.PowerFile != "" || m.Machine != "" || m.RanksPerDevice != 0 || m.RecordedGHz != 0 ||
		r.Import.Format != "" && r.Import.Format != "arrow" && r.Import.Format != "goal" {
		return nil, false
	}
	if st, err := os.Stat(r.Trace); err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	gw, ok := openWindows(r)
	if !ok {
		return nil, false
	}
	defer gw.Close()
	starts := gw.recorded.Starts()
	if starts != nil && !r.Import.AlignStarts {
		return nil, false // ranks that start apart: sim.RunSource starts every rank at 0
	}
	src := &countingSource{Source: gw, msgs: make([]sim.MessageStats, gw.NumRanks())}
	start := time.Now()
	res, err := sim.RunSource(src, r.Net, sim.Options{LibstdcxxOrder: r.Libstdcxx})
	wall := time.Since(start)
	if err != nil {
		return nil, false
	}
	out := &ReplayReport{Trace: r.Trace, Network: r.Net.String(), MakespanNs: res.Makespan, Operations: gw.NumOps(),
		Events: res.Events, ReplayS: wall.Seconds()}
	if wall > 0 {
		out.EventsPerSec = float64(res.Events) / wall.Seconds()
	}
	for rank, st := range res.Ranks {
		c := src.msgs[rank]
		out.Ranks = append(out.Ranks, RankReport{Rank: rank, FinishNs: st.Finish, ComputeNs: st.Compute, CommNs: st.Comm, WaitNs: st.Wait,
			MsgsSent: c.Sent, BytesSent: c.SentBytes, MsgsRecv: c.Recv, BytesRecv: c.RecvBytes})
	}
	addRecorded(out, &graph.Graph{Recorded: gw.recorded})
	return out, true
}

// fileWindows is a trace file read window by window.
type fileWindows struct {
	graph.Source
	io.Closer
	NumOps   func() int
	recorded *graph.Recorded
}

// openWindows opens r.Trace for reading window by window: an Arrow
// execution graph or a GOAL file in windowed form, in the format
// r.Import.Format names or the importer detects.
func openWindows(r TraceReplay) (fileWindows, bool) {
	format := r.Import.Format
	if format == "" {
		f, err := importer.Detect(r.Trace)
		if err != nil {
			return fileWindows{}, false
		}
		format = f.Name
	}
	switch format {
	case "arrow":
		if k, err := arrowtrace.Detect(r.Trace); err != nil || k != arrowtrace.KindGraph {
			return fileWindows{}, false
		}
		gw, err := arrowtrace.OpenGraphWindows(r.Trace)
		if err != nil {
			return fileWindows{}, false
		}
		return fileWindows{Source: gw, Closer: gw, NumOps: func() int { return int(gw.NumOps()) }, recorded: gw.Recorded}, true
	case "goal":
		gw, err := goal.OpenWindows(r.Trace)
		if err != nil {
			return fileWindows{}, false
		}
		return fileWindows{Source: gw, Closer: gw, NumOps: gw.NumOps}, true
	}
	return fileWindows{}, false
}

// countingSource counts the messages of the windows it hands out, as
// sim.CountMessages counts a graph's: the engine reads each window once,
// so a replay that completes has counted every send once.
type countingSource struct {
	graph.Source
	msgs []sim.MessageStats
}

func (c *countingSource) Window(r int, first int32, max int) (graph.Window, error) {
	w, err := c.Source.Window(r, first, max)
	if err != nil {
		return w, err
	}
	s := &c.msgs[r]
	for i, k := range w.Kind {
		if k != graph.Send {
			continue
		}
		d := &c.msgs[w.Peer[i]]
		s.Sent++
		s.SentBytes += w.Size[i]
		d.Recv++
		d.RecvBytes += w.Size[i]
	}
	return w, nil
}
