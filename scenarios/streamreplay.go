package scenarios

import (
	"os"
	"time"

	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/graph"
)

// replayStreamed replays r from its file window by window
// (arrowtrace.GraphWindows, sim.RunSource) and reports true, where r is a
// plain replay of an Arrow execution-graph file that the engine can
// stream (its ranks start together, or AlignStarts starts them so);
// false otherwise, or where the replay failed (replayGraph then
// gives the report or names the error).
func replayStreamed(r TraceReplay) (*ReplayReport, bool) {
	m := r.Models
	if r.Coll != "" || len(r.NetOverrides) > 0 || r.Topology != "" || r.CritPath || r.Timeline.Path != "" || r.CapW != 0 ||
		m.File != "" || m.Config != "" || len(m.Regions) > 0 || m.PowerFile != "" || m.Machine != "" || m.RanksPerDevice != 0 || m.RecordedGHz != 0 ||
		r.Import.Format != "" && r.Import.Format != "arrow" {
		return nil, false
	}
	if st, err := os.Stat(r.Trace); err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	if k, err := arrowtrace.Detect(r.Trace); err != nil || k != arrowtrace.KindGraph {
		return nil, false
	}
	gw, err := arrowtrace.OpenGraphWindows(r.Trace)
	if err != nil {
		return nil, false
	}
	defer gw.Close()
	starts := gw.Recorded.Starts()
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
	out := &ReplayReport{Trace: r.Trace, Network: r.Net.String(), MakespanNs: res.Makespan, Operations: int(gw.NumOps()),
		Events: res.Events, ReplayS: wall.Seconds()}
	if wall > 0 {
		out.EventsPerSec = float64(res.Events) / wall.Seconds()
	}
	for rank, st := range res.Ranks {
		c := src.msgs[rank]
		out.Ranks = append(out.Ranks, RankReport{Rank: rank, FinishNs: st.Finish, ComputeNs: st.Compute, CommNs: st.Comm, WaitNs: st.Wait,
			MsgsSent: c.Sent, BytesSent: c.SentBytes, MsgsRecv: c.Recv, BytesRecv: c.RecvBytes})
	}
	addRecorded(out, &graph.Graph{Recorded: gw.Recorded})
	return out, true
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
