package graph_test

import (
	"fmt"

	"github.com/capsim/capsim/traces/graph"
)

// A Source hands out a rank's operations in windows; dependency entries
// minus the window's Origin are indices within the rank.
func ExampleGraph_Window() {
	b := graph.NewBuilder(1)
	prev := int32(-1)
	for i := 0; i < 5; i++ {
		op := b.Add(0, graph.CalcOp(int64(100*(i+1))))
		if prev >= 0 {
			b.Dep(0, op, prev, graph.Requires)
		}
		prev = op
	}
	g, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	var src graph.Source = g
	for first := int32(0); ; {
		w, err := src.Window(0, first, 2)
		if err != nil || w.Len() == 0 {
			break
		}
		for i := 0; i < w.Len(); i++ {
			deps, _ := w.Deps(i)
			fmt.Printf("op %d: calc %d", w.First+int32(i), w.Size[i])
			for _, d := range deps {
				fmt.Printf(" requires op %d", d-w.Origin)
			}
			fmt.Println()
		}
		first += int32(w.Len())
	}
	// Output:
	// op 0: calc 100
	// op 1: calc 200 requires op 0
	// op 2: calc 300 requires op 1
	// op 3: calc 400 requires op 2
	// op 4: calc 500 requires op 3
}
