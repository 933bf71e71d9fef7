package conductor

import (
	"fmt"
	"math"
	"testing"

	"github.com/capsim/capsim/optimize/frontier"
)

// hull3 is a task of t seconds at 300 W, 1.25 t at 200 W and 1.6 t at
// 100 W.
func hull3(t float64) []frontier.Config {
	return []frontier.Config{{Time: t, Power: 300}, {Time: 1.25 * t, Power: 200}, {Time: 1.6 * t, Power: 100}}
}

// Two units, one task each per iteration: unit 0 works 10 s, unit 1 5 s,
// and they meet at the end of the iteration. Under a 400 W cap both
// start at 200 W; unit 1's slack slows it to 100 W from the second
// iteration, and the reallocation after the first period in which it
// never drew more (iterations 3–4) hands the 100 W it leaves unused to
// unit 0, the critical one, which then runs at 300 W: shares keep their
// sum and every task fits its unit's share.
func TestIterateMovesPowerToTheCriticalUnit(t *testing.T) {
	tasks := []Task{{Unit: 0, Hull: hull3(10)}, {Unit: 1, Hull: hull3(5)}}
	p := DefaultParams()
	p.Period, p.SwitchS, p.ReallocS, p.GuardW = 2, 0, 0, 0
	var seen [][]int
	replay := func(cfg []int, extra []float64) (Observation, error) {
		seen = append(seen, append([]int(nil), cfg...))
		t0, t1 := tasks[0].Hull[cfg[0]].Time, tasks[1].Hull[cfg[1]].Time
		end := math.Max(t0, t1)
		return Observation{Slack: []float64{end - t0, end - t1}, Wait: []float64{end - t0, end - t1}, Makespan: end}, nil
	}
	res, err := Iterate(tasks, []float64{200, 200}, nil, p, 6, replay)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(seen); got != "[[1 1] [1 2] [1 2] [1 2] [0 2] [0 2]]" {
		t.Errorf("configurations by iteration %s", got)
	}
	if res.ShareW[0]+res.ShareW[1] != 400 || res.ShareW[0] < 300 || res.ShareW[1] < 100 {
		t.Errorf("shares %v: want 400 W in all, unit 0 ≥ 300 W, unit 1 ≥ 100 W", res.ShareW)
	}
	if res.Reallocs != 2 {
		t.Errorf("%d reallocations, want 2", res.Reallocs)
	}
}

func TestIterateRejects(t *testing.T) {
	tasks := []Task{{Unit: 0, Hull: hull3(1)}}
	replay := func([]int, []float64) (Observation, error) {
		return Observation{Slack: []float64{0}, Wait: []float64{0}}, nil
	}
	for _, tc := range []struct {
		name   string
		tasks  []Task
		shares []float64
		domain []int
	}{
		{"no units", tasks, nil, nil},
		{"unit out of range", []Task{{Unit: 1, Hull: hull3(1)}}, []float64{10}, nil},
		{"no configurations", []Task{{Unit: 0}}, []float64{10}, nil},
		{"negative share", tasks, []float64{-1}, nil},
		{"domains short", tasks, []float64{10}, []int{}},
	} {
		if _, err := Iterate(tc.tasks, tc.shares, tc.domain, DefaultParams(), 3, replay); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}

// Two equal units and a light one, one task each per iteration, meeting
// at the end of the iteration after comm seconds of communication: the
// light unit leaves most of its share unused. The equal units wait alike,
// so both are critical and split what it leaves; with the second's task
// 8 s against the first's 10 s, only the first is critical and takes all
// of it. A unit without tasks (a fourth, with no share) is never
// critical, so it does not hide the waits the others all have.
func TestIterateTiedUnitsShare(t *testing.T) {
	for _, tc := range []struct {
		name   string
		second float64 // the second unit's task, s
		comm   float64
		shares []float64
		want   []float64
	}{
		{"tied", 10, 0, []float64{200, 200, 200}, []float64{250, 250, 100}},
		{"one longer", 8, 0, []float64{200, 200, 200}, []float64{300, 200, 100}},
		{"tied, communicating, a unit without tasks", 10, 5, []float64{200, 200, 200, 0}, []float64{250, 250, 100, 0}},
	} {
		tasks := []Task{{Unit: 0, Hull: hull3(10)}, {Unit: 1, Hull: hull3(tc.second)}, {Unit: 2, Hull: hull3(1)}}
		p := DefaultParams()
		p.Period, p.SwitchS, p.ReallocS, p.GuardW = 2, 0, 0, 0
		replay := func(cfg []int, extra []float64) (Observation, error) {
			var obs Observation
			for i, tk := range tasks {
				obs.Makespan = math.Max(obs.Makespan, tk.Hull[cfg[i]].Time)
			}
			obs.Makespan += tc.comm
			for i, tk := range tasks {
				w := obs.Makespan - tk.Hull[cfg[i]].Time
				obs.Slack, obs.Wait = append(obs.Slack, w-tc.comm), append(obs.Wait, w)
			}
			return obs, nil
		}
		res, err := Iterate(tasks, tc.shares, nil, p, 6, replay)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(res.ShareW) != fmt.Sprint(tc.want) {
			t.Errorf("%s: shares %v, want %v", tc.name, res.ShareW, tc.want)
		}
	}
}
