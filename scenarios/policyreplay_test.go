package scenarios

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/policy/steering"
	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/gen"
)

func TestReplayPolicy(t *testing.T) {
	st := gen.Stencil{Dims: []int{2, 2}, Iterations: 4, HaloBytes: 4096, ComputeNs: 2_000_000, Imbalance: "random", Balance: 0.3,
		Intensity: 1, AllreduceBytes: 8, Sigma: 0.15, Seed: 1}
	tr, err := st.Generate()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.arrow")
	if err := arrowtrace.WriteMPI(path, tr); err != nil {
		t.Fatal(err)
	}
	rep, err := ReplayPolicy(context.Background(), PolicyReplay{Policy: PolicySteering, Trace: path, NoBound: true,
		Steering: SteeringOptions{Predict: steering.Oracle}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Phases != 4 || rep.Baseline.MakespanNs <= 0 || rep.Result.EnergyJ <= 0 || rep.EnergyImprovementPct < 0 {
		t.Errorf("steering report %+v", rep)
	}
	bad := 2.0
	for _, r := range []PolicyReplay{
		{Policy: "magic", Trace: path},
		{Policy: PolicySteering, Trace: path, Beta: &bad},
		{Policy: PolicySteering, Trace: path, LPMessages: MessagesEngine},
		{Policy: PolicyLP, Trace: path},
		{Policy: PolicyDCTDVFS, Trace: path, DCTDVFS: DCTDVFSOptions{CoordinationPct: 100}},
		{Policy: PolicySteering, Trace: path, NoBound: true, LPMessages: MessagesLogGOPS}, // the messages of a bound it skips
	} {
		if _, err := ReplayPolicy(context.Background(), r); !errors.Is(err, ErrOption) {
			t.Errorf("%s %+v: error %v, want ErrOption", r.Policy, r, err)
		}
	}
	if _, err := ReplayPolicy(context.Background(), PolicyReplay{Policy: PolicySteering, Trace: path, Machine: "nope"}); !errors.Is(err, ErrNoMachine) {
		t.Errorf("unknown machine: %v", err)
	}
}

// A policy's LP bound below its least feasible cap says that cap, as the
// sweep and capsim bound do, in the report and its JSON.
func TestPolicyBoundInfeasibleNamesLeastCap(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	st := gen.Stencil{Dims: []int{4, 4}, Iterations: 2, HaloBytes: 4096, ComputeNs: 1_000_000, Imbalance: "none", Balance: 1, Intensity: 1, Sigma: 0.15}
	tr, err := st.Generate()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.arrow")
	if err := arrowtrace.WriteMPI(path, tr); err != nil {
		t.Fatal(err)
	}
	for _, pol := range []string{PolicySteering, PolicyDCTDVFS} {
		rep, err := ReplayPolicy(context.Background(), PolicyReplay{Policy: pol, Trace: path, CapW: 200, Steering: SteeringOptions{Predict: steering.Oracle}})
		if err != nil {
			t.Fatal(err)
		}
		rep.Round()
		// The default machine: 180 W of sockets, 16 cores at the slowest
		// P-state's 6.8 W.
		if rep.LP.Status != "infeasible" || rep.LP.LeastCapW != 288.8 {
			t.Errorf("%s at 200 W: LP %+v, want infeasible with least cap 288.8 W", pol, rep.LP)
		}
	}
}

// A policy replay stopped by its context (Ctrl-C) names the cap the user
// gave, not the LP's task-power cap its solver's error names.
func TestReplayPolicyStoppedNamesCap(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	st := gen.Stencil{Dims: []int{4, 4}, Iterations: 2, HaloBytes: 4096, ComputeNs: 1_000_000, Imbalance: "none", Balance: 1, Intensity: 1, Sigma: 0.15}
	tr, err := st.Generate()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.arrow")
	if err := arrowtrace.WriteMPI(path, tr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = ReplayPolicy(ctx, PolicyReplay{Policy: PolicyLP, Trace: path, CapW: 300})
	var st2 *StoppedError
	if !errors.As(err, &st2) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want a StoppedError of context.Canceled", err)
	}
	if want := "stopped while computing the uncapped replay of " + path + " (nothing is printed)"; err.Error() != want {
		t.Errorf("err %q, want %q", err, want)
	}
}
