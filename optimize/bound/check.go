package bound

import (
	"fmt"
	"math"
	"sort"

	"github.com/capsim/capsim/optimize/frontier"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
)

// Certificate is Net.Check's verdict on a replay.
type Certificate struct {
	// Kept: the replay kept the LP's orders: the same order of
	// operations on every resource, the same matches and posted clocks,
	// and its events where power changes in the LP's order (ties
	// allowed). A replay that keeps them and stays within the cap is a
	// feasible point of the LP, so its makespan is at least the bound.
	Kept bool
	// Order names the first order the replay changed ("" when Kept).
	Order string
	// Feasible: Kept, and the replay meets every row of the LP (its
	// durations and powers clamped to the hulls): then Makespan ≥ the
	// bound. A replay that keeps the orders but breaks a row went over
	// the cap (or two events the LP orders happened at the same instant
	// with a power the replay never drew); Row names the row.
	Feasible bool
	Row      string
	Makespan float64 // seconds
}

// checkTol is the time tolerance of Check, in seconds: replays resolve
// nanoseconds, the LP's durations do not.
const checkTol = 2e-9

// Check tells whether the replay rec of the Net's graph (observed with
// Observe), its tasks drawing power[i] watts (Net.TaskOp order), keeps the
// LP's orders, and whether it meets every row of the LP at LP cap capW
// (see Certificate).
func (n *Net) Check(rec *Record, power []float64, capW float64) (Certificate, error) {
	c := Certificate{Makespan: float64(rec.Makespan) / 1e9}
	if rec.g != n.g {
		return c, fmt.Errorf("bound: checking a replay of another graph")
	}
	if len(power) != len(n.TaskOp) {
		return c, fmt.Errorf("bound: %d task powers for %d tasks", len(power), len(n.TaskOp))
	}
	if why := n.orderChange(rec); why != "" {
		c.Order = why
		return c, nil
	}
	d, _, times, err := n.build(rec)
	if err != nil {
		return c, err
	}
	if d.Vertices != n.DAG.Vertices || len(d.Messages) != len(n.DAG.Messages) || len(d.Tasks) != len(n.DAG.Tasks) {
		return c, fmt.Errorf("bound: a replay with the same orders gave another DAG (%d vertices, %d edges; the LP has %d, %d)",
			d.Vertices, len(d.Messages), n.DAG.Vertices, len(n.DAG.Messages))
	}
	o := n.Order
	// The weak event order over the chained events.
	byEvent := make([]int, d.Vertices)
	for v := range byEvent {
		byEvent[v] = v
	}
	sort.Slice(byEvent, func(a, b int) bool { return o.Event[byEvent[a]] < o.Event[byEvent[b]] })
	prev := -1
	for _, v := range byEvent {
		if !o.Chained[o.Event[v]] {
			continue
		}
		if prev >= 0 && times[v] < times[prev]-checkTol {
			c.Order = fmt.Sprintf("event order: %s (%.9f s) comes before %s (%.9f s) in the LP, after it in the replay",
				d.name(prev), times[prev], d.name(v), times[v])
			return c, nil
		}
		prev = v
	}
	c.Kept = true
	// The rows: edges, tasks, power.
	for _, m := range n.DAG.Messages {
		if times[m.Dst] < times[m.Src]+m.Time-checkTol {
			c.Row = fmt.Sprintf("%s ≥ %s + %g s: %.9f < %.9f", d.name(m.Dst), d.name(m.Src), m.Time, times[m.Dst], times[m.Src]+m.Time)
			return c, nil
		}
	}
	p := make([]float64, len(d.Tasks))
	for i := range d.Tasks {
		t := &n.DAG.Tasks[i]
		h := t.Hull
		op := n.TaskOp[i]
		took := float64(rec.end[op]-rec.start[op]) / 1e9
		dur := math.Min(math.Max(took, h[0].Time), h[len(h)-1].Time)
		if took < dur-checkTol {
			c.Row = fmt.Sprintf("task %d (%s) took %.9f s, faster than its fastest configuration (%.9f s)", i, d.name(t.Src), times[t.Dst]-times[t.Src], h[0].Time)
			return c, nil
		}
		p[i] = frontier.PowerAt(h, dur)
		if power[i] < p[i]-1e-9*math.Abs(p[i]) {
			c.Row = fmt.Sprintf("task %d (%s) draws %g W, below its hull's %g W at %.9f s", i, d.name(t.Src), power[i], p[i], dur)
			return c, nil
		}
	}
	for k, w := range o.Power(n.DAG, func(i int) float64 { return p[i] }) {
		if w > capW+1e-9*math.Max(1, math.Abs(capW)) {
			c.Row = fmt.Sprintf("power after event %d: %g W over the cap %g W", k, w, capW)
			return c, nil
		}
	}
	c.Feasible = true
	return c, nil
}

// orderChange returns the first order in which rec differs from the
// reference replay, or "".
func (n *Net) orderChange(rec *Record) string {
	ref, g := n.Ref, n.g
	desc := func(it item) string {
		switch it.kind {
		case sim.StepProcess:
			return "message of " + g.Describe(it.op)
		case sim.StepRendezvous:
			return "rendezvous completion of " + g.Describe(it.op)
		}
		return g.Describe(it.op)
	}
	for c := range ref.chains {
		for slot, want := range ref.chains[c] {
			got := rec.chains[c][slot]
			for j := 0; j < len(want) && j < len(got); j++ {
				if got[j] != want[j] {
					return fmt.Sprintf("%s order of slot %d (rank %d): %s before %s", chainNames[c], slot, rankOfSlot(rec, c, slot), desc(got[j]), desc(want[j]))
				}
			}
			if len(got) != len(want) {
				return fmt.Sprintf("%s order of slot %d: %d operations, the LP's has %d", chainNames[c], slot, len(got), len(want))
			}
		}
	}
	for op := range ref.match {
		if rec.match[op] != ref.match[op] {
			return fmt.Sprintf("matching: %s matched %s, in the LP %s", g.Describe(int32(op)), descOp(n, rec.match[op]), descOp(n, ref.match[op]))
		}
		if g.Kind[op] == graph.Recv && rec.relPos[op] != ref.relPos[op] {
			return fmt.Sprintf("CPU clock read: %s was posted after %d operations of its CPU, in the LP after %d", g.Describe(int32(op)), rec.relPos[op], ref.relPos[op])
		}
		if g.Kind[op] == graph.Recv && rec.atPost[op] != ref.atPost[op] && !g.Causal && ref.ncpu > 1 {
			return fmt.Sprintf("matching: %s matched when posted %v, in the LP %v", g.Describe(int32(op)), rec.atPost[op], ref.atPost[op])
		}
	}
	return ""
}

func descOp(n *Net, op int32) string {
	if op < 0 {
		return "nothing"
	}
	return n.g.Describe(op)
}

func rankOfSlot(rec *Record, c, slot int) int {
	per := len(rec.chains[c]) / max(rec.g.NumRanks(), 1)
	return slot / max(per, 1)
}

// ReplayNet is the LP of the Net's graph with the orders of replay rec
// instead of the reference's: its events are rec's vertex times, equal
// times sharing an event. The replay, if it stayed within a cap, is a
// feasible point of this LP at that cap: that makes the rows a relaxation
// of the engine whatever the order (FuzzBoundValid checks it).
func (n *Net) ReplayNet(rec *Record) (*Net, error) {
	if rec.g != n.g {
		return nil, fmt.Errorf("bound: a replay of another graph")
	}
	m := &Net{Ref: rec, g: n.g, net: n.net, opt: n.opt, routes: n.routes, hull: n.hull}
	var err error
	m.DAG, m.TaskOp, m.Times, err = m.build(rec)
	if err != nil {
		return nil, err
	}
	m.Order, err = OrderFromTimes(m.DAG, m.Times, true)
	return m, err
}
