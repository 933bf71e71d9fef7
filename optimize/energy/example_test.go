package energy_test

import (
	"fmt"

	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/energy"
	"github.com/capsim/capsim/optimize/frontier"
)

// The example of docs/design/frontier.md: two ranks, one task each, two
// P-states each, 10 W of base power.
func Example() {
	if !clp.Available() {
		fmt.Println("no CLP")
		return
	}
	d := &bound.DAG{Vertices: 2, Init: 0, Fin: 1, Tasks: []bound.Task{
		{Rank: 0, Src: 0, Dst: 1, Hull: []frontier.Config{{Time: 1, Power: 100}, {Time: 2, Power: 40}}},
		{Rank: 1, Src: 0, Dst: 1, Hull: []frontier.Config{{Time: 1, Power: 100}, {Time: 3, Power: 20}}},
	}}
	o, err := bound.InitialOrder(d)
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := energy.New(d, o, energy.Options{BaseW: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	pts, err := f.Curve(3)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range pts {
		fmt.Printf("by %.2f s: %.2f J\n", p.Deadline, p.Energy)
	}
	t, _ := f.TimeFor(195)
	saved, _ := f.SavedPct(0.05)
	fmt.Printf("195 J needs %.2f s; 5 %% slower saves %.2f %%\n", t, saved)
	// Output:
	// by 1.00 s: 210.00 J
	// by 1.50 s: 195.00 J
	// by 2.00 s: 180.00 J
	// 195 J needs 1.50 s; 5 % slower saves 0.71 %
}

// The worked example's schedule at 1.5 s: A runs half its work slow, B a
// quarter, and both end at the deadline.
func ExampleFrontier_ScheduleAt() {
	if !clp.Available() {
		fmt.Println("no CLP")
		return
	}
	d := &bound.DAG{Vertices: 2, Init: 0, Fin: 1, Tasks: []bound.Task{
		{Rank: 0, Src: 0, Dst: 1, Hull: []frontier.Config{{Time: 1, Power: 100}, {Time: 2, Power: 40}}},
		{Rank: 1, Src: 0, Dst: 1, Hull: []frontier.Config{{Time: 1, Power: 100}, {Time: 3, Power: 20}}},
	}}
	o, err := bound.InitialOrder(d)
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := energy.New(d, o, energy.Options{BaseW: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	s, err := f.ScheduleAt(1.5)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.2f J, ends at %.2f s\n", s.Energy, s.Makespan)
	for i, c := range s.Tasks {
		fmt.Printf("task %d: %.2f of its work at %.0f W, %.2f s\n", i, c.Frac, d.Tasks[i].Hull[c.Fast].Power, c.Time)
	}
	// Output:
	// 195.00 J, ends at 1.50 s
	// task 0: 0.50 of its work at 100 W, 1.50 s
	// task 1: 0.75 of its work at 100 W, 1.50 s
}
