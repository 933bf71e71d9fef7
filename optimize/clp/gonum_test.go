package clp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// TestAgainstGonumSimplex solves random feasible, bounded LPs of at most 40
// variables with CLP and with gonum's dense simplex and compares the
// optima. gonum is numerically fragile on degenerate problems
// (its documented limits), so its errors count as inconclusive, not as
// failures; CLP must never fail on them.
func TestAgainstGonumSimplex(t *testing.T) {
	if !Available() {
		t.Skip("built without cgo")
	}
	rng := rand.New(rand.NewPCG(42, 1))
	agreed := 0
	for trial := 0; trial < 60; trial++ {
		m := 2 + rng.IntN(10)         // equality rows
		n := m + 1 + rng.IntN(40-m-1) // variables, ≤ 40
		A := make([]float64, m*n)
		for i := range A {
			if rng.Float64() < 0.6 {
				A[i] = math.Round((rng.Float64()*10-3)*4) / 4
			}
		}
		// b = A·x0 with x0 ≥ 0 keeps the LP feasible; c ≥ 0 keeps it bounded.
		x0 := make([]float64, n)
		for j := range x0 {
			x0[j] = math.Round(rng.Float64() * 5)
		}
		b := make([]float64, m)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				b[i] += A[i*n+j] * x0[j]
			}
		}
		c := make([]float64, n)
		for j := range c {
			c[j] = math.Round(rng.Float64()*8) + 1
		}
		gObj, _, gErr := lp.Simplex(c, mat.NewDense(m, n, append([]float64(nil), A...)), b, 0, nil)

		p := &Problem{Start: make([]int32, n+1), ColLo: make([]float64, n), ColUp: make([]float64, n), Obj: c,
			RowLo: b, RowUp: b}
		for j := 0; j < n; j++ {
			p.ColUp[j] = math.Inf(1)
			for i := 0; i < m; i++ {
				if A[i*n+j] != 0 {
					p.Index = append(p.Index, int32(i))
					p.Value = append(p.Value, A[i*n+j])
				}
			}
			p.Start[j+1] = int32(len(p.Index))
		}
		model, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := model.Solve(Dual)
		model.Close()
		if err != nil {
			t.Fatalf("trial %d: CLP failed on a feasible bounded LP: %v", trial, err)
		}
		if gErr != nil {
			continue // inconclusive
		}
		if math.Abs(res.Objective-gObj) > 1e-6*math.Max(1, math.Abs(gObj)) {
			t.Errorf("trial %d (%d×%d): CLP %v, gonum %v", trial, m, n, res.Objective, gObj)
		}
		agreed++
	}
	if agreed < 30 {
		t.Errorf("only %d of 60 trials conclusive", agreed)
	}
	t.Logf("%d of 60 random LPs conclusive, all agreeing", agreed)
}
