package flow

import (
	"fmt"
	"math"
	"testing"
	"unsafe"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestMaxMinShares checks rates against hand-computed max-min allocations.
func TestMaxMinShares(t *testing.T) {
	for _, tc := range []struct {
		name  string
		caps  []float64
		flows [][]int32
		want  []float64
	}{
		{"one flow", []float64{10}, [][]int32{{0}}, []float64{10}},
		{"2 on one link", []float64{10}, [][]int32{{0}, {0}}, []float64{5, 5}},
		{"5 on one link", []float64{10}, [][]int32{{0}, {0}, {0}, {0}, {0}}, []float64{2, 2, 2, 2, 2}},
		// Flow 0 is held to 1 by link 0; flow 1 takes the rest of link 1.
		{"bottleneck elsewhere", []float64{1, 10}, [][]int32{{0, 1}, {1}}, []float64{1, 9}},
		// Parking lot: the long flow and each short one split each link.
		{"parking lot", []float64{1, 1}, [][]int32{{0, 1}, {0}, {1}}, []float64{0.5, 0.5, 0.5}},
		// Link 0 (cap 3) has three flows: 1 each; flow 3 shares link 1
		// (cap 4) with flow 0, so gets 4 − 1 = 3.
		{"two levels", []float64{3, 4}, [][]int32{{0, 1}, {0}, {0}, {1}}, []float64{1, 1, 1, 3}},
	} {
		for _, neighbours := range []bool{false, true} {
			n := New(tc.caps)
			n.Neighbours = neighbours
			ids := make([]int32, len(tc.flows))
			for i, l := range tc.flows {
				ids[i] = n.Start(0, l, 1000, 1, 0, 0, 0)
			}
			for i, id := range ids {
				if got := n.Rate(id); !near(got, tc.want[i]) {
					t.Errorf("%s (neighbours=%v): flow %d rate %g, want %g", tc.name, neighbours, i, got, tc.want[i])
				}
			}
		}
	}
}

// TestWeightedShares: on a bottleneck, rates are in proportion to the
// flows' weights; capacity a flow cannot use elsewhere goes to the others.
func TestWeightedShares(t *testing.T) {
	n := New([]float64{10, 1})
	a := n.Start(0, []int32{0}, 100, 1, 0, 0, 0)
	b := n.Start(0, []int32{0}, 100, 3, 0, 0, 0)
	if ra, rb := n.Rate(a), n.Rate(b); !near(ra, 2.5) || !near(rb, 7.5) {
		t.Errorf("weights 1 and 3 on 10: rates %g, %g; want 2.5, 7.5", ra, rb)
	}
	// A third flow of weight 4 held to 1 by link 1: the other two share
	// the remaining 9 as 1:3.
	c := n.Start(0, []int32{0, 1}, 100, 4, 0, 0, 0)
	if ra, rb, rc := n.Rate(a), n.Rate(b), n.Rate(c); !near(ra, 2.25) || !near(rb, 6.75) || !near(rc, 1) {
		t.Errorf("rates %g, %g, %g; want 2.25, 6.75, 1", ra, rb, rc)
	}
}

// TestFinishRerates checks that ending a flow gives its share back and
// invalidates the others' completion events.
func TestFinishRerates(t *testing.T) {
	n := New([]float64{10})
	a := n.Start(0, []int32{0}, 100, 1, 0, 0, 0)
	endA, vA := n.End(a)
	if endA != 10 {
		t.Fatalf("alone: end %d, want 10", endA)
	}
	// b starts at 5: a has 50 bytes left, now at 5 bytes/ns: done at 15.
	b := n.Start(5, []int32{0}, 100, 1, 0, 0, 0)
	if n.Current(a, vA) {
		t.Errorf("a's old completion event is still current")
	}
	if e, _ := n.End(a); e != 15 {
		t.Errorf("a ends at %d, want 15", e)
	}
	if e, _ := n.End(b); e != 25 {
		t.Errorf("b ends at %d at half rate, want 25", e)
	}
	n.Finish(15, a)
	// b sent 50 bytes from 5 to 15; the last 50 at 10 bytes/ns: done at 20.
	if e, _ := n.End(b); e != 20 {
		t.Errorf("b ends at %d after a, want 20", e)
	}
	if got := n.Changed(); len(got) != 1 || got[0] != b {
		t.Errorf("changed = %v, want [%d]", got, b)
	}
	n.Finish(20, b)
	st := n.Stats(20)[0]
	if st.Bytes != 200 || st.Flows != 2 || st.Peak != 2 || st.BusyNs != 20 {
		t.Errorf("stats %+v, want 200 bytes, 2 flows, peak 2, busy 20", st)
	}
}

// TestNoAllocs checks that starting and finishing flows allocates nothing,
// also where the exact re-rating grows its set, once the Net has grown.
func TestNoAllocs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		caps   []float64
		routes [][]int32
	}{
		// Flows over links 0-2 and 1-2, in turns.
		{"shared", []float64{10, 10, 10}, [][]int32{{0, 1, 2}, {1, 2}}},
		// TestStaleNeighbourGrows's case: the exact re-rating grows its
		// set of flows.
		{"grown", []float64{3, 2}, [][]int32{{0, 1}, {0}, {1}}},
	} {
		n := New(tc.caps)
		run := func() {
			var ids [9]int32
			for i := range ids {
				ids[i] = n.Start(int64(i), tc.routes[i%len(tc.routes)], 100, 1, 0, 0, 0)
			}
			for i := range ids {
				n.Finish(int64(10+i), ids[i])
			}
		}
		run()
		if a := testing.AllocsPerRun(10, run); a != 0 {
			t.Errorf("%s: %v allocations per run, want 0", tc.name, a)
		}
		if tc.name == "grown" && n.nRounds == 0 {
			t.Errorf("%s: the exact re-rating never grew its set", tc.name)
		}
	}
}

// TestLinkLayout checks that a link's hot state fills one cache line, as
// the comment on type link says.
func TestLinkLayout(t *testing.T) {
	if s := unsafe.Sizeof(link{}); s != 64 {
		t.Errorf("link is %d bytes, want 64", s)
	}
}

// TestStatsSharedLink checks the statistics of a link that two flows
// share for part of the run and that is idle in between: busy time counts
// each interval once, the peak the most flows at once.
func TestStatsSharedLink(t *testing.T) {
	n := New([]float64{1, 1})
	a := n.Start(0, []int32{0}, 10, 1, 0, 0, 0)
	b := n.Start(4, []int32{0, 1}, 10, 1, 0, 0, 0)
	n.Finish(12, a)
	n.Finish(20, b)
	c := n.Start(30, []int32{1, 0}, 5, 1, 0, 0, 0)
	if n.Active(0) != 1 || n.Active(1) != 1 {
		t.Errorf("active %d, %d; want 1, 1", n.Active(0), n.Active(1))
	}
	st := n.Stats(32) // c still on both links: busy until 32
	n.Finish(35, c)
	want := []LinkStats{{Bytes: 25, Flows: 3, BusyNs: 22, Peak: 2}, {Bytes: 15, Flows: 2, BusyNs: 18, Peak: 1}}
	for l := range want {
		if st[l] != want[l] {
			t.Errorf("link %d: %+v, want %+v", l, st[l], want[l])
		}
	}
}

// TestManyFlowsOneLink starts 10 flows on one link (its list of flows
// grows past its first inline slot, moving twice in the pool), ends them
// out of order, and checks after each step that the link counts the flows
// left and that each gets 1/n of it; a flow over a second link of its own
// too keeps its share.
func TestManyFlowsOneLink(t *testing.T) {
	n := New([]float64{12, 100, 100})
	var ids []int32
	for i := range 10 {
		route := []int32{0}
		if i%3 == 0 {
			route = []int32{1 + int32(i%2), 0} // the shared link second
		}
		ids = append(ids, n.Start(0, route, 1000, 1, int32(i), 0, 0))
	}
	live := map[int32]bool{}
	for _, id := range ids {
		live[id] = true
	}
	check := func(step string) {
		t.Helper()
		if got := n.Active(0); int(got) != len(live) {
			t.Fatalf("%s: %d flows on link 0, want %d", step, got, len(live))
		}
		for id := range live {
			if r := n.Rate(id); !near(r, 12/float64(len(live))) {
				t.Errorf("%s: flow %d at %g, want %g", step, id, r, 12/float64(len(live)))
			}
		}
	}
	check("10 flows")
	for k, i := range []int{4, 0, 9, 1, 7, 3, 5, 8, 2} {
		n.Finish(int64(1+k), ids[i])
		delete(live, ids[i])
		check(fmt.Sprintf("after ending flow %d", i))
	}
}
