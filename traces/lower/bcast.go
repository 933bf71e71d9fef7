package lower

// scatterAllgatherBcast is van de Geijn's long-message broadcast as MPICH
// runs it (M. Barnett, S. Gupta, D. Payne, L. Shuler, R. van de Geijn and
// J. Watts, "Interprocessor Collective Communication Library
// (InterCom)", SHPCC 1994; Thakur, Rabenseifner and Gropp, IJHPCA 19(1),
// 2005, §3.2): the root scatters the n bytes in p chunks of ⌈n/p⌉ down a
// binomial tree (a rank receives its subtree's chunks, then passes on
// halves of them, one blocking send after another), then the chunks are
// allgathered, by recursive doubling when ring is false and p is a power
// of two, around a ring otherwise. Ranks whose chunks lie past n receive
// nothing in the scatter.
func (c *coll) scatterAllgatherBcast(root int32, n int64, ring bool) {
	v := c.rel(root)
	ss := ceilDiv(n, int64(c.p))
	// chunks returns the bytes of the chunks of relative ranks
	// [from, from+count), clipped to n.
	chunks := func(from, count int32) int64 {
		return max(0, min(n, int64(from+count)*ss)-int64(from)*ss)
	}
	top := int32(1)
	for top < c.p {
		top <<= 1
	}
	mask := top
	if v != 0 {
		mask = v & -v
		if b := chunks(v, mask); b > 0 {
			c.round(c.recv(c.abs(v-mask, root), b))
		}
	}
	for m := mask / 2; m > 0; m /= 2 {
		if v+m < c.p {
			if b := chunks(v+m, m); b > 0 {
				c.round(c.send(c.abs(v+m, root), b))
			}
		}
	}
	if ring || !isPow2(c.p) {
		right, left := (c.me+1)%c.p, (c.me-1+c.p)%c.p
		j, jnext := v, (v-1+c.p)%c.p
		for k := int32(1); k < c.p; k++ {
			c.round(c.send(right, chunks(j, 1)), c.recv(left, chunks(jnext, 1)))
			j, jnext = jnext, (jnext-1+c.p)%c.p
		}
		return
	}
	for m := int32(1); m < c.p; m <<= 1 {
		dst := v ^ m
		c.round(c.send(c.abs(dst, root), chunks(v&^(m-1), m)), c.recv(c.abs(dst, root), chunks(dst&^(m-1), m)))
	}
}

// maxSegments bounds the segments of a pipelined broadcast: a message of
// more than maxSegments of Open MPI's segments (512 MiB of 128 KiB) gets
// bigger segments, so that the operations of a call stay bounded whatever
// its size.
const maxSegments = 1 << 12

// pipelineSegment is the segment size of Open MPI's pipelined broadcast
// for p ranks and n bytes: 128, 64 or 16 KiB by the linear fits in its
// fixed decision rule (as SimGrid's bcast-ompi-pipeline.cpp keeps them;
// fits of p against n for 128-, 64- and 16-rank measurements).
func pipelineSegment(p int32, n int64) int64 {
	x := float64(n)
	switch q := float64(p); {
	case q < 1.6134e-6*x+2.1102:
		return 128 << 10
	case q < 2.3679e-6*x+1.1787:
		return 64 << 10
	case q < 3.2118e-6*x+8.7936:
		return 16 << 10
	}
	return 128 << 10
}

// pipelineBcast is the segmented chain broadcast (Open MPI's pipeline
// and chain with one child; Thakur et al. 2005, §3.2 discuss pipelining):
// relative rank v receives each segment from v−1 and forwards it to v+1,
// forwarding segment k while it receives segment k+1, so the chain's
// latency is paid once and the segments stream behind it.
func (c *coll) pipelineBcast(root int32, n int64) {
	seg := pipelineSegment(c.p, n)
	if ceilDiv(n, seg) > maxSegments {
		seg = ceilDiv(n, maxSegments)
	}
	nseg := max(1, ceilDiv(n, seg))
	size := func(k int64) int64 { return min(seg, n-k*seg) }
	v := c.rel(root)
	prev, next := c.abs(v-1+c.p, root), c.abs(v+1, root)
	switch {
	case v == 0:
		for k := int64(0); k < nseg; k++ {
			c.round(c.send(next, size(k)))
		}
	case v == c.p-1:
		for k := int64(0); k < nseg; k++ {
			c.round(c.recv(prev, size(k)))
		}
	default:
		c.round(c.recv(prev, size(0)))
		for k := int64(1); k < nseg; k++ {
			c.round(c.send(next, size(k-1)), c.recv(prev, size(k)))
		}
		c.round(c.send(next, size(nseg-1)))
	}
}
