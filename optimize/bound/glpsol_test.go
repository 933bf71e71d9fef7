package bound

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/glpsol"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
	"github.com/capsim/capsim/traces/mpi"
)

// glpsolTol is how far glpsol's optimum may be from the bound, relative:
// CLP and GLPK both stop at feasibility and optimality tolerances of
// 1e-7 (absolute, on LPs whose times are in units of the block's length,
// so relative to the makespan), and CLP writes the MPS file's numbers in
// 12 characters (9–11 significant digits, 7 for numbers under 1e-4 or
// above 1e9).
const glpsolTol = 1e-7

// glpsolCase is one LP of the check: the bound at capW of the Solver s,
// named for the failure message.
type glpsolCase struct {
	name string
	s    *Solver
	capW float64
}

// checkGlpsol solves c's LP at its cap, writes it with WriteMPS and solves
// the file with glpsol, and fails, naming the case, where the two optima
// differ by more than glpsolTol of the bound. It returns the relative
// difference.
func checkGlpsol(t *testing.T, c glpsolCase) float64 {
	t.Helper()
	b, err := c.s.Solve(c.capW)
	if err != nil {
		t.Fatalf("%s: CLP at %g W: %v", c.name, c.capW, err)
	}
	path := filepath.Join(t.TempDir(), "lp.mps")
	if d := os.Getenv("GLPSOL_KEEP"); d != "" {
		path = filepath.Join(d, strings.NewReplacer(" ", "_", "(", "", ")", "", ",", "").Replace(c.name)+fmt.Sprintf("_%.0f.mps", c.capW))
	}
	if err := c.s.WriteMPS(path); err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	got, err := glpsol.Solve(context.Background(), path, glpsol.Options{})
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	want := b.Makespan * 1e9 // the MPS objective is in ns
	rel := math.Abs(got-want) / want
	if rel > glpsolTol {
		t.Errorf("%s at %.6g W: glpsol's optimum %.6f ns, capsim's bound %.6f ns: relative difference %.3g > %g",
			c.name, c.capW, got, want, rel, glpsolTol)
	}
	return rel
}

// randomLP is case seed of TestGlpsolAgrees and TestBlocksAreOneLP: a
// random trace of 2–8 ranks, for odd seeds the engine's LP of it
// (FromGraph), for even ones the trace's DAG with fixed message times
// (FromTrace), and two random caps between the least feasible and the
// fastest schedule's peak.
func randomLP(t *testing.T, seed int64) (d *DAG, o *Order, kind string, caps [2]float64) {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	if seed%2 == 1 {
		c := newNetCase(t, rng, 8, WaitPower{})
		d, o, kind = c.n.DAG, c.n.Order, "engine"
	} else {
		net := network.LogGOPS{Latency: int64(rng.Intn(5000)), Overhead: int64(200 + rng.Intn(2000)), Gap: int64(100 + rng.Intn(2000)), EagerLimit: 4096}
		tr := randomTrace(rng, 8, net.EagerLimit)
		var err error
		d, err = FromTrace(tr, func(b int64) float64 { return float64(net.Latency+2*net.Overhead+b) / 1e9 },
			func(r int, e *mpi.Event) []frontier.Config { return testConfigs(e.Duration) })
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if o, err = InitialOrder(d); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		kind = "trace"
	}
	lo, _ := MinFeasibleCap(d, o)
	hi := 0.0
	for _, w := range o.Power(d, func(i int) float64 { return d.Tasks[i].Hull[0].Power }) {
		hi = math.Max(hi, w)
	}
	for k := range caps {
		caps[k] = lo + (0.02+0.96*rng.Float64())*(hi-lo)
	}
	return d, o, kind, caps
}

// blocky splits the LP at every separator, and cuts an engine LP after
// every task.
var blocky = Options{BlockCols: 1, CutTasks: 1}

// TestGlpsolAgrees solves the bound's LP on random traces with an
// independent solver, GLPK's glpsol, on the MPS file WriteMPS writes, and
// compares the optima: 60 random traces (randomLP: the engine's LP and
// the trace's DAG, each at two caps), a third of them split into blocks
// (cut after every task), 120 LPs. It runs where glpsol is installed
// (Debian glpk-utils; scripts/deps.sh installs it in CI).
func TestGlpsolAgrees(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	if !glpsol.Available() {
		t.Skip("glpsol not found: install Debian's glpk-utils to check the bound against GLPK")
	}
	cases := 60
	if testing.Short() {
		cases = 15
	}
	worst, n := 0.0, 0
	for seed := int64(1); seed <= int64(cases); seed++ {
		d, o, kind, caps := randomLP(t, seed)
		opt := Options{}
		if seed%3 == 0 {
			opt = blocky
			kind += ", blocks"
		}
		s, err := NewSolver(d, o, opt)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, capW := range caps {
			name := fmt.Sprintf("seed %d (%s LP, %d tasks, %d blocks)", seed, kind, len(d.Tasks), s.Stats().Blocks)
			worst = math.Max(worst, checkGlpsol(t, glpsolCase{name, s, capW}))
			n++
		}
		s.Close()
	}
	t.Logf("%d LPs: largest relative difference %.3g", n, worst)
}

// TestBlocksAreOneLP: an LP split into blocks at its separators (and an
// engine LP cut after every task) has the optimum of the same LP solved
// whole, the one WriteMPS writes: the sum of its blocks' optima. Before,
// a block without messages got every message of the DAG as rows
// t₀ − t₀ ≥ w and was infeasible at every cap below its fastest
// schedule's power (seed 4: "LP primal infeasible"), and a block at a cap
// its fastest schedule meets took the reference replay's length, which
// the cut relaxation can beat (seeds 1 and 3: 3.1 % and 6.9 % above the
// one LP's optimum). glpsol found both (TestGlpsolAgrees).
func TestBlocksAreOneLP(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	for seed := int64(1); seed <= 60; seed++ {
		d, o, kind, caps := randomLP(t, seed)
		whole := blocky
		whole.BlockCols = -1
		var got [2][2]float64
		blocks := 0
		for j, opt := range []Options{blocky, whole} {
			s, err := NewSolver(d, o, opt)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if j == 0 {
				blocks = s.Stats().Blocks
			}
			for k, capW := range caps {
				b, err := s.Solve(capW)
				if err != nil {
					t.Fatalf("seed %d (%s LP, %d blocks) at %g W: %v", seed, kind, s.Stats().Blocks, capW, err)
				}
				got[k][j] = b.Makespan
			}
			s.Close()
		}
		for k, capW := range caps {
			if rel := math.Abs(got[k][0]-got[k][1]) / got[k][1]; rel > 1e-7 {
				t.Errorf("seed %d (%s LP) at %g W: %d blocks %.9g s, one LP %.9g s (relative difference %.3g)",
					seed, kind, capW, blocks, got[k][0], got[k][1], rel)
			}
		}
	}
}
