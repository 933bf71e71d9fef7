package power_test

import (
	"fmt"

	"github.com/capsim/capsim/compute/power"
)

func ExampleAccount() {
	const s = int64(1e9) // ns per second
	ranks := [][]power.Interval{
		{{Start: 0, End: 4 * s, Watts: 150}, {Start: 6 * s, End: 10 * s, Watts: 100}},
		{{Start: 2 * s, End: 8 * s, Watts: 200}},
	}
	sp, _ := power.Account(ranks, 50, 10*s)
	fmt.Printf("idle %.0f J, dynamic %.0f J\n", sp.Idle, sp.Dynamic)
	// Output: idle 1000 J, dynamic 1500 J
}

func ExampleEnergySpeedup() {
	fmt.Printf("%.3f\n", power.EnergySpeedup(0.6, 4))
	// Output: 1.818
}

func ExampleFitSockets() {
	samples := []power.CoreSample{{Active: 0, Watts: 40}, {Active: 1, Watts: 80}, {Active: 6, Watts: 130}, {Active: 7, Watts: 151}, {Active: 12, Watts: 191}}
	m, _ := power.FitSockets(samples, []int{6, 6})
	fmt.Printf("extrapolated idle %.0f W, slopes %.0f %.0f W/core\n", m.ExtrapolatedIdle(), m.Slope[0], m.Slope[1])
	// Output: extrapolated idle 70 W, slopes 10 8 W/core
}
