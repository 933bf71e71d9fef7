package scenarios

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
)

// TestWholeNsDeadlines: the curve's deadlines start at the least makespan
// itself, then lie on distinct whole nanoseconds up to the slowest, fewer
// than asked where the curve spans fewer nanoseconds.
func TestWholeNsDeadlines(t *testing.T) {
	for _, tc := range []struct {
		fast, slow float64
		n          int
		wantNs     []float64 // the deadlines after the first, in ns
	}{
		{0.0680946054, 0.0680946072, 11, []float64{68094606, 68094607}},
		{0.0680946051, 0.0680946053, 11, nil}, // on the same nanosecond
		{1, 1 + 5e-10, 5, nil},                // within 10⁻⁹ of the least makespan
		{1, 1 + 4e-9, 5, []float64{1000000001, 1000000002, 1000000003, 1000000004}},
		{0.5, 0.5 + 1e-6, 3, []float64{500000500, 500001000}},
		{2e-9, 1, 2, []float64{1e9}},
	} {
		ts := wholeNsDeadlines(tc.fast, tc.slow, tc.n)
		if len(ts) != len(tc.wantNs)+1 || ts[0] != tc.fast {
			t.Errorf("%g to %g s, %d points: %v", tc.fast, tc.slow, tc.n, ts)
			continue
		}
		for j, w := range tc.wantNs {
			if ts[j+1]*1e9 != w && math.Abs(ts[j+1]*1e9-w) > 1e-6 {
				t.Errorf("%g to %g s, %d points: %v, want %v ns after the first", tc.fast, tc.slow, tc.n, ts, tc.wantNs)
				break
			}
		}
	}
}

// TestBudgets: the budgets increase from the least energy (raised by the
// slack) to the fastest schedule's, one where the two meet.
func TestBudgets(t *testing.T) {
	for _, tc := range []struct {
		least, fastE, slack float64
		n                   int
		want                []float64
	}{
		{1, 2, 0.01, 3, []float64{1.01, 1.5, 2}},
		{0.192, 0.192, 1e-6, 11, []float64{0.192001}},
		{1, 1.000001, 1e-6, 5, []float64{1.000001}},
		{1, 1.00001, 4e-6, 3, []float64{1.000004, 1.000005, 1.00001}},
		{1, 1.00001, 6e-6, 3, []float64{1.000006, 1.00001}},
	} {
		got := budgets(tc.least, tc.fastE, tc.slack, tc.n)
		ok := len(got) == len(tc.want)
		for j := 0; ok && j < len(got); j++ {
			ok = math.Abs(got[j]-tc.want[j]) < 1e-12
		}
		if !ok {
			t.Errorf("budgets(%g, %g, %g, %d) = %v, want %v", tc.least, tc.fastE, tc.slack, tc.n, got, tc.want)
		}
	}
}

// TestFrontierDistinctDeadlines: on the default scenario with waits at
// idle power under a 300 W cap the frontier spans 2 ns; its points print
// distinct, increasing deadlines with non-increasing energies, not 11
// points on 3 deadlines.
func TestFrontierDistinctDeadlines(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	src := strings.Replace(string(Default()), `# wait_power = "task"`, `wait_power = "idle"`, 1)
	if !strings.Contains(src, `wait_power = "idle"`) {
		t.Fatal("the default scenario's wait_power line moved")
	}
	sc, err := Parse("idle.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := sc.RunFrontier(context.Background(), FrontierConfig{Machine: &sc.Machines[0], Points: 11, CapW: 300})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Points) < 2 || len(rep.Points) > 11 || rep.Points[0].DeadlineNs != rep.LeastNs {
		t.Fatalf("points %+v, least makespan %d ns", rep.Points, rep.LeastNs)
	}
	for j := 1; j < len(rep.Points); j++ {
		if p, q := rep.Points[j-1], rep.Points[j]; q.DeadlineNs <= p.DeadlineNs || q.EnergyJ > p.EnergyJ {
			t.Errorf("points %d and %d: %+v then %+v", j-1, j, p, q)
		}
	}
}
