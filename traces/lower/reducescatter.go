package lower

// recHalvingReduceScatter is MPICH's reduce-scatter for commutative
// operations and short to medium messages (Thakur, Rabenseifner and Gropp,
// IJHPCA 19(1), 2005, §4.2): of the n bytes, rank i's result is block i of
// p. After the fold (each even rank below 2·rem hands its n bytes to the
// odd rank above, which then works for both blocks), pof2 ranks halve:
// at distance pof2/2, pof2/4, …, 1 partners swap the half of their blocks
// the other keeps and combine what they receive. Finally each odd rank
// below 2·rem sends its even neighbour that rank's block.
func (c *coll) recHalvingReduceScatter(n int64) {
	b := blocks{n, int64(c.p)}
	newrank, pof2, rem := c.fold(n)
	if newrank >= 0 {
		// The bytes of folded rank i's share: blocks 2i and 2i+1 below rem.
		share := func(lo, hi int32) int64 {
			var s int64
			for i := lo; i < hi; i++ {
				if i < rem {
					s += b.size(2*i) + b.size(2*i+1)
				} else {
					s += b.size(i + rem)
				}
			}
			return s
		}
		lo, hi := int32(0), pof2
		for mask := pof2 / 2; mask > 0; mask /= 2 {
			dst := realRank(newrank^mask, rem)
			mid := lo + mask
			if newrank&mask == 0 {
				c.round(c.send(dst, share(mid, hi)), c.recv(dst, share(lo, mid)))
				c.reduce(share(lo, mid))
				hi = mid
			} else {
				c.round(c.send(dst, share(lo, mid)), c.recv(dst, share(mid, hi)))
				c.reduce(share(mid, hi))
				lo = mid
			}
		}
	}
	if c.me < 2*rem {
		if c.me%2 == 1 {
			c.round(c.send(c.me-1, b.size(c.me-1)))
		} else {
			c.round(c.recv(c.me+1, b.size(c.me)))
		}
	}
}

// ringReduceScatter passes partial sums around the ring: in step
// k = 1..p-1 every rank sends its right neighbour one of p blocks of the n
// bytes and combines the block it receives from its left neighbour
// (Patarasuk and Yuan, JPDC 69(2), 2009), so each rank ends with one
// block fully reduced.
func (c *coll) ringReduceScatter(n int64) {
	chunk := ceilDiv(n, int64(c.p))
	for k := int32(1); k < c.p; k++ {
		c.round(c.send((c.me+1)%c.p, chunk), c.recv((c.me-1+c.p)%c.p, chunk))
		c.reduce(chunk)
	}
}
