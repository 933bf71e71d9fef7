package sim

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/network/flow"
	"github.com/capsim/capsim/network/topo"
)

// FlowNetwork selects the flow-level network model (Options.Flow): ranks
// sit on the nodes of a topology, and a message between two nodes is a
// flow over the links of its route, sharing their bandwidth max-min
// fairly with the other flows in progress (package network/flow).
//
// The LogGOPS endpoint costs are kept: a send costs its CPU o + (s−1)·O
// and its NIC g; a receive costs its CPU o + (s−1)·O and its NIC g. The
// per-byte gap G is replaced by the links' bandwidth: the message first
// waits out its route's hop latencies, then its bytes flow, and it
// arrives o + L after its last byte (the bytes occupy the links when
// they reach the receiver's; BytesFirst is the other way round). A flow
// moves the message's payload and the network's header bytes, s + H.
// Messages between ranks on the same node cross no link and arrive
// o + L + (s+H−1)·G after the send starts, as in the LogGP variant. A
// message that arrives before one sent ahead of it from the same rank to
// the same rank with the same tag waits for it, so that receives match a
// channel's messages in the order they were sent, as in MPI (channels;
// not with Uncontended). A
// topology without links (a crossbar) leaves the replay exactly as
// without Flow.
type FlowNetwork struct {
	Topology topo.Topology
	// Mapping gives each rank's node; nil maps ranks in blocks
	// (topo.Block).
	Mapping []int32
	// Neighbours re-rates only the flows sharing a link with one that
	// starts or ends (flow.Net.Neighbours) instead of their whole
	// connected component: cheaper where flows form large components
	// (congested tori), but not max-min fair, an approximation whose
	// makespans drift from the model's (docs/design/network.md).
	Neighbours bool
	// CM02 shares and times flows as SimGrid's CM02 network model does:
	// a message first waits out its route's latency, then its bytes flow;
	// and a bottleneck is shared among flows in inverse proportion to
	// their routes' latencies (CM02's sharing penalty is the route's
	// latency) instead of equally. Use it to compare with SimGrid.
	CM02 bool
	// BytesFirst starts a flow's bytes when its send starts, on every
	// link of its route at once, and delivers the message o + L + the
	// route's latency after its last byte. Its flows hold the links near the receiver up to a
	// route's latency before their bytes could be there, which can make a
	// replay several times slower than the network it models (3 times on
	// a 256-rank pairwise all-to-all: docs/design/network.md); it is kept for
	// comparison. CM02 ignores it.
	BytesFirst bool
	// Uncontended gives every message between nodes the time its flow
	// takes across its route alone (RoutePrices.Flight): no link is
	// shared. A replay then prices each message at the least the flow
	// model can take for it, whatever else is in flight, and processes
	// messages as they arrive (no channel order, see channels); the LP's
	// reference replay (package optimize/bound) runs so.
	Uncontended bool
}

// flowState is the engine's flow-model state (only with Options.Flow).
type flowEngine struct {
	net      *flow.Net
	topo     topo.Topology
	nodeOf   []int32
	cm02     bool
	latFirst bool // bytes flow after the route's latency (all but BytesFirst)
	alone    bool // FlowNetwork.Uncontended
	linkLat  []int64
	capacity []float64 // per link, bytes/ns
	// hopLat is every link's latency when all links have the same,
	// else −1.
	hopLat int64
	route  []int32
	// hopc counts a route's links without building it, where the
	// topology can and hopLat ≥ 0 (latency first: the route is built
	// when the bytes start).
	hopc   topo.HopCounter
	events int64
	obs    LinkObserver // nil unless the Observer is one
	timers flowTimers   // the flows' completion times
	order  channels     // each channel's messages in the order they were sent
}

// newFlowEngine checks f against g and builds its state; it returns nil,
// nil for a topology without links.
func newFlowEngine(f *FlowNetwork, ranks int) (*flowEngine, error) {
	t := f.Topology
	if t == nil {
		return nil, fmt.Errorf("sim: flow network without a topology")
	}
	if c, ok := t.(*topo.Crossbar); ok {
		t = c.Sized(ranks)
	}
	if t.NumLinks() == 0 {
		return nil, nil
	}
	m := f.Mapping
	if m == nil {
		var err error
		if m, err = topo.Block(ranks, t.Nodes()); err != nil {
			return nil, fmt.Errorf("sim: %w", err)
		}
	}
	if len(m) != ranks {
		return nil, fmt.Errorf("sim: mapping has %d ranks, the trace %d", len(m), ranks)
	}
	for r, n := range m {
		if n < 0 || int(n) >= t.Nodes() {
			return nil, fmt.Errorf("sim: rank %d mapped to node %d of %d (topology %s)", r, n, t.Nodes(), t)
		}
	}
	nl := t.NumLinks()
	capacity := make([]float64, nl)
	lat := make([]int64, nl)
	for l := range nl {
		k := t.Link(int32(l))
		capacity[l], lat[l] = k.Bandwidth, k.Latency
	}
	net := flow.New(capacity)
	net.Neighbours = f.Neighbours
	hop := lat[0]
	for _, l := range lat {
		if l != hop {
			hop = -1
			break
		}
	}
	fe := &flowEngine{net: net, topo: t, nodeOf: m, cm02: f.CM02, latFirst: f.CM02 || !f.BytesFirst, alone: f.Uncontended,
		linkLat: lat, capacity: capacity, hopLat: hop, route: make([]int32, 0, 64)}
	if h, ok := t.(topo.HopCounter); ok && hop >= 0 && fe.latFirst {
		fe.hopc = h
	}
	return fe, nil
}

// sendFlow puts the message of send op (of rank) on the network at time
// t; flight is o + L, and wire its bytes with the header (network.WireBytes).
func (e *engine) sendFlow(op, rank int32, t, flight uint64, G network.PerByte, wire int64) {
	fe := e.fl
	g := e.g
	if !fe.alone {
		fe.order.sent(op, rank, g.Peer[op], e.tag[op])
	}
	src, dst := int(fe.nodeOf[rank]), int(fe.nodeOf[g.Peer[op]])
	if fe.alone {
		at := t + uint64(fe.aloneFlight(src, dst, wire, int64(flight), G))
		e.q.push(event{time: at, seq: e.ts<<3 | uint64(evMsg), op: op, rank: rank})
		e.ts++
		return
	}
	hops, links := fe.routeLatency(src, dst)
	if !links {
		// Same node: no link, LogGP pricing of the bytes.
		e.q.push(event{time: t + flight + uint64(max(0, G.Charge(wire))), seq: e.ts<<3 | uint64(evMsg), op: op, rank: rank})
		e.ts++
		return
	}
	if fe.latFirst {
		// The bytes start flowing once the route's latency has passed.
		e.q.push(event{time: t + uint64(hops), seq: e.ts<<3 | uint64(evFlowStart), op: op, rank: rank})
		e.ts++
		return
	}
	// BytesFirst (no HopCounter): routeLatency built the route.
	fe.net.Start(int64(t), fe.route, max(0, wire), 1, op, rank, int64(flight)+hops)
	fe.events++
	fe.report(t)
	e.scheduleFlows()
}

// routeLatency returns the sum of the latencies of the links from node
// src to node dst, and whether there are any (none between ranks of one
// node). Where it builds the route (no HopCounter), fe.route holds it.
func (fe *flowEngine) routeLatency(src, dst int) (lat int64, links bool) {
	if fe.hopc != nil {
		hops := int64(fe.hopc.Hops(src, dst))
		return hops * fe.hopLat, hops > 0
	}
	fe.route = fe.topo.Route(fe.route[:0], src, dst)
	return fe.latency(), len(fe.route) > 0
}

// weight is the share of a flow whose route has latency lat on a link it
// shares (flow.Net.Start's weight): 1, or under CM02 the inverse of lat.
func (fe *flowEngine) weight(lat int64) float64 {
	if fe.cm02 && lat > 0 {
		return 1 / float64(lat)
	}
	return 1
}

// aloneFlight is how long after its send starts at node src a message of
// size bytes arrives at node dst when its flow crosses its route alone,
// flight being its o + L: the route's latency, then its bytes at the
// narrowest link's bandwidth (flow.AloneNs), then o + L, whichever way
// the flows are timed (FlowNetwork.BytesFirst adds the route's latency
// after the bytes instead); between ranks of one node o + L + (s−1)·G. The
// flow model takes at least this long for the message, since no flow
// gets more than its narrowest link.
func (fe *flowEngine) aloneFlight(src, dst int, size, flight int64, G network.PerByte) int64 {
	lat, links := fe.routeLatency(src, dst)
	if !links {
		return flight + max(0, G.Charge(size))
	}
	if fe.hopc != nil {
		fe.route = fe.topo.Route(fe.route[:0], src, dst)
	}
	c := math.Inf(1)
	for _, l := range fe.route {
		c = math.Min(c, fe.capacity[l])
	}
	return flight + lat + flow.AloneNs(max(0, size), c, fe.weight(lat))
}

// RoutePrices prices messages on a FlowNetwork's topology as its flows
// take them alone (FlowNetwork.Uncontended): the least time the flow
// model can take for each message. It is not safe for concurrent use.
type RoutePrices struct{ fe *flowEngine }

// NewRoutePrices returns the prices of f's messages between ranks ranks,
// or nil for a topology without links (no message crosses one: the
// network's LogGOPS parameters price them, as the engine does then).
func NewRoutePrices(f *FlowNetwork, ranks int) (*RoutePrices, error) {
	fe, err := newFlowEngine(f, ranks)
	if fe == nil || err != nil {
		return nil, err
	}
	return &RoutePrices{fe: fe}, nil
}

// Flight returns how long after a send of size bytes from rank src to
// rank dst starts its message arrives at dst, size being the bytes on the
// wire (the payload and the network's header bytes), when its flow crosses its
// route alone: the message's flight (its class's o + L), its route's
// latency and its bytes at the route's narrowest link's bandwidth; between
// ranks of one node flight + (s−1)·G, with G the message's per-byte gap.
// A replay under the flow model, contended or not, never delivers the
// message sooner.
func (p *RoutePrices) Flight(src, dst int32, size, flight int64, G network.PerByte) int64 {
	fe := p.fe
	return fe.aloneFlight(int(fe.nodeOf[src]), int(fe.nodeOf[dst]), size, flight, G)
}

// Topology returns the topology the prices are of.
func (p *RoutePrices) Topology() topo.Topology { return p.fe.topo }

// flowStart starts the flow of send op (of rank) at time t, after its
// route's latency (FlowNetwork.CM02); it arrives o + L after its last
// byte.
func (e *engine) flowStart(op, rank int32, t uint64) {
	fe := e.fl
	g := e.g
	fe.route = fe.topo.Route(fe.route[:0], int(fe.nodeOf[rank]), int(fe.nodeOf[g.Peer[op]]))
	w := fe.weight(fe.latency())
	o, L, H := e.net.Overhead, e.net.Latency, e.net.HeaderBytes
	if c := e.opt.Classes; c != nil {
		p := &c.Params[c.Of[op]]
		o, L, H = p.Overhead, p.Latency, p.HeaderBytes
	}
	fe.net.Start(int64(t), fe.route, max(0, network.WireBytes(g.Size[op], H)), w, op, rank, o+L)
	fe.events++
	fe.report(t)
	e.scheduleFlows()
}

// latency returns the sum of the latencies of fe.route's links.
func (fe *flowEngine) latency() int64 {
	if fe.hopLat >= 0 {
		return int64(len(fe.route)) * fe.hopLat
	}
	var hops int64
	for _, l := range fe.route {
		hops += fe.linkLat[l]
	}
	return hops
}

// scheduleFlows sets the completion timers of the flows whose rates
// the last start or finish changed.
//
// A flow has at most one timer, in fe.timers rather than in the event
// queue: a rate change moves the flow's timer in place instead of
// queueing a new event and leaving the old one to be dropped as stale
// when its time comes. The order of events is unchanged: a timer is keyed
// by the (time, seq) its event would have had, and the loop takes the
// earlier of the queue's next event and the first timer (loop). So that
// Result.Events stays the count of events the loop would have processed
// with stale events queued, each timer replaced or cancelled counts as
// one event.
func (e *engine) scheduleFlows() {
	fe := e.fl
	net := fe.net
	for _, id := range net.Changed() {
		end, _ := net.End(id)
		if end == math.MaxInt64 {
			if fe.timers.remove(id) {
				e.events++
			}
			continue
		}
		if fe.timers.set(id, uint64(end), e.ts<<3|uint64(evFlow)) {
			e.events++
		}
		e.ts++
	}
}

// flowDone handles the completion of flow id at time t: the flow ends and
// its message is queued to arrive.
func (e *engine) flowDone(id int32, t uint64) {
	net := e.fl.net
	op, rank, lat := net.Payload(id)
	if e.fl.obs != nil {
		e.fl.route = net.Links(e.fl.route[:0], id)
	}
	net.Finish(int64(t), id)
	e.fl.events++
	e.fl.report(t)
	e.scheduleFlows()
	e.q.push(event{time: t + uint64(lat), seq: e.ts<<3 | uint64(evMsg), op: op, rank: rank})
	e.ts++
}

// flowTimer is a flow's completion time, with the seq its event has.
type flowTimer struct {
	time, seq uint64
	id        int32
}

// flowTimers holds one timer per flow in progress with a rate > 0, so
// that a flow's timer moves when its rate changes rather than leaving a
// stale one behind. Like eventQueue, it is a sorted run plus a 4-ary
// min-heap, both on (time, seq): a timer not earlier than the run's last
// one is appended to the run in O(1) (flows of equal sizes and rates end
// in the order they started), the others go to the heap. A timer that
// moves leaves a dead entry (id −1) in the run, skipped when it comes
// first, or is taken out of the heap.
type flowTimers struct {
	h    []flowTimer
	run  []flowTimer // sorted; run[head:] are queued, some of them dead
	head int
	// pos is, per flow id, its timer's index in h (≥ 0), −2−i for index i
	// of run, or −1 for none.
	pos []int32
}

func timerLess(a, b *flowTimer) bool {
	return a.time < b.time || (a.time == b.time && a.seq < b.seq)
}

// peek returns the first timer, or nil when there is none.
func (ts *flowTimers) peek() *flowTimer {
	for ts.head < len(ts.run) && ts.run[ts.head].id < 0 {
		ts.head++
	}
	if ts.head == len(ts.run) {
		ts.run, ts.head = ts.run[:0], 0
		if len(ts.h) == 0 {
			return nil
		}
		return &ts.h[0]
	}
	if len(ts.h) > 0 && timerLess(&ts.h[0], &ts.run[ts.head]) {
		return &ts.h[0]
	}
	return &ts.run[ts.head]
}

// due reports whether a timer comes before q's next event (or q is
// empty): pop then returns it.
func (ts *flowTimers) due(q *eventQueue) bool {
	x := ts.peek()
	return x != nil && (!q.queued() || x.before(q.peek()))
}

// before reports whether timer x comes before event ev.
func (x *flowTimer) before(ev *event) bool {
	return x.time < ev.time || (x.time == ev.time && x.seq < ev.seq)
}

// pop removes and returns the first timer; peek must have returned it.
func (ts *flowTimers) pop() flowTimer {
	if ts.head < len(ts.run) && (len(ts.h) == 0 || timerLess(&ts.run[ts.head], &ts.h[0])) {
		x := ts.run[ts.head]
		ts.head++
		ts.pos[x.id] = -1
		return x
	}
	top := ts.h[0]
	ts.pos[top.id] = -1
	n := int32(len(ts.h) - 1)
	last := ts.h[n]
	ts.h = ts.h[:n]
	if n > 0 {
		ts.down(0, last)
	}
	return top
}

// set sets flow id's timer to (time, seq); it reports whether the flow
// had a timer, which this one replaces.
func (ts *flowTimers) set(id int32, time, seq uint64) bool {
	for int(id) >= len(ts.pos) {
		ts.pos = append(ts.pos, -1)
	}
	had := ts.remove(id)
	x := flowTimer{time, seq, id}
	if n := len(ts.run); n == ts.head || !timerLess(&x, &ts.run[n-1]) {
		if ts.head > 0 && (ts.head == n || n == cap(ts.run) && 2*ts.head >= n) {
			// Reuse the consumed prefix, as eventQueue.push does.
			k := copy(ts.run, ts.run[ts.head:])
			ts.run, ts.head = ts.run[:k], 0
			for i, y := range ts.run {
				if y.id >= 0 {
					ts.pos[y.id] = int32(-2 - i)
				}
			}
		}
		ts.pos[id] = int32(-2 - len(ts.run))
		ts.run = append(ts.run, x)
		return had
	}
	ts.h = append(ts.h, x)
	ts.up(int32(len(ts.h)-1), x)
	return had
}

// remove removes flow id's timer; it reports whether it had one.
func (ts *flowTimers) remove(id int32) bool {
	if int(id) >= len(ts.pos) || ts.pos[id] == -1 {
		return false
	}
	i := ts.pos[id]
	ts.pos[id] = -1
	if i < 0 {
		ts.run[-2-i].id = -1
		return true
	}
	n := int32(len(ts.h) - 1)
	last := ts.h[n]
	ts.h = ts.h[:n]
	if i < n {
		if timerLess(&last, &ts.h[i]) {
			ts.up(i, last)
		} else {
			ts.down(i, last)
		}
	}
	return true
}

// up places x at index i or above it.
func (ts *flowTimers) up(i int32, x flowTimer) {
	h := ts.h
	for i > 0 {
		p := (i - 1) / 4
		if !timerLess(&x, &h[p]) {
			break
		}
		h[i] = h[p]
		ts.pos[h[i].id] = i
		i = p
	}
	h[i] = x
	ts.pos[x.id] = i
}

// down places x at index i or below it.
func (ts *flowTimers) down(i int32, x flowTimer) {
	h := ts.h
	n := int32(len(h))
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < c+4 && k < n; k++ {
			if timerLess(&h[k], &h[m]) {
				m = k
			}
		}
		if !timerLess(&h[m], &x) {
			break
		}
		h[i] = h[m]
		ts.pos[h[i].id] = i
		i = m
	}
	h[i] = x
	ts.pos[x.id] = i
}

// report tells the LinkObserver, if any, the number of flows on each link
// of fe.route from time t on.
func (fe *flowEngine) report(t uint64) {
	if fe.obs == nil {
		return
	}
	for _, l := range fe.route {
		fe.obs.LinkFlows(l, int64(t), fe.net.Active(l))
	}
}

// channels keeps MPI's non-overtaking rule under the flow model: the
// messages of one channel (sender, receiver, tag) are matched in the
// order they were sent. A flow shares its links with others, so a short
// message can arrive before a long one sent ahead of it on the same
// channel (the segments of a pipelined broadcast, all sent at once, whose
// short last segment finishes first); it is then held, and processed when
// the messages sent before it have been, as an MPI library matches a
// message to the receives in the order its sender posted them (SimGrid's
// mailboxes do the same at the send). The endpoint models deliver every
// channel in order by construction (a FIFO NIC and one latency), so
// they need no such bookkeeping. FlowNetwork.Uncontended, which prices
// each message alone as the least time the flow model can take for it
// (the LP's reference replay, whose message edges have no such order),
// keeps none either.
//
// Each sender keeps its recent sends in the order it sent them (sends),
// from the oldest it has not seen processed: a send scans them backwards
// for its channel's previous message, which holds it back unless it is
// processed already; next chains a channel's messages. A sender has few
// messages in flight in most exchanges; where it has many (a linear
// all-to-all) the scan costs less than the flows' own re-rating.
type channels struct {
	sends [][]chanSend // per sender rank, its sends from the oldest unprocessed
	msg   []chanMsg    // per send op
}

// chanMsg is a message's channel state: the channel's next message (or
// −1) and its place, msgFirst, msgBehind, msgHeld or msgDone.
type chanMsg struct {
	next  int32
	state uint8
}

// chanSend is a send with its channel's receiver and tag.
type chanSend struct{ op, peer, tag int32 }

// A message's place in its channel.
const (
	msgFirst  = iota // no earlier message of its channel is unprocessed
	msgBehind        // an earlier one is, and it has not arrived
	msgHeld          // an earlier one is, and it has arrived: held
	msgDone          // processed
)

// reserve sizes the columns for a graph of ops operations and ranks
// ranks.
func (c *channels) reserve(ops, ranks int) {
	c.sends = make([][]chanSend, ranks)
	c.msg = make([]chanMsg, ops)
}

// sent appends send op of rank src to rank dst, with tag, to its
// channel.
func (c *channels) sent(op, src, dst, tag int32) {
	m := chanMsg{next: -1, state: msgFirst}
	u := c.sends[src]
	for i := len(u) - 1; i >= 0; i-- {
		if x := u[i]; x.peer == dst && x.tag == tag {
			if p := &c.msg[x.op]; p.state != msgDone {
				p.next, m.state = op, msgBehind
			}
			break
		}
	}
	c.msg[op] = m
	c.sends[src] = append(u, chanSend{op, dst, tag})
}

// inOrder reports whether the message of send op may be processed: no
// message sent before it on its channel is left; if one is, op is held.
func (fe *flowEngine) inOrder(op int32) bool {
	m := &fe.order.msg[op]
	if m.state == msgFirst {
		return true
	}
	m.state = msgHeld
	return false
}

// delivered records that the message of send op, from rank src, is
// processed at t: its channel's next message becomes the first, and is
// queued at t if it has arrived already.
func (e *engine) delivered(op, src int32, t uint64) {
	c := &e.fl.order
	m := &c.msg[op]
	m.state = msgDone
	u := c.sends[src]
	k := 0
	for k < len(u) && c.msg[u[k].op].state == msgDone {
		k++
	}
	if k == len(u) {
		c.sends[src] = u[:0]
	} else if k > len(u)/2 {
		c.sends[src] = u[:copy(u, u[k:])]
	}
	if m.next < 0 {
		return
	}
	n := m.next
	next := &c.msg[n]
	held := next.state == msgHeld
	next.state = msgFirst
	if held {
		e.q.push(event{time: t, seq: e.ts<<3 | uint64(evMsg), op: n, rank: src})
		e.ts++
	}
}
