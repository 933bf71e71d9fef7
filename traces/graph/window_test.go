package graph

import (
	"slices"
	"testing"
)

// TestWindow checks that a graph's windows cover each rank in order and
// carry its operations and rank-relative dependencies.
func TestWindow(t *testing.T) {
	b := NewBuilder(2)
	for r := 0; r < 2; r++ {
		for i := 0; i < 5+r; i++ {
			op := b.Add(r, SendOp(int64(10*r+i), int32(1-r), int32(i)))
			if i > 0 {
				b.Dep(r, op, op-1, Requires)
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 2; r++ {
		var sizes []int64
		first := int32(0)
		for {
			w, err := g.Window(r, first, 2)
			if err != nil {
				t.Fatal(err)
			}
			if w.Len() == 0 {
				break
			}
			if w.Rank != r || w.First != first || w.Len() > 2 {
				t.Fatalf("rank %d window at %d: rank %d first %d len %d", r, first, w.Rank, w.First, w.Len())
			}
			for i := 0; i < w.Len(); i++ {
				deps, kinds := w.Deps(i)
				want := []int32{}
				if w.First+int32(i) > 0 {
					want = []int32{w.First + int32(i) - 1}
				}
				got := make([]int32, len(deps))
				for j, d := range deps {
					got[j] = d - w.Origin
					if kinds[j] != Requires {
						t.Errorf("rank %d op %d: dependency kind %v", r, w.First+int32(i), kinds[j])
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("rank %d op %d depends on %v, want %v", r, w.First+int32(i), got, want)
				}
			}
			sizes = append(sizes, w.Size...)
			first += int32(w.Len())
		}
		want := []int64{}
		for i := 0; i < 5+r; i++ {
			want = append(want, int64(10*r+i))
		}
		if !slices.Equal(sizes, want) {
			t.Errorf("rank %d sizes %v, want %v", r, sizes, want)
		}
	}
	for _, c := range []struct {
		r     int
		first int32
		max   int
	}{{-1, 0, 1}, {2, 0, 1}, {0, -1, 1}, {0, 6, 1}, {0, 0, 0}} {
		if _, err := g.Window(c.r, c.first, c.max); err == nil {
			t.Errorf("Window(%d, %d, %d): no error", c.r, c.first, c.max)
		}
	}
}
