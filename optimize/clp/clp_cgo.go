//go:build cgo

package clp

/*
#cgo pkg-config: clp
#cgo LDFLAGS: -lstdc++
#include <stdlib.h>
#include <Clp_C_Interface.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
	"unsafe"

	"github.com/capsim/capsim/internal/atomicfile"
)

// Model is a loaded LP. It owns C memory: call Close when done. A Model is
// not safe for concurrent use.
//
// Every call into CLP goes through a C++ shim (shim.cpp) that turns C++
// exceptions into errors, so a CLP failure never aborts the process.
type Model struct {
	p          *C.capsim_clp
	nc, nr     int
	solved     bool
	noPresolve bool
	hasBasis   bool
	// busy is set while an interrupted solve is still running in C: the
	// model cannot be used again, and Close frees it only once that solve
	// has returned.
	busy chan struct{}
}

// Available reports whether this build has the solver.
func Available() bool { return true }

// Version is the version of the CLP library the process runs with, as
// the library itself reports it (a shared library upgraded under the same
// executable tells), "" in builds without the solver.
func Version() string { return C.GoString(C.Clp_Version()) }

// errBuf is the buffer the shim writes an error message into.
type errBuf [C.CAPSIM_CLP_ERRLEN]C.char

func (e *errBuf) ptr() *C.char { return &e[0] }

// check turns a shim return code into an error.
func (e *errBuf) check(rc C.int, what string) error {
	if rc == 0 {
		return nil
	}
	return fmt.Errorf("clp: %s: %s", what, C.GoString(e.ptr()))
}

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
	var e errBuf
	cm := C.capsim_clp_new(e.ptr())
	if cm == nil {
		return nil, fmt.Errorf("clp: new model: %s", C.GoString(e.ptr()))
	}
	m := &Model{p: cm, nc: len(p.Obj), nr: len(p.RowLo)}
	if err := e.check(C.capsim_clp_set_log_level(m.p, 0, e.ptr()), "log level"); err != nil {
		m.Close()
		return nil, err
	}
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
	rc := C.capsim_clp_load(m.p, C.int(m.nc), C.int(m.nr),
		&start[0], (*C.int)(unsafe.Pointer(&idx[0])), dp(vals),
		dp(finite(p.ColLo)), dp(finite(p.ColUp)), dp(p.Obj), dp(finite(p.RowLo)), dp(finite(p.RowUp)), e.ptr())
	if err := e.check(rc, "loading the LP"); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// Copy returns a copy of the model with its own C memory: the same LP,
// bounds and options, and its last solution and basis, so that the
// copy's next Resolve starts from where the model's would. The two may
// then be solved at the same time.
func (m *Model) Copy() (*Model, error) {
	if err := m.usable(); err != nil {
		return nil, err
	}
	var e errBuf
	cp := C.capsim_clp_copy(m.p, e.ptr())
	if cp == nil {
		return nil, fmt.Errorf("clp: copying the model: %s", C.GoString(e.ptr()))
	}
	return &Model{p: cp, nc: m.nc, nr: m.nr, solved: m.solved, noPresolve: m.noPresolve, hasBasis: m.hasBasis}, nil
}

// Close frees the model's C memory. After an interrupted solve that CLP
// has not given back yet, the memory is freed when it does.
func (m *Model) Close() {
	if m.p == nil {
		return
	}
	p := m.p
	m.p = nil
	if m.busy != nil {
		busy := m.busy
		go func() {
			<-busy
			C.capsim_clp_delete(p)
		}()
		return
	}
	C.capsim_clp_delete(p)
}

// usable reports why the model cannot be used, or nil.
func (m *Model) usable() error {
	switch {
	case m.p == nil:
		return errors.New("clp: model is closed")
	case m.busy != nil:
		return errors.New("clp: model is still stopping an interrupted solve")
	}
	return nil
}

// SetTimeLimit bounds the solve time in seconds (0: none).
func (m *Model) SetTimeLimit(seconds float64) {
	if seconds > 0 && m.usable() == nil {
		var e errBuf
		C.capsim_clp_set_max_seconds(m.p, C.double(seconds), e.ptr())
	}
}

// SetLogLevel sets CLP's log level (0 silent, the default; 1 phases and
// times; higher is chattier). CLP logs to the C standard output.
func (m *Model) SetLogLevel(level int) {
	if m.usable() == nil {
		var e errBuf
		C.capsim_clp_set_log_level(m.p, C.int(level), e.ptr())
	}
}

// SetScaling sets CLP's matrix scaling mode (ScaleAuto by default).
func (m *Model) SetScaling(mode Scaling) {
	if m.usable() == nil {
		var e errBuf
		C.capsim_clp_set_scaling(m.p, C.int(mode), e.ptr())
	}
}

// SetPresolve turns CLP's presolve on (the default) or off for Solve.
func (m *Model) SetPresolve(on bool) { m.noPresolve = !on }

// SetRowBounds replaces every row's bounds (for re-solving with a new
// right-hand side: keep the basis, then call Resolve).
func (m *Model) SetRowBounds(lo, up []float64) error {
	if err := m.usable(); err != nil {
		return err
	}
	if len(lo) != m.nr || len(up) != m.nr {
		return fmt.Errorf("clp: %d/%d row bounds for %d rows", len(lo), len(up), m.nr)
	}
	if err := checkBounds("row", lo, up); err != nil {
		return err
	}
	var e errBuf
	return e.check(C.capsim_clp_chg_row_bounds(m.p, dp(finite(lo)), dp(finite(up)), e.ptr()), "row bounds")
}

// SetColumnUpper replaces every column's upper bound (for re-solving with
// a new right-hand side: keep the basis, then call Resolve).
func (m *Model) SetColumnUpper(up []float64) error {
	if err := m.usable(); err != nil {
		return err
	}
	if len(up) != m.nc {
		return fmt.Errorf("clp: %d upper bounds for %d columns", len(up), m.nc)
	}
	if err := checkBounds("column", nil, up); err != nil {
		return err
	}
	var e errBuf
	return e.check(C.capsim_clp_chg_col_upper(m.p, dp(finite(up)), e.ptr()), "column bounds")
}

// Solve solves from scratch with the method.
func (m *Model) Solve(method Method) (*Result, error) {
	return m.SolveContext(context.Background(), method)
}

// stopGrace is how long an interrupted solve may take to notice its stop
// flag before SolveContext returns without it. The simplex checks the
// flag every iteration; the barrier does not, and keeps running in C
// until it ends (the model is then freed by Close).
const stopGrace = 200 * time.Millisecond

// SolveContext is Solve that stops when ctx is done: the simplex at its
// next iteration; a solve that does not stop within a fraction of a second
// (the barrier) is left to end in the background. The error then wraps
// ctx.Err(), and the model cannot be solved again.
func (m *Model) SolveContext(ctx context.Context, method Method) (*Result, error) {
	if err := m.usable(); err != nil {
		return nil, err
	}
	if method == Auto {
		method = Dual
		if m.nc >= 10000 {
			method = Barrier
		}
	}
	t := map[Method]int{Dual: 0, Primal: 1, Barrier: 3, BarrierNoCross: 4}[method]
	pt := 0 // presolve on
	if m.noPresolve {
		pt = 1
	}
	p := m.p
	err := m.run(ctx, "solving", func(e *errBuf) C.int {
		return C.capsim_clp_initial_solve(p, C.int(t), C.int(pt), e.ptr())
	})
	if err != nil {
		return nil, err
	}
	m.solved = true
	m.hasBasis = method != BarrierNoCross
	return m.result()
}

// Resolve re-solves with the dual simplex from the last basis, after bound
// changes; it solves from scratch when nothing was solved yet (or the last
// solve left no basis).
func (m *Model) Resolve() (*Result, error) { return m.ResolveContext(context.Background()) }

// ResolveContext is Resolve that stops when ctx is done, as SolveContext.
func (m *Model) ResolveContext(ctx context.Context) (*Result, error) {
	if err := m.usable(); err != nil {
		return nil, err
	}
	if !m.solved || !m.hasBasis {
		return m.SolveContext(ctx, Dual)
	}
	p := m.p
	if err := m.run(ctx, "re-solving", func(e *errBuf) C.int { return C.capsim_clp_dual(p, e.ptr()) }); err != nil {
		return nil, err
	}
	return m.result()
}

// ResolvePrimal re-solves with the primal simplex from the last basis (or
// the one SetBasis gave): where that basis is feasible and not optimal,
// as one built from a feasible schedule is.
func (m *Model) ResolvePrimal() (*Result, error) {
	if err := m.usable(); err != nil {
		return nil, err
	}
	if !m.solved || !m.hasBasis {
		return m.Solve(Primal)
	}
	p := m.p
	if err := m.run(context.Background(), "re-solving", func(e *errBuf) C.int { return C.capsim_clp_primal(p, e.ptr()) }); err != nil {
		return nil, err
	}
	return m.result()
}

// Basis returns the basis of the last solve: a status per column, then
// per row, in CLP's encoding, for SetBasis on a model of the same shape.
// It fails where the last solve left no basis (none yet, the barrier
// without crossover, a stopped solve).
func (m *Model) Basis() ([]byte, error) {
	if err := m.usable(); err != nil {
		return nil, err
	}
	if !m.solved || !m.hasBasis {
		return nil, errors.New("clp: no basis to return (nothing solved to a basis)")
	}
	b := make([]byte, m.nc+m.nr)
	if len(b) == 0 {
		return b, nil
	}
	var e errBuf
	if err := e.check(C.capsim_clp_get_status(m.p, (*C.uchar)(unsafe.Pointer(&b[0])), e.ptr()), "reading the basis"); err != nil {
		return nil, err
	}
	return b, nil
}

// SetBasis makes b, another model's Basis, this model's basis, so that
// Resolve starts the dual simplex from it: on a model of the same rows
// and columns with other coefficients or bounds (the LP of another
// stretch of the same shape), a basis near its optimum. Any basis gives
// the optimum; a poor one only costs iterations.
func (m *Model) SetBasis(b []byte) error {
	if err := m.usable(); err != nil {
		return err
	}
	if len(b) != m.nc+m.nr {
		return fmt.Errorf("clp: a basis of %d statuses for %d columns and %d rows", len(b), m.nc, m.nr)
	}
	if len(b) > 0 {
		var e errBuf
		if err := e.check(C.capsim_clp_set_status(m.p, (*C.uchar)(unsafe.Pointer(&b[0])), e.ptr()), "setting the basis"); err != nil {
			return err
		}
	}
	m.solved, m.hasBasis = true, true
	return nil
}

// run calls solve, stopping it when ctx is done.
func (m *Model) run(ctx context.Context, what string, solve func(*errBuf) C.int) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("clp: %s interrupted: %w", what, err)
	}
	C.capsim_clp_clear_stop(m.p)
	if ctx.Done() == nil {
		var e errBuf
		return e.check(solve(&e), what)
	}
	done := make(chan struct{})
	var (
		e  errBuf
		rc C.int
	)
	go func() {
		rc = solve(&e)
		close(done)
	}()
	select {
	case <-done:
		return e.check(rc, what)
	case <-ctx.Done():
	}
	C.capsim_clp_stop(m.p)
	select {
	case <-done:
	case <-time.After(stopGrace):
		m.busy = done
	}
	m.solved = false // the basis of a stopped solve is not optimal
	return fmt.Errorf("clp: %s interrupted: %w", what, ctx.Err())
}

func (m *Model) result() (*Result, error) {
	if st := Status(C.capsim_clp_status(m.p)); st != Optimal {
		return nil, &StatusError{Status: st, Secondary: int(C.capsim_clp_secondary_status(m.p))}
	}
	r := &Result{Objective: float64(C.capsim_clp_objective(m.p)), Iterations: int(C.capsim_clp_iterations(m.p))}
	if m.nc > 0 {
		r.X = append([]float64(nil), unsafe.Slice((*float64)(unsafe.Pointer(C.capsim_clp_col_solution(m.p))), m.nc)...)
	}
	if m.nr > 0 {
		r.RowAct = append([]float64(nil), unsafe.Slice((*float64)(unsafe.Pointer(C.capsim_clp_row_activity(m.p))), m.nr)...)
	}
	return r, nil
}

// WriteMPS writes the model as a free-format MPS file with every number to
// about 16 significant digits (CLP's "extra accuracy"; glpsol reads it
// with --freemps), atomically. The folder must exist.
func (m *Model) WriteMPS(path string) error {
	if err := m.usable(); err != nil {
		return err
	}
	if err := CheckWritable(path); err != nil {
		return err
	}
	// Atomically: a reader (or a stop mid-write) never sees half a file.
	return atomicfile.WriteVia(path, m.writeMPS)
}

// writeMPS writes the MPS file without checking path first: CLP's own
// failures (a CoinError) come back as errors.
func (m *Model) writeMPS(path string) error {
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	var e errBuf
	return e.check(C.capsim_clp_write_mps(m.p, cs, e.ptr()), "writing MPS file "+path)
}
