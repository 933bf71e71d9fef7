//go:build cgo

package clp

/*
#cgo pkg-config: clp
#include <stdlib.h>
#include <coin/Clp_C_Interface.h>
*/
import "C"

import (
	"fmt"
	"math"
	"unsafe"
)

// Model is a loaded LP. It owns C memory: call Close when done. A Model is
// not safe for concurrent use.
type Model struct {
	p          unsafe.Pointer // Clp_Simplex is typedef void
	nc, nr     int
	solved     bool
	noPresolve bool
	hasBasis   bool
}

// Available reports whether this build has the solver.
func Available() bool { return true }

func finite(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		switch {
		case math.IsInf(x, 1):
			out[i] = math.MaxFloat64
		case math.IsInf(x, -1):
			out[i] = -math.MaxFloat64
		default:
			out[i] = x
		}
	}
	return out
}

func dp(v []float64) *C.double {
	if len(v) == 0 {
		return nil
	}
	return (*C.double)(unsafe.Pointer(&v[0]))
}

// Load builds a model of p, minimizing.
func Load(p *Problem) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	m := &Model{p: C.Clp_newModel(), nc: len(p.Obj), nr: len(p.RowLo)}
	C.Clp_setLogLevel(m.p, 0)
	idx := p.Index
	if len(idx) == 0 {
		idx = []int32{0} // CLP reads nothing from it, but the pointer must be valid
	}
	vals := p.Value
	if len(vals) == 0 {
		vals = []float64{0}
	}
	start := make([]C.int, len(p.Start))
	for i, s := range p.Start {
		start[i] = C.int(s)
	}
	C.Clp_loadProblem(m.p, C.int(m.nc), C.int(m.nr),
		(*C.CoinBigIndex)(unsafe.Pointer(&start[0])), (*C.int)(unsafe.Pointer(&idx[0])), dp(vals),
		dp(finite(p.ColLo)), dp(finite(p.ColUp)), dp(p.Obj), dp(finite(p.RowLo)), dp(finite(p.RowUp)))
	C.Clp_setObjSense(m.p, 1)
	return m, nil
}

// Close frees the model's C memory.
func (m *Model) Close() {
	if m.p != nil {
		C.Clp_deleteModel(m.p)
		m.p = nil
	}
}

// SetTimeLimit bounds the solve time in seconds (0: none).
func (m *Model) SetTimeLimit(seconds float64) {
	if seconds > 0 {
		C.Clp_setMaximumSeconds(m.p, C.double(seconds))
	}
}

// SetLogLevel sets CLP's log level (0 silent, the default; 1 phases and
// times; higher is chattier). CLP logs to the C standard output.
func (m *Model) SetLogLevel(level int) { C.Clp_setLogLevel(m.p, C.int(level)) }

// SetScaling sets CLP's matrix scaling mode (ScaleAuto by default).
func (m *Model) SetScaling(mode Scaling) { C.Clp_scaling(m.p, C.int(mode)) }

// SetPresolve turns CLP's presolve on (the default) or off for Solve.
func (m *Model) SetPresolve(on bool) { m.noPresolve = !on }

// SetRowBounds replaces every row's bounds (for re-solving with a new
// right-hand side: keep the basis, then call Resolve).
func (m *Model) SetRowBounds(lo, up []float64) error {
	if len(lo) != m.nr || len(up) != m.nr {
		return fmt.Errorf("clp: %d/%d row bounds for %d rows", len(lo), len(up), m.nr)
	}
	if err := checkBounds("row", lo, up); err != nil {
		return err
	}
	C.Clp_chgRowLower(m.p, dp(finite(lo)))
	C.Clp_chgRowUpper(m.p, dp(finite(up)))
	return nil
}

// SetColumnUpper replaces every column's upper bound (for re-solving with
// a new right-hand side: keep the basis, then call Resolve).
func (m *Model) SetColumnUpper(up []float64) error {
	if len(up) != m.nc {
		return fmt.Errorf("clp: %d upper bounds for %d columns", len(up), m.nc)
	}
	if err := checkBounds("column", nil, up); err != nil {
		return err
	}
	C.Clp_chgColumnUpper(m.p, dp(finite(up)))
	return nil
}

// Solve solves from scratch with the method.
func (m *Model) Solve(method Method) (*Result, error) {
	if method == Auto {
		method = Dual
		if m.nc >= 10000 {
			method = Barrier
		}
	}
	o := C.ClpSolve_new()
	defer C.ClpSolve_delete(o)
	t := map[Method]int{Dual: 0, Primal: 1, Barrier: 3, BarrierNoCross: 4}[method]
	C.ClpSolve_setSolveType(o, C.int(t), -1)
	pt := 0 // presolve on
	if m.noPresolve {
		pt = 1
	}
	C.ClpSolve_setPresolveType(o, C.int(pt), -1)
	C.Clp_initialSolveWithOptions(m.p, o)
	m.solved = true
	m.hasBasis = method != BarrierNoCross
	return m.result()
}

// Resolve re-solves with the dual simplex from the last basis, after bound
// changes; it solves from scratch when nothing was solved yet (or the last
// solve left no basis).
func (m *Model) Resolve() (*Result, error) {
	if !m.solved || !m.hasBasis {
		return m.Solve(Dual)
	}
	C.Clp_dual(m.p, 0)
	return m.result()
}

func (m *Model) result() (*Result, error) {
	if st := Status(C.Clp_status(m.p)); st != Optimal {
		return nil, &StatusError{Status: st, Secondary: int(C.Clp_secondaryStatus(m.p))}
	}
	r := &Result{Objective: float64(C.Clp_getObjValue(m.p)), Iterations: int(C.Clp_getIterationCount(m.p))}
	if m.nc > 0 {
		r.X = append([]float64(nil), unsafe.Slice((*float64)(unsafe.Pointer(C.Clp_getColSolution(m.p))), m.nc)...)
	}
	if m.nr > 0 {
		r.RowAct = append([]float64(nil), unsafe.Slice((*float64)(unsafe.Pointer(C.Clp_getRowActivity(m.p))), m.nr)...)
	}
	return r, nil
}

// WriteMPS writes the model as an MPS file.
func (m *Model) WriteMPS(path string) error {
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	if rc := C.Clp_writeMps(m.p, cs, 0, 1, 1); rc != 0 {
		return fmt.Errorf("clp: writing MPS file %s failed (code %d)", path, int(rc))
	}
	return nil
}
