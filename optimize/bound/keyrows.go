package bound

import (
	"cmp"
	"math"
	"slices"
)

// orderVisits is how many events that are not key ReduceOrder's search
// from one key event visits. One LP over a whole order has no separators
// to split it at (the bound's blocks), and an engine LP's network chains
// run through the whole trace without passing a key event, so searches
// to the end would find a row from nearly every key event to nearly every
// later one (the 1,024-task stencil of bench/run's LP table: 10⁶
// candidates, 6.7·10⁷ events visited, 7,566 rows kept). The rows a search
// this short misses are added when a solution breaks them (Check).
const orderVisits = 4096

// orderPrune is how many events pruneRows may visit, per event of the
// order, over all of ReduceOrder's rows; the rows it has no time left to
// check are kept.
const orderPrune = 64

// orderGrowth is how many times as far as its last search Check searches
// again from a key event whose rows a solution broke: 4 (16,384 events
// after the first search) covers about one iteration of the 512-rank
// stencil of bench/run's frontier table, whose allreduce joins every
// rank; farther searches find rows that others imply, at up to a third
// more CPU (10,240 to 20,480 tasks).
const orderGrowth = 4

// Precedence is a row of fixed length between two events of an order:
// t_To − t_From ≥ Len.
type Precedence struct {
	From, To int
	Len      float64
}

// KeyRows is the precedence of an order reduced to its key events: the
// rows an LP over those events' times needs in place of the chain and the
// messages (ReduceOrder), found as solutions need them (Check).
type KeyRows struct {
	// Rows are between key events (the events' own numbers). Check
	// appends the rows it finds and lengthens those it finds longer
	// paths for, in place.
	Rows []Precedence
	g    *eventGraph
	key  []bool
	at   map[[2]int32]int // a row's place in Rows, by its events
	// tasks are the tasks at their fastest, sr the searches' walker and
	// visits each key event's last search's limit (0: first).
	tasks  []fixedEdge
	sr     *searcher
	first  int
	visits map[int32]int
	// check's work arrays, per event.
	ct, plen []float64
	orig     []int32
	// back is set where a message runs against the order.
	back bool
}

// ReduceOrder eliminates the events of o that only pass precedence on,
// as the bound's LP does (reduceEvents): it keeps the events key marks
// (the caller's: those its LP's objective or other rows name), the first
// and last, every task's source and destination, and the ends of every
// message against the order; and returns rows between them that the
// chain over the events chained marks (nil: every event) and d's
// messages imply: the longest path from each key event through events
// that are not key to every key event its search reaches within
// orderVisits such events, less those implied by other rows and tasks at
// their fastest. It marks the kept events in key.
//
// An LP over key events' times with these rows is a relaxation of the LP
// over every event's times with the chain and message rows, where its
// other rows only name key events and task rows keep each task at least
// its fastest time apart. Where its solution meets every row of the full
// LP (Check finds none it breaks), it is that LP's optimum: every other
// event's time can be set as soon as possible from the key events'
// (Fill).
func ReduceOrder(d *DAG, o *Order, chained []bool, key []bool) *KeyRows {
	return ReduceOrderWithin(d, o, chained, key, orderVisits)
}

// ReduceOrderWithin is ReduceOrder with searches of at most visits events
// that are not key (none, not even the key event's own edges, at 0):
// tests find few rows at first and the others on demand.
func ReduceOrderWithin(d *DAG, o *Order, chained []bool, key []bool, visits int) *KeyRows {
	visits = max(visits, 0)
	K := o.Events
	key[0], key[K-1] = true, true
	tasks := make([]fixedEdge, 0, len(d.Tasks))
	for i := range d.Tasks {
		t := &d.Tasks[i]
		e := fixedEdge{from: int32(o.Event[t.Src]), to: int32(o.Event[t.Dst]), w: t.Hull[0].Time, task: true}
		key[e.from], key[e.to] = true, true
		tasks = append(tasks, e)
	}
	var msgs []fixedEdge
	ev := func(v int) int32 { return int32(o.Event[v]) }
	back := messageEdges(d.Messages, nil, ev, chained == nil, key, &msgs)
	g := newEventGraph(K, chained, msgs)
	sr := newSearcher(newSearchGraph(g, key, nil), key)
	var cand []fixedEdge
	for a := range int32(K) {
		if key[a] {
			cand, _ = sr.from(a, visits, cand)
		}
	}
	fixed := pruneRows(K, cand, tasks, orderPrune*K+1<<16, 1)
	kr := &KeyRows{g: g, key: key, Rows: make([]Precedence, 0, len(fixed)+len(back)), at: make(map[[2]int32]int, len(fixed)),
		tasks: tasks, sr: sr, first: visits, visits: map[int32]int{}}
	for _, e := range fixed {
		kr.at[[2]int32{e.from, e.to}] = len(kr.Rows)
		kr.Rows = append(kr.Rows, Precedence{From: int(e.from), To: int(e.to), Len: e.w})
	}
	kr.back = len(back) > 0
	for _, i := range back {
		m := &d.Messages[i]
		kr.Rows = append(kr.Rows, Precedence{From: o.Event[m.Src], To: o.Event[m.Dst], Len: m.Time})
	}
	return kr
}

// checkChunk is how many candidate rows Check searches before it prunes
// them and adds those kept: it bounds the memory of a round that searches
// again from many key events.
const checkChunk = 1 << 21

// Check sets, from the key events' times in t (the others are not read),
// every other event's time as soon as the chain and the messages allow,
// and where that passes a key event's time by more than tol, the search
// from the key event the path starts at stopped too soon; it also sets
// every other event's time as late as the key events after it allow, and
// where a key event's time passes that, the same holds of the key event.
// Check searches again from every such key event, orderGrowth times as
// far, and adds the rows it finds and the rows of the paths themselves,
// less those other rows and tasks imply, to Rows (or lengthens the row of
// their pair). It returns the places in Rows of the rows it added or
// lengthened, in increasing order; none means that t meets every row of
// the full LP to tol.
func (kr *KeyRows) Check(t []float64, tol float64) []int {
	// A path whose row is there, as long, broken within the solver's
	// tolerance, needs no search.
	viol := slices.DeleteFunc(kr.broken(t, tol), func(r fixedEdge) bool {
		j, ok := kr.at[[2]int32{r.from, r.to}]
		return ok && kr.Rows[j].Len >= r.w
	})
	if len(viol) == 0 {
		return nil
	}
	// By origin, then head, longest first; one a pair.
	slices.SortFunc(viol, func(x, y fixedEdge) int {
		return cmp.Or(cmp.Compare(x.from, y.from), cmp.Compare(x.to, y.to), cmp.Compare(y.w, x.w))
	})
	viol = slices.CompactFunc(viol, func(x, y fixedEdge) bool { return x.from == y.from && x.to == y.to })
	// The new rows are pruned against those there, the tasks and the
	// rows of the chunks before.
	known := slices.Clone(kr.tasks)
	for _, r := range kr.Rows {
		if r.To > r.From {
			known = append(known, fixedEdge{from: int32(r.From), to: int32(r.To), w: r.Len})
		}
	}
	var changed []int
	var cand []fixedEdge
	for at := 0; at < len(viol); {
		a := viol[at].from
		v := min(max(kr.visits[a], kr.first, 1)*orderGrowth, kr.g.n)
		kr.visits[a] = v
		first := len(cand)
		cand, _ = kr.sr.from(a, v, cand)
		// The broken rows the search did not find (it stopped short).
		found := len(cand)
		for ; at < len(viol) && viol[at].from == a; at++ {
			r := viol[at]
			j, ok := slices.BinarySearchFunc(cand[first:found], r.to, func(e fixedEdge, to int32) int { return cmp.Compare(e.to, to) })
			switch {
			case !ok:
				cand = append(cand, r)
			case cand[first+j].w < r.w:
				cand[first+j].w = r.w
			}
		}
		slices.SortFunc(cand[first:], func(x, y fixedEdge) int { return cmp.Compare(x.to, y.to) })
		if len(cand) >= checkChunk || at == len(viol) {
			for _, r := range pruneRows(kr.g.n, cand, known, orderPrune*kr.g.n+1<<16, 1) {
				if j := kr.add(r.from, r.to, r.w); j >= 0 {
					changed = append(changed, j)
					known = append(known, r)
				}
			}
			cand = cand[:0]
		}
	}
	slices.Sort(changed)
	return changed
}

// broken returns, from the key events' times in t, the rows of the full
// LP that t breaks by more than tol: for every key event whose time the
// other events', set as soon as possible, pass, the path that does, from
// the key event it starts at.
func (kr *KeyRows) broken(t []float64, tol float64) []fixedEdge {
	g, key := kr.g, kr.key
	if len(kr.ct) != g.n {
		kr.ct, kr.plen, kr.orig = make([]float64, g.n), make([]float64, g.n), make([]int32, g.n)
	}
	ct, plen, orig := kr.ct, kr.plen, kr.orig
	for e := range ct {
		ct[e], plen[e], orig[e] = math.Inf(-1), 0, -1
		if key[e] {
			ct[e], orig[e] = t[e], int32(e)
		}
	}
	var viol []fixedEdge
	for u := range int32(g.n) {
		if math.IsInf(ct[u], -1) {
			continue
		}
		for _, e := range g.out(u) {
			v := ct[u] + e.w
			switch {
			case !key[e.to]:
				if v > ct[e.to] {
					ct[e.to], orig[e.to], plen[e.to] = v, orig[u], plen[u]+e.w
				}
			case v > ct[e.to]+tol:
				viol = append(viol, fixedEdge{from: orig[u], to: e.to, w: plen[u] + e.w})
			}
		}
	}
	if len(viol) == 0 {
		return nil
	}
	return kr.brokenFrom(t, tol, viol)
}

// brokenFrom appends to viol, from the key events' times in t, for every
// key event that a path of the full LP from it breaks by more than tol,
// the path with the least slack: it sets every other event's time as
// late as the key events after it allow. The forward pass of broken
// finds, per key event a path breaks, the path from the latest key event;
// this one finds every key event a path starts at, so that a round
// searches again from all of them, not only from the latest.
func (kr *KeyRows) brokenFrom(t []float64, tol float64, viol []fixedEdge) []fixedEdge {
	g, key := kr.g, kr.key
	lt, plen, dest := kr.ct, kr.plen, kr.orig
	for e := range lt {
		lt[e], plen[e], dest[e] = math.Inf(1), 0, -1
	}
	for u := int32(g.n) - 1; u >= 0; u-- {
		best, bl, bd := math.Inf(1), 0.0, int32(-1)
		for _, e := range g.out(u) {
			v, l, d := lt[e.to]-e.w, plen[e.to]+e.w, dest[e.to]
			if key[e.to] {
				v, l, d = t[e.to]-e.w, e.w, e.to
			}
			if v < best {
				best, bl, bd = v, l, d
			}
		}
		if !key[u] {
			lt[u], plen[u], dest[u] = best, bl, bd
		} else if t[u] > best+tol {
			viol = append(viol, fixedEdge{from: u, to: bd, w: bl})
		}
	}
	return viol
}

// add adds the row a → b of length w, or lengthens the row of that pair,
// and returns its place in Rows, or −1 where a row at least as long is
// there.
func (kr *KeyRows) add(a, b int32, w float64) int {
	k := [2]int32{a, b}
	if j, ok := kr.at[k]; ok {
		if w <= kr.Rows[j].Len {
			return -1
		}
		kr.Rows[j].Len = w
		return j
	}
	kr.at[k] = len(kr.Rows)
	kr.Rows = append(kr.Rows, Precedence{From: int(a), To: int(b), Len: w})
	return len(kr.Rows) - 1
}

// Fill sets the time t[e] of every event e that is not key as soon as
// the rows into it allow, from the key events' times in t.
func (kr *KeyRows) Fill(t []float64) {
	kr.g.fill(kr.key, t)
	for e, k := range kr.key {
		if !k && math.IsInf(t[e], -1) {
			t[e] = 0 // reached from no key event
		}
	}
}

// ToEvent returns, per event, the longest path of the chain and the
// messages from it to event target (−Inf where none reaches it): in the
// LP over every event, t_target − t_e is at least that, so a deadline on
// t_target bounds every event's time.
func (kr *KeyRows) ToEvent(target int) []float64 {
	g := kr.g
	l := make([]float64, g.n)
	for e := range l {
		l[e] = math.Inf(-1)
	}
	l[target] = 0
	for u := int32(target) - 1; u >= 0; u-- {
		for _, e := range g.out(u) {
			l[u] = math.Max(l[u], l[e.to]+e.w)
		}
	}
	return l
}

// Earliest returns the time of event target in the as-soon-as-possible
// schedule of the chain, the messages and every task at its fastest: the
// least makespan of the LP over every event without a cap, where target
// is the last event (every row a fixed length or a task's least, all
// met there, and no time sooner). ok is false where a message runs
// against the order (its row, kept as it is, can force events together):
// the LP must then find it.
func (kr *KeyRows) Earliest(target int) (t float64, ok bool) {
	if kr.back {
		return 0, false
	}
	g, tg := kr.g, byTail(kr.g.n, kr.tasks)
	ct := make([]float64, g.n)
	for u := range int32(g.n) {
		for _, l := range [][]fixedEdge{g.out(u), tg.out(u)} {
			for _, e := range l {
				ct[e.to] = math.Max(ct[e.to], ct[u]+e.w)
			}
		}
	}
	return ct[target], true
}

// Back reports whether a message runs against the order (its row is
// kept as it is, between key events).
func (kr *KeyRows) Back() bool { return kr.back }
