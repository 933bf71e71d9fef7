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

// Iterate plays Conductor over repeated iterations of two units, the
// replay standing in for the engine: the unit with slack slows down and
// its unused power goes to the critical unit.
func ExampleIterate() {
	hull := func(t float64) []frontier.Config {
		return []frontier.Config{{Time: t, Power: 300}, {Time: 1.25 * t, Power: 200}, {Time: 1.6 * t, Power: 100}}
	}
	tasks := []conductor.Task{{Unit: 0, Hull: hull(10)}, {Unit: 1, Hull: hull(5)}}
	replay := func(cfg []int, extraS []float64) (conductor.Observation, error) {
		t0, t1 := tasks[0].Hull[cfg[0]].Time, tasks[1].Hull[cfg[1]].Time
		end := max(t0, t1)
		return conductor.Observation{Slack: []float64{end - t0, end - t1}, Wait: []float64{end - t0, end - t1}, Makespan: end}, nil
	}
	p := conductor.DefaultParams()
	p.Period, p.GuardW = 2, 0
	res, err := conductor.Iterate(tasks, []float64{200, 200}, nil, p, 6, replay)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("last configurations:", res.Config, "shares:", res.ShareW)
	// Output: last configurations: [0 2] shares: [300 100]
}
