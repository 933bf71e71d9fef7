package sim

// Ready queues. An operation that reaches its turn while its CPU is busy
// (a calc, a send, or a message to process) waits for the CPU. LogGOPSim
// puts it back in the event queue at the time the CPU is next free, with
// its first-queued order unchanged, and capsim's order of events is
// defined that way: every waiting operation is tried again each time its
// CPU frees, in (time, seq) order, and all but the first fail again when
// the first takes the CPU. With many operations waiting on one CPU (the
// kernels of a GPU stream in a Chakra trace) that costs an event per
// waiting operation per operation run.
//
// Instead, each CPU slot has a ready queue: the operations waiting for it,
// in seq order. Only the first of them, the token, is in the event queue,
// at the time the CPU is free. When the token has been tried (it started,
// or it waits on something else now: its NIC, a release time), the next
// waiting operation becomes the token, at the current time or when the CPU
// is next free, whichever is later. The others would have been tried and
// failed in between, which changes nothing, so operations start in the
// same order at the same times as without the queues:
//
//   - a CPU's clock only moves when an operation starts on it, which needs
//     the CPU free, so while it is busy until T every waiting operation
//     would be tried again at T exactly;
//   - at T they would be tried in seq order, the token first; once one of
//     them takes the CPU past T, the rest fail at T and move to its new
//     clock, where the next token is put;
//   - an operation that starts waiting with a smaller seq than the token
//     goes back to the event queue as before, so that every queued
//     operation's seq is larger than its CPU's token's.
//
// A send waits in its CPU's queue only when its CPU is free no earlier
// than its NIC; otherwise it goes back to the event queue at the NIC's
// time, as before.

// tokenBit, in an event's rank, marks the token of a CPU's ready queue.
// Ranks are below graph.MaxRanks = 2^22.
const tokenBit int32 = 1 << 30

// nicInBit, in an event's rank, marks a message whose bytes its
// receiver's NIC has taken (network.LogGOPS.Offload) and which waits for
// the receiver's CPU.
const nicInBit int32 = 1 << 29

// cpuQueue is a CPU slot's ready queue: a list of waiting operations in
// the engine's pool of parked events, in seq order, and the seq (plus 1)
// of its token in the event queue, 0 when it has none.
type cpuQueue struct {
	token      uint64
	head, tail int32
}

// parked is a waiting operation's event, linked in its CPU's ready queue.
type parked struct {
	ev   event
	next int32
}

// initReady sizes the ready queues for n CPU slots.
func (e *engine) initReady(scr *Scratch, n int) {
	e.cpuq, _ = zeroed(scr.cpuq, n)
	for i := range e.cpuq {
		e.cpuq[i].head, e.cpuq[i].tail = -1, -1
	}
	e.parked, e.parkFree, e.handoff = scr.parked[:0], -1, -1
}

// wait queues ev, which found CPU slot c busy until its clock at, in c's
// ready queue, or in the event queue at at where ev precedes c's token.
func (e *engine) wait(ev event, c int, at uint64) {
	q := &e.cpuq[c]
	ev.time = at
	if q.token != 0 && ev.seq < q.token-1 || e.opt.noReadyQueues {
		e.q.push(ev)
		return
	}
	i := e.parkFree
	if i >= 0 {
		e.parkFree = e.parked[i].next
		e.parked[i] = parked{ev: ev, next: -1}
	} else {
		i = int32(len(e.parked))
		e.parked = append(e.parked, parked{ev: ev, next: -1})
	}
	switch {
	case q.head < 0:
		q.head, q.tail = i, i
	case e.parked[q.tail].ev.seq < ev.seq:
		e.parked[q.tail].next = i
		q.tail = i
	default: // an operation queued earlier for a later time: walk to its place
		prev, j := int32(-1), q.head
		for e.parked[j].ev.seq < ev.seq {
			prev, j = j, e.parked[j].next
		}
		e.parked[i].next = j
		if prev < 0 {
			q.head = i
		} else {
			e.parked[prev].next = i
		}
	}
	if q.token == 0 {
		e.nextToken(c, at)
	}
}

// nextToken puts the first operation of CPU slot c's ready queue in the
// event queue as its token, no earlier than now and than the CPU's clock.
func (e *engine) nextToken(c int, now uint64) {
	q := &e.cpuq[c]
	i := q.head
	if i < 0 || q.token != 0 {
		return
	}
	ev := e.parked[i].ev
	if q.head = e.parked[i].next; q.head < 0 {
		q.tail = -1
	}
	e.parked[i].next = e.parkFree
	e.parkFree = i
	ev.time = max(now, *e.cpuAt(c))
	ev.rank |= tokenBit
	q.token = ev.seq + 1
	e.q.push(ev)
}

// tokenTaken notes that the event just taken from the event queue, which
// runs on CPU slot c, was c's token: the next operation of c's queue
// becomes the token once this event has been tried (handOff).
func (e *engine) tokenTaken(c int) {
	e.cpuq[c].token = 0
	e.handoff = c
}

// handOff makes the next token of the CPU whose token the last event was,
// at the time now of that event.
func (e *engine) handOff(now uint64) {
	if c := e.handoff; c >= 0 {
		e.handoff = -1
		e.nextToken(c, now)
	}
}

// requeue queues ev, a send or a message to process that found its CPU
// slot c (free at ocpu) or its NIC (free at onic) busy: in c's ready queue
// where the CPU is free no earlier than the NIC, else in the event queue at
// the NIC's time.
func (e *engine) requeue(ev event, c int, ocpu, onic uint64) {
	if ocpu >= onic {
		e.wait(ev, c, ocpu)
		return
	}
	ev.time = onic
	e.q.push(ev)
}
