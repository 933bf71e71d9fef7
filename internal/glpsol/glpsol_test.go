package glpsol

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestParseSolution(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       float64
		notOpt     bool
		fail       bool
	}{
		{"optimal", "c Status:     OPTIMAL\nc\ns bas 3014 2243 f f 0.0614145244828568\ni 1 l 0.03 0.003\n", 0.0614145244828568, false, false},
		{"undefined", "c Status:     UNDEFINED\ns bas 2 1 u u 0\n", 0, true, false},
		{"infeasible", "s bas 2 1 n f 3\n", 0, true, false},
		{"no line", "c nothing\n", 0, false, true},
		{"interior", "s ipt 2 1 o 3\n", 0, false, true},
	} {
		got, err := parseSolution([]byte(c.text))
		var no *NotOptimalError
		switch {
		case c.notOpt && !errors.As(err, &no):
			t.Errorf("%s: err = %v, want NotOptimalError", c.name, err)
		case c.fail && err == nil:
			t.Errorf("%s: no error", c.name)
		case !c.notOpt && !c.fail && (err != nil || got != c.want):
			t.Errorf("%s: %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

// TestSolve solves a two-variable LP worked by hand: min x + 2y with
// x + y ≥ 3, x ≤ 2, y ≥ 0 has its optimum 4 at (2, 1); with x + y ≥ 3
// and x + y ≤ 1 it is infeasible.
func TestSolve(t *testing.T) {
	if !Available() {
		t.Skip("glpsol not found: install Debian's glpk-utils")
	}
	dir := t.TempDir()
	write := func(name, rows, rhs string) string {
		p := filepath.Join(dir, name)
		text := "NAME HAND\nROWS\n N OBJ\n G R1\n" + rows + "COLUMNS\n X OBJ 1 R1 1\n X R2 1\n Y OBJ 2 R1 1\n Y R2 1\nRHS\n RHS R1 3\n" + rhs + "BOUNDS\n UP BND X 2\nENDATA\n"
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	got, err := Solve(context.Background(), write("ok.mps", " N R2\n", ""), Options{})
	if err != nil || got != 4 {
		t.Errorf("optimum %v, %v; want 4", got, err)
	}
	_, err = Solve(context.Background(), write("inf.mps", " L R2\n", " RHS R2 1\n"), Options{})
	var no *NotOptimalError
	if !errors.As(err, &no) {
		t.Errorf("infeasible LP: err = %v, want NotOptimalError", err)
	}
}
