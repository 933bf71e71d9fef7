//go:build cgo && !nootf2

package otf2

import (
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/traces/mpi"
)

// TestRealTraceStamps checks the recorded times of every event of the
// real traces: one per event, each known, in program order, and MPI calls
// as long as their Duration.
func TestRealTraceStamps(t *testing.T) {
	base := testenv.Shared(t, "traces/otf2")
	for _, name := range realTraces {
		t.Run(name, func(t *testing.T) {
			tr, err := Read(filepath.Join(base, name), Options{Stamps: true})
			if err != nil {
				t.Fatal(err)
			}
			checkStamps(t, tr)
			plain, err := Read(filepath.Join(base, name), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if plain.Stamped() || plain.NumEvents() != tr.NumEvents() {
				t.Errorf("without Stamps: stamped %v, %d events; want false, %d", plain.Stamped(), plain.NumEvents(), tr.NumEvents())
			}
		})
	}
}

func checkStamps(t *testing.T, tr *mpi.Trace) {
	t.Helper()
	for r, rk := range tr.Ranks {
		if len(rk.Stamps) != len(rk.Events) {
			t.Fatalf("rank %d: %d stamps for %d events", r, len(rk.Stamps), len(rk.Events))
		}
		prev := int64(-1 << 62)
		for i, s := range rk.Stamps {
			e := rk.Events[i]
			switch {
			case !s.Known() || s.End < s.Start:
				t.Fatalf("%s: stamp %v", tr.Describe(r, i), s)
			case s.Start < prev:
				t.Fatalf("%s: starts at %d, before the previous event (%d)", tr.Describe(r, i), s.Start, prev)
			case e.Kind != mpi.Compute && e.Duration > 0 && s.End-s.Start != e.Duration:
				t.Fatalf("%s: stamp %v, duration %d", tr.Describe(r, i), s, e.Duration)
			case e.Kind == mpi.Compute && s.End-s.Start < e.Duration:
				t.Fatalf("%s: compute stamp %v shorter than its duration %d", tr.Describe(r, i), s, e.Duration)
			}
			prev = s.Start
		}
	}
}
