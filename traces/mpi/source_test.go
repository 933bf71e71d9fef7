package mpi

import (
	"fmt"
	"testing"
)

// TestSource: Mark gives every event added since the last Mark the
// position read, and Source names it by the trace's kind of file.
func TestSource(t *testing.T) {
	build := func(records, rows, stamped, where bool) *Trace {
		tr := NewTrace(2)
		tr.Records, tr.Rows = records, rows
		if where {
			tr.Where = func(r, i int) string { return fmt.Sprintf("loc %d tick %d", r, 10*i) }
		}
		tr.Ranks[0].File = "r0"
		tr.Append(0, Event{Kind: Compute})
		tr.Append(0, Event{Kind: Barrier})
		tr.Mark(0, 7) // a line that gave two events
		tr.Mark(0, 8) // a line that gave none
		if stamped {
			tr.AppendStamped(0, Event{Kind: Barrier}, Stamp{Start: 1_500_000_000, End: 1_600_000_000})
		} else {
			tr.Append(0, Event{Kind: Barrier})
		}
		tr.Mark(0, 9)
		tr.Append(0, Event{Kind: Barrier}) // added at the rank's end: no position
		tr.Append(1, Event{Kind: Barrier}) // rank 1 has no file
		return tr
	}
	for _, tc := range []struct {
		name                          string
		records, rows, stamped, where bool
		want                          []string // Source of rank 0's events 0..3 and of rank 1's event 0
	}{
		{"lines", false, false, false, false, []string{"r0:7", "r0:7", "r0:9", "", ""}},
		{"records", true, false, false, false, []string{"r0 record 7", "r0 record 7", "r0 record 9", "", ""}},
		{"records with time", true, false, true, false, []string{"r0 record 7", "r0 record 7", "r0 record 9, time 1.500000000 s", "", ""}},
		{"arrow rows", false, true, false, false, []string{"r0 row 0", "r0 row 1", "r0 row 2", "r0 row 3", ""}},
		{"where (OTF2)", true, false, true, true, []string{"loc 0 tick 0", "loc 0 tick 10", "loc 0 tick 20", "loc 0 tick 30", "loc 1 tick 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := build(tc.records, tc.rows, tc.stamped, tc.where)
			got := []string{tr.Source(0, 0), tr.Source(0, 1), tr.Source(0, 2), tr.Source(0, 3), tr.Source(1, 0)}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("Source %d = %q, want %q", i, got[i], tc.want[i])
				}
			}
			if s := tr.Source(0, 4); s != "" {
				t.Errorf("Source past the end = %q", s)
			}
			if w := tr.WithoutSources(); w.Source(0, 0) != "" {
				t.Errorf("WithoutSources still names %q", w.Source(0, 0))
			}
			if s := tr.Source(0, 0); s != tc.want[0] {
				t.Errorf("WithoutSources changed t: Source %q", s)
			}
		})
	}
	tr := build(false, false, false, false)
	if got, want := tr.Describe(0, 1), "rank 0: MPI_Barrier 0 bytes on comm world (r0:7)"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	if got, want := tr.Describe(0, 3), "rank 0: MPI_Barrier 0 bytes on comm world (trace row 3)"; got != want {
		t.Errorf("Describe without a position = %q, want %q", got, want)
	}
}
