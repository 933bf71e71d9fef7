package aggregate

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestPartitionEndsOnRoundoff: Kernighan–Lin passes whose gains are the
// rounding error of large edge costs (an 8×8 stencil's, or any with a
// slow inter-node network) must not count as improvements, or the passes
// cycle for ever. Each partition here ends at once.
func TestPartitionEndsOnRoundoff(t *testing.T) {
	for _, scale := range []float64{1, 1e6, 1e11, 1e17} {
		for seed := uint64(1); seed <= 20; seed++ {
			r := rand.New(rand.NewPCG(seed, 7))
			n := 64
			cost := make([][]float64, n)
			for i := range cost {
				cost[i] = make([]float64, n)
			}
			for i := 0; i < n; i++ {
				for j := i + 1; j < n; j++ {
					if r.IntN(4) == 0 {
						v := scale * (1 + r.Float64())
						cost[i][j], cost[j][i] = v, v
					}
				}
			}
			done := make(chan error, 1)
			go func() { _, err := Partition(cost, 8); done <- err }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("scale %g seed %d: Partition still running after 20 s", scale, seed)
			}
		}
	}
}
