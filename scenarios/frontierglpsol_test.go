package scenarios

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/internal/glpsol"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/energy"
)

// TestFrontierGlpsol solves the frontier's LP of the default scenario's
// trace (the engine LP's DAG and order: loads, task-mode waits and
// unchained events included) with glpsol at an exported deadline midway
// along the curve and compares the optima. glpsol takes about a minute on
// its 18,562 events (measured: 19.247252406 J both at 60,330,615 ns, and
// 19.253150533 J both at the least makespan); -short skips it.
func TestFrontierGlpsol(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	if !glpsol.Available() {
		t.Skip("glpsol not found: install Debian's glpk-utils")
	}
	if testing.Short() {
		t.Skip("-short: glpsol takes about a minute")
	}
	def, err := os.ReadFile("default.toml")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Parse("default.toml", def)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := sc.Trace(nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &sc.Machines[0]
	d, o, _, err := sc.BoundLPNet(tr, m, sc.Net())
	if err != nil {
		t.Fatal(err)
	}
	f, err := energy.New(d, o, energy.Options{BaseW: m.BaseW()})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	slow, _, err := f.Slowest()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []float64{0.5} {
		T := f.Fastest() + x*(slow-f.Fastest())
		want, err := f.EnergyAt(T)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "frontier.mps")
		if err := f.WriteMPS(path, T); err != nil {
			t.Fatal(err)
		}
		got, err := glpsol.Solve(context.Background(), path, glpsol.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got *= f.Scale()
		t.Logf("at %.9g s: capsim %.9f J, glpsol %.9f J", T, want, got)
		if math.Abs(got-want) > 1e-6*want {
			t.Errorf("at %.9g s: glpsol %.9g J, capsim %.9g J: relative difference %.3g", T, got, want, math.Abs(got-want)/want)
		}
	}
}
