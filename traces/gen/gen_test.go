package gen

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

func lowerRun(t *testing.T, tr *mpi.Trace) *graph.Graph {
	t.Helper()
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := matchAndRun(g); err != nil {
		t.Fatal(err)
	}
	return g
}

// userSends counts point-to-point sends (tags below the collective base).
func userSends(g *graph.Graph) int {
	n := 0
	for id, k := range g.Kind {
		if k == graph.Send && g.Tag[id] < lower.CollTagBase {
			n++
		}
	}
	return n
}

// stencilLoads returns the compute durations of iteration it, per rank.
func stencilLoads(tr *mpi.Trace, it int) []float64 {
	var out []float64
	for r := range tr.Ranks {
		k := 0
		for _, e := range tr.Ranks[r].Events {
			if e.Kind == mpi.Compute {
				if k == it {
					out = append(out, tr.Ranks[r].Params[e.ParamOff+2])
				}
				k++
			}
		}
	}
	return out
}

func TestStencilHalo(t *testing.T) {
	cases := []struct {
		dims     []int
		periodic bool
		perIter  int // halo messages per iteration
	}{
		{[]int{3, 4}, false, 2 * (2*4 + 3*3)},
		{[]int{3, 4}, true, 2 * 2 * 12},
		{[]int{2, 2, 3}, false, 2 * (1*2*3 + 2*1*3 + 2*2*2)},
		{[]int{1, 5}, true, 2 * 5},
		{[]int{2, 1}, true, 2 * 2}, // extent 2 periodic: both neighbours are the same rank
		{[]int{1, 1}, false, 0},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.dims, c.periodic), func(t *testing.T) {
			tr, err := Stencil(StencilOptions{Dims: c.dims, Periodic: c.periodic, Iterations: 3, Imbalance: Random, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			g := lowerRun(t, tr)
			if got := userSends(g); got != 3*c.perIter {
				t.Errorf("%d halo messages, want %d", got, 3*c.perIter)
			}
		})
	}
}

func TestStencilPatterns(t *testing.T) {
	gen := func(o StencilOptions) *mpi.Trace {
		t.Helper()
		o.Dims = []int{8, 8}
		o.Iterations = 12
		tr, err := Stencil(o)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	maxOf := func(v []float64) (float64, int) {
		m, at := -1.0, -1
		for i, x := range v {
			if x > m {
				m, at = x, i
			}
		}
		return m, at
	}
	t.Run("none", func(t *testing.T) {
		for _, l := range stencilLoads(gen(StencilOptions{}), 5) {
			if l != 1 {
				t.Fatalf("load %g, want 1", l)
			}
		}
	})
	t.Run("random", func(t *testing.T) {
		a := gen(StencilOptions{Imbalance: Random, Seed: 1})
		b := gen(StencilOptions{Imbalance: Random, Seed: 1})
		c := gen(StencilOptions{Imbalance: Random, Seed: 2})
		if !reflect.DeepEqual(a, b) {
			t.Error("same seed, different traces")
		}
		if reflect.DeepEqual(a, c) {
			t.Error("different seeds, same trace")
		}
		l := stencilLoads(a, 3)
		if m, _ := maxOf(l); m != 1 {
			t.Errorf("max load %g, want 1", m)
		}
		if reflect.DeepEqual(l, stencilLoads(a, 4)) {
			t.Error("random loads do not change between iterations")
		}
	})
	t.Run("charged", func(t *testing.T) {
		tr := gen(StencilOptions{Imbalance: ChargedField})
		for _, l := range stencilLoads(tr, 0) { // Weight 0: balanced start
			if math.Abs(l-1) > 1e-12 {
				t.Fatalf("iteration 0 load %g, want 1", l)
			}
		}
		l := stencilLoads(tr, 11)
		for x := 0; x < 8; x++ {
			if math.Abs(l[x*8]-l[(7-x)*8]) > 1e-12 {
				t.Errorf("not symmetric between plates: x=%d %g vs %g", x, l[x*8], l[(7-x)*8])
			}
			if x > 0 && x < 4 && l[x*8] >= l[(x-1)*8] {
				t.Errorf("load does not fall away from the plate: x=%d %g ≥ %g", x, l[x*8], l[(x-1)*8])
			}
		}
		if l[0] != 1 || l[3*8] > 0.5 {
			t.Errorf("plate load %g (want 1), centre load %g (want < 0.5)", l[0], l[3*8])
		}
	})
	t.Run("wavefront", func(t *testing.T) {
		tr := gen(StencilOptions{Imbalance: Wavefront})
		_, at0 := maxOf(stencilLoads(tr, 0))
		_, at6 := maxOf(stencilLoads(tr, 6))
		if at0 != 0 {
			t.Errorf("iteration 0 heaviest rank %d, want the corner 0", at0)
		}
		if x, y := at6/8, at6%8; x+y < 4 {
			t.Errorf("iteration 6 front at (%d,%d), want it to have moved away from the corner", x, y)
		}
		l := stencilLoads(tr, 6)
		if m, _ := maxOf(l); m != 1 {
			t.Errorf("max load %g, want 1", m)
		}
	})
	t.Run("balance", func(t *testing.T) {
		for _, b := range []float64{0.5, 1} {
			for _, l := range stencilLoads(gen(StencilOptions{Imbalance: Wavefront, Balance: b}), 4) {
				if l < b-1e-12 || l > 1+1e-12 {
					t.Fatalf("balance %g: load %g outside [%g, 1]", b, l, b)
				}
			}
		}
	})
	t.Run("params", func(t *testing.T) {
		tr := gen(StencilOptions{Imbalance: Random, MemoryBound: 0.25, Cells: 1000, ComputeNs: 2000})
		e := tr.Ranks[5].Events
		for _, ev := range e {
			if ev.Kind != mpi.Compute {
				continue
			}
			p := tr.Ranks[5].Params[ev.ParamOff : ev.ParamOff+3]
			if tr.Regions[ev.Region] != RegionStencil || p[1] != 0.25 || p[0] != 1000*p[2] || ev.Duration != int64(2000*p[2]) {
				t.Fatalf("compute event %+v params %v", ev, p)
			}
		}
	})
}

func TestGeneratorErrors(t *testing.T) {
	bad := []struct {
		name string
		err  error
		want string
	}{
		{"1-D", errOf(Stencil(StencilOptions{Dims: []int{4}})), "2 or 3 dimensions"},
		{"zero extent", errOf(Stencil(StencilOptions{Dims: []int{4, 0}})), "extent 0 on axis 1"},
		{"balance", errOf(Stencil(StencilOptions{Dims: []int{2, 2}, Balance: 1.5})), "balance 1.5"},
		{"pattern", errOf(Stencil(StencilOptions{Dims: []int{2, 2}, Imbalance: "lumpy"})), "unknown imbalance"},
		{"membound", errOf(Stencil(StencilOptions{Dims: []int{2, 2}, MemoryBound: -1})), "memory-boundness"},
		{"sweep dims", errOf(Sweep(SweepOptions{Dims: []int{2, 2, 2}})), "2 positive extents"},
		{"octants", errOf(Sweep(SweepOptions{Dims: []int{2, 2}, Octants: 9})), "9 octants"},
		{"bench kind", errOf(Bench(BenchOptions{Kind: mpi.Send, Ranks: 2})), "not a collective"},
		{"bench comm", errOf(Bench(BenchOptions{Kind: mpi.Barrier, Ranks: 2, CommSize: 3})), "communicator size 3"},
		{"bench root", errOf(Bench(BenchOptions{Kind: mpi.Bcast, Ranks: 2, Root: 2})), "root 2"},
	}
	for _, b := range bad {
		if b.err == nil || !strings.Contains(b.err.Error(), b.want) {
			t.Errorf("%s: error %v, want %q", b.name, b.err, b.want)
		}
	}
	if err := CheckDims([]int{3, 4}, 16); err == nil || !strings.Contains(err.Error(), "has 12 ranks, want 16") {
		t.Errorf("CheckDims: %v", err)
	}
	if d, err := ParseDims("2x3x4"); err != nil || !reflect.DeepEqual(d, []int{2, 3, 4}) {
		t.Errorf("ParseDims: %v %v", d, err)
	}
	for _, s := range []string{"", "2x", "ax2", "0x3", "-1x2", "2x3 "} {
		if _, err := ParseDims(s); err == nil {
			t.Errorf("ParseDims(%q): no error", s)
		}
	}
}

func errOf(_ *mpi.Trace, err error) error { return err }

func TestSweep(t *testing.T) {
	for _, dims := range [][]int{{1, 1}, {3, 4}, {4, 2}} {
		tr, err := Sweep(SweepOptions{Dims: dims, KBlocks: 3})
		if err != nil {
			t.Fatal(err)
		}
		g := lowerRun(t, tr)
		px, py := dims[0], dims[1]
		if want := 8 * 3 * ((px-1)*py + px*(py-1)); userSends(g) != want {
			t.Errorf("%v: %d messages, want %d", dims, userSends(g), want)
		}
	}
}

func TestBench(t *testing.T) {
	for _, k := range mpi.Kinds() {
		if !k.IsCollective() {
			continue
		}
		tr, err := Bench(BenchOptions{Kind: k, Ranks: 7, CommSize: 5, Reps: 3, Root: 2, ComputeNs: 10})
		if err != nil {
			t.Fatal(err)
		}
		g := lowerRun(t, tr)
		for r := 5; r < 7; r++ {
			if g.RankStart[r+1] != g.RankStart[r] {
				t.Errorf("%s: idle rank %d has ops", k, r)
			}
		}
	}
}

func ExampleStencil() {
	tr, err := Stencil(StencilOptions{Dims: []int{4, 4}, Iterations: 2, Imbalance: ChargedField})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(tr.Ranks), "ranks,", tr.NumEvents(), "events,", tr.Regions, tr.ParamNames)
	// Output:
	// 16 ranks, 288 events, [stencil.compute] [cells memory_bound load]
}
