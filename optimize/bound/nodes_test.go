package bound

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
)

// Three ranks each run one task from Init to Fin, of hull (1 s, 100 W) –
// (2 s, 50 W): a task at p watts (50 ≤ p ≤ 100) takes 3 − p/50 s. Ranks
// 0 and 1 share node 0, rank 2 is node 1. Under node caps of 150 W, node
// 0's two tasks share 150 W, 75 W each: 1.5 s, while node 1's runs at
// 100 W in 1 s. A job cap of 300 W (the two nodes' caps) lets all three
// run at 100 W: 1 s. A node cap of 120 W: 60 W each on node 0, 1.8 s. The
// least feasible node cap is node 0's two slowest tasks, 100 W.
func TestNodeCapsHand(t *testing.T) {
	if !clp.Available() {
		t.Skip("built without cgo: no LP solver")
	}
	d := &DAG{Vertices: 2, Init: 0, Fin: 1}
	for r := range 3 {
		d.Tasks = append(d.Tasks, Task{Rank: r, Src: 0, Dst: 1, Hull: two(1, 100, 2, 50)})
	}
	o, err := InitialOrder(d)
	if err != nil {
		t.Fatal(err)
	}
	nodeOf := []int{0, 0, 1}
	for _, form := range []Form{FormSegment, FormMix, FormIncrement} {
		got := solveWith(t, d, o, Options{Form: form, NodeOf: nodeOf}, []float64{150, 120, 100, 200, 99})
		check(t, "node caps "+form.String(), got, []float64{1.5, 1.8, 2, 1, math.Inf(1)})
		job := solveWith(t, d, o, Options{Form: form}, []float64{300})
		check(t, "job cap", job, []float64{1})
	}
	s, err := NewSolver(d, o, Options{NodeOf: nodeOf})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if least, _ := s.MinFeasibleCap(); !near(least, 100) {
		t.Errorf("least feasible node cap %g W, want 100", least)
	}
	b, err := s.Solve(150)
	if err != nil {
		t.Fatal(err)
	}
	// Compacted: node 1's task runs at its fastest, node 0's at 75 W.
	for i, want := range []float64{75, 75, 100} {
		if !near(b.Power[i], want) {
			t.Errorf("task %d draws %g W, want %g", i, b.Power[i], want)
		}
	}
	var ie *InfeasibleError
	if _, err := s.Solve(99); !errors.As(err, &ie) || !near(ie.MinCapW, 100) {
		t.Errorf("at 99 W: %v, want the least cap 100 W", err)
	}
	if _, err := NewSolver(d, o, Options{NodeOf: []int{0, 1}}); err == nil {
		t.Error("nodes for 2 of 3 ranks: no error")
	}
}

// orderedSchedule runs task i at hull point cfg[i] and places the events
// of o in order, each as soon as its incoming tasks and messages and the
// event before allow: a schedule that keeps o's event order, which the
// fixed-order LP bounds. It returns the vertex times and the tasks'
// powers.
func orderedSchedule(d *DAG, o *Order, cfg []int) (at, pow []float64) {
	in := make([][]struct {
		from int
		w    float64
	}, d.Vertices)
	pow = make([]float64, len(d.Tasks))
	for i, t := range d.Tasks {
		h := t.Hull[cfg[i]]
		pow[i] = h.Power
		in[t.Dst] = append(in[t.Dst], struct {
			from int
			w    float64
		}{t.Src, h.Time})
	}
	for _, m := range d.Messages {
		in[m.Dst] = append(in[m.Dst], struct {
			from int
			w    float64
		}{m.Src, m.Time})
	}
	byEvent := make([][]int, o.Events)
	for v := range d.Vertices {
		byEvent[o.Event[v]] = append(byEvent[o.Event[v]], v)
	}
	at = make([]float64, d.Vertices)
	prev := 0.0
	for _, vs := range byEvent {
		t := prev
		for _, v := range vs {
			for _, e := range in[v] {
				t = math.Max(t, at[e.from]+e.w)
			}
		}
		for _, v := range vs {
			at[v] = t
		}
		prev = t
	}
	return at, pow
}

// No schedule that keeps the LP's event order and each node's power
// within its cap beats the node-cap bound: random DAGs, random nodes,
// random configurations placed in the order (orderedSchedule), each
// checked at the cap of its own most powerful node (the tightest it
// meets). And the node-cap bound lies between the job bound at the sum of
// the node caps (fewer schedules meet node caps) and the job bound at one
// node's cap (a job within it has every node within it); with every rank
// on one node it is the job bound. The LP's own schedule keeps every node
// within its cap at every event.
func TestNodeCapsAdversarial(t *testing.T) {
	if !clp.Available() {
		t.Skip("built without cgo: no LP solver")
	}
	rng := rand.New(rand.NewPCG(34, 5))
	checked := 0
	for trial := range 24 {
		R := 2 + rng.IntN(4)
		var d *DAG
		if trial%2 == 0 {
			d = mpiLikeDAG(R, 2+rng.IntN(3), uint64(trial))
		} else {
			d = benchDAG(R, 4, 3, uint64(trial))
		}
		R = 0
		for _, tk := range d.Tasks {
			R = max(R, tk.Rank+1)
		}
		nodes := 1 + rng.IntN(R)
		nodeOf := make([]int, R)
		for r := range nodeOf {
			nodeOf[r] = rng.IntN(nodes)
		}
		o, err := InitialOrder(d)
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewSolver(d, o, Options{NodeOf: nodeOf, KeepBasis: true})
		if err != nil {
			t.Fatal(err)
		}
		job, err := NewSolver(d, o, Options{KeepBasis: true})
		if err != nil {
			t.Fatal(err)
		}
		one, err := NewSolver(d, o, Options{NodeOf: make([]int, R)})
		if err != nil {
			t.Fatal(err)
		}
		for range 12 {
			cfg := make([]int, len(d.Tasks))
			for i, tk := range d.Tasks {
				cfg[i] = rng.IntN(len(tk.Hull))
			}
			at, pow := orderedSchedule(d, o, cfg)
			capW := 0.0
			for _, w := range nodePowers(d, o, nodeOf, func(i int) float64 { return pow[i] }) {
				for _, x := range w {
					capW = math.Max(capW, x)
				}
			}
			b, err := s.Solve(capW)
			if err != nil {
				t.Fatalf("trial %d at %g W: %v", trial, capW, err)
			}
			if b.Makespan > at[d.Fin]*(1+1e-7)+1e-9 {
				t.Fatalf("trial %d at %g W per node: bound %g s above a schedule of %g s within the node caps", trial, capW, b.Makespan, at[d.Fin])
			}
			checked++
			for n, w := range nodePowers(d, o, nodeOf, func(i int) float64 { return b.Power[i] }) {
				for k, x := range w {
					if x > capW*(1+1e-7)+1e-9 {
						t.Fatalf("trial %d at %g W: the LP's schedule draws %g W on node %d at event %d", trial, capW, x, n, k)
					}
				}
			}
			lo, err := job.Solve(capW * float64(nodes))
			if err != nil {
				t.Fatal(err)
			}
			if lo.Makespan > b.Makespan*(1+1e-7)+1e-9 {
				t.Errorf("trial %d: job bound at %d × %g W %g s above the node bound %g s", trial, nodes, capW, lo.Makespan, b.Makespan)
			}
			if hi, err := job.Solve(capW); err == nil && hi.Makespan < b.Makespan*(1-1e-7)-1e-9 {
				t.Errorf("trial %d: job bound at %g W %g s below the node bound %g s", trial, capW, hi.Makespan, b.Makespan)
			}
			jb, err1 := job.Solve(capW)
			ob, err2 := one.Solve(capW)
			if (err1 == nil) != (err2 == nil) || (err1 == nil && !near(jb.Makespan, ob.Makespan)) {
				t.Errorf("trial %d at %g W: one node for all ranks %v (%v), the job's %v (%v)", trial, capW, ob, err2, jb, err1)
			}
		}
		s.Close()
		job.Close()
		one.Close()
	}
	if checked < 200 {
		t.Errorf("only %d schedules checked", checked)
	}
}
