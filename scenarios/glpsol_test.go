package scenarios

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/compute/table"
	"github.com/capsim/capsim/internal/glpsol"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
)

// TestGlpsolAgrees solves the bound's LP with an independent solver,
// GLPK's glpsol, on the MPS file `capsim bound --mps` writes, and compares
// the optima (the objective is the makespan in ns): the default scenario
// at 290–380 W and docs/guide/bound.md's 32-rank stencil (examples/bound, its
// configuration table) at 800–1,400 W, each with bound.messages "engine"
// (the stencil's LP cut into 10 blocks, written as one LP) and "replay"
// (split at its collectives), the caps re-solved in a sweep from the
// previous basis as `capsim bound --caps` does. optimize/bound's
// TestGlpsolAgrees checks 120 LPs of random traces. It runs where glpsol
// is installed (Debian glpk-utils; scripts/deps.sh installs it in CI).
func TestGlpsolAgrees(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	if !glpsol.Available() {
		t.Skip("glpsol not found: install Debian's glpk-utils to check the bound against GLPK")
	}
	// CLP's tolerances are 1e-7, absolute in units of each block's
	// length; measured: at most 3e-12 relative (docs/design/bound.md).
	const tol = 1e-7
	def, err := os.ReadFile("default.toml")
	if err != nil {
		t.Fatal(err)
	}
	s32, err := os.ReadFile("../examples/bound/stencil32.toml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("../examples/bound/configs.csv")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := table.ReadCSV(f, "configs.csv")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		toml  []byte
		table *table.Table
		caps  []float64
	}{
		{"default", def, nil, []float64{290, 320, 350, 380}},
		{"stencil32", s32, tab, []float64{800, 1100, 1400}},
	}
	worst := 0.0
	for _, c := range cases {
		for _, msgs := range []string{MessagesEngine, MessagesReplay} {
			name := c.name + ", messages " + msgs
			sc, err := Parse(c.name+".toml", append(append([]byte(nil), c.toml...), "\n[bound]\nmessages = \""+msgs+"\"\n"...))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			tr, err := sc.Trace(nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			m := &sc.Machines[0]
			var (
				d *bound.DAG
				o *bound.Order
			)
			if c.table != nil {
				d, o, err = sc.TableLP(tr, c.table, m, sc.Net())
			} else {
				d, o, err = sc.BoundLP(tr, m, sc.Net())
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			s, err := bound.NewSolver(d, o, bound.Options{KeepBasis: true, CutTasks: sc.Bound.CutTasks()})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, capW := range c.caps {
				b, err := s.Solve(m.LPCap(capW))
				if err != nil {
					t.Fatalf("%s at %g W: %v", name, capW, err)
				}
				path := filepath.Join(t.TempDir(), "lp.mps")
				if err := s.WriteMPS(path); err != nil {
					t.Fatalf("%s at %g W: %v", name, capW, err)
				}
				got, err := glpsol.Solve(context.Background(), path, glpsol.Options{})
				if err != nil {
					t.Fatalf("%s at %g W: %v", name, capW, err)
				}
				want := b.Makespan * 1e9
				rel := math.Abs(got-want) / want
				worst = math.Max(worst, rel)
				desc := fmt.Sprintf("%s at %g W (%d blocks, %d columns, %d rows)", name, capW, s.Stats().Blocks, s.Stats().Variables, s.Stats().Rows)
				if rel > tol {
					t.Errorf("%s: glpsol's optimum %.3f ns, capsim's bound %.3f ns: relative difference %.3g > %g", desc, got, want, rel, tol)
				} else {
					t.Logf("%s: glpsol %.3f ns, capsim %.3f ns (%.2g)", desc, got, want, rel)
				}
			}
			s.Close()
		}
	}
	t.Logf("largest relative difference %.3g", worst)
}
