package bound

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/frontier"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
)

// The LP over the engine's semantics (FromGraph).
//
// The replay engine (package sim) is LogGOPSim's event loop. Once the
// order of operations on every resource is fixed (each host's CPU, its
// NIC's send and receive sides), which message each receive matches and
// which clock value each posted receive read, every time the engine
// computes is the largest of a few others plus a constant:
//
//   - a calc or send starts at max(its release, the end of the previous
//     operation on its CPU [and, for a send, on its NIC's send side]);
//     its release is the latest of its dependencies: a "requires" one
//     when it completes, an "irequires" one when it starts;
//   - a receive is posted at max(its release, the CPU clock when it was
//     released) and completes at max(its post, its message's processing);
//   - on a rank of several CPUs of a graph that is not causal, the engine
//     queues a released operation at its CPU's clock alone, and completes
//     a receive when the later of its post and its message's processing
//     in its order of events happens, which may be the earlier in time:
//     the release and the other of the two bound nothing there;
//   - a message is processed at max(send start + o + L, the previous
//     operation's end on the receiver's CPU and NIC receive side);
//   - a send holds its CPU o + (s−1)·O and its NIC g + (s−1)·G; a
//     message's processing holds the receiver's CPU o + max((s−1)·O,
//     (s−1)·G) and NIC g + (s−1)·G, with LogGOPSim's negative charges for
//     empty messages and each message's class parameters;
//   - an eager send completes when it starts, a rendezvous send when its
//     receive completes, which also moves the sender's CPU and NIC send
//     clocks to that time; a calc's dependents are released when it
//     starts and read its CPU's clock, its end.
//
// FromGraph writes each max as one row per argument (t ≥ argument), with a
// calc's duration d_i the LP's variable (end − start ≥ d_i). The least
// solution of these rows is the engine's schedule, so at every task's
// fastest configuration the LP's makespan is the replay's, and every
// replay that keeps those orders satisfies the rows: the LP's makespan is
// at most its makespan (Check tells whether a replay kept them).

// Record is what one replay did, as the LP needs it: when every operation
// started and ended, the order of operations on every resource, which
// message every receive matched, and the CPU clock each operation read
// when it was queued. Observe makes one.
type Record struct {
	g          *graph.Graph
	ncpu       int
	start, end []int64 // per op: start (calc, send) or post (recv); calc end or send CPU end
	nicEnd     []int64 // per send: its NIC's send side end
	comp       []int64 // per recv: completion
	proc       []int64 // per send: when its message was processed
	procCPU    []int64 // per send: the receiver's CPU end of that processing
	procNIC    []int64
	match      []int32 // per send: its receive; per receive: its send
	rdv        []int64 // per send: rendezvous completion, −1 for none
	// chains[c][slot]: the resource's items in order; c is chainCPU,
	// chainNICSend or chainNICRecv.
	chains [3][][]item
	relPos []int32 // per op: items in its CPU slot when it was queued
	// atPost, per receive: it matched when posted, its message processed
	// before in the engine's order of events (else when the message was
	// processed, the receive posted before).
	atPost []bool
	last   sim.Step // the step before the one being recorded
	// Makespan is the replay's makespan, ns.
	Makespan int64
}

const (
	chainCPU = iota
	chainNICSend
	chainNICRecv
)

var chainNames = [3]string{"CPU", "NIC send", "NIC receive"}

// Roles of the vertices Net.build writes for an operation (their names:
// vertexRoles); the rendezvous vertex on chain c is roleRendezvous+c.
const (
	roleStart uint8 = iota
	roleEnd
	roleCPUEnd
	roleNICEnd
	roleReceived
	roleMsgCPUEnd
	roleMsgNICEnd
	roleComplete
	roleRendezvous
)

var vertexRoles = [...]string{"start", "end", "CPU end", "NIC end", "message received", "message CPU end", "message NIC end", "complete",
	"rendezvous on " + chainNames[0], "rendezvous on " + chainNames[1], "rendezvous on " + chainNames[2]}

// item is one operation's use of a resource, or a rendezvous moving it.
type item struct {
	kind sim.StepKind
	op   int32
}

func (r *Record) Busy(op int32, start, end int64)               {}
func (r *Record) Message(send, recv int32, sent, matched int64) {}

// Queued implements sim.QueueObserver.
func (r *Record) Queued(op int32, t int64) {
	slot := r.g.RankOf(op)*r.ncpu + int(r.g.CPU[op])
	r.relPos[op] = int32(len(r.chains[chainCPU][slot]))
}

// Step implements sim.StepObserver.
func (r *Record) Step(s sim.Step) {
	prev := r.last
	r.last = s
	add := func(c int, slot int32) {
		r.chains[c][slot] = append(r.chains[c][slot], item{s.Kind, s.Op})
	}
	switch s.Kind {
	case sim.StepCalc:
		r.start[s.Op], r.end[s.Op] = s.T, s.CPUEnd
		add(chainCPU, s.CPU)
	case sim.StepSend:
		r.start[s.Op], r.end[s.Op], r.nicEnd[s.Op] = s.T, s.CPUEnd, s.NICEnd
		add(chainCPU, s.CPU)
		add(chainNICSend, s.NIC)
	case sim.StepPost:
		r.start[s.Op] = s.T
	case sim.StepProcess:
		r.proc[s.Op], r.procCPU[s.Op], r.procNIC[s.Op] = s.T, s.CPUEnd, s.NICEnd
		add(chainCPU, s.CPU)
		add(chainNICRecv, s.NIC)
	case sim.StepMatch:
		r.match[s.Op], r.match[s.Peer] = s.Peer, s.Op
		r.comp[s.Peer] = s.T
		r.atPost[s.Peer] = prev.Kind == sim.StepPost && prev.Op == s.Peer
	case sim.StepRendezvous:
		r.rdv[s.Op] = s.T
		add(chainCPU, s.CPU)
		add(chainNICSend, s.NIC)
	}
}

// Observe replays g under net with the engine options opt (its Observer
// is replaced) and records what the replay did.
func Observe(g *graph.Graph, net network.LogGOPS, opt sim.Options) (*Record, error) {
	n := g.NumOps()
	ncpu, nnic := 1, 1
	for i := 0; i < n; i++ {
		ncpu = max(ncpu, int(g.CPU[i])+1)
		nnic = max(nnic, int(g.NIC[i])+1)
	}
	r := &Record{g: g, ncpu: ncpu}
	for _, p := range []*[]int64{&r.start, &r.end, &r.nicEnd, &r.comp, &r.proc, &r.procCPU, &r.procNIC, &r.rdv} {
		*p = make([]int64, n)
		for i := range *p {
			(*p)[i] = -1
		}
	}
	r.match = make([]int32, n)
	r.relPos = make([]int32, n)
	r.atPost = make([]bool, n)
	for i := range r.match {
		r.match[i] = -1
	}
	r.chains[chainCPU] = make([][]item, g.NumRanks()*ncpu)
	r.chains[chainNICSend] = make([][]item, g.NumRanks()*nnic)
	r.chains[chainNICRecv] = make([][]item, g.NumRanks()*nnic)
	opt.Observer = r
	res, err := sim.Run(g, net, opt)
	if err != nil {
		return nil, err
	}
	r.Makespan = res.Makespan
	return r, nil
}

// GraphOptions say which calcs of an execution graph are the LP's tasks
// and what the cores draw between them.
type GraphOptions struct {
	// Configs returns the configurations (seconds, watts) of calc op, or
	// nil for a calc that is no task: it keeps its recorded duration and
	// draws the wait power (a reduction's cost added by lowering).
	Configs func(op int32) []frontier.Config
	// Event returns Task.Event of calc op's task (nil: −1).
	Event func(op int32) int
	// Classes gives messages their own parameters (sim.Options.Classes).
	Classes *network.Classes
	Wait    WaitPower
	// WaitAfter, when set and Wait is mode task, gives the wait after
	// calc op's task a constant power w (a Load from the task's end to its
	// rank's next task's start) instead of the task's own, where it
	// reports ok: a task that may run on a device draws the device's
	// power while it runs, but its rank then waits with the device idle.
	// w must not exceed what a replay draws in that wait, or the LP is no
	// bound.
	WaitAfter func(op int32) (w float64, ok bool)
	// IdleW is a core's idle power, drawn before its rank's first task.
	IdleW float64
	// Device, when set, runs calcs on shared devices (sim.Options.Device)
	// in the reference replay; the LP does not order a device's calcs,
	// so with devices it is a relaxation, not exact.
	Device []int32
	// Flow, when set, is the topology whose links the replays' messages
	// cross as flows (sim.Options.Flow). The LP then prices every message
	// as the flow model does uncontended (sim.RoutePrices): its route's
	// latency and its bytes over the route's narrowest link, plus o + L
	// and the endpoints' o, (s−1)·O and g, with no (s−1)·G at the NICs
	// (the links carry the bytes); the reference replay runs so
	// (sim.FlowNetwork.Uncontended). Link contention is outside the LP:
	// a contended flow only takes longer, so the rows still hold for
	// every replay of those orders under the flow model.
	Flow *sim.FlowNetwork
}

// Net is the LP's DAG of an execution graph under the engine's semantics
// (see FromGraph), with the reference replay whose orders it fixes.
type Net struct {
	DAG   *DAG
	Order *Order
	// Ref is the reference replay: every task at its fastest
	// configuration.
	Ref *Record
	// TaskOp is the calc operation of every task; Times the reference
	// replay's vertex times in seconds.
	TaskOp []int32
	Times  []float64
	g      *graph.Graph
	net    network.LogGOPS
	opt    GraphOptions
	routes *sim.RoutePrices // GraphOptions.Flow's prices; nil without links
	start  []int32          // per operation: the vertex of its start (a recv's post)
	proc   []int32          // per send: the vertex of its message's processing
	// lastStart is start of the DAG build last wrote (ReplayNet builds
	// others).
	lastStart, lastProc []int32
	hull                [][]frontier.Config // per op: the task's hull, nil for other ops
	res                 *Resources          // the DAG's resources and the edges of their order
}

// FromGraph builds the LP of execution graph g (what sim.Run executes)
// under net: it replays g once with every task at its fastest
// configuration, fixes that replay's orders of operations on every
// resource and its order of events where power changes, and writes the
// engine's recurrences as rows (see the comment at the top of graph.go).
func FromGraph(g *graph.Graph, net network.LogGOPS, opt GraphOptions) (*Net, error) {
	if err := net.Validate(); err != nil {
		return nil, err
	}
	if net.Offload {
		return nil, fmt.Errorf("bound: network %s: the LP writes the recurrences of LogGOPSim's NIC, not of offload=1", net)
	}
	if opt.Wait.Constant && (!(opt.Wait.W >= 0) || math.IsInf(opt.Wait.W, 0)) {
		return nil, fmt.Errorf("bound: wait power %g W, want ≥ 0", opt.Wait.W)
	}
	if !(opt.IdleW >= 0) || math.IsInf(opt.IdleW, 0) {
		return nil, fmt.Errorf("bound: idle power %g W, want ≥ 0", opt.IdleW)
	}
	n := &Net{g: g, net: net, opt: opt, hull: make([][]frontier.Config, g.NumOps())}
	var err error
	dur := make([]int64, g.NumOps())
	for op := int32(0); op < int32(g.NumOps()); op++ {
		dur[op] = g.Size[op]
		if g.Kind[op] != graph.Calc || opt.Configs == nil {
			continue
		}
		cs := opt.Configs(op)
		if cs == nil {
			continue
		}
		h, herr := frontier.Hull(cs)
		if herr != nil {
			return nil, fmt.Errorf("bound: %s: %w", g.Describe(op), herr)
		}
		n.hull[op] = h
		dur[op] = int64(math.Round(h[0].Time * 1e9))
	}
	ropt := sim.Options{Pricer: fixedPricer(dur), Classes: opt.Classes, Device: opt.Device}
	if opt.Flow != nil {
		if n.routes, err = sim.NewRoutePrices(opt.Flow, g.NumRanks()); err != nil {
			return nil, fmt.Errorf("bound: %w", err)
		}
		alone := *opt.Flow
		alone.Uncontended = true
		ropt.Flow = &alone
	}
	ref, err := Observe(g, net, ropt)
	if err != nil {
		return nil, fmt.Errorf("bound: the reference replay: %w", err)
	}
	n.Ref = ref
	n.DAG, n.TaskOp, n.Times, err = n.build(ref)
	if err != nil {
		return nil, err
	}
	n.start, n.proc = n.lastStart, n.lastProc
	n.Order, err = OrderFromTimes(n.DAG, n.Times, false)
	return n, err
}

// Graph returns the execution graph the Net was built from (replays to
// Check must run it).
func (n *Net) Graph() *graph.Graph { return n.g }

// Starts returns, per operation of the Net's graph, when the LP's schedule
// b starts it (a calc or a send; a receive's post), in ns: the release
// times (sim.Options.Release) of a replay that follows the schedule, so
// that the engine keeps the LP's orders where it would otherwise reorder.
// The second slice gives, per send, when the schedule processes its
// message at the receiver (sim.Options.ReleaseMsg).
func (n *Net) Starts(b *Bound) (start, msg []int64) {
	at := func(v int32) int64 {
		if v >= 0 && int(v) < len(b.Vertex) {
			return int64(math.Round(b.Vertex[v] * 1e9))
		}
		return 0
	}
	start, msg = make([]int64, len(n.start)), make([]int64, len(n.start))
	for op, v := range n.start {
		start[op], msg[op] = at(v), at(n.proc[op])
	}
	return start, msg
}

// Network returns the LogGOPS parameters the Net was built with.
func (n *Net) Network() network.LogGOPS { return n.net }

// fixedPricer prices calc op at dur[op] ns.
type fixedPricer []int64

func (p fixedPricer) CalcDuration(op int32, start int64) int64 { return p[op] }

// endWait ends task i's (calc op's) wait at vertex next (the rank's next
// task's start or Fin): in mode task its power interval runs until next,
// unless WaitAfter gives the wait a power of its own; otherwise a load of
// the wait power does, from its end.
func (n *Net) endWait(d *DAG, i int, op int32, next int) {
	t := &d.Tasks[i]
	w, load := n.opt.Wait.W, n.opt.Wait.Constant
	if !load && n.opt.WaitAfter != nil {
		w, load = n.opt.WaitAfter(op)
		if !(w >= 0) || math.IsInf(w, 0) {
			w = 0 // charging less keeps the LP a bound
		}
	}
	if !load {
		t.Until = next
		return
	}
	if w > 0 && next != t.Dst {
		d.Loads = append(d.Loads, Load{Rank: t.Rank, Src: t.Dst, Dst: next, W: w})
	}
}

// OrderFromTimes fixes d's event order from vertex times: vertices in
// order of time, ties in a topological order of d's edges. With merge,
// vertices of equal times share an event (the LP then keeps them equal);
// without, every vertex is its own event. Only the events where a task's
// or a load's power starts or ends are chained (Order.Chained).
func OrderFromTimes(d *DAG, times []float64, merge bool) (*Order, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if len(times) != d.Vertices {
		return nil, fmt.Errorf("bound: %d times for %d vertices", len(times), d.Vertices)
	}
	topo, err := topoOrder(d)
	if err != nil {
		return nil, err
	}
	// Fin is last: a NIC can stay busy after the last CPU is free.
	key := func(v int) float64 {
		if v == d.Fin {
			return math.Inf(1)
		}
		return times[v]
	}
	stableByKey(topo, key)
	power := make([]bool, d.Vertices)
	power[d.Init], power[d.Fin] = true, true
	for i := range d.Tasks {
		power[d.Tasks[i].Src], power[d.Tasks[i].PowerEnd()] = true, true
	}
	for _, l := range d.Loads {
		power[l.Src], power[l.Dst] = true, true
	}
	o := &Order{Times: times, Event: make([]int, d.Vertices), Makespan: times[d.Fin], Policy: "replay"}
	k := -1
	for j, v := range topo {
		if j == 0 || !merge || key(v) != key(topo[j-1]) {
			k++
			o.Chained = append(o.Chained, false)
		}
		o.Event[v] = k
		o.Chained[k] = o.Chained[k] || power[v]
	}
	o.Events = k + 1
	if o.Event[d.Init] != 0 {
		return nil, fmt.Errorf("bound: %s is not first", d.name(d.Init))
	}
	if o.Event[d.Fin] != o.Events-1 {
		return nil, fmt.Errorf("bound: %s is not last", d.name(d.Fin))
	}
	return o, nil
}

// stableByKey sorts vs by key(v) (never NaN), keeping the order of equal
// keys: sort.SliceStable's result, as a least-significant-digit radix sort
// of the keys' bits (16 at a time, skipping the digits every key shares),
// several times faster than a comparison sort on millions of vertices.
func stableByKey(vs []int, key func(int) float64) {
	type kv struct {
		k uint64
		v int32
	}
	a := make([]kv, len(vs))
	for i, v := range vs {
		a[i] = kv{sortableBits(key(v)), int32(v)}
	}
	b := make([]kv, len(vs))
	count := make([]int, 1<<16+1)
	for shift := 0; shift < 64; shift += 16 {
		clear(count)
		for _, x := range a {
			count[(x.k>>shift)&0xffff+1]++
		}
		if len(a) == 0 || count[(a[0].k>>shift)&0xffff+1] == len(a) {
			continue // one digit for all: the order stays
		}
		for d := 1; d < len(count); d++ {
			count[d] += count[d-1]
		}
		for _, x := range a {
			d := (x.k >> shift) & 0xffff
			b[count[d]] = x
			count[d]++
		}
		a, b = b, a
	}
	for i := range a {
		vs[i] = int(a[i].v)
	}
}

// sortableBits maps x (not NaN) to an integer of the same order: the
// float's bits with the sign bit set where x ≥ 0, all bits flipped where
// x < 0; −0 is 0.
func sortableBits(x float64) uint64 {
	if x == 0 {
		x = 0 // −0 as 0: equal keys keep their order
	}
	b := math.Float64bits(x)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// outEdges returns d's task and message edges leaving each vertex in
// compressed sparse row form: vertex v's edges go to to[start[v]:start[v+1]],
// tasks first, each with its least length in w (a task's fastest hull
// point, a message's time).
func outEdges(d *DAG) (start, to []int32, w []float64) {
	start = make([]int32, d.Vertices+1)
	for _, t := range d.Tasks {
		start[t.Src+1]++
	}
	for _, m := range d.Messages {
		start[m.Src+1]++
	}
	for v := 0; v < d.Vertices; v++ {
		start[v+1] += start[v]
	}
	to = make([]int32, start[d.Vertices])
	w = make([]float64, start[d.Vertices])
	next := append([]int32(nil), start[:d.Vertices]...)
	for _, t := range d.Tasks {
		to[next[t.Src]] = int32(t.Dst)
		if len(t.Hull) > 0 { // an unchecked DAG's task may have none
			w[next[t.Src]] = t.Hull[0].Time
		}
		next[t.Src]++
	}
	for _, m := range d.Messages {
		to[next[m.Src]], w[next[m.Src]] = int32(m.Dst), m.Time
		next[m.Src]++
	}
	return start, to, w
}

// topoOrder returns d's vertices in a topological order of its task and
// message edges (Kahn's, from the lowest index).
func topoOrder(d *DAG) ([]int, error) {
	start, to, _ := outEdges(d)
	indeg := make([]int32, d.Vertices)
	for _, b := range to {
		indeg[b]++
	}
	topo := make([]int, 0, d.Vertices)
	for v := 0; v < d.Vertices; v++ {
		if indeg[v] == 0 {
			topo = append(topo, v)
		}
	}
	for j := 0; j < len(topo); j++ {
		v := topo[j]
		for _, w := range to[start[v]:start[v+1]] {
			if indeg[w]--; indeg[w] == 0 {
				topo = append(topo, int(w))
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
	return topo, nil
}
