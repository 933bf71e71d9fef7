package scenarios

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/gen"
)

// stencilTrace writes a 2×2 stencil's MPI trace to dir and returns its
// path.
func stencilTrace(dir string) (string, error) {
	st := gen.Stencil{Dims: []int{2, 2}, Iterations: 3, HaloBytes: 4096, ComputeNs: 1_000_000, Imbalance: "none", Balance: 1,
		Intensity: 1, AllreduceBytes: 8, Sigma: 0.15, Seed: 1}
	tr, err := st.Generate()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "s.arrow")
	return path, arrowtrace.WriteMPI(path, tr)
}

func ExampleReplayTrace() {
	dir, err := os.MkdirTemp("", "capsim-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path, err := stencilTrace(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	net, _ := network.ParseSpec("loggops")
	rep, err := ReplayTrace(TraceReplay{Trace: path, Net: net})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d ranks, makespan %d ns, rank 0 sent %d messages\n", len(rep.Ranks), rep.MakespanNs, rep.Ranks[0].MsgsSent)
	// Output: 4 ranks, makespan 3213672 ns, rank 0 sent 6 messages
}

func TestReplayTrace(t *testing.T) {
	dir := t.TempDir()
	path, err := stencilTrace(dir)
	if err != nil {
		t.Fatal(err)
	}
	net, _ := network.ParseSpec("loggops")
	tl := filepath.Join(dir, "tl.json")
	rep, err := ReplayTrace(TraceReplay{Trace: path, Net: net, Topology: "fattree:k=4,n=2", Mapping: "block", CritPath: true,
		Timeline: TimelineOptions{Path: tl}, Models: ModelOptions{Machine: "base=40,idle=4,active=10"}, CapW: 50})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Topology == "" || len(rep.Links) == 0 || rep.CriticalPath == nil || rep.CriticalPath.LengthNs != rep.MakespanNs {
		t.Errorf("report: topology %q, %d links, critical path %+v, makespan %d", rep.Topology, len(rep.Links), rep.CriticalPath, rep.MakespanNs)
	}
	if e := rep.Models.Energy; e == nil || e.TotalJ <= 0 || e.OverCapNs == nil {
		t.Errorf("energy %+v", e)
	}
	if st, err := os.Stat(tl); err != nil || st.Size() == 0 {
		t.Errorf("timeline: %v", err)
	}
	for _, r := range []TraceReplay{
		{Trace: path, Net: net, Coll: "allreduce=pigeon"},
		{Trace: path, Net: net, Topology: "fattree:k=4"},
		{Trace: path, Net: net, NetOverrides: []string{"bogus"}},
		{Trace: path, Net: net, Timeline: TimelineOptions{Path: tl, Ranks: "9"}},
		{Trace: path, Net: net, Models: ModelOptions{Machine: "base=x"}},
	} {
		if _, err := ReplayTrace(r); !errors.Is(err, ErrOption) {
			t.Errorf("%+v: error %v, want ErrOption", r, err)
		}
	}
	if _, err := ReplayTrace(TraceReplay{Trace: filepath.Join(dir, "none.arrow"), Net: net}); err == nil || errors.Is(err, ErrOption) {
		t.Errorf("missing trace: %v", err)
	}
}
