// Package sim is capsim's discrete-event replay engine. It executes a
// per-rank execution graph (package traces/graph) under the LogGOPS network
// model (package network) and reports when every rank finishes and where
// its time went.
//
// The engine follows LogGOPSim's event semantics exactly, so that its
// per-host finish times equal LogGOPSim's to the nanosecond:
//
//   - Operations become ready when every dependency is met: a "requires"
//     dependency when the other operation completes, an "irequires"
//     dependency when it starts. Ready operations of a host enter the event
//     queue ordered sends, then receives, then calcs, and the queue orders
//     events by time, then by the order in which they were first queued.
//   - A calc starts when its CPU is free and occupies it for its duration;
//     its dependents are released when it starts and are queued at the time
//     their own CPU becomes free.
//   - An operation that finds its CPU busy waits until the CPU is free and
//     is then tried again in first-queued order with the others waiting;
//     the engine keeps such operations in the CPU's ready queue rather
//     than the event queue (ready.go), which changes the number of
//     events, never a time.
//   - A send starts when its CPU and NIC are free, costs o + (s-1)·O of CPU
//     and g + (s-1)·G of NIC time, and puts the message on the wire to
//     arrive o + L later. An eager send (s ≤ S) completes at once; a
//     rendezvous send completes when the receiver matches the message.
//   - A message is received when the receiver's CPU and NIC are free, costs
//     o + max((s-1)·O, (s-1)·G) of CPU and g + (s-1)·G of NIC time, and is
//     matched against the posted receives in order by (source, tag), with
//     wildcards; an unmatched message waits in the unexpected queue, where
//     a receive posted later finds it without further cost.
//   - A message is priced by its send's size, which also decides eager or
//     rendezvous. A receive may be larger than the message it matches (its
//     size is an upper bound, as in MPI); a receive smaller than it, when
//     the receive names its source and tag, fails the replay with a
//     *TruncationError naming both operations (MPI_ERR_TRUNCATE in an MPI
//     run). LogGOPSim decides eager or rendezvous with the receive's size
//     when the message arrived first, and checks no size; the two agree
//     wherever a receive's size equals its message's, as on every schedule
//     of the conformance set, and Options.LogGOPSimSizes replays as
//     LogGOPSim does where they differ.
//
// With the LogGP variant of the network (network.LogGOPS.LogGP, taken from
// the net passed to Run for every message class) a message arrives
// o + L + (s-1)·G after its send starts and costs its receiver o + (s-1)·O
// of CPU; everything else is as above.
//
// With an offloading NIC as well (network.LogGOPS.Offload, taken from the
// net passed to Run; not with Options.Flow) the NIC works apart from the
// CPU: a send starts when its CPU is free, and its bytes leave when the
// NIC is (so its message arrives o + L + (s-1)·G after that); a message
// is taken by its receiver's NIC at its arrival if the NIC was free
// (s-1)·G before, else (s-1)·G after the NIC is free, which holds it g
// from then; and it is then received when the CPU is free, costing it
// o + (s-1)·O. Such a message waits for the CPU marked with nicInBit.
//
// With Options.Flow, messages between nodes are flows over the links of a
// topology instead (see FlowNetwork); without it nothing above changes.
//
// A host's finish time is when its last CPU becomes free. LogGOPSim's
// unsigned arithmetic makes the per-byte charges of an empty message
// negative ((s-1) wraps around); capsim charges the same, stopping only
// where a time would fall below 0.
//
// Every time of a replay stays at most graph.MaxTimeNs (10^18 ns): each
// event checks the times it sets against that limit once, and a replay
// that would pass it fails with a *TimeLimitError naming the operation,
// never with a wrapped time.
//
// The event loop allocates nothing per event.
package sim

import (
	"fmt"
	"sort"
	"strings"

	"github.com/capsim/capsim/internal/hugepage"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/network/flow"
	"github.com/capsim/capsim/traces/graph"
)

// CalcPricer prices calc operations, for compute models and power
// policies. CalcDuration returns the duration in ns of calc operation op
// starting at time start.
type CalcPricer interface {
	CalcDuration(op int32, start int64) int64
}

// Observer is told what the engine does, for timelines and power accounting.
type Observer interface {
	// Busy reports that operation op kept its rank's CPU busy from start to
	// end: the computation of a calc, the overhead of a send or receive.
	Busy(op int32, start, end int64)
	// Message reports that the message of send operation send was matched
	// by receive operation recv: it left at sent and was matched at matched.
	Message(send, recv int32, sent, matched int64)
}

// QueueObserver is an Observer that is also told when each operation is
// queued: when its dependencies are met, at the time its CPU is next free
// (LogGOPSim queues a freed operation then; a send may start later, when
// its NIC is free too). It is how the time a rank reaches an MPI call is
// observed.
type QueueObserver interface {
	Observer
	Queued(op int32, t int64)
}

// LinkObserver is an Observer that is also told, under the flow model
// (Options.Flow with a topology that has links), how many flows cross a
// link each time a flow starts or ends on it: flows is the number from t
// (ns) on. Several reports for one link at one time leave the last in
// force.
type LinkObserver interface {
	Observer
	LinkFlows(link int32, t int64, flows int32)
}

// StepKind is what a Step reports.
type StepKind uint8

// Step kinds, in the terms of LogGOPSim's event loop.
const (
	// StepCalc: calc Op started on CPU slot CPU at T and holds it until
	// CPUEnd.
	StepCalc StepKind = iota + 1
	// StepSend: send Op started at T on CPU slot CPU and NIC slot NIC,
	// which it holds until CPUEnd and NICEnd.
	StepSend
	// StepPost: receive Op was posted (started) at T.
	StepPost
	// StepProcess: the message of send Op was received at T by its
	// receiver's CPU slot CPU and NIC slot NIC, held until CPUEnd and
	// NICEnd.
	StepProcess
	// StepMatch: the message of send Op matched receive Peer at T, which
	// completes the receive.
	StepMatch
	// StepRendezvous: rendezvous send Op completed at T, moving its
	// sender's CPU slot CPU and NIC slot NIC to at least T.
	StepRendezvous
)

// Step is one change of the engine's state that moves a resource's clock
// or completes an operation (see StepObserver). CPU and NIC are slots:
// host·CPUs + cpu and host·NICs + nic.
type Step struct {
	Kind           StepKind
	Op, Peer       int32
	CPU, NIC       int32
	T              int64
	CPUEnd, NICEnd int64
}

// StepObserver is a QueueObserver that is also told every Step, in the
// order the engine takes them. Together with Queued it gives the order of
// operations on every resource and the clock each queued operation read,
// from which package optimize/bound writes the engine's recurrences as
// linear rows.
type StepObserver interface {
	QueueObserver
	Step(s Step)
}

// Options controls a replay. The zero value replays recorded durations and
// observes nothing.
type Options struct {
	Pricer   CalcPricer
	Observer Observer
	// LibstdcxxOrder orders operations that a host frees together exactly as
	// LogGOPSim built with GCC does: std::sort by type, which is not stable
	// beyond 16 operations. Equal-type operations then get posted out of
	// program order, so receives can match messages meant for other
	// receives; on a ring allreduce of 9 or more ranks (more than 16
	// operations free at the start) that deadlocks. By default capsim
	// keeps program order among equal types (a stable sort), which agrees
	// with LogGOPSim whenever at most 16 operations are freed together, as
	// on every schedule of the conformance set.
	LibstdcxxOrder bool
	// LogGOPSimSizes pairs sizes as LogGOPSim does, for schedules whose
	// receives are not the sizes of the messages they match (random
	// schedules, hand-written GOAL): no receive is checked against its
	// message (see TruncationError), and a message that arrived before its
	// receive was posted is eager or rendezvous by the receive's size.
	// By default the message's size decides, wherever it arrived.
	LogGOPSimSizes bool
	// Classes, when set, gives messages their own network parameters (see
	// network.Classify): the message of send op uses
	// Classes.Params[Classes.Of[op]] for every charge it causes, on the
	// sender and on the receiver, and for the eager/rendezvous decision.
	// The net passed to Run is then not used for messages.
	Classes *network.Classes
	// Device, when set, has an entry per operation: the shared device
	// (an accelerator several ranks offload to) that runs calc operation
	// op, numbered from 0, or −1 where op runs on its rank's CPU. A device
	// runs one calc at a time, in the order their ranks reach them; a rank
	// whose calc waits for a busy device is blocked (its CPU neither
	// computes nor serves other operations) until the device has run it.
	// The pricer is asked with the time the calc starts on the device.
	Device []int32
	// DeviceNs, when set alongside Device, is per operation how long a
	// calc holds its device: its first DeviceNs[op] ns (at most its
	// duration) run there and the rest on its rank's CPU, as when a
	// schedule splits a task between the device and the host. A negative
	// entry holds the device for the whole calc.
	DeviceNs []int64
	// Flow, when set, replays messages between nodes as flows sharing the
	// links of a topology (see FlowNetwork) instead of pricing their bytes
	// with G. Left nil, the replay is LogGOPS as described above.
	Flow *FlowNetwork
	// Release, when set, has an entry per operation: the earliest time a
	// calc or a send may start, in ns (a schedule that starts its
	// operations when a plan says, as the replay of the LP bound's
	// schedule does); entries of receives and entries ≤ 0 are ignored.
	Release []int64
	// ReleaseMsg, when set, has an entry per operation: for a send, the
	// earliest time its message may be processed at the receiver, in ns
	// (with Release, a replay that keeps a plan's order on every CPU and
	// NIC); other entries and entries ≤ 0 are ignored.
	ReleaseMsg []int64
	// Scratch, when set, lends the replay its memory for the engine's
	// per-operation and per-host state, and keeps it for the next replay
	// given the same Scratch (see Scratch).
	Scratch *Scratch
	// noReadyQueues puts every operation that finds its CPU busy back in
	// the event queue, as LogGOPSim does, instead of in its CPU's ready
	// queue (see ready.go): the reference the ready queues are tested
	// against.
	noReadyQueues bool
}

// Scratch is memory that replays made one after another reuse: where
// Options.Scratch is the same, a replay keeps the engine's per-operation
// state (about 40 bytes an operation) of the one before instead of
// allocating it again, as a search that replays one graph under many
// schedules does (the lp policy's headroom search in package scenarios).
// It changes no result. A Scratch serves one replay at a time; the zero
// value is ready to use.
type Scratch struct {
	ops                      []opRec
	succ                     []int32
	pool                     []qentry
	hosts                    []hostRec
	sent, arrived, processed []uint64
	heap, run                []event
	cpuq                     []cpuQueue
	parked                   []parked
}

// keep takes back the memory of a finished replay's engine.
func (s *Scratch) keep(e *engine) {
	s.ops, s.succ, s.pool, s.hosts = e.ops, e.succ, e.pool, e.hosts
	s.heap, s.run = e.q.heap, e.q.run
	s.cpuq, s.parked = e.cpuq, e.parked
	if e.sent != nil {
		s.sent, s.arrived, s.processed = e.sent, e.arrived, e.processed
	}
}

// zeroed returns a slice of n zero values in buf's memory where it holds
// n, else a new one, and whether it is new.
func zeroed[T any](buf []T, n int) ([]T, bool) {
	if cap(buf) >= n {
		buf = buf[:n]
		clear(buf)
		return buf, false
	}
	return make([]T, n), true
}

// RankStats is where one rank's time went.
type RankStats struct {
	Finish  int64 // when the rank's last CPU became free
	Compute int64 // time in calc operations (summed over CPUs)
	Comm    int64 // CPU overhead of sends and receives (summed over CPUs)
	Wait    int64 // Finish − start − Compute − Comm, at least 0: time blocked or idle after the rank started (graph.Graph.StartNs)
}

// Result is the outcome of a replay.
type Result struct {
	Makespan int64
	Ranks    []RankStats
	Events   int64 // events processed
	// With Options.Flow: the flows started and finished, and per-link
	// statistics indexed by link id.
	FlowEvents int64
	Links      []flow.LinkStats
}

// Event types. The first three are also the order in which operations
// that become ready together are queued (LogGOPSim sorts by this type).
const (
	evSend uint8 = 1 + iota
	evRecv
	evCalc
	evMsg
	evFlow      // a flow's completion (Options.Flow, taken from flowEngine.timers); op is the flow
	evFlowStart // a flow's bytes start after its route's latency (every flow timing but FlowNetwork.BytesFirst)
)

// Operation states, as state reports them.
const (
	stWaiting uint8 = iota
	stReady
	stStarted
	stDone
)

// opRec is an operation's hot record: what an event reads of one
// operation, kept together so that a rank's current position in the
// replay touches one cache line of it instead of one line in each of the
// graph's columns. It is built once, from the graph's columns, when the
// engine starts, and replaces them in the event loop (the graph's Tag
// column is still read when a message is matched, its Size column for
// sizes the record cannot hold, and its CPU and NIC columns where hosts
// have several). Its fields:
//
//   - succ: where the operation's successor list starts (the list ends
//     where the next operation's starts), with irqBit set when it has
//     irequires successors;
//   - rem: the number of its unmet dependencies (> 0: waiting, 0: ready)
//     or, once it has started, remStarted or remDone;
//   - pk: its peer (graph.Graph.Peer; -1 for a calc) shifted left by 3
//     (a peer is a rank, at most graph.MaxRanks = 2^22), above chainBit
//     and its event type (evSend, evRecv or evCalc), which release reads
//     to queue it;
//   - sz: its size (graph.Graph.Size) where that is 0..math.MaxInt32, else
//     -1 (see size): calcs and sends then read no column at all.
type opRec struct {
	succ int32
	rem  int32
	pk   int32
	sz   int32
}

// hostRec is a host's hot record: when its CPU is next free (o) and its
// NIC next free to receive (gr) and to send (gs), where the host has one
// CPU and one NIC; the time its rank spent computing and communicating so
// far; and its posted-receive (rq) and unexpected-message (uq) queues. An
// event at a host reads and writes one cache line of it instead of one in
// each of six per-host arrays.
type hostRec struct {
	o, gr, gs     uint64
	compute, comm int64
	rq, uq        queue
	_             [8]byte // 64 bytes: one cache line
}

// cpuAt returns the clock of CPU slot c (host·CPUs + cpu).
func (e *engine) cpuAt(c int) *uint64 {
	if e.multi {
		return &e.nexto[c]
	}
	return &e.hosts[c].o
}

// nicRAt and nicSAt return the receive and send clocks of NIC slot n
// (host·NICs + nic).
func (e *engine) nicRAt(n int) *uint64 {
	if e.multi {
		return &e.nextgr[n]
	}
	return &e.hosts[n].gr
}

func (e *engine) nicSAt(n int) *uint64 {
	if e.multi {
		return &e.nextgs[n]
	}
	return &e.hosts[n].gs
}

// typ returns the record's event type: evSend, evRecv or evCalc.
func (r *opRec) typ() uint8 { return uint8(r.pk & 3) }

// chainBit, in opRec.pk, marks an operation whose only successor is the
// next operation, by a requires dependency (a rank's chain of blocking
// operations): release then frees it without reading the successor list.
const chainBit = 4

// peer returns the record's peer rank (graph.AnySource on a wildcard
// receive, -1 on a calc).
func (r *opRec) peer() int32 { return r.pk >> 3 }

// size returns operation op's size, whose record is r.
func (e *engine) size(op int32, r *opRec) int64 {
	if r.sz >= 0 {
		return int64(r.sz)
	}
	return e.g.Size[op]
}

// rem values of started and completed operations, and (in a streaming
// replay) of a send whose message its receiver has processed before the
// send completed.
const (
	remStarted int32 = -1
	remDone    int32 = -2
	remMsgIn   int32 = -3
)

// state returns op's state.
func (e *engine) state(op int32) uint8 {
	switch r := e.ops[op].rem; {
	case r > 0:
		return stWaiting
	case r == 0:
		return stReady
	case r == remStarted:
		return stStarted
	}
	return stDone
}

// The replay engine's events (type eventQueue's event) are queued
// operations or messages. seq packs the first-queued order (the
// tie-breaker at equal times) above the event type, so (time, seq) orders
// events as LogGOPSim's (time, ts) does. rank is the rank that owns op; a
// message executes on op's peer, the receiver.
func (ev *event) typ() uint8 { return uint8(ev.seq & 7) }

// qentry is an entry of a posted-receive or unexpected-message queue.
type qentry struct {
	src, tag int32
	op       int32 // the receive (posted queue) or the send (unexpected queue)
	next     int32
}

type queue struct{ head, tail int32 }

// irqBit marks an irequires successor in the successor lists.
const irqBit int32 = -1 << 31

type readyOp struct {
	host int32
	op   int32
	typ  uint8
}

type engine struct {
	g   *graph.Graph
	net network.LogGOPS
	opt Options

	ncpu, nnic int
	multi      bool // ncpu > 1 || nnic > 1
	// offload: the NIC works apart from the CPU (network.LogGOPS.Offload
	// with the LogGP variant, without Options.Flow).
	offload bool
	// Per host, what an event reads and writes of its rank (hostRec):
	// one cache line. Where the hosts have several CPUs or NICs (multi),
	// their clocks are in nexto, nextgr and nextgs instead (see cpuAt).
	hosts   []hostRec
	nexto   []uint64 // [host*ncpu+cpu], multi only
	nextgr  []uint64 // [host*nnic+nic], multi only
	nextgs  []uint64 // multi only
	devFree []uint64 // per shared device (Options.Device): when it is next free

	// Per operation (and one past the last), its state (opRec). Its
	// successors are succ[ops[i].succ:ops[i+1].succ] (without irqBit, which
	// ops[i].succ has where i has irequires successors): entries with the
	// irqBit set are released when i starts, the others when it
	// completes.
	ops  []opRec
	succ []int32
	// tag is each operation's tag, indexed as ops: the graph's Tag column,
	// or with a stream the pages' tags.
	tag []int32
	// str, when not nil, is the streaming replay's state (RunSource): ops,
	// succ and tag are then pages of each rank's operations in flight.
	str *stream
	err error // a failure of the stream, which stops the loop
	// The operations without dependencies start the replay at time 0,
	// host by host (seed); they are taken in that order before any queued
	// event (they are the first events in (time, seq) order), without
	// being queued: seedRank is the next host to collect, seeds its
	// collected operations and seedNext the next of them.
	seedRank int
	seeds    []readyOp
	seedNext int
	seedTs   uint64

	q       eventQueue
	ts      uint64
	pending []readyOp
	sent    []uint64 // per send op, when it started (only with an Observer)
	// Per send op, when the receiver's CPU processed its message if it
	// arrived unexpected (only with an Observer): reported as the
	// receive's busy time once a receive matches it.
	arrived, processed []uint64
	qobs               QueueObserver
	sobs               StepObserver

	// The entries of the hosts' receive queues (hostRec.rq, uq), with a
	// free list.
	pool []qentry
	free int32

	// Per CPU slot, the operations waiting for it (see ready.go), linked
	// in parked with a free list from parkFree; handoff is the slot whose
	// token the last event was, -1 if none.
	cpuq     []cpuQueue
	parked   []parked
	parkFree int32
	handoff  int

	events int64
	fl     *flowEngine // nil unless Options.Flow has links
}

// Run replays g under the LogGOPS parameters net.
func Run(g *graph.Graph, net network.LogGOPS, opt Options) (*Result, error) {
	if err := net.Validate(); err != nil {
		return nil, err
	}
	if opt.Classes != nil {
		if err := opt.Classes.Validate(g.NumOps()); err != nil {
			return nil, err
		}
	}
	if err := graph.ValidateStarts(g.StartNs, g.NumRanks()); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	ndev := 0
	if opt.Device != nil {
		if len(opt.Device) != g.NumOps() {
			return nil, fmt.Errorf("sim: %d device entries for %d operations", len(opt.Device), g.NumOps())
		}
		for op, d := range opt.Device {
			if d < -1 || (d >= 0 && g.Kind[op] != graph.Calc) {
				return nil, fmt.Errorf("sim: operation %d (%s): device %d (want −1, or a device ≥ 0 for a calc)", op, g.Describe(int32(op)), d)
			}
			ndev = max(ndev, int(d)+1)
		}
		if opt.DeviceNs != nil && len(opt.DeviceNs) != g.NumOps() {
			return nil, fmt.Errorf("sim: %d device times for %d operations", len(opt.DeviceNs), g.NumOps())
		}
	} else if opt.DeviceNs != nil {
		return nil, fmt.Errorf("sim: device times without a device map")
	}
	if opt.Release != nil && len(opt.Release) != g.NumOps() || opt.ReleaseMsg != nil && len(opt.ReleaseMsg) != g.NumOps() {
		return nil, fmt.Errorf("sim: %d and %d release times for %d operations", len(opt.Release), len(opt.ReleaseMsg), g.NumOps())
	}
	e, err := newEngine(g, net, opt)
	if err != nil {
		return nil, err
	}
	if opt.Flow != nil {
		fe, err := newFlowEngine(opt.Flow, g.NumRanks())
		if err != nil {
			return nil, err
		}
		e.fl = fe
		if fe != nil {
			fe.obs, _ = opt.Observer.(LinkObserver)
			if !fe.alone {
				fe.order.reserve(g.NumOps(), g.NumRanks())
			}
		}
	}
	e.devFree = make([]uint64, ndev)
	if opt.Scratch != nil {
		defer opt.Scratch.keep(e)
	}
	e.seed()
	if err := e.loop(); err != nil {
		return nil, err
	}
	return e.finish()
}

// maxT is graph.MaxTimeNs as the engine's unsigned time. Every time the
// engine holds is at most maxT and every charge at most 2·maxT+1, so the
// few additions an event makes cannot overflow before they are checked.
const maxT = uint64(graph.MaxTimeNs)

// TimeLimitError reports a replay in which a time would exceed
// graph.MaxTimeNs.
type TimeLimitError struct {
	OpID int32  // the graph operation
	Op   string // the operation, as graph.Describe gives it or, after Rewrite, in the trace's terms
	What string // the time that grew too large
}

// Rewrite describes the operation again with describe (for instance in
// the MPI terms of the trace the graph was lowered from:
// lower.EventMap.Describer).
func (e *TimeLimitError) Rewrite(describe func(op int32) string) { e.Op = describe(e.OpID) }

func (e *TimeLimitError) Error() string {
	return fmt.Sprintf("replay: %s: %s exceeds %d ns (graph.MaxTimeNs, about 31.7 years)", e.Op, e.What, graph.MaxTimeNs)
}

func (e *engine) tooLate(op int32, what string) error {
	if e.g == nil {
		return &WholeGraphError{Feature: "naming the operation whose time exceeds graph.MaxTimeNs"}
	}
	return &TimeLimitError{OpID: op, Op: e.g.Describe(op), What: what}
}

func newEngine(g *graph.Graph, net network.LogGOPS, opt Options) (*engine, error) {
	nr := g.NumRanks()
	if nr > graph.MaxRanks {
		return nil, fmt.Errorf("sim: %d ranks exceed graph.MaxRanks (%d)", nr, graph.MaxRanks)
	}
	e := &engine{g: g, net: net, opt: opt, free: -1, offload: net.Offload && net.LogGP && opt.Flow == nil}
	scr := opt.Scratch
	if scr == nil {
		scr = &Scratch{}
	}
	roots, recvs, err := e.build(g, g.RankStart, buildWindow, scr)
	if err != nil {
		return nil, err
	}
	e.tag = g.Tag
	e.initState(scr, g.NumRanks(), g.NumOps(), roots, recvs)
	e.startClocks()
	return e, nil
}

// initState sizes the per-host state of nr ranks, the event queue, the
// receive pool and the observer's arrays for n operations.
func (e *engine) initState(scr *Scratch, nr, n, roots, recvs int) {
	opt := e.opt
	e.multi = e.ncpu > 1 || e.nnic > 1
	e.hosts, _ = zeroed(scr.hosts, nr)
	for r := range e.hosts {
		e.hosts[r].rq = queue{-1, -1}
		e.hosts[r].uq = queue{-1, -1}
	}
	if e.multi {
		e.nexto = make([]uint64, nr*e.ncpu)
		e.nextgr = make([]uint64, nr*e.nnic)
		e.nextgs = make([]uint64, nr*e.nnic)
	}
	// The seeds are taken first with sequence numbers 0..roots-1; queued
	// events follow them. At a time, about one event per rank waits.
	e.ts = uint64(roots)
	e.q.initFrom(max(1024, nr), scr.heap, scr.run)
	e.initReady(scr, nr*e.ncpu)
	// Posted receives usually dominate the matching queues; size the pool
	// for all of them at once rather than growing it.
	if e.pool = scr.pool[:0]; cap(e.pool) < recvs {
		e.pool = make([]qentry, 0, recvs)
		hugepage.Advise(e.pool)
	}
	if opt.Observer != nil {
		e.sent, _ = zeroed(scr.sent, n)
		e.arrived, _ = zeroed(scr.arrived, n)
		e.processed, _ = zeroed(scr.processed, n)
		e.qobs, _ = opt.Observer.(QueueObserver)
		e.sobs, _ = opt.Observer.(StepObserver)
	}
}

func typeOf(k graph.OpKind) uint8 {
	switch k {
	case graph.Send:
		return evSend
	case graph.Recv:
		return evRecv
	}
	return evCalc
}

// seed tells a QueueObserver that every operation without dependencies
// is queued at its rank's start (0 unless graph.Graph.StartNs says),
// host by host, in the order the loop takes them
// (nextSeed).
func (e *engine) seed() {
	if e.qobs == nil {
		return
	}
	for r := range e.hosts {
		e.seeds = e.collectSeeds(e.seeds[:0], r)
		for _, p := range e.seeds {
			e.qobs.Queued(p.op, int64(e.startOf(p.host)))
		}
	}
	e.seeds = e.seeds[:0]
}

// seedRange returns the engine ids from which rank r's operations without
// dependencies are collected: the whole rank, or in a streaming replay
// the rank's first page.
func (e *engine) seedRange(r int) (lo, hi int32) {
	if e.str != nil {
		return e.str.seedRange(r)
	}
	return e.g.RankStart[r], e.g.RankStart[r+1]
}

// collectSeeds appends rank r's operations without dependencies to p, in
// the order they are queued (by type, as freed operations are).
func (e *engine) collectSeeds(p []readyOp, r int) []readyOp {
	lo, hi := e.seedRange(r)
	for id := lo; id < hi; id++ {
		if e.ops[id].rem == 0 {
			p = append(p, readyOp{host: int32(r), op: id, typ: e.ops[id].typ()})
		}
	}
	sortPending(p, e.opt.LibstdcxxOrder)
	return p
}

// nextSeed returns the next operation without dependencies as an event
// at time 0, or false when all have been taken; those of ranks that
// start later go to the queue at their rank's start instead.
func (e *engine) nextSeed() (event, bool) {
	for {
		for e.seedNext == len(e.seeds) {
			if e.seedRank == len(e.hosts) {
				return event{}, false
			}
			e.seeds, e.seedNext = e.collectSeeds(e.seeds[:0], e.seedRank), 0
			e.seedRank++
		}
		p := e.seeds[e.seedNext]
		e.seedNext++
		ev := event{time: e.startOf(p.host), seq: e.seedTs<<3 | uint64(p.typ), op: p.op, rank: p.host}
		e.seedTs++
		if ev.time == 0 {
			return ev, true
		}
		e.q.push(ev) // a rank that starts later (graph.Graph.StartNs)
	}
}

// startOf returns when rank starts (graph.Graph.StartNs; 0 in a
// streaming replay, whose sources have no starts).
func (e *engine) startOf(rank int32) uint64 {
	if e.g == nil {
		return 0
	}
	return uint64(e.g.RankStartNs(int(rank)))
}

// startClocks sets every CPU and NIC clock of a rank that starts later
// (graph.Graph.StartNs) to its start: none of its operations, nor the
// processing of a message sent to it, happens earlier.
func (e *engine) startClocks() {
	for r, s := range e.g.StartNs {
		t := uint64(s)
		h := &e.hosts[r]
		h.o, h.gr, h.gs = t, t, t
		if !e.multi {
			continue
		}
		for c := r * e.ncpu; c < (r+1)*e.ncpu; c++ {
			e.nexto[c] = t
		}
		for n := r * e.nnic; n < (r+1)*e.nnic; n++ {
			e.nextgr[n], e.nextgs[n] = t, t
		}
	}
}

// sortPending orders ready operations by host, keeping the order in which
// each host's became ready (a stable insertion sort: the list is short),
// then sorts each host's run by type: stably, or as LogGOPSim's std::sort
// does when libstdcxx is set.
func sortPending(p []readyOp, libstdcxx bool) {
	for i := 1; i < len(p); i++ {
		x := p[i]
		j := i
		for j > 0 && p[j-1].host > x.host {
			p[j] = p[j-1]
			j--
		}
		p[j] = x
	}
	for lo := 0; lo < len(p); {
		hi := lo + 1
		for hi < len(p) && p[hi].host == p[lo].host {
			hi++
		}
		if libstdcxx {
			stdSort(p[lo:hi])
		} else {
			stableByType(p[lo:hi])
		}
		lo = hi
	}
}

func stableByType(p []readyOp) {
	for i := 1; i < len(p); i++ {
		x := p[i]
		j := i
		for j > 0 && p[j-1].typ > x.typ {
			p[j] = p[j-1]
			j--
		}
		p[j] = x
	}
}

// flush queues the operations made ready by the last event, which
// happened at now: at the time the operation's CPU is free, as LogGOPSim
// does, or for a causal graph (graph.Graph.Causal) no earlier than now.
func (e *engine) flush(now uint64) {
	if len(e.pending) == 0 {
		return
	}
	sortPending(e.pending, e.opt.LibstdcxxOrder)
	g := e.g
	for _, p := range e.pending {
		h := int(p.host)
		var t uint64
		if !e.multi {
			t = e.hosts[h].o
			if p.typ == evSend && !e.offload {
				t = max(t, e.hosts[h].gs)
			}
		} else {
			t = e.nexto[h*e.ncpu+int(g.CPU[p.op])]
			if g.Causal {
				t = max(t, now)
			}
			if p.typ == evSend && !e.offload {
				t = max(t, e.nextgs[h*e.nnic+int(g.NIC[p.op])])
			}
		}
		e.q.push(event{time: t, seq: e.ts<<3 | uint64(p.typ), op: p.op, rank: p.host})
		e.ts++
		if e.qobs != nil {
			e.qobs.Queued(p.op, int64(t))
		}
	}
	e.pending = e.pending[:0]
}

// release releases the successors of op (on rank) of one kind: those
// marked with irqBit when started is true, the others otherwise.
func (e *engine) release(op, rank int32, started bool) {
	r := &e.ops[op]
	lo := r.succ
	if started && lo >= 0 {
		return // no irequires successor
	}
	if !started && r.pk&chainBit != 0 {
		s := &e.ops[op+1]
		if s.rem--; s.rem == 0 {
			e.pending = append(e.pending, readyOp{host: rank, op: op + 1, typ: s.typ()})
		}
		return
	}
	if e.str != nil && op>>pageShift == e.str.front[rank] {
		// The rank's open page (whose records have irqBit set and no
		// chainBit, so that its operations come here): read the next
		// window, which completes the page's successor lists.
		e.advance(rank)
		if r = &e.ops[op]; started && r.succ >= 0 {
			return
		}
		lo = r.succ
	}
	for _, v := range e.succ[lo&^irqBit : e.ops[op+1].succ&^irqBit] {
		if (v < 0) != started {
			continue
		}
		s := &e.ops[v&^irqBit]
		if s.rem--; s.rem == 0 {
			e.pending = append(e.pending, readyOp{host: rank, op: v &^ irqBit, typ: s.typ()})
		}
	}
}

func (e *engine) markStarted(op, rank int32) {
	if e.ops[op].rem >= 0 {
		e.ops[op].rem = remStarted
	}
	e.release(op, rank, true)
}

func (e *engine) markDone(op, rank int32) {
	r := &e.ops[op]
	retire := e.str != nil && (r.typ() != evSend || r.rem == remMsgIn)
	r.rem = remDone
	e.release(op, rank, false)
	if retire {
		e.retire(op)
	}
}

// addNs adds a possibly negative charge to a time, stopping at 0 where
// LogGOPSim's unsigned time would wrap around.
func addNs(t uint64, d int64) uint64 {
	if d < 0 && uint64(-d) > t {
		return 0
	}
	return uint64(int64(t) + d)
}

// loop runs the events until the queue is empty, or until a time would
// exceed maxT.
//
// loop stays one function although it is longer than a screen: it is the
// hot path, run once per event, and keeping the LogGP parameters and the
// graph in locals and each kind of event inline in one switch (as the
// simulator loop of LogGOPSim does, Hoefler, Schneider, Lumsdaine,
// HPDC'10) avoids a call and reloading that state per event. Its cases are the event kinds,
// each commented where it starts.
func (e *engine) loop() error {
	g := e.g
	o := e.net.Overhead
	gap := e.net.Gap
	L := uint64(e.net.Latency)
	G := e.net.GapPerByte
	O := e.net.OverheadPerByte
	S := e.net.EagerLimit
	H := e.net.HeaderBytes // header bytes on the wire (priced by G only)
	loggp := e.net.LogGP   // the LogGP variant (see package network)
	offload := e.offload   // the NIC apart from the CPU (see package network)
	flows := e.fl != nil   // the flow model (Options.Flow)
	obs := e.opt.Observer
	multi := e.multi
	var class []uint8
	var classes []network.LogGOPS
	if c := e.opt.Classes; c != nil {
		class, classes = c.Of, c.Params
	}
	var last uint64 // the time of the last event
	for {
		e.handOff(last)
		ev, ok := e.nextSeed()
		if !ok {
			if flows && e.fl.timers.due(&e.q) {
				// A flow completes (Options.Flow): an evFlow event,
				// op the flow.
				t := e.fl.timers.pop()
				ev = event{time: t.time, seq: t.seq, op: t.id}
			} else if !e.q.queued() {
				break
			} else {
				ev = e.q.pop()
			}
		}
		e.events++
		last = ev.time
		token := ev.rank&tokenBit != 0
		nicIn := ev.rank&nicInBit != 0 // a message whose bytes its NIC took (offload)
		ev.rank &^= tokenBit | nicInBit
		op := ev.op
		typ := ev.typ()
		rank := ev.rank
		h := int(rank)
		if typ == evMsg {
			h = int(e.ops[op].peer())
		}
		cpu, nic := h, h // one CPU and one NIC a host: their columns are all 0
		if multi {
			cpu = h*e.ncpu + int(g.CPU[op])
			nic = h*e.nnic + int(g.NIC[op])
		}
		if token {
			e.tokenTaken(cpu)
		}
		hr := &e.hosts[h]
		t := ev.time
		switch typ {
		case evCalc:
			if e.opt.Release != nil && e.opt.Release[op] > 0 && uint64(e.opt.Release[op]) > t {
				ev.time = uint64(e.opt.Release[op])
				e.q.push(ev)
				continue
			}
			ocpu := e.cpuAt(cpu)
			if *ocpu > t {
				e.wait(ev, cpu, *ocpu)
				continue
			}
			dev := int32(-1)
			if e.opt.Device != nil {
				dev = e.opt.Device[op]
			}
			start := t
			if dev >= 0 {
				start = max(t, e.devFree[dev])
			}
			d := e.size(op, &e.ops[op])
			if e.opt.Pricer != nil {
				d = e.opt.Pricer.CalcDuration(op, int64(start))
				if d < 0 {
					d = 0
				}
			}
			end := start + uint64(d)
			if max(uint64(d), end) > maxT {
				if uint64(d) > maxT {
					return e.tooLate(op, fmt.Sprintf("its duration %d ns", d))
				}
				return e.tooLate(op, fmt.Sprintf("its end at %d + %d ns", start, d))
			}
			*ocpu = end
			if dev >= 0 {
				e.devFree[dev] = end
				if e.opt.DeviceNs != nil {
					if h := e.opt.DeviceNs[op]; h >= 0 && h < d {
						e.devFree[dev] = start + uint64(h)
					}
				}
			}
			if hr.compute += d; hr.compute > int64(maxT) {
				return e.tooLate(op, fmt.Sprintf("rank %d's total compute time", h))
			}
			if e.sobs != nil {
				e.sobs.Step(Step{Kind: StepCalc, Op: op, Peer: -1, CPU: int32(cpu), NIC: -1, T: int64(start), CPUEnd: int64(end), NICEnd: -1})
			}
			if obs != nil {
				obs.Busy(op, int64(start), int64(start)+d)
			}
			e.markStarted(op, rank)
			e.markDone(op, rank)

		case evSend:
			if e.opt.Release != nil && e.opt.Release[op] > 0 && uint64(e.opt.Release[op]) > t {
				ev.time = uint64(e.opt.Release[op])
				e.q.push(ev)
				continue
			}
			ocpu, onic := e.cpuAt(cpu), e.nicSAt(nic)
			if ready := max(*ocpu, *onic); ready > t && (!offload || *ocpu > t) {
				if offload { // the bytes queue on the NIC
					e.wait(ev, cpu, *ocpu)
				} else {
					e.requeue(ev, cpu, *ocpu, *onic)
				}
				continue
			}
			if class != nil {
				p := &classes[class[op]] // the message's parameters
				o, gap, L, G, O, S, H = p.Overhead, p.Gap, uint64(p.Latency), p.GapPerByte, p.OverheadPerByte, p.EagerLimit, p.HeaderBytes
			}
			e.markStarted(op, rank)
			size := e.size(op, &e.ops[op])
			busy := o + O.Charge(size)
			cpuEnd := addNs(t, busy)
			wire := network.WireBytes(size, H)
			inject := max(t, *onic) // t, unless the send queued on its NIC (offload)
			nicEnd := addNs(inject, gap+G.Charge(wire))
			arrive := inject + uint64(o) + L
			if loggp {
				arrive += uint64(max(0, G.Charge(wire)))
			}
			if flows {
				// The links take the bytes: the NIC only its gap, and
				// o + L is the earliest arrival.
				nicEnd, arrive = addNs(t, gap), t+uint64(o)+L
			}
			comm := hr.comm + max(0, busy)
			if max(cpuEnd, nicEnd, arrive, uint64(comm)) > maxT {
				return e.tooLate(op, fmt.Sprintf("the send's end (CPU %d ns, NIC %d ns), arrival (%d ns) or rank %d's total communication time (%d ns)", cpuEnd, nicEnd, arrive, h, comm))
			}
			*ocpu, *onic, hr.comm = cpuEnd, nicEnd, comm
			if e.sobs != nil {
				e.sobs.Step(Step{Kind: StepSend, Op: op, Peer: -1, CPU: int32(cpu), NIC: int32(nic), T: int64(t), CPUEnd: int64(cpuEnd), NICEnd: int64(nicEnd)})
			}
			if obs != nil {
				obs.Busy(op, int64(t), int64(cpuEnd))
			}
			if !flows {
				e.q.push(event{time: arrive, seq: e.ts<<3 | uint64(evMsg), op: op, rank: rank})
				e.ts++
			} else {
				e.sendFlow(op, rank, t, uint64(o)+L, G, wire)
			}
			if e.sent != nil {
				e.sent[op] = t
			}
			if size <= S {
				e.markDone(op, rank)
			}

		case evRecv:
			e.markStarted(op, rank)
			rec := &e.ops[op] // after markStarted, which may read more of a stream
			if e.sobs != nil {
				e.sobs.Step(Step{Kind: StepPost, Op: op, Peer: -1, CPU: int32(cpu), NIC: -1, T: int64(t), CPUEnd: -1, NICEnd: -1})
			}
			if m := e.match(&hr.uq, rec.peer(), e.tag[op]); m >= 0 {
				ent := e.pool[m]
				e.freeEntry(m)
				if e.sobs != nil {
					e.sobs.Step(Step{Kind: StepMatch, Op: ent.op, Peer: op, CPU: -1, NIC: -1, T: int64(t), CPUEnd: -1, NICEnd: -1})
				}
				if class != nil {
					p := &classes[class[ent.op]] // the message's parameters
					o, gap, L, G, O, S, H = p.Overhead, p.Gap, uint64(p.Latency), p.GapPerByte, p.OverheadPerByte, p.EagerLimit, p.HeaderBytes
				}
				// The message's size decides the protocol (see checksSize
				// and Options.LogGOPSimSizes where the receive's differs).
				sz := e.size(ent.op, &e.ops[ent.op])
				if rsz := e.size(op, rec); sz != rsz {
					if sz > rsz && e.checksSize(rec.peer(), e.tag[op]) {
						return e.truncated(ent.op, op)
					}
					if e.opt.LogGOPSimSizes {
						sz = rsz
					}
				}
				if sz > S { // rendezvous: the sender completes now
					e.rendezvousDone(ent.op, int(ent.src), op, t)
				}
				if obs != nil {
					// The message arrived first; its processing is this receive's.
					obs.Busy(op, int64(e.arrived[ent.op]), int64(e.processed[ent.op]))
					obs.Message(ent.op, op, int64(e.sent[ent.op]), int64(t))
				}
				e.markDone(op, rank)
			} else {
				e.enqueue(&hr.rq, qentry{src: rec.peer(), tag: e.tag[op], op: op})
			}

		case evMsg:
			if e.opt.ReleaseMsg != nil && e.opt.ReleaseMsg[op] > 0 && uint64(e.opt.ReleaseMsg[op]) > t {
				ev.time = uint64(e.opt.ReleaseMsg[op])
				e.q.push(ev)
				continue
			}
			if flows && !e.fl.alone && !e.fl.inOrder(op) {
				continue // held until the channel's earlier messages arrive
			}
			ocpu, onic := e.cpuAt(cpu), e.nicRAt(nic)
			if class != nil {
				p := &classes[class[op]] // the message's parameters
				o, gap, L, G, O, S, H = p.Overhead, p.Gap, uint64(p.Latency), p.GapPerByte, p.OverheadPerByte, p.EagerLimit, p.HeaderBytes
			}
			size := e.size(op, &e.ops[op])
			wire := network.WireBytes(size, H)
			if offload && !nicIn {
				// The bytes came in over the (w-1)·G before t: the NIC
				// takes them if it was free when they began, whatever the
				// CPU does, and is free again g after t.
				if in := addNs(*onic, G.Charge(wire)); in > t {
					ev.time = in
					e.q.push(ev)
					continue
				}
				*onic, nicIn = addNs(t, gap), true
			}
			if *ocpu > t || !nicIn && *onic > t {
				if nicIn {
					ev.rank |= nicInBit
					e.wait(ev, cpu, *ocpu)
				} else {
					e.requeue(ev, cpu, *ocpu, *onic)
				}
				continue
			}
			if flows && !e.fl.alone {
				e.delivered(op, rank, t)
			}
			busy := o + network.RecvCharge(size, wire, O, G)
			gapr := gap + G.Charge(wire)
			if loggp || flows {
				busy = o + max(0, O.Charge(size))
				if flows {
					gapr = gap
				}
			}
			cpuEnd := addNs(t, busy)
			nicEnd := addNs(t, gapr)
			if nicIn {
				nicEnd = *onic
			}
			comm := hr.comm + max(0, busy)
			if max(cpuEnd, nicEnd, uint64(comm)) > maxT {
				return e.tooLate(op, fmt.Sprintf("its receipt's end at rank %d (CPU %d ns, NIC %d ns) or rank %d's total communication time (%d ns)", h, cpuEnd, nicEnd, h, comm))
			}
			*ocpu, *onic, hr.comm = cpuEnd, nicEnd, comm
			if e.sobs != nil {
				e.sobs.Step(Step{Kind: StepProcess, Op: op, Peer: -1, CPU: int32(cpu), NIC: int32(nic), T: int64(t), CPUEnd: int64(cpuEnd), NICEnd: int64(nicEnd)})
			}
			src := rank // the sender
			tag := e.tag[op]
			recv := int32(-1)
			if e.str != nil {
				recv = e.matchStream(h, src, tag)
			} else if m := e.match(&hr.rq, src, tag); m >= 0 {
				recv = e.pool[m].op
				e.freeEntry(m)
			}
			if recv >= 0 {
				if r := &e.ops[recv]; size > e.size(recv, r) && e.checksSize(r.peer(), e.tag[recv]) {
					return e.truncated(op, recv)
				}
				if e.sobs != nil {
					e.sobs.Step(Step{Kind: StepMatch, Op: op, Peer: recv, CPU: -1, NIC: -1, T: int64(t), CPUEnd: -1, NICEnd: -1})
				}
				if size > S {
					e.rendezvousDone(op, int(src), op, t)
				}
				if obs != nil {
					obs.Busy(recv, int64(t), int64(cpuEnd))
					obs.Message(op, recv, int64(e.sent[op]), int64(t))
				}
				e.markDone(recv, int32(h))
			} else {
				if obs != nil {
					e.arrived[op], e.processed[op] = t, cpuEnd
				}
				e.enqueue(&hr.uq, qentry{src: src, tag: tag, op: op})
			}
			if e.str != nil {
				e.msgProcessed(op)
			}

		case evFlow: // op is the flow (Options.Flow)
			e.flowDone(op, t)

		case evFlowStart: // the route's latency is over (not FlowNetwork.BytesFirst)
			e.flowStart(op, rank, t)
		}
		e.flush(ev.time)
		if e.err != nil {
			return e.err
		}
	}
	return nil
}

// rendezvousDone completes the rendezvous send op of host src at time t,
// matched by operation by (the receive, or the send itself when its
// message found the receive posted). Like LogGOPSim, it moves the
// sender's CPU and NIC clocks (indexed by by's CPU and NIC numbers) up to
// t, so that what the send releases starts no earlier than now.
func (e *engine) rendezvousDone(op int32, src int, by int32, t uint64) {
	c, n := src, src
	if e.multi {
		c = src*e.ncpu + int(e.g.CPU[by])
		n = src*e.nnic + int(e.g.NIC[by])
	}
	oc, on := e.cpuAt(c), e.nicSAt(n)
	*oc, *on = max(*oc, t), max(*on, t)
	if e.sobs != nil {
		e.sobs.Step(Step{Kind: StepRendezvous, Op: op, Peer: -1, CPU: int32(c), NIC: int32(n), T: int64(t), CPUEnd: int64(*oc), NICEnd: int64(*on)})
	}
	e.markDone(op, int32(src))
}

// match removes and returns the first entry of q that matches (src, tag),
// with wildcards on either side, or -1.
func (e *engine) match(q *queue, src, tag int32) int32 { return e.matchAfter(q, -1, src, tag) }

// matchAfter is match, starting after entry prev of q (-1: at its head).
func (e *engine) matchAfter(q *queue, prev, src, tag int32) int32 {
	i := q.head
	if prev >= 0 {
		i = e.pool[prev].next
	}
	for ; i >= 0; i = e.pool[i].next {
		x := &e.pool[i]
		if (src == graph.AnySource || x.src == graph.AnySource || x.src == src) &&
			(tag == graph.AnyTag || x.tag == graph.AnyTag || x.tag == tag) {
			if prev < 0 {
				q.head = x.next
			} else {
				e.pool[prev].next = x.next
			}
			if q.tail == i {
				q.tail = prev
			}
			return i
		}
		prev = i
	}
	return -1
}

func (e *engine) enqueue(q *queue, x qentry) {
	x.next = -1
	var i int32
	if e.free >= 0 {
		i = e.free
		e.free = e.pool[i].next
		e.pool[i] = x
	} else {
		i = int32(len(e.pool))
		e.pool = append(e.pool, x)
	}
	if q.tail >= 0 {
		e.pool[q.tail].next = i
	} else {
		q.head = i
	}
	q.tail = i
}

func (e *engine) freeEntry(i int32) {
	e.pool[i].next = e.free
	e.free = i
}

// DeadlockError reports a replay that could not finish.
type DeadlockError struct {
	// Blocked lists, per stuck rank, what it waits on.
	Blocked []string
	// Unmatched lists messages that were sent but never received.
	Unmatched []string
	// BlockedOps and UnmatchedOps are the graph operations Blocked and
	// Unmatched describe, entry by entry, so that a caller that lowered
	// the graph from a trace can name them in the trace's terms (Rewrite).
	BlockedOps, UnmatchedOps []int32
	blockedWhy               []string // Blocked's reasons, after the operation
	unmatchedAt              []int    // the rank each Unmatched message arrived at
}

// Rewrite describes the blocked operations and unmatched messages again
// with describe (for instance in the MPI terms of the trace the graph was
// lowered from: lower.EventMap.Describer), keeping the reasons.
func (d *DeadlockError) Rewrite(describe func(op int32) string) {
	for i, op := range d.BlockedOps {
		d.Blocked[i] = describe(op) + ": " + d.blockedWhy[i]
	}
	for i, op := range d.UnmatchedOps {
		d.Unmatched[i] = fmt.Sprintf("%s (arrived at rank %d)", describe(op), d.unmatchedAt[i])
	}
}

func (d *DeadlockError) Error() string {
	var b strings.Builder
	b.WriteString("replay cannot finish")
	if len(d.Blocked) > 0 {
		fmt.Fprintf(&b, ": %d rank(s) blocked:", len(d.Blocked))
		for i, s := range d.Blocked {
			if i == 16 {
				fmt.Fprintf(&b, "\n  ... and %d more", len(d.Blocked)-16)
				break
			}
			b.WriteString("\n  ")
			b.WriteString(s)
		}
	}
	if len(d.Unmatched) > 0 {
		fmt.Fprintf(&b, "\n%d message(s) never received:", len(d.Unmatched))
		for i, s := range d.Unmatched {
			if i == 16 {
				fmt.Fprintf(&b, "\n  ... and %d more", len(d.Unmatched)-16)
				break
			}
			b.WriteString("\n  ")
			b.WriteString(s)
		}
	}
	return b.String()
}

func (e *engine) finish() (*Result, error) {
	if e.str != nil {
		if err := e.str.finished(e.hosts); err != nil {
			return nil, err
		}
		return e.stats(), nil
	}
	g := e.g
	var dl DeadlockError
	// Like LogGOPSim, a run is complete when no receive is still posted
	// and no message is unexpected; capsim also requires every operation to
	// have started (which catches cycles and what waits on blocked work). A
	// started send is not reported itself: a rendezvous send whose message
	// was never received is, through that message and what waits on it,
	// and under Options.LogGOPSimSizes one that a receive of eager size
	// matched is never marked complete, in LogGOPSim as here.
	for r := 0; r < g.NumRanks(); r++ {
		for id := g.RankStart[r]; id < g.RankStart[r+1]; id++ {
			if st := e.state(id); st == stDone || st == stStarted && g.Kind[id] == graph.Send {
				continue
			}
			op, why := e.why(id)
			dl.Blocked = append(dl.Blocked, g.Describe(op)+": "+why)
			dl.BlockedOps = append(dl.BlockedOps, op)
			dl.blockedWhy = append(dl.blockedWhy, why)
			break
		}
	}
	type unmatched struct {
		s  string
		op int32
		at int
	}
	var um []unmatched
	for h := range e.hosts {
		for i := e.hosts[h].uq.head; i >= 0; i = e.pool[i].next {
			op := e.pool[i].op
			um = append(um, unmatched{fmt.Sprintf("%s (arrived at rank %d)", g.Describe(op), h), op, h})
		}
	}
	if len(dl.Blocked) > 0 || len(um) > 0 {
		sort.Slice(um, func(i, j int) bool { return um[i].s < um[j].s })
		for _, u := range um {
			dl.Unmatched = append(dl.Unmatched, u.s)
			dl.UnmatchedOps = append(dl.UnmatchedOps, u.op)
			dl.unmatchedAt = append(dl.unmatchedAt, u.at)
		}
		return nil, &dl
	}
	return e.stats(), nil
}

// stats returns the result of a replay that finished.
func (e *engine) stats() *Result {
	res := &Result{Ranks: make([]RankStats, len(e.hosts)), Events: e.events}
	defer func() {
		if e.fl != nil {
			res.FlowEvents = e.fl.events
			res.Links = e.fl.net.Stats(res.Makespan)
		}
	}()
	for r := range e.hosts {
		var f uint64
		for c := 0; c < e.ncpu; c++ {
			f = max(f, *e.cpuAt(r*e.ncpu + c))
		}
		st := &res.Ranks[r]
		st.Finish, st.Compute, st.Comm = int64(f), e.hosts[r].compute, e.hosts[r].comm
		st.Wait = max(0, st.Finish-int64(e.startOf(int32(r)))-st.Compute-st.Comm)
		res.Makespan = max(res.Makespan, st.Finish)
	}
	return res
}

// why finds what unfinished operation id waits on, following the chain of
// unmet dependencies to the operation that is really stuck, and returns
// that operation and why it is stuck.
func (e *engine) why(id int32) (int32, string) {
	g := e.g
	seen := map[int32]bool{}
	for !seen[id] {
		seen[id] = true
		switch e.state(id) {
		case stStarted:
			if g.Kind[id] == graph.Recv {
				return id, "no matching message"
			}
			return id, "rendezvous send never matched by a receive"
		case stWaiting:
			deps, kinds := g.Deps(id)
			next := int32(-1)
			for j, d := range deps {
				if kinds[j] == graph.Requires && e.state(d) != stDone || kinds[j] == graph.Irequires && e.state(d) < stStarted {
					next = d
					break
				}
			}
			if next < 0 {
				return id, "never became ready"
			}
			id = next
		default:
			return id, "never ran"
		}
	}
	return id, "waits on itself through a dependency cycle"
}
