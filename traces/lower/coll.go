package lower

import (
	"math/bits"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// coll lowers one collective call on one rank. i is the rank within the
// communicator of size p.
type coll struct {
	l       *lowerer
	i, p    int
	members []int32
	tag     int32
}

func (c *coll) send(j int, b int64) graph.Op { return graph.SendOp(b, c.members[j], c.tag) }
func (c *coll) recv(j int, b int64) graph.Op { return graph.RecvOp(b, c.members[j], c.tag) }

// group emits ops concurrently (all requiring the frontier) and makes
// them the frontier. It returns their indices, valid until the next call.
func (c *coll) group(ops ...graph.Op) []int32 {
	l := c.l
	ids := l.buf[:0]
	for _, op := range ops {
		ids = append(ids, l.emit(op))
	}
	l.buf = ids
	if len(ids) > 0 {
		l.setFrontier(ids...)
	}
	return ids
}

// reduce inserts the combination cost of b received bytes after the
// receive op recv (which must be in the frontier) when the options ask for it.
func (c *coll) reduce(recv int32, b int64) {
	l := c.l
	ns := int64(float64(b) * l.opt.ReduceNsPerByte)
	if ns <= 0 {
		return
	}
	op := graph.CalcOp(ns)
	id := l.b.Add(l.rank, op)
	l.b.Dep(l.rank, id, recv, graph.Requires)
	for k, f := range l.st.frontier {
		if f == recv {
			l.st.frontier[k] = id
		}
	}
}

// reduceAll calls reduce for every receive among ids.
func (c *coll) reduceAll(ids []int32, ops []graph.Op) {
	ids = append([]int32(nil), ids...)
	for k, id := range ids {
		if ops[k].Kind == graph.Recv {
			c.reduce(id, ops[k].Size)
		}
	}
}

func (c *coll) mod(x int) int { return ((x % c.p) + c.p) % c.p }

func (l *lowerer) collective(r, ei int, e *mpi.Event) error {
	ci := l.commIndex(e.Comm)
	comm := &l.t.Comms[ci]
	i := int(l.local[ci][r])
	seq := l.collSeq[ci][i]
	l.collSeq[ci][i]++
	c := &coll{l: l, i: i, p: len(comm.Members), members: comm.Members, tag: CollTag(ci, seq)}
	root := int(e.Peer)
	b := e.Bytes
	switch alg := l.algs[e.Kind]; e.Kind {
	case mpi.Barrier:
		c.dissemination(0)
	case mpi.Bcast:
		c.bcastBinomial(root, b)
	case mpi.Reduce:
		c.reduceBinomial(root, b)
	case mpi.Allreduce:
		switch alg {
		case RecursiveDoubling:
			c.allreduceRecDoub(b)
		case Ring:
			c.allreduceRing(b)
		default:
			c.reduceBinomial(0, b)
			c.bcastBinomial(0, b)
		}
	case mpi.Allgather:
		c.ring(b, false)
	case mpi.Alltoall, mpi.Alltoallv:
		sendB := func(j int) int64 { return b }
		recvB := sendB
		if e.Kind == mpi.Alltoallv {
			mine := l.t.List(r, e)
			calls := l.collCalls[ci]
			sendB = func(j int) int64 { return mine[j] }
			recvB = func(j int) int64 {
				ref := calls[j][seq]
				return l.t.List(ref.rank, &l.t.Ranks[ref.rank].Events[ref.ev])[i]
			}
		}
		c.alltoall(alg == Pairwise, e.Kind == mpi.Alltoallv, sendB, recvB)
	case mpi.Gather:
		c.linearRooted(root, b, true)
	case mpi.Scatter:
		c.linearRooted(root, b, false)
	case mpi.ReduceScatter:
		if alg == Pairwise {
			c.pairwiseReduceScatter(b)
		} else {
			c.ring(b, true)
		}
	case mpi.Scan:
		if alg == RecursiveDoubling {
			c.scanRecDoub(b)
		} else {
			c.scanLinear(b)
		}
	}
	return nil
}

// dissemination: in round k rank i sends to i+2^k and receives from i−2^k
// (mod p); ⌈log2 p⌉ rounds, for any p.
func (c *coll) dissemination(b int64) {
	for d := 1; d < c.p; d *= 2 {
		c.group(c.send(c.mod(c.i+d), b), c.recv(c.mod(c.i-d), b))
	}
}

// highBit returns the largest power of two ≤ x (x > 0).
func highBit(x int) int { return 1 << (bits.Len(uint(x)) - 1) }

// bcastBinomial: relative rank v = i−root receives from v − highBit(v) and
// sends to v + 2^k for every 2^k > v with v + 2^k < p (the tree schedgen
// builds); p−1 messages in all, any p.
func (c *coll) bcastBinomial(root int, b int64) {
	v := c.mod(c.i - root)
	d := 1
	if v > 0 {
		c.group(c.recv(c.mod(v-highBit(v)+root), b))
		d = 2 * highBit(v)
	}
	var ops []graph.Op
	for ; v+d < c.p; d *= 2 {
		ops = append(ops, c.send(c.mod(v+d+root), b))
	}
	c.group(ops...)
}

// reduceBinomial is bcastBinomial reversed: receive (and combine) from all
// children, then send to the parent.
func (c *coll) reduceBinomial(root int, b int64) {
	v := c.mod(c.i - root)
	d := 1
	if v > 0 {
		d = 2 * highBit(v)
	}
	var ops []graph.Op
	for ; v+d < c.p; d *= 2 {
		ops = append(ops, c.recv(c.mod(v+d+root), b))
	}
	c.reduceAll(c.group(ops...), ops)
	if v > 0 {
		c.group(c.send(c.mod(v-highBit(v)+root), b))
	}
}

// allreduceRecDoub is recursive doubling with full-size messages. For p not
// a power of two it first folds (as MPICH does): with p' the largest power
// of two ≤ p and rem = p−p', each even rank i < 2·rem sends its data to i+1
// and sits out; the p' remaining ranks run log2 p' exchange rounds; then
// each odd rank i < 2·rem sends the result back to i−1.
func (c *coll) allreduceRecDoub(b int64) {
	pof2 := highBit(c.p)
	rem := c.p - pof2
	i := c.i
	nr := i - rem
	if i < 2*rem {
		if i%2 == 0 {
			c.group(c.send(i+1, b))
			nr = -1
		} else {
			ids := c.group(c.recv(i-1, b))
			c.reduce(ids[0], b)
			nr = i / 2
		}
	}
	if nr >= 0 {
		for mask := 1; mask < pof2; mask *= 2 {
			n := nr ^ mask
			dst := n + rem
			if n < rem {
				dst = 2*n + 1
			}
			ids := c.group(c.send(dst, b), c.recv(dst, b))
			c.reduce(ids[1], b)
		}
	}
	if i < 2*rem {
		if i%2 == 1 {
			c.group(c.send(i-1, b))
		} else {
			c.group(c.recv(i+1, b))
		}
	}
}

// chunk returns the size of chunk k when b bytes are split into p chunks.
func (c *coll) chunk(b int64, k int) int64 {
	q, r := b/int64(c.p), b%int64(c.p)
	if int64(k) < r {
		return q + 1
	}
	return q
}

// allreduceRing: a ring reduce-scatter of p−1 steps followed by a ring
// allgather of p−1 steps over chunks of b/p bytes: 2(p−1) sends per rank.
func (c *coll) allreduceRing(b int64) {
	next, prev := c.mod(c.i+1), c.mod(c.i-1)
	for s := 0; s < c.p-1; s++ {
		ids := c.group(c.send(next, c.chunk(b, c.mod(c.i-s))), c.recv(prev, c.chunk(b, c.mod(c.i-s-1))))
		c.reduce(ids[1], c.chunk(b, c.mod(c.i-s-1)))
	}
	for s := 0; s < c.p-1; s++ {
		c.group(c.send(next, c.chunk(b, c.mod(c.i+1-s))), c.recv(prev, c.chunk(b, c.mod(c.i-s))))
	}
}

// ring: p−1 steps, each sending b bytes to i+1 and receiving b bytes from
// i−1 (allgather; reduce_scatter when reducing, with a combine per step).
func (c *coll) ring(b int64, reducing bool) {
	next, prev := c.mod(c.i+1), c.mod(c.i-1)
	for s := 0; s < c.p-1; s++ {
		ids := c.group(c.send(next, b), c.recv(prev, b))
		if reducing {
			c.reduce(ids[1], b)
		}
	}
}

// pairwiseReduceScatter: step k = 1..p−1 sends rank i+k its block of b
// bytes and receives (and combines) rank i−k's contribution to i's block.
func (c *coll) pairwiseReduceScatter(b int64) {
	for k := 1; k < c.p; k++ {
		ids := c.group(c.send(c.mod(c.i+k), b), c.recv(c.mod(c.i-k), b))
		c.reduce(ids[1], b)
	}
}

// alltoall: linear posts all p−1 sends (to i+k) and receives (from i−k)
// at once; pairwise runs them as p−1 exchange steps. With skipZero,
// zero-byte messages are left out (alltoallv).
func (c *coll) alltoall(pairwise, skipZero bool, sendB, recvB func(int) int64) {
	var ops []graph.Op
	for k := 1; k < c.p; k++ {
		to, from := c.mod(c.i+k), c.mod(c.i-k)
		if sb := sendB(to); !skipZero || sb > 0 {
			ops = append(ops, c.send(to, sb))
		}
		if rb := recvB(from); !skipZero || rb > 0 {
			ops = append(ops, c.recv(from, rb))
		}
		if pairwise {
			c.group(ops...)
			ops = ops[:0]
		}
	}
	c.group(ops...)
}

// linearRooted: gather (the root receives from every other member at
// once, the others send to it) or scatter (the reverse).
func (c *coll) linearRooted(root int, b int64, gather bool) {
	if c.i != root {
		if gather {
			c.group(c.send(root, b))
		} else {
			c.group(c.recv(root, b))
		}
		return
	}
	var ops []graph.Op
	for k := 1; k < c.p; k++ {
		j := c.mod(root + k)
		if gather {
			ops = append(ops, c.recv(j, b))
		} else {
			ops = append(ops, c.send(j, b))
		}
	}
	c.group(ops...)
}

// scanLinear: a chain; rank i receives from i−1, combines, sends to i+1.
func (c *coll) scanLinear(b int64) {
	if c.i > 0 {
		ids := c.group(c.recv(c.i-1, b))
		c.reduce(ids[0], b)
	}
	if c.i < c.p-1 {
		c.group(c.send(c.i+1, b))
	}
}

// scanRecDoub: in round d = 1, 2, 4, … rank i sends its partial result to
// i+d (if < p) and receives from i−d (if ≥ 0), combining.
func (c *coll) scanRecDoub(b int64) {
	for d := 1; d < c.p; d *= 2 {
		var ops []graph.Op
		if c.i+d < c.p {
			ops = append(ops, c.send(c.i+d, b))
		}
		if c.i-d >= 0 {
			ops = append(ops, c.recv(c.i-d, b))
		}
		c.reduceAll(c.group(ops...), ops)
	}
}
