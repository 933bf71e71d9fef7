package bound

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestStableByKey checks the radix sort against sort.SliceStable on random
// keys with many ties, negative keys, −0 next to 0, and +Inf (Fin's key),
// from 0 to 5,000 vertices.
func TestStableByKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	pool := []float64{0, math.Copysign(0, -1), math.Inf(1), -1.5, 3e-9, 1e-9, 2.5e9, 1e300, -1e-300}
	for k := 0; k < 200; k++ {
		n := rng.IntN(5000)
		if k < 3 {
			n = k
		}
		keys := make([]float64, n)
		for i := range keys {
			switch rng.IntN(3) {
			case 0:
				keys[i] = pool[rng.IntN(len(pool))]
			case 1:
				keys[i] = float64(rng.IntN(20)) * 1e-6
			default:
				keys[i] = (rng.Float64() - 0.2) * math.Pow(10, float64(rng.IntN(30)-15))
			}
		}
		vs := rng.Perm(n)
		want := slices.Clone(vs)
		sort.SliceStable(want, func(a, b int) bool { return keys[want[a]] < keys[want[b]] })
		stableByKey(vs, func(v int) float64 { return keys[v] })
		if !slices.Equal(vs, want) {
			t.Fatalf("case %d (%d keys): %v, want %v", k, n, vs[:min(n, 10)], want[:min(n, 10)])
		}
	}
}
