package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
)

// testRows computes the rows once for the tests of this file.
var testRows = sync.OnceValues(func() ([]Row, error) { return Rows("../..") })

// TestRows runs the generator: every match row must be within its
// tolerance, every qualitative row's relation must hold, and every note
// must have rows.
func TestRows(t *testing.T) {
	if !clp.Available() {
		t.Skip("built without cgo: no LP solver for the LP rows (Bailey et al., SC'15)")
	}
	rows, err := testRows()
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, r := range rows {
		per[r.Note]++
		if r.Kind == Match && (math.IsNaN(r.Capsim) || r.Tol < 0 || r.Tol > 0.01*math.Max(1, math.Abs(r.Paper))) {
			t.Errorf("%s %s %s: tolerance %g is not a printed-precision tolerance for %g", r.Note, r.Section, r.What, r.Tol, r.Paper)
		}
		if !r.OK() {
			if r.Kind == Match {
				t.Errorf("%s %s %s: capsim %.9g, paper %.9g (tolerance %g)", r.Note, r.Section, r.What, r.Capsim, r.Paper, r.Tol)
			} else {
				t.Errorf("%s %s %s: the claim %q does not hold: %s", r.Note, r.Section, r.What, r.Claim, r.Measured)
			}
		}
		if r.Command == "" {
			t.Errorf("%s %s %s: no command", r.Note, r.Section, r.What)
		}
	}
	for _, n := range notes {
		if per[n.name] < 5 {
			t.Errorf("note %s: %d rows, want at least 5", n.name, per[n.name])
		}
	}
}

// TestPageUpToDate fails when docs/reference/reproductions.md differs from what the
// generator writes: run `go run ./bench/repro` (make repro) to refresh it.
func TestPageUpToDate(t *testing.T) {
	if !clp.Available() {
		t.Skip("built without cgo: no LP solver for the LP rows (Bailey et al., SC'15)")
	}
	rows, err := testRows()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Render(&b, rows); err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile(filepath.Join("..", "..", "docs", "reference", "reproductions.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, b.Bytes()) {
		t.Error("docs/reference/reproductions.md is stale: run `go run ./bench/repro` (make repro)")
	}
}

// A failing row is reported as failing, on the page and by OK.
func TestRowJudgement(t *testing.T) {
	for _, c := range []struct {
		r  Row
		ok bool
	}{
		{match("000_cos", "s", "w", 10, 10.0004, 5e-4, "", "c"), true},
		{match("000_cos", "s", "w", 10, 10.0006, 5e-4, "", "c"), false},
		{match("000_cos", "s", "w", 10, math.NaN(), 5e-4, "", "c"), false},
		{qual("000_cos", "s", "w", "claim", true, "c", "m"), true},
		{qual("000_cos", "s", "w", "claim", false, "c", "m"), false},
	} {
		if c.r.OK() != c.ok {
			t.Errorf("%+v: OK %v, want %v", c.r, c.r.OK(), c.ok)
		}
		var b bytes.Buffer
		if err := Render(&b, []Row{c.r}); err != nil {
			t.Fatal(err)
		}
		if got := bytes.Contains(b.Bytes(), []byte("**FAIL**")); got == c.ok {
			t.Errorf("%+v: page shows FAIL %v", c.r, got)
		}
	}
}

// A pipe in a row's text does not break the table.
func TestRenderEscapesPipes(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, []Row{qual("000_cos", "s", "a|b", "c", true, "cmd", "m")}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte(`| a\|b |`)) {
		t.Errorf("pipe not escaped:\n%s", b.Bytes())
	}
}

// The page is never written over something that is not a regular file.
func TestWritePageRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	if err := writePage(dir, []byte("x")); err == nil {
		t.Error("writing over a folder: no error")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Errorf("the folder was replaced: %v %v", fi, err)
	}
	f := filepath.Join(dir, "page.md")
	if err := writePage(f, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(f); string(b) != "x" {
		t.Errorf("page %q, want x", b)
	}
}
