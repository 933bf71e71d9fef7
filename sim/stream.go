package sim

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/graph"
)

// A streaming replay (RunSource) keeps each rank's operations in flight in
// pages: a page holds up to pageOps consecutive operations of one rank, one
// window of the source, and one more record, the sentinel that ends the
// last operation's successor list. The engine id of a page's operation i
// is page<<pageShift + i, so the event loop indexes records, successor
// lists and tags by engine id as it does for a whole graph.
const (
	pageShift = 10
	pageSlots = 1 << pageShift
	pageOps   = pageSlots - 1
)

// WholeGraphError reports a replay that RunSource cannot do from windows:
// Feature names what needs the whole graph. The replay gives the same
// result from the in-memory graph (Run).
type WholeGraphError struct {
	Feature string
}

func (e *WholeGraphError) Error() string {
	return "sim: a streaming replay cannot do " + e.Feature + ": replay the whole graph"
}

// stream is the state of a streaming replay: what each rank has read of
// its source and which pages hold its operations.
//
// A rank's pages are its windows in order. The last one read is open: its
// operations' successor lists are complete only once the next window is
// read, since a dependency of the next window may point into it. The next
// window is read when an operation of the open page first releases its
// successors, so every successor list is complete before it is read, and
// every operation's count of unmet dependencies is set before any of them
// is met. That needs each dependency to point back at most into the
// previous window; a source whose graph has others (or operations without
// dependencies after a rank's first window, which a replay starts at time
// 0) gets a WholeGraphError.
//
// An operation retires once nothing reads its record again: a calc or
// receive when it completes, a send when it has completed and its receiver
// has processed its message. A page whose operations have all retired is
// freed and reused.
type stream struct {
	src graph.Source

	// Per rank: the rank-relative index of its next operation to read, its
	// open page (-1 once it is read to its end), the page of its first
	// window (its seeds) and the edges into its open page as triples
	// (successor engine id, with irqBit for irequires; dependency engine
	// id; the edge's graph.Window.DepOrder position or -1), in storage
	// order.
	next, front, seed []int32
	pend              [][]int32
	// posted holds per rank its receives without dependencies, in storage
	// order: a replay posts them all at time 0 (before the receives posted
	// later, in the host's queue), so each is posted as it is read, and a
	// message that matches none read so far reads further (matchStream).
	// It is a list of engine ids linked through pnext, matched on the
	// receives' records and tags: a rank's receives lie together in its
	// pages, so matching reads memory in order, unlike the entries of the
	// engine's pool.
	posted []queue

	// Per page: its rank's index of its first operation, its operations,
	// those not retired, whether it is open, and its block of the engine's
	// successor arena (start and size class; noBlock when it has none).
	pgFirst, pgLen, pgLive []int32
	pgOpen                 []bool
	pgBlock                []int32
	pgClass                []uint8

	freePages  []int32
	freeBlocks [32][]int32 // starts of free successor blocks, by size class
	live       int         // pages in use
	ended      int         // ranks read to their end

	edges []int32 // the edges into the page being read, as pend
	cur   []int32 // per page slot, where its next successor goes
	order []int32 // the edges of the page being closed, in placing order
	roots []int32 // per rank, its operations without dependencies so far
	root  []bool  // per engine id, whether it is a receive without dependencies
	pnext []int32 // per engine id of a posted receive, the next of its rank's posted list or -1
}

const noBlock = math.MaxUint8

// RunSource replays the graph src hands out, reading each rank's
// operations in windows as the replay reaches them and releasing those it
// has finished: memory grows with the ranks and the operations in flight,
// not with the graph's length. Its result equals Run's on the same graph.
//
// What needs the whole graph returns a *WholeGraphError naming it: the
// options that take per-operation data (Pricer, Observer, Classes, Device,
// Release, ReleaseMsg) and the flow model; hosts with several CPUs or
// NICs; sizes outside 0..2^31−1; dependencies on later operations or more
// than one window back; calcs and sends without dependencies after a
// rank's first window, and receives without dependencies that others
// irequire; with LibstdcxxOrder, more than 16 operations without
// dependencies on a rank; and the report of a replay that cannot finish
// or whose times exceed graph.MaxTimeNs (Run on the same graph names the
// operations). Scratch is not used.
func RunSource(src graph.Source, net network.LogGOPS, opt Options) (*Result, error) {
	if err := net.Validate(); err != nil {
		return nil, err
	}
	if f := wholeGraphOption(&opt); f != "" {
		return nil, &WholeGraphError{Feature: f}
	}
	nr := src.NumRanks()
	if nr > graph.MaxRanks {
		return nil, fmt.Errorf("sim: %d ranks exceed graph.MaxRanks (%d)", nr, graph.MaxRanks)
	}
	e := &engine{net: net, opt: opt, free: -1, ncpu: 1, nnic: 1}
	e.str = &stream{
		src:    src,
		next:   make([]int32, nr),
		front:  make([]int32, nr),
		seed:   make([]int32, nr),
		pend:   make([][]int32, nr),
		posted: make([]queue, nr),
		cur:    make([]int32, pageSlots),
		roots:  make([]int32, nr),
	}
	// The pool holds the receives posted by what they depend on and the
	// messages that arrive before theirs are posted.
	e.initState(&Scratch{}, nr, 0, 0, nr*pageSlots/4)
	roots := 0
	for r := range nr {
		e.str.front[r] = -1
		e.str.posted[r] = queue{-1, -1}
		if err := e.readWindow(int32(r)); err != nil {
			return nil, err
		}
		e.str.seed[r] = e.str.front[r]
		if p := e.str.front[r]; p >= 0 {
			for id := p << pageShift; id < p<<pageShift+e.str.pgLen[p]; id++ {
				if e.ops[id].rem == 0 {
					roots++
				}
			}
		}
	}
	e.ts = uint64(roots)
	e.seed()
	if err := e.loop(); err != nil {
		return nil, err
	}
	return e.finish()
}

// wholeGraphOption names the first option of opt that needs the whole
// graph, or returns "".
func wholeGraphOption(opt *Options) string {
	switch {
	case opt.Pricer != nil:
		return "a calc pricer (Options.Pricer)"
	case opt.Observer != nil:
		return "an observer (Options.Observer)"
	case opt.Classes != nil:
		return "message classes (Options.Classes)"
	case opt.Device != nil || opt.DeviceNs != nil:
		return "shared devices (Options.Device)"
	case opt.Release != nil || opt.ReleaseMsg != nil:
		return "release times (Options.Release, ReleaseMsg)"
	case opt.Flow != nil:
		return "the flow model (Options.Flow)"
	}
	return ""
}

// seedRange returns the engine ids of rank r's first window.
func (s *stream) seedRange(r int) (lo, hi int32) {
	p := s.seed[r]
	if p < 0 {
		return 0, 0
	}
	return p << pageShift, p<<pageShift + s.pgLen[p]
}

// finished checks that a streaming replay whose events ran out finished:
// every rank read to its end and every operation retired.
func (s *stream) finished(hosts []hostRec) error {
	if s.ended < len(s.front) || s.live > 0 {
		return &WholeGraphError{Feature: "the report of a replay that cannot finish"}
	}
	for h := range hosts {
		if hosts[h].rq.head >= 0 || hosts[h].uq.head >= 0 || s.posted[h].head >= 0 {
			return &WholeGraphError{Feature: "the report of a replay that cannot finish"}
		}
	}
	return nil
}

// advance reads rank's next window; a failure stops the replay.
func (e *engine) advance(rank int32) {
	if err := e.readWindow(rank); err != nil && e.err == nil {
		e.err = err
	}
}

// readWindow reads rank r's next window into a new page, which becomes
// the rank's open page, and completes the successor lists of the page
// that was open.
func (e *engine) readWindow(r int32) error {
	s := e.str
	w, err := s.src.Window(int(r), s.next[r], pageOps)
	if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	old := s.front[r]
	if w.Len() == 0 {
		if old >= 0 {
			if err := e.closePage(old, s.pend[r]); err != nil {
				return err
			}
		}
		s.front[r], s.pend[r] = -1, s.pend[r][:0]
		s.ended++
		return nil
	}
	if w.Rank != int(r) || w.First != s.next[r] {
		return fmt.Errorf("sim: asked for rank %d from operation %d, got rank %d from %d", r, s.next[r], w.Rank, w.First)
	}
	p, err := e.newPage(w.First, w.Len())
	if err != nil {
		return err
	}
	if err := e.fillPage(r, p, &w); err != nil {
		return err
	}
	oldPend := s.pend[r]
	s.edges = s.edges[:0]
	base := p << pageShift
	for i := range w.Kind {
		v := base + int32(i)
		deps, kinds := w.Deps(i)
		e0 := w.DepStart[i] - w.DepStart[0]
		for j, d := range deps {
			rel := d - w.Origin
			sv, pos := v, int32(-1)
			if kinds[j] == graph.Irequires {
				sv |= irqBit
			}
			if w.DepOrder != nil {
				pos = w.DepOrder[e0+int32(j)]
			}
			switch {
			case rel < 0 || rel >= w.First+int32(i):
				return &WholeGraphError{Feature: "a dependency on a later operation of its rank"}
			case rel >= w.First:
				s.edges = append(s.edges, sv, base+rel-w.First, pos)
			case old >= 0 && rel >= s.pgFirst[old]:
				oldPend = append(oldPend, sv, old<<pageShift+rel-s.pgFirst[old], pos)
			default:
				return &WholeGraphError{Feature: fmt.Sprintf("a dependency more than one window (%d operations) back", pageOps)}
			}
		}
	}
	if old >= 0 {
		if err := e.closePage(old, oldPend); err != nil {
			return err
		}
	}
	s.pend[r] = append(oldPend[:0], s.edges...)
	s.front[r], s.next[r] = p, w.First+int32(w.Len())
	return nil
}

// fillPage sets the records and tags of page p from window w of rank r
// and posts its receives without dependencies.
func (e *engine) fillPage(r, p int32, w *graph.Window) error {
	s := e.str
	nr := int32(len(s.front))
	base := p << pageShift
	for i, k := range w.Kind {
		id := base + int32(i)
		lo, hi := w.DepStart[i], w.DepStart[i+1]
		if hi == lo {
			if w.First > 0 && k != graph.Recv {
				return &WholeGraphError{Feature: "a calc or send without dependencies after its rank's first window"}
			}
			// A replay starts a rank's operations without dependencies
			// in the order of a sort by type, which std::sort
			// (Options.LibstdcxxOrder) keeps in storage order only up to
			// its threshold.
			if s.roots[r]++; e.opt.LibstdcxxOrder && s.roots[r] > sortThreshold {
				return &WholeGraphError{Feature: fmt.Sprintf("libstdc++'s order (Options.LibstdcxxOrder) of more than %d operations without dependencies on a rank", sortThreshold)}
			}
		}
		if w.CPU[i] != 0 || w.NIC[i] != 0 {
			return &WholeGraphError{Feature: "hosts with several CPUs or NICs"}
		}
		sz := w.Size[i]
		if sz < 0 || sz > math.MaxInt32 {
			return &WholeGraphError{Feature: "sizes outside 0..2^31-1"}
		}
		typ, peer := typeOf(k), w.Peer[i]
		switch {
		case typ == evCalc:
			peer = -1
		case peer >= nr || peer < 0 && (typ == evSend || peer != graph.AnySource):
			return &WholeGraphError{Feature: fmt.Sprintf("the report of peer %d, which is not a rank", peer)}
		}
		e.ops[id] = opRec{succ: irqBit, rem: hi - lo, pk: peer<<3 | int32(typ), sz: int32(sz)}
		e.tag[id] = w.Tag[i]
		s.root[id] = hi == lo && typ == evRecv
		if s.root[id] {
			// Its event at time 0: posted, before any message arrives.
			e.events++
			e.ops[id].rem = remStarted
			s.post(r, id)
		}
	}
	return nil
}

// newPage returns a free page for n operations of a rank from its
// operation first on (fillPage sets its records, closePage the sentinel).
func (e *engine) newPage(first int32, n int) (int32, error) {
	s := e.str
	var p int32
	if k := len(s.freePages); k > 0 {
		p, s.freePages = s.freePages[k-1], s.freePages[:k-1]
	} else {
		p = int32(len(s.pgLen))
		if p >= math.MaxInt32>>pageShift {
			return 0, fmt.Errorf("sim: a streaming replay needs more than %d pages of operations in flight", p)
		}
		s.pgFirst, s.pgLen, s.pgLive = append(s.pgFirst, 0), append(s.pgLen, 0), append(s.pgLive, 0)
		s.pgOpen, s.pgBlock, s.pgClass = append(s.pgOpen, false), append(s.pgBlock, 0), append(s.pgClass, noBlock)
		if len(e.ops)+pageSlots > cap(e.ops) {
			// Room for half as many pages again, and at first for
			// four a rank: memory the replay has not touched yet costs
			// address space, not memory, and growing copies.
			pages := max(p+p/2, 4*int32(len(s.front)), p+1)
			slots := int(pages) * pageSlots
			e.ops = append(make([]opRec, 0, slots), e.ops...)
			e.tag = append(make([]int32, 0, slots), e.tag...)
			s.root = append(make([]bool, 0, slots), s.root...)
			s.pnext = append(make([]int32, 0, slots), s.pnext...)
		}
		e.ops = e.ops[:len(e.ops)+pageSlots]
		e.tag = e.tag[:len(e.tag)+pageSlots]
		s.root = s.root[:len(s.root)+pageSlots]
		s.pnext = s.pnext[:len(s.pnext)+pageSlots]
	}
	s.pgFirst[p], s.pgLen[p], s.pgLive[p], s.pgOpen[p] = first, int32(n), int32(n), true
	s.live++
	return p, nil
}

// closePage completes the successor lists of page p from its edges
// (triples as stream.pend), in storage order or, where the rank declared
// its dependencies in another order, in that order, as build does for a
// whole graph, and marks its chains. A receive without dependencies, posted when it was
// read, must release nothing when it starts.
func (e *engine) closePage(p int32, edges []int32) error {
	s := e.str
	base := p << pageShift
	n := s.pgLen[p]
	cur := s.cur[:n+1]
	clear(cur)
	ordered := false
	s.order = s.order[:0]
	for k := 0; k < len(edges); k += 3 {
		cur[edges[k+1]-base]++
		ordered = ordered || edges[k+2] >= 0
		s.order = append(s.order, int32(k))
	}
	if ordered {
		slices.SortFunc(s.order, func(a, b int32) int { return int(edges[a+2] - edges[b+2]) })
	}
	start := e.allocBlock(p, len(edges)/3)
	ops := e.ops[base : base+n+1]
	at := start
	for i := range n {
		ops[i].succ, cur[i], at = at, at, at+cur[i]
	}
	ops[n].succ = at
	for _, k := range s.order {
		d := edges[k+1] - base
		e.succ[cur[d]] = edges[k]
		cur[d]++
	}
	for i := range n {
		lo, hi := ops[i].succ, ops[i+1].succ
		for _, v := range e.succ[lo:hi] {
			if v < 0 {
				if e.str.root[base+i] {
					return &WholeGraphError{Feature: "a receive without dependencies that others irequire"}
				}
				ops[i].succ |= irqBit
				break
			}
		}
		if hi == lo+1 && e.succ[lo] == base+i+1 {
			ops[i].pk |= chainBit
		}
	}
	s.pgOpen[p] = false
	if s.pgLive[p] == 0 {
		e.freePage(p)
	}
	return nil
}

// matchStream removes and returns the first posted receive of host h
// that matches a message from src with tag, as match does on the host's
// queue of a whole-graph replay, or -1: first among its receives without
// dependencies, reading the rank further while none read so far matches,
// then among those posted later.
func (e *engine) matchStream(h int, src, tag int32) int32 {
	s := e.str
	q := &s.posted[h]
	if m := e.matchPosted(q, -1, src, tag); m >= 0 {
		return m
	}
	for s.front[h] >= 0 && e.err == nil {
		last := q.tail
		e.advance(int32(h))
		if q.tail != last {
			if m := e.matchPosted(q, last, src, tag); m >= 0 {
				return m
			}
		}
	}
	if m := e.match(&e.hosts[h].rq, src, tag); m >= 0 {
		recv := e.pool[m].op
		e.freeEntry(m)
		return recv
	}
	return -1
}

// post appends receive id of rank r to the rank's posted list.
func (s *stream) post(r, id int32) {
	q := &s.posted[r]
	s.pnext[id] = -1
	if q.tail >= 0 {
		s.pnext[q.tail] = id
	} else {
		q.head = id
	}
	q.tail = id
}

// matchPosted removes and returns the first receive of posted list q
// after receive prev (-1: from its head) that matches a message from src
// with tag, with wildcards on either side, or -1.
func (e *engine) matchPosted(q *queue, prev, src, tag int32) int32 {
	next := e.str.pnext
	i := q.head
	if prev >= 0 {
		i = next[prev]
	}
	for ; i >= 0; i = next[i] {
		xs, xt := e.ops[i].peer(), e.tag[i]
		if (src == graph.AnySource || xs == graph.AnySource || xs == src) &&
			(tag == graph.AnyTag || xt == graph.AnyTag || xt == tag) {
			if prev < 0 {
				q.head = next[i]
			} else {
				next[prev] = next[i]
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

// allocBlock gives page p a block of at least m entries of the successor
// arena and returns its start.
func (e *engine) allocBlock(p int32, m int) int32 {
	s := e.str
	if m == 0 {
		s.pgClass[p] = noBlock
		return 0
	}
	c := uint8(bits.Len(uint(m - 1)))
	if k := len(s.freeBlocks[c]); k > 0 {
		s.pgBlock[p], s.freeBlocks[c] = s.freeBlocks[c][k-1], s.freeBlocks[c][:k-1]
	} else {
		s.pgBlock[p] = int32(len(e.succ))
		if len(e.succ)+1<<c > cap(e.succ) {
			e.succ = append(make([]int32, 0, max(cap(e.succ)+cap(e.succ)/2, len(e.succ)+1<<c, 4*len(s.front)*pageSlots)), e.succ...)
		}
		e.succ = e.succ[:len(e.succ)+1<<c]
	}
	s.pgClass[p] = c
	return s.pgBlock[p]
}

// retire notes that nothing reads operation op's record again, freeing
// its page with its last operation.
func (e *engine) retire(op int32) {
	s := e.str
	p := op >> pageShift
	if s.pgLive[p]--; s.pgLive[p] == 0 && !s.pgOpen[p] {
		e.freePage(p)
	}
}

// msgProcessed notes that the receiver processed the message of send op:
// the send retires if it has completed.
func (e *engine) msgProcessed(op int32) {
	if r := &e.ops[op]; r.rem == remDone {
		e.retire(op)
	} else {
		r.rem = remMsgIn
	}
}

func (e *engine) freePage(p int32) {
	s := e.str
	if c := s.pgClass[p]; c != noBlock {
		s.freeBlocks[c] = append(s.freeBlocks[c], s.pgBlock[p])
	}
	s.freePages = append(s.freePages, p)
	s.live--
}
