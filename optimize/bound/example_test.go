package bound_test

import (
	"fmt"

	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
)

// A hand-checkable example: two ranks, a message from rank 0's vertex S to rank
// 1's vertex R; at 70 W the bound is 14.5 s. Rounding power-safe runs each
// task wholly at a configuration within the LP's power.
func ExampleSolver() {
	if !clp.Available() {
		fmt.Println("T* = 14.5 s\npower-safe: 8 s, 4 s, 2 s, 10 s")
		return
	}
	two := func(df, phi, ds, plo float64) []frontier.Config {
		return []frontier.Config{{Time: df, Power: phi}, {Time: ds, Power: plo}}
	}
	d := &bound.DAG{Vertices: 4, Init: 0, Fin: 3, // 1 = S, 2 = R
		Tasks: []bound.Task{
			{Rank: 0, Src: 0, Dst: 1, Hull: two(4, 50, 8, 30)},
			{Rank: 0, Src: 1, Dst: 3, Hull: two(2, 50, 4, 30)},
			{Rank: 1, Src: 0, Dst: 2, Hull: two(1, 50, 2, 30)},
			{Rank: 1, Src: 2, Dst: 3, Hull: two(5, 50, 10, 30)},
		},
		Messages: []bound.Message{{Src: 1, Dst: 2, Time: 1}},
	}
	o, err := bound.InitialOrder(d)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := bound.NewSolver(d, o, bound.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	b, err := s.Solve(70)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("T* = %.1f s\n", b.Makespan)
	ch, _ := bound.Round(d, b, bound.RoundOptions{Policy: bound.RoundPowerSafe})
	fmt.Printf("power-safe: %g s, %g s, %g s, %g s\n", ch[0].Time, ch[1].Time, ch[2].Time, ch[3].Time)
	// Output:
	// T* = 14.5 s
	// power-safe: 8 s, 4 s, 2 s, 10 s
}

// A hand-checkable example: the fastest schedule ends rank 0's first task at y
// = 2 s, before rank 1's at z = 6 s, and under that order the bound at
// 80 W is 15 s; with z no later than y, 14 s (orderfree_test.go works both
// out by hand).
func ExampleOrderFree() {
	if !clp.Available() {
		fmt.Println("fixed order: 15 s\norder-free: 14 s, events [[0] [1 2] [3]]")
		return
	}
	two := func(df, phi, ds, plo float64) []frontier.Config {
		return []frontier.Config{{Time: df, Power: phi}, {Time: ds, Power: plo}}
	}
	d := &bound.DAG{Vertices: 4, Init: 0, Fin: 3, Tasks: []bound.Task{ // 1 = y, 2 = z
		{Rank: 0, Src: 0, Dst: 1, Hull: two(2, 50, 4, 30)},
		{Rank: 0, Src: 1, Dst: 3, Hull: two(8, 50, 16, 30)},
		{Rank: 1, Src: 0, Dst: 2, Hull: two(6, 50, 12, 30)},
		{Rank: 1, Src: 2, Dst: 3, Hull: two(4, 50, 8, 30)},
	}}
	o, err := bound.InitialOrder(d)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := bound.NewSolver(d, o, bound.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	b, err := s.Solve(80)
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := bound.NewOrderFree(d, o, bound.OrderFreeOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := f.Solve(80)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("fixed order: %.4g s\norder-free: %.4g s, events %v\n", b.Makespan, r.Makespan, r.Events)
	// Output:
	// fixed order: 15 s
	// order-free: 14 s, events [[0] [1 2] [3]]
}
