package conductor_test

import (
	"fmt"

	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/conductor"
	"github.com/capsim/capsim/optimize/frontier"
)

// A two-rank example repeated over 10 barrier-separated steps at 80 W:
// rank 1 finishes early, so after the first step Conductor moves its
// unused power to rank 0, which then runs fast.
func ExampleSchedule() {
	d := &bound.DAG{Vertices: 11, Init: 0, Fin: 10}
	for k := 0; k < 10; k++ {
		d.Tasks = append(d.Tasks,
			bound.Task{Rank: 0, Src: k, Dst: k + 1, Hull: []frontier.Config{{Time: 10, Power: 50}, {Time: 20, Power: 30}}},
			bound.Task{Rank: 1, Src: k, Dst: k + 1, Hull: []frontier.Config{{Time: 5, Power: 50}, {Time: 10, Power: 30}}})
	}
	o, _ := bound.InitialOrder(d)
	p := conductor.DefaultParams()
	p.Period, p.GuardW, p.ReallocS, p.SwitchS = 1, 0, 0, 0
	r, err := conductor.Schedule(d, o, 80, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("makespan %g s, shares %v W\n", r.Makespan, r.ShareW)
	// Output: makespan 110 s, shares [50 30] W
}
