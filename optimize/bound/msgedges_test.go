package bound

import (
	"math"
	"math/rand"
	"reflect"
	"testing"
)

// TestMessageEdges checks messageEdges against a direct reading of its
// contract on random messages (repeated pairs, zero lengths, messages
// against the order, subsets): one edge per pair of events in the order
// of the pair's first message, with the pair's longest message, and the
// messages against the order returned with their events marked key.
func TestMessageEdges(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for k := 0; k < 200; k++ {
		K := 1 + rng.Intn(12)
		nv := 1 + rng.Intn(20)
		evOf := make([]int32, nv)
		for v := range evOf {
			evOf[v] = int32(rng.Intn(K))
		}
		ms := make([]Message, rng.Intn(60))
		for i := range ms {
			ms[i] = Message{Src: rng.Intn(nv), Dst: rng.Intn(nv), Time: float64(rng.Intn(4)) * 0.25}
		}
		var idx []int32
		if k%2 == 1 {
			for i := range ms {
				if rng.Intn(3) > 0 {
					idx = append(idx, int32(i))
				}
			}
		}
		allChained := k%3 == 0
		ev := func(v int) int32 { return evOf[v] }
		// The contract, with a map.
		wantKey := make([]bool, K)
		var want []fixedEdge
		var wantBack []int32
		at := map[[2]int32]int{}
		each := func(i int32) {
			m := ms[i]
			a, b := ev(m.Src), ev(m.Dst)
			switch {
			case b < a || b == a && m.Time > 0:
				wantKey[a], wantKey[b] = true, true
				wantBack = append(wantBack, i)
			case m.Time <= 0 && (allChained || a == b):
			default:
				if j, ok := at[[2]int32{a, b}]; ok {
					want[j].w = math.Max(want[j].w, m.Time)
					return
				}
				at[[2]int32{a, b}] = len(want)
				want = append(want, fixedEdge{from: a, to: b, w: m.Time})
			}
		}
		if idx == nil {
			for i := range ms {
				each(int32(i))
			}
		} else {
			for _, i := range idx {
				each(i)
			}
		}
		key := make([]bool, K)
		got := []fixedEdge{{from: -1}} // appended to, not replaced
		back := messageEdges(ms, idx, ev, allChained, key, &got)
		if !reflect.DeepEqual(got[1:], append([]fixedEdge{}, want...)) {
			t.Errorf("case %d: edges %v, want %v", k, got[1:], want)
		}
		if !reflect.DeepEqual(back, wantBack) || !reflect.DeepEqual(key, wantKey) {
			t.Errorf("case %d: back %v key %v, want %v %v", k, back, key, wantBack, wantKey)
		}
	}
}
