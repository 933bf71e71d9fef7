package mcf

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
)

// randomNetwork is a network of n nodes and m random arcs (some
// uncapacitated, costs of both signs, no negative cycle of uncapacitated
// arcs: those run from lower to higher nodes) with random balanced
// supplies, feasible through a chain of uncapacitated arcs.
func randomNetwork(r *rand.Rand, n, m int) *Network {
	g := New(n)
	for v := 0; v+1 < n; v++ {
		g.AddArc(v, v+1, Inf, 3+r.Float64()*7)
		g.AddArc(v+1, v, Inf, 3+r.Float64()*7)
	}
	for range m {
		u, v := r.IntN(n), r.IntN(n)
		if u == v {
			continue
		}
		c := r.Float64()*20 - 10
		cp := math.Round(r.Float64()*50) / 4
		if u < v && r.IntN(3) == 0 {
			cp = Inf
			c = -r.Float64() * 3
		}
		g.AddArc(u, v, cp, c)
	}
	sum := 0.0
	for v := 0; v+1 < n; v++ {
		s := math.Round((r.Float64()*20-10)*8) / 8
		g.SetSupply(v, s)
		sum += s
	}
	g.SetSupply(n-1, -sum)
	return g
}

// lpCost solves g as an LP with CLP and returns its least cost.
func lpCost(t *testing.T, g *Network) float64 {
	t.Helper()
	m := g.m
	p := &clp.Problem{ColLo: make([]float64, m), ColUp: make([]float64, m), Obj: make([]float64, m),
		RowLo: make([]float64, g.n), RowUp: make([]float64, g.n), Start: make([]int32, m+1)}
	for a := range m {
		i := g.in(a)
		p.ColUp[a], p.Obj[a] = g.cap[i], g.cost[i]
		lo, hi := g.src[i], g.dst[i]
		p.Index = append(p.Index, min(lo, hi), max(lo, hi))
		if lo < hi {
			p.Value = append(p.Value, 1, -1)
		} else {
			p.Value = append(p.Value, -1, 1)
		}
		p.Start[a+1] = int32(len(p.Index))
	}
	for v := range g.n {
		p.RowLo[v], p.RowUp[v] = g.supply[v], g.supply[v]
	}
	lp, err := clp.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	defer lp.Close()
	res, err := lp.Solve(clp.Dual)
	if err != nil {
		t.Fatal(err)
	}
	return res.Objective
}

// checkTree checks the tree's arrays and the solution's optimality
// conditions.
func checkTree(g *Network) error {
	if err := checkStructure(g); err != nil {
		return err
	}
	return checkOptimal(g)
}

// checkStructure checks the tree's arrays, its potentials and the flow's
// balance and bounds.
func checkStructure(g *Network) error {
	root := int32(g.n)
	seen := make([]bool, g.n+1)
	u, cnt := root, 0
	for {
		if seen[u] {
			return fmt.Errorf("thread revisits %d", u)
		}
		seen[u] = true
		cnt++
		if g.revThread[g.thread[u]] != u {
			return fmt.Errorf("revThread of %d's successor", u)
		}
		u = g.thread[u]
		if u == root {
			break
		}
	}
	if cnt != g.n+1 {
		return fmt.Errorf("thread visits %d of %d nodes", cnt, g.n+1)
	}
	size := make([]int32, g.n+1)
	for v := int32(0); v <= root; v++ {
		for x := v; x != -1; x = g.parent[x] {
			size[x]++
		}
	}
	for v := int32(0); v <= root; v++ {
		if size[v] != g.succNum[v] {
			return fmt.Errorf("node %d: subtree of %d, succNum %d", v, size[v], g.succNum[v])
		}
		// The subtree is the thread from v to lastSucc[v].
		x, k := v, int32(1)
		for x != g.lastSucc[v] {
			x = g.thread[x]
			k++
		}
		if k != size[v] {
			return fmt.Errorf("node %d: thread to lastSucc covers %d, subtree %d", v, k, size[v])
		}
		if v == root {
			continue
		}
		a := g.pred[v]
		if g.state[a] != stateTree || (g.src[a] == v) != g.predUp[v] || (g.src[a] != g.parent[v] && g.dst[a] != g.parent[v]) {
			return fmt.Errorf("node %d: tree arc %d", v, a)
		}
	}
	bal := make([]float64, g.n+1)
	for a := range g.src {
		bal[g.src[a]] += g.flow[a]
		bal[g.dst[a]] -= g.flow[a]
		if g.flow[a] < 0 || g.flow[a] > g.cap[a] {
			return fmt.Errorf("arc %d: flow %g of %g", a, g.flow[a], g.cap[a])
		}
		if g.state[a] == stateTree && math.Abs(g.reduced(a)) > 1e-9 {
			return fmt.Errorf("tree arc %d: reduced cost %g", a, g.reduced(a))
		}
	}
	for v := range g.n {
		if math.Abs(bal[v]-g.supply[v]) > 1e-9 {
			return fmt.Errorf("node %d: outflow less inflow %g, supply %g", v, bal[v], g.supply[v])
		}
	}
	return nil
}

// checkOptimal checks the solution's optimality conditions.
func checkOptimal(g *Network) error {
	for a := range g.src {
		rc := g.reduced(a)
		switch {
		case g.state[a] == stateTree && math.Abs(rc) > 1e-9:
			return fmt.Errorf("tree arc %d: reduced cost %g", a, rc)
		case g.state[a] == stateLower && (g.flow[a] != 0 || (!g.artificial(a) && rc < -1e-9)):
			return fmt.Errorf("arc %d at 0: flow %g, reduced cost %g", a, g.flow[a], rc)
		case g.state[a] == stateUpper && (g.flow[a] != g.cap[a] || rc > 1e-9):
			return fmt.Errorf("arc %d at capacity: flow %g, reduced cost %g", a, g.flow[a], rc)
		}
	}
	return nil
}

func TestSolveAgreesWithLP(t *testing.T) {
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 7))
		n := 2 + r.IntN(40)
		g := randomNetwork(r, n, r.IntN(4*n))
		if err := g.Solve(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if err := checkTree(g); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		want := lpCost(t, g)
		if got := g.TotalCost(); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Fatalf("seed %d (%d nodes, %d arcs): cost %.12g, CLP's %.12g", seed, n, g.m, got, want)
		}
		// Change some costs, add arcs, and solve again from the tree.
		for range 3 {
			for a := range g.m {
				if r.IntN(4) == 0 && g.cap[g.in(a)] < Inf {
					g.SetCost(a, r.Float64()*20-10)
				}
			}
			for range r.IntN(5) {
				u, v := r.IntN(n), r.IntN(n)
				if u != v {
					g.AddArc(u, v, math.Round(r.Float64()*20)/4, r.Float64()*20-10)
				}
			}
			if err := g.Solve(); err != nil {
				t.Fatalf("seed %d, re-solve: %v", seed, err)
			}
			if err := checkTree(g); err != nil {
				t.Fatalf("seed %d, re-solve: %v", seed, err)
			}
			want := lpCost(t, g)
			if got := g.TotalCost(); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Fatalf("seed %d re-solve: cost %.12g, CLP's %.12g", seed, got, want)
			}
		}
	}
}

func TestInfeasibleAndUnbounded(t *testing.T) {
	g := New(2)
	g.SetSupply(0, 1)
	g.SetSupply(1, -1)
	g.AddArc(0, 1, 0.5, 1)
	if err := g.Solve(); !errors.Is(err, ErrInfeasible) {
		t.Errorf("capacity 0.5 for supply 1: %v, want ErrInfeasible", err)
	}
	g = New(2)
	g.AddArc(0, 1, Inf, -1)
	g.AddArc(1, 0, Inf, 0)
	if err := g.Solve(); !errors.Is(err, ErrUnbounded) {
		t.Errorf("a cycle of cost −1: %v, want ErrUnbounded", err)
	}
}

func TestSupplyMustBalance(t *testing.T) {
	g := New(2)
	g.SetSupply(0, 1)
	g.AddArc(0, 1, Inf, 1)
	if err := g.Solve(); err == nil {
		t.Error("supplies 1 and 0: no error")
	}
}

// TestTreeAfterEveryPivot checks the tree's arrays, the potentials and
// the flow's balance after every pivot of random networks' solves.
func TestTreeAfterEveryPivot(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 11))
		n := 2 + r.IntN(30)
		g := randomNetwork(r, n, r.IntN(4*n))
		if err := g.init(); err != nil {
			t.Fatal(err)
		}
		for it := 0; ; it++ {
			g.potentials()
			g.setTol()
			if !g.pivot() {
				break
			}
			g.potentials()
			if err := checkStructure(g); err != nil {
				t.Fatalf("seed %d, pivot %d: %v", seed, it, err)
			}
		}
	}
}

// BenchmarkResolve re-solves a network of 2,000 nodes and about 10,000
// arcs after a change of one arc's cost, from the last tree: the pivots
// allocate nothing.
func BenchmarkResolve(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	g := randomNetwork(r, 2000, 8000)
	a := g.AddArc(1999, 0, Inf, 0)
	if err := g.Solve(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		g.SetCost(a, 30000+float64(i%2)*5000)
		if err := g.Solve(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(g.Pivots())/float64(b.N), "pivots/op")
}

// TestLongNegativePath routes one unit along a path of 500 arcs of cost
// −1, far cheaper than the first artificial arcs' cost (4 times the
// largest arc cost, plus 1): Solve raises that cost and finds it.
func TestLongNegativePath(t *testing.T) {
	const n = 501
	g := New(n)
	for v := 0; v+1 < n; v++ {
		g.AddArc(v, v+1, Inf, -1)
	}
	for v := 0; v+2 < n; v += 7 {
		g.AddArc(v+2, v, 3, 0.5)
	}
	g.SetSupply(0, 1)
	g.SetSupply(n-1, -1)
	if err := g.Solve(); err != nil {
		t.Fatal(err)
	}
	if err := checkTree(g); err != nil {
		t.Fatal(err)
	}
	if got, want := g.TotalCost(), lpCost(t, g); math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Errorf("cost %g, CLP's %g", got, want)
	}
}
