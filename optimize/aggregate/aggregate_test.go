package aggregate

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/graph"
)

// The 8 patterns of System G in the order of the thesis's table (Li, 2011, Ch. 4).
func TestPatternsSystemG(t *testing.T) {
	ps, err := Patterns(SystemG())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ k, s, d, c int }{
		{1, 1, 1, 1}, // P1 one core
		{2, 2, 1, 1}, // P2 one core on each processor
		{2, 1, 2, 1}, // P3 same processor, different dies
		{2, 1, 1, 2}, // P4 same die
		{4, 2, 2, 1}, // P5 one core of each die
		{4, 2, 1, 2}, // P6 one full die on each processor
		{4, 1, 2, 2}, // P7 one full processor
		{8, 2, 2, 2}, // P8 all cores
	}
	if len(ps) != len(want) {
		t.Fatalf("%d patterns, want 8", len(ps))
	}
	for i, w := range want {
		p := ps[i]
		if p.ID != i+1 || p.TasksPerNode() != w.k || p.Sockets != w.s || p.Dies != w.d || p.Cores != w.c {
			t.Errorf("pattern %d = %v, want %d/node on %d×%d×%d", i+1, p, w.k, w.s, w.d, w.c)
		}
		if len(p.Slots()) != w.k {
			t.Errorf("%v: %d slots", p, len(p.Slots()))
		}
	}
	// Li, 2011, §4.3: intra-node pairs of groups 1, 2, 3 follow patterns 4, 3, 2.
	for _, c := range []struct {
		id   int
		want Class
	}{{4, SameDie}, {3, SameSocket}, {2, CrossSocket}} {
		s := ps[c.id-1].Slots()
		if got := ClassOf(0, s[0], 0, s[1]); got != c.want {
			t.Errorf("P%d pair class %v, want %v", c.id, got, c.want)
		}
	}
}

func TestFeasible(t *testing.T) {
	ps, _ := Patterns(SystemG())
	tests := []struct {
		name  string
		p     int
		tasks int
		mem   int64
		nodes int
		ok    bool
	}{
		{"P8 of 16 small tasks", 8, 16, 1 << 30, 16, true},
		{"P8 over 1/8 of node memory (Fig. 4.1)", 8, 16, 1<<30 + 1, 16, false},
		{"P7 of 1.5 GB tasks", 7, 16, 3 << 29, 16, true},
		{"P5 of 6 tasks does not divide", 5, 6, 0, 6, false},
		{"P1 of 16 tasks on 8 nodes", 1, 16, 0, 8, false},
		{"P2 of 16 tasks on 8 nodes", 2, 16, 0, 8, true},
	}
	for _, tc := range tests {
		err := Feasible(SystemG(), ps[tc.p-1], tc.tasks, tc.mem, tc.nodes)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err = %v, want ok = %v", tc.name, err, tc.ok)
		}
	}
	if _, err := Patterns(Topology{Sockets: 2}); err == nil {
		t.Error("topology without dies accepted")
	}
}

// A hand-checkable case.
func TestCountingT7(t *testing.T) {
	if g := Groupings(16, 4); g != 1820 {
		t.Errorf("C(16,4) = %d, want 1820", g)
	}
	if p := Placements(8, 4); p != 1680 {
		t.Errorf("8!/4! = %d, want 1680", p)
	}
	for _, c := range []struct {
		n, k int
		want int64
	}{{4, 2, 3}, {6, 2, 15}, {8, 4, 35}, {6, 3, 10}, {16, 4, 2627625}} {
		if got := PartitionCount(c.n, c.k); got != c.want {
			t.Errorf("PartitionCount(%d,%d) = %d, want %d", c.n, c.k, got, c.want)
		}
	}
}

// A hand-checkable case: edge costs, cuts and the grouping.
func TestEdgeCostsT6(t *testing.T) {
	pairs := []PairTime{
		{0, 1, 2, 3}, {0, 2, 5, 3}, {1, 2, 4, 3.5}, {2, 3, 1, 2}, {0, 3, 3, 2.5},
	}
	c, err := EdgeCosts(4, 2, pairs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]int]float64{{0, 1}: 9, {0, 2}: 0.5, {1, 2}: 2, {2, 3}: 9, {0, 3}: 2, {1, 3}: 0}
	for p, v := range want {
		if c[p[0]][p[1]] != v || c[p[1]][p[0]] != v {
			t.Errorf("c%d%d = %g, want %g", p[0], p[1], c[p[0]][p[1]], v)
		}
	}
	for _, cut := range []struct {
		g    [][]int
		want float64
	}{{[][]int{{0, 1}, {2, 3}}, 4.5}, {[][]int{{0, 2}, {1, 3}}, 22}, {[][]int{{0, 3}, {1, 2}}, 18.5}} {
		if got := Cut(c, cut.g); got != cut.want {
			t.Errorf("cut %v = %g, want %g", cut.g, got, cut.want)
		}
	}
	want2 := [][]int{{0, 1}, {2, 3}}
	ex, err := Exhaustive(c, 2, 100)
	if err != nil || !reflect.DeepEqual(ex, want2) {
		t.Errorf("exhaustive = %v, %v; want %v", ex, err, want2)
	}
	// KL from a bad start: relabel so the consecutive start is {0,2 | 1,3}.
	perm := []int{0, 2, 1, 3}
	pc := make([][]float64, 4)
	for i := range pc {
		pc[i] = make([]float64, 4)
		for j := range pc[i] {
			pc[i][j] = c[perm[i]][perm[j]]
		}
	}
	kl, err := Partition(pc, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{0, 2}, {1, 3}}; !reflect.DeepEqual(kl, want) {
		t.Errorf("KL = %v, want %v (= {0,1},{2,3} relabelled)", kl, want)
	}
}

func TestEdgeCostsErrors(t *testing.T) {
	for _, ps := range [][]PairTime{
		{{0, 0, 1, 1}}, {{0, 4, 1, 1}}, {{0, 1, -1, 1}}, {{0, 1, math.NaN(), 1}}, {{0, 1, 1, 2}, {1, 0, 1, 2}},
	} {
		if _, err := EdgeCosts(4, 2, ps); err == nil {
			t.Errorf("%v accepted", ps)
		}
	}
	// No pair favours inter-node: Δt = 1, C = k².
	c, err := EdgeCosts(2, 2, []PairTime{{0, 1, 1, 3}})
	if err != nil || c[0][1] != 4+2 {
		t.Errorf("c01 = %v, %v; want 6", c, err)
	}
}

// bruteMinCut is an independent oracle: the least cut over every
// permutation of the tasks cut into consecutive groups of k.
func bruteMinCut(c [][]float64, k int) float64 {
	n := len(c)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	best := math.Inf(1)
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			var g [][]int
			for s := 0; s < n; s += k {
				g = append(g, perm[s:s+k])
			}
			best = math.Min(best, Cut(c, g))
			return
		}
		for j := i; j < n; j++ {
			perm[i], perm[j] = perm[j], perm[i]
			rec(i + 1)
			perm[i], perm[j] = perm[j], perm[i]
		}
	}
	rec(0)
	return best
}

func TestExhaustiveAndKLRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20; trial++ {
		n := 8
		c := make([][]float64, n)
		for i := range c {
			c[i] = make([]float64, n)
		}
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if rng.IntN(2) == 0 {
					v := float64(rng.IntN(10))
					c[i][j], c[j][i] = v, v
				}
			}
		}
		for _, k := range []int{2, 4} {
			want := bruteMinCut(c, k)
			ex, err := Exhaustive(c, k, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if got := Cut(c, ex); got != want {
				t.Errorf("trial %d k=%d: exhaustive cut %g, brute force %g", trial, k, got, want)
			}
			kl, err := Partition(c, k)
			if err != nil {
				t.Fatal(err)
			}
			if got := Cut(c, kl); got < want {
				t.Errorf("trial %d k=%d: KL cut %g below the optimum %g", trial, k, got, want)
			}
			seen := make([]bool, n)
			for _, g := range kl {
				if len(g) != k {
					t.Errorf("KL group %v not of size %d", g, k)
				}
				for _, v := range g {
					if seen[v] {
						t.Errorf("task %d twice in %v", v, kl)
					}
					seen[v] = true
				}
			}
		}
	}
	if _, err := Exhaustive(make([][]float64, 16), 4, 1000); err == nil {
		t.Error("exhaustive over 2.6 million partitions accepted under a limit of 1000")
	}
}

// Two interleaved cliques: KL must undo the consecutive start.
func TestKLInterleavedCliques(t *testing.T) {
	n := 16
	c := make([][]float64, n)
	for i := range c {
		c[i] = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j && i%4 == j%4 {
				c[i][j] = 10
			} else if i != j {
				c[i][j] = 1
			}
		}
	}
	kl, err := Partition(c, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}}
	if !reflect.DeepEqual(kl, want) {
		t.Errorf("KL = %v, want %v", kl, want)
	}
}

// A hand-checkable case: Eq. 4.5, the 5 % rule and the ranking pick P6.
func TestSelectT5(t *testing.T) {
	ps, _ := Patterns(SystemG())
	es := []Estimate{{Pattern: ps[0], CompNs: 100, CommNs: 20}}
	for _, r := range []struct {
		id         int
		comp, comm float64
		delta      float64
		ok         bool
	}{{8, 112, 30, 22, false}, {7, 104, 24, 8, false}, {6, 102, 23, 5, true}, {5, 101, 21, 2, true}, {4, 100, 19, -1, true}} {
		e := Estimate{Pattern: ps[r.id-1], CompNs: r.comp, CommNs: r.comm}
		if d := Delta(es[0], e); d != r.delta {
			t.Errorf("P%d Δt = %g, want %g", r.id, d, r.delta)
		}
		if ok := Delta(es[0], e) <= 0.05*120; ok != r.ok {
			t.Errorf("P%d accepted = %v, want %v", r.id, ok, r.ok)
		}
		es = append(es, e)
	}
	if i := Select(es, 0.05); i < 0 || es[i].Pattern.ID != 6 {
		t.Errorf("selected %d, want P6", i)
	}
	// Without P6 the rule takes P5 (4/node) before P4 (2/node).
	noP6 := append(es[:3:3], es[4:]...)
	if i := Select(noP6, 0.05); i < 0 || noP6[i].Pattern.ID != 5 {
		t.Errorf("selection without P6: %d, want P5", i)
	}
	// With a 0 % threshold only P4 (faster than the reference) remains.
	if i := Select(es, 0); i < 0 || es[i].Pattern.ID != 4 {
		t.Errorf("selection at 0 %%: %d, want P4", i)
	}
}

// A hand-checkable case: IPC → time.
func TestTimeFromIPCT4(t *testing.T) {
	if got := TimeFromIPC(4e11, 2.0, 2e9); got != 100 {
		t.Errorf("IPC 2.0: %g s, want 100", got)
	}
	if got := TimeFromIPC(4e11, 1.6, 2e9); got != 125 {
		t.Errorf("IPC 1.6: %g s, want 125", got)
	}
	// lu.D.16 P8, Table 4.1: predicted 1.669 against measured 1.699.
	over := TimeFromIPC(1, 1.669, 1)/TimeFromIPC(1, 1.699, 1) - 1
	if math.Abs(over-0.018) > 0.0005 {
		t.Errorf("lu.D.16 P8 overshoot %.4f, want about 1.8 %%", over)
	}
}

// A hand-checkable case: 16 tasks on 16 nodes against 2, unused nodes at 0 W,
// equal runtime and per-node power: 87.5 % saving.
func TestEnergyT11(t *testing.T) {
	w := Workload{ComputeNs: make([]int64, 16)}
	for i := range w.ComputeNs {
		w.ComputeNs[i] = 1e9
	}
	res, err := Evaluate(w, Config{Topology: SystemG(), Threshold: DefaultThreshold, Power: Power{BaseW: 300}})
	if err != nil {
		t.Fatal(err)
	}
	p1, p8 := res.Estimates[0], res.Estimates[7]
	if p1.Nodes != 16 || p8.Nodes != 2 {
		t.Fatalf("nodes %d, %d", p1.Nodes, p8.Nodes)
	}
	if s := 1 - p8.EnergyJ/p1.EnergyJ; math.Abs(s-0.875) > 1e-12 {
		t.Errorf("saving %g, want 0.875", s)
	}
	if p1.EnergyJ != 16*300 {
		t.Errorf("P1 energy %g J, want 4800", p1.EnergyJ)
	}
	if res.Estimates[res.Chosen].Pattern.ID != 8 || res.Estimates[res.ByEnergy].Pattern.ID != 8 {
		t.Errorf("chosen P%d, by energy P%d; want P8", res.Estimates[res.Chosen].Pattern.ID, res.Estimates[res.ByEnergy].Pattern.ID)
	}
}

// A hand-checked what-if: tasks 0↔1 and 2↔3 exchange 10 one-byte messages
// each way; each class has its own LogGP parameters (per message 2o + L).
func TestEvaluateHandChecked(t *testing.T) {
	w := Workload{ComputeNs: []int64{1000, 1000, 1000, 1000}, Messages: []Message{
		{0, 1, 1, 10}, {1, 0, 1, 10}, {2, 3, 1, 10}, {3, 2, 1, 10},
	}}
	var net Classes
	net[SameDie] = network.LogGOPS{Latency: 100, Overhead: 50}      // 200 ns
	net[SameSocket] = network.LogGOPS{Latency: 200, Overhead: 100}  // 400 ns
	net[CrossSocket] = network.LogGOPS{Latency: 400, Overhead: 100} // 600 ns
	net[InterNode] = network.LogGOPS{Latency: 2000, Overhead: 500}  // 3000 ns
	cfg := Config{Topology: SystemG(), Net: net, Threshold: DefaultThreshold,
		Interference: Interference{{Class: SameDie, Noise: 0, Factor: 1.5}, {Class: SameDie, Noise: 2, Factor: 2}},
		IPC:          map[int]float64{1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 1.6, 7: 1.6, 8: 1.6},
		Power:        Power{BaseW: 100, CoreW: 10, SleepW: 5}}
	res, err := Evaluate(w, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		comp, comm float64
		nodes      int
	}{
		{1000, 20 * 3000, 4},      // P1: every message inter-node
		{1000, 20 * 600, 2},       // P2: pairs on different sockets
		{1000, 20 * 400, 2},       // P3: different dies
		{1000, 20 * 200 * 1.5, 2}, // P4: same die, no noise
		{1000, 20 * 400, 1},       // P5: one core per die: pairs share a socket
		{1250, 20 * 200 * 2, 1},   // P6: pairs on one die, 2 noise tasks
		{1250, 20 * 200 * 2, 1},   // P7
	}
	for i, w := range want {
		e := res.Estimates[i]
		if e.Err != nil || e.CompNs != w.comp || e.CommNs != w.comm || e.Nodes != w.nodes {
			t.Errorf("P%d: comp %g comm %g nodes %d err %v; want %g %g %d", i+1, e.CompNs, e.CommNs, e.Nodes, e.Err, w.comp, w.comm, w.nodes)
		}
	}
	if res.Estimates[7].Err == nil {
		t.Error("P8 of 4 tasks feasible")
	}
	if g := res.Estimates[3].Groups; !reflect.DeepEqual(g, [][]int{{0, 1}, {2, 3}}) {
		t.Errorf("P4 groups %v", g)
	}
	// Every aggregated pattern is faster than P1; the ranking takes the
	// most aggregated with one processor: P7 (4/node, 1 socket).
	if id := res.Estimates[res.Chosen].Pattern.ID; id != 7 {
		t.Errorf("chosen P%d, want P7", id)
	}
	// Energy: P5 9.0 µs × (100+40) W vs P6/P7 9.25 µs × 140 W, all on
	// one node with 3 asleep: P5 is least.
	e5 := 9000e-9 * (140 + 3*5)
	if e := res.Estimates[4].EnergyJ; math.Abs(e-e5) > 1e-15 {
		t.Errorf("P5 energy %g J, want %g", e, e5)
	}
	if id := res.Estimates[res.ByEnergy].Pattern.ID; id != 5 {
		t.Errorf("by energy P%d, want P5", id)
	}
	// Place, one pattern at a time (a sweep point), groups and places as
	// Evaluate does: P4 {0,1}{2,3} on one die each; P8 infeasible.
	pats, _ := Patterns(cfg.Topology)
	for i, p := range pats {
		e, err := Place(w, cfg, p)
		if err != nil {
			t.Fatal(err)
		}
		r := res.Estimates[i]
		if (e.Err == nil) != (r.Err == nil) || !reflect.DeepEqual(e.Groups, r.Groups) || !reflect.DeepEqual(e.Slots, r.Slots) || e.Nodes != r.Nodes {
			t.Errorf("Place(P%d) = %v %v %v, Evaluate %v %v %v", p.ID, e.Groups, e.Slots, e.Err, r.Groups, r.Slots, r.Err)
		}
	}
	// An IPC for a pattern System G lacks priced nothing, silently.
	cfg.IPC[9] = 1.5
	if _, err := Evaluate(w, cfg); err == nil || err.Error() != "aggregate: IPC given for pattern 9, but the patterns are P1 to P8" {
		t.Errorf("IPC of P9: %v", err)
	}
}

func TestInterferenceLookup(t *testing.T) {
	tab := Interference{
		{Class: CrossSocket, Noise: 0, MaxBytes: 4096, Factor: 1.1},
		{Class: CrossSocket, Noise: 0, Factor: 1.3},
		{Class: CrossSocket, Noise: 2, MaxBytes: 4096, Factor: 1.5},
		{Class: CrossSocket, Noise: 2, Factor: 2.82},
		{Class: InterNode, Noise: 1, Factor: 1.2},
	}
	for _, c := range []struct {
		cl    Class
		noise int
		m     int64
		want  float64
	}{
		{CrossSocket, 0, 100, 1.1}, {CrossSocket, 0, 5000, 1.3}, {CrossSocket, 1, 100, 1.1},
		{CrossSocket, 3, 4096, 1.5}, {CrossSocket, 6, 1 << 20, 2.82}, {InterNode, 0, 1, 1},
		{InterNode, 7, 1, 1.2}, {SameDie, 6, 1, 1},
	} {
		if got := tab.Lookup(c.cl, c.noise, c.m); got != c.want {
			t.Errorf("Lookup(%v, %d, %d) = %g, want %g", c.cl, c.noise, c.m, got, c.want)
		}
	}
}

func TestFromGraph(t *testing.T) {
	b := graph.NewBuilder(2)
	b.Add(0, graph.CalcOp(100))
	b.Add(0, graph.SendOp(8, 1, 0))
	b.Add(0, graph.SendOp(8, 1, 1))
	b.Add(0, graph.SendOp(64, 1, 2))
	b.Add(1, graph.RecvOp(8, 0, 0))
	b.Add(1, graph.RecvOp(8, 0, 1))
	b.Add(1, graph.RecvOp(64, 0, 2))
	b.Add(1, graph.CalcOp(50))
	b.Add(1, graph.CalcOp(25))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	w := FromGraph(g)
	want := Workload{ComputeNs: []int64{100, 75}, Messages: []Message{{0, 1, 8, 2}, {0, 1, 64, 1}}}
	if !reflect.DeepEqual(w, want) {
		t.Errorf("workload %+v, want %+v", w, want)
	}
	if err := (Workload{ComputeNs: []int64{1}, Messages: []Message{{0, 1, 1, 1}}}).Validate(); err == nil {
		t.Error("message to a missing task accepted")
	}
}

// Two ranks, one 1-byte message between two 1 µs computations: the
// engine's LogGOPS time is calc + o + L + o + calc on each class.
func TestReplayHandChecked(t *testing.T) {
	b := graph.NewBuilder(2)
	c0 := b.Add(0, graph.CalcOp(1000))
	s := b.Add(0, graph.SendOp(1, 1, 0))
	b.Dep(0, s, c0, graph.Requires)
	r := b.Add(1, graph.RecvOp(1, 0, 0))
	c1 := b.Add(1, graph.CalcOp(1000))
	b.Dep(1, c1, r, graph.Requires)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var net Classes
	net[SameDie] = network.LogGOPS{Latency: 100, Overhead: 50}
	net[InterNode] = network.LogGOPS{Latency: 2000, Overhead: 500}
	cfg := Config{Topology: Topology{Sockets: 1, DiesPerSocket: 1, CoresPerDie: 2}, Net: net, Threshold: DefaultThreshold,
		IPC: map[int]float64{1: 2, 2: 1}, Power: Power{BaseW: 100, SleepW: 10}}
	res, err := Evaluate(FromGraph(g), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep, best, err := Replay(g, cfg, res)
	if err != nil {
		t.Fatal(err)
	}
	if rep[0].MakespanNs != 1000+500+2000+500+1000 {
		t.Errorf("P1 makespan %d ns, want 5000", rep[0].MakespanNs)
	}
	// P2: both ranks on one die, computation twice as long (IPC 2 → 1).
	if rep[1].MakespanNs != 2000+50+100+50+2000 {
		t.Errorf("P2 makespan %d ns, want 4200", rep[1].MakespanNs)
	}
	if e := rep[1].EnergyJ; math.Abs(e-4200e-9*110) > 1e-15 {
		t.Errorf("P2 energy %g J, want %g", e, 4200e-9*110)
	}
	if rep[1].DeltaNs != -800 || !rep[1].Candidate || best != 1 {
		t.Errorf("P2 Δ %d candidate %v, best %d; want -800, true, 1", rep[1].DeltaNs, rep[1].Candidate, best)
	}
	// The upper-bound estimate of the same pattern: comp averages 2000 ns,
	// comm 2o + L = 200 ns on each rank.
	if e := res.Estimates[1]; e.CompNs != 2000 || e.CommNs != 200 {
		t.Errorf("P2 estimate comp %g comm %g, want 2000, 200", e.CompNs, e.CommNs)
	}
}

// An estimate past graph.MaxTimeNs (about 31.7 years) is refused, as
// every time a user gives is, naming what made it so long: the class of
// the costliest messages with its network and interference factor, or the
// IPCs that scale the computation. It was printed as a what-if of 10^20 ms.
func TestEstimatePastMaxTime(t *testing.T) {
	w := Workload{ComputeNs: []int64{1000, 1000, 1000, 1000}, Messages: []Message{{0, 1, 1000, 5}, {2, 3, 8, 1}}}
	slow := network.LogGOPS{Latency: graph.MaxTimeNs / 4}
	for _, tc := range []struct {
		name string
		cfg  Config
		want []string
	}{
		{"inter-node latency", Config{Topology: SystemG(), Net: UniformIntra(slow, network.LogGOPS{})},
			[]string{"P1 ", "past 1000000000000000000 ns (graph.MaxTimeNs", "tasks 0→1 send 5 inter-node message(s) of 1000 B at 2.5e+17 ns each under the inter-node network", "L=250000000000000000"}},
		{"interference factor", Config{Topology: SystemG(), Net: UniformIntra(network.LogGOPS{}, network.LogGOPS{Latency: 1e12}),
			Interference: Interference{{Class: CrossSocket, Factor: 1e6}}},
			[]string{"cross-socket message(s)", "times the cross-socket interference factor 1e+06"}},
		{"IPC", Config{Topology: SystemG(), IPC: map[int]float64{1: 2, 2: 1e-15, 3: 2, 4: 2, 5: 2, 6: 2, 7: 2, 8: 2}},
			[]string{"P2 ", "the computation", "(2 / 1e-15)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Evaluate(w, tc.cfg)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, s := range tc.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%q does not say %q", err, s)
				}
			}
		})
	}
}
