package dumpi

import (
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/traces/mpi"
)

// TestRealTraceStamps checks the recorded times of every event of the
// real traces: one per event, each known, in program order, MPI calls as
// long as their Duration and compute ending where the next call starts.
func TestRealTraceStamps(t *testing.T) {
	base := testenv.Shared(t, "traces/dumpi")
	for _, tc := range realTraces {
		t.Run(tc.dir, func(t *testing.T) {
			tr, err := Read(filepath.Join(base, tc.dir), Options{Stamps: true})
			if err != nil {
				t.Fatal(err)
			}
			if plain, err := Read(filepath.Join(base, tc.dir), Options{}); err != nil || plain.Stamped() || plain.NumEvents() != tr.NumEvents() {
				t.Fatalf("without Stamps: %v", err)
			}
			for r, rk := range tr.Ranks {
				if len(rk.Stamps) != len(rk.Events) {
					t.Fatalf("rank %d: %d stamps for %d events", r, len(rk.Stamps), len(rk.Events))
				}
				prev := int64(-1 << 62)
				for i, s := range rk.Stamps {
					e := rk.Events[i]
					switch {
					case !s.Known() || s.End < s.Start || s.Start < prev:
						t.Fatalf("%s: stamp %v after %d", tr.Describe(r, i), s, prev)
					case e.Duration > 0 && s.End-s.Start != e.Duration:
						t.Fatalf("%s: stamp %v, duration %d", tr.Describe(r, i), s, e.Duration)
					case e.Kind == mpi.Compute && i+1 < len(rk.Stamps) && s.End != rk.Stamps[i+1].Start:
						t.Fatalf("%s: compute ends at %d, the next call starts at %d", tr.Describe(r, i), s.End, rk.Stamps[i+1].Start)
					}
					prev = s.Start
				}
			}
		})
	}
}
