// Package critpath finds the critical path of a replay: the chain of
// operations (computations, message overheads, messages in flight, NIC
// gaps, waits) that determines its makespan.
//
// A Recorder is a sim.StepObserver. It keeps every use of a CPU, NIC or
// shared device in the order the engine makes them and, as each starts,
// which earlier use its start time was waiting for: under the engine's
// semantics (package sim) an operation starts when its CPU is free (the
// end of the CPU's previous use, which is also when the operations a
// completed dependency released are queued), for a send when its NIC is
// free too, for the receipt of a message when the message has arrived
// (its send's start plus o + L, or the end of its flow) and the
// receiver's NIC is free, and for a calc on a shared device when the
// device is free. Walking these links back from the use that ends last
// gives contiguous segments from time 0 to the makespan, so the path's
// length equals the makespan by construction. Where no link explains a
// start exactly (which the engine's semantics do not produce, but a
// negative LogGOPS charge of an empty message can), the gap is a Wait
// segment.
//
// The normal replay pays nothing for this: the Recorder is only attached
// when a path is asked for (Run, or a Recorder passed as the replay's
// observer).
package critpath

import (
	"fmt"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
)

// Kind is what a segment of the path spends its time on.
type Kind uint8

// Segment kinds.
const (
	// Compute: a calc operation on its rank's CPU or on a shared device.
	Compute Kind = iota + 1
	// Send: the CPU overhead of sending a message (o + (s−1)·O).
	Send
	// Recv: the CPU overhead of receiving a message.
	Recv
	// Message: a message in flight, from the end of its send's overhead
	// until its receiver starts processing it (L, and the bytes on the
	// wire under LogGP or a flow network).
	Message
	// NIC: a NIC busy with an earlier message (its gap g + (s−1)·G),
	// which held back the next message.
	NIC
	// Wait: time the path cannot attribute to an operation.
	Wait
)

var kindNames = [...]string{"?", "compute", "send", "recv", "message", "nic", "wait"}

// String returns the kind's name: compute, send, recv, message, nic, wait.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Communicating reports whether the kind is communication: a message's
// overheads, flight or NIC gap.
func (k Kind) Communicating() bool { return k == Send || k == Recv || k == Message || k == NIC }

// Segment is one stretch of the critical path.
type Segment struct {
	Kind Kind
	// Op is the operation: the calc, the send (Send, Message, and NIC of
	// a send), or the message's send (Recv, NIC of a receipt); −1 for a
	// Wait.
	Op int32
	// Rank is where the time is spent: the calc's or sender's rank, the
	// receiver's for Recv and a receipt's NIC; for a Message, its sender.
	Rank int32
	// Peer is a Message's receiver, −1 otherwise.
	Peer       int32
	Start, End int64 // ns
}

// Duration returns End − Start.
func (s Segment) Duration() int64 { return s.End - s.Start }

// Path is a replay's critical path.
type Path struct {
	// Segments run from time 0 to the makespan, each starting where the
	// previous one ends. Segments of no duration are left out.
	Segments []Segment
	Makespan int64
}

// Length returns the summed duration of the segments, which equals the
// makespan.
func (p *Path) Length() int64 {
	var n int64
	for _, s := range p.Segments {
		n += s.Duration()
	}
	return n
}

// Shares returns the time the path spends computing, communicating
// (message overheads, messages in flight, NIC gaps) and waiting, in ns;
// they sum to the makespan.
func (p *Path) Shares() (compute, comm, wait int64) {
	for _, s := range p.Segments {
		switch {
		case s.Kind == Compute:
			compute += s.Duration()
		case s.Kind.Communicating():
			comm += s.Duration()
		default:
			wait += s.Duration()
		}
	}
	return compute, comm, wait
}

// ByKind returns the path's time per kind, indexed by Kind.
func (p *Path) ByKind() [Wait + 1]int64 {
	var out [Wait + 1]int64
	for _, s := range p.Segments {
		out[s.Kind] += s.Duration()
	}
	return out
}

// Describe names a segment's operation in the terms of graph g: the
// calc's region (or "calc"), or the message's size and ends.
func Describe(g *graph.Graph, s Segment) string {
	if s.Op < 0 {
		return "wait"
	}
	switch g.Kind[s.Op] {
	case graph.Calc:
		if r := g.Region[s.Op]; r >= 0 && int(r) < len(g.Regions) {
			return g.Regions[r]
		}
		return "calc"
	case graph.Send:
		return fmt.Sprintf("%d B %d→%d", g.Size[s.Op], g.RankOf(s.Op), g.Peer[s.Op])
	}
	return g.Kind[s.Op].String()
}

// Item kinds: one use of a resource.
const (
	useCalc uint8 = iota + 1
	useSend
	useProc // the receipt of a message
	useRdv  // a rendezvous moving its sender's clocks
)

// How an item's start is explained: by the end of an earlier item on a
// CPU, a NIC or a device, or by the arrival of a message (the item is its
// receipt; pred is its send).
const (
	viaNone uint8 = iota
	viaCPU
	viaNIC
	viaDev
	viaMsg
	viaStart // a rendezvous at its receipt's start: what that start waited for
)

type item struct {
	op                  int32
	rank                int32
	kind                uint8
	via                 uint8
	pred                int32 // the item whose end (via) this one's start waited for, or −1
	start               int64
	cpuEnd, nicEnd, dev int64 // dev: when a device calc frees its device
	at                  int64 // the time the link explains: the start (for a rendezvous, its match)
}

// Recorder is a sim.StepObserver that records what a replay's critical
// path needs. Make one with NewRecorder for the graph and options of the
// replay, pass it as sim.Options.Observer, then call Path.
type Recorder struct {
	g          *graph.Graph
	ncpu, nnic int
	device     []int32 // sim.Options.Device
	deviceNs   []int64
	items      []item
	lastCPU    []int32 // per CPU slot: its latest item, −1
	lastNICs   []int32 // per NIC slot, send side
	lastNICr   []int32 // per NIC slot, receive side
	lastDev    []int32 // per device
	sendItem   []int32 // per send op: its item
	procItem   []int32 // per send op: its message's receipt
	opRank     []int32
	// Per receive: its CPU's latest item when it was queued, whose end
	// is when the receive is posted (a receive does not wait for its CPU).
	queuedAt   []int32
	post       int32 // the receive of the last post step
	lastWasMsg bool  // the last post-or-process step was a receipt
}

// NewRecorder returns a Recorder for a replay of g with the options opt
// (their Device and DeviceNs say which calcs hold a shared device).
func NewRecorder(g *graph.Graph, opt sim.Options) *Recorder {
	n := g.NumOps()
	r := &Recorder{g: g, ncpu: 1, nnic: 1, device: opt.Device, deviceNs: opt.DeviceNs}
	ndev := 0
	sends := 0
	for i := 0; i < n; i++ {
		r.ncpu = max(r.ncpu, int(g.CPU[i])+1)
		r.nnic = max(r.nnic, int(g.NIC[i])+1)
		if g.Kind[i] == graph.Send {
			sends++
		}
	}
	for _, d := range opt.Device {
		ndev = max(ndev, int(d)+1)
	}
	fill := func(k int) []int32 {
		s := make([]int32, k)
		for i := range s {
			s[i] = -1
		}
		return s
	}
	nr := g.NumRanks()
	r.lastCPU, r.lastNICs, r.lastNICr, r.lastDev = fill(nr*r.ncpu), fill(nr*r.nnic), fill(nr*r.nnic), fill(ndev)
	r.sendItem, r.procItem, r.queuedAt = fill(n), fill(n), fill(n)
	r.opRank = g.OpRanks()
	r.items = make([]item, 0, n+sends)
	r.post = -1
	return r
}

// Busy implements sim.Observer; the Recorder uses the engine's steps.
func (r *Recorder) Busy(op int32, start, end int64) {}

// Message implements sim.Observer; the Recorder uses the engine's steps.
func (r *Recorder) Message(send, recv int32, sent, matched int64) {}

// Queued implements sim.QueueObserver. An operation is queued at its
// CPU's free time: the end of the CPU's latest item, which is what a
// receive's post waits for (calcs and sends find it as their CPU's item
// when they start).
func (r *Recorder) Queued(op int32, t int64) {
	if r.g.Kind[op] == graph.Recv {
		r.queuedAt[op] = r.lastCPU[int(r.opRank[op])*r.ncpu+int(r.g.CPU[op])]
	}
}

// end returns item i's end as seen through link via.
func (r *Recorder) end(i int32, via uint8) int64 {
	it := &r.items[i]
	switch via {
	case viaNIC:
		return it.nicEnd
	case viaDev:
		return it.dev
	case viaStart:
		return it.start
	}
	return it.cpuEnd
}

// link sets item x's predecessor: the first candidate whose end equals
// x's start, else a message (msg ≥ 0: x is its receipt), else the latest
// candidate ending before it (the gap becomes a Wait).
func (r *Recorder) link(x *item, msg int32, cands ...cand) {
	for _, c := range cands {
		if c.i >= 0 && r.end(c.i, c.via) == x.at {
			x.pred, x.via = c.i, c.via
			return
		}
	}
	if msg >= 0 {
		x.pred, x.via = msg, viaMsg
		return
	}
	x.pred, x.via = -1, viaNone
	best := int64(-1)
	for _, c := range cands {
		if c.i >= 0 {
			if e := r.end(c.i, c.via); e <= x.at && e > best {
				best, x.pred, x.via = e, c.i, c.via
			}
		}
	}
}

type cand struct {
	i   int32
	via uint8
}

// Step implements sim.StepObserver.
func (r *Recorder) Step(s sim.Step) {
	switch s.Kind {
	case sim.StepCalc:
		x := item{op: s.Op, rank: s.CPU / int32(r.ncpu), kind: useCalc, start: s.T, cpuEnd: s.CPUEnd, nicEnd: -1, dev: s.CPUEnd, at: s.T}
		d := int32(-1)
		if r.device != nil {
			d = r.device[s.Op]
		}
		dc := cand{-1, viaDev}
		if d >= 0 {
			dc.i = r.lastDev[d]
			if r.deviceNs != nil {
				if h := r.deviceNs[s.Op]; h >= 0 && h < s.CPUEnd-s.T {
					x.dev = s.T + h
				}
			}
		}
		r.link(&x, -1, cand{r.lastCPU[s.CPU], viaCPU}, dc)
		i := r.add(x)
		r.lastCPU[s.CPU] = i
		if d >= 0 {
			r.lastDev[d] = i
		}
	case sim.StepSend:
		x := item{op: s.Op, rank: s.CPU / int32(r.ncpu), kind: useSend, start: s.T, cpuEnd: s.CPUEnd, nicEnd: s.NICEnd, at: s.T}
		r.link(&x, -1, cand{r.lastCPU[s.CPU], viaCPU}, cand{r.lastNICs[s.NIC], viaNIC})
		i := r.add(x)
		r.lastCPU[s.CPU], r.lastNICs[s.NIC], r.sendItem[s.Op] = i, i, i
	case sim.StepPost:
		r.post, r.lastWasMsg = s.Op, false
	case sim.StepProcess:
		x := item{op: s.Op, rank: s.CPU / int32(r.ncpu), kind: useProc, start: s.T, cpuEnd: s.CPUEnd, nicEnd: s.NICEnd, at: s.T}
		r.link(&x, r.sendItem[s.Op], cand{r.lastCPU[s.CPU], viaCPU}, cand{r.lastNICr[s.NIC], viaNIC})
		i := r.add(x)
		r.lastCPU[s.CPU], r.lastNICr[s.NIC], r.procItem[s.Op] = i, i, i
		r.lastWasMsg = true
	case sim.StepRendezvous:
		// The sender's clocks move to the match, which happened at the
		// message's receipt or at the receive's post.
		moved := r.lastCPU[s.CPU] < 0 || r.items[r.lastCPU[s.CPU]].cpuEnd < s.T
		movedNIC := r.lastNICs[s.NIC] < 0 || r.items[r.lastNICs[s.NIC]].nicEnd < s.T
		if !moved && !movedNIC {
			return
		}
		x := item{op: s.Op, rank: s.CPU / int32(r.ncpu), kind: useRdv, start: s.T, cpuEnd: s.T, nicEnd: s.T, at: s.T}
		x.pred, x.via = -1, viaNone
		if p := r.procItem[s.Op]; r.lastWasMsg && p >= 0 && r.items[p].start == s.T {
			x.pred, x.via = p, viaStart // what the receipt's start waited for
		} else if r.post >= 0 {
			// The receive was posted when its CPU became free.
			r.link(&x, -1, cand{r.queuedAt[r.post], viaCPU})
		}
		i := r.add(x)
		if moved {
			r.lastCPU[s.CPU] = i
		}
		if movedNIC {
			r.lastNICs[s.NIC] = i
		}
	}
}

func (r *Recorder) add(x item) int32 {
	r.items = append(r.items, x)
	return int32(len(r.items) - 1)
}

// Path returns the critical path of the replay that ended with makespan.
func (r *Recorder) Path(makespan int64) (*Path, error) {
	// The item that ends last on a CPU.
	last := int32(-1)
	for _, i := range r.lastCPU {
		if i >= 0 && r.items[i].cpuEnd == makespan {
			last = i
			break
		}
	}
	p := &Path{Makespan: makespan}
	if last < 0 {
		if makespan != 0 {
			return nil, fmt.Errorf("critpath: no CPU use ends at the makespan %d ns", makespan)
		}
		return p, nil
	}
	var segs []Segment
	emit := func(s Segment) {
		if s.End != s.Start {
			segs = append(segs, s)
		}
	}
	// The last item, then each predecessor through its link, backwards.
	cur, via := last, uint8(viaCPU)
	for steps := 0; cur >= 0; steps++ {
		if steps > len(r.items)+1 {
			return nil, fmt.Errorf("critpath: the links of the replay's record form a cycle")
		}
		it := &r.items[cur]
		r.emitItem(it, via, emit)
		if it.pred < 0 {
			emit(Segment{Kind: Wait, Op: -1, Rank: it.rank, Peer: -1, Start: 0, End: it.at})
			break
		}
		pe := r.end(it.pred, it.via)
		if it.via == viaMsg {
			// The message from its send's overhead to this receipt; the
			// send's own overhead is emitted as the predecessor's CPU use,
			// cut where the message leaves.
			snd := &r.items[it.pred]
			leave := min(snd.cpuEnd, it.at)
			emit(Segment{Kind: Message, Op: snd.op, Rank: snd.rank, Peer: it.rank, Start: leave, End: it.at})
			emit(Segment{Kind: Send, Op: snd.op, Rank: snd.rank, Peer: -1, Start: snd.start, End: leave})
			if snd.pred < 0 {
				emit(Segment{Kind: Wait, Op: -1, Rank: snd.rank, Peer: -1, Start: 0, End: snd.at})
				break
			}
			pe = r.end(snd.pred, snd.via)
			if pe < snd.at {
				emit(Segment{Kind: Wait, Op: -1, Rank: snd.rank, Peer: -1, Start: pe, End: snd.at})
			}
			cur, via = snd.pred, snd.via
			continue
		}
		if pe < it.at {
			emit(Segment{Kind: Wait, Op: -1, Rank: it.rank, Peer: -1, Start: pe, End: it.at})
		}
		cur, via = it.pred, it.via
	}
	for i, j := 0, len(segs)-1; i < j; i, j = i+1, j-1 {
		segs[i], segs[j] = segs[j], segs[i]
	}
	p.Segments = segs
	at := int64(0)
	for _, s := range segs {
		if s.Start != at {
			return p, fmt.Errorf("critpath: a %s segment of rank %d starts at %d ns, where the path is at %d ns", s.Kind, s.Rank, s.Start, at)
		}
		at = s.End
	}
	if n := p.Length(); n != makespan {
		return p, fmt.Errorf("critpath: the path's segments sum to %d ns, not the makespan %d ns", n, makespan)
	}
	return p, nil
}

// emitItem emits item it's use of the resource that link via leaves it
// through: its CPU time, its NIC gap or its device time.
func (r *Recorder) emitItem(it *item, via uint8, emit func(Segment)) {
	if it.kind == useRdv || via == viaStart {
		return
	}
	seg := Segment{Op: it.op, Rank: it.rank, Peer: -1, Start: it.start}
	switch it.kind {
	case useCalc:
		seg.Kind = Compute
		seg.End = it.cpuEnd
		if via == viaDev {
			seg.End = it.dev
		}
	case useSend:
		seg.Kind, seg.End = Send, it.cpuEnd
		if via == viaNIC {
			seg.Kind, seg.End = NIC, it.nicEnd
		}
	case useProc:
		seg.Kind, seg.End = Recv, it.cpuEnd
		if via == viaNIC {
			seg.Kind, seg.End = NIC, it.nicEnd
		}
	}
	emit(seg)
}

// Run replays g under net with the options opt, recording its critical
// path (opt's own observer, if any, is told everything too). It returns
// the replay's result and the path.
func Run(g *graph.Graph, net network.LogGOPS, opt sim.Options) (*sim.Result, *Path, error) {
	rec := NewRecorder(g, opt)
	if opt.Observer != nil {
		opt.Observer = tee{rec, opt.Observer}
	} else {
		opt.Observer = rec
	}
	res, err := sim.Run(g, net, opt)
	if err != nil {
		return nil, nil, err
	}
	p, err := rec.Path(res.Makespan)
	if err != nil {
		return res, nil, err
	}
	return res, p, nil
}

// tee passes the engine's reports to the Recorder and to another
// observer, as far as that observer takes them.
type tee struct {
	r *Recorder
	o sim.Observer
}

func (t tee) Busy(op int32, start, end int64) { t.o.Busy(op, start, end) }
func (t tee) Message(send, recv int32, sent, matched int64) {
	t.o.Message(send, recv, sent, matched)
}
func (t tee) Queued(op int32, ts int64) {
	t.r.Queued(op, ts)
	if q, ok := t.o.(sim.QueueObserver); ok {
		q.Queued(op, ts)
	}
}
func (t tee) Step(s sim.Step) {
	t.r.Step(s)
	if so, ok := t.o.(sim.StepObserver); ok {
		so.Step(s)
	}
}
