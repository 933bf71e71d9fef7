package lower

// xorAlltoall is the pairwise exchange of Thakur, Rabenseifner and Gropp,
// "Optimization of Collective Communication Operations in MPICH", IJHPCA
// 19(1), 2005, §3.5: when p is a power of two, step k = 1..p-1 pairs every
// rank with rank XOR k, which swap their blocks, so that every step is a
// perfect matching. For other p MPICH falls back to the shift exchange
// (send to rank+k, receive from rank-k), which is what this does too.
func (c *coll) xorAlltoall(size func(from, to int32) int64) {
	if !isPow2(c.p) {
		c.shiftAlltoall(size)
		return
	}
	for k := int32(1); k < c.p; k++ {
		peer := c.me ^ k
		c.round(c.send(peer, size(c.me, peer)), c.recv(peer, size(peer, c.me)))
	}
}

// shiftAlltoall sends rank me+k its block and receives rank me−k's in step
// k = 1..p-1: Open MPI's pairwise alltoall and capsim's default.
func (c *coll) shiftAlltoall(size func(from, to int32) int64) {
	for k := int32(1); k < c.p; k++ {
		to, from := (c.me+k)%c.p, (c.me-k+c.p)%c.p
		c.round(c.send(to, size(c.me, to)), c.recv(from, size(from, c.me)))
	}
}

// bruckAlltoall is the store-and-forward alltoall of Bruck, Ho, Kipnis,
// Upfal and Weathersby, "Efficient Algorithms for All-to-All
// Communications in Multiport Message-Passing Systems", IEEE TPDS 8(11),
// 1997, in the radix-2 form MPICH uses for short blocks (Thakur et al.
// 2005, §3.5): after a local rotation, step j (distance 2^j) sends rank
// me+2^j every block whose rotated index has bit j set and receives the
// same number of blocks from rank me−2^j; ⌈log2 p⌉ steps of about p/2
// blocks each. The local rotations cost no network time.
func (c *coll) bruckAlltoall(n int64) {
	for d := int32(1); d < c.p; d <<= 1 {
		var blocks int64
		for i := int32(1); i < c.p; i++ {
			if i&d != 0 {
				blocks++
			}
		}
		c.round(c.send((c.me+d)%c.p, blocks*n), c.recv((c.me-d+c.p)%c.p, blocks*n))
	}
}

func isPow2(p int32) bool { return p > 0 && p&(p-1) == 0 }

// pof2Below returns the largest power of two not above p (p ≥ 1).
func pof2Below(p int32) int32 {
	q := int32(1)
	for q*2 <= p {
		q *= 2
	}
	return q
}
