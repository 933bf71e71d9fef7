//go:build !cgo

package clp

import "context"

// Model is unavailable without cgo.
type Model struct{}

// Available reports whether this build has the solver.
func Available() bool { return false }

// Version is "": builds without cgo have no solver.
func Version() string { return "" }

// Load fails: there is no solver in builds without cgo.
func Load(p *Problem) (*Model, error) { return nil, ErrNoSolver }

// Copy fails: there is no solver in builds without cgo.
func (m *Model) Copy() (*Model, error) { return nil, ErrNoSolver }

// Close does nothing.
func (m *Model) Close() {}

// SetTimeLimit does nothing.
func (m *Model) SetTimeLimit(seconds float64) {}

// SetLogLevel does nothing.
func (m *Model) SetLogLevel(level int) {}

// SetScaling does nothing.
func (m *Model) SetScaling(mode Scaling) {}

// SetPresolve does nothing.
func (m *Model) SetPresolve(on bool) {}

// SetRowBounds fails.
func (m *Model) SetRowBounds(lo, up []float64) error { return ErrNoSolver }

// SetColumnUpper fails.
func (m *Model) SetColumnUpper(up []float64) error { return ErrNoSolver }

// Solve fails.
func (m *Model) Solve(method Method) (*Result, error) { return nil, ErrNoSolver }

// Resolve fails.
func (m *Model) Resolve() (*Result, error) { return nil, ErrNoSolver }

// ResolvePrimal fails: no solver is built in.
func (m *Model) ResolvePrimal() (*Result, error) { return nil, ErrNoSolver }

// Basis fails: no solver.
func (m *Model) Basis() ([]byte, error) { return nil, ErrNoSolver }

// SetBasis fails: no solver.
func (m *Model) SetBasis(b []byte) error { return ErrNoSolver }

// WriteMPS fails.
func (m *Model) WriteMPS(path string) error { return ErrNoSolver }

// SolveContext fails.
func (m *Model) SolveContext(ctx context.Context, method Method) (*Result, error) {
	return nil, ErrNoSolver
}

// ResolveContext fails.
func (m *Model) ResolveContext(ctx context.Context) (*Result, error) { return nil, ErrNoSolver }
