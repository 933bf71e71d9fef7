package policy

import (
	"math"
	"testing"
)

// TestRAPLMix checks the Static of Bailey et al. (SC'15, §4.1) by hand on two
// P-states, 2.6 GHz at 40 W and 1.2 GHz at 20 W, of a compute-bound
// region (time ratio 2.6/1.2 at 1.2 GHz), with a gated core drawing 5 W.
func TestRAPLMix(t *testing.T) {
	ratio := []float64{1, 2.6 / 1.2}
	watts := []float64{40, 20}
	for _, c := range []struct {
		name               string
		limit              float64
		wantR, wantW, duty float64
	}{
		// The fastest P-state fits: it runs there, below the limit.
		{"fits", 50, 1, 40, 1},
		{"at_fastest", 40, 1, 40, 1},
		// 30 W: half the window at each P-state, average power 30 W;
		// speed 0.5·1 + 0.5·1.2/2.6 = 0.730769…, time ×1.368421.
		{"bracket", 30, 1 / (0.5 + 0.5*1.2/2.6), 30, 1},
		// At the slowest P-state's power: it runs there.
		{"at_slowest", 20, 2.6 / 1.2, 20, 1},
		// 12.5 W: clock modulation, duty (12.5 − 5)/(20 − 5) = 0.5: twice
		// the 1.2 GHz time, 0.5·20 + 0.5·5 = 12.5 W. The effective clock,
		// 0.6 GHz, is 23 % of 2.6 GHz, the paper's BT sockets at 22 %.
		{"modulated", 12.5, 2 * 2.6 / 1.2, 12.5, 0.5},
		// 5 W: the duty floor 1/16 holds, and the limit is exceeded.
		{"floor", 5, 16 * 2.6 / 1.2, 20.0/16 + 5*15.0/16, 1.0 / 16},
	} {
		r, w, d := RAPLMix(ratio, watts, c.limit, 5)
		if math.Abs(r-c.wantR) > 1e-12 || math.Abs(w-c.wantW) > 1e-12 || math.Abs(d-c.duty) > 1e-12 {
			t.Errorf("%s: limit %g W: ratio %.9g, %.9g W, duty %g; want %.9g, %.9g W, %g", c.name, c.limit, r, w, d, c.wantR, c.wantW, c.duty)
		}
	}
}
