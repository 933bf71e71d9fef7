package sim

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// TestEventQueue checks the event queue against a sorted list under
// random pushes and pops: events leave in (time, seq) order whether they
// went to the sorted run or to the heap, and peek and peekTime agree
// with pop.
func TestEventQueue(t *testing.T) {
	for _, tc := range []struct {
		name  string
		times uint64  // times are drawn in [now, now+times): small ranges tie
		push  float64 // probability that a step pushes rather than pops
		steps int
	}{
		{"ties", 3, 0.55, 20000},
		{"mostly in order", 1, 0.5, 20000},
		{"spread", 1 << 30, 0.6, 50000},
		{"growing", 1000, 0.9, 20000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(2, tc.times))
			var q eventQueue
			q.init(16)
			var want []event
			now, seq := uint64(0), uint64(0)
			for step := range tc.steps {
				if rng.Float64() < tc.push || len(want) == 0 {
					ev := event{time: now + rng.Uint64N(tc.times), seq: seq<<3 | uint64(evMsg), op: int32(step), rank: int32(step % 7)}
					seq++
					q.push(ev)
					i := sort.Search(len(want), func(i int) bool { return less(&ev, &want[i]) })
					want = append(want, event{})
					copy(want[i+1:], want[i:])
					want[i] = ev
					continue
				}
				if !q.queued() {
					t.Fatalf("step %d: queue empty, want %d events", step, len(want))
				}
				if got := *q.peek(); got != want[0] {
					t.Fatalf("step %d: peek = %+v, want %+v", step, got, want[0])
				}
				if got := q.peekTime(); got != want[0].time {
					t.Fatalf("step %d: peekTime = %d, want %d", step, got, want[0].time)
				}
				if got := q.pop(); got != want[0] {
					t.Fatalf("step %d: pop = %+v, want %+v", step, got, want[0])
				}
				now = want[0].time // the loop never queues into the past
				want = want[1:]
			}
			for len(want) > 0 {
				if got := q.pop(); got != want[0] {
					t.Fatalf("draining: pop = %+v, want %+v", got, want[0])
				}
				want = want[1:]
			}
			if q.queued() {
				t.Fatal("queue not empty after draining")
			}
		})
	}
}
