// Package taskgraph holds the task-graph workloads of power-constrained
// node scheduling (Anger, PhD thesis, Georgia Tech 2016, §4.2.2.2 and
// §5.2): directed acyclic graphs of
// elastic tasks from tiled Cholesky, LU and conjugate-gradient solvers, and
// the per-kernel profiles that give each (threads, frequency)
// configuration of a kernel its time and incremental power.
//
// A DAG is stored compactly: a kernel id per task and the edges in
// compressed sparse row form, both ways. Task ids follow the sequential
// program order of the generating algorithm, and every list is in
// increasing id order, so a graph's layout depends only on its
// parameters.
package taskgraph

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Coord locates a task in its algorithm: tile indices (i, j, k) for tiled
// factorizations, (block, iteration, step) for CG. Unused entries are −1.
type Coord struct{ I, J, K int32 }

// DAG is a task graph. Tasks are numbered 0..NumTasks()−1.
type DAG struct {
	// Name is the spec the graph was generated from, e.g. "cholesky:4".
	Name string
	// Kernels names the kernels; Kernel[t] indexes it.
	Kernels []string
	Kernel  []int32
	Coord   []Coord
	// Successors of task t: Succ[SuccStart[t]:SuccStart[t+1]], increasing.
	SuccStart []int32
	Succ      []int32
	// Predecessors of task t: Pred[PredStart[t]:PredStart[t+1]], increasing.
	PredStart []int32
	Pred      []int32
}

// NumTasks returns the number of tasks.
func (d *DAG) NumTasks() int { return len(d.Kernel) }

// NumEdges returns the number of edges.
func (d *DAG) NumEdges() int { return len(d.Succ) }

// Successors returns the successors of task t in increasing order.
func (d *DAG) Successors(t int32) []int32 { return d.Succ[d.SuccStart[t]:d.SuccStart[t+1]] }

// Predecessors returns the predecessors of task t in increasing order.
func (d *DAG) Predecessors(t int32) []int32 { return d.Pred[d.PredStart[t]:d.PredStart[t+1]] }

// KernelName returns the kernel name of task t.
func (d *DAG) KernelName(t int32) string { return d.Kernels[d.Kernel[t]] }

// Label names task t by its kernel and the coordinates in
// use, e.g. "TRSM(2,1)" or "GEMM(3,2,1)".
func (d *DAG) Label(t int32) string {
	var b strings.Builder
	b.WriteString(d.KernelName(t))
	c := d.Coord[t]
	sep := "("
	for _, v := range [3]int32{c.I, c.J, c.K} {
		if v < 0 {
			continue
		}
		fmt.Fprintf(&b, "%s%d", sep, v)
		sep = ","
	}
	if sep == "," {
		b.WriteString(")")
	}
	return b.String()
}

// Topological returns the tasks in an order where every task comes after
// its predecessors (Kahn's algorithm, smallest ready id first), or an error
// naming a task on a cycle.
func (d *DAG) Topological() ([]int32, error) {
	n := d.NumTasks()
	indeg := make([]int32, n)
	for t := 0; t < n; t++ {
		indeg[t] = d.PredStart[t+1] - d.PredStart[t]
	}
	order := make([]int32, 0, n)
	for t := 0; t < n; t++ {
		if indeg[t] == 0 {
			order = append(order, int32(t))
		}
	}
	for i := 0; i < len(order); i++ {
		for _, s := range d.Successors(order[i]) {
			indeg[s]--
			if indeg[s] == 0 {
				order = append(order, s)
			}
		}
	}
	if len(order) != n {
		t := d.onCycle(indeg)
		return nil, &CycleError{Graph: d.Name, Task: t, Label: d.Label(t)}
	}
	return order, nil
}

// onCycle returns a task on a dependency cycle, given the in-degrees
// Kahn's algorithm left: a task still waiting is on a cycle or downstream
// of one, and it waits on a predecessor that still waits too, so n steps
// back along such predecessors end on a cycle.
func (d *DAG) onCycle(indeg []int32) int32 {
	t := int32(slices.IndexFunc(indeg, func(v int32) bool { return v > 0 }))
	for range indeg {
		for _, p := range d.Predecessors(t) {
			if indeg[p] > 0 {
				t = p
				break
			}
		}
	}
	return t
}

// CycleError is Topological's error: Task lies on a dependency cycle.
type CycleError struct {
	Graph string
	Task  int32
	Label string // the task's label, e.g. "GEMM(3,2,1)"
}

func (e *CycleError) Error() string {
	return fmt.Sprintf("task graph %s: task %d (%s) is on a dependency cycle", e.Graph, e.Task, e.Label)
}

// LongestPath returns, for weights w per task, the heaviest path's weight
// and, per task, the weight of the heaviest path that starts at one of its
// successors (its "bottom level" without itself; 0 for sinks). With unit
// weights the first result is the critical path length in tasks.
func (d *DAG) LongestPath(w []float64) (float64, []float64, error) {
	if len(w) != d.NumTasks() {
		return 0, nil, fmt.Errorf("task graph %s: %d weights for %d tasks", d.Name, len(w), d.NumTasks())
	}
	order, err := d.Topological()
	if err != nil {
		return 0, nil, err
	}
	below := make([]float64, len(w))
	best := 0.0
	for i := len(order) - 1; i >= 0; i-- {
		t := order[i]
		m := 0.0
		for _, s := range d.Successors(t) {
			m = max(m, w[s]+below[s])
		}
		below[t] = m
		best = max(best, w[t]+m)
	}
	return best, below, nil
}

// Builder assembles a DAG task by task; edges may be added in any order
// and duplicates are dropped.
type Builder struct {
	name    string
	kernels []string
	kid     map[string]int32
	kernel  []int32
	coord   []Coord
	src     []int32
	dst     []int32
}

// NewBuilder starts a graph called name.
func NewBuilder(name string) *Builder {
	return &Builder{name: name, kid: map[string]int32{}}
}

// Add adds a task of the named kernel and returns its id.
func (b *Builder) Add(kernel string, c Coord) int32 {
	k, ok := b.kid[kernel]
	if !ok {
		k = int32(len(b.kernels))
		b.kid[kernel] = k
		b.kernels = append(b.kernels, kernel)
	}
	b.kernel = append(b.kernel, k)
	b.coord = append(b.coord, c)
	return int32(len(b.kernel) - 1)
}

// Edge adds the dependency src → dst: dst may start only after src ends.
func (b *Builder) Edge(src, dst int32) {
	b.src = append(b.src, src)
	b.dst = append(b.dst, dst)
}

// ErrEmpty is returned when a graph has no tasks.
var ErrEmpty = errors.New("task graph has no tasks")

// Build checks the edges and returns the graph. Self edges, edges to
// unknown tasks and cycles are errors.
func (b *Builder) Build() (*DAG, error) {
	n := len(b.kernel)
	if n == 0 {
		return nil, fmt.Errorf("%s: %w", b.name, ErrEmpty)
	}
	if n > 1<<30 || len(b.src) > 1<<30 {
		return nil, fmt.Errorf("task graph %s: too large (%d tasks, %d edges)", b.name, n, len(b.src))
	}
	d := &DAG{Name: b.name, Kernels: b.kernels, Kernel: b.kernel, Coord: b.coord}
	for i := range b.src {
		s, t := b.src[i], b.dst[i]
		if s < 0 || int(s) >= n || t < 0 || int(t) >= n {
			return nil, fmt.Errorf("task graph %s: edge %d: %d -> %d names a task outside 0..%d", b.name, i, s, t, n-1)
		}
		if s == t {
			return nil, fmt.Errorf("task graph %s: edge %d: task %d depends on itself", b.name, i, s)
		}
	}
	d.SuccStart, d.Succ = csr(n, b.src, b.dst)
	d.PredStart, d.Pred = csr(n, b.dst, b.src)
	if _, err := d.Topological(); err != nil {
		return nil, err
	}
	return d, nil
}

// csr groups the pairs (from[i], to[i]) by from, each group sorted and
// without duplicates.
func csr(n int, from, to []int32) (start, adj []int32) {
	start = make([]int32, n+1)
	for _, f := range from {
		start[f+1]++
	}
	for i := 0; i < n; i++ {
		start[i+1] += start[i]
	}
	adj = make([]int32, len(from))
	fill := append([]int32(nil), start[:n]...)
	for i, f := range from {
		adj[fill[f]] = to[i]
		fill[f]++
	}
	// Sort each group (insertion sort: groups are short) and drop repeats.
	w := int32(0)
	for t := 0; t < n; t++ {
		lo, hi := start[t], start[t+1]
		g := adj[lo:hi]
		for i := 1; i < len(g); i++ {
			x := g[i]
			j := i
			for j > 0 && g[j-1] > x {
				g[j] = g[j-1]
				j--
			}
			g[j] = x
		}
		start[t] = w
		for i, v := range g {
			if i > 0 && v == g[i-1] {
				continue
			}
			adj[w] = v
			w++
		}
	}
	start[n] = w
	return start, adj[:w:w]
}
