package bound

import "fmt"

// Resources are the serialised resources of a DAG built by FromGraph:
// each CPU slot, each network interface's send side and its receive side
// serves one item at a time (the engine's LogGOPS clocks: a calc, a
// send's overhead or gap, a message's processing). The DAG fixes the
// order in which the reference replay served them with the edges
// Messages[Edges[0]:Edges[1]]: each item starts after the previous one's
// end, and each receive is posted after the CPU item before it. The
// fixed-order LP keeps those edges; OrderFree and OrderFreeLowerFree drop
// them and choose the order instead.
//
// A rendezvous, which in the engine holds its resource until the
// receive completes, is no item: in a free order it can come last, where
// it constrains nothing.
type Resources struct {
	// Names[k] names resource k, as "CPU slot 3".
	Names []string
	// Items[k] are resource k's items in the reference order.
	Items [][]Span
	// Fin[k] says that the makespan comes after every item of resource
	// k (a CPU's last item precedes Fin in the DAG; a network
	// interface's need not).
	Fin []bool
	// Edges are the bounds of the DAG's messages that fix the order.
	Edges [2]int
}

// Span is the time an item holds its resource: from vertex Start to
// vertex End.
type Span struct{ Start, End int32 }

func (r *Resources) add(name string, fin bool, items []Span) {
	r.Names = append(r.Names, name)
	r.Items = append(r.Items, items)
	r.Fin = append(r.Fin, fin)
}

// Resources returns the DAG's resources and the edges that fix their
// order (nil for a Net built without them).
func (n *Net) Resources() *Resources { return n.res }

// check reports whether r fits d: its edges within d's messages, its
// spans between d's vertices.
func (r *Resources) check(d *DAG) error {
	if r == nil {
		return nil
	}
	if lo, hi := r.Edges[0], r.Edges[1]; lo < 0 || hi < lo || hi > len(d.Messages) {
		return fmt.Errorf("bound: resource order edges %d..%d outside the DAG's %d messages", lo, hi, len(d.Messages))
	}
	if len(r.Names) != len(r.Items) || len(r.Fin) != len(r.Items) {
		return fmt.Errorf("bound: %d resource names and %d Fin flags for %d resources", len(r.Names), len(r.Fin), len(r.Items))
	}
	for k, items := range r.Items {
		for _, s := range items {
			if s.Start < 0 || int(s.Start) >= d.Vertices || s.End < 0 || int(s.End) >= d.Vertices {
				return fmt.Errorf("bound: %s: an item from vertex %d to %d, the DAG has %d", r.Names[k], s.Start, s.End, d.Vertices)
			}
		}
	}
	return nil
}

// orderEdge reports whether message k is one of r's order edges.
func (r *Resources) orderEdge(k int) bool {
	return r != nil && k >= r.Edges[0] && k < r.Edges[1]
}

// free returns d without r's order edges (and without messages from a
// vertex to itself), where every item of a resource with Fin ends before
// Fin: the DAG whose schedules may serve each resource in any order.
func (r *Resources) free(d *DAG) *DAG {
	fd := *d
	fd.Messages = make([]Message, 0, len(d.Messages))
	for k, m := range d.Messages {
		if !r.orderEdge(k) && m.Src != m.Dst {
			fd.Messages = append(fd.Messages, m)
		}
	}
	if r == nil {
		return &fd
	}
	for k, items := range r.Items {
		if r.Fin[k] {
			for _, it := range items {
				fd.Messages = append(fd.Messages, Message{Src: int(it.End), Dst: d.Fin})
			}
		}
	}
	return &fd
}

// loadBound returns a least makespan, in seconds, of every schedule of
// the DAG fd (d with r's order edges dropped, r.free): the most work
// that one resource serves, where each of its items is a task or a
// message edge of fd straight from the item's start to its end vertex,
// at its least time, and every item ends before Fin. A resource serves
// one item at a time in any order, so its items' least times add up
// within the makespan. An item that is no such edge counts 0, and a
// resource with an item whose end does not reach Fin counts nothing:
// both only lower the bound, which keeps it one.
func (r *Resources) loadBound(fd *DAG) float64 {
	if r == nil {
		return 0
	}
	least := map[[2]int]float64{} // the longest direct edge between two vertices
	note := func(src, dst int, t float64) {
		k := [2]int{src, dst}
		if t > least[k] {
			least[k] = t
		}
	}
	in := make([][]int, fd.Vertices) // predecessors, for the vertices that reach Fin
	for _, t := range fd.Tasks {
		note(t.Src, t.Dst, t.Hull[0].Time)
		in[t.Dst] = append(in[t.Dst], t.Src)
	}
	for _, m := range fd.Messages {
		note(m.Src, m.Dst, m.Time)
		in[m.Dst] = append(in[m.Dst], m.Src)
	}
	reach := make([]bool, fd.Vertices)
	reach[fd.Fin] = true
	for stack := []int{fd.Fin}; len(stack) > 0; {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, u := range in[v] {
			if !reach[u] {
				reach[u] = true
				stack = append(stack, u)
			}
		}
	}
	most := 0.0
	for _, items := range r.Items {
		load := 0.0
		for _, it := range items {
			if !reach[it.End] {
				load = 0
				break
			}
			load += least[[2]int{int(it.Start), int(it.End)}]
		}
		most = max(most, load)
	}
	return most
}
