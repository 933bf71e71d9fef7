//go:build !cgo

package clp

// Model is unavailable without cgo.
type Model struct{}

// Available reports whether this build has the solver.
func Available() bool { return false }

// Load fails: there is no solver in builds without cgo.
func Load(p *Problem) (*Model, error) { return nil, ErrNoSolver }

// Close does nothing.
func (m *Model) Close() {}

// SetTimeLimit does nothing.
func (m *Model) SetTimeLimit(seconds float64) {}

// SetColumnUpper fails.
func (m *Model) SetColumnUpper(up []float64) error { return ErrNoSolver }

// Solve fails.
func (m *Model) Solve(method Method) (*Result, error) { return nil, ErrNoSolver }

// Resolve fails.
func (m *Model) Resolve() (*Result, error) { return nil, ErrNoSolver }

// WriteMPS fails.
func (m *Model) WriteMPS(path string) error { return ErrNoSolver }
