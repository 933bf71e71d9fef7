package bound

import (
	"testing"

	"github.com/capsim/capsim/compute/power"
)

// Two tasks [0, 100) each need 40 ns at +4 W on a 16 W floor under a
// 20 W cap: only one can be fast at a time, so the second takes [40, 80).
// With 60 ns each, 120 ns of faster stretch cannot fit in 100: the job that
// starts second by rank loses, keeping what it got.
func TestPlaceFast(t *testing.T) {
	floor := power.Step{Times: []int64{0, 100}, Watts: []float64{16, 8}, End: 150}
	jobs := []FastJob{{Task: 0, Start: 0, End: 99, Need: 40, DW: 4}, {Task: 1, Start: 0, End: 99, Need: 40, DW: 4}}
	PlaceFast(floor, 20, jobs)
	if jobs[0].Need != 0 || jobs[1].Need != 0 {
		t.Fatalf("left %d and %d ns unplaced", jobs[0].Need, jobs[1].Need)
	}
	if p := jobs[0].Pieces; len(p) != 1 || p[0] != [2]int64{0, 40} {
		t.Errorf("job 0 pieces %v, want [0 40]", p)
	}
	if p := jobs[1].Pieces; len(p) != 1 || p[0] != [2]int64{40, 80} {
		t.Errorf("job 1 pieces %v, want [40 80]", p)
	}
	jobs = []FastJob{{Task: 0, Start: 0, End: 99, Need: 60, DW: 4}, {Task: 1, Start: 0, End: 99, Need: 60, DW: 4}}
	PlaceFast(floor, 20, jobs)
	if got := jobs[0].Need + jobs[1].Need; got != 21 {
		t.Errorf("left %d + %d ns unplaced, want 21 in all (120 − 99)", jobs[0].Need, jobs[1].Need)
	}
	// A cap with room for both: both fast from the start.
	jobs = []FastJob{{Task: 0, Start: 0, End: 99, Need: 60, DW: 4}, {Task: 1, Start: 10, End: 99, Need: 60, DW: 4}}
	PlaceFast(floor, 24, jobs)
	if jobs[0].Pieces[0] != [2]int64{0, 60} || jobs[1].Pieces[0] != [2]int64{10, 70} {
		t.Errorf("pieces %v %v", jobs[0].Pieces, jobs[1].Pieces)
	}
}
