package conductor

import (
	"math"
	"testing"

	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/frontier"
)

func two(df, phi, ds, plo float64) []frontier.Config {
	return []frontier.Config{{Time: df, Power: phi}, {Time: ds, Power: plo}}
}

// repeatedB is a hand-checkable two-rank example (rank 0: (10 s, 50 W)/(20 s, 30 W);
// rank 1: (5, 50)/(10, 30)) repeated for n barrier-separated time steps.
func repeatedB(n int) *bound.DAG {
	d := &bound.DAG{Vertices: n + 1, Init: 0, Fin: n}
	for k := 0; k < n; k++ {
		d.Tasks = append(d.Tasks,
			bound.Task{Rank: 0, Src: k, Dst: k + 1, Hull: two(10, 50, 20, 30)},
			bound.Task{Rank: 1, Src: k, Dst: k + 1, Hull: two(5, 50, 10, 30)})
	}
	return d
}

func run(t *testing.T, d *bound.DAG, capW float64, p Params) *Result {
	t.Helper()
	o, err := bound.InitialOrder(d)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Schedule(d, o, capW, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestConductor(t *testing.T) {
	free := Params{Period: 1, Margin: 0.1}
	cases := []struct {
		name     string
		d        *bound.DAG
		capW     float64
		p        Params
		want     float64
		reallocs int
	}{
		// Example A: one rank gets the whole cap; the discrete points only.
		{"A at 50 W", &bound.DAG{Vertices: 2, Init: 0, Fin: 1, Tasks: []bound.Task{{Src: 0, Dst: 1, Hull: two(10, 50, 20, 30)}}}, 50, free, 10, 0},
		{"A at 40 W", &bound.DAG{Vertices: 2, Init: 0, Fin: 1, Tasks: []bound.Task{{Src: 0, Dst: 1, Hull: two(10, 50, 20, 30)}}}, 40, free, 20, 0},
		// Example B once: no reallocation yet, so discrete Static: 20 s.
		{"B once", repeatedB(1), 80, free, 20, 0},
		// B twenty times: after the first step rank 1's unused 10 W moves to
		// rank 0, which then runs fast: 20 + 19 × 10 s, the LP's 10 s a step.
		{"B × 20, no guard", repeatedB(20), 80, free, 20 + 19*10, 19},
		// With a 0.5 W guard band rank 0 only reaches 49.5 W: never fast.
		{"B × 20, guard", repeatedB(20), 80, Params{Period: 1, Margin: 0.1, GuardW: 0.5}, 20 * 20, 19},
		// Reallocating every 5 steps: 5 slow steps first.
		{"B × 20, K = 5", repeatedB(20), 80, Params{Period: 5, Margin: 0.1}, 5*20 + 15*10, 3},
		// Overheads: 566 µs for each rank's first task after each of the
		// three reallocations, 17 µs for rank 0's switch to its fast point.
		{"B × 20, overheads", repeatedB(20), 80, Params{Period: 5, Margin: 0.1, ReallocS: 566e-6, SwitchS: 17e-6}, 5*20 + 15*10 + 3*566e-6 + 17e-6, 3},
	}
	for _, c := range cases {
		r := run(t, c.d, c.capW, c.p)
		if math.Abs(r.Makespan-c.want) > 1e-9 {
			t.Errorf("%s: makespan %v, want %v", c.name, r.Makespan, c.want)
		}
		if r.Reallocs != c.reallocs {
			t.Errorf("%s: %d reallocations, want %d", c.name, r.Reallocs, c.reallocs)
		}
		var sum float64
		for _, w := range r.ShareW {
			sum += w
		}
		if math.Abs(sum-c.capW) > 1e-9 {
			t.Errorf("%s: shares add up to %v W, want the cap %v", c.name, sum, c.capW)
		}
	}
}

// Every task draws at most its rank's share, and the shares add up to the
// cap, so no instant is above the cap (when every slowest point fits the
// equal share).
func TestConductorWithinCap(t *testing.T) {
	d := repeatedB(30)
	r := run(t, d, 70, DefaultParams())
	o, _ := bound.InitialOrder(d)
	steps, n := bound.Steps(d, o)
	if n != 30 {
		t.Fatalf("%d steps, want 30", n)
	}
	per := make([]float64, n)
	for i := range d.Tasks {
		per[steps[i]] += r.Power[i]
	}
	for k, w := range per {
		if w > 70+1e-9 {
			t.Errorf("step %d draws %v W, above the 70 W cap", k, w)
		}
	}
	p := DefaultParams()
	if r.Makespan > 30*20+float64(r.Reallocs)*p.ReallocS+float64(r.Switches)*p.SwitchS+1e-9 || r.Makespan < 30*10 {
		t.Errorf("makespan %v outside [LP 300, slowest 600]", r.Makespan)
	}
}

func TestConductorBadInput(t *testing.T) {
	d := repeatedB(2)
	o, _ := bound.InitialOrder(d)
	for _, p := range []Params{{Period: 0}, {Period: 1, Margin: 2}, {Period: 1, SwitchS: -1}} {
		if _, err := Schedule(d, o, 80, p); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	if _, err := Schedule(d, o, 0, DefaultParams()); err == nil {
		t.Error("zero cap accepted")
	}
}

// exchange is n barrier-separated steps of a two-rank exchange: each rank
// computes (hull h0 or h1) to its call vertex x_r, sends to the other's
// receive vertex y (msg seconds) and reaches its own y at once; rank 0
// then computes tail seconds more before the next barrier.
func exchange(n int, h0, h1 []frontier.Config, msg, tail float64) *bound.DAG {
	d := &bound.DAG{Vertices: 1, Init: 0}
	v := func() int { d.Vertices++; return d.Vertices - 1 }
	b := 0
	for k := 0; k < n; k++ {
		x0, x1, y0, y1, z0 := v(), v(), v(), v(), v()
		next := v()
		d.Tasks = append(d.Tasks,
			bound.Task{Rank: 0, Src: b, Dst: x0, Hull: h0},
			bound.Task{Rank: 1, Src: b, Dst: x1, Hull: h1},
			bound.Task{Rank: 0, Src: y0, Dst: z0, Hull: []frontier.Config{{Time: tail, Power: 10}}})
		d.Messages = append(d.Messages,
			bound.Message{Src: x0, Dst: y0}, bound.Message{Src: x1, Dst: y1},
			bound.Message{Src: x0, Dst: y1, Time: msg}, bound.Message{Src: x1, Dst: y0, Time: msg},
			bound.Message{Src: z0, Dst: next}, bound.Message{Src: y1, Dst: next})
		b = next
	}
	d.Fin = b
	return d
}

// The Adagio step slows a task only by the time its end can move without
// delaying another task: waiting for a message that is itself on the
// critical path is not slack. Counting the whole wait as slack (to the
// rank's next task) slows both ranks of a symmetric exchange every step.
func TestConductorSlackIsFloat(t *testing.T) {
	p := Params{Period: 100, Margin: 0}
	cases := []struct {
		name string
		d    *bound.DAG
		want float64
		cfg1 int // rank 1's configuration after the first step
	}{
		// Equal work, 5 s messages both ways: no slack; 3 × (10 + 5).
		{"symmetric", exchange(3, two(10, 50, 12, 40), two(10, 50, 12, 40), 5, 0), 45, 0},
		// Rank 1's message arrives 2 s before rank 0 needs it, so rank 1
		// may take 7 s but not 8 (that would delay rank 0's 3 s tail):
		// 3 × 13 s, rank 1 at its middle point.
		{"float 2 s", exchange(3, []frontier.Config{{Time: 10, Power: 50}},
			[]frontier.Config{{Time: 5, Power: 50}, {Time: 7, Power: 40}, {Time: 8, Power: 30}}, 3, 3), 39, 1},
	}
	for _, c := range cases {
		r := run(t, c.d, 200, p)
		if math.Abs(r.Makespan-c.want) > 1e-9 {
			t.Errorf("%s: makespan %v, want %v", c.name, r.Makespan, c.want)
		}
		for i, tk := range c.d.Tasks {
			if tk.Rank == 1 && i >= 3 && r.Config[i] != c.cfg1 {
				t.Errorf("%s: rank 1's task %d at configuration %d, want %d", c.name, i, r.Config[i], c.cfg1)
			}
		}
	}
}

// ScheduleNodes on example B × 20 (Period 1, no guard): with both ranks
// on one node it is Schedule at the node's cap (rank 1's unused 10 W
// moves to rank 0); with each rank on a node of its own at 40 W no power
// moves between them, so rank 0 stays slow (20 s a step) though the
// job's 80 W would let it run fast.
func TestScheduleNodes(t *testing.T) {
	free := Params{Period: 1, Margin: 0.1}
	d := repeatedB(20)
	o, err := bound.InitialOrder(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		nodeOf []int
		capW   float64
		want   float64
		shares []float64
	}{
		{"one node", []int{0, 0}, 80, 20 + 19*10, nil},
		{"a node each", []int{0, 1}, 40, 20 * 20, []float64{40, 40}},
		{"a node each, rank 0's cap fast", []int{0, 1}, 50, 20 * 10, []float64{50, 50}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ScheduleNodes(d, o, tc.capW, tc.nodeOf, free)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(r.Makespan-tc.want) > 1e-9 {
				t.Errorf("makespan %v, want %v", r.Makespan, tc.want)
			}
			if tc.shares == nil {
				job := run(t, d, tc.capW, free)
				if r.Makespan != job.Makespan || r.ShareW[0] != job.ShareW[0] || r.ShareW[1] != job.ShareW[1] {
					t.Errorf("one node: %v s, shares %v; Schedule's %v s, %v", r.Makespan, r.ShareW, job.Makespan, job.ShareW)
				}
				return
			}
			for i, w := range tc.shares {
				if math.Abs(r.ShareW[i]-w) > 1e-9 {
					t.Errorf("rank %d's share %v W, want %v (its node's cap)", i, r.ShareW[i], w)
				}
			}
		})
	}
	if _, err := ScheduleNodes(d, o, 40, []int{0}, free); err == nil {
		t.Error("one rank placed of two: want an error")
	}
}
