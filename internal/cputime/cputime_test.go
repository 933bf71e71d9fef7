//go:build unix

package cputime

import "testing"

// TestUsedGrows spins until the user time read by Used moves: it must
// count this process's own work, and never go back.
func TestUsedGrows(t *testing.T) {
	u0, s0 := Used()
	x := 0
	for i := 0; ; i++ {
		x += i % 7
		if i%1_000_000 != 0 {
			continue
		}
		u, s := Used()
		if u < u0 || s < s0 {
			t.Fatalf("CPU time went back: user %v → %v, system %v → %v", u0, u, s0, s)
		}
		if u > u0 {
			break
		}
		if i > 1<<34 {
			t.Fatalf("user time never moved from %v (x %d)", u0, x)
		}
	}
}
