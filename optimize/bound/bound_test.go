package bound

import (
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
)

// two is the two-configuration hull of the hand-checkable examples.
func two(df, phi, ds, plo float64) []frontier.Config {
	return []frontier.Config{{Time: df, Power: phi}, {Time: ds, Power: plo}}
}

func solve(t *testing.T, d *DAG, caps ...float64) []float64 {
	t.Helper()
	if !clp.Available() {
		t.Skip("built without cgo: no LP solver")
	}
	o, err := InitialOrder(d)
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	// Every form, method and block split must agree.
	for _, opt := range []Options{{Form: FormSegment}, {Form: FormMix, BlockCols: -1}, {Form: FormMix, BlockCols: 1, Method: clp.Barrier},
		{Form: FormSegment, BlockCols: 1, Method: clp.Dual, Workers: 2, KeepBasis: true}, {KeepBasis: true}, {Form: FormMix, Method: clp.BarrierNoCross}} {
		got := solveWith(t, d, o, opt, caps)
		if out == nil {
			out = got
			continue
		}
		for i := range got {
			if !near(got[i], out[i]) {
				t.Errorf("options %+v: cap %g: T* = %v, other options give %v", opt, caps[i], got[i], out[i])
			}
		}
	}
	return out
}

func solveWith(t *testing.T, d *DAG, o *Order, opt Options, caps []float64) []float64 {
	t.Helper()
	s, err := NewSolver(d, o, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out []float64
	for _, c := range caps {
		b, err := s.Solve(c)
		if err != nil {
			var ie *InfeasibleError
			if errors.As(err, &ie) {
				out = append(out, math.Inf(1))
				continue
			}
			t.Fatalf("cap %g: %v", c, err)
		}
		out = append(out, b.Makespan)
	}
	return out
}

// near compares makespans to 1e-7 relative (the barrier without crossover
// stops at that accuracy).
func near(a, b float64) bool {
	return math.Abs(a-b) < 1e-7*math.Max(1, math.Abs(b)) || (math.IsInf(a, 1) && math.IsInf(b, 1))
}

func check(t *testing.T, name string, got, want []float64) {
	t.Helper()
	for i := range want {
		if !near(got[i], want[i]) {
			t.Errorf("%s: case %d: T* = %v, want %v", name, i, got[i], want[i])
		}
	}
}

// Vertex numbering in the examples: 0 Init, last Fin.

func TestExampleA(t *testing.T) {
	d := &DAG{Vertices: 2, Init: 0, Fin: 1, Tasks: []Task{{Rank: 0, Src: 0, Dst: 1, Hull: two(10, 50, 20, 30)}}}
	inf := math.Inf(1)
	check(t, "A", solve(t, d, 40, 50, 29), []float64{15, 10, inf})
}

func TestExampleB(t *testing.T) {
	d := &DAG{Vertices: 2, Init: 0, Fin: 1, Tasks: []Task{
		{Rank: 0, Src: 0, Dst: 1, Hull: two(10, 50, 20, 30)},
		{Rank: 1, Src: 0, Dst: 1, Hull: two(5, 50, 10, 30)},
	}}
	check(t, "B", solve(t, d, 80), []float64{10})
	if st, _ := Static(d, 80); !near(st, 15) {
		t.Errorf("static %v, want 15", st)
	}
}

// exampleM: vertices 0 Init, 1 S, 2 R, 3 Fin.
func exampleM() *DAG {
	return &DAG{Vertices: 4, Init: 0, Fin: 3,
		Tasks: []Task{
			{Rank: 0, Src: 0, Dst: 1, Hull: two(4, 50, 8, 30)},  // a1
			{Rank: 0, Src: 1, Dst: 3, Hull: two(2, 50, 4, 30)},  // a2
			{Rank: 1, Src: 0, Dst: 2, Hull: two(1, 50, 2, 30)},  // b1
			{Rank: 1, Src: 2, Dst: 3, Hull: two(5, 50, 10, 30)}, // b2
		},
		Messages: []Message{{Src: 1, Dst: 2, Time: 1}},
	}
}

func TestExampleM(t *testing.T) {
	d := exampleM()
	o, err := InitialOrder(d)
	if err != nil {
		t.Fatal(err)
	}
	if o.Times[1] != 4 || o.Times[2] != 5 || o.Makespan != 10 {
		t.Fatalf("initial schedule %v", o.Times)
	}
	want := [][]int{{0, 2}, {1, 2}, {1, 3}, nil}
	for k := range want {
		if got := o.Active(d, k); len(got) != len(want[k]) {
			t.Fatalf("active set %d: %v, want %v", k, got, want[k])
		}
	}
	inf := math.Inf(1)
	check(t, "M", solve(t, d, 100, 80, 70, 60, 59), []float64{10, 10, 14.5, 19, inf})
	for _, c := range []struct{ cap, want float64 }{{80, 14.5}, {70, 16.75}} {
		if st, _ := Static(d, c.cap); !near(st, c.want) {
			t.Errorf("static at %g W = %v, want %v", c.cap, st, c.want)
		}
	}
	if m, at := MinFeasibleCap(d, o); m != 60 || at != 0 {
		t.Errorf("min feasible cap %v at event %d, want 60", m, at)
	}
}

// Example C: the fixed order y < z gives 15 although 14 is possible.
func TestExampleCFixedOrderMatters(t *testing.T) {
	d := &DAG{Vertices: 4, Init: 0, Fin: 3, Tasks: []Task{ // 1 = y, 2 = z
		{Rank: 0, Src: 0, Dst: 1, Hull: two(2, 50, 4, 30)},
		{Rank: 0, Src: 1, Dst: 3, Hull: two(8, 50, 16, 30)},
		{Rank: 1, Src: 0, Dst: 2, Hull: two(6, 50, 12, 30)},
		{Rank: 1, Src: 2, Dst: 3, Hull: two(4, 50, 8, 30)},
	}}
	check(t, "C", solve(t, d, 80), []float64{15})
	if st, _ := Static(d, 80); !near(st, 15) {
		t.Errorf("static %v, want 15", st)
	}
	// The order with y = z (one event, Bailey et al., SC'15, §3.3) gives 14.
	o, err := InitialOrder(d)
	if err != nil {
		t.Fatal(err)
	}
	o.Event = []int{0, 1, 1, 2}
	o.Events = 3
	check(t, "C with y = z", solveWith(t, d, o, Options{}, []float64{80}), []float64{14})
}

// Reading (b) of §2.5 moves vertices as late as the makespan allows. Rank
// 0 runs a (2 s fast) to u, which only precedes Fin; rank 1 runs b (1 s)
// to w, then c (3 s) to Fin: makespan 4 s. As soon as possible u is at
// 2 s, its own event; as late as possible it is at 4 s, Fin's event, so
// task a spans the whole run. Both orders keep the fastest schedule
// feasible (4 s uncapped) and record their policy.
func TestSlackPolicies(t *testing.T) {
	d := &DAG{Vertices: 4, Init: 0, Fin: 3, Tasks: []Task{ // 1 = u, 2 = w
		{Rank: 0, Src: 0, Dst: 1, Hull: two(2, 100, 4, 50)},
		{Rank: 1, Src: 0, Dst: 2, Hull: two(1, 100, 2, 50)},
		{Rank: 1, Src: 2, Dst: 3, Hull: two(3, 100, 6, 50)},
	}, Messages: []Message{{Src: 1, Dst: 3}}}
	for _, c := range []struct {
		slack  SlackPolicy
		name   string
		u      float64
		events int
	}{
		{SlackLocal, "stretch-into-local-slack", 2, 4},
		{SlackLate, "as-late-as-possible", 4, 3},
	} {
		o, err := InitialOrderWith(d, OrderOptions{Slack: c.slack})
		if err != nil {
			t.Fatal(err)
		}
		if o.Policy != c.name || o.Times[1] != c.u || o.Events != c.events || o.Makespan != 4 || o.Times[2] != 1 {
			t.Errorf("%v: policy %q, u at %v, w at %v, %d events, makespan %v; want %q, u at %v, w at 1, %d events, 4",
				c.slack, o.Policy, o.Times[1], o.Times[2], o.Events, o.Makespan, c.name, c.u, c.events)
		}
		if clp.Available() {
			check(t, c.name+" uncapped", solveWith(t, d, o, Options{}, []float64{1000}), []float64{4})
		}
	}
}

// Example D through the LP: one task on the hull g1, g2, g4 at 40 W.
func TestExampleDLP(t *testing.T) {
	h, _ := frontier.Hull([]frontier.Config{{Time: 10, Power: 50}, {Time: 12, Power: 44}, {Time: 14, Power: 41},
		{Time: 20, Power: 30}, {Time: 15, Power: 55}, {Time: 25, Power: 31}})
	d := &DAG{Vertices: 2, Init: 0, Fin: 1, Tasks: []Task{{Src: 0, Dst: 1, Hull: h}}}
	check(t, "D", solve(t, d, 40), []float64{100.0 / 7})
}

// Example E: Static (38/3) beats the fixed-order LP (1860/143); the LP
// must not be asserted ≤ Static.
func TestExampleEStaticCanWin(t *testing.T) {
	d := &DAG{Vertices: 4, Init: 0, Fin: 3, Tasks: []Task{
		{Rank: 0, Src: 0, Dst: 1, Hull: two(4, 50, 12, 20)},
		{Rank: 0, Src: 1, Dst: 3, Hull: two(6, 40, 12, 30)},
		{Rank: 1, Src: 0, Dst: 2, Hull: two(6, 40, 12, 30)},
		{Rank: 1, Src: 2, Dst: 3, Hull: two(4, 60, 8, 30)},
	}}
	check(t, "E", solve(t, d, 80), []float64{1860.0 / 143})
	if st, _ := Static(d, 80); !near(st, 38.0/3) {
		t.Errorf("static %v, want 38/3", st)
	}
}

// Example F: barrier-separated intervals; within each the LP is
// water-filling, which bisection solves independently.
func TestExampleFWaterFilling(t *testing.T) {
	type rk struct{ df, ds, phi, plo float64 }
	intervals := [][]rk{
		{{3, 7, 60, 20}, {5, 9, 55, 25}, {2, 4, 40, 30}, {4, 12, 70, 10}},
		{{1, 3, 50, 30}, {6, 8, 45, 35}, {2, 5, 65, 15}, {3, 3.5, 52, 48}},
	}
	capW := 170.0
	d := &DAG{Vertices: len(intervals) + 1, Init: 0, Fin: len(intervals)}
	var want float64
	for k, iv := range intervals {
		for r, x := range iv {
			d.Tasks = append(d.Tasks, Task{Rank: r, Src: k, Dst: k + 1, Hull: two(x.df, x.phi, x.ds, x.plo)})
		}
		power := func(T float64) float64 {
			var w float64
			for _, x := range iv {
				c := math.Min(1, math.Max(0, (x.ds-T)/(x.ds-x.df)))
				w += x.plo + (x.phi-x.plo)*c
			}
			return w
		}
		lo, hi := 0.0, 100.0
		for i := 0; i < 200; i++ {
			mid := (lo + hi) / 2
			if power(mid) <= capW {
				hi = mid
			} else {
				lo = mid
			}
		}
		fastest := 0.0
		for _, x := range iv {
			fastest = math.Max(fastest, x.df)
		}
		want += math.Max(hi, fastest)
	}
	got := solve(t, d, capW)[0]
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("LP %v, water-filling %v", got, want)
	}
}

// §9.5: T*(cap) never rises with the cap; warm re-solves agree with cold
// ones; infeasible exactly below the reported minimum.
func TestCapSweepProperties(t *testing.T) {
	d := exampleM()
	caps := []float64{60, 62, 65, 70, 75, 80, 90, 100}
	warm := solve(t, d, caps...)
	for i, c := range caps {
		cold := solve(t, d, c)[0]
		if !near(cold, warm[i]) {
			t.Errorf("cap %g: warm %v, cold %v", c, warm[i], cold)
		}
		if i > 0 && warm[i] > warm[i-1]+1e-9 {
			t.Errorf("T* rises from %v to %v as the cap rises to %g", warm[i-1], warm[i], c)
		}
	}
	// linear between 60 and 80 with slope −0.45 s/W
	if !near(warm[2], 19-0.45*5) {
		t.Errorf("T*(65) = %v, want %v", warm[2], 19-0.45*5)
	}
	got := solve(t, d, 60-1e-6)
	if !math.IsInf(got[0], 1) {
		t.Errorf("just below the minimum cap: %v, want infeasible", got[0])
	}
}

func TestMPSAndErrors(t *testing.T) {
	if !clp.Available() {
		t.Skip("no solver")
	}
	d := exampleM()
	o, _ := InitialOrder(d)
	s, err := NewSolver(d, o, Options{Method: clp.Barrier})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, err := s.Solve(70)
	if err != nil || !near(b.Makespan, 14.5) {
		t.Fatalf("barrier: %v %v", b, err)
	}
	// 4 event times, a δ per task's one segment, P at the 3 events where
	// tasks start; rows: 4 tasks, the message, 3 power rows (every chain
	// row is implied by a task or the message).
	if b.Stats.Form != "increment" || b.Stats.Variables != 4+4+3 || b.Stats.Rows != 4+1+3 {
		t.Errorf("stats %+v", b.Stats)
	}
	if err := s.WriteMPS(filepath.Join(t.TempDir(), "m.mps")); err != nil {
		t.Error(err)
	}
	_, err = s.Solve(10)
	var ie *InfeasibleError
	if !errors.As(err, &ie) || ie.MinCapW != 60 || ie.Event != 0 {
		t.Errorf("err = %v, want infeasible with minimum 60 W at event 0", err)
	}
	cyc := &DAG{Vertices: 3, Init: 0, Fin: 2, Tasks: []Task{{Src: 1, Dst: 2, Hull: two(1, 2, 3, 1)}, {Src: 2, Dst: 1, Hull: two(1, 2, 3, 1)}}}
	if _, err := InitialOrder(cyc); err == nil {
		t.Error("cycle accepted")
	}
}

// The block split (at separator events) is exact: the same bound as one
// monolithic LP, in both task forms, over a sweep (warm re-solves).
func TestBlocksMatchMonolithic(t *testing.T) {
	if !clp.Available() {
		t.Skip("no solver")
	}
	d := benchDAG(4, 40, 5, 3)
	o, err := InitialOrder(d)
	if err != nil {
		t.Fatal(err)
	}
	minCap, _ := MinFeasibleCap(d, o)
	caps := []float64{minCap, minCap + 20, minCap + 60, minCap + 150, 400}
	whole := solveWith(t, d, o, Options{BlockCols: -1}, caps)
	for _, opt := range []Options{{BlockCols: 1, Form: FormMix}, {BlockCols: 1, Form: FormSegment, Workers: 3, KeepBasis: true}, {BlockCols: 200}} {
		s, err := NewSolver(d, o, opt)
		if err != nil {
			t.Fatal(err)
		}
		if s.Stats().Blocks < 2 {
			t.Errorf("options %+v: %d blocks, want several (a barrier every 10 tasks)", opt, s.Stats().Blocks)
		}
		s.Close()
		got := solveWith(t, d, o, opt, caps)
		for i := range caps {
			if math.Abs(got[i]-whole[i]) > 1e-6*whole[i] {
				t.Errorf("options %+v: cap %g: %v, monolithic %v", opt, caps[i], got[i], whole[i])
			}
		}
		for i := 1; i < len(got); i++ {
			if got[i] > got[i-1]+1e-9 {
				t.Errorf("T* rises from %v to %v as the cap rises to %g", got[i-1], got[i], caps[i])
			}
		}
	}
}

// §9.5 property 4 with the LP's vertex times enforced: every task fits its
// window, draws the hull's power at its duration, and every event's power
// (each task's between its source and destination events) is within the
// cap; the makespan is T*. Checked on the compacted schedule Solve returns.
func TestScheduleWithinCap(t *testing.T) {
	if !clp.Available() {
		t.Skip("no solver")
	}
	d := benchDAG(6, 30, 6, 5)
	o, err := InitialOrder(d)
	if err != nil {
		t.Fatal(err)
	}
	minCap, _ := MinFeasibleCap(d, o)
	for _, opt := range []Options{{}, {Form: FormSegment, KeepBasis: true}} {
		s, err := NewSolver(d, o, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, capW := range []float64{minCap, minCap + 30, minCap + 100, 600} {
			b, err := s.Solve(capW)
			if err != nil {
				t.Fatal(err)
			}
			power := make([]float64, o.Events+1)
			for i, tk := range d.Tasks {
				win := b.Vertex[tk.Dst] - b.Vertex[tk.Src]
				if b.Duration[i] > win+1e-6 {
					t.Errorf("cap %g: task %d takes %v in a window of %v", capW, i, b.Duration[i], win)
				}
				if got := frontier.PowerAt(tk.Hull, b.Duration[i]); math.Abs(got-b.Power[i]) > 1e-9 {
					t.Errorf("cap %g: task %d draws %v, its hull %v", capW, i, b.Power[i], got)
				}
				if a, c := o.Event[tk.Src], o.Event[tk.Dst]; a < c {
					power[a] += b.Power[i]
					power[c] -= b.Power[i]
				}
			}
			var run float64
			for k := 0; k < o.Events; k++ {
				run += power[k]
				if run > capW*(1+1e-7) {
					t.Errorf("cap %g: event %d draws %v W", capW, k, run)
				}
			}
			if b.Makespan != b.Vertex[d.Fin] {
				t.Errorf("makespan %v, v_fin %v", b.Makespan, b.Vertex[d.Fin])
			}
		}
		s.Close()
	}
}

// §9.5 properties 1–3 on random DAGs: feasible exactly from the reported
// minimum cap, never faster than the unconstrained makespan, equal to it
// once every event's fastest power fits, and never rising with the cap.
func TestRandomDAGProperties(t *testing.T) {
	if !clp.Available() {
		t.Skip("no solver")
	}
	for seed := uint64(1); seed <= 4; seed++ {
		d := benchDAG(3+int(seed), 25, 4, seed)
		o, err := InitialOrder(d)
		if err != nil {
			t.Fatal(err)
		}
		minCap, at := MinFeasibleCap(d, o)
		s, err := NewSolver(d, o, Options{KeepBasis: seed%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		var ie *InfeasibleError
		if _, err := s.Solve(minCap * (1 - 1e-6)); !errors.As(err, &ie) || ie.Event != at || len(ie.EventTasks) == 0 {
			t.Errorf("seed %d: just below the minimum: %v", seed, err)
		}
		prev := math.Inf(1)
		fastAll := 100.0 * float64(3+int(seed))
		for _, f := range []float64{0, 0.1, 0.3, 0.6, 1} {
			capW := minCap + f*(fastAll-minCap)
			b, err := s.Solve(capW)
			if err != nil {
				t.Fatalf("seed %d cap %g: %v", seed, capW, err)
			}
			if b.Makespan < o.Makespan-1e-9 || b.Makespan > prev+1e-7 {
				t.Errorf("seed %d cap %g: T* %v (unconstrained %v, previous %v)", seed, capW, b.Makespan, o.Makespan, prev)
			}
			prev = b.Makespan
		}
		if math.Abs(prev-o.Makespan) > 1e-9 {
			t.Errorf("seed %d: T* at %g W is %v, the unconstrained makespan %v", seed, fastAll, prev, o.Makespan)
		}
		s.Close()
	}
}

// Two ranks each run one task, on the CPU (10 s, 10 W) or on a device
// (2 s, 45 W) they share. Without the device, both run there: 2 s. With one
// device, the LP keeps the stretch's device time within its length:
// 2·c1 + 2·c2 ≤ T and T ≥ 10 − 8·c_i give T = 10/3 s (c = 5/6), below the
// 4 s of running the two tasks on the device one after the other, so the
// bound stays a bound. With two devices: 2 s again.
func TestSharedDeviceRows(t *testing.T) {
	if !clp.Available() {
		t.Skip("built without cgo: no LP solver")
	}
	mk := func(devices []Device) *DAG {
		d := &DAG{Vertices: 2, Init: 0, Fin: 1, Devices: devices}
		for r := 0; r < 2; r++ {
			tk := Task{Rank: r, Src: 0, Dst: 1, Hull: two(2, 45, 10, 10)}
			if devices != nil {
				tk.OnDevice, tk.Device = []bool{true, false}, 0
			}
			d.Tasks = append(d.Tasks, tk)
		}
		return d
	}
	for _, c := range []struct {
		name    string
		devices []Device
		want    float64
	}{
		{"no device rows", nil, 2},
		{"one shared device", []Device{{Name: "gpu0", Count: 1}}, 10.0 / 3},
		{"two devices", []Device{{Name: "gpu0", Count: 2}}, 2},
	} {
		d := mk(c.devices)
		o, err := InitialOrder(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, opt := range []Options{{}, {KeepBasis: true, Method: clp.Dual}, {Method: clp.BarrierNoCross}} {
			got := solveWith(t, d, o, opt, []float64{100, 200})
			for _, g := range got {
				if !near(g, c.want) {
					t.Errorf("%s, %+v: T* = %v, want %v", c.name, opt, g, c.want)
				}
			}
		}
	}
	d := mk([]Device{{Name: "gpu0", Count: 1}})
	o, _ := InitialOrder(d)
	if _, err := NewSolver(d, o, Options{Form: FormSegment}); err == nil || !strings.Contains(err.Error(), "mix form") {
		t.Errorf("segment form with a shared device: %v, want an error naming the mix form", err)
	}
	d.Tasks[0].OnDevice = []bool{true}
	if err := d.Validate(); err == nil {
		t.Error("one device mark for two configurations accepted")
	}
}

// mpiLikeDAG is R ranks × M steps: a task per step, then up to three
// vertices of communication per rank and step (MPI calls), chained on the
// rank and joined across ranks by messages, some of which take no time:
// most of its events have no task, as in a lowered MPI trace.
func mpiLikeDAG(R, M int, seed uint64) *DAG {
	rng := rand.New(rand.NewPCG(seed, 11))
	d := &DAG{Vertices: 2, Init: 0, Fin: 1}
	vertex := func() int { d.Vertices++; return d.Vertices - 1 }
	cur := make([]int, R)
	comm := make([][]int, R)
	for m := 0; m < M; m++ {
		for r := 0; r < R; r++ {
			dst := vertex()
			base := 1 + 4*rng.Float64()
			var cs []frontier.Config
			for c := 0; c < 4; c++ {
				f := 1 - 0.15*float64(c)
				cs = append(cs, frontier.Config{Time: base * (0.3 + 0.7/f), Power: 10 + 40*f*f*f})
			}
			h, _ := frontier.Hull(cs)
			d.Tasks = append(d.Tasks, Task{Rank: r, Src: cur[r], Dst: dst, Hull: h})
			cur[r] = dst
			comm[r] = comm[r][:0]
			for k := rng.IntN(4); k > 0; k-- {
				v := vertex()
				d.Messages = append(d.Messages, Message{Src: cur[r], Dst: v, Time: float64(rng.IntN(2)) * 0.05})
				cur[r] = v
				comm[r] = append(comm[r], v)
			}
		}
		// Messages from a rank's calls to a later rank's calls this step.
		for r := 0; r+1 < R; r++ {
			for _, v := range comm[r] {
				q := r + 1 + rng.IntN(R-r-1)
				if len(comm[q]) > 0 && rng.IntN(2) == 0 {
					w := comm[q][rng.IntN(len(comm[q]))]
					d.Messages = append(d.Messages, Message{Src: v, Dst: w, Time: rng.Float64() * 0.4 * float64(rng.IntN(2))})
				}
			}
		}
	}
	for r := 0; r < R; r++ {
		d.Messages = append(d.Messages, Message{Src: cur[r], Dst: d.Fin})
	}
	return d
}

// The event reduction (reduceEvents) keeps the LP's optimum, and the
// eliminated events' times Solve fills in meet every message, task and
// the event order.
func TestEventReductionExact(t *testing.T) {
	if !clp.Available() {
		t.Skip("no solver")
	}
	for seed := uint64(1); seed <= 6; seed++ {
		d := mpiLikeDAG(3+int(seed%3), 8, seed)
		o, err := InitialOrder(d)
		if err != nil {
			t.Fatal(err)
		}
		minCap, _ := MinFeasibleCap(d, o)
		caps := []float64{minCap, minCap * 1.1, minCap * 1.3, minCap * 2, 1e4}
		for _, form := range []Form{FormMix, FormSegment, FormIncrement} {
			full, err := NewSolver(d, o, Options{Form: form, noReduce: true})
			if err != nil {
				t.Fatal(err)
			}
			red, err := NewSolver(d, o, Options{Form: form, KeepBasis: true})
			if err != nil {
				t.Fatal(err)
			}
			if red.Stats().Variables >= full.Stats().Variables {
				t.Errorf("seed %d: %d columns reduced, %d full", seed, red.Stats().Variables, full.Stats().Variables)
			}
			for _, c := range caps {
				a, err := full.Solve(c)
				if err != nil {
					t.Fatal(err)
				}
				b, err := red.Solve(c)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(a.Makespan-b.Makespan) > 1e-7*a.Makespan {
					t.Errorf("seed %d %v cap %g: reduced T* %v, full %v", seed, form, c, b.Makespan, a.Makespan)
				}
				const tol = 1e-7
				for i, m := range d.Messages {
					if b.Vertex[m.Dst]-b.Vertex[m.Src] < m.Time-tol {
						t.Errorf("seed %d cap %g: message %d: %v → %v takes %v", seed, c, i, b.Vertex[m.Src], b.Vertex[m.Dst], m.Time)
					}
				}
				for i, tk := range d.Tasks {
					if b.Vertex[tk.Dst]-b.Vertex[tk.Src] < b.Duration[i]-tol {
						t.Errorf("seed %d cap %g: task %d in a window of %v takes %v", seed, c, i, b.Vertex[tk.Dst]-b.Vertex[tk.Src], b.Duration[i])
					}
				}
				for u := 0; u < d.Vertices; u++ {
					for v := 0; v < d.Vertices; v++ {
						if o.Event[u] < o.Event[v] && b.Vertex[u] > b.Vertex[v]+tol || o.Event[u] == o.Event[v] && math.Abs(b.Vertex[u]-b.Vertex[v]) > tol {
							t.Fatalf("seed %d cap %g: vertices %d (event %d) at %v and %d (event %d) at %v break the order", seed, c, u, o.Event[u], b.Vertex[u], v, o.Event[v], b.Vertex[v])
						}
					}
				}
			}
			full.Close()
			red.Close()
		}
	}
}

// The bound does not depend on the unit of time: with every time scaled
// by 1e-6 (microsecond tasks) or 1e-8, T* scales with it in every form.
// CLP's tolerances are absolute, so before the LP wrote times in units of
// each block's length, microsecond tasks came out up to 1.3 % too fast
// and 10 ns tasks up to 60× too fast.
func TestBoundIsScaleFree(t *testing.T) {
	if !clp.Available() {
		t.Skip("no solver")
	}
	base := mpiLikeDAG(8, 20, 3)
	o, err := InitialOrder(base)
	if err != nil {
		t.Fatal(err)
	}
	minCap, _ := MinFeasibleCap(base, o)
	caps := []float64{minCap, minCap * 1.2, minCap * 1.6}
	want := solveWith(t, base, o, Options{Form: FormMix}, caps)
	for _, scale := range []float64{1e-6, 1e-8} {
		d := mpiLikeDAG(8, 20, 3)
		for i := range d.Tasks {
			for g := range d.Tasks[i].Hull {
				d.Tasks[i].Hull[g].Time *= scale
			}
		}
		for i := range d.Messages {
			d.Messages[i].Time *= scale
		}
		o, err := InitialOrder(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, form := range []Form{FormIncrement, FormMix, FormSegment} {
			got := solveWith(t, d, o, Options{Form: form, KeepBasis: true}, caps)
			for i := range caps {
				if math.Abs(got[i]/scale-want[i]) > 1e-6*want[i] {
					t.Errorf("times × %g, %v form, cap %g: T* %v, want %v", scale, form, caps[i], got[i]/scale, want[i])
				}
			}
		}
	}
}
