package steering

import (
	"flag"
	"os"
	"testing"
)

var fullGrid = flag.Bool("grid", false, "print the full steering grid (DefaultGrid)")

// TestGridSmall runs a 2×2 intensity × balance grid for the three
// patterns and checks the thesis' qualitative findings (Anger, 2016,
// Ch. 5): at full compute intensity and full imbalance
// steering improves runtime for every pattern; with frequency-insensitive
// work (intensity 0) runtime cannot change; at the generator's balance 1
// (which removes the pattern: every rank has the same load) nothing
// changes at all. Run with -grid to print the full DefaultGrid table.
func TestGridSmall(t *testing.T) {
	s := DefaultGrid()
	s.Intensities = []float64{0, 1}
	s.Balances = []float64{0, 1}
	s.Iterations = 6
	s.Options.NoBound = true
	rows, err := Grid(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3*2*2 {
		t.Fatalf("%d rows, want 12", len(rows))
	}
	for _, r := range rows {
		switch {
		case r.Intensity == 1 && r.Balance == 0:
			if r.RuntimePct < 5 {
				t.Errorf("%s, compute bound, imbalanced: runtime gain %.2f %%, want ≥ 5 %%", r.Pattern, r.RuntimePct)
			}
		case r.Intensity == 0:
			if r.RuntimePct > 0.01 || r.RuntimePct < -0.01 {
				t.Errorf("%s, memory bound, balance %g: runtime gain %.3f %%, want 0", r.Pattern, r.Balance, r.RuntimePct)
			}
		case r.Balance == 1:
			if r.RuntimePct != 0 {
				t.Errorf("%s balanced: runtime gain %.3f %%, want 0", r.Pattern, r.RuntimePct)
			}
		}
		if r.OverCapNs != 0 {
			t.Errorf("%s %g/%g: %d ns over the budget", r.Pattern, r.Intensity, r.Balance, r.OverCapNs)
		}
	}
	if *fullGrid {
		full := DefaultGrid()
		rows, err := Grid(full)
		if err != nil {
			t.Fatal(err)
		}
		WriteGrid(os.Stdout, rows)
	}
}
