package sim

import (
	"testing"

	"github.com/capsim/capsim/network"
)

// A rank that starts later (graph.Graph.StartNs) runs nothing and
// processes no message before its start, worked out by hand with o=1500
// L=2500 g=1000 G=6 O=0.
func TestRankStart(t *testing.T) {
	const text = `num_ranks 2
rank 0 {
l1: send 8b to 1 tag 0
l2: recv 8b from 1 tag 1
l2 requires l1
}
rank 1 {
l1: recv 8b from 0 tag 0
l2: calc 1000 cpu 1
l3: send 8b to 0 tag 1
l3 requires l1
l3 requires l2
}`
	for _, tc := range []struct {
		name         string
		start        []int64
		want0, want1 int64
		wait1        int64
	}{
		// Together: rank 0's message arrives at 4000 and is processed
		// to 5542; rank 1's calc (on its idle CPU 1) ends at 1000, its
		// send runs 5542..7042 and arrives at 9542, processed to 11084.
		{"together", nil, 11084, 7042, 7042 - 1542 - 1500 - 1000},
		// Rank 1 starts at 10000: the message that arrived at 4000 is
		// processed 10000..11542, the calc on CPU 1 runs 10000..11000,
		// the send 11542..13042, processed at rank 0 to 17084.
		{"rank 1 at 10 us", []int64{0, 10000}, 17084, 13042, 0}, // its calc ran beside the message's processing
		// Rank 0 starts at 3000: everything 3000 later.
		{"rank 0 at 3 us", []int64{3000, 0}, 14084, 10042, 10042 - 1542 - 1500 - 1000},
	} {
		g := parse(t, text)
		g.StartNs = tc.start
		res, err := Run(g, network.DefaultLogGOPS(), Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if f0, f1 := res.Ranks[0].Finish, res.Ranks[1].Finish; f0 != tc.want0 || f1 != tc.want1 || res.Makespan != max(tc.want0, tc.want1) {
			t.Errorf("%s: finish %d %d (makespan %d), want %d %d", tc.name, f0, f1, res.Makespan, tc.want0, tc.want1)
		}
		if w := res.Ranks[1].Wait; w != tc.wait1 {
			t.Errorf("%s: rank 1 waited %d ns, want %d", tc.name, w, tc.wait1)
		}
	}
	g := parse(t, text)
	g.StartNs = []int64{1}
	if _, err := Run(g, network.DefaultLogGOPS(), Options{}); err == nil {
		t.Error("a start slice of the wrong length was accepted")
	}
	g.StartNs = []int64{0, -1}
	if _, err := Run(g, network.DefaultLogGOPS(), Options{}); err == nil {
		t.Error("a negative start was accepted")
	}
}
