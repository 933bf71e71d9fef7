// Package glpsol runs GLPK's stand-alone LP solver, glpsol (Debian package
// glpk-utils), on an MPS file: a solver independent of COIN-OR CLP, which
// capsim's bound uses, so that tests can check the bound's optimum against
// a peer's (docs/design/bound.md, "Checked against glpsol").
package glpsol

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Program is the name of GLPK's solver looked up on PATH.
const Program = "glpsol"

// ErrNotInstalled is returned by Solve when glpsol is not on PATH.
var ErrNotInstalled = errors.New("glpsol not found on PATH (Debian package glpk-utils)")

// Available reports whether glpsol is on PATH.
func Available() bool {
	_, err := exec.LookPath(Program)
	return err == nil
}

// Options are how glpsol solves.
type Options struct {
	// Fixed reads the file as fixed MPS (8-character names, 12-character
	// numbers); the default is free MPS, the format capsim writes
	// (clp.Model.WriteMPS).
	Fixed bool
	// Exact solves with GLPK's simplex in exact rational arithmetic
	// (--exact), from the floating-point simplex's basis: slow beyond a
	// few thousand rows.
	Exact bool
	// XCheck checks the final basis in exact arithmetic (--xcheck).
	XCheck bool
	// Dual uses the dual simplex instead of the primal.
	Dual bool
}

// NotOptimalError is a solve that ended without an optimal basic
// solution: Status is glpsol's (for example "INFEASIBLE (FINAL)" or
// "UNDEFINED").
type NotOptimalError struct {
	Path   string
	Status string
}

func (e *NotOptimalError) Error() string {
	return fmt.Sprintf("glpsol: %s: status %s, not optimal", e.Path, e.Status)
}

// Solve minimizes the LP in the MPS file at path with glpsol and returns
// its optimal objective, read at full precision from glpsol's plain-text
// solution (-w). It fails when glpsol fails or the solution it reports is
// not optimal (primal and dual feasible).
func Solve(ctx context.Context, path string, opt Options) (float64, error) {
	bin, err := exec.LookPath(Program)
	if err != nil {
		return 0, ErrNotInstalled
	}
	dir, err := os.MkdirTemp("", "glpsol")
	if err != nil {
		return 0, fmt.Errorf("glpsol: %w", err)
	}
	defer os.RemoveAll(dir)
	sol := filepath.Join(dir, "sol.txt")
	args := []string{"--freemps", "--min", "-w", sol}
	if opt.Fixed {
		args[0] = "--mps"
	}
	if opt.Exact {
		args = append(args, "--exact")
	}
	if opt.XCheck {
		args = append(args, "--xcheck")
	}
	if opt.Dual {
		args = append(args, "--dual")
	}
	args = append(args, path)
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("glpsol %s: %w\n%s", strings.Join(args, " "), err, tail(out.String()))
	}
	text, err := os.ReadFile(sol)
	if err != nil {
		return 0, fmt.Errorf("glpsol %s wrote no solution: %w\n%s", path, err, tail(out.String()))
	}
	obj, err := parseSolution(text)
	if err != nil {
		var no *NotOptimalError
		if errors.As(err, &no) {
			no.Path = path
			no.Status = status(text)
		}
		return 0, err
	}
	return obj, nil
}

// parseSolution reads the objective of a basic solution in GLPK's plain
// text format (glp_write_sol): the line "s bas ROWS COLS PRIM DUAL OBJ",
// where PRIM and DUAL are "f" for a feasible solution, the objective
// written with 15 significant digits.
func parseSolution(text []byte) (float64, error) {
	for _, line := range strings.Split(string(text), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "s" {
			continue
		}
		if len(f) != 7 || f[1] != "bas" {
			return 0, fmt.Errorf("glpsol: unexpected solution line %q (want \"s bas ROWS COLS PRIM DUAL OBJ\")", line)
		}
		if f[4] != "f" || f[5] != "f" {
			return 0, &NotOptimalError{}
		}
		v, err := strconv.ParseFloat(f[6], 64)
		if err != nil {
			return 0, fmt.Errorf("glpsol: objective in %q: %w", line, err)
		}
		return v, nil
	}
	return 0, errors.New("glpsol: no solution line in its output")
}

// status is the "c Status:" comment of a plain-text solution.
func status(text []byte) string {
	for _, line := range strings.Split(string(text), "\n") {
		if s, ok := strings.CutPrefix(line, "c Status:"); ok {
			return strings.TrimSpace(s)
		}
	}
	return "unknown"
}

// tail is the end of glpsol's log, for an error message.
func tail(s string) string {
	if len(s) > 2000 {
		s = "..." + s[len(s)-2000:]
	}
	return s
}
