package energy

import "github.com/capsim/capsim/optimize/bound"

// exactKeys marks, in key, the events that an exact elimination of the
// precedence graph rows (over k events) keeps: an event that is not key,
// with p distinct predecessors and q distinct successors where p·q ≤ p+q
// (one of them 1, or both 2) and p ≥ 1, is eliminated by Fourier–Motzkin
// (its time is the latest of its predecessors' plus their rows' lengths,
// and each predecessor gets a row to each successor of the two lengths
// summed), which never adds arcs. Parallel rows keep the longest.
func exactKeys(k int, rows []bound.Precedence, key []bool) {
	type arc struct {
		from, to int32
		w        float64
		dead     bool
	}
	arcs := make([]arc, 0, len(rows))
	in := make([][]int32, k)
	out := make([][]int32, k)
	add := func(a, b int32, w float64) {
		id := int32(len(arcs))
		arcs = append(arcs, arc{from: a, to: b, w: w})
		out[a] = append(out[a], id)
		in[b] = append(in[b], id)
	}
	for _, r := range rows {
		add(int32(r.From), int32(r.To), r.Len)
	}
	type nbr struct {
		v int32
		w float64
	}
	mark := make([]int32, k)
	for i := range mark {
		mark[i] = -1
	}
	// distinct compacts l to its live arcs and appends to ns their other
	// ends, each once with the longest length, stopping past limit.
	distinct := func(l *[]int32, head bool, ns []nbr, limit int) []nbr {
		s := (*l)[:0]
		for _, id := range *l {
			a := &arcs[id]
			if !a.dead {
				s = append(s, id)
			}
		}
		*l = s
		first := len(ns)
		for _, id := range s {
			a := &arcs[id]
			o := a.from
			if head {
				o = a.to
			}
			if j := mark[o]; j >= 0 {
				ns[j].w = max(ns[j].w, a.w)
				continue
			}
			if len(ns)-first >= limit {
				break
			}
			mark[o] = int32(len(ns))
			ns = append(ns, nbr{o, a.w})
		}
		for _, n := range ns[first:] {
			mark[n.v] = -1
		}
		return ns
	}
	done := make([]bool, k)
	work := make([]int32, 0, k)
	for v := k - 1; v >= 0; v-- {
		work = append(work, int32(v))
	}
	var ps, qs []nbr
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		if key[v] || done[v] {
			continue
		}
		ps = distinct(&in[v], false, ps[:0], k)
		qs = distinct(&out[v], true, qs[:0], k)
		p, q := len(ps), len(qs)
		if p == 0 || p > 2 && q > 1 || q > 2 && p > 1 {
			continue
		}
		for _, id := range in[v] {
			arcs[id].dead = true
		}
		for _, id := range out[v] {
			arcs[id].dead = true
		}
		in[v], out[v] = nil, nil
		done[v] = true
		for _, a := range ps {
			for _, b := range qs {
				add(a.v, b.v, a.w+b.w)
			}
			work = append(work, a.v)
		}
		for _, b := range qs {
			work = append(work, b.v)
		}
	}
	for v := range k {
		if !done[v] {
			key[v] = true
		}
	}
}
