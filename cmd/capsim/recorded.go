package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/capsim/capsim/scenarios"
	"github.com/capsim/capsim/traces/graph"
)

// addKeepGaps registers --keep-gaps, for the commands that import traces.
func addKeepGaps(fs *pflag.FlagSet, keep *bool) {
	fs.BoolVar(keep, "keep-gaps", false, "keep a trace's measurement gaps (recording switched off, time before MPI_Init returns and after MPI_Finalize is entered) as compute instead of leaving them out (docs/reference/recorded-run.md)")
}

// addAlignStarts registers --align-starts, for the commands that replay
// traces or bound them.
func addAlignStarts(fs *pflag.FlagSet, align *bool) {
	fs.BoolVar(align, "align-starts", false, "start every rank at 0 instead of where the recorded run started it (a trace whose ranks returned from MPI_Init apart starts each at its recorded start by default; docs/reference/recorded-run.md)")
}

// printRecorded prints the recorded run beside the prediction: "recorded
// 5.89 ms, predicted 52.7 ms (ratio 8.95)" and the gaps' note.
func printRecorded(w io.Writer, out *scenarios.ReplayReport) {
	if out.RecordedNs > 0 {
		fmt.Fprintf(w, "recorded %s, predicted %s (ratio %.3g)\n", graph.FormatMs(out.RecordedNs), graph.FormatMs(out.PredictedNs), out.Ratio)
	}
	if out.Gaps != nil {
		fmt.Fprintf(w, "note: %s\n", out.Gaps.Note)
	}
	if out.Starts != nil {
		fmt.Fprintf(w, "note: %s\n", out.Starts.Note)
	}
}
