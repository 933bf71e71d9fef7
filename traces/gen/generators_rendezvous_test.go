package gen

import (
	"fmt"
	"github.com/capsim/capsim/internal/graphcheck"
	"testing"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// lowerRun lowers tr with every collective at its default algorithm and
// executes it with synchronous messages (see matchAndRun).
func lowerRun(t *testing.T, tr *mpi.Trace) *graph.Graph {
	t.Helper()
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := graphcheck.MatchAndRun(g); err != nil {
		t.Fatal(err)
	}
	return g
}

// userSends counts point-to-point sends (tags below the collective base).
func userSends(g *graph.Graph) int {
	n := 0
	for id, k := range g.Kind {
		if k == graph.Send && g.Tag[id] < lower.CollectiveTagBase {
			n++
		}
	}
	return n
}

// The stencil's halo exchange sends exactly one message per directed face
// adjacency per iteration, and the lowered trace completes with
// rendezvous messages, including periodic extents of 1 and 2.
func TestStencilRendezvous(t *testing.T) {
	cases := []struct {
		dims     []int
		periodic bool
		perIter  int
	}{
		{[]int{3, 4}, false, 2 * (2*4 + 3*3)},
		{[]int{3, 4}, true, 2 * 2 * 12},
		{[]int{2, 2, 3}, false, 2 * (1*2*3 + 2*1*3 + 2*2*2)},
		{[]int{1, 5}, true, 2 * 5},
		{[]int{2, 1}, true, 2 * 2}, // extent 2, periodic: both faces touch the same rank
		{[]int{1, 1}, false, 0},
	}
	for _, c := range cases {
		for _, imb := range []string{ImbalanceNone, ImbalanceRandom, ImbalanceCharged, ImbalanceWavefront} {
			t.Run(fmt.Sprint(c.dims, c.periodic, imb), func(t *testing.T) {
				tr, err := Stencil{Dims: c.dims, Periodic: c.periodic, Iterations: 3, HaloBytes: 100,
					ComputeNs: 1000, AllreduceBytes: 8, Imbalance: imb, Seed: 3}.Generate()
				if err != nil {
					t.Fatal(err)
				}
				if got := userSends(lowerRun(t, tr)); got != 3*c.perIter {
					t.Errorf("%d halo messages, want %d", got, 3*c.perIter)
				}
			})
		}
	}
}

// Every octant sweep sends one message per directed grid edge per block.
func TestSweepRendezvous(t *testing.T) {
	for _, d := range [][2]int{{1, 1}, {3, 4}, {4, 2}, {5, 1}} {
		tr, err := Sweep{Px: d[0], Py: d[1], Blocks: 3, ComputeNs: 10, Bytes: 64}.Generate()
		if err != nil {
			t.Fatal(err)
		}
		px, py := d[0], d[1]
		if got, want := userSends(lowerRun(t, tr)), 8*3*((px-1)*py+px*(py-1)); got != want {
			t.Errorf("%v: %d messages, want %d", d, got, want)
		}
	}
}

// Every collective micro-benchmark, on a sub-communicator and with every
// algorithm, lowers to a schedule that completes with rendezvous messages
// and leaves the ranks outside the communicator idle.
func TestCollectiveRendezvous(t *testing.T) {
	for _, k := range mpi.Kinds() {
		if !k.IsCollective() {
			continue
		}
		for _, alg := range lower.Algorithms(k) {
			c := Collective{Kind: k, Ranks: 7, CommSize: 5, Bytes: 1000, Reps: 3, GapNs: 10}
			if k.IsRooted() {
				c.Root = 2
			}
			tr, err := c.Generate()
			if err != nil {
				t.Fatal(err)
			}
			g, err := lower.Lower(tr, lower.Options{Algorithm: map[mpi.Kind]string{k: alg}})
			if err != nil {
				t.Fatal(err)
			}
			if err := graphcheck.MatchAndRun(g); err != nil {
				t.Errorf("%s/%s: %v", k, alg, err)
			}
			for r := 5; r < 7; r++ {
				if g.RankStart[r+1] != g.RankStart[r] {
					t.Errorf("%s/%s: idle rank %d has ops", k, alg, r)
				}
			}
		}
	}
}
