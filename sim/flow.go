package sim

import (
	"fmt"
	"math"

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
// per-byte gap G is replaced by the links' bandwidth: the flow starts
// when the send does, and the message arrives o + L + the route's hop
// latencies after the flow's last byte has left. Messages between ranks
// on the same node cross no link and arrive o + L + (s−1)·G after the send
// starts, as in the LogGP variant. A topology without links (a crossbar)
// leaves the replay exactly as without Flow.
type FlowNetwork struct {
	Topology topo.Topology
	// Mapping gives each rank's node; nil maps ranks in blocks
	// (topo.Block).
	Mapping []int32
	// Exact re-rates whole connected components (see flow.Net.Exact).
	Exact bool
	// CM02 shares and times flows as SimGrid's CM02 network model does:
	// a message first waits out its route's latency, then its bytes flow;
	// and a bottleneck is shared among flows in inverse proportion to
	// their routes' latencies (CM02's sharing penalty is the route's
	// latency) instead of equally. Use it to compare with SimGrid.
	CM02 bool
}

// flowState is the engine's flow-model state (only with Options.Flow).
type flowEngine struct {
	net     *flow.Net
	topo    topo.Topology
	nodeOf  []int32
	cm02    bool
	linkLat []int64
	// hopLat is every link's latency when all links have the same,
	// else −1.
	hopLat int64
	route  []int32
	events int64
	obs    LinkObserver // nil unless the Observer is one
}

// newFlowEngine checks f against g and builds its state; it returns nil,
// nil for a topology without links.
func newFlowEngine(f *FlowNetwork, ranks int) (*flowEngine, error) {
	t := f.Topology
	if t == nil {
		return nil, fmt.Errorf("sim: flow network without a topology")
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
	net.Exact = f.Exact
	hop := lat[0]
	for _, l := range lat {
		if l != hop {
			hop = -1
			break
		}
	}
	return &flowEngine{net: net, topo: t, nodeOf: m, cm02: f.CM02, linkLat: lat, hopLat: hop, route: make([]int32, 0, 64)}, nil
}

// sendFlow puts the message of send op (of rank) on the network at time
// t; flight is o + L.
func (e *engine) sendFlow(op, rank int32, t, flight uint64, G int64) {
	fe := e.fl
	g := e.g
	fe.route = fe.topo.Route(fe.route[:0], int(fe.nodeOf[rank]), int(fe.nodeOf[g.Peer[op]]))
	if len(fe.route) == 0 {
		// Same node: no link, LogGP pricing of the bytes.
		e.q.push(event{time: t + flight + uint64(max(0, perByte(g.Size[op], G))), seq: e.ts<<3 | uint64(evMsg), op: op, rank: rank})
		e.ts++
		return
	}
	hops := fe.latency()
	if fe.cm02 {
		// The bytes start flowing once the route's latency has passed.
		e.q.push(event{time: t + uint64(hops), seq: e.ts<<3 | uint64(evFlowStart), op: op, rank: rank})
		e.ts++
		return
	}
	fe.net.Start(int64(t), fe.route, max(0, g.Size[op]), 1, op, rank, int64(flight)+hops)
	fe.events++
	fe.report(t)
	e.scheduleFlows()
}

// flowStart starts the flow of send op (of rank) at time t, after its
// route's latency (FlowNetwork.CM02); it arrives o + L after its last
// byte.
func (e *engine) flowStart(op, rank int32, t uint64) {
	fe := e.fl
	g := e.g
	fe.route = fe.topo.Route(fe.route[:0], int(fe.nodeOf[rank]), int(fe.nodeOf[g.Peer[op]]))
	hops := fe.latency()
	w := 1.0
	if hops > 0 {
		w = 1 / float64(hops)
	}
	o, L := e.net.Overhead, e.net.Latency
	if c := e.opt.Classes; c != nil {
		p := &c.Params[c.Of[op]]
		o, L = p.Overhead, p.Latency
	}
	fe.net.Start(int64(t), fe.route, max(0, g.Size[op]), w, op, rank, o+L)
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

// scheduleFlows queues the completion events of the flows whose rates
// the last start or finish changed.
func (e *engine) scheduleFlows() {
	net := e.fl.net
	for _, id := range net.Changed() {
		end, v := net.End(id)
		if end == math.MaxInt64 {
			continue
		}
		e.q.push(event{time: uint64(end), seq: e.ts<<3 | uint64(evFlow), op: id, rank: v})
		e.ts++
	}
}

// flowDone handles a flow completion event: unless a rate change made it
// stale, the flow ends and its message is queued to arrive.
func (e *engine) flowDone(ev event) {
	net := e.fl.net
	if !net.Current(ev.op, ev.rank) {
		return
	}
	op, rank, lat := net.Payload(ev.op)
	if e.fl.obs != nil {
		e.fl.route = net.Links(e.fl.route[:0], ev.op)
	}
	net.Finish(int64(ev.time), ev.op)
	e.fl.events++
	e.fl.report(ev.time)
	e.scheduleFlows()
	e.q.push(event{time: ev.time + uint64(lat), seq: e.ts<<3 | uint64(evMsg), op: op, rank: rank})
	e.ts++
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
