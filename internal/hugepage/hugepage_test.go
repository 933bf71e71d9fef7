package hugepage_test

import (
	"testing"

	"github.com/capsim/capsim/internal/hugepage"
)

// TestAdviseSmall checks that slices of any size, empty and unaligned
// ones included, are left intact.
func TestAdviseSmall(t *testing.T) {
	for _, n := range []int{0, 1, 1000, hugepage.Min - 1, hugepage.Min, hugepage.Min + 3} {
		s := make([]byte, n)
		hugepage.Advise(s)
		hugepage.Advise(s[:0])
		if n > 1 {
			hugepage.Advise(s[1:])
		}
		for i := range s {
			if s[i] != 0 {
				t.Fatalf("n=%d: byte %d changed", n, i)
			}
		}
	}
}
