package lpchain

import (
	"fmt"
	"testing"
)

// TestSplit checks how caps split into chains: at most
// MaxCaps each, as few as that allows, lengths within one of each
// other, every cap in exactly one, and Of agreeing.
func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "[]"},
		{1, "[[0 1]]"},
		{10, "[[0 10]]"},
		{11, "[[0 5] [5 11]]"},
		{20, "[[0 10] [10 20]]"},
		{25, "[[0 8] [8 16] [16 25]]"},
	} {
		ch := Split(tc.n)
		if got := fmt.Sprint(ch); got != tc.want {
			t.Errorf("%d caps: chains %s, want %s", tc.n, got, tc.want)
		}
		for k := range tc.n {
			c := Of(tc.n, k)
			if c < 0 || k < ch[c][0] || k >= ch[c][1] {
				t.Errorf("%d caps: cap %d in chain %d %v", tc.n, k, c, ch)
			}
		}
	}
}
