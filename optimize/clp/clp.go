// Package clp is a small binding of COIN-OR CLP, the linear-programming
// solver capsim uses for the power-constrained optimal bound. It wraps the
// C interface (coin/Clp_C_Interface.h) of Debian's coinor-libclp-dev.
//
// Builds without cgo get a stub whose every solve fails with ErrNoSolver.
package clp

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// Method selects CLP's algorithm.
type Method int

// Solve methods (CLP's documentation): dual simplex for small LPs and warm
// re-solves, barrier with presolve for large ones.
const (
	Auto           Method = iota // dual below 10,000 columns, barrier above
	Dual                         // dual simplex
	Primal                       // primal simplex
	Barrier                      // interior point, then crossover to a basis
	BarrierNoCross               // interior point only: no basis, so no warm re-solve from it
)

func (m Method) String() string {
	if m < 0 || int(m) >= len(methodNames) {
		return fmt.Sprintf("method %d", int(m))
	}
	return methodNames[m]
}

var methodNames = [...]string{"auto", "dual", "primal", "barrier", "barrier-nocross"}

// ParseMethod parses a Method's String form.
func ParseMethod(s string) (Method, error) {
	for i, n := range methodNames {
		if n == s {
			return Method(i), nil
		}
	}
	return 0, fmt.Errorf("clp: unknown method %q (want auto, dual, primal, barrier or barrier-nocross)", s)
}

// Scaling is CLP's matrix scaling mode (Clp_scaling).
type Scaling int

// Scaling modes.
const (
	ScaleOff       Scaling = 0
	ScaleEquil     Scaling = 1
	ScaleGeometric Scaling = 2
	ScaleAuto      Scaling = 3 // CLP's default
)

// Problem is an LP in column form: minimize Obj·x subject to
// RowLo ≤ A·x ≤ RowUp and ColLo ≤ x ≤ ColUp, with A in compressed sparse
// column form (column j's entries are Index/Value[Start[j]:Start[j+1]]).
// Infinite bounds are ±math.Inf(1).
type Problem struct {
	Start        []int32
	Index        []int32
	Value        []float64
	ColLo, ColUp []float64
	Obj          []float64
	RowLo, RowUp []float64
}

// Validate checks the problem's shape.
func (p *Problem) Validate() error {
	nc, nr := len(p.Obj), len(p.RowLo)
	if len(p.Start) != nc+1 || len(p.ColLo) != nc || len(p.ColUp) != nc || len(p.RowUp) != nr {
		return fmt.Errorf("clp: inconsistent sizes: %d columns, %d starts, %d/%d column bounds, %d/%d row bounds",
			nc, len(p.Start), len(p.ColLo), len(p.ColUp), len(p.RowLo), len(p.RowUp))
	}
	if len(p.Index) != len(p.Value) || p.Start[0] != 0 || int(p.Start[nc]) != len(p.Index) {
		return fmt.Errorf("clp: matrix has %d indices and %d values, starts end at %d", len(p.Index), len(p.Value), p.Start[nc])
	}
	for j := 0; j < nc; j++ {
		if p.Start[j+1] < p.Start[j] {
			return fmt.Errorf("clp: column %d starts decrease", j)
		}
	}
	for _, i := range p.Index {
		if i < 0 || int(i) >= nr {
			return fmt.Errorf("clp: row index %d outside 0..%d", i, nr-1)
		}
	}
	// CLP aborts the process (or solves garbage) on NaN: refuse every
	// non-finite coefficient and every NaN or wrong-signed infinite bound
	// before it sees them.
	for j := 0; j < nc; j++ {
		for k := p.Start[j]; k < p.Start[j+1]; k++ {
			if v := p.Value[k]; math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("clp: coefficient of column %d in row %d is %g", j, p.Index[k], v)
			}
		}
		if v := p.Obj[j]; math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("clp: objective coefficient of column %d is %g", j, v)
		}
	}
	if err := checkBounds("column", p.ColLo, p.ColUp); err != nil {
		return err
	}
	return checkBounds("row", p.RowLo, p.RowUp)
}

// checkBounds reports a NaN bound, a lower bound of +Inf or an upper
// bound of −Inf (what is "row" or "column"). lo or up may be nil.
func checkBounds(what string, lo, up []float64) error {
	for i, v := range lo {
		if math.IsNaN(v) || math.IsInf(v, 1) {
			return fmt.Errorf("clp: %s %d: lower bound %g", what, i, v)
		}
	}
	for i, v := range up {
		if math.IsNaN(v) || math.IsInf(v, -1) {
			return fmt.Errorf("clp: %s %d: upper bound %g", what, i, v)
		}
	}
	return nil
}

// Status is CLP's outcome of a solve.
type Status int

// CLP statuses (Clp_status).
const (
	Optimal Status = iota
	PrimalInfeasible
	DualInfeasible // the LP is unbounded
	StoppedOnLimit
	Errors
)

func (s Status) String() string {
	switch s {
	case Optimal:
		return "optimal"
	case PrimalInfeasible:
		return "primal infeasible"
	case DualInfeasible:
		return "unbounded (dual infeasible)"
	case StoppedOnLimit:
		return "stopped on the time or iteration limit"
	case Errors:
		return "stopped on numerical errors"
	}
	return fmt.Sprintf("status %d", int(s))
}

// ErrNoSolver is returned by builds without cgo.
var ErrNoSolver = errors.New("capsim was built without cgo, so the CLP LP solver is not available (rebuild with CGO_ENABLED=1 and coinor-libclp-dev installed)")

// StatusError is a solve that did not end optimal.
type StatusError struct {
	Status    Status
	Secondary int
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("clp: LP %s (secondary status %d)", e.Status, e.Secondary)
}

// Result is an optimal solution.
type Result struct {
	Objective  float64
	X          []float64 // column values
	RowAct     []float64 // row activities A·x
	Iterations int
}

// CheckWritable reports whether a file can be created at path: its folder
// exists and is a folder, and path is not a folder. Call it before a long
// solve whose result goes to path.
func CheckWritable(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s: %s is not a folder", path, dir)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a folder", path)
	}
	return nil
}
