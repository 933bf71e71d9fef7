package energy

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/internal/glpsol"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/frontier"
)

// randomDAG is a DAG of 1–ranks ranks, each a chain of 1–perRank tasks of
// 1–3 configurations, with messages from a rank's j-th vertex to another
// rank's later one, idle loads on some ranks and all ranks joined at init
// and fin.
func randomDAG(rng *rand.Rand, ranks, perRank, configs int) *bound.DAG {
	d := &bound.DAG{Init: 0, Fin: 1, Vertices: 2}
	R := 1 + rng.Intn(ranks)
	verts := make([][]int, R)
	for r := range R {
		n := 1 + rng.Intn(perRank)
		verts[r] = make([]int, n+1)
		for j := range verts[r] {
			verts[r][j] = d.Vertices
			d.Vertices++
		}
		d.Messages = append(d.Messages, bound.Message{Src: d.Init, Dst: verts[r][0]},
			bound.Message{Src: verts[r][n], Dst: d.Fin})
		for j := range n {
			tk := bound.Task{Rank: r, Src: verts[r][j], Dst: verts[r][j+1], Hull: randomHull(rng, configs)}
			if j+1 < n && rng.Intn(2) == 0 {
				// An MPI call after the task: its end, then the next
				// task's start after an overhead; the task's power lasts
				// until then (wait power "task", the engine LP's Until).
				mid := d.Vertices
				d.Vertices++
				tk.Dst, tk.Until = mid, verts[r][j+1]
				d.Messages = append(d.Messages, bound.Message{Src: mid, Dst: verts[r][j+1], Time: 0.1 * float64(rng.Intn(5))})
			}
			d.Tasks = append(d.Tasks, tk)
		}
		if rng.Intn(3) == 0 {
			d.Loads = append(d.Loads, bound.Load{Rank: r, Src: verts[r][n], Dst: d.Fin, W: float64(rng.Intn(30))})
		}
	}
	for range rng.Intn(2 * R) {
		a, b := rng.Intn(R), rng.Intn(R)
		if a == b || len(verts[b]) < 2 {
			continue
		}
		j := rng.Intn(len(verts[a]) - 1)
		k := min(j+1+rng.Intn(len(verts[b])), len(verts[b])-1)
		if k <= j {
			continue
		}
		d.Messages = append(d.Messages, bound.Message{Src: verts[a][j], Dst: verts[b][k], Time: 0.1 * float64(rng.Intn(10))})
	}
	return d
}

// randomHull is 1–n configurations, faster ones drawing more power.
func randomHull(rng *rand.Rand, n int) []frontier.Config {
	k := 1 + rng.Intn(n)
	h := make([]frontier.Config, k)
	t, p := 0.5+rng.Float64()*2, 50+rng.Float64()*100
	for g := range h {
		h[g] = frontier.Config{Time: t, Power: p}
		t *= 1.1 + rng.Float64()
		p *= 0.3 + 0.6*rng.Float64()
	}
	hull, err := frontier.Hull(h)
	if err != nil {
		panic(err)
	}
	return hull
}

// asap replays d with task i in configuration cfg[i], every vertex as soon
// as possible and never before the previous event's (the fixed order),
// and returns the vertex times.
func asap(d *bound.DAG, o *bound.Order, cfg []int) []float64 {
	ev := make([]float64, o.Events)
	type edge struct {
		src, dst int
		w        float64
	}
	var es []edge
	for i, t := range d.Tasks {
		es = append(es, edge{t.Src, t.Dst, t.Hull[cfg[i]].Time})
	}
	for _, m := range d.Messages {
		es = append(es, edge{m.Src, m.Dst, m.Time})
	}
	byDst := make([][]edge, o.Events)
	for _, e := range es {
		byDst[o.Event[e.dst]] = append(byDst[o.Event[e.dst]], e)
	}
	last := 0 // the last chained event
	for k := range o.Events {
		if k > 0 && (o.Chained == nil || o.Chained[k] || k == o.Events-1) {
			ev[k] = ev[last]
			last = k
		}
		for _, e := range byDst[k] {
			ev[k] = math.Max(ev[k], ev[o.Event[e.src]]+e.w)
		}
	}
	times := make([]float64, d.Vertices)
	for v := range times {
		times[v] = ev[o.Event[v]]
	}
	return times
}

// brute is every discrete configuration's (makespan, energy).
func brute(d *bound.DAG, o *bound.Order, baseW float64) []Point {
	cfg := make([]int, len(d.Tasks))
	var out []Point
	for {
		times := asap(d, o, cfg)
		out = append(out, Point{times[d.Fin], ScheduleEnergy(d, times, cfg, baseW)})
		i := 0
		for ; i < len(cfg); i++ {
			if cfg[i]++; cfg[i] < len(d.Tasks[i].Hull) {
				break
			}
			cfg[i] = 0
		}
		if i == len(cfg) {
			return out
		}
	}
}

// envelope is the least energy of a mix of pts ending by T: the lower
// convex hull of pts at T, or the least point ending by T.
func envelope(pts []Point, T float64) float64 {
	best := math.Inf(1)
	for _, a := range pts {
		if a.Deadline <= T {
			best = math.Min(best, a.Energy)
		}
		for _, b := range pts {
			if a.Deadline < T && T < b.Deadline {
				x := (T - a.Deadline) / (b.Deadline - a.Deadline)
				best = math.Min(best, a.Energy+x*(b.Energy-a.Energy))
			}
		}
	}
	return best
}

// TestBruteForce: no discrete configuration replayed as soon as possible
// in the order beats the frontier at its own makespan; on one rank (a
// chain, whose mixes are the lower convex hull of the discrete points)
// the frontier equals that hull at every discrete makespan.
func TestBruteForce(t *testing.T) {
	for seed := int64(1); seed <= 60; seed++ {
		rng := rand.New(rand.NewSource(seed))
		ranks := 3
		if seed%3 == 0 {
			ranks = 1
		}
		d := randomDAG(rng, ranks, 3, 3)
		o, err := bound.InitialOrder(d)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if seed%2 == 1 {
			chainPower(d, o)
		}
		base := float64(rng.Intn(20))
		f := newFrontier(t, d, o, Options{BaseW: base})
		pts := brute(d, o, base)
		oneRank := true
		for _, tk := range d.Tasks {
			oneRank = oneRank && tk.Rank == 0
		}
		for _, p := range pts {
			e, err := f.EnergyAt(p.Deadline)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if e > p.Energy+1e-7*p.Energy {
				t.Errorf("seed %d: a discrete schedule ends at %.9g s with %.9g J, the frontier there is %.9g J", seed, p.Deadline, p.Energy, e)
			}
			if oneRank && !near(e, envelope(pts, p.Deadline)) {
				t.Errorf("seed %d (one rank): E(%.9g s) = %.9g J, the discrete points' hull %.9g J", seed, p.Deadline, e, envelope(pts, p.Deadline))
			}
		}
		if !near(f.FastestEnergy(), pts[0].Energy) || !near(f.Fastest(), pts[0].Deadline) {
			t.Errorf("seed %d: fastest %g s %g J, the all-fastest replay %g s %g J", seed, f.Fastest(), f.FastestEnergy(), pts[0].Deadline, pts[0].Energy)
		}
	}
}

// checkCurve fails where the curve's energy rises with the deadline or
// the curve is not convex (evenly spaced points: second differences ≥ 0).
func checkCurve(t *testing.T, name string, pts []Point) {
	t.Helper()
	scale := 1e-7 * math.Max(1, pts[0].Energy)
	for j := 1; j < len(pts); j++ {
		if pts[j].Energy > pts[j-1].Energy+scale {
			t.Errorf("%s: E(%.9g s) = %.9g J > E(%.9g s) = %.9g J", name, pts[j].Deadline, pts[j].Energy, pts[j-1].Deadline, pts[j-1].Energy)
		}
		if j+1 < len(pts) && pts[j+1].Energy-2*pts[j].Energy+pts[j-1].Energy < -2*scale {
			t.Errorf("%s: not convex at %.9g s: %.9g, %.9g, %.9g J", name, pts[j].Deadline, pts[j-1].Energy, pts[j].Energy, pts[j+1].Energy)
		}
	}
}

// TestCurveShape checks monotonicity and convexity on random DAGs, with
// and without a cap, and that the time LP reads the curve back.
func TestCurveShape(t *testing.T) {
	for seed := int64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewSource(seed))
		d := randomDAG(rng, 6, 6, 4)
		o, err := bound.InitialOrder(d)
		if err != nil {
			t.Fatal(err)
		}
		opt := Options{BaseW: float64(rng.Intn(50))}
		if seed%2 == 0 {
			minCap, _ := bound.MinFeasibleCap(d, o)
			opt.CapW = minCap * (1.2 + rng.Float64())
		}
		f := newFrontier(t, d, o, opt)
		pts, err := f.Curve(17)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		checkCurve(t, fmt.Sprintf("seed %d", seed), pts)
		for _, p := range pts {
			got, err := f.TimeFor(p.Energy + budgetSlack*f.Scale())
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if got > p.Deadline*(1+1e-6)+1e-9 {
				t.Errorf("seed %d: budget %.9g J needs %.9g s, but the frontier reaches it by %.9g s", seed, p.Energy, got, p.Deadline)
			}
		}
	}
}

// TestGlpsolAgrees solves the energy LP's MPS file with glpsol (GLPK) at
// three deadlines of random DAGs and compares the optima.
func TestGlpsolAgrees(t *testing.T) {
	if !glpsol.Available() {
		t.Skip("glpsol not installed (Debian package glpk-utils)")
	}
	for seed := int64(1); seed <= 12; seed++ {
		rng := rand.New(rand.NewSource(seed))
		d := randomDAG(rng, 5, 5, 4)
		o, err := bound.InitialOrder(d)
		if err != nil {
			t.Fatal(err)
		}
		opt := Options{BaseW: float64(rng.Intn(50))}
		if seed%3 == 0 {
			minCap, _ := bound.MinFeasibleCap(d, o)
			opt.CapW = minCap * 1.5
		}
		f := newFrontier(t, d, o, opt)
		slow, _, err := f.Slowest()
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range []float64{0, 0.3, 1} {
			T := f.Fastest() + x*(slow-f.Fastest())
			want, err := f.EnergyAt(T)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "e.mps")
			if err := f.WriteMPS(path, T); err != nil {
				t.Fatal(err)
			}
			got, err := glpsol.Solve(context.Background(), path, glpsol.Options{})
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			got *= f.Scale()
			if math.Abs(got-want) > 1e-6*want {
				t.Errorf("seed %d at %.9g s: glpsol %.9g J, capsim %.9g J", seed, T, got, want)
			}
		}
	}
}

// chainPower keeps in order only the events where power starts or ends
// (and init and fin), as the bound's engine LP does (Order.Chained).
func chainPower(d *bound.DAG, o *bound.Order) {
	o.Chained = make([]bool, o.Events)
	o.Chained[o.Event[d.Init]], o.Chained[o.Event[d.Fin]] = true, true
	for _, t := range d.Tasks {
		o.Chained[o.Event[t.Src]], o.Chained[o.Event[t.PowerEnd()]] = true, true
	}
	for _, l := range d.Loads {
		o.Chained[o.Event[l.Src]], o.Chained[o.Event[l.Dst]] = true, true
	}
}
