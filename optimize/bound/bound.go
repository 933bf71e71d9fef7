// Package bound computes the power-constrained optimal makespan of a task
// DAG: the fixed-event-order linear program of Bailey et al., "Finding the
// Limits of Power-Constrained Application Performance" (SC'15), solved with
// COIN-OR CLP (package optimize/clp). Equations are numbered as in the
// paper (Figs. 4–6 and §3.3).
//
// The DAG's vertices are MPI calls (shared by the ranks of a collective);
// its edges are compute tasks between consecutive calls of a rank, each
// with a convex (time, power) frontier, and messages with a fixed time.
// The initial schedule runs every task at its fastest configuration as
// soon as possible; its order of vertex times (the events) is then fixed,
// which makes the set of tasks active between consecutive events known and
// the problem linear (§2.5). Slack power equals task power (§2.6).
//
// The LP is written in the compact form of §2.7: per task a duration d_i
// and a power p_i with one row per hull segment (p_i above the segment's
// line), the event chain, and the job power P_k per event in the delta form
// P_k = P_{k−1} + Σ starts − Σ ends, so a cap is a column bound and a cap
// sweep re-solves from the previous basis.
package bound

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/optimize/frontier"
)

// Task is a compute task: it runs on Rank from vertex Src to vertex Dst
// with the configurations of Hull (see frontier.Hull).
type Task struct {
	Rank     int
	Src, Dst int
	Hull     []frontier.Config
	Event    int // FromTrace: index of the task's compute event in its rank's events
	// OnDevice, when set, marks the hull points that run on the shared
	// device DAG.Devices[Device] (an accelerator several ranks use).
	OnDevice []bool
	Device   int
	// Until, when not 0, is the vertex until which the task's power is
	// drawn (its power interval is Src..Until, its duration row Src..Dst):
	// FromGraph sets it to the rank's next task's start, as the wait after
	// a task draws the task's power (Bailey et al., SC'15, §3.3; WaitPower's Task
	// mode). 0 means Dst.
	Until int
}

// PowerEnd is the vertex where the task's power interval ends: Until, or
// Dst when Until is 0.
func (t *Task) PowerEnd() int {
	if t.Until != 0 {
		return t.Until
	}
	return t.Dst
}

// Load is a constant power W drawn from vertex Src to vertex Dst: a core
// idle before its rank's first task, or waiting at a fixed power between
// tasks (WaitPower).
type Load struct {
	Rank     int
	Src, Dst int
	W        float64
}

// WaitPower is the power a rank's core draws between the end of one of its
// tasks and the start of its next (its MPI calls, their overheads and its
// waits) and after its last task until the job ends. Before its first
// task a core draws its idle power.
type WaitPower struct {
	// Constant false (the default) is mode "task": the power of the
	// rank's most recent task, as Bailey et al., SC'15, §3.3, charges slack. Constant
	// true draws W watts instead: the core's idle power, or a polling
	// power.
	Constant bool
	W        float64
}

// String returns "task" or the constant power in watts.
func (w WaitPower) String() string {
	if !w.Constant {
		return "task"
	}
	return fmt.Sprintf("%g W", w.W)
}

// Device is a shared accelerator: Count units that each run one task at a
// time. The LP cannot order tasks on a device, so it keeps the necessary
// condition that the tasks that certainly run within a window between two
// events use it for at most Count times the window's length (device.go; a
// relaxation: the bound stays a lower bound on schedules that queue for
// the device).
type Device struct {
	Name  string
	Count float64
}

// Message is a message edge: Dst cannot happen before Src plus Time.
type Message struct {
	Src, Dst int
	Time     float64
}

// DAG is the LP's input. Init is the vertex at time 0 and Fin the one whose
// time is the makespan.
type DAG struct {
	Vertices  int
	Init, Fin int
	Tasks     []Task
	Messages  []Message
	Loads     []Load   // constant powers (idle and waiting cores)
	Devices   []Device // shared devices tasks may run on (Task.OnDevice)
	Names     []string // optional vertex names for messages
	// nameOf, when set, names the vertices Names does not (FromGraph
	// writes names only when an error needs one).
	nameOf func(v int) string
}

func (d *DAG) name(v int) string {
	if v < len(d.Names) && d.Names[v] != "" {
		return d.Names[v]
	}
	if d.nameOf != nil {
		if s := d.nameOf(v); s != "" {
			return s
		}
	}
	return fmt.Sprintf("vertex %d", v)
}

// Validate checks indices and hulls.
func (d *DAG) Validate() error {
	inRange := func(v int) bool { return v >= 0 && v < d.Vertices }
	if !inRange(d.Init) || !inRange(d.Fin) {
		return fmt.Errorf("bound: init %d or fin %d outside 0..%d", d.Init, d.Fin, d.Vertices-1)
	}
	for i, t := range d.Tasks {
		if !inRange(t.Src) || !inRange(t.Dst) || t.Src == t.Dst {
			return fmt.Errorf("bound: task %d runs from %d to %d", i, t.Src, t.Dst)
		}
		if len(t.Hull) == 0 {
			return fmt.Errorf("bound: task %d has no configurations", i)
		}
		for k := 0; k+1 < len(t.Hull); k++ {
			if !(t.Hull[k+1].Time > t.Hull[k].Time && t.Hull[k+1].Power < t.Hull[k].Power) {
				return fmt.Errorf("bound: task %d: configurations are not a frontier.Hull", i)
			}
		}
		if t.Rank < 0 {
			return fmt.Errorf("bound: task %d on rank %d", i, t.Rank)
		}
		if t.Until != 0 && (!inRange(t.Until) || t.Until == t.Src) {
			return fmt.Errorf("bound: task %d draws power from %d until %d", i, t.Src, t.Until)
		}
		if t.OnDevice != nil && (len(t.OnDevice) != len(t.Hull) || t.Device < 0 || t.Device >= len(d.Devices)) {
			return fmt.Errorf("bound: task %d: %d device marks for %d configurations, device %d of %d", i, len(t.OnDevice), len(t.Hull), t.Device, len(d.Devices))
		}
	}
	for k, dv := range d.Devices {
		if !(dv.Count > 0) || math.IsInf(dv.Count, 0) {
			return fmt.Errorf("bound: device %d (%s): count %g, want > 0", k, dv.Name, dv.Count)
		}
	}
	for i, m := range d.Messages {
		if !inRange(m.Src) || !inRange(m.Dst) || m.Time < 0 {
			return fmt.Errorf("bound: message %d from %d to %d takes %g", i, m.Src, m.Dst, m.Time)
		}
	}
	for i, l := range d.Loads {
		if !inRange(l.Src) || !inRange(l.Dst) || l.Src == l.Dst || !(l.W >= 0) || math.IsInf(l.W, 0) {
			return fmt.Errorf("bound: load %d from %d to %d draws %g W", i, l.Src, l.Dst, l.W)
		}
	}
	return nil
}

// Order is the initial schedule and its fixed event order.
type Order struct {
	Times    []float64 // ASAP vertex times with every task at its fastest
	Event    []int     // event index of every vertex
	Events   int
	Makespan float64 // the unconstrained makespan, Times[Fin]
	Policy   string  // the slack-reduction reading used (§2.5 reading (a))
	// Chained, when not nil, marks the events the LP keeps in order
	// (14): those where a task's or a load's power starts or ends. The
	// times of other events are only bound by the DAG's edges. nil
	// chains every event.
	Chained []bool
}

// SlackPolicy is how the initial schedule reduces slack before its event
// order is fixed (Bailey et al., SC'15, §3.3, which leaves the tie rule open).
type SlackPolicy int

const (
	// SlackLocal is reading (a), the default: vertex times stay as soon
	// as possible and tasks only stretch into their local slack, so the
	// event order is the fastest as-soon-as-possible schedule's.
	SlackLocal SlackPolicy = iota
	// SlackLate is reading (b): every vertex also moves as late as the
	// makespan allows (as late as possible with every task at its
	// fastest), e.g. a send whose receiver has slack; this can reorder
	// events.
	SlackLate
)

var slackNames = []string{"stretch-into-local-slack", "as-late-as-possible"}

// String returns the policy's name as ParseSlackPolicy reads it.
func (p SlackPolicy) String() string {
	if p < 0 || int(p) >= len(slackNames) {
		return fmt.Sprintf("SlackPolicy(%d)", int(p))
	}
	return slackNames[p]
}

// ParseSlackPolicy reads a slack-reduction policy: "local" or
// "stretch-into-local-slack" (reading (a)), "late" or
// "as-late-as-possible" (reading (b)).
func ParseSlackPolicy(s string) (SlackPolicy, error) {
	switch s {
	case "local", slackNames[SlackLocal]:
		return SlackLocal, nil
	case "late", slackNames[SlackLate]:
		return SlackLate, nil
	}
	return 0, fmt.Errorf("bound: unknown slack policy %q (want local or late)", s)
}

// OrderOptions choose how InitialOrderWith fixes the event order.
//
// There is no tie tolerance: merging vertices whose times differ into one
// event forces their times equal in the LP, a constraint no schedule has
// to meet, so the "bound" could exceed the slowest schedule (a
// 1 ms tie gave 31.66 ms where every task at its slowest took 27.06 ms).
// Vertices of exactly equal initial times share an event.
type OrderOptions struct {
	Slack SlackPolicy
}

// InitialOrder computes the fastest as-soon-as-possible schedule and its
// event order. Vertices of equal times are one event. The slack-reduction
// policy is §2.5 reading (a): vertex times stay, tasks only stretch into
// their local slack, so the order is the ASAP order.
func InitialOrder(d *DAG) (*Order, error) {
	return InitialOrderWith(d, OrderOptions{})
}

// InitialOrderWith is InitialOrder with a choice of slack-reduction
// policy; Order.Policy records the one used and Order.Times are the
// initial schedule's vertex times (as late as possible under SlackLate).
func InitialOrderWith(d *DAG, opt OrderOptions) (*Order, error) {
	if opt.Slack != SlackLocal && opt.Slack != SlackLate {
		return nil, fmt.Errorf("bound: unknown slack policy %v", opt.Slack)
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	type edge struct {
		to int
		w  float64
	}
	out := make([][]edge, d.Vertices)
	indeg := make([]int, d.Vertices)
	for _, t := range d.Tasks {
		out[t.Src] = append(out[t.Src], edge{t.Dst, t.Hull[0].Time})
		indeg[t.Dst]++
	}
	for _, m := range d.Messages {
		out[m.Src] = append(out[m.Src], edge{m.Dst, m.Time})
		indeg[m.Dst]++
	}
	times := make([]float64, d.Vertices)
	topo := make([]int, 0, d.Vertices) // vertices in a topological order (Kahn's queue)
	for v := 0; v < d.Vertices; v++ {
		if indeg[v] == 0 {
			topo = append(topo, v)
		}
	}
	for j := 0; j < len(topo); j++ {
		v := topo[j]
		for _, e := range out[v] {
			times[e.to] = math.Max(times[e.to], times[v]+e.w)
			if indeg[e.to]--; indeg[e.to] == 0 {
				topo = append(topo, e.to)
			}
		}
	}
	if len(topo) != d.Vertices {
		for v := 0; v < d.Vertices; v++ {
			if indeg[v] > 0 {
				return nil, fmt.Errorf("bound: the DAG has a cycle through %s", d.name(v))
			}
		}
	}
	if times[d.Init] != 0 {
		return nil, fmt.Errorf("bound: %s (init) has predecessors", d.name(d.Init))
	}
	if opt.Slack == SlackLate {
		// As late as possible: latest times from Fin backwards, in the
		// reverse of the topological order.
		late := make([]float64, d.Vertices)
		T := times[d.Fin]
		for j := len(topo) - 1; j >= 0; j-- {
			v := topo[j]
			late[v] = T
			for _, e := range out[v] {
				late[v] = math.Min(late[v], late[e.to]-e.w)
			}
		}
		late[d.Init] = 0 // on a longest path: it is 0 up to rounding
		times = late
	}
	byTime := make([]int, d.Vertices)
	for v := range byTime {
		byTime[v] = v
	}
	stableByKey(byTime, func(v int) float64 { return times[v] })
	o := &Order{Times: times, Event: make([]int, d.Vertices), Makespan: times[d.Fin], Policy: opt.Slack.String()}
	// Events: vertices of equal times share one.
	k := -1
	start := math.Inf(-1)
	for _, v := range byTime {
		if k < 0 || times[v] != start {
			k++
			start = times[v]
		}
		o.Event[v] = k
	}
	o.Events = k + 1
	return o, nil
}

// Active returns the tasks active between event k and k+1 (the index rule
// of Bailey et al., SC'15, §3.3: event(src) ≤ k < event(dst)). It scans every task:
// the sets are not stored, as they hold #events × #ranks entries.
func (o *Order) Active(d *DAG, k int) []int {
	var out []int
	for i, t := range d.Tasks {
		if o.Event[t.Src] <= k && k < o.Event[t.PowerEnd()] {
			out = append(out, i)
		}
	}
	return out
}

// InfeasibleError reports a cap below the least power some event needs.
type InfeasibleError struct {
	CapW       float64
	MinCapW    float64 // the least feasible cap
	Event      int     // the event that needs it
	EventTasks []int
}

func (e *InfeasibleError) Error() string {
	return fmt.Sprintf("power cap %g W is infeasible: event %d runs %d task(s) that need at least %g W even at their slowest",
		e.CapW, e.Event, len(e.EventTasks), e.MinCapW)
}

// MinFeasibleCap returns the least cap under which the fixed order is
// feasible (§9.5 property 2) and the event that needs it.
func MinFeasibleCap(d *DAG, o *Order) (float64, int) {
	best, at := 0.0, 0
	for k, w := range o.Power(d, func(i int) float64 { h := d.Tasks[i].Hull; return h[len(h)-1].Power }) {
		if w > best+1e-9*math.Abs(best) {
			best, at = w, k
		}
	}
	return best, at
}

// Power returns the power drawn between event k and k+1 by the tasks
// active there (the index rule of Active), task i drawing power(i), and
// by the DAG's loads.
func (o *Order) Power(d *DAG, power func(i int) float64) []float64 {
	p := make([]float64, o.Events+1)
	for i := range d.Tasks {
		t := &d.Tasks[i]
		if a, b := o.Event[t.Src], o.Event[t.PowerEnd()]; a < b {
			w := power(i)
			p[a] += w
			p[b] -= w
		}
	}
	for _, l := range d.Loads {
		if a, b := o.Event[l.Src], o.Event[l.Dst]; a < b {
			p[a] += l.W
			p[b] -= l.W
		}
	}
	for k := 1; k < o.Events; k++ {
		p[k] += p[k-1]
	}
	return p[:o.Events]
}

// Static is the Static baseline of Bailey et al., SC'15, §4.1, in its continuous form:
// every rank gets cap/ranks, every task runs at the fastest point of its
// hull within that share (its slowest when none fits), and the DAG runs as
// soon as possible. It returns the makespan.
func Static(d *DAG, capW float64) (float64, error) {
	ranks := 0
	for _, t := range d.Tasks {
		ranks = max(ranks, t.Rank+1)
	}
	if ranks == 0 {
		return 0, nil
	}
	share := capW / float64(ranks)
	dd := *d
	dd.Tasks = make([]Task, len(d.Tasks))
	for i, t := range d.Tasks {
		tt := t
		dur := frontier.TimeAt(t.Hull, share)
		tt.Hull = []frontier.Config{{Time: dur, Power: frontier.PowerAt(t.Hull, dur)}}
		dd.Tasks[i] = tt
	}
	o, err := InitialOrder(&dd)
	if err != nil {
		return 0, err
	}
	return o.Makespan, nil
}

// Separators reports, per event, whether no task or message runs across
// it (from an earlier event to a later one). Every task active just
// before a separator ends there, so the schedule splits at it: a
// collective over all ranks is one. The first and last events count.
func Separators(d *DAG, o *Order) []bool {
	K := o.Events
	cover := make([]int32, K+1)
	span := func(a, b int) {
		if b > a+1 {
			cover[a+1]++
			cover[b]--
		}
	}
	for i := range d.Tasks {
		span(o.Event[d.Tasks[i].Src], o.Event[d.Tasks[i].PowerEnd()])
	}
	for _, m := range d.Messages {
		span(o.Event[m.Src], o.Event[m.Dst])
	}
	for _, l := range d.Loads {
		span(o.Event[l.Src], o.Event[l.Dst])
	}
	sep := make([]bool, K)
	var run int32
	for k := range sep {
		run += cover[k]
		sep[k] = run == 0
	}
	return sep
}

// Steps numbers the stretches between consecutive separators that hold
// tasks (the time steps of a bulk-synchronous code) and returns each
// task's step and the number of steps.
func Steps(d *DAG, o *Order) ([]int, int) {
	sep := Separators(d, o)
	stepOf := make([]int, o.Events) // step of the tasks leaving event k
	busy := make([]bool, o.Events)
	for _, t := range d.Tasks {
		busy[o.Event[t.Src]] = true
	}
	n, fresh := -1, true
	for k := range stepOf {
		if sep[k] {
			fresh = true
		}
		if busy[k] && fresh {
			n++
			fresh = false
		}
		stepOf[k] = max(n, 0)
	}
	steps := make([]int, len(d.Tasks))
	for i, t := range d.Tasks {
		steps[i] = stepOf[o.Event[t.Src]]
	}
	return steps, max(n+1, 1)
}
