package bound

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
)

// randomSchedule runs every task of d at a random hull point and places
// the vertices in a random topological order, each after its
// predecessors plus a random wait, so that the events come in any order
// the DAG allows. It returns the makespan, the tasks' energy and their
// peak instantaneous power (a task draws its point's power from its start
// for its point's time).
func randomSchedule(rng *rand.Rand, d *DAG) (makespan, energy, peak float64) {
	type edge struct {
		to int
		w  float64
	}
	out := make([][]edge, d.Vertices)
	in := make([]int, d.Vertices)
	dur := make([]float64, len(d.Tasks))
	pow := make([]float64, len(d.Tasks))
	for i, t := range d.Tasks {
		k := rng.IntN(len(t.Hull))
		dur[i], pow[i] = t.Hull[k].Time, t.Hull[k].Power
		energy += dur[i] * pow[i]
		out[t.Src] = append(out[t.Src], edge{t.Dst, dur[i]})
		in[t.Dst]++
	}
	for _, m := range d.Messages {
		out[m.Src] = append(out[m.Src], edge{m.Dst, m.Time})
		in[m.Dst]++
	}
	at := make([]float64, d.Vertices)
	var ready []int
	for v := range d.Vertices {
		if in[v] == 0 {
			ready = append(ready, v)
		}
	}
	for len(ready) > 0 {
		k := rng.IntN(len(ready))
		v := ready[k]
		ready[k] = ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		if rng.IntN(3) == 0 {
			at[v] += rng.Float64() * 2
		}
		for _, e := range out[v] {
			at[e.to] = math.Max(at[e.to], at[v]+e.w)
			if in[e.to]--; in[e.to] == 0 {
				ready = append(ready, e.to)
			}
		}
	}
	makespan = at[d.Fin]
	for _, t := range d.Tasks { // the power just after each task's start
		var w float64
		s := at[t.Src]
		for j, u := range d.Tasks {
			if at[u.Src] <= s && s < at[u.Src]+dur[j] {
				w += pow[j]
			}
		}
		peak = math.Max(peak, w)
	}
	return makespan, energy, peak
}

// No schedule of any event order beats OrderFreeLower: random DAGs,
// random configurations and random orders, at the cap of their peak power
// and at the least cap their energy allows (E/T, the tightest); and it is
// never above the fixed-order bound or the order-free optimum.
func TestOrderFreeLowerAdversarial(t *testing.T) {
	if !clp.Available() {
		t.Skip("built without cgo: no LP solver")
	}
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(18, 5))
	for trial := range 60 {
		var d *DAG
		if trial%2 == 0 {
			d = tinyDAG(rng, 2+rng.IntN(2), 2+rng.IntN(2), trial%4 == 0)
		} else {
			d = mpiLikeDAG(2+rng.IntN(3), 2+rng.IntN(3), uint64(trial))
		}
		for range 20 {
			T, E, peak := randomSchedule(rng, d)
			for _, capW := range []float64{peak, E / T} {
				lo, err := OrderFreeLower(ctx, d, nil, capW)
				if err != nil {
					t.Fatalf("trial %d: %v", trial, err)
				}
				if lo > T*(1+1e-7)+1e-9 {
					t.Fatalf("trial %d at %g W: order-free lower bound %g above a schedule of %g s", trial, capW, lo, T)
				}
			}
		}
		o, err := InitialOrder(d)
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewSolver(d, o, Options{})
		if err != nil {
			t.Fatal(err)
		}
		lp, _ := s.MinFeasibleCap()
		for _, capW := range []float64{lp * 1.01, lp * 1.3, lp * 3} {
			b, err := s.Solve(capW)
			if err != nil {
				s.Close()
				t.Fatal(err)
			}
			lo, err := OrderFreeLower(ctx, d, nil, capW)
			if err != nil {
				s.Close()
				t.Fatal(err)
			}
			if lo > b.Makespan*(1+1e-7)+1e-9 {
				t.Errorf("trial %d at %g W: order-free lower bound %g above the fixed-order bound %g", trial, capW, lo, b.Makespan)
			}
			if trial%2 == 0 {
				if r, err := orderFree(t, d, capW); err == nil && lo > r.Makespan*(1+1e-7)+1e-9 {
					t.Errorf("trial %d at %g W: order-free lower bound %g above the order-free optimum %g", trial, capW, lo, r.Makespan)
				}
			}
		}
		s.Close()
	}
}

// With one task of two points between Init and Fin, the bound is the
// task's least duration whose energy fits cap × duration: on the chord
// from (1 s, 100 J) to (2 s, 80 J), e(d) = 120 − 20·d ≤ cap·d.
func TestOrderFreeLowerOneTask(t *testing.T) {
	if !clp.Available() {
		t.Skip("built without cgo: no LP solver")
	}
	d := &DAG{Vertices: 2, Init: 0, Fin: 1, Tasks: []Task{{Src: 0, Dst: 1, Hull: two(1, 100, 2, 40)}}}
	for _, c := range []struct{ capW, want float64 }{
		{100, 1},         // fast fits
		{60, 120.0 / 80}, // 120 − 20d = 60d
		{40, 2},          // only the slowest point's energy fits
		{10, 8},          // 80 J at the slowest ≤ 10 W × T: Fin waits past the task
	} {
		got, err := OrderFreeLower(context.Background(), d, nil, c.capW)
		if err != nil || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("at %g W: %g, %v; want %g", c.capW, got, err, c.want)
		}
	}
	if _, err := OrderFreeLower(context.Background(), d, nil, 0); err == nil {
		t.Error("cap 0: no error")
	}
}
