package sched

// segtree is a segment tree over float64 values answering range maxima
// (or minima) and leftmost-index searches in O(log n); set is O(log n).
type segtree struct {
	n, size int
	isMin   bool
	id      float64 // identity: −Inf for max trees, +Inf for min trees
	v       []float64
}

func (t *segtree) better(a, b float64) float64 {
	if t.isMin {
		return min(a, b)
	}
	return max(a, b)
}

// init builds the tree over vals, reusing its storage.
func (t *segtree) init(vals []float64, id float64, isMin bool) {
	t.n, t.id, t.isMin = len(vals), id, isMin
	t.size = 1
	for t.size < t.n {
		t.size *= 2
	}
	if cap(t.v) < 2*t.size {
		t.v = make([]float64, 2*t.size)
	}
	t.v = t.v[:2*t.size]
	for i := range t.size {
		if i < t.n {
			t.v[t.size+i] = vals[i]
		} else {
			t.v[t.size+i] = id
		}
	}
	for i := t.size - 1; i >= 1; i-- {
		t.v[i] = t.better(t.v[2*i], t.v[2*i+1])
	}
}

func (t *segtree) set(i int, x float64) {
	i += t.size
	t.v[i] = x
	for i /= 2; i >= 1; i /= 2 {
		t.v[i] = t.better(t.v[2*i], t.v[2*i+1])
	}
}

// max and min return the best value over [lo, hi) (the identity when
// empty); which one a tree answers depends on how it was built.
func (t *segtree) max(lo, hi int) float64 { return t.query(lo, hi) }
func (t *segtree) min(lo, hi int) float64 { return t.query(lo, hi) }

func (t *segtree) query(lo, hi int) float64 {
	r := t.id
	for lo, hi = lo+t.size, hi+t.size; lo < hi; lo, hi = lo/2, hi/2 {
		if lo&1 == 1 {
			r = t.better(r, t.v[lo])
			lo++
		}
		if hi&1 == 1 {
			hi--
			r = t.better(r, t.v[hi])
		}
	}
	return r
}

// firstLE returns the first index ≥ lo whose value is ≤ x (min trees),
// or −1.
func (t *segtree) firstLE(lo int, x float64) int { return t.first(1, 0, t.size, lo, x) }

// firstGE returns the first index ≥ lo whose value is ≥ x (max trees),
// or −1.
func (t *segtree) firstGE(lo int, x float64) int { return t.first(1, 0, t.size, lo, x) }

// first finds the leftmost leaf ≥ lo in node's range [a, b) whose value
// is at least as good as x (≤ x in a min tree, ≥ x in a max tree).
func (t *segtree) first(node, a, b, lo int, x float64) int {
	v := t.v[node]
	if b <= lo || a >= t.n || (t.isMin && !(v <= x)) || (!t.isMin && !(v >= x)) {
		return -1
	}
	if b-a == 1 {
		return a
	}
	mid := (a + b) / 2
	if r := t.first(2*node, a, mid, lo, x); r >= 0 {
		return r
	}
	return t.first(2*node+1, mid, b, lo, x)
}
