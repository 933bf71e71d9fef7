package lower

import (
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// Both of NCCL's trees span every rank: one root, every other rank is a
// child of its parent, and the children form no cycle.
func TestNCCLTreesSpan(t *testing.T) {
	for p := int32(1); p <= 70; p++ {
		for tree := 0; tree < 2; tree++ {
			pos := make([]treePos, p)
			for r := int32(0); r < p; r++ {
				t0, t1 := btrees(p, r)
				pos[r] = [2]treePos{t0, t1}[tree]
			}
			roots := 0
			for r, x := range pos {
				if x.up < 0 {
					roots++
					continue
				}
				if u := pos[x.up]; u.down0 != int32(r) && u.down1 != int32(r) {
					t.Fatalf("p=%d tree %d: rank %d's parent %d does not list it as a child (%+v)", p, tree, r, x.up, u)
				}
			}
			if roots != 1 {
				t.Fatalf("p=%d tree %d: %d roots", p, tree, roots)
			}
			seen := make([]bool, p)
			var walk func(r int32)
			walk = func(r int32) {
				if seen[r] {
					t.Fatalf("p=%d tree %d: rank %d reached twice", p, tree, r)
				}
				seen[r] = true
				for _, d := range []int32{pos[r].down0, pos[r].down1} {
					if d >= 0 {
						if pos[d].up != r {
							t.Fatalf("p=%d tree %d: child %d of %d has parent %d", p, tree, d, r, pos[d].up)
						}
						walk(d)
					}
				}
			}
			for r := range pos {
				if pos[r].up < 0 {
					walk(int32(r))
				}
			}
			for r, s := range seen {
				if !s {
					t.Fatalf("p=%d tree %d: rank %d unreachable", p, tree, r)
				}
			}
		}
	}
}

// Append rejects calls that cannot be lowered and adds nothing for a
// group of one.
func TestAppendErrors(t *testing.T) {
	ok := Call{Kind: mpi.Allreduce, Members: []int32{0, 1}, Me: 0, Bytes: 8, Tag: CollectiveTagBase}
	for _, tc := range []struct {
		edit func(c *Call) string
		want string
	}{
		{func(c *Call) string { c.Me = 2; return "" }, "not member 2"},
		{func(c *Call) string { c.Kind, c.Root = mpi.Bcast, 5; return "" }, "root 5"},
		{func(c *Call) string { c.Bytes = -1; return "" }, "negative size"},
		{func(c *Call) string { return "nccl-nope" }, "no algorithm"},
		{func(c *Call) string { c.Kind = mpi.Send; return "" }, "not a collective"},
	} {
		c := ok
		alg := tc.edit(&c)
		_, err := Append(graph.NewBuilder(2), 0, nil, c, alg, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v %q: error %v, want %q", c, alg, err, tc.want)
		}
	}
	one := ok
	one.Members = []int32{1}
	ends, err := Append(graph.NewBuilder(2), 1, []int32{7}, one, SelectNCCL, Options{})
	if err != nil || len(ends) != 1 || ends[0] != 7 {
		t.Errorf("group of one: %v, %v", ends, err)
	}
}
