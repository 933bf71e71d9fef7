package scenarios

import (
	"fmt"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/importer"
)

// recordedSource is the recorded run of a sweep's trace workload as
// scenario.json keeps it (SourceFile), for the report.
type recordedSource struct {
	JobNs  int64   `json:"job_ns"`
	RankNs []int64 `json:"rank_ns,omitempty"`
	GapNs  int64   `json:"gap_ns,omitempty"`
	OffNs  int64   `json:"recording_off_ns,omitempty"`
	Kept   bool    `json:"gaps_kept,omitempty"`
	Note   string  `json:"note,omitempty"`
	// StartSpreadNs is the time between the first and the last rank's
	// recorded start; Aligned says the sweep started every rank at 0
	// (workload.align_starts) instead of at its recorded start.
	StartSpreadNs int64 `json:"start_spread_ns,omitempty"`
	Aligned       bool  `json:"starts_aligned,omitempty"`
}

// importOptions are the importer's options for the workload's trace.
func (w *Workload) importOptions() importer.Options {
	o := importer.Options{Format: w.Format}.WithKeepGaps(w.KeepGaps).WithAlignStarts(w.AlignStarts)
	o.Chakra.Replicate = w.Replicate
	return o
}

// recordedRun reads the recorded run of a trace workload: nil for
// generated workloads, traces without one, and traces that do not read
// (the sweep then reports why).
func (s *Scenario) recordedRun() *recordedSource {
	if s.Workload.Trace == "" {
		return nil
	}
	t, err := importer.Read(s.path(s.Workload.Trace), s.Workload.importOptions())
	if err != nil {
		return nil
	}
	var rec *graph.Recorded
	if t.MPI != nil {
		rec = t.MPI.Recorded
	} else if t.Graph != nil {
		rec = t.Graph.Recorded
	}
	if !rec.Known() {
		return nil
	}
	all, off := rec.TotalGapNs()
	src := &recordedSource{JobNs: rec.JobNs(), RankNs: rec.SpanNs, GapNs: all, OffNs: off, Kept: rec.GapsKept, Note: rec.Note(),
		StartSpreadNs: rec.StartSpreadNs()}
	src.Aligned = src.StartSpreadNs > 0 && s.Workload.AlignStarts
	return src
}

// recordedLine describes the recorded run for the report's summary: the
// one the sweep saved, else the trace's; "" when there is none.
func (s *Scenario) recordedLine() string {
	r := s.recorded
	if r == nil {
		r = s.recordedRun()
	}
	if r == nil {
		return ""
	}
	line := ""
	if r.JobNs > 0 {
		line = fmt.Sprintf("%s (longest rank, from MPI_Init's return to MPI_Finalize's entry)", graph.FormatMs(r.JobNs))
	}
	if r.Note != "" {
		if line != "" {
			line += "; "
		}
		line += r.Note
	}
	if r.StartSpreadNs > 0 {
		if line != "" {
			line += "; "
		}
		how := "each replayed from its recorded start"
		if r.Aligned {
			how = "replayed all from 0 (workload.align_starts)"
		}
		line += fmt.Sprintf("ranks started up to %s apart, %s", graph.FormatMs(r.StartSpreadNs), how)
	}
	return line
}
