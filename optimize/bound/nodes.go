package bound

import (
	"fmt"
	"math"
)

// Node caps (Options.NodeOf): the LP caps each node's power, one chain of
// power rows per node, instead of the job's. A node's power between two
// events is the sum of what its ranks' active tasks and loads draw, as
// the job's is over all ranks, so every row of the job LP has one row per
// node that has work there, over that node's columns alone.

// chains is how many power chains the solver's LP writes: one for the
// job, or one per node of Options.NodeOf.
func (s *Solver) chains() int {
	if s.opt.NodeOf == nil {
		return 1
	}
	return nodeCount(s.opt.NodeOf)
}

// nodeCount is the number of nodes nodeOf (rank → node, −1: none)
// places ranks on: one past the highest.
func nodeCount(nodeOf []int) int {
	n := 0
	for _, x := range nodeOf {
		n = max(n, x+1)
	}
	return n
}

// chainOf is the power chain a task or load of rank counts in: 0 (the
// job's), or its node (−1: on no capped node, in no chain).
func (s *Solver) chainOf(rank int) int {
	if s.opt.NodeOf == nil {
		return 0
	}
	return s.opt.NodeOf[rank]
}

// checkNodes checks that nodeOf (nil: no node caps) numbers every rank
// of d's tasks and loads, each on a node ≥ −1.
func checkNodes(d *DAG, nodeOf []int) error {
	if nodeOf == nil {
		return nil
	}
	for r, n := range nodeOf {
		if n < -1 {
			return fmt.Errorf("bound: rank %d on node %d: want a node ≥ 0, or −1 for none", r, n)
		}
	}
	for i := range d.Tasks {
		if r := d.Tasks[i].Rank; r < 0 || r >= len(nodeOf) {
			return fmt.Errorf("bound: task %d of rank %d, but nodes are given for %d ranks", i, r, len(nodeOf))
		}
	}
	for i := range d.Loads {
		if r := d.Loads[i].Rank; r < 0 || r >= len(nodeOf) {
			return fmt.Errorf("bound: load %d of rank %d, but nodes are given for %d ranks", i, r, len(nodeOf))
		}
	}
	return nil
}

// MinFeasibleNodeCap is MinFeasibleCap under node caps: with nodeOf
// (rank → node, −1: on no capped node; nil: the job's cap) the least cap
// under which every node's power fits at every event with every task at
// its slowest, and an event that needs it.
func MinFeasibleNodeCap(d *DAG, o *Order, nodeOf []int) (float64, int, error) {
	if err := checkNodes(d, nodeOf); err != nil {
		return 0, 0, err
	}
	w, at := minFeasible(d, o, nodeOf)
	return w, at, nil
}

// minFeasible is MinFeasibleCap under node caps nodeOf (nil: the job's
// cap): the least cap every node's power fits at every event with every
// task at its slowest, and an event that needs it.
func minFeasible(d *DAG, o *Order, nodeOf []int) (float64, int) {
	if nodeOf == nil {
		return MinFeasibleCap(d, o)
	}
	slowest := func(i int) float64 { h := d.Tasks[i].Hull; return h[len(h)-1].Power }
	best, at := 0.0, 0
	for _, w := range nodePowers(d, o, nodeOf, slowest) {
		for k, x := range w {
			if x > best+1e-9*math.Abs(best) {
				best, at = x, k
			}
		}
	}
	return best, at
}

// NodePower returns, per node of nodeOf (rank → node, −1: none), the
// power drawn between event k and k+1 by the node's active tasks (task i
// drawing power(i), by the index rule of Active) and loads: Order.Power
// node by node.
func (o *Order) NodePower(d *DAG, nodeOf []int, power func(i int) float64) ([][]float64, error) {
	if err := checkNodes(d, nodeOf); err != nil {
		return nil, err
	}
	return nodePowers(d, o, nodeOf, power), nil
}

// nodePowers is NodePower for a checked nodeOf.
func nodePowers(d *DAG, o *Order, nodeOf []int, power func(i int) float64) [][]float64 {
	p := make([][]float64, nodeCount(nodeOf))
	for n := range p {
		p[n] = make([]float64, o.Events+1)
	}
	for i := range d.Tasks {
		t := &d.Tasks[i]
		n := nodeOf[t.Rank]
		if a, b := o.Event[t.Src], o.Event[t.PowerEnd()]; n >= 0 && a < b {
			w := power(i)
			p[n][a] += w
			p[n][b] -= w
		}
	}
	for _, l := range d.Loads {
		n := nodeOf[l.Rank]
		if a, b := o.Event[l.Src], o.Event[l.Dst]; n >= 0 && a < b {
			p[n][a] += l.W
			p[n][b] -= l.W
		}
	}
	for n := range p {
		for k := 1; k < o.Events; k++ {
			p[n][k] += p[n][k-1]
		}
		p[n] = p[n][:o.Events]
	}
	return p
}

// nodeSlack is compact's slack under node caps: each node's slack to the
// cap (Bound.CapW, every node's) in a tree of its own, over its ranks'
// tasks and loads; a task on no capped node has no limit.
type nodeSlack struct {
	nodeOf []int
	trees  []slackTree
	d      *DAG
}

func (ns *nodeSlack) init(d *DAG, o *Order, b *Bound) {
	ns.d = d
	nodes := nodeCount(ns.nodeOf)
	if len(ns.trees) < nodes {
		ns.trees = append(ns.trees, make([]slackTree, nodes-len(ns.trees))...)
	}
	ns.trees = ns.trees[:nodes]
	for n := range ns.trees {
		ns.trees[n].keep = func(r int) bool { return ns.nodeOf[r] == n }
		ns.trees[n].init(d, o, b)
	}
}

func (ns *nodeSlack) min(i, a, c int) float64 {
	n := ns.nodeOf[ns.d.Tasks[i].Rank]
	if n < 0 {
		return math.Inf(1)
	}
	return ns.trees[n].min(a, c)
}

func (ns *nodeSlack) add(i, a, c int, v float64) {
	if n := ns.nodeOf[ns.d.Tasks[i].Rank]; n >= 0 {
		ns.trees[n].add(a, c, v)
	}
}
