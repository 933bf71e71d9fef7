package arrowtrace

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// TestCollectivesRoundTrip: an MPI trace's format collective algorithms
// survive WriteMPI and ReadMPI; a malformed capsim.collectives value is
// refused naming the file and the key.
func TestCollectivesRoundTrip(t *testing.T) {
	tr := mpi.NewTrace(2)
	tr.Algorithms = map[mpi.Kind]string{mpi.Barrier: "schedgen", mpi.Allreduce: "schedgen"}
	for r := range tr.Ranks {
		tr.Ranks[r].Events = []mpi.Event{{Kind: mpi.Barrier, Comm: mpi.World}}
	}
	path := filepath.Join(t.TempDir(), "t.arrow")
	if err := WriteMPI(path, tr); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMPI(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Algorithms, tr.Algorithms) {
		t.Errorf("algorithms %v, want %v", got.Algorithms, tr.Algorithms)
	}
	for _, tc := range []struct{ spec, want string }{
		{"barrier", "not KIND=ALGORITHM"},
		{"barrier=", "not KIND=ALGORITHM"},
		{"", "not KIND=ALGORITHM"},
		{"send=ring", "not a collective"},
		{"nokind=ring", "not a collective"},
		{"barrier=schedgen,barrier=ring", "barrier given twice"},
	} {
		if _, err := parseCollectives(tc.spec); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.spec, err, tc.want)
		}
	}
	if got, err := parseCollectives(mpi.AlgorithmsSpec(tr.Algorithms)); err != nil || !reflect.DeepEqual(got, tr.Algorithms) {
		t.Errorf("spec %q: %v, %v", mpi.AlgorithmsSpec(tr.Algorithms), got, err)
	}
}

// TestCausalRoundTrip: an execution graph whose CPUs are streams of one
// device (graph.Graph.Causal, a Chakra trace's) stays causal through
// WriteGraph and ReadGraph: the Arrow file of a Chakra trace replayed
// 292.8 ms against the trace's 296.6 ms. A windowed read declines it
// (the engine streams windows in LogGOPSim's release order), and a value
// other than true or false is refused naming the file and the key.
func TestCausalRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, causal := range []bool{false, true} {
		b := graph.NewBuilder(1)
		b.Add(0, graph.CalcOp(10))
		op := graph.CalcOp(20)
		op.CPU = 1
		b.Add(0, op)
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		g.Causal = causal
		path := filepath.Join(dir, fmt.Sprintf("g%v.arrow", causal))
		if err := WriteGraph(path, g); err != nil {
			t.Fatal(err)
		}
		got, err := ReadGraph(path)
		if err != nil {
			t.Fatal(err)
		}
		if got.Causal != causal {
			t.Errorf("causal %v read back as %v", causal, got.Causal)
		}
		gw, err := OpenGraphWindows(path)
		if causal != errors.Is(err, ErrNotWindowed) {
			t.Errorf("causal %v: windows: %v", causal, err)
		}
		if err == nil {
			gw.Close()
		}
	}
	md := arrow.NewMetadata([]string{MetaCausal}, []string{"yes"})
	if _, err := readCausal(md, "x.arrow"); err == nil || !strings.Contains(err.Error(), "x.arrow") || !strings.Contains(err.Error(), MetaCausal) {
		t.Errorf("causal = yes: %v", err)
	}
}
