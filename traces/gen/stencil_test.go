package gen

import (
	"reflect"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

func replay(t *testing.T, tr *mpi.Trace) (*graph.Graph, *sim.Result) {
	t.Helper()
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(g, network.DefaultLogGOPS(), sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g, res
}

func countKind(tr *mpi.Trace, k mpi.Kind) int {
	n := 0
	for _, r := range tr.Ranks {
		for _, e := range r.Events {
			if e.Kind == k {
				n++
			}
		}
	}
	return n
}

// computes returns each rank's compute time in iteration it.
func computes(tr *mpi.Trace, it int) []int64 {
	var out []int64
	for _, r := range tr.Ranks {
		k := 0
		for _, e := range r.Events {
			if e.Kind == mpi.Compute {
				if k == it {
					out = append(out, e.Duration)
					break
				}
				k++
			}
		}
	}
	return out
}

func TestStencilStructure(t *testing.T) {
	for _, tc := range []struct {
		dims     []int
		periodic bool
		sends    int // per iteration
	}{
		{[]int{4, 4}, false, 2 * 2 * 3 * 4},
		{[]int{4, 4}, true, 4 * 16},
		{[]int{2, 3, 2}, false, 2 * (1*3*2 + 2*2*2 + 2*3*1)},
		{[]int{1, 5}, false, 2 * 4},
	} {
		s := Stencil{Dims: tc.dims, Iterations: 3, HaloBytes: 1000, ComputeNs: 1e6, Periodic: tc.periodic, AllreduceBytes: 8}
		tr, err := s.Generate()
		if err != nil {
			t.Fatal(err)
		}
		if got := countKind(tr, mpi.Isend); got != 3*tc.sends {
			t.Errorf("%v periodic=%v: %d isends, want %d", tc.dims, tc.periodic, got, 3*tc.sends)
		}
		if countKind(tr, mpi.Irecv) != countKind(tr, mpi.Isend) || countKind(tr, mpi.Allreduce) != 3*len(tr.Ranks) {
			t.Errorf("%v: unbalanced receives or allreduces", tc.dims)
		}
		_, res := replay(t, tr)
		if res.Makespan < 3e6 {
			t.Errorf("%v: makespan %d below 3 iterations of compute", tc.dims, res.Makespan)
		}
	}
}

func TestStencilImbalance(t *testing.T) {
	base := Stencil{Dims: []int{8, 4}, Iterations: 10, HaloBytes: 64, ComputeNs: 1000, Seed: 3}
	for _, tc := range []struct {
		pattern string
		balance float64
		check   func(t *testing.T, first, last []int64)
	}{
		{ImbalanceNone, 0, func(t *testing.T, first, last []int64) {
			for _, c := range last {
				if c != 1000 {
					t.Fatalf("balanced load %d, want 1000", c)
				}
			}
		}},
		{ImbalanceCharged, 0, func(t *testing.T, first, last []int64) {
			// at the end the load sits at the plates x = 0 and x = 1
			plate, middle := last[0*4], last[3*4]
			if plate != 1000 || middle >= plate/2 {
				t.Errorf("charged field: plate %d, middle %d", plate, middle)
			}
			if first[3*4] < 900 {
				t.Errorf("charged field starts near balanced, middle has %d", first[3*4])
			}
		}},
		{ImbalanceCharged, 0.5, func(t *testing.T, first, last []int64) {
			for _, c := range last {
				if c < 500 || c > 1000 {
					t.Fatalf("balance 0.5 gives load %d outside [500, 1000]", c)
				}
			}
		}},
		{ImbalanceWavefront, 0, func(t *testing.T, first, last []int64) {
			corner, far := first[0], first[7*4+3]
			if corner != 1000 || far >= corner/10 {
				t.Errorf("wavefront starts at the corner: corner %d, far %d", corner, far)
			}
			if last[0] >= last[7*4+3] {
				t.Errorf("wavefront ends at the far corner: %d vs %d", last[0], last[7*4+3])
			}
		}},
		{ImbalanceRandom, 0, func(t *testing.T, first, last []int64) {
			if !reflect.DeepEqual(first, last) {
				t.Error("random load should be fixed per rank")
			}
		}},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			s := base
			s.Imbalance, s.Balance = tc.pattern, tc.balance
			tr, err := s.Generate()
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, computes(tr, 0), computes(tr, 9))
			tr2, _ := s.Generate()
			if !reflect.DeepEqual(tr, tr2) {
				t.Error("not deterministic")
			}
		})
	}
	s := base
	s.Imbalance = ImbalanceRandom
	a, _ := s.Generate()
	s.Seed = 4
	b, _ := s.Generate()
	if reflect.DeepEqual(computes(a, 0), computes(b, 0)) {
		t.Error("seed does not change the random load")
	}
}

func TestStencilErrors(t *testing.T) {
	for _, s := range []Stencil{
		{Dims: []int{4}, Iterations: 1},
		{Dims: []int{2, 0}, Iterations: 1},
		{Dims: []int{2, 2}, Iterations: 0},
		{Dims: []int{2, 2}, Iterations: 1, Balance: 2},
		{Dims: []int{2, 2}, Iterations: 1, Imbalance: "zigzag"},
		{Dims: []int{2, 2}, Iterations: 1, HaloBytes: -1},
	} {
		if _, err := s.Generate(); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
}

func TestSweep(t *testing.T) {
	s := Sweep{Px: 4, Py: 3, Octants: 8, Blocks: 2, ComputeNs: 1000, Bytes: 256}
	tr, err := s.Generate()
	if err != nil {
		t.Fatal(err)
	}
	want := 8 * 2 * ((4-1)*3 + 4*(3-1))
	if got := countKind(tr, mpi.Send); got != want {
		t.Errorf("%d sends, want %d", got, want)
	}
	_, res := replay(t, tr)
	// One octant's first block alone crosses the 4+3-1 = 6 ranks of the diagonal.
	if res.Makespan < 6*1000 {
		t.Errorf("makespan %d shorter than one wavefront", res.Makespan)
	}
}

func TestCollectiveBenchmark(t *testing.T) {
	c := Collective{Kind: mpi.Allreduce, Ranks: 6, CommSize: 4, Bytes: 1024, Reps: 3, GapNs: 100}
	tr, err := c.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if countKind(tr, mpi.Allreduce) != 12 || len(tr.Comms) != 2 {
		t.Errorf("%d allreduces, %d comms", countKind(tr, mpi.Allreduce), len(tr.Comms))
	}
	replay(t, tr)
	if _, err := (Collective{Kind: mpi.Send, Ranks: 2, Reps: 1}).Generate(); err == nil {
		t.Error("point-to-point kind accepted")
	}
	if _, err := (Collective{Kind: mpi.Bcast, Ranks: 2, Reps: 1, Root: 5}).Generate(); err == nil {
		t.Error("root outside the communicator accepted")
	}
}
