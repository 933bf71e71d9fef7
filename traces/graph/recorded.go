package graph

import "fmt"

// Recorded is what a trace says about the run it was recorded from: how
// long each rank ran and how much of its timeline the trace could not
// account for. Importers of formats with timestamps (OTF2, DUMPI,
// liballprof) fill it; generated traces and formats without time (GOAL,
// SimGrid time-independent traces) leave it nil.
//
// A rank's recorded span is the time from the return of its MPI_Init to
// the entry of its MPI_Finalize, the measured run time that ATLAHS (Shen
// et al., "ATLAHS: An Application-centric Network Simulator Toolchain for
// AI, HPC, and Distributed Storage") compares its simulations with; a rank without MPI_Finalize
// runs to its last recorded event, and one without MPI_Init from its first
// one. The job's span is the longest rank's. Spans are in ns; 0 means the
// trace does not say.
//
// A rank's recorded start is when, in the recorded run, the first of its
// events the trace holds began (the return of its MPI_Init where the
// gaps are left out, its first event where they are kept), relative to
// the earliest rank's: ranks launched apart started their MPI_Init at
// different times, and the earliest one's span includes waiting for the
// others. A replay starts each rank there unless told to start them
// together (Graph.StartNs).
//
// Measurement gaps are stretches of a rank's timeline that hold no
// recorded work: the time with recording switched off (Score-P's
// MEASUREMENT_OFF ... ON) and the time before MPI_Init returned or after
// MPI_Finalize was entered. They are not computation, so importers leave
// them out of the trace unless asked to keep them (then they become
// compute events, as the recorded timeline has them); either way their
// length is kept here.
type Recorded struct {
	// SpanNs is each rank's recorded span in ns (0: unknown). It is nil
	// or has one entry per rank.
	SpanNs []int64
	// StartNs is each rank's recorded start in ns after the earliest
	// rank's (so its least entry is 0). It is nil (unknown, or every
	// rank started together) or has one entry per rank.
	StartNs []int64
	// OffNs is each rank's time with recording switched off, in ns. It
	// is nil (none) or has one entry per rank.
	OffNs []int64
	// OutsideNs is each rank's time before MPI_Init returned and after
	// MPI_Finalize was entered, in ns. It is nil (none) or has one entry
	// per rank.
	OutsideNs []int64
	// GapsKept says the gaps became compute events of the trace; when
	// false they were left out.
	GapsKept bool
}

// JobNs returns the job's recorded span: the longest rank span, or 0 when
// r is nil or no rank's span is known.
func (r *Recorded) JobNs() int64 {
	if r == nil {
		return 0
	}
	var m int64
	for _, s := range r.SpanNs {
		m = max(m, s)
	}
	return m
}

// RankNs returns rank's recorded span, 0 when unknown.
func (r *Recorded) RankNs(rank int) int64 {
	if r == nil || rank < 0 || rank >= len(r.SpanNs) {
		return 0
	}
	return r.SpanNs[rank]
}

// GapNs returns rank's measurement gaps (recording off and outside
// MPI_Init … MPI_Finalize) in ns.
func (r *Recorded) GapNs(rank int) int64 {
	if r == nil {
		return 0
	}
	var g int64
	if rank >= 0 && rank < len(r.OffNs) {
		g += r.OffNs[rank]
	}
	if rank >= 0 && rank < len(r.OutsideNs) {
		g += r.OutsideNs[rank]
	}
	return g
}

// TotalGapNs returns the measurement gaps of all ranks together, and of
// those the time with recording switched off.
func (r *Recorded) TotalGapNs() (all, off int64) {
	if r == nil {
		return 0, 0
	}
	for _, v := range r.OffNs {
		off += v
	}
	all = off
	for _, v := range r.OutsideNs {
		all += v
	}
	return all, off
}

// StartSpreadNs returns the time between the first and the last rank's
// recorded start, 0 when r is nil or has no starts.
func (r *Recorded) StartSpreadNs() int64 {
	if r == nil {
		return 0
	}
	var m int64
	for _, s := range r.StartNs {
		m = max(m, s)
	}
	return m
}

// Starts returns each rank's recorded start (StartNs) for a replay that
// starts ranks there: nil when r is nil or every rank started together.
func (r *Recorded) Starts() []int64 {
	if r.StartSpreadNs() == 0 {
		return nil
	}
	return r.StartNs
}

// RelativeStarts returns at[r] less the least entry: each rank's start
// after the earliest's, for Recorded.StartNs. It returns nil for a nil at
// or when every entry is equal.
func RelativeStarts(at []int64) []int64 {
	if len(at) == 0 {
		return nil
	}
	lo := at[0]
	for _, t := range at {
		lo = min(lo, t)
	}
	out := make([]int64, len(at))
	spread := false
	for r, t := range at {
		if d := t - lo; d >= 0 {
			out[r] = min(d, MaxTimeNs)
		} else {
			out[r] = MaxTimeNs // t − lo overflowed
		}
		spread = spread || out[r] != 0
	}
	if !spread {
		return nil
	}
	return out
}

// Known reports whether r says anything: a span, a gap or a start.
func (r *Recorded) Known() bool {
	if r == nil {
		return false
	}
	all, _ := r.TotalGapNs()
	return r.JobNs() > 0 || all > 0 || r.StartSpreadNs() > 0
}

// Validate checks that r fits a trace of n ranks: each slice nil or of n
// entries, and every time in 0..MaxTimeNs.
func (r *Recorded) Validate(n int) error {
	if r == nil {
		return nil
	}
	for _, c := range []struct {
		name string
		v    []int64
	}{{"span", r.SpanNs}, {"start", r.StartNs}, {"recording-off", r.OffNs}, {"outside MPI_Init…MPI_Finalize", r.OutsideNs}} {
		if c.v == nil {
			continue
		}
		if len(c.v) != n {
			return fmt.Errorf("%w: %d recorded %s times for %d ranks", ErrInvalid, len(c.v), c.name, n)
		}
		for rank, ns := range c.v {
			if ns < 0 || ns > MaxTimeNs {
				return fmt.Errorf("%w: rank %d: recorded %s time %d ns is not in 0..%d", ErrInvalid, rank, c.name, ns, MaxTimeNs)
			}
		}
	}
	return nil
}

// ValidateStarts checks per-rank start times (Graph.StartNs) for n
// ranks: nil, or n entries in 0..MaxTimeNs.
func ValidateStarts(start []int64, n int) error {
	if start == nil {
		return nil
	}
	if len(start) != n {
		return fmt.Errorf("%w: %d rank start times for %d ranks", ErrInvalid, len(start), n)
	}
	for r, ns := range start {
		if ns < 0 || ns > MaxTimeNs {
			return fmt.Errorf("%w: rank %d: start time %d ns is not in 0..%d", ErrInvalid, r, ns, MaxTimeNs)
		}
	}
	return nil
}

// Note returns a one-line description of the gaps left out of (or kept
// in) the trace, such as "dropped 55.2 ms of measurement gaps (recording
// off 55.1 ms; before MPI_Init or after MPI_Finalize 0.1 ms) over 64
// ranks", or "" when there are none.
func (r *Recorded) Note() string {
	all, off := r.TotalGapNs()
	if all == 0 {
		return ""
	}
	verb := "dropped"
	if r.GapsKept {
		verb = "kept as compute"
	}
	return fmt.Sprintf("%s %s of measurement gaps (recording off %s; before MPI_Init or after MPI_Finalize %s) over %d ranks",
		verb, FormatMs(all), FormatMs(off), FormatMs(all-off), max(len(r.OffNs), len(r.OutsideNs)))
}

// FormatMs writes ns as milliseconds to three significant digits, or one
// decimal from 100 ms on ("5.89 ms", "0.0123 ms", "1234.5 ms").
func FormatMs(ns int64) string {
	ms := float64(ns) / 1e6
	if ms >= 100 {
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.3g ms", ms)
}
