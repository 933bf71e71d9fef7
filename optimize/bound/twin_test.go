package bound

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
)

// stepDAG is R ranks × M time steps, each of three tasks per rank, a
// message from every rank to the next after the second and a barrier
// (a shared vertex) at the end: every step has the same rows and columns,
// its times those of the first scaled by 1 + step/10.
func stepDAG(R, M int, seed uint64) *DAG {
	rng := rand.New(rand.NewPCG(seed, 3))
	base := make([]float64, 3*R)
	for i := range base {
		base[i] = 1 + 9*rng.Float64()
	}
	d := &DAG{Vertices: 2, Init: 0, Fin: 1}
	vertex := func() int { d.Vertices++; return d.Vertices - 1 }
	at := d.Init
	for m := 0; m < M; m++ {
		scale := 1 + float64(m)/10
		end := d.Fin
		if m < M-1 {
			end = vertex()
		}
		mid := make([]int, R)
		for r := 0; r < R; r++ {
			cur := at
			for i := 0; i < 3; i++ {
				dst := end
				if i < 2 {
					dst = vertex()
				}
				if i == 1 {
					mid[r] = dst
				}
				var cs []frontier.Config
				for c := 0; c < 4; c++ {
					f := 1 - 0.15*float64(c)
					cs = append(cs, frontier.Config{Time: scale * base[3*r+i] * (0.3 + 0.7/f), Power: 20 + 80*f*f*f})
				}
				h, _ := frontier.Hull(cs)
				d.Tasks = append(d.Tasks, Task{Rank: r, Src: cur, Dst: dst, Hull: h})
				cur = dst
			}
		}
		for r := 0; r+1 < R; r++ {
			d.Messages = append(d.Messages, Message{Src: mid[r], Dst: mid[r+1], Time: 0.5 * scale})
		}
		at = end
	}
	return d
}

// TestTwinBlocks checks that solving blocks from the basis of an earlier
// block of their shape (the time steps of stepDAG, in two chains) gives
// the optimum of solving each from scratch, cold and in a sweep that
// re-solves warm, and the same schedule to the bit on one goroutine and
// on three.
func TestTwinBlocks(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	d := stepDAG(6, 40, 3)
	o, err := InitialOrder(d)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := NewSolver(d, o, Options{noTwins: true, BlockCols: 40})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	minCap, _ := ref.MinFeasibleCap()
	caps := []float64{minCap * 1.02, minCap * 1.3, minCap * 1.6}
	one := map[bool][]*Bound{} // per KeepBasis, on one goroutine
	for _, opt := range []Options{{Workers: 1}, {Workers: 3}, {KeepBasis: true, Workers: 1}, {KeepBasis: true, Workers: 3}} {
		opt.BlockCols = 40
		s, err := NewSolver(d, o, opt)
		if err != nil {
			t.Fatal(err)
		}
		for k, capW := range caps {
			want, err := ref.Solve(capW)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Solve(capW)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got.Makespan-want.Makespan) > 1e-9*want.Makespan {
				t.Errorf("%+v, %.1f W: %.12g s from twins' bases, %.12g s each from scratch", opt, capW, got.Makespan, want.Makespan)
			}
			if opt.Workers == 1 {
				one[opt.KeepBasis] = append(one[opt.KeepBasis], got)
			} else if w := one[opt.KeepBasis][k]; !slices.Equal(got.Vertex, w.Vertex) || !slices.Equal(got.Duration, w.Duration) {
				t.Errorf("%+v, %.1f W: another schedule than on one goroutine", opt, capW)
			}
		}
		if s.twins < s.stats.Blocks/2 {
			t.Errorf("%+v: %d blocks, %d solved from a twin's basis", opt, s.stats.Blocks, s.twins)
		}
		t.Logf("workers %d, keep basis %v: %d blocks, %d block solves from a twin's basis", opt.Workers, opt.KeepBasis, s.stats.Blocks, s.twins)
		s.Close()
	}
}

// TestTwinsNoWorseThanScratch checks that twins do not cost more simplex
// iterations where their blocks solve in a few from scratch: on the
// synthetic DAG of BenchmarkBoundMillion (a collective after every task)
// a block takes about 10 iterations from scratch and took about 700
// from a twin's basis, 70 times the iterations, before twins were kept
// to shapes whose first block takes twinMinIter or more.
func TestTwinsNoWorseThanScratch(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	d := SyncDAG(1024, 24, 6, 1)
	o, err := InitialOrder(d)
	if err != nil {
		t.Fatal(err)
	}
	iters := map[bool]int{}
	for _, noTwins := range []bool{true, false} {
		s, err := NewSolver(d, o, Options{noTwins: noTwins, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		minCap, _ := s.MinFeasibleCap()
		b, err := s.Solve((minCap + 100*1024) / 2) // BenchmarkBoundMillion's cap

		if err != nil {
			t.Fatal(err)
		}
		iters[noTwins] = b.Stats.Iter
		t.Logf("no twins %v: %d blocks, %d iterations, %d from a twin's basis", noTwins, b.Stats.Blocks, b.Stats.Iter, s.twins)
		s.Close()
	}
	if iters[false] > iters[true]+iters[true]/10 {
		t.Errorf("%d simplex iterations with twins, %d with every block from scratch", iters[false], iters[true])
	}
}
