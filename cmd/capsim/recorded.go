package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/capsim/capsim/traces/graph"
)

// addKeepGaps registers --keep-gaps, for the commands that import traces.
func addKeepGaps(fs *pflag.FlagSet, keep *bool) {
	fs.BoolVar(keep, "keep-gaps", false, "keep a trace's measurement gaps (recording switched off, time before MPI_Init returns and after MPI_Finalize is entered) as compute instead of leaving them out (docs/reference/recorded-run.md)")
}

// gapsJSON is what an import left out of (or kept in) a trace as
// measurement gaps, over all ranks.
type gapsJSON struct {
	Ns    int64  `json:"ns"`
	OffNs int64  `json:"recording_off_ns"`
	Kept  bool   `json:"kept"`
	Note  string `json:"note"`
}

// addRecorded puts the trace's recorded run beside the prediction in
// out: the job's and each rank's recorded span, their ratio and the
// measurement gaps. It changes nothing when the trace has none.
func addRecorded(out *replayJSON, rec *graph.Recorded) {
	if !rec.Known() {
		return
	}
	out.RecordedNs = rec.JobNs()
	if out.RecordedNs > 0 {
		out.Ratio = float64(out.MakespanNs) / float64(out.RecordedNs)
	}
	if all, off := rec.TotalGapNs(); all > 0 {
		out.Gaps = &gapsJSON{Ns: all, OffNs: off, Kept: rec.GapsKept, Note: rec.Note()}
	}
	for i := range out.Ranks {
		out.Ranks[i].RecordedNs = rec.RankNs(out.Ranks[i].Rank)
		out.Ranks[i].GapNs = rec.GapNs(out.Ranks[i].Rank)
	}
}

// printRecorded prints the recorded run beside the prediction: "recorded
// 5.89 ms, predicted 52.7 ms (ratio 8.95)" and the gaps' note.
func printRecorded(w io.Writer, out replayJSON) {
	if out.RecordedNs > 0 {
		fmt.Fprintf(w, "recorded %s, predicted %s (ratio %.3g)\n", graph.FormatMs(out.RecordedNs), graph.FormatMs(out.MakespanNs), out.Ratio)
	}
	if out.Gaps != nil {
		fmt.Fprintf(w, "note: %s\n", out.Gaps.Note)
	}
}
