package flow

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// refMaxMin computes the weighted max-min fair rates of flows over links
// of capacity caps from scratch, by progressive filling over all flows at
// once (Bertsekas and Gallager, §6.5.2), independently of Net: at each
// step every link with unfrozen flows offers share (capacity − rates of
// its frozen flows) / (weights of its unfrozen flows); the smallest share
// freezes every unfrozen flow crossing a link that offers it, each at
// share × its weight.
func refMaxMin(caps []float64, routes [][]int32, weights []float64) []float64 {
	rate := make([]float64, len(routes))
	frozen := make([]bool, len(routes))
	left := len(routes)
	for left > 0 {
		used := make([]float64, len(caps))
		wsum := make([]float64, len(caps))
		for f, r := range routes {
			for _, l := range r {
				if frozen[f] {
					used[l] += rate[f]
				} else {
					wsum[l] += weights[f]
				}
			}
		}
		best := math.Inf(1)
		for l := range caps {
			if wsum[l] > 0 {
				best = min(best, max(caps[l]-used[l], 0)/wsum[l])
			}
		}
		// Every link within rounding of the smallest share is a
		// bottleneck at this level.
		tol := 1e-12 * max(1, best)
		for f, r := range routes {
			if frozen[f] {
				continue
			}
			for _, l := range r {
				if wsum[l] > 0 && max(caps[l]-used[l], 0)/wsum[l] <= best+tol {
					frozen[f] = true
					rate[f] = best * weights[f]
					left--
					break
				}
			}
		}
	}
	return rate
}

// maxMinCase is a random sequence of flow starts and ends over random
// links: the input of checkMaxMin.
type maxMinCase struct {
	caps   []float64
	events []maxMinEvent
}

type maxMinEvent struct {
	start  bool
	route  []int32 // start: the flow's links, distinct
	weight float64 // start
	victim int     // finish: index among the live flows
}

// randomMaxMinCase draws a case: 1 to 14 links of capacities 1 to 4 (or,
// with wide, any in (0.1, 10)), flows over 1 to 5 distinct links, equal or
// random weights, starts and ends interleaved.
func randomMaxMinCase(rng *rand.Rand, wide, weighted bool) maxMinCase {
	var c maxMinCase
	nl := 1 + rng.IntN(14)
	c.caps = make([]float64, nl)
	for l := range c.caps {
		if wide {
			c.caps[l] = 0.1 + 9.9*rng.Float64()
		} else {
			c.caps[l] = float64(1 + rng.IntN(4))
		}
	}
	live := 0
	for range 10 + rng.IntN(50) {
		if live > 0 && rng.IntN(3) == 0 {
			c.events = append(c.events, maxMinEvent{victim: rng.IntN(live)})
			live--
			continue
		}
		k := 1 + rng.IntN(min(5, nl))
		route := make([]int32, 0, k)
		for _, l := range rng.Perm(nl)[:k] {
			route = append(route, int32(l))
		}
		w := 1.0
		if weighted {
			w = 0.25 + 4*rng.Float64()
		}
		c.events = append(c.events, maxMinEvent{start: true, route: route, weight: w})
		live++
	}
	return c
}

// checkMaxMin replays c on a Net (neighbours selects the re-rating of
// neighbours only) and, after every start and end, compares every live
// flow's rate with refMaxMin's and checks that Changed lists every flow
// whose rate changed. It returns the first difference, or nil.
func checkMaxMin(c maxMinCase, neighbours bool) error {
	n := New(c.caps)
	n.Neighbours = neighbours
	return checkMaxMinOn(n, c)
}

// checkMaxMinOn is checkMaxMin on n, a Net over c.caps.
func checkMaxMinOn(n *Net, c maxMinCase) error {
	type liveFlow struct {
		id     int32
		route  []int32
		weight float64
	}
	var live []liveFlow
	for step, ev := range c.events {
		now := int64(10 * step)
		before := make([]float64, len(live))
		for i, f := range live {
			before[i] = n.Rate(f.id)
		}
		what := ""
		if ev.start {
			id := n.Start(now, ev.route, 1<<20, ev.weight, 0, 0, 0)
			live = append(live, liveFlow{id, ev.route, ev.weight})
			before = append(before, math.NaN())
			what = fmt.Sprintf("start over %v (weight %.3g)", ev.route, ev.weight)
		} else {
			v := ev.victim
			n.Finish(now, live[v].id)
			what = fmt.Sprintf("end of the flow over %v", live[v].route)
			live = append(live[:v], live[v+1:]...)
			before = append(before[:v], before[v+1:]...)
		}
		routes := make([][]int32, len(live))
		weights := make([]float64, len(live))
		for i, f := range live {
			routes[i], weights[i] = f.route, f.weight
		}
		want := refMaxMin(c.caps, routes, weights)
		changed := map[int32]bool{}
		for _, id := range n.Changed() {
			changed[id] = true
		}
		for i, f := range live {
			got := n.Rate(f.id)
			if math.Abs(got-want[i]) > 1e-9*max(1, want[i]) {
				return fmt.Errorf("event %d (%s): flow over %v at %.12g, max-min %.12g", step, what, f.route, got, want[i])
			}
			if got != before[i] && !changed[f.id] {
				return fmt.Errorf("event %d (%s): flow over %v changed rate %.12g → %.12g but is not in Changed", step, what, f.route, before[i], got)
			}
		}
	}
	return nil
}

// TestIncrementalMaxMin checks, on 3,000 random cases (links, flows
// starting and ending, equal and random weights), that after every start
// and end the Net's rates are the max-min fair ones computed from scratch
// over all live flows, and that the re-rating of neighbours only does
// not give them (it leaves flows two links away at stale rates).
func TestIncrementalMaxMin(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 2026))
	wrong := 0
	for i := range 3000 {
		c := randomMaxMinCase(rng, i%2 == 1, i%3 == 2)
		if err := checkMaxMin(c, false); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if checkMaxMin(c, true) != nil {
			wrong++
		}
	}
	if wrong == 0 {
		t.Errorf("neighbours-only re-rating matched max-min on every case: the test cannot tell them apart")
	}
	t.Logf("neighbours-only re-rating differs from max-min in %d of 3000 cases", wrong)
}

// TestStaleNeighbour is the smallest case TestIncrementalMaxMin's cases
// shrink to. Links 0 (capacity 3) and 1 (capacity 2); a crosses both, b
// link 0: a and b get 1.5 each. c starts on link 1: a and c get 1 each
// there, which leaves b 3 − 1 = 2 on link 0. b shares no link with c:
// re-rating c's neighbours (a and c) only leaves b at 1.5.
func TestStaleNeighbour(t *testing.T) {
	for _, tc := range []struct {
		neighbours bool
		want       [3]float64
	}{
		{false, [3]float64{1, 2, 1}},
		{true, [3]float64{1, 1.5, 1}},
	} {
		n := New([]float64{3, 2})
		n.Neighbours = tc.neighbours
		a := n.Start(0, []int32{0, 1}, 100, 1, 0, 0, 0)
		b := n.Start(0, []int32{0}, 100, 1, 0, 0, 0)
		if ra, rb := n.Rate(a), n.Rate(b); !near(ra, 1.5) || !near(rb, 1.5) {
			t.Fatalf("neighbours=%v: a, b at %g, %g; want 1.5, 1.5", tc.neighbours, ra, rb)
		}
		c := n.Start(0, []int32{1}, 100, 1, 0, 0, 0)
		for i, id := range []int32{a, b, c} {
			if r := n.Rate(id); !near(r, tc.want[i]) {
				t.Errorf("neighbours=%v: flow %c at %g, want %g", tc.neighbours, 'a'+i, r, tc.want[i])
			}
		}
	}
}

// FuzzIncrementalMaxMin decodes a case from the fuzzer's bytes (link
// capacities 1 to 4, then events: a start over the links of a bit mask
// with a weight of 1 to 4, or the end of a live flow) and checks it as
// TestIncrementalMaxMin does.
func FuzzIncrementalMaxMin(f *testing.F) {
	f.Add([]byte{3, 2, 1, 0x03, 0, 0x01, 0, 0x02, 0})
	f.Add([]byte{4, 1, 1, 1, 0x0f, 1, 0x05, 2, 0x0a, 0, 0x80, 0x03, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		nl := 1 + int(data[0]%8)
		data = data[1:]
		if len(data) < nl {
			return
		}
		var c maxMinCase
		for _, b := range data[:nl] {
			c.caps = append(c.caps, float64(1+b%4))
		}
		data = data[nl:]
		live := 0
		for len(data) >= 2 && len(c.events) < 64 {
			mask, w := data[0], data[1]
			data = data[2:]
			if mask&0x80 != 0 && live > 0 {
				c.events = append(c.events, maxMinEvent{victim: int(w) % live})
				live--
				continue
			}
			var route []int32
			for l := range nl {
				if mask&(1<<l) != 0 {
					route = append(route, int32(l))
				}
			}
			if len(route) == 0 {
				continue
			}
			c.events = append(c.events, maxMinEvent{start: true, route: route, weight: float64(1 + w%4)})
			live++
		}
		if err := checkMaxMin(c, false); err != nil {
			t.Fatal(err)
		}
	})
}

// TestLocalRerating checks that TestIncrementalMaxMin's cases exercise
// the exact re-rating's sets that verify at once and sets that grow
// before they verify (none grows past localMax flows, so none falls back
// on the whole component: TestLocalReratingFallback).
func TestLocalRerating(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 2026))
	var local, rounds, whole int64
	for i := range 3000 {
		c := randomMaxMinCase(rng, i%2 == 1, i%3 == 2)
		n := New(c.caps)
		var live []int32
		for step, ev := range c.events {
			if ev.start {
				live = append(live, n.Start(int64(step), ev.route, 1<<20, ev.weight, 0, 0, 0))
				continue
			}
			n.Finish(int64(step), live[ev.victim])
			live = append(live[:ev.victim], live[ev.victim+1:]...)
		}
		local, rounds, whole = local+n.nLocal, rounds+n.nRounds, whole+n.nWhole
	}
	t.Logf("%d local re-ratings (%d rounds of growth), %d of whole components", local, rounds, whole)
	if local == 0 || rounds == 0 {
		t.Errorf("local re-ratings %d, rounds of growth %d: want both > 0", local, rounds)
	}
}

// TestStaleNeighbourGrows is TestStaleNeighbour's case, re-rated exactly:
// when c starts, its neighbours a and c are re-rated first (1 each);
// link 0 is then loaded 2.5 of 3 and b, outside the set, has lost its
// bottleneck, so b joins the set and gets 2, the whole component's rate,
// without re-rating the whole component.
func TestStaleNeighbourGrows(t *testing.T) {
	n := New([]float64{3, 2})
	a := n.Start(0, []int32{0, 1}, 100, 1, 0, 0, 0)
	b := n.Start(0, []int32{0}, 100, 1, 0, 0, 0)
	local, rounds := n.nLocal, n.nRounds
	c := n.Start(0, []int32{1}, 100, 1, 0, 0, 0)
	if ra, rb, rc := n.Rate(a), n.Rate(b), n.Rate(c); !near(ra, 1) || !near(rb, 2) || !near(rc, 1) {
		t.Errorf("a, b, c at %g, %g, %g; want 1, 2, 1", ra, rb, rc)
	}
	if n.nLocal != local+1 || n.nRounds != rounds+1 || n.nWhole != 0 {
		t.Errorf("local re-ratings +%d, rounds +%d, whole %d; want +1, +1, 0", n.nLocal-local, n.nRounds-rounds, n.nWhole)
	}
	if len(n.Changed()) != 3 {
		t.Errorf("Changed lists %v, want a, b and c", n.Changed())
	}
}

// TestLocalReratingFallback replays TestIncrementalMaxMin's cases with
// the local re-rating's set limited to 1 to 3 flows, so that sets that
// must grow fall back on the whole component, and checks the rates
// against the from-scratch solve as TestIncrementalMaxMin does, through
// sequences mixing both kinds of re-rating.
func TestLocalReratingFallback(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 2026))
	var local, whole int64
	for i := range 3000 {
		c := randomMaxMinCase(rng, i%2 == 1, i%3 == 2)
		n := New(c.caps)
		n.localMax = 1 + i%3
		if err := checkMaxMinOn(n, c); err != nil {
			t.Fatalf("case %d (local sets of at most %d flows): %v", i, n.localMax, err)
		}
		local, whole = local+n.nLocal, whole+n.nWhole
	}
	t.Logf("%d local re-ratings, %d of whole components", local, whole)
	if local == 0 || whole == 0 {
		t.Errorf("local re-ratings %d, whole components %d: want both > 0", local, whole)
	}
}
