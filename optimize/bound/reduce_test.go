package bound

import (
	"reflect"
	"testing"
)

// Six events, keys 0, 3 and 5 (a task runs 3 → 5 in at least 1 s);
// messages 0→1 (2 s), 2→3 (1 s), 1→4 (5 s), and the chain. From event 0
// the longest paths through events 1, 2 and 4 reach 3 in 3 s and 5 in
// 7 s; from event 3, event 5 in 0 s, which the task implies. Times filled
// in from t = (0, ·, ·, 3, ·, 7): event 1 at 2, event 2 at 2 (the chain),
// event 4 at 7 (the 5 s message, not the chain from 3).
func TestReduceEventsHand(t *testing.T) {
	msgs := []fixedEdge{{from: 0, to: 1, w: 2}, {from: 2, to: 3, w: 1}, {from: 1, to: 4, w: 5}}
	g := newEventGraph(6, nil, msgs)
	key := []bool{true, false, false, true, false, true}
	tasks := []fixedEdge{{from: 3, to: 5, w: 1, task: true}}
	rows, ok := reduceEvents(g, key, tasks)
	if !ok {
		t.Fatal("reduction gave up")
	}
	want := []fixedEdge{{from: 0, to: 3, w: 3}, {from: 0, to: 5, w: 7}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows %+v, want %+v", rows, want)
	}
	times := []float64{0, -1, -1, 3, -1, 7}
	g.fill(key, times)
	if w := []float64{0, 2, 2, 3, 7, 7}; !reflect.DeepEqual(times, w) {
		t.Errorf("filled times %v, want %v", times, w)
	}
	// With event 4 a key too, 0 → 5 is no longer one row: 0 → 4 (7 s)
	// and 4 → 5 (the chain, 0 s) replace it, and 3 → 4 (0 s) is implied
	// by neither, so it stays.
	key[4] = true
	rows, _ = reduceEvents(g, key, tasks)
	want = []fixedEdge{{from: 0, to: 3, w: 3}, {from: 0, to: 4, w: 7}, {from: 3, to: 4}, {from: 4, to: 5}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("with event 4 a key: rows %+v, want %+v", rows, want)
	}
}
