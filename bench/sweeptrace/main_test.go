package main

import (
	"math"
	"strings"
	"testing"
)

// TestCriticalPath reads a trace of two chains of two caps each and checks
// the critical path and totals against sums done by hand.
func TestCriticalPath(t *testing.T) {
	trace := strings.Join([]string{
		"0\t0\t1.2\t1.2\tgroup lp 290–290",
		"0\t0\t0.1\t0.1\tbuild LP",
		"0\t0.1\t0.3\t0.2\tbound chain [0 2] cap 290",
		"0\t0.3\t0.6\t0.3\tplan cap 290 probes 7",
		"0\t0.6\t0.7\t0.1\tbound chain [0 2] cap 295",
		"0\t0.7\t0.8\t0.1\tplan cap 295 probes 5",
		"0\t0.8\t0.95\t0.15\tbound chain [2 4] cap 340",
		"0\t0.95\t1.15\t0.2\tplan cap 340 probes 9",
		"0\t1.15\t1.2\t0.05\tbound chain [2 4] cap 345",
		"0\t1.2\t1.3\t0.1\tgroup static 290–345",
		"0\t1.2\t1.3\t0.1\tpoint static cap 290",
	}, "\n")
	s, err := read(strings.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}
	// Chain [0 2]: 0.1 + 0.2 + 0.3 = 0.6 at 290 W, 0.1 + 0.3 + 0.1 = 0.5
	// at 295 W; chain [2 4]: 0.45 and 0.4 (no search at 345 W).
	cp, chain, capW := s.criticalPath()
	if math.Abs(cp-0.6) > 1e-9 || chain != "[0 2]" || capW != 290 {
		t.Errorf("critical path %g s at chain %s, %g W; want 0.6 s at [0 2], 290 W", cp, chain, capW)
	}
	if math.Abs(s.total-1.3) > 1e-9 || math.Abs(s.points-0.1) > 1e-9 {
		t.Errorf("total %g s, other points %g s; want 1.3 and 0.1", s.total, s.points)
	}
	for _, c := range []struct {
		workers int
		want    string
	}{
		// 2 workers: the other points' 0.1 s replay while the LP is
		// built, so at least the build and half the rest but them,
		// 0.1 + 1.1/2 = 0.65 s (more than the critical path): 1.3/0.65 = 2×.
		{2, "2 workers: at least 0.650 s, a speed-up of at most 2.00×"},
		// 3 workers: 0.1 + 1.1/3 = 0.467 s, less than the critical
		// path, 0.6 s: 1.3/0.6 = 2.17×.
		{3, "3 workers: at least 0.600 s, a speed-up of at most 2.17×"},
	} {
		var b strings.Builder
		s.print(&b, c.workers)
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("summary:\n%s\nwant %q", b.String(), c.want)
		}
	}
	if _, err := read(strings.NewReader("1\t0\t1\t1\tgroup lp 290–290")); err == nil {
		t.Error("a 2-worker trace was read")
	}
}
