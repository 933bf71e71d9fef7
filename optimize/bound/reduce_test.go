package bound

import (
	"math/rand/v2"
	"reflect"
	"slices"
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

// TestEventGraphOf checks the one-pass event graph of an engine LP's
// messages against messageEdges then newEventGraph, on random messages
// with repeated pairs (some tails with over 16 edges), messages within one
// event (of positive, zero and negative length) and against the order.
func TestEventGraphOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	for k := 0; k < 300; k++ {
		nv := 2 + rng.IntN(300)
		event := make([]int, nv)
		n := 1
		for v := 1; v < nv; v++ {
			if rng.IntN(3) > 0 {
				n++
			}
			event[v] = n - 1
		}
		chained := make([]bool, n)
		for e := range chained {
			chained[e] = rng.IntN(3) == 0
		}
		if k%5 == 0 {
			chained = nil
		}
		var ms []Message
		for j := rng.IntN(6 * nv); j > 0; j-- {
			src := rng.IntN(nv)
			dst := src + rng.IntN(min(nv-src, 8))
			switch rng.IntN(10) {
			case 0:
				dst = rng.IntN(nv)
			case 1:
				src = rng.IntN(max(1, nv/10)) // a few tails with many edges
			}
			ms = append(ms, Message{Src: src, Dst: dst, Time: float64(rng.IntN(7)-2) * 1e-6})
		}
		key1, key2 := make([]bool, n), make([]bool, n)
		var msgs []fixedEdge
		back1 := messageEdges(ms, nil, func(v int) int32 { return int32(event[v]) }, false, key1, &msgs)
		g1 := newEventGraph(n, chained, msgs)
		g2, back2 := eventGraphOf(n, chained, ms, event, key2)
		if !slices.Equal(back1, back2) || !slices.Equal(key1, key2) || !slices.Equal(g1.start, g2.start) || !slices.Equal(g1.edges, g2.edges) {
			t.Fatalf("case %d (%d events, %d messages): %d edges, want %d; %d back, want %d", k, n, len(ms), len(g2.edges), len(g1.edges), len(back2), len(back1))
		}
	}
}
