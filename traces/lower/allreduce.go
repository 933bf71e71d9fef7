package lower

// blocks splits n bytes into k blocks, the first n mod k of them one byte
// longer, and measures ranges of them.
type blocks struct{ n, k int64 }

// size returns the bytes of block i.
func (b blocks) size(i int32) int64 {
	s := b.n / b.k
	if int64(i) < b.n%b.k {
		s++
	}
	return s
}

// span returns the bytes of blocks lo..hi-1.
func (b blocks) span(lo, hi int32) int64 {
	var s int64
	for i := lo; i < hi; i++ {
		s += b.size(i)
	}
	return s
}

// fold is MPICH's reduction to a power of two for p that is not one
// (Thakur, Rabenseifner and Gropp, IJHPCA 19(1), 2005, §4.1): with
// rem = p − 2^⌊log2 p⌋, each even rank below 2·rem sends its n bytes to the
// odd rank above it, which combines them and stands for both; those odd
// ranks and the ranks from 2·rem up take part as ranks 0..pof2-1. It
// returns that rank, or -1 for a rank that sat out.
func (c *coll) fold(n int64) (newrank, pof2, rem int32) {
	pof2 = pof2Below(c.p)
	rem = c.p - pof2
	switch {
	case c.me >= 2*rem:
		return c.me - rem, pof2, rem
	case c.me%2 == 0:
		c.round(c.send(c.me+1, n))
		return -1, pof2, rem
	default:
		c.round(c.recv(c.me-1, n))
		c.reduce(n)
		return c.me / 2, pof2, rem
	}
}

// unfold returns the n-byte result to the ranks fold left out.
func (c *coll) unfold(n int64, rem int32) {
	if c.me >= 2*rem {
		return
	}
	if c.me%2 == 1 {
		c.round(c.send(c.me-1, n))
	} else {
		c.round(c.recv(c.me+1, n))
	}
}

// realRank maps a rank among the folded power of two back to its rank.
func realRank(newrank, rem int32) int32 {
	if newrank < rem {
		return 2*newrank + 1
	}
	return newrank + rem
}

// recdoubAllreduce is recursive doubling with MPICH's fold for p that is
// not a power of two (Thakur et al. 2005, §4.1): log2 pof2 steps in which
// partners swap and combine all n bytes.
func (c *coll) recdoubAllreduce(n int64) {
	newrank, pof2, rem := c.fold(n)
	if newrank >= 0 {
		for mask := int32(1); mask < pof2; mask <<= 1 {
			dst := realRank(newrank^mask, rem)
			c.round(c.send(dst, n), c.recv(dst, n))
			c.reduce(n)
		}
	}
	c.unfold(n, rem)
}

// rabenseifnerAllreduce is Rabenseifner's algorithm (R. Rabenseifner,
// "Optimization of Collective Reduction Operations", ICCS 2004; Thakur et
// al. 2005, §4.1) as MPICH runs it: after the fold, a reduce-scatter by
// recursive halving (partners at distance 1, 2, 4, … swap and combine half
// of what they hold, so each ends with one of pof2 blocks reduced) and an
// allgather by recursive doubling that retraces the halving in reverse;
// then the unfold. Each rank moves about 2n bytes instead of n·log2 p.
func (c *coll) rabenseifnerAllreduce(n int64) {
	newrank, pof2, rem := c.fold(n)
	if newrank >= 0 {
		b := blocks{n, int64(pof2)}
		type span struct{ lo, hi int32 }
		cur := span{0, pof2}
		var parents []span
		for mask := int32(1); mask < pof2; mask <<= 1 {
			dst := realRank(newrank^mask, rem)
			mid := cur.lo + (cur.hi-cur.lo)/2
			keep, give := span{cur.lo, mid}, span{mid, cur.hi}
			if newrank&mask != 0 {
				keep, give = give, keep
			}
			c.round(c.send(dst, b.span(give.lo, give.hi)), c.recv(dst, b.span(keep.lo, keep.hi)))
			c.reduce(b.span(keep.lo, keep.hi))
			parents = append(parents, cur)
			cur = keep
		}
		for i, mask := len(parents)-1, pof2/2; mask > 0; i, mask = i-1, mask/2 {
			dst := realRank(newrank^mask, rem)
			whole := parents[i]
			c.round(c.send(dst, b.span(cur.lo, cur.hi)), c.recv(dst, b.span(whole.lo, whole.hi)-b.span(cur.lo, cur.hi)))
			cur = whole
		}
	}
	c.unfold(n, rem)
}

// ringAllreduce is a ring reduce-scatter followed by a ring allgather, each
// of p-1 steps moving n/p bytes (Thakur et al. 2005, §4.1; Patarasuk and
// Yuan, JPDC 2009).
func (c *coll) ringAllreduce(n int64) {
	chunk := ceilDiv(n, int64(c.p))
	right, left := (c.me+1)%c.p, (c.me-1+c.p)%c.p
	c.l.b.Grow(int(c.st.rank), int(4*(c.p-1)))
	for k := int32(1); k < c.p; k++ {
		c.round(c.send(right, chunk), c.recv(left, chunk))
		c.reduce(chunk)
	}
	for k := int32(1); k < c.p; k++ {
		c.round(c.send(right, chunk), c.recv(left, chunk))
	}
}
