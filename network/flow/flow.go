// Package flow is capsim's flow-level bandwidth model: messages are flows
// over the directed links of a topology (package network/topo), and the
// links' bandwidth is shared among the flows crossing them by max-min
// fairness, computed by progressive filling (Bertsekas and Gallager, Data
// Networks, §6.5.2): every flow's rate grows at the same pace until a link
// is full; the flows crossing that link are frozen at their share, and
// filling goes on with the others.
//
// Rates are updated incrementally and exactly: after every start and end
// they are the max-min fair rates over all flows, to rounding. Only the
// flows linked to the one that starts or ends through shared links (its
// connected component) can change rate, and few of them do: the flows
// sharing its links are re-rated with the capacity the others use set
// aside, the set is grown by the flows that lost their bottleneck (a
// saturated link on which no flow is faster, Bertsekas and Gallager
// §6.5.2) until every flow has one, and only where the set grows large is
// the whole component re-rated. (Neighbours re-rates only the flows
// sharing a link with the one that starts or ends: cheaper, but not
// max-min fair.) Every re-rated flow whose rate changes is charged the
// bytes it sent at its old rate up to now, and gets a new completion time
// and a new version number; a caller that scheduled a completion event
// for the old version can tell that event is stale.
//
// A Net allocates nothing per flow once its slices have grown to the
// run's largest number of concurrent flows.
package flow

import "math"

// LinkStats are one link's statistics over a run.
type LinkStats struct {
	Bytes  int64 // bytes of the flows that crossed it
	Flows  int64 // flows that crossed it
	BusyNs int64 // time during which at least one flow crossed it
	Peak   int32 // most flows crossing it at once
}

// link is the state of a link that every flow start and end crossing it
// touches: 64 bytes, one cache line (the array of links is page-aligned).
// Most links carry one flow at a time, which then costs that line alone.
type link struct {
	// The n flows crossing it: the first here, the others in
	// Net.pool[off : off+room] (moved to a region twice as large at the
	// pool's end when full).
	first     member
	off, room int32
	n         int32
	peak      int32
	capacity  float64
	bytes     int64
	nflows    int64
	busySince int64
	busy      int64
}

// member returns the flow at position i of lk's flows.
func (n *Net) member(lk *link, i int32) member {
	if i == 0 {
		return lk.first
	}
	return n.pool[lk.off+i-1]
}

// setMember puts m at position i of lk's flows.
func (n *Net) setMember(lk *link, i int32, m member) {
	if i == 0 {
		lk.first = m
		return
	}
	if i > lk.room {
		// Full: move to a region twice as large at the pool's end.
		room := max(2*lk.room, 2)
		off := int32(len(n.pool))
		n.pool = append(n.pool, n.pool[lk.off:lk.off+lk.room]...)
		n.pool = append(n.pool, make([]member, room-lk.room)...)
		lk.off, lk.room = off, room
	}
	n.pool[lk.off+i-1] = m
}

// fill is a link's state during progressive filling, apart from the hot
// link state since few starts and ends re-rate other flows.
type fill struct {
	res  float64 // residual capacity
	wsum float64 // weight of the unfrozen flows
	cnt  int32   // unfrozen flows
	mark uint32
	// The link's load and fastest flow (rate over weight) at the rates
	// being verified (rerateLocal), valid while vmark is Net.vepoch.
	load, fastest float64
	vmark         uint32
}

// hop is a link of a flow's route and the flow's index in that link's
// list of flows.
type hop struct{ link, pos int32 }

type member struct {
	f   int32 // flow
	hop int32 // index of the link in the flow's route
}

type flowState struct {
	hops      []hop
	remaining float64 // bytes left at time last
	rate      float64 // bytes/ns
	newRate   float64
	weight    float64
	last      int64
	end       int64
	version   int32
	live      bool
	frozen    bool
	mark      uint32
	vmark     uint32 // checked by rerateLocal's verification vmark
	// bneck is a bottleneck link of the flow's (saturated, no faster
	// flow crossing it), kept up to date by the exact re-ratings.
	bneck int32
	// Payload for the caller.
	A, B int32
	C    int64
}

// Net is the state of a flow-level network: its links' capacities, the
// flows in progress and their rates.
type Net struct {
	// Neighbours re-rates only the flows that share a link with a flow
	// that starts or ends, rather than their whole connected component:
	// cheaper where components are large, but not max-min fair (a flow
	// two links away keeps a stale rate until a neighbour of its own
	// starts or ends). Set it before the first Start: the exact
	// re-rating relies on every flow's bottleneck, which the re-rating of
	// neighbours does not keep.
	Neighbours bool

	links []link
	pool  []member // the links' flows after their first
	fill  []fill

	flows  []flowState
	free   []int32
	epoch  uint32
	vepoch uint32

	compF, compL, changed []int32
	queue                 []int32
	active                []int32 // fillScan's links
	grow                  []int32 // rerateLocal's flows to add

	// For tests: the re-ratings rerateLocal settled, the rounds in which
	// it grew its set, and the re-ratings of whole components; localMax
	// is the most flows of rerateLocal's set (the constant localMax).
	nLocal, nRounds, nWhole int64
	localMax                int
}

// New returns a Net over links of the given capacities, in bytes/ns.
func New(capacity []float64) *Net {
	n := &Net{links: make([]link, len(capacity)), fill: make([]fill, len(capacity)), localMax: localMax}
	for i, c := range capacity {
		n.links[i].capacity = c
	}
	return n
}

// Start starts a flow of bytes over links at time now (in ns) and
// re-rates the flows it affects; Changed then lists them, this one
// included. a, b and c are kept for the caller (Payload). It returns the
// flow's id, valid until Finish. links must not be empty.
//
// weight is the flow's share relative to the others (weighted max-min:
// on a bottleneck link, flows get rates in proportion to their weights);
// a weight ≤ 0 counts as 1.
func (n *Net) Start(now int64, links []int32, bytes int64, weight float64, a, b int32, c int64) int32 {
	var id int32
	if k := len(n.free); k > 0 {
		id = n.free[k-1]
		n.free = n.free[:k-1]
	} else {
		id = int32(len(n.flows))
		n.flows = append(n.flows, flowState{})
	}
	f := &n.flows[id]
	if cap(f.hops) < len(links) {
		f.hops = make([]hop, len(links), max(len(links), 8))
	}
	f.hops = f.hops[:len(links)]
	f.remaining = float64(bytes)
	f.rate, f.last, f.live = 0, now, true
	if !(weight > 0) {
		weight = 1
	}
	f.weight = weight
	f.A, f.B, f.C = a, b, c
	alone := true // no other flow on its links (nor a link twice)
	hops := f.hops
	for i, l := range links {
		lk := &n.links[l]
		k := lk.n
		if k > 0 {
			alone = false
		}
		hops[i] = hop{l, k}
		if k == 0 {
			lk.first = member{id, int32(i)}
		} else {
			n.setMember(lk, k, member{id, int32(i)})
		}
		k++
		lk.n = k
		lk.bytes += bytes
		lk.nflows++
		if k == 1 {
			lk.busySince = now
		}
		lk.peak = max(lk.peak, k)
	}
	if alone && len(links) > 0 {
		// The flow is a component of its own: progressive filling
		// freezes it at its narrowest link's capacity, the same
		// arithmetic as rerate's (min(c)/w is min(c/w): division by
		// w > 0 is monotonic).
		// Its bottleneck is that link, the first among equals.
		c, bn := n.links[links[0]].capacity, links[0]
		for _, l := range links[1:] {
			if cl := n.links[l].capacity; cl < c {
				c, bn = cl, l
			}
		}
		f.bneck = bn
		f.newRate = aloneRate(c, weight)
		n.changed = n.changed[:0]
		n.reschedule(now, id, true)
		return id
	}
	n.queue = append(n.queue[:0], links...)
	n.rerate(now, id)
	return id
}

// Finish ends flow id at time now and re-rates the flows it affected;
// Changed then lists them.
func (n *Net) Finish(now int64, id int32) {
	f := &n.flows[id]
	q := n.queue[:0]
	shared := false
	for _, h := range f.hops {
		l, p := h.link, h.pos
		q = append(q, l)
		lk := &n.links[l]
		k := lk.n - 1
		lk.n = k
		if k == 0 {
			lk.busy += now - lk.busySince
			continue
		}
		shared = true
		if k != p {
			last := n.member(lk, k)
			n.setMember(lk, p, last)
			n.flows[last.f].hops[last.hop].pos = p
		}
	}
	n.queue = q
	f.live = false
	n.free = append(n.free, id)
	if shared {
		n.rerate(now, -1)
		return
	}
	// No flow shared a link with it: no rate changes.
	n.changed = n.changed[:0]
}

// Changed returns the flows whose rate (and so completion time and
// version) the last Start or Finish changed. The slice is reused.
func (n *Net) Changed() []int32 { return n.changed }

// End returns flow id's completion time at its current rate, and its
// version; the time is math.MaxInt64 while its rate is 0.
func (n *Net) End(id int32) (int64, int32) { return n.flows[id].end, n.flows[id].version }

// Current reports whether version is flow id's current version.
func (n *Net) Current(id, version int32) bool {
	f := &n.flows[id]
	return f.live && f.version == version
}

// Active returns the number of flows crossing link l now.
func (n *Net) Active(l int32) int32 { return n.links[l].n }

// Links appends flow id's links, in route order, to buf and returns the
// extended slice.
func (n *Net) Links(buf []int32, id int32) []int32 {
	for _, h := range n.flows[id].hops {
		buf = append(buf, h.link)
	}
	return buf
}

// Rate returns flow id's current rate in bytes/ns.
func (n *Net) Rate(id int32) float64 { return n.flows[id].rate }

// Payload returns the values given to Start.
func (n *Net) Payload(id int32) (a, b int32, c int64) {
	f := &n.flows[id]
	return f.A, f.B, f.C
}

// Stats returns per-link statistics, closed at time now (links still busy
// count as busy until now).
func (n *Net) Stats(now int64) []LinkStats {
	out := make([]LinkStats, len(n.links))
	for l := range n.links {
		lk := &n.links[l]
		if lk.n > 0 {
			lk.busy += now - lk.busySince
			lk.busySince = now
		}
		out[l] = LinkStats{Bytes: lk.bytes, Flows: lk.nflows, BusyNs: lk.busy, Peak: lk.peak}
	}
	return out
}

// rerate recomputes the rates of the connected component of flows
// reachable through shared links from the links of n.queue (those of
// flow self, or of a flow just removed): by rerateLocal where a set of
// flows around those links verifies, else by progressive filling over
// the whole component. With Neighbours, it re-rates by progressive
// filling the flows crossing those links only, with the capacity used by
// other flows set aside.
func (n *Net) rerate(now int64, self int32) {
	if !n.Neighbours {
		if n.rerateLocal(now, self) {
			return
		}
		n.nWhole++
	}
	n.epoch++
	ep := n.epoch
	n.compF, n.compL, n.changed = n.compF[:0], n.compL[:0], n.changed[:0]
	// The flows to re-rate.
	for _, l := range n.queue {
		n.fill[l].mark = ep
		n.compL = append(n.compL, l)
	}
	for qi := 0; qi < len(n.queue); qi++ {
		lk := &n.links[n.queue[qi]]
		for j := range lk.n {
			m := n.member(lk, j)
			f := &n.flows[m.f]
			if f.mark == ep {
				continue
			}
			f.mark = ep
			n.compF = append(n.compF, m.f)
			for _, h := range f.hops {
				if l := h.link; n.fill[l].mark != ep {
					n.fill[l].mark = ep
					n.compL = append(n.compL, l)
					if !n.Neighbours {
						n.queue = append(n.queue, l)
					}
				}
			}
		}
	}
	n.solve(ep)
	// Charge the old rates up to now and schedule the new ones.
	for _, id := range n.compF {
		n.reschedule(now, id, id == self)
	}
}

// fillScan runs progressive filling over the flows n.compF and links
// n.compL (marked ep), finding each bottleneck by scanning the links: the
// one offering the smallest share, the first in n.compL among equals.
// Each scan drops the links left without unfrozen flows (keeping the
// others in order), so a level costs the links still being filled.
func (n *Net) fillScan(ep uint32) {
	act := append(n.active[:0], n.compL...)
	left := len(n.compF)
	for left > 0 {
		best := int32(-1)
		var share float64
		k := 0
		for _, l := range act {
			if fl := &n.fill[l]; fl.cnt > 0 {
				act[k] = l
				k++
				if s := fl.res / fl.wsum; best < 0 || s < share {
					best, share = l, s
				}
			}
		}
		act = act[:k]
		left -= n.freeze(ep, best, share)
	}
	n.active = act
}

// freeze freezes the unfrozen flows of set ep crossing link l at share ×
// their weight, takes their rates off their links' residuals and returns
// how many it froze.
func (n *Net) freeze(ep uint32, l int32, share float64) int {
	frozen := 0
	lk := &n.links[l]
	for j := range lk.n {
		f := &n.flows[n.member(lk, j).f]
		if f.mark != ep || f.frozen {
			continue
		}
		f.frozen = true
		f.newRate = share * f.weight
		f.bneck = l
		frozen++
		for _, hp := range f.hops {
			fl := &n.fill[hp.link]
			fl.res = max(fl.res-f.newRate, 0)
			fl.wsum -= f.weight
			fl.cnt--
		}
	}
	return frozen
}

// reschedule gives flow id its new rate, unless that is its rate already
// and force is false: the bytes it sent at its old rate up to now are
// charged, its completion time recomputed and its version bumped, and it
// is added to n.changed.
func (n *Net) reschedule(now int64, id int32, force bool) {
	f := &n.flows[id]
	if !force && f.newRate == f.rate {
		return
	}
	f.remaining -= f.rate * float64(now-f.last)
	if f.remaining < 0 {
		f.remaining = 0
	}
	f.last = now
	f.rate = f.newRate
	f.version++
	switch {
	case f.remaining == 0:
		f.end = now
	case f.rate <= 0:
		f.end = math.MaxInt64
	default:
		if d := durationNs(f.remaining, f.rate); d >= 1<<62 || now >= 1<<62 {
			f.end = 1 << 62
		} else {
			f.end = now + d
		}
	}
	n.changed = append(n.changed, id)
}

// aloneRate is the rate, in bytes/ns, of a flow of weight w > 0 that
// crosses its links alone, the narrowest of capacity c: progressive
// filling freezes it at c/w times its weight.
func aloneRate(c, w float64) float64 { return max(c, 0) / w * w }

// durationNs is how long, in whole ns, remaining bytes take at rate > 0:
// a flow's completion is the first ns by which its bytes are through.
// Durations beyond 2^62 ns (a rate near 0) are capped there: later than
// any time a caller can represent, without overflowing.
func durationNs(remaining, rate float64) int64 {
	d := math.Ceil(remaining / rate)
	if d >= 1<<62 {
		return 1 << 62
	}
	return int64(d)
}

// AloneNs is how long a flow of bytes and weight takes, from its start to
// its completion, over links whose narrowest has capacity c (bytes/ns)
// when no other flow shares them: the time a Net gives it then. Under
// max-min sharing (Net) no flow gets a rate above its narrowest link's
// capacity, so every flow of those bytes over those links takes at least
// this long, whatever else crosses them. A weight ≤ 0 counts as 1, as in
// Start; a capacity ≤ 0 never completes (1<<62).
func AloneNs(bytes int64, c, weight float64) int64 {
	if bytes <= 0 {
		return 0
	}
	if !(weight > 0) {
		weight = 1
	}
	r := aloneRate(c, weight)
	if !(r > 0) {
		return 1 << 62
	}
	return durationNs(float64(bytes), r)
}

// localMax is the most flows rerateLocal re-rates before it gives up and
// re-rates the whole component (Net.localMax; tests lower it).
const localMax = 512

// tol is the relative tolerance of rerateLocal's verification: a link is
// saturated if its load is within tol of its capacity, and a flow is the
// fastest on it if no flow's rate over weight exceeds its own by more
// than tol (progressive filling's rounding is far smaller).
const tol = 1e-11

// rerateLocal re-rates exactly, as the whole component would, but
// solving only a set S of flows around the links of n.queue, grown until
// the rates verify (Bertsekas and Gallager, §6.5.2: rates are max-min
// fair if and only if they are feasible and every flow has a bottleneck,
// a saturated link on which no flow is faster than it, in rate over
// weight). S starts as the flows crossing n.queue's links and is
// re-rated by progressive filling with the capacity the other flows use
// set aside. Only the links of S changed load, so only flows crossing
// them can have lost their bottleneck: every flow of S, and every other
// flow on those links whose recorded bottleneck is among them, is
// checked. A flow of S without a bottleneck is slower than a flow
// outside S on one of its saturated links, which joins S; a flow outside
// S without a bottleneck joins S; and S is re-rated. It returns false,
// having changed no rate, where S grows past localMax flows or a
// violation names no flow to add (rounding): the caller then re-rates the
// whole component.
func (n *Net) rerateLocal(now int64, self int32) bool {
	n.epoch++
	ep := n.epoch
	n.compF, n.compL, n.changed = n.compF[:0], n.compL[:0], n.changed[:0]
	for _, l := range n.queue {
		if fl := &n.fill[l]; fl.mark != ep {
			fl.mark = ep
			n.compL = append(n.compL, l)
		}
	}
	for _, l := range n.queue {
		lk := &n.links[l]
		for j := range lk.n {
			n.addFlow(ep, n.member(lk, j).f)
		}
	}
	for {
		n.solve(ep)
		n.vepoch++
		ve := n.vepoch
		grow := n.grow[:0]
		// The flows of S: each was frozen on a link saturated by S's
		// filling, where it is the fastest of S; only a faster flow
		// outside S can stop that link being its bottleneck.
		for _, id := range n.compF {
			if n.hasBottleneck(ep, ve, id) {
				continue
			}
			f := &n.flows[id]
			r := f.newRate / f.weight
			found := false
			for _, h := range f.hops {
				l := h.link
				if !n.saturated(ep, ve, l) {
					continue
				}
				lk := &n.links[l]
				for j := range lk.n {
					g := n.member(lk, j).f
					if gf := &n.flows[g]; gf.mark != ep && gf.rate/gf.weight > r*(1+tol) {
						found = true
						if gf.vmark != ve {
							gf.vmark = ve
							grow = append(grow, g)
						}
					}
				}
			}
			if !found {
				n.grow = grow
				return false
			}
		}
		// The flows outside S on the links whose load changed.
		for _, l := range n.compL {
			lk := &n.links[l]
			for j := range lk.n {
				g := n.member(lk, j).f
				gf := &n.flows[g]
				if gf.mark == ep || gf.vmark == ve {
					continue
				}
				gf.vmark = ve
				if !n.hasBottleneck(ep, ve, g) {
					grow = append(grow, g)
				}
			}
		}
		n.grow = grow
		if len(grow) == 0 {
			break
		}
		if len(n.compF)+len(grow) > n.localMax {
			return false
		}
		n.nRounds++
		for _, g := range grow {
			n.addFlow(ep, g)
		}
	}
	n.nLocal++
	for _, id := range n.compF {
		n.reschedule(now, id, id == self)
	}
	return true
}

// addFlow adds flow id, and its links, to set ep (n.compF, n.compL)
// unless it is there already.
func (n *Net) addFlow(ep uint32, id int32) {
	f := &n.flows[id]
	if f.mark == ep {
		return
	}
	f.mark = ep
	n.compF = append(n.compF, id)
	for _, h := range f.hops {
		if fl := &n.fill[h.link]; fl.mark != ep {
			fl.mark = ep
			n.compL = append(n.compL, h.link)
		}
	}
}

// solve re-rates the flows of set ep (n.compF over n.compL) by
// progressive filling, with the capacity the other flows use set aside.
func (n *Net) solve(ep uint32) {
	for _, l := range n.compL {
		lk := &n.links[l]
		r := lk.capacity
		var c int32
		var w float64
		for j := range lk.n {
			if f := &n.flows[n.member(lk, j).f]; f.mark == ep {
				c++
				w += f.weight
			} else {
				r -= f.rate
			}
		}
		fl := &n.fill[l]
		fl.res = max(r, 0)
		fl.cnt = c
		fl.wsum = w
	}
	for _, id := range n.compF {
		n.flows[id].frozen = false
	}
	n.fillScan(ep)
}

// hasBottleneck reports whether flow id has a bottleneck at the rates
// being verified (newRate in set ep, rate outside), trying its recorded
// one first and recording the one it finds. A flow outside ep whose
// recorded bottleneck is not a link of ep keeps it: its load and flows
// did not change.
func (n *Net) hasBottleneck(ep, ve uint32, id int32) bool {
	f := &n.flows[id]
	if f.mark != ep && n.fill[f.bneck].mark != ep {
		return true
	}
	r := f.rateIn(ep) / f.weight
	if n.bottleneck(ep, ve, f.bneck, r) {
		return true
	}
	for _, h := range f.hops {
		if h.link != f.bneck && n.bottleneck(ep, ve, h.link, r) {
			f.bneck = h.link
			return true
		}
	}
	return false
}

// bottleneck reports whether link l is saturated and no flow crossing
// it is faster than r (rate over weight) by more than tol.
func (n *Net) bottleneck(ep, ve uint32, l int32, r float64) bool {
	return n.saturated(ep, ve, l) && r >= n.fill[l].fastest*(1-tol)
}

// saturated reports whether link l's load is within tol of its capacity
// at the rates being verified, computing its load and fastest flow once
// per verification ve.
func (n *Net) saturated(ep, ve uint32, l int32) bool {
	fl := &n.fill[l]
	lk := &n.links[l]
	if fl.vmark != ve {
		fl.vmark = ve
		var load, fastest float64
		for j := range lk.n {
			f := &n.flows[n.member(lk, j).f]
			r := f.rateIn(ep)
			load += r
			fastest = max(fastest, r/f.weight)
		}
		fl.load, fl.fastest = load, fastest
	}
	return fl.load >= lk.capacity*(1-tol)
}

// rateIn is f's rate at the rates being verified: its new rate where it is
// in set ep, else its rate.
func (f *flowState) rateIn(ep uint32) float64 {
	if f.mark == ep {
		return f.newRate
	}
	return f.rate
}
