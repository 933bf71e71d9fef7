package bound

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
)

func orderFree(t *testing.T, d *DAG, capW float64) (*OrderFreeResult, error) {
	t.Helper()
	o, err := InitialOrder(d)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewOrderFree(d, o, OrderFreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return f.Solve(capW)
}

// exampleC is a hand-checkable example: rank 0 runs a1 (Init→y) then a2
// (y→Fin), rank 1 b1 (Init→z) then b2 (z→Fin); every task runs at d_f and
// 50 W, at d_s = 2·d_f and 30 W, or a mix (power 30 + 20·c at duration
// d_s − c·d_f). Vertices: 0 Init, 1 y, 2 z, 3 Fin.
func exampleC() *DAG {
	return &DAG{Vertices: 4, Init: 0, Fin: 3, Tasks: []Task{
		{Rank: 0, Src: 0, Dst: 1, Hull: two(2, 50, 4, 30)},  // a1
		{Rank: 0, Src: 1, Dst: 3, Hull: two(8, 50, 16, 30)}, // a2
		{Rank: 1, Src: 0, Dst: 2, Hull: two(6, 50, 12, 30)}, // b1
		{Rank: 1, Src: 2, Dst: 3, Hull: two(4, 50, 8, 30)},  // b2
	}}
}

// Example C by hand, at 80 W. Two tasks overlapping draw 60 + 20·(c + c')
// ≤ 80, so c + c' ≤ 1 for every pair that overlaps.
//
// The traced order (fastest schedule: y = 2 < z = 6) overlaps a1–b1,
// a2–b1 and a2–b2. Rank 0 takes T ≥ 20 − w with w = 2·c_a1 + 8·c_a2,
// rank 1 T ≥ 20 − u with u = 6·c_b1 + 4·c_b2, and
// u + w = 2(c_a1 + c_b1) + 4(c_a2 + c_b1) + 4(c_a2 + c_b2) ≤ 10, so
// min(u, w) ≤ 5 and T ≥ 15, reached with every c = ½: the fixed-order LP
// gives 15.
//
// With z ≤ y, a2 and b1 never overlap: b1 fast (6 s, 50 W) beside a1 slow
// (4 s, then waiting at 30 W until y), y = z = 6, then a2 fast (8 s,
// 50 W) beside b2 slow (8 s, 30 W): T = 14. No schedule does better: y ≥ z
// ≥ d_b1 ≥ 6 and T ≥ y + d_a2 ≥ 6 + 8 in that order, and T ≥ 15 in the
// other. So the order-free optimum is 14, strictly better, with z no later
// than y. At 60 W every task must run slow (any faster one would need more
// than 30 W beside another drawing at least 30 W): both give 20 s. At
// 100 W every task runs fast: 10 s.
func TestOrderFreeExampleC(t *testing.T) {
	if !clp.Available() {
		t.Skip("built without cgo: no LP solver")
	}
	d := exampleC()
	for _, c := range []struct{ capW, fixed, free float64 }{{80, 15, 14}, {60, 20, 20}, {100, 10, 10}} {
		fixed := solve(t, d, c.capW)[0]
		if !near(fixed, c.fixed) {
			t.Errorf("%g W: fixed order %v, want %v", c.capW, fixed, c.fixed)
		}
		r, err := orderFree(t, d, c.capW)
		if err != nil {
			t.Fatalf("%g W: %v", c.capW, err)
		}
		if !near(r.Makespan, c.free) {
			t.Errorf("%g W: order-free %v, want %v", c.capW, r.Makespan, c.free)
		}
		if c.capW == 80 {
			if y, z := r.Vertex[1], r.Vertex[2]; z > y+1e-9 {
				t.Errorf("80 W: optimal schedule has z = %v after y = %v", z, y)
			}
		}
	}
}

// A cap below what every order needs is ErrNoOrder: two tasks at 30 W
// at their slowest must overlap at Init.
func TestOrderFreeInfeasible(t *testing.T) {
	if !clp.Available() {
		t.Skip("built without cgo: no LP solver")
	}
	if _, err := orderFree(t, exampleC(), 59); !errors.Is(err, ErrNoOrder) {
		t.Errorf("59 W: %v, want ErrNoOrder", err)
	}
}

// A search over its node limit stops with ErrSearchLimit and the interval
// it reached; one with too many vertices that could come next stops with
// their count; shared devices are refused.
func TestOrderFreeTooLarge(t *testing.T) {
	if clp.Available() {
		d := exampleC()
		o, err := InitialOrder(d)
		if err != nil {
			t.Fatal(err)
		}
		f, err := NewOrderFree(d, o, OrderFreeOptions{MaxNodes: 150})
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.Solve(80)
		var le *LimitError
		if !errors.Is(err, ErrSearchLimit) || !errors.As(err, &le) || !near(le.Best, 15) || !(le.Lower <= 14) {
			t.Errorf("150 nodes at 80 W: %v", err)
		}
	}
	// 14 ranks of two tasks: 14 vertices could follow Init.
	wide := &DAG{Vertices: 16, Init: 0, Fin: 1}
	for r := 0; r < 14; r++ {
		wide.Tasks = append(wide.Tasks, Task{Rank: r, Src: 0, Dst: 2 + r, Hull: two(1, 50, 2, 30)}, Task{Rank: r, Src: 2 + r, Dst: 1, Hull: two(1, 50, 2, 30)})
	}
	if clp.Available() {
		f, err := NewOrderFree(wide, nil, OrderFreeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Solve(600); err == nil || !strings.Contains(err.Error(), "14 power events could come next, at most 12") {
			t.Errorf("wide DAG: %v", err)
		}
	}
	if _, err := NewOrderFree(exampleCWithDevice(), nil, OrderFreeOptions{}); err == nil || !strings.Contains(err.Error(), "shared devices") {
		t.Errorf("devices: %v", err)
	}
}

func exampleCWithDevice() *DAG {
	d := exampleC()
	d.Devices = []Device{{Name: "gpu", Count: 1}}
	return d
}

// tinyDAG is a random DAG of R ranks of m tasks each between Init and
// Fin, with messages (positive times) from a rank's j-th vertex to another
// rank's k-th, k > j, so every vertex is a task's start or end. With
// extras it also has a zero-time message, a load and a task with Until.
func tinyDAG(rng *rand.Rand, R, m int, extras bool) *DAG {
	d := &DAG{Vertices: 2, Init: 0, Fin: 1}
	level := make([][]int, R) // level[r][j]: rank r's vertex after j tasks
	for r := 0; r < R; r++ {
		level[r] = append(level[r], d.Init)
		for j := 1; j < m; j++ {
			level[r] = append(level[r], d.Vertices)
			d.Vertices++
		}
		level[r] = append(level[r], d.Fin)
		for j := 0; j < m; j++ {
			df := 1 + 4*rng.Float64()
			ph := 40 + 20*rng.Float64()
			h, _ := frontier.Hull([]frontier.Config{{Time: df, Power: ph}, {Time: df * (1.3 + rng.Float64()), Power: 15 + 10*rng.Float64()}})
			d.Tasks = append(d.Tasks, Task{Rank: r, Src: level[r][j], Dst: level[r][j+1], Hull: h})
		}
	}
	for k := rng.IntN(3); k > 0; k-- {
		r, s := rng.IntN(R), rng.IntN(R)
		j := 1 + rng.IntN(m-1)
		if r == s || j+1 >= m {
			continue
		}
		d.Messages = append(d.Messages, Message{Src: level[r][j], Dst: level[s][j+1+rng.IntN(m-1-j)], Time: 0.5 * rng.Float64()})
	}
	if !extras {
		return d
	}
	// A message of no time between the same level of two ranks (the
	// vertices may tie), a load of a few watts beside a task, and a task
	// whose power lasts over its rank's next task (Until).
	if j := 1 + rng.IntN(m-1); j < m {
		d.Messages = append(d.Messages, Message{Src: level[0][j], Dst: level[1][j]})
	}
	r, j := rng.IntN(R), rng.IntN(m)
	d.Loads = append(d.Loads, Load{Rank: r, Src: level[r][j], Dst: level[r][j+1], W: 2 + 4*rng.Float64()})
	if m >= 2 {
		r := rng.IntN(R)
		d.Tasks[r*m].Until = level[r][2]
	}
	return d
}

// bruteForce solves the fixed-order LP (Solver) of every weak order of
// d's vertices that the DAG allows and returns the least optimum: the
// order-free optimum by definition (Bailey et al., SC'15, §3.4), with nothing of
// OrderFree's search.
func bruteForce(t *testing.T, d *DAG, capW float64) (best float64, orders int) {
	t.Helper()
	n := d.Vertices
	// pred[v][u]: 2 an edge u → v of positive time (u is placed before
	// v), 1 only edges of no time (u may tie with v), 0 none.
	pred := make([][]int8, n)
	for v := range pred {
		pred[v] = make([]int8, n)
	}
	for _, tk := range d.Tasks {
		pred[tk.Dst][tk.Src] = 2
	}
	for _, m := range d.Messages {
		w := int8(1)
		if m.Time > 0 {
			w = 2
		}
		pred[m.Dst][m.Src] = max(pred[m.Dst][m.Src], w)
	}
	best = math.Inf(1)
	event := make([]int, n)
	for v := range event {
		event[v] = -1
	}
	var rec func(k, placed int)
	rec = func(k, placed int) {
		if placed == n {
			orders++
			if b := fixedLP(t, d, event, k, capW); b < best {
				best = b
			}
			return
		}
		var ready []int // unplaced, every predecessor of positive time placed
		for v := 0; v < n; v++ {
			if event[v] >= 0 || (k == 0 && v != d.Init) {
				continue
			}
			ok := true
			for u := 0; u < n; u++ {
				if pred[v][u] == 2 && event[u] < 0 {
					ok = false
				}
			}
			if ok {
				ready = append(ready, v)
			}
		}
		for mask := 1; mask < 1<<len(ready); mask++ {
			c := 0
			for j, v := range ready {
				if mask&(1<<j) != 0 {
					event[v] = k
					c++
				}
			}
			ok := true // a predecessor not placed before must tie
			for _, v := range ready {
				for u := 0; u < n; u++ {
					if event[v] == k && pred[v][u] > 0 && event[u] < 0 {
						ok = false
					}
				}
			}
			if ok {
				rec(k+1, placed+c)
			}
			for _, v := range ready {
				if event[v] == k {
					event[v] = -1
				}
			}
		}
	}
	rec(0, 0)
	return best, orders
}

// fixedLP is the Solver's optimum under the weak order event (k events),
// +Inf when infeasible. The order's times are the fastest schedule that
// keeps it (the Solver reads them for the uncapped case).
func fixedLP(t *testing.T, d *DAG, event []int, k int, capW float64) float64 {
	t.Helper()
	times := make([]float64, d.Vertices)
	for changed := true; changed; {
		changed = false
		up := func(v int, x float64) {
			if x > times[v]+1e-12 {
				times[v], changed = x, true
			}
		}
		for _, tk := range d.Tasks {
			up(tk.Dst, times[tk.Src]+tk.Hull[0].Time)
		}
		for _, m := range d.Messages {
			up(m.Dst, times[m.Src]+m.Time)
		}
		evT := make([]float64, k)
		for v, e := range event {
			evT[e] = math.Max(evT[e], times[v])
		}
		for e := 1; e < k; e++ {
			evT[e] = math.Max(evT[e], evT[e-1])
		}
		for v, e := range event {
			up(v, evT[e])
		}
	}
	o := &Order{Times: times, Event: append([]int(nil), event...), Events: k, Makespan: times[d.Fin]}
	s, err := NewSolver(d, o, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, err := s.Solve(capW)
	var ie *InfeasibleError
	if errors.As(err, &ie) {
		return math.Inf(1)
	}
	if err != nil {
		// An order the DAG's times cannot keep (a message against a
		// tie) is an infeasible LP.
		var se *clp.StatusError
		if errors.As(err, &se) && se.Status == clp.PrimalInfeasible {
			return math.Inf(1)
		}
		t.Fatalf("order %v at %g W: %v", event, capW, err)
	}
	return b.Makespan
}

// On random small DAGs (half of them with a zero-time message, whose ends
// may tie, a load and a task whose power outlasts its next task) the
// search finds the least optimum over every weak order (solved one by one
// with the fixed-order Solver), and is never above the traced order's LP.
func TestOrderFreeMatchesEveryOrder(t *testing.T) {
	if !clp.Available() {
		t.Skip("built without cgo: no LP solver")
	}
	rng := rand.New(rand.NewPCG(20, 3))
	strict := 0
	for run := 0; run < 16; run++ {
		d := tinyDAG(rng, 2+run%2, 2+run%3/2, run%4 >= 2)
		o, err := InitialOrder(d)
		if err != nil {
			t.Fatal(err)
		}
		f, err := NewOrderFree(d, o, OrderFreeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		minCap, _ := MinFeasibleCap(d, o)
		var most float64
		for _, p := range o.Power(d, func(i int) float64 { return d.Tasks[i].Hull[0].Power }) {
			most = math.Max(most, p)
		}
		for _, x := range []float64{0.9, 1, 1.1, 1.4, 1.8} {
			capW := minCap * x
			if capW > most*1.05 {
				continue
			}
			want, n := bruteForce(t, d, capW)
			fixed := math.Inf(1)
			if capW >= minCap {
				fixed = solveWith(t, d, o, Options{}, []float64{capW})[0]
			}
			r, err := f.Solve(capW)
			if math.IsInf(want, 1) {
				if !errors.Is(err, ErrNoOrder) {
					t.Errorf("run %d, %g W: no order is feasible, got %v", run, capW, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("run %d, %g W: %v", run, capW, err)
			}
			if math.Abs(r.Makespan-want) > 1e-6*want {
				t.Errorf("run %d, %g W: order-free %v, least of %d orders %v", run, capW, r.Makespan, n, want)
			}
			if r.Makespan > fixed+1e-9*fixed {
				t.Errorf("run %d, %g W: order-free %v above the fixed order's %v", run, capW, r.Makespan, fixed)
			}
			if r.Makespan < fixed-1e-6*fixed {
				strict++
			}
		}
	}
	if strict == 0 {
		t.Error("no run where a free order beats the traced one: the test checks nothing but equality")
	}
	t.Logf("%d caps where the order-free optimum beats the traced order", strict)
}

// Where the DAG forces the order of every power event (every task
// between collectives over all ranks), the order-free optimum is the
// fixed-order LP's at every cap.
func TestOrderFreeForcedOrder(t *testing.T) {
	if !clp.Available() {
		t.Skip("built without cgo: no LP solver")
	}
	rng := rand.New(rand.NewPCG(7, 7))
	d := &DAG{Vertices: 5, Init: 0, Fin: 4} // collectives 1, 2, 3
	steps := []int{0, 1, 2, 3, 4}
	for s := 0; s+1 < len(steps); s++ {
		for r := 0; r < 3; r++ {
			df := 1 + 3*rng.Float64()
			h, _ := frontier.Hull([]frontier.Config{{Time: df, Power: 60}, {Time: 1.5 * df, Power: 35}, {Time: 2.5 * df, Power: 20}})
			d.Tasks = append(d.Tasks, Task{Rank: r, Src: steps[s], Dst: steps[s+1], Hull: h})
		}
	}
	o, err := InitialOrder(d)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewOrderFree(d, o, OrderFreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, capW := range []float64{60, 75, 90, 110, 140, 180} {
		fixed := solveWith(t, d, o, Options{}, []float64{capW})[0]
		r, err := f.Solve(capW)
		if err != nil {
			t.Fatalf("%g W: %v", capW, err)
		}
		if math.Abs(r.Makespan-fixed) > 1e-7*fixed {
			t.Errorf("%g W: order-free %v, fixed order %v", capW, r.Makespan, fixed)
		}
	}
}

// withResource gives d a resource (Fin after every item) whose items are
// the second task of every rank and a fixed item of 2 s from 0.5 s after
// Init, in a random order fixed by edges appended to d's messages; nil
// where that order makes a cycle.
func withResource(t *testing.T, rng *rand.Rand, d *DAG) *Resources {
	t.Helper()
	u, w := d.Vertices, d.Vertices+1
	d.Vertices += 2
	seen := map[int]int{}
	var items []Span
	for _, tk := range d.Tasks {
		if seen[tk.Rank]++; seen[tk.Rank] == 2 {
			items = append(items, Span{int32(tk.Src), int32(tk.Dst)})
		}
	}
	d.Messages = append(d.Messages, Message{Src: d.Init, Dst: u, Time: 0.5}, Message{Src: u, Dst: w, Time: 2}, Message{Src: w, Dst: d.Fin})
	items = append(items, Span{int32(u), int32(w)})
	rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	r := &Resources{Names: []string{"core"}, Items: [][]Span{items}, Fin: []bool{true}}
	r.Edges[0] = len(d.Messages)
	for j := 1; j < len(items); j++ {
		d.Messages = append(d.Messages, Message{Src: int(items[j-1].End), Dst: int(items[j].Start)})
	}
	r.Edges[1] = len(d.Messages)
	if _, err := topoOrder(d); err != nil {
		return nil // the DAG orders the items against their starts
	}
	return r
}

// With a resource that serves one item at a time, the search finds the
// least of bruteForce over every order of the resource's items (each a
// DAG with that chain), is never above the traced order's LP nor below
// OrderFreeLower, and beats the traced order somewhere.
func TestOrderFreeResourcesMatchEveryOrder(t *testing.T) {
	if !clp.Available() {
		t.Skip("built without cgo: no LP solver")
	}
	rng := rand.New(rand.NewPCG(32, 5))
	strict := 0
	for run := 0; run < 12; run++ {
		d := tinyDAG(rng, 2, 3, run%3 == 2)
		res := withResource(t, rng, d)
		if res == nil {
			continue
		}
		o, err := InitialOrder(d)
		if err != nil {
			t.Fatal(err)
		}
		f, err := NewOrderFree(d, o, OrderFreeOptions{Resources: res})
		if err != nil {
			t.Fatal(err)
		}
		minCap, _ := MinFeasibleCap(d, o)
		for _, x := range []float64{1, 1.3, 3} {
			capW := minCap * x
			want := math.Inf(1)
			for _, perm := range permutations(len(res.Items[0])) {
				pd := *res.free(d)
				pd.Messages = slices.Clone(pd.Messages)
				for j := 1; j < len(perm); j++ {
					a, b := res.Items[0][perm[j-1]], res.Items[0][perm[j]]
					pd.Messages = append(pd.Messages, Message{Src: int(a.End), Dst: int(b.Start)})
				}
				if _, err := topoOrder(&pd); err != nil {
					continue // an order the DAG forbids
				}
				b, _ := bruteForce(t, &pd, capW)
				want = math.Min(want, b)
			}
			r, err := f.Solve(capW)
			if err != nil {
				t.Fatalf("run %d, %g W: %v", run, capW, err)
			}
			if math.Abs(r.Makespan-want) > 1e-6*want {
				t.Errorf("run %d, %g W: order-free %v, least over every order %v", run, capW, r.Makespan, want)
			}
			fixed := solveWith(t, d, o, Options{}, []float64{capW})[0]
			if r.Makespan > fixed*(1+1e-9) {
				t.Errorf("run %d, %g W: order-free %v above the fixed order's %v", run, capW, r.Makespan, fixed)
			}
			if r.Makespan < fixed*(1-1e-6) {
				strict++
			}
			lo, err := OrderFreeLower(context.Background(), d, res, capW)
			if err != nil || lo > r.Makespan*(1+1e-7) {
				t.Errorf("run %d, %g W: lower bound %v (%v) above the order-free optimum %v", run, capW, lo, err, r.Makespan)
			}
		}
	}
	if strict == 0 {
		t.Error("no run where a free order beats the traced one")
	}
}

// permutations returns every order of 0..n−1.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for k := 0; k <= len(p); k++ {
			q := append(append(append([]int{}, p[:k]...), n-1), p[k:]...)
			out = append(out, q)
		}
	}
	return out
}

// validSchedule is a random schedule of d's model with resource res: its
// items in a random order (nil where that order makes a cycle), every
// task at a random hull point, every vertex after its predecessors plus a
// random wait. It returns the makespan and the peak power (a task draws
// its point's power from its start to its power end, a load its watts).
func validSchedule(rng *rand.Rand, d *DAG, res *Resources) (makespan, peak float64, ok bool) {
	pd := *res.free(d)
	pd.Messages = slices.Clone(pd.Messages)
	items := res.Items[0]
	perm := rng.Perm(len(items))
	for j := 1; j < len(perm); j++ {
		pd.Messages = append(pd.Messages, Message{Src: int(items[perm[j-1]].End), Dst: int(items[perm[j]].Start)})
	}
	topo, err := topoOrder(&pd)
	if err != nil {
		return 0, 0, false
	}
	type edge struct {
		to int
		w  float64
	}
	out := make([][]edge, pd.Vertices)
	pow := make([]float64, len(d.Tasks))
	for i, t := range d.Tasks {
		k := rng.IntN(len(t.Hull))
		pow[i] = t.Hull[k].Power
		out[t.Src] = append(out[t.Src], edge{t.Dst, t.Hull[k].Time})
	}
	for _, m := range pd.Messages {
		out[m.Src] = append(out[m.Src], edge{m.Dst, m.Time})
	}
	at := make([]float64, pd.Vertices)
	for _, v := range topo {
		if v != d.Init && rng.IntN(3) == 0 {
			at[v] += rng.Float64()
		}
		for _, e := range out[v] {
			at[e.to] = math.Max(at[e.to], at[v]+e.w)
		}
	}
	type iv struct{ a, b, w float64 }
	var ivs []iv
	for i := range d.Tasks {
		ivs = append(ivs, iv{at[d.Tasks[i].Src], at[d.Tasks[i].PowerEnd()], pow[i]})
	}
	for _, l := range d.Loads {
		ivs = append(ivs, iv{at[l.Src], at[l.Dst], l.W})
	}
	for _, x := range ivs {
		var w float64
		for _, y := range ivs {
			if y.a <= x.a && x.a < y.b {
				w += y.w
			}
		}
		peak = math.Max(peak, w)
	}
	return at[d.Fin], peak, true
}

// No schedule of any order, of its power events or of its resource's
// items, that keeps a cap beats the order-free optimum at that cap, nor
// OrderFreeLower: random schedules at the cap of their own peak power.
func TestOrderFreeNeverAboveASchedule(t *testing.T) {
	if !clp.Available() {
		t.Skip("built without cgo: no LP solver")
	}
	rng := rand.New(rand.NewPCG(32, 9))
	checked := 0
	for run := 0; run < 12; run++ {
		d := tinyDAG(rng, 2, 3, run%2 == 1)
		res := withResource(t, rng, d)
		if res == nil {
			continue
		}
		f, err := NewOrderFree(d, nil, OrderFreeOptions{Resources: res})
		if err != nil {
			t.Fatal(err)
		}
		for range 6 {
			T, peak, ok := validSchedule(rng, d, res)
			if !ok {
				continue
			}
			capW := peak * (1 + 1e-9)
			r, err := f.Solve(capW)
			if err != nil {
				t.Fatalf("run %d at %g W: %v", run, capW, err)
			}
			if r.Makespan > T*(1+1e-6) {
				t.Errorf("run %d at %g W: order-free optimum %v above a schedule of %v", run, capW, r.Makespan, T)
			}
			lo, err := OrderFreeLower(context.Background(), d, res, capW)
			if err != nil || lo > T*(1+1e-7) {
				t.Errorf("run %d at %g W: lower bound %v (%v) above a schedule of %v", run, capW, lo, err, T)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("%d schedules checked", checked)
	}
}
