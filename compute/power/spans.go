package power

import (
	"fmt"

	"github.com/capsim/capsim/compute"
)

// Span is a busy span [Start, End) in ns of a rank running at Config.
type Span struct {
	Start, End int64
	Config     compute.Config
}

// FromSpans turns a rank's busy spans into power intervals, pricing each
// span's configuration with watts (e.g. a P-state table lookup, or the
// Watts of a compute.Prediction).
func FromSpans(spans []Span, watts func(compute.Config) (float64, error)) ([]Interval, error) {
	out := make([]Interval, len(spans))
	for i, s := range spans {
		w, err := watts(s.Config)
		if err != nil {
			return nil, fmt.Errorf("power: span %d (%s): %w", i, s.Config, err)
		}
		out[i] = Interval{Start: s.Start, End: s.End, Watts: w}
	}
	return out, nil
}

// PStateWatts returns a watts function for FromSpans that looks the CPU
// frequency up in t and multiplies by the thread count (per-core active
// power; Threads 0 counts as 1).
func PStateWatts(t PStates) func(compute.Config) (float64, error) {
	return func(c compute.Config) (float64, error) {
		if !(c.CPUFreqGHz > 0) {
			return 0, fmt.Errorf("no CPU frequency")
		}
		w, _ := t.At(c.CPUFreqGHz)
		return w * float64(max(c.Threads, 1)), nil
	}
}
