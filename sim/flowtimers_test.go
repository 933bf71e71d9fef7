package sim

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// TestFlowTimers checks the flows' timer heap against a plain list under
// random sets, removals and pops: the first timer is always the least on
// (time, seq) whether it sits in the run or the heap, and set and remove report whether the flow had a timer.
func TestFlowTimers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flows int
		times uint64 // timers are drawn in [0, times): small ranges tie on time
		steps int
	}{
		{"one flow", 1, 10, 200},
		{"ties", 50, 4, 5000},
		{"spread", 300, 1 << 40, 20000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tc.flows)))
			var ts flowTimers
			want := map[int32]flowTimer{}
			seq, now := uint64(0), uint64(0)
			for step := range tc.steps {
				id := int32(rng.IntN(tc.flows))
				_, had := want[id]
				switch r := rng.IntN(10); {
				case r < 6:
					x := flowTimer{time: now + rng.Uint64N(tc.times), seq: seq<<3 | uint64(evFlow), id: id}
					seq++
					if got := ts.set(id, x.time, x.seq); got != had {
						t.Fatalf("step %d: set(%d) reported %v, want %v", step, id, got, had)
					}
					want[id] = x
				case r < 8:
					if got := ts.remove(id); got != had {
						t.Fatalf("step %d: remove(%d) reported %v, want %v", step, id, got, had)
					}
					delete(want, id)
				default:
					if len(want) == 0 {
						continue
					}
					all := make([]flowTimer, 0, len(want))
					for _, x := range want {
						all = append(all, x)
					}
					sort.Slice(all, func(i, j int) bool { return timerLess(&all[i], &all[j]) })
					if got := ts.peek(); got == nil || *got != all[0] {
						t.Fatalf("step %d: peek = %+v, want %+v", step, got, all[0])
					}
					if got := ts.pop(); got != all[0] {
						t.Fatalf("step %d: pop = %+v, want %+v", step, got, all[0])
					}
					delete(want, all[0].id)
					now = all[0].time // the engine never sets a timer in the past
				}
				if len(want) == 0 && ts.peek() != nil {
					t.Fatalf("step %d: peek found a timer, want none", step)
				}
				live := len(ts.h)
				for i := ts.head; i < len(ts.run); i++ {
					if x := ts.run[i]; x.id >= 0 {
						live++
						if ts.pos[x.id] != int32(-2-i) {
							t.Fatalf("step %d: flow %d at run %d, its index says %d", step, x.id, i, ts.pos[x.id])
						}
					}
					if i > ts.head && timerLess(&ts.run[i], &ts.run[i-1]) {
						t.Fatalf("step %d: run not sorted at %d", step, i)
					}
				}
				if live != len(want) {
					t.Fatalf("step %d: %d timers, want %d", step, live, len(want))
				}
				for i, x := range ts.h {
					if ts.pos[x.id] != int32(i) {
						t.Fatalf("step %d: flow %d at %d, its index says %d", step, x.id, i, ts.pos[x.id])
					}
					if i > 0 && timerLess(&x, &ts.h[(i-1)/4]) {
						t.Fatalf("step %d: timer %d before its parent", step, i)
					}
				}
			}
		})
	}
}
