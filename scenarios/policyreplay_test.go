package scenarios

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

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
	} {
		if _, err := ReplayPolicy(context.Background(), r); !errors.Is(err, ErrOption) {
			t.Errorf("%s %+v: error %v, want ErrOption", r.Policy, r, err)
		}
	}
	if _, err := ReplayPolicy(context.Background(), PolicyReplay{Policy: PolicySteering, Trace: path, Machine: "nope"}); !errors.Is(err, ErrNoMachine) {
		t.Errorf("unknown machine: %v", err)
	}
}
