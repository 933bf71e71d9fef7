package bound

import (
	"math"
	"testing"
)

// An empty segment tree (a schedule without powered tasks: a trace of
// messages only) builds without recursing, answers +Inf and ignores adds.
func TestMinTreeEmpty(t *testing.T) {
	var mt minTree
	mt.init(nil)
	mt.add(0, 0, 5)
	if got := mt.min(0, 0); !math.IsInf(got, 1) {
		t.Errorf("min of an empty tree = %v, want +Inf", got)
	}
	mt.init([]float64{3, 1, 2})
	if got := mt.min(0, 3); got != 1 {
		t.Errorf("min after reuse = %v, want 1", got)
	}
	mt.init(nil)
	if got := mt.min(0, 0); !math.IsInf(got, 1) {
		t.Errorf("min after shrinking to empty = %v, want +Inf", got)
	}
}
