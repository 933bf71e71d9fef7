package clp

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var inf = math.Inf(1)

// max 3x + 2y s.t. x + y ≤ 4, x + 3y ≤ 6, x ≤ 3: optimum 11 at (3, 1);
// written as minimizing −3x − 2y.
func small() *Problem {
	return &Problem{
		Start: []int32{0, 2, 4},
		Index: []int32{0, 1, 0, 1},
		Value: []float64{1, 1, 1, 3},
		ColLo: []float64{0, 0}, ColUp: []float64{3, inf},
		Obj:   []float64{-3, -2},
		RowLo: []float64{-inf, -inf}, RowUp: []float64{4, 6},
	}
}

// solvedSmall returns small() loaded and solved by the dual simplex,
// closed when the test ends; it skips the test without cgo.
func solvedSmall(t *testing.T) *Model {
	t.Helper()
	if !Available() {
		t.Skip("built without cgo")
	}
	m, err := Load(small())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	if _, err := m.Solve(Dual); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSolveMethods(t *testing.T) {
	if !Available() {
		t.Skip("built without cgo")
	}
	for _, m := range []Method{Dual, Primal, Barrier, Auto} {
		model, err := Load(small())
		if err != nil {
			t.Fatal(err)
		}
		res, err := model.Solve(m)
		model.Close()
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if math.Abs(res.Objective+11) > 1e-7 || math.Abs(res.X[0]-3) > 1e-7 || math.Abs(res.X[1]-1) > 1e-7 {
			t.Errorf("%s: objective %v at %v, want -11 at (3, 1)", m, res.Objective, res.X)
		}
	}
}

func TestResolveAfterBoundChange(t *testing.T) {
	model := solvedSmall(t)
	// x ≤ 1: then y = 3 (x+y ≤ 4) but x+3y ≤ 6 → y ≤ 5/3; optimum 3 + 10/3.
	model.SetColumnUpper([]float64{1, inf})
	res, err := model.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Objective+(3+10.0/3)) > 1e-7 {
		t.Errorf("objective %v, want %v", res.Objective, -(3 + 10.0/3))
	}
	p := filepath.Join(t.TempDir(), "lp.mps")
	if err := model.WriteMPS(p); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); !strings.Contains(string(b), "ROWS") {
		t.Errorf("MPS file lacks a ROWS section")
	}
}

func TestInfeasibleAndUnbounded(t *testing.T) {
	if !Available() {
		t.Skip("built without cgo")
	}
	p := small()
	p.RowLo[0] = 10 // x + y ≥ 10 with x ≤ 3 and x + 3y ≤ 6
	model, _ := Load(p)
	_, err := model.Solve(Dual)
	model.Close()
	var se *StatusError
	if !errors.As(err, &se) || se.Status != PrimalInfeasible {
		t.Errorf("err = %v, want primal infeasible", err)
	}
	u := small()
	u.RowUp = []float64{inf, inf}
	u.ColUp = []float64{inf, inf}
	model, _ = Load(u)
	_, err = model.Solve(Primal)
	model.Close()
	if !errors.As(err, &se) || se.Status != DualInfeasible {
		t.Errorf("err = %v, want unbounded", err)
	}
}

func TestValidate(t *testing.T) {
	p := small()
	p.Index[0] = 5
	if err := p.Validate(); err == nil {
		t.Error("row index out of range accepted")
	}
}

// Non-finite coefficients and NaN bounds are refused before CLP sees them
// (a NaN row bound aborted the process inside CLP).
func TestNonFiniteRefused(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		edit func(p *Problem)
		want string
	}{
		{"NaN coefficient", func(p *Problem) { p.Value[3] = nan }, "coefficient of column 1 in row 1 is NaN"},
		{"infinite coefficient", func(p *Problem) { p.Value[0] = inf }, "coefficient of column 0 in row 0 is +Inf"},
		{"NaN objective", func(p *Problem) { p.Obj[1] = nan }, "objective coefficient of column 1 is NaN"},
		{"NaN row bound", func(p *Problem) { p.RowUp[0] = nan }, "row 0: upper bound NaN"},
		{"NaN column bound", func(p *Problem) { p.ColLo[1] = nan }, "column 1: lower bound NaN"},
		{"+Inf lower bound", func(p *Problem) { p.RowLo[1] = inf }, "row 1: lower bound +Inf"},
	} {
		p := small()
		tc.edit(p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate: %v, want %q", tc.name, err, tc.want)
		}
		if _, err := Load(p); err == nil {
			t.Errorf("%s: Load accepted it", tc.name)
		}
	}
	if !Available() {
		return
	}
	m, err := Load(small())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.SetRowBounds([]float64{-inf, -inf}, []float64{nan, 6}); err == nil || !strings.Contains(err.Error(), "row 0: upper bound NaN") {
		t.Errorf("SetRowBounds with NaN: %v", err)
	}
	if err := m.SetColumnUpper([]float64{nan, inf}); err == nil || !strings.Contains(err.Error(), "column 0: upper bound NaN") {
		t.Errorf("SetColumnUpper with NaN: %v", err)
	}
}

// TestCopy checks that a copy keeps the model's basis (its re-solve at
// the same bounds takes no iteration) and is independent of it.
func TestCopy(t *testing.T) {
	model := solvedSmall(t)
	cp, err := model.Copy()
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	res, err := cp.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Objective+11) > 1e-7 || res.Iterations != 0 {
		t.Errorf("copy re-solved at the same bounds: objective %v in %d iterations, want -11 in 0", res.Objective, res.Iterations)
	}
	// x ≤ 1 on the copy only: 3 + 10/3 there (see
	// TestResolveAfterBoundChange), 11 still on the model.
	if err := cp.SetColumnUpper([]float64{1, inf}); err != nil {
		t.Fatal(err)
	}
	if res, err = cp.Resolve(); err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Objective+(3+10.0/3)) > 1e-7 {
		t.Errorf("copy with x ≤ 1: objective %v, want %v", res.Objective, -(3 + 10.0/3))
	}
	if res, err = model.Resolve(); err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Objective+11) > 1e-7 || res.Iterations != 0 {
		t.Errorf("model after its copy changed: objective %v in %d iterations, want -11 in 0", res.Objective, res.Iterations)
	}
}

// TestSetBasis copies the optimal basis of one model into another of the
// same shape: with the same data its dual simplex re-solve takes no
// iteration (from scratch it takes some); with other bounds (x ≤ 1,
// optimum 3 + 10/3 by hand, as in TestResolveAfterBoundChange) it ends at
// that model's own optimum. A basis of the wrong length, or one from a
// model never solved, is refused.
func TestSetBasis(t *testing.T) {
	if !Available() {
		t.Skip("built without cgo")
	}
	a, err := Load(small())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Basis(); err == nil {
		t.Error("a basis before any solve")
	}
	cold, err := a.Solve(Dual)
	if err != nil {
		t.Fatal(err)
	}
	if cold.Iterations == 0 {
		t.Fatal("no iteration from scratch: the test cannot tell a copied basis")
	}
	basis, err := a.Basis()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ up, want float64 }{{3, -11}, {1, -(3 + 10.0/3)}} {
		b, err := Load(small())
		if err != nil {
			t.Fatal(err)
		}
		if err := b.SetBasis(basis[:1]); err == nil {
			t.Error("a basis of 1 status for 2 columns and 2 rows")
		}
		b.SetColumnUpper([]float64{c.up, inf})
		if err := b.SetBasis(basis); err != nil {
			t.Fatal(err)
		}
		res, err := b.Resolve()
		b.Close()
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.Objective-c.want) > 1e-7 {
			t.Errorf("x ≤ %g: objective %v, want %v", c.up, res.Objective, c.want)
		}
		if c.up == 3 && res.Iterations > 0 {
			t.Errorf("x ≤ 3: %d iterations from the optimal basis", res.Iterations)
		}
	}
}

// TestResolvePrimal checks that the primal simplex from a given basis
// starts there: from the optimal basis of small() it takes no iteration
// and gives the optimum; from no basis it solves from scratch.
func TestResolvePrimal(t *testing.T) {
	if !Available() {
		t.Skip("built without cgo")
	}
	a, err := Load(small())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	cold, err := a.ResolvePrimal()
	if err != nil {
		t.Fatal(err)
	}
	if cold.Iterations == 0 || math.Abs(cold.Objective+11) > 1e-7 {
		t.Fatalf("from no basis: %d iterations, objective %v; want some, −11", cold.Iterations, cold.Objective)
	}
	basis, err := a.Basis()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(small())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.SetBasis(basis); err != nil {
		t.Fatal(err)
	}
	warm, err := b.ResolvePrimal()
	if err != nil {
		t.Fatal(err)
	}
	if warm.Iterations != 0 || math.Abs(warm.Objective+11) > 1e-7 {
		t.Errorf("from the optimal basis: %d iterations, objective %v; want 0, −11", warm.Iterations, warm.Objective)
	}
}
