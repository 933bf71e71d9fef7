package policy_test

import (
	"fmt"

	"github.com/capsim/capsim/optimize/policy"
)

// A compute-bound region under a 30 W RAPL limit on a socket with
// P-states of 40 W (2.6 GHz) and 20 W (1.2 GHz): the firmware spends half
// of every window at each, and under 12.5 W it modulates the clock.
func ExampleRAPLMix() {
	ratio := []float64{1, 2.6 / 1.2}
	watts := []float64{40, 20}
	for _, limit := range []float64{30, 12.5} {
		r, w, duty := policy.RAPLMix(ratio, watts, limit, 5)
		fmt.Printf("%g W: time ×%.4f at %g W, duty %g\n", limit, r, w, duty)
	}
	// Output:
	// 30 W: time ×1.3684 at 30 W, duty 1
	// 12.5 W: time ×4.3333 at 12.5 W, duty 0.5
}
