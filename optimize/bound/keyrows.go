package bound

import "math"

// orderWork is how many events ReduceOrder's search may visit per event
// of the order before it keeps every event. One LP over a whole order
// has no separators to split it at (the bound's blocks), so a key
// event's search runs to the next key event on every path, over many
// more events than a block's: the 1,024-task stencil of bench/run's LP
// table needs between 256 and 1,024 a event (3.5 s), and its LP then has
// 2,050 time columns in place of 69,634.
const orderWork = 1024

// Precedence is a row of fixed length between two events of an order:
// t_To − t_From ≥ Len.
type Precedence struct {
	From, To int
	Len      float64
}

// KeyRows is the precedence of an order reduced to its key events: the
// rows an LP over those events' times needs in place of the chain and the
// messages (ReduceOrder).
type KeyRows struct {
	// Rows are between key events (the events' own numbers).
	Rows []Precedence
	g    *eventGraph
	key  []bool
}

// ReduceOrder eliminates the events of o that only pass precedence on,
// as the bound's LP does (reduceEvents): it keeps the events key marks
// (the caller's: those its LP's objective or other rows name), the first
// and last, every task's source and destination, and the ends of every
// message against the order; and returns the rows between them that the
// chain over the events chained marks (nil: every event) and d's
// messages imply, less those implied by other rows and tasks at their
// fastest. It marks the kept events in key. ok is false where the
// reduction would take too long (orderWork); key then marks every event.
//
// An LP over key events' times with these rows has the optimum of the LP
// over every event's with the chain and message rows, where its other
// rows only name key events and task rows keep each task at least its
// fastest time apart: every other event's time can be set as soon as
// possible from the key events' (Fill).
func ReduceOrder(d *DAG, o *Order, chained []bool, key []bool) (kr *KeyRows, ok bool) {
	K := o.Events
	key[0], key[K-1] = true, true
	tasks := make([]fixedEdge, 0, len(d.Tasks))
	for i := range d.Tasks {
		t := &d.Tasks[i]
		e := fixedEdge{from: int32(o.Event[t.Src]), to: int32(o.Event[t.Dst]), w: t.Hull[0].Time, task: true}
		key[e.from], key[e.to] = true, true
		tasks = append(tasks, e)
	}
	var msgs []fixedEdge
	ev := func(v int) int32 { return int32(o.Event[v]) }
	back := messageEdges(d.Messages, nil, ev, chained == nil, key, &msgs)
	g := newEventGraph(K, chained, msgs)
	fixed, ok := reduceEventsWithin(g, key, tasks, orderWork)
	if !ok {
		for e := range key {
			key[e] = true
		}
		fixed = g.edges
	}
	kr = &KeyRows{g: g, key: key, Rows: make([]Precedence, 0, len(fixed)+len(back))}
	for _, e := range fixed {
		kr.Rows = append(kr.Rows, Precedence{From: int(e.from), To: int(e.to), Len: e.w})
	}
	for _, i := range back {
		m := &d.Messages[i]
		kr.Rows = append(kr.Rows, Precedence{From: o.Event[m.Src], To: o.Event[m.Dst], Len: m.Time})
	}
	return kr, ok
}

// Fill sets the time t[e] of every event e that is not key as soon as
// the rows into it allow, from the key events' times in t.
func (kr *KeyRows) Fill(t []float64) {
	kr.g.fill(kr.key, t)
	for e, k := range kr.key {
		if !k && math.IsInf(t[e], -1) {
			t[e] = 0 // reached from no key event
		}
	}
}
