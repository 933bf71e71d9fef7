package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/scenarios"
	"github.com/capsim/capsim/traces/otf2"
)

// TestBoundCutsRealTraces runs capsim bound on the real traces of
// ../shared/traces that the engine LP cuts into blocks (over 512 tasks),
// on the default machine with 8 nodes (64 ranks), at a cap that does not
// bind: the cut relaxation must give the uncapped replay's makespan to
// 0.5 % (measured: to 0.06 %; cut at every event where no task runs,
// tracer-stencil4d-64 lost 31 %) and never more.
func TestBoundCutsRealTraces(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	if testing.Short() {
		t.Skip("seconds per trace")
	}
	dir := testenv.Shared(t, "traces")
	sc := strings.Replace(string(scenarios.Default()), "\nnodes = 2\n", "\nnodes = 8\n", 1)
	// The sweep's caps must clear 8 nodes' idle floor (720 W) for the
	// scenario to load; bound itself takes its cap from --cap.
	sc = strings.Replace(sc, `caps = "290:380:10"`, `caps = "1000:1500:250"`, 1)
	if !strings.Contains(sc, "\nnodes = 8\n") || !strings.Contains(sc, `caps = "1000:1500:250"`) {
		t.Fatal("the default scenario's nodes or caps line moved")
	}
	path := filepath.Join(t.TempDir(), "s64.toml")
	if err := os.WriteFile(path, []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	traces := []string{"dumpi/sstmacro-testbgp/testbgp.meta"}
	if otf2.Available {
		traces = append(traces, "otf2/tracer-stencil4d-64/traces.otf2", "otf2/sstmacro-otf2test/traces.otf2")
	}
	for _, tr := range traces {
		t.Run(tr, func(t *testing.T) {
			code, out, errs := capsim(t, "bound", filepath.Join(dir, tr), "--scenario", path, "--cap", "100000", "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var r struct {
				BoundNs    int64 `json:"bound_ns"`
				UncappedNs int64 `json:"uncapped_ns"`
				LP         struct {
					Cuts int `json:"cuts"`
				} `json:"lp"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			if r.LP.Cuts == 0 {
				t.Errorf("no cuts: the test does not exercise them")
			}
			if r.BoundNs > r.UncappedNs || float64(r.UncappedNs-r.BoundNs) > 0.005*float64(r.UncappedNs) {
				t.Errorf("bound %d ns, uncapped replay %d ns: want at most 0.5 %% below (%d cuts)", r.BoundNs, r.UncappedNs, r.LP.Cuts)
			}
			t.Logf("bound %d ns, uncapped replay %d ns, %d cuts", r.BoundNs, r.UncappedNs, r.LP.Cuts)
		})
	}
}
