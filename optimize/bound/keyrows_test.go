package bound

import (
	"slices"
	"testing"
)

// TestCheckSearchesEveryOrigin checks that one round of Check adds the
// rows of every key event a broken path starts at, not only of the
// latest one into the event where the paths meet.
func TestCheckSearchesEveryOrigin(t *testing.T) {
	// Key events 0, 1, 5 and 6; 2, 3 and 4 pass precedence on: both 0
	// and 1 reach 5 through 2 and 3 (paths of length 3).
	const n = 7
	key := []bool{true, true, false, false, false, true, true}
	msgs := []fixedEdge{{from: 0, to: 2, w: 1}, {from: 1, to: 2, w: 1}, {from: 2, to: 3, w: 1}, {from: 3, to: 5, w: 1}, {from: 5, to: 6}}
	g := newEventGraph(n, make([]bool, n), msgs)
	kr := &KeyRows{g: g, key: key, at: map[[2]int32]int{}, sr: newSearcher(newSearchGraph(g, key, nil), key), visits: map[int32]int{}}
	// Both paths into 5 broken; the forward pass sees only 1's (later
	// at 2).
	times := []float64{0, 0.5, 0, 0, 0, 2.5, 2.5}
	changed := kr.Check(times, 1e-9)
	var got [][2]int
	for _, j := range changed {
		got = append(got, [2]int{kr.Rows[j].From, kr.Rows[j].To})
	}
	for _, want := range [][2]int{{0, 5}, {1, 5}} {
		if !slices.Contains(got, want) {
			t.Errorf("rows added %v, want one from %d to %d", got, want[0], want[1])
		}
	}
	for _, r := range kr.Rows {
		if r.To == 5 && r.Len != 3 {
			t.Errorf("row %d → 5 of length %g, want 3", r.From, r.Len)
		}
	}
	// Times that meet both rows break nothing.
	times = []float64{0, 0.5, 0, 0, 0, 3.5, 3.5}
	if c := kr.Check(times, 1e-9); len(c) > 0 {
		t.Errorf("Check on a feasible solution added %d rows", len(c))
	}
}
