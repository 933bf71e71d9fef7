package lower

// ringAllgather passes blocks around the ring: in step k = 1..p-1 every
// rank sends its right neighbour the block it received in the step before
// (its own first) and receives a block from its left neighbour (Thakur,
// Rabenseifner and Gropp, IJHPCA 19(1), 2005, §3.1).
func (c *coll) ringAllgather(n int64) {
	for k := int32(1); k < c.p; k++ {
		c.round(c.send((c.me+1)%c.p, n), c.recv((c.me-1+c.p)%c.p, n))
	}
}

// shiftAllgather exchanges every rank's own block directly: in step
// k = 1..p-1 every rank sends its block to rank me+k and receives rank
// me−k's, the allgather SimGrid's SMPI runs as "ring" (Faraj and Yuan's
// "node j−k → j → j+k", simgrid/simgrid
// src/smpi/colls/allgather/allgather-ring.cpp). Its rounds move the same
// bytes as ringAllgather's, but no block waits for a neighbour to forward
// it, so ranks that enter apart finish differently.
func (c *coll) shiftAllgather(n int64) {
	for k := int32(1); k < c.p; k++ {
		c.round(c.send((c.me+k)%c.p, n), c.recv((c.me-k+c.p)%c.p, n))
	}
}

// bruckAllgather is the concatenation algorithm of Bruck et al., IEEE TPDS
// 8(11), 1997, as MPICH runs it for short messages and any p (Thakur et
// al. 2005, §3.1): step j sends everything gathered so far (2^j blocks)
// to rank me−2^j and receives as much from rank me+2^j, while 2^(j+1) ≤ p;
// a last step moves the remaining p−2^⌊log2 p⌋ blocks. A final local
// rotation puts the blocks in order and costs no network time.
func (c *coll) bruckAllgather(n int64) {
	d := int32(1)
	for ; d <= c.p/2; d <<= 1 {
		c.round(c.send((c.me-d+c.p)%c.p, int64(d)*n), c.recv((c.me+d)%c.p, int64(d)*n))
	}
	if rem := c.p - d; rem > 0 {
		c.round(c.send((c.me-d+c.p)%c.p, int64(rem)*n), c.recv((c.me+d)%c.p, int64(rem)*n))
	}
}

// recdoubAllgather is recursive doubling (Thakur et al. 2005, §3.1): in
// step j ranks me and me XOR 2^j swap the 2^j blocks each has gathered, so
// p blocks are everywhere after log2 p steps. It needs p to be a power of
// two; for other p Open MPI's recursive doubling runs Bruck's algorithm
// instead, and so does this.
func (c *coll) recdoubAllgather(n int64) {
	if !isPow2(c.p) {
		c.bruckAllgather(n)
		return
	}
	for mask := int32(1); mask < c.p; mask <<= 1 {
		peer := c.me ^ mask
		c.round(c.send(peer, int64(mask)*n), c.recv(peer, int64(mask)*n))
	}
}

// neighborAllgather is the neighbour exchange of J. Chen, L. Zhang, Y.
// Zhang and W. Yuan, "Performance evaluation of allgather algorithms on
// terascale Linux cluster with fast Ethernet", HPCAsia 2005, as Open MPI
// runs it for even p: even ranks pair first with their right neighbour,
// odd ranks with their left; after one step swapping their own blocks,
// p/2−1 steps alternate between the two neighbours, each passing on the
// two blocks received in the step before. For odd p Open MPI runs the
// ring instead, and so does this.
func (c *coll) neighborAllgather(n int64) {
	if c.p%2 != 0 {
		c.ringAllgather(n)
		return
	}
	right, left := (c.me+1)%c.p, (c.me-1+c.p)%c.p
	nb := [2]int32{right, left}
	if c.me%2 != 0 {
		nb = [2]int32{left, right}
	}
	c.round(c.send(nb[0], n), c.recv(nb[0], n))
	for i := int32(1); i < c.p/2; i++ {
		c.round(c.send(nb[i%2], 2*n), c.recv(nb[i%2], 2*n))
	}
}
