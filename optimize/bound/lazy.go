package bound

import (
	"math"
	"math/bits"
	"slices"
	"sort"
)

// Rows on demand, for the LP over the engine's semantics (FromGraph).
//
// The engine's rows tie most events to the others: a NIC's receive side
// is one chain through every message the host receives, from the first
// to the last, and it never passes an event where power changes. Written
// out, those chains leave the LP one block of every event (the default
// scenario: 20,163 columns and 40,594 rows), and eliminating the events
// that only pass precedence on (reduceEvents) finds a row from nearly
// every key event to nearly every later one.
//
// Nearly all of those rows are slack at every optimum: a NIC is busy a
// few hundred µs per message, a rank computes for ms in between. So the
// Solver writes, between key events (those where a task starts or ends or
// power changes), only the rows of paths it finds within a few thousand
// events of each key event (searchRows), and checks every solution
// against every row of the full graph: it sets the other events' times
// as soon as their predecessors allow and, where that passes a key
// event's time, adds the row of that path (origin key event, its length)
// and solves again. An LP with fewer rows is a relaxation, so each
// round's optimum is a lower bound of the full LP's, itself the bound;
// the last round's solution meets every row, so it is the full LP's
// optimum (to CLP's tolerance, see lazyTol).

// lazyRows is the full event graph of an engine LP and the rows between
// its key events that the Solver's LP has so far.
type lazyRows struct {
	full    *DAG
	o       *Order
	g       *eventGraph // every event: the full DAG's messages and the chain
	key     []bool
	chained []bool
	rep     []int32     // a vertex of every event
	rows    []fixedEdge // the LP's rows between key events
	at      map[[2]int32]int
	back    []Message // messages against the event order, kept as they are
	rounds  int       // LP solves that added rows, over all caps
	added   int       // rows added on demand
	// cuts[e] counts the cut events ≤ e (see cutEvents); nil: none.
	cuts    []int32
	cutList []int32      // the cut events, in order
	sg      *searchGraph // what the searches walk
	sr      *searcher    // check's full searches
	// check's work arrays, per event, kept between its calls.
	ct, cplen []float64
	corig     []int32
}

// crosses reports whether a row from event a to event b passes a cut.
func (lz *lazyRows) crosses(a, b int32) bool {
	return lz.cuts != nil && b > a+1 && lz.cuts[b-1]-lz.cuts[a] > 0
}

// searchVisits is how many events that are not key the search from one
// key event visits before it stops, and searchWork how many per event of
// the trace all searches may visit before each visits only a few: the
// rows they miss are added when a solution breaks them.
const (
	searchVisits = 8192
	searchWork   = 256
)

// maxLazyRounds bounds the solves of one cap; past it the last round's
// optimum is still a lower bound (a relaxation), only perhaps not the
// full LP's.
const maxLazyRounds = 64

// lazyTol is the violation, relative to the makespan, under which a
// solution is taken to meet a row: CLP's primal tolerance is 1e-7 of a
// block's length.
const lazyTol = 1e-7

func newLazyRows(d *DAG, o *Order, visits, cutTasks, workers int, cutAll bool) *lazyRows {
	K := o.Events
	lz := &lazyRows{full: d, o: o, key: make([]bool, K), chained: o.Chained, rep: make([]int32, K), at: map[[2]int32]int{}}
	for v := d.Vertices - 1; v >= 0; v-- {
		lz.rep[o.Event[v]] = int32(v)
	}
	key := lz.key
	key[0], key[K-1] = true, true
	var tasks []fixedEdge
	for i := range d.Tasks {
		t := &d.Tasks[i]
		a, b := int32(o.Event[t.Src]), int32(o.Event[t.Dst])
		key[a], key[b], key[o.Event[t.PowerEnd()]] = true, true, true
		tasks = append(tasks, fixedEdge{from: a, to: b, w: t.Hull[0].Time, task: true})
	}
	for _, l := range d.Loads {
		key[o.Event[l.Src]], key[o.Event[l.Dst]] = true, true
	}
	g, back := eventGraphOf(K, o.Chained, d.Messages, o.Event, key)
	for _, i := range back {
		lz.back = append(lz.back, d.Messages[i])
	}
	if cutTasks > 0 {
		cut := cutEvents(d, o, g, tasks, key, lz.back, cutTasks, cutAll)
		lz.cuts = make([]int32, K)
		var n int32
		for k := range cut {
			if cut[k] {
				n++
				lz.cutList = append(lz.cutList, int32(k))
			}
			lz.cuts[k] = n
		}
		if n == 0 {
			lz.cuts = nil
		}
	}
	lz.g = g
	if visits <= 0 {
		visits = searchVisits
	}
	lz.sg = newSearchGraph(lz.g, key, lz.cutList)
	nkey := 0
	for _, k := range key {
		if k {
			nkey++
		}
	}
	var cand []fixedEdge
	ok := false
	if len(lz.cutList) > 0 {
		cand, ok = searchRowsCut(lz.sg, key, o.Chained, searchWork*K+1<<20)
	}
	if !ok {
		cand = searchRows(lz.sg, key, visits, searchWork*K+1<<20, lz.cutList, min(workers, nkey/256)) // a goroutine per 256 searches at most
	}
	for _, r := range pruneRows(K, cand, tasks, 1<<62, workers) {
		if r.w <= 0 && lz.chained[r.from] && lz.chained[r.to] {
			continue // the chain (14) implies it
		}
		if lz.crosses(r.from, r.to) {
			continue // the relaxation drops it
		}
		lz.add(r)
	}
	return lz
}

// clone returns lz with rows as its rows and nothing added on demand. It
// shares, and reads, only the fields no solve writes.
func (lz *lazyRows) clone(rows []fixedEdge) *lazyRows {
	c := &lazyRows{full: lz.full, o: lz.o, g: lz.g, key: lz.key, chained: lz.chained, rep: lz.rep,
		rows: slices.Clone(rows), at: make(map[[2]int32]int, len(rows)), back: lz.back,
		cuts: lz.cuts, cutList: lz.cutList, sg: lz.sg}
	for j, r := range c.rows {
		c.at[[2]int32{r.from, r.to}] = j
	}
	return c
}

// add adds row r, or lengthens the row of its pair, and says whether the
// LP changed.
func (lz *lazyRows) add(r fixedEdge) bool {
	k := [2]int32{r.from, r.to}
	if j, ok := lz.at[k]; ok {
		if r.w <= lz.rows[j].w {
			return false
		}
		lz.rows[j].w = r.w
		return true
	}
	lz.at[k] = len(lz.rows)
	lz.rows = append(lz.rows, r)
	return true
}

// reduced returns the full DAG with its messages replaced by the rows.
func (lz *lazyRows) reduced() *DAG {
	d := *lz.full
	d.Messages = make([]Message, 0, len(lz.rows)+len(lz.back))
	for _, r := range lz.rows {
		d.Messages = append(d.Messages, Message{Src: int(lz.rep[r.from]), Dst: int(lz.rep[r.to]), Time: r.w})
	}
	d.Messages = append(d.Messages, lz.back...)
	if lz.cuts == nil {
		return &d
	}
	o := lz.o
	// The first cut at or after event a, as a vertex.
	cutAfter := func(a int) int {
		k := sort.Search(len(lz.cutList), func(k int) bool { return lz.cutList[k] >= int32(a) })
		return int(lz.rep[lz.cutList[k]])
	}
	d.Tasks = append([]Task(nil), d.Tasks...)
	for i := range d.Tasks {
		t := &d.Tasks[i]
		if a, b := o.Event[t.Dst], o.Event[t.PowerEnd()]; lz.crosses(int32(a), int32(b)) {
			t.Until = cutAfter(a + 1)
		}
	}
	d.Loads = append([]Load(nil), d.Loads...)
	for i := range d.Loads {
		l := &d.Loads[i]
		if a, b := o.Event[l.Src], o.Event[l.Dst]; lz.crosses(int32(a), int32(b)) {
			l.Dst = cutAfter(a + 1)
		}
	}
	return &d
}

// check sets the time of every vertex whose event is not key as soon as
// the full graph allows from the key events' times in vertex, and adds
// the row of every path into a key event that its time breaks by more
// than tol seconds. It returns the number of rows added or lengthened.
func (lz *lazyRows) check(vertex []float64, tol float64) int {
	g, o := lz.g, lz.o
	if len(lz.ct) != g.n {
		lz.ct, lz.corig, lz.cplen = make([]float64, g.n), make([]int32, g.n), make([]float64, g.n)
	}
	t, orig, plen := lz.ct, lz.corig, lz.cplen
	for e := range t {
		t[e], orig[e], plen[e] = math.Inf(-1), -1, 0
		if lz.key[e] {
			t[e], orig[e] = vertex[lz.rep[e]], int32(e)
		}
	}
	var viol []fixedEdge
	for u := int32(0); u < int32(g.n); u++ {
		if math.IsInf(t[u], -1) {
			continue
		}
		for _, e := range g.out(u) {
			v := t[u] + e.w
			if lz.key[e.to] {
				if v > t[e.to]+tol && !lz.crosses(orig[u], e.to) {
					viol = append(viol, fixedEdge{from: orig[u], to: e.to, w: plen[u] + e.w})
				}
				continue
			}
			if v > t[e.to] {
				t[e.to], orig[e.to], plen[e.to] = v, orig[u], plen[u]+e.w
			}
		}
	}
	for v := range vertex {
		if e := o.Event[v]; !lz.key[e] {
			vertex[v] = t[e]
		}
	}
	// A violation means the search from its origin stopped before it
	// had the longest paths (searchVisits): search again from every such
	// origin to the end of its block, and take all its rows.
	origins := map[int32]bool{}
	for _, r := range viol {
		origins[r.from] = true
	}
	if lz.sr == nil {
		lz.sr = newSearcher(lz.sg, lz.key)
	}
	for a := range int32(g.n) {
		if origins[a] {
			viol, _ = lz.sr.from(a, g.n, viol)
		}
	}
	changed := 0
	for _, r := range viol {
		if lz.crosses(r.from, r.to) {
			continue
		}
		if lz.add(r) {
			changed++
		}
	}
	lz.added += changed
	if changed > 0 {
		lz.rounds++
	}
	return changed
}

// searchRows returns, for every key event a, a row to every key event b
// that a path from a through events that are not key reaches, with the
// longest such path found as its length, visiting at most visits such
// events from each a in event order, and 64 once work visits have been
// made in all. Rows come sorted by tail, then head. Edges go forward in
// the event order, so an event's distance is final when it is taken.
//
// With cuts (sorted cut events), a search stops at the first cut after
// its key event: the relaxation drops every row that passes one.
//
// The searches run on workers goroutines, each over a run of key events,
// as if every search came before the budget was spent; where it was (the
// visits before a search add up to work), the searches from there on are
// made again in order with the short limit, so the rows are those of
// the searches made one after the other.
func searchRows(sg *searchGraph, key []bool, visits, work int, cuts []int32, workers int) []fixedEdge {
	var keys []int32
	for a := range int32(len(key)) {
		if key[a] {
			keys = append(keys, a)
		}
	}
	left := visits
	if len(cuts) > 0 {
		left = len(key) // a search stops at the next cut anyway
	}
	workers = max(1, min(workers, len(keys)))
	bounds := make([]int, workers+1)
	for p := range bounds {
		bounds[p] = p * len(keys) / workers
	}
	var cand []fixedEdge
	k := inParts(bounds, func() func(int, []fixedEdge) ([]fixedEdge, int) {
		sr := newSearcher(sg, key)
		return func(i int, rows []fixedEdge) ([]fixedEdge, int) { return sr.from(keys[i], left, rows) }
	}, func(rows []fixedEdge, used int) bool {
		if work <= 0 {
			return false
		}
		cand = append(cand, rows...)
		work -= used
		return true
	})
	if k < len(keys) { // the budget is spent: the rest with the short limit
		sr := newSearcher(sg, key)
		for _, a := range keys[k:] {
			cand, _ = sr.from(a, min(visits, 64), cand)
		}
	}
	return cand
}

// searchGraph is the event graph as the searches walk it: per event, the
// heads and lengths of its out-edges apart (edges[start[e]:start[e+1]]),
// without the edges no search takes. With cuts, those are the edges past
// the first cut after their tail (a search stops at the first cut after
// its key event, which is also the first cut at or after every event it
// reaches that is not key), and the edges into events that are not key
// and lead to no key event before that cut (leadsToKey): no row ends
// there, and no event a search enters can be reached from them. On the
// stencils cut every 64 tasks, most events a search reached led nowhere
// before the cut (the network interfaces' chains run on to the next
// stretch).
type searchGraph struct {
	start []int32
	to    []int32
	w     []float64
}

func newSearchGraph(g *eventGraph, key []bool, cuts []int32) *searchGraph {
	sg := &searchGraph{start: make([]int32, g.n+1), to: make([]int32, 0, len(g.edges)), w: make([]float64, 0, len(g.edges))}
	var leads []bool
	if len(cuts) > 0 {
		leads = make([]bool, g.n)
	}
	// Backwards, so that leads is known for every head: edges go forward.
	k := len(cuts) - 1
	lim := int32(g.n - 1) // the first cut at or after u (the last event after every cut)
	for u := int32(g.n - 1); leads != nil && u >= 0; u-- {
		for k >= 0 && cuts[k] >= u {
			lim = cuts[k]
			k--
		}
		if !key[u] {
			leads[u] = leadsBefore(g, key, leads, u, lim)
		}
	}
	k = 0
	for u := range int32(g.n) {
		sg.start[u] = int32(len(sg.to))
		ulim := int32(g.n - 1) // the first cut after u
		for k < len(cuts) && cuts[k] <= u {
			k++
		}
		if k < len(cuts) {
			ulim = cuts[k]
		}
		if leads != nil && !key[u] && !leads[u] {
			continue // never entered
		}
		for _, e := range g.out(u) {
			if leads != nil && (e.to > ulim || !key[e.to] && !leads[e.to]) {
				continue
			}
			sg.to, sg.w = append(sg.to, e.to), append(sg.w, e.w)
		}
	}
	sg.start[g.n] = int32(len(sg.to))
	return sg
}

// leadsBefore says whether event u, not key, has an edge to a key event
// or to one that leads to one, no later than lim.
func leadsBefore(g *eventGraph, key, leads []bool, u, lim int32) bool {
	for _, e := range g.out(u) {
		if e.to <= lim && (key[e.to] || leads[e.to]) {
			return true
		}
	}
	return false
}

// searcher finds the longest paths from a key event through events that
// are not key (searchRows, lazyRows.check), reusing its buffers.
type searcher struct {
	g       *searchGraph
	key     []bool
	dist    []float64
	touched []int32
	pending []uint64 // events reached and not yet taken, a bit each
}

func newSearcher(g *searchGraph, key []bool) *searcher {
	n := len(key)
	sr := &searcher{g: g, key: key, dist: make([]float64, n), pending: make([]uint64, (n+63)/64)}
	for i := range sr.dist {
		sr.dist[i] = math.Inf(-1)
	}
	return sr
}

// from appends to rows a row from key event a to every key event its
// search reaches, visiting at most visits events that are not key (and
// none past the first cut after a), sorted by head, and returns them with
// the number of events visited.
func (sr *searcher) from(a int32, visits int, rows []fixedEdge) ([]fixedEdge, int) {
	g, key, dist, pend := sr.g, sr.key, sr.dist, sr.pending
	start, to, wt := g.start, g.to, g.w
	negInf := math.Inf(-1)
	dist[a] = 0
	sr.touched = append(sr.touched[:0], a)
	// Edges go forward in the event order, so the reached events are
	// taken in increasing order (the lowest pending bit): an event's
	// distance is final when it is taken.
	pend[a>>6] |= 1 << (a & 63)
	left := 1
	used := 0
	for w := a >> 6; left > 0 && used < visits; {
		word := pend[w]
		if word == 0 {
			w++
			continue
		}
		u := w<<6 | int32(bits.TrailingZeros64(word))
		pend[w] &^= 1 << (u & 63)
		left--
		if u != a {
			if key[u] {
				continue
			}
			used++
		}
		du := dist[u]
		for j := start[u]; j < start[u+1]; j++ {
			v := to[j]
			if d := du + wt[j]; d > dist[v] {
				if dist[v] == negInf {
					sr.touched = append(sr.touched, v)
					pend[v>>6] |= 1 << (v & 63)
					left++
				}
				dist[v] = d
			}
		}
	}
	if left > 0 { // stopped early: clear what is still pending
		for _, b := range sr.touched {
			pend[b>>6] &^= 1 << (b & 63)
		}
	}
	first := len(rows)
	for _, b := range sr.touched {
		if b != a && key[b] {
			rows = append(rows, fixedEdge{from: a, to: b, w: dist[b]})
		}
		dist[b] = negInf
	}
	slices.SortFunc(rows[first:], func(x, y fixedEdge) int { return int(x.to - y.to) })
	return rows, used
}

// minHeap is a binary min-heap of event numbers.
type minHeap []int32

func (h *minHeap) push(x int32) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p] <= s[i] {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *minHeap) pop() int32 {
	s := *h
	x := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(s) {
			break
		}
		if r := l + 1; r < len(s) && s[r] < s[l] {
			l = r
		}
		if s[i] <= s[l] {
			break
		}
		s[i], s[l] = s[l], s[i]
		i = l
	}
	*h = s
	return x
}

// reach is, per event of a search graph, the key events it reaches
// through events that are not key and the longest path to each
// (computed backwards, see newReach), without the heads a chained head
// dominates (see dominated): event u's list is list(u), sorted, each
// length plus shift[u]. An event whose only edge leads to an event that
// is not key shares that event's list, shifted by the edge's length.
type reach struct {
	chunks [][]reachEntry // the lists, none split between two chunks
	chunk  []int32        // per event: the chunk of its list
	at     []int32        // per event: where its list starts in its chunk
	n      []int32        // per event: its list's length
	shift  []float64      // per event: added to its list's lengths
	total  int            // entries stored, over all chunks
}

// reachEntry is one head of a reach list and the longest path to it.
type reachEntry struct {
	key  int32
	dist float64
}

// reachChunk is the entries of one chunk of reach lists: the lists of
// millions of events are not copied as one slice grows.
const reachChunk = 1 << 20

// dominated says whether head b, at the longest path db, is implied by a
// head before it: where every event is on the chain, an earlier chained
// head c at a path at least as long implies the row to b (the chain from
// c to b has length 0 and, both being key events of one stretch, passes
// no cut), so searches need not find it. mx is the longest path to a
// chained head before b (−Inf for none).
func dominated(chained []bool, b int32, db, mx float64) bool {
	return chained != nil && chained[b] && db <= mx
}

// newReach computes the reach lists of every event of sg, from the last
// event back (edges go forward in the event order, so every head's list
// is done first); a key event's list is that of its search. Heads that a
// chained head before them dominates (chained not nil) are left out. It
// returns nil when the lists would hold more than most entries in all,
// or when an edge does not go forward.
func newReach(sg *searchGraph, key, chained []bool, most int) *reach {
	n := len(key)
	r := &reach{chunk: make([]int32, n), at: make([]int32, n), n: make([]int32, n), shift: make([]float64, n)}
	best := make([]float64, n)
	negInf := math.Inf(-1)
	for i := range best {
		best[i] = negInf
	}
	var cur []reachEntry
	var touched []int32
	for u := int32(n - 1); u >= 0; u-- {
		lo, hi := sg.start[u], sg.start[u+1]
		if hi == lo+1 && !key[sg.to[lo]] {
			v := sg.to[lo]
			if v <= u {
				return nil
			}
			r.chunk[u], r.at[u], r.n[u], r.shift[u] = r.chunk[v], r.at[v], r.n[v], r.shift[v]+sg.w[lo]
			continue
		}
		touched = touched[:0]
		for j := lo; j < hi; j++ {
			v, w := sg.to[j], sg.w[j]
			if v <= u {
				return nil
			}
			if key[v] {
				if best[v] == negInf {
					touched = append(touched, v)
				}
				best[v] = max(best[v], w)
				continue
			}
			w += r.shift[v]
			for _, e := range r.list(v) {
				b, d := e.key, w+e.dist
				if best[b] == negInf {
					touched = append(touched, b)
				}
				best[b] = max(best[b], d)
			}
		}
		if len(touched) == 0 {
			continue // an empty list
		}
		slices.Sort(touched)
		if len(cur)+len(touched) > cap(cur) {
			cur = make([]reachEntry, 0, max(reachChunk, len(touched)))
			r.chunks = append(r.chunks, cur)
		}
		r.chunk[u], r.at[u] = int32(len(r.chunks)-1), int32(len(cur))
		mx := negInf
		for _, b := range touched {
			if db := best[b]; !dominated(chained, b, db, mx) {
				cur = append(cur, reachEntry{b, db})
				if chained != nil && chained[b] {
					mx = db
				}
			}
			best[b] = negInf
		}
		r.n[u] = int32(len(cur)) - r.at[u]
		r.chunks[len(r.chunks)-1] = cur
		if r.total += int(r.n[u]); r.total > most {
			return nil
		}
	}
	return r
}

// list returns event u's reach list (lengths without shift[u]).
func (r *reach) list(u int32) []reachEntry {
	if r.n[u] == 0 {
		return nil
	}
	return r.chunks[r.chunk[u]][r.at[u] : r.at[u]+r.n[u]]
}

// searchRowsCut is searchRows with cuts and no limit on the events a
// search visits (the rows of every path to the next cut), read from the
// reach lists (newReach): a key event's list is its search's heads and
// longest paths, summed from the head back rather than from the key event
// on (the lengths differ from the search's in the last bits, about 1e-16
// of them). Where every event is chained (chained not nil), the rows to
// heads that a chained head before them dominates are left out: pruneRows
// would drop them. ok is false where the reach lists would hold over
// most entries.
func searchRowsCut(sg *searchGraph, key, chained []bool, most int) (rows []fixedEdge, ok bool) {
	r := newReach(sg, key, chained, most)
	if r == nil {
		return nil, false
	}
	n := 0
	for a := range int32(len(key)) {
		if key[a] {
			n += int(r.n[a])
		}
	}
	rows = make([]fixedEdge, 0, n)
	for a := range int32(len(key)) {
		if !key[a] {
			continue
		}
		for _, e := range r.list(a) {
			rows = append(rows, fixedEdge{from: a, to: e.key, w: r.shift[a] + e.dist})
		}
	}
	return rows, true
}
