// Package mcf solves minimum-cost flow problems with the primal network
// simplex method: a spanning tree of basic arcs, every other arc at its
// lower bound 0 or at its capacity, and pivots that bring an arc of
// negative reduced cost into the tree (Ahuja, Magnanti & Orlin, Network
// Flows, Prentice Hall 1993, ch. 11). The tree is kept as parent, thread
// and subtree-size arrays with the strongly feasible leaving-arc rule
// (Cunningham 1976), which prevents cycling, and entering arcs are
// chosen by block search, as in LEMON's NetworkSimplex (Kovács,
// "Minimum-cost flow algorithms: an experimental evaluation",
// Optimization Methods and Software 30(1), 2015).
//
// Costs and capacities are float64. After a solve the network can change
// (costs, new arcs) and be solved again from its last tree: a primal
// simplex stays feasible under those changes, so a sequence of close
// problems (a parametric cost) takes few pivots each.
package mcf

import (
	"errors"
	"fmt"
	"math"
)

// Inf is the capacity of an uncapacitated arc.
var Inf = math.Inf(1)

// Arc states: at its lower bound, in the tree, at its capacity.
const (
	stateUpper = -1
	stateTree  = 0
	stateLower = 1
)

// ErrInfeasible is returned where no flow meets the supplies.
var ErrInfeasible = errors.New("mcf: no flow meets the supplies")

// ErrUnbounded is returned where a cycle of uncapacitated arcs has
// negative cost.
var ErrUnbounded = errors.New("mcf: a cycle of uncapacitated arcs has negative cost")

// Network is a minimum-cost flow problem and, after Solve, its optimal
// flow and potentials. It is not safe for concurrent use.
type Network struct {
	n      int // real nodes; node n is the root
	supply []float64
	// Arcs: the caller's, then one artificial arc per node (between the
	// node and the root).
	src, dst  []int32
	cap, cost []float64
	flow      []float64
	state     []int8
	m         int // the caller's arcs
	art0      int // the first artificial arc (internal index)
	parent    []int32
	pred      []int32 // the tree arc to the parent
	predUp    []bool  // pred runs from the node to its parent
	thread    []int32 // preorder successor
	revThread []int32
	succNum   []int32 // subtree size
	lastSucc  []int32 // last node of the subtree in thread order
	pi        []float64
	built     bool
	art       float64 // the artificial arcs' cost
	next      int     // where the block search resumes
	pivots    int
	userTol   float64
	tol       float64 // reduced costs above −tol price out
	unbounded bool
	cheapArt  bool // the unbounded cycle passes the root
	dirty     []int32
}

// New returns a network of n nodes, no arcs and zero supplies.
func New(n int) *Network {
	return &Network{n: n, supply: make([]float64, n)}
}

// Nodes is the number of nodes.
func (g *Network) Nodes() int { return g.n }

// Arcs is the number of arcs.
func (g *Network) Arcs() int { return g.m }

// Pivots is the number of pivots of every solve so far.
func (g *Network) Pivots() int { return g.pivots }

// SetSupply sets node v's supply: its outflow less its inflow (a
// negative supply is a demand). Supplies must sum to zero and may change
// only before the first solve.
func (g *Network) SetSupply(v int, s float64) { g.supply[v] = s }

// AddArc adds an arc from u to v of capacity c (Inf: none) and unit
// cost, and returns its index. Arcs may be added after a solve: they
// start at flow 0, and the next solve starts from the last tree.
func (g *Network) AddArc(u, v int, c, cost float64) int {
	a := g.m
	g.src = append(g.src, int32(u))
	g.dst = append(g.dst, int32(v))
	g.cap = append(g.cap, c)
	g.cost = append(g.cost, cost)
	if g.built {
		g.flow = append(g.flow, 0)
		g.state = append(g.state, stateLower)
	}
	g.m++
	return a
}

// in is the internal index of the caller's arc a: the artificial arcs
// take the n places after the arcs added before the first solve.
func (g *Network) in(a int) int {
	if g.built && a >= g.art0 {
		return a + g.n
	}
	return a
}

// artificial reports whether internal arc a is an artificial one.
func (g *Network) artificial(a int) bool {
	return g.built && a >= g.art0 && a < g.art0+g.n
}

// SetTolerance sets the least violation, in units of cost, of an arc's
// optimality condition that makes it enter the tree (by default 10⁻¹³ of
// the largest potential's magnitude, and at least 10⁻¹³).
func (g *Network) SetTolerance(tol float64) { g.userTol = tol }

// SetCost changes arc a's unit cost.
func (g *Network) SetCost(a int, cost float64) { g.cost[g.in(a)] = cost }

// Cost returns arc a's unit cost.
func (g *Network) Cost(a int) float64 { return g.cost[g.in(a)] }

// Flow returns arc a's flow in the last solution.
func (g *Network) Flow(a int) float64 { return g.flow[g.in(a)] }

// Potential returns node v's potential in the last solution: every arc
// of positive flow below its capacity has reduced cost
// cost + π(u) − π(v) = 0, every arc at 0 has it ≥ 0 and every arc at its
// capacity ≤ 0 (to the solver's tolerance).
func (g *Network) Potential(v int) float64 { return g.pi[v] }

// TotalCost is Σ cost·flow over the caller's arcs.
func (g *Network) TotalCost() float64 {
	s := 0.0
	for a := range g.src {
		if !g.artificial(a) && g.flow[a] != 0 {
			s += g.cost[a] * g.flow[a]
		}
	}
	return s
}

// Solve finds a flow of least cost that meets the supplies, from the last
// tree where there is one. It returns ErrInfeasible or ErrUnbounded where
// there is none.
func (g *Network) Solve() error {
	if !g.built {
		if err := g.init(); err != nil {
			return err
		}
	}
	for {
		g.potentials()
		g.setTol()
		g.unbounded, g.cheapArt = false, false
		for g.pivot() {
		}
		if g.unbounded {
			if !g.cheapArt || g.art > 1e3*g.artLimit() {
				return ErrUnbounded
			}
			g.setArt(g.art * 16)
			continue
		}
		// Recomputing the potentials from the tree clears the rounding of
		// their updates; the tree is optimal once no arc prices out then.
		g.potentials()
		if g.price() {
			continue
		}
		if g.artificialFlow() {
			// Artificial arcs cheap enough to carry flow: a costlier one
			// decides between infeasibility and a longer path.
			if g.art > 1e3*g.artLimit() {
				return ErrInfeasible
			}
			g.setArt(g.art * 16)
			continue
		}
		return nil
	}
}

// artLimit is an artificial cost no path can beat: (n+1) times the
// largest arc cost.
func (g *Network) artLimit() float64 {
	most := 0.0
	for a := range g.src {
		if !g.artificial(a) {
			most = math.Max(most, math.Abs(g.cost[a]))
		}
	}
	return (most + 1) * float64(g.n+1)
}

// artificialFlow reports whether an artificial arc carries flow.
func (g *Network) artificialFlow() bool {
	sum := 0.0
	for v := 0; v < g.n; v++ {
		sum = math.Max(sum, math.Abs(g.supply[v]))
	}
	for a := g.art0; a < g.art0+g.n; a++ {
		if g.flow[a] > 1e-12*math.Max(sum, 1) {
			return true
		}
	}
	return false
}

// setArt sets the artificial arcs' cost (those into a node cost art,
// those out of one nothing, as LEMON's).
func (g *Network) setArt(art float64) {
	g.art = art
	for a := g.art0; a < g.art0+g.n; a++ {
		if g.dst[a] != int32(g.n) {
			g.cost[a] = art
		}
	}
}

// setTol sets the pricing tolerance from the costs' and potentials'
// magnitudes.
func (g *Network) setTol() {
	most := 0.0
	for v := 0; v <= g.n; v++ {
		most = math.Max(most, math.Abs(g.pi[v]))
	}
	g.tol = 1e-13 * math.Max(most, 1)
	if g.userTol > 0 {
		// Rounding in the potentials' sums is about their magnitude
		// times the float64 epsilon.
		g.tol = math.Max(g.userTol, 1e-14*most)
	}
}

// init builds the starting tree: every node a child of the root through
// an artificial arc that carries its supply.
func (g *Network) init() error {
	sum := 0.0
	for _, s := range g.supply {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return fmt.Errorf("mcf: supply %g", s)
		}
		sum += s
	}
	most := 0.0
	for _, s := range g.supply {
		most = math.Max(most, math.Abs(s))
	}
	if math.Abs(sum) > 1e-9*math.Max(most, 1) {
		return fmt.Errorf("mcf: supplies sum to %g, want 0", sum)
	}
	for a := 0; a < g.m; a++ {
		if !(g.cap[a] >= 0) || math.IsNaN(g.cost[a]) || math.IsInf(g.cost[a], 0) {
			return fmt.Errorf("mcf: arc %d: capacity %g, cost %g", a, g.cap[a], g.cost[a])
		}
		if int(g.src[a]) >= g.n || int(g.dst[a]) >= g.n || g.src[a] < 0 || g.dst[a] < 0 {
			return fmt.Errorf("mcf: arc %d from %d to %d of %d nodes", a, g.src[a], g.dst[a], g.n)
		}
	}
	n, root := g.n, int32(g.n)
	g.art0 = g.m
	g.flow = make([]float64, g.m, g.m+n)
	g.state = make([]int8, g.m, g.m+n)
	for a := range g.state {
		g.state[a] = stateLower
	}
	g.parent = make([]int32, n+1)
	g.pred = make([]int32, n+1)
	g.predUp = make([]bool, n+1)
	g.thread = make([]int32, n+1)
	g.revThread = make([]int32, n+1)
	g.succNum = make([]int32, n+1)
	g.lastSucc = make([]int32, n+1)
	g.pi = make([]float64, n+1)
	g.parent[root], g.pred[root] = -1, -1
	g.thread[root] = 0
	g.revThread[0] = root
	g.succNum[root] = int32(n + 1)
	g.lastSucc[root] = root - 1
	if n == 0 {
		g.thread[root], g.revThread[root], g.lastSucc[root] = root, root, root
	}
	for u := int32(0); u < root; u++ {
		a := int32(len(g.src))
		g.parent[u], g.pred[u] = root, a
		g.thread[u] = u + 1
		g.revThread[u+1] = u
		g.succNum[u], g.lastSucc[u] = 1, u
		s := g.supply[u]
		if s >= 0 {
			g.predUp[u] = true
			g.src, g.dst = append(g.src, u), append(g.dst, root)
		} else {
			g.src, g.dst = append(g.src, root), append(g.dst, u)
			s = -s
		}
		g.cap = append(g.cap, Inf)
		g.cost = append(g.cost, 0)
		g.flow = append(g.flow, s)
		g.state = append(g.state, stateTree)
	}
	if n > 0 {
		g.thread[root-1] = root
		g.revThread[root] = root - 1
	}
	g.built = true
	art := 0.0
	for a := 0; a < g.m; a++ {
		art = math.Max(art, math.Abs(g.cost[a]))
	}
	g.setArt(4*art + 1)
	return nil
}

// potentials sets every node's potential from the tree, in thread order
// from the root (π(root) = 0).
func (g *Network) potentials() {
	root := int32(g.n)
	g.pi[root] = 0
	for u := g.thread[root]; u != root; u = g.thread[u] {
		a := g.pred[u]
		if g.predUp[u] {
			g.pi[u] = g.pi[g.parent[u]] - g.cost[a]
		} else {
			g.pi[u] = g.pi[g.parent[u]] + g.cost[a]
		}
	}
}

// price reports whether some arc prices out (could enter the tree).
func (g *Network) price() bool {
	for a := range g.src {
		if g.state[a] != stateTree && !g.artificial(a) && float64(g.state[a])*g.reduced(a) < -g.tol {
			return true
		}
	}
	return false
}

func (g *Network) reduced(a int) float64 {
	return g.cost[a] + g.pi[g.src[a]] - g.pi[g.dst[a]]
}
