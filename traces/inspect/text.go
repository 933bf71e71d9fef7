package inspect

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/capsim/capsim/traces/graph"
)

// MaxTextRanks is how many ranks' recorded spans WriteText lists; JSON
// lists all.
const MaxTextRanks = 16

// WriteText writes rep for people: one section per part of the summary.
func WriteText(w io.Writer, rep *Report) error {
	bw := &errWriter{w: w}
	bw.printf("trace     %s\nformat    %s (%s level)\nranks     %d\nevents    %d\n", rep.Trace, rep.Format, rep.Level, rep.Ranks, rep.Events)
	if r := rep.Recorded; r != nil {
		bw.printf("recorded  %s (longest rank, MPI_Init to MPI_Finalize)\n", graph.FormatMs(r.JobNs))
		if r.Note != "" {
			bw.printf("gaps      %s\n", r.Note)
		}
		if r.StartSpreadNs > 0 {
			bw.printf("starts    ranks started up to %s apart (docs/reference/recorded-run.md)\n", graph.FormatMs(r.StartSpreadNs))
		}
	}
	bw.printf("\noperations\n")
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tcount\tbytes\ttime_ns\t")
	for _, k := range rep.Operations {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t\n", k.Kind, k.Count, sum(k.Bytes), sum(k.TimeNs))
	}
	tw.Flush()
	m := rep.Messages
	bw.printf("\nmessages  %d sent, %s bytes; size min %d, median %d, max %d\n", m.Count, sum(m.Total), m.Min, m.Median, m.Max)
	if len(m.Histogram) > 0 {
		tw = tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "size ≤\tcount\t")
		for _, b := range m.Histogram {
			fmt.Fprintf(tw, "%s\t%d\t\n", strconv.FormatInt(b.Le, 10), b.Count)
		}
		tw.Flush()
	}
	if len(rep.Collectives) > 0 {
		bw.printf("\ncollectives\n")
		tw = tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "kind\tcomm\tcalls\tinstances\tbytes\ttime_ns\t")
		for _, c := range rep.Collectives {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t\n", c.Kind, c.Comm, c.Calls, c.Instances, sum(c.Bytes), sum(c.TimeNs))
		}
		tw.Flush()
	}
	if len(rep.Communicators) > 0 {
		bw.printf("\ncommunicators\n")
		tw = tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "id\tname\tsize\t")
		for _, c := range rep.Communicators {
			fmt.Fprintf(tw, "%d\t%s\t%d\t\n", c.ID, c.Name, c.Size)
		}
		tw.Flush()
	}
	if len(rep.Regions) > 0 {
		bw.printf("\nregions\n")
		tw = tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "region\tcount\ttime_ns\t")
		for _, r := range rep.Regions {
			name := r.Name
			if name == "" {
				name = "(none)"
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t\n", name, r.Count, sum(r.TimeNs))
		}
		tw.Flush()
	}
	if r := rep.Recorded; r != nil {
		bw.printf("\nrecorded run per rank\n")
		tw = tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "rank\tstart_ns\tspan_ns\trecording_off_ns\toutside_ns\t")
		for i, rr := range r.Ranks {
			if i == MaxTextRanks {
				break
			}
			fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t\n", rr.Rank, rr.StartNs, rr.SpanNs, rr.OffNs, rr.OutsideNs)
		}
		tw.Flush()
		if len(r.Ranks) > MaxTextRanks {
			bw.printf("... %d more ranks (--json lists all)\n", len(r.Ranks)-MaxTextRanks)
		}
	}
	return bw.err
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	_, e.err = e.w.Write(p)
	return len(p), nil
}

func (e *errWriter) printf(format string, a ...any) { fmt.Fprintf(e, format, a...) }

// sum prints a sum, a Saturated one as past int64.
func sum(v int64) string {
	if v == Saturated {
		return fmt.Sprintf(">%d", int64(Saturated))
	}
	return strconv.FormatInt(v, 10)
}
