package sim

// eventQueue is the event queue of every event loop in package sim: the
// replay engine (engine.go) and the task-graph executor (tasks.go). It
// holds events ordered by (time, seq), which makes runs deterministic: at
// equal times, events leave in the order their seq numbers say.
//
// The queue is a sorted run plus a 4-ary min-heap, both on (time, seq).
// Callers give events increasing sequence numbers, so an event not earlier
// than the run's last event extends the run in O(1); the rest go to the
// heap. Replays release most operations in time order (every rank's first
// operations at time 0, then work that becomes ready later), which keeps
// the heap small. Neither push nor pop allocates once the slices have
// grown to the run's high-water mark.
type eventQueue struct {
	heap    []event // min-heap on (time, seq)
	run     []event // events queued in (time, seq) order: a sorted run
	runHead int
}

// event is a queued item. seq orders events at equal times and is unique
// per queue; the replay engine packs its event type into the low bits.
// op and rank are the owner's payload.
type event struct {
	time uint64
	seq  uint64
	op   int32
	rank int32
}

// init sizes the queue for n events in the first run.
func (q *eventQueue) init(n int) { q.initFrom(n, nil, nil) }

// initFrom is init that reuses the memory of heap and run where they hold
// as many events.
func (q *eventQueue) initFrom(n int, heap, run []event) {
	q.heap, q.run, q.runHead = heap[:0], run[:0], 0
	if cap(q.heap) < 1024 {
		q.heap = make([]event, 0, 1024)
	}
	if cap(q.run) < n {
		q.run = make([]event, 0, n)
	}
}

func less(a, b *event) bool {
	return a.time < b.time || (a.time == b.time && a.seq < b.seq)
}

// queued reports whether an event is waiting.
func (q *eventQueue) queued() bool { return len(q.heap) > 0 || q.runHead < len(q.run) }

// peek returns the next event; the queue must not be empty.
func (q *eventQueue) peek() *event {
	if q.runHead < len(q.run) && (len(q.heap) == 0 || less(&q.run[q.runHead], &q.heap[0])) {
		return &q.run[q.runHead]
	}
	return &q.heap[0]
}

// peekTime returns the time of the next event; the queue must not be empty.
func (q *eventQueue) peekTime() uint64 {
	if q.runHead < len(q.run) && (len(q.heap) == 0 || less(&q.run[q.runHead], &q.heap[0])) {
		return q.run[q.runHead].time
	}
	return q.heap[0].time
}

func (q *eventQueue) push(ev event) {
	if n := len(q.run); n == q.runHead || !less(&ev, &q.run[n-1]) {
		if q.runHead > 0 && (q.runHead == n || n == cap(q.run) && 2*q.runHead >= n) {
			// Reuse the consumed prefix before growing the slice,
			// where it is at least half of it: moving the rest then
			// costs no more than the pops that consumed it.
			k := copy(q.run, q.run[q.runHead:])
			q.run, q.runHead = q.run[:k], 0
		}
		q.run = append(q.run, ev)
		return
	}
	q.heap = append(q.heap, ev)
	h := q.heap
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !less(&ev, &h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = ev
}

func (q *eventQueue) pop() event {
	if q.runHead < len(q.run) && (len(q.heap) == 0 || less(&q.run[q.runHead], &q.heap[0])) {
		ev := q.run[q.runHead]
		q.runHead++
		if q.runHead == len(q.run) {
			q.run, q.runHead = q.run[:0], 0
		} else if q.runHead >= 4096 && q.runHead*2 >= len(q.run) {
			k := copy(q.run, q.run[q.runHead:])
			q.run, q.runHead = q.run[:k], 0
		}
		return ev
	}
	// Sift the last event down from the root through a hole: each level
	// moves the least child up, and the event is written once.
	h := q.heap
	top := h[0]
	n := len(h) - 1
	x := h[n]
	h = h[:n]
	q.heap = h
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < c+4 && k < n; k++ {
			if less(&h[k], &h[m]) {
				m = k
			}
		}
		if !less(&h[m], &x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	if n > 0 {
		h[i] = x
	}
	return top
}
