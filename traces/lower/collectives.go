package lower

import (
	"math/bits"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// coll builds one rank's part of one collective as rounds: every operation
// of a round requires every operation of the round before (the first round
// follows the rank's program order).
type coll struct {
	l       *lowerer
	st      *rankState
	in      *instance
	members []int32
	p, me   int32
	tag     int32
	front   []int32
	spare   []int32 // the other round buffer (see round)
	first   bool
	// forks counts the parallel parts (channels, trees) begun so far;
	// part i sends with tag tag+i·tagStep (tagStep 0: all share tag).
	forks   *int32
	base    int32 // the call's first tag
	tagStep int32
	// wire, when set, gives the call's sends their wire protocol.
	wire *ncclWire
}

// round adds ops as one round.
func (c *coll) round(ops ...graph.Op) {
	if len(ops) == 0 {
		return
	}
	// Alternate between two buffers: the previous round (c.front) must
	// stay intact while this round's dependencies are added.
	ids := c.spare[:0]
	for _, op := range ops {
		op.Tag = c.tag
		if c.first {
			ids = append(ids, c.l.add(c.st, op))
			continue
		}
		id := c.l.b.Add(c.st.rank, c.st.label(op))
		for _, d := range c.front {
			c.l.b.Dep(c.st.rank, id, d, graph.Requires)
		}
		ids = append(ids, id)
	}
	c.first = false
	c.front, c.spare = ids, c.front
}

// world maps a communicator rank to its world rank.
func (c *coll) world(x int32) int32 { return c.members[x] }

func (c *coll) send(to int32, bytes int64) graph.Op {
	op := graph.SendOp(bytes, c.world(to), 0)
	if c.wire != nil {
		op.Wire = uint8(c.wire.of(int32(c.st.rank), op.Peer))
	}
	return op
}
func (c *coll) recv(from int32, bytes int64) graph.Op {
	return graph.RecvOp(bytes, c.world(from), 0)
}

// reduce adds the compute cost of combining bytes of received data.
func (c *coll) reduce(bytes int64) {
	if ns := c.l.opt.ReduceNsPerByte * float64(bytes); ns > 0 {
		c.round(graph.CalcOp(graph.SatNs(ns)))
	}
}

func (l *lowerer) collective(st *rankState, ev int, key collKey) error {
	in := l.inst[key]
	cm := l.comms[key.comm]
	tag := CollectiveTagBase | key.comm<<20 | int32(key.seq&(1<<(20-partBits)-1))<<partBits
	c := &coll{l: l, st: st, in: in, members: cm.Members, p: int32(len(cm.Members)),
		me: l.commRank[key.comm][int32(st.rank)], first: true, forks: new(int32),
		tag: tag, base: tag, tagStep: 1}
	alg := l.opt.Algorithm[in.kind]
	switch alg {
	case "":
		alg = algorithms[in.kind][0]
	case SelectOpenMPI, SelectMPICH, SelectNCCL:
		alg, c.wire = l.opt.selected(alg, in.kind, cm.Members, in.bytes)
	}
	if c.p > 1 {
		c.run(in.kind, alg)
	}
	if !c.first {
		st.last = append(st.last[:0], c.front...)
		st.started = -1
	}
	return nil
}

func (c *coll) run(kind mpi.Kind, alg string) {
	n := c.in.bytes
	if alg == "schedgen" {
		c.schedgen(kind, n)
		return
	}
	if c.nccl(kind, alg, n) {
		return
	}
	switch kind {
	case mpi.Barrier:
		if alg == "linear" {
			c.linearBarrier()
		} else {
			c.dissemination()
		}
	case mpi.Bcast:
		switch alg {
		case "linear":
			c.linearFanOut(c.in.root, n)
		case "scatter-rdb-allgather", "scatter-ring-allgather":
			c.scatterAllgatherBcast(c.in.root, n, alg == "scatter-ring-allgather")
		case "pipeline":
			c.pipelineBcast(c.in.root, n)
		default:
			c.binomialBcast(c.in.root, n)
		}
	case mpi.Reduce:
		if alg == "linear" {
			c.linearReduce(c.in.root, n)
		} else {
			c.binomialReduce(c.in.root, n)
		}
	case mpi.Allreduce:
		switch alg {
		case "ring":
			c.ringAllreduce(n)
		case "reduce-bcast":
			c.binomialReduce(0, n)
			c.binomialBcast(0, n)
		case "rabenseifner":
			c.rabenseifnerAllreduce(n)
		default:
			c.recdoubAllreduce(n)
		}
	case mpi.Allgather:
		switch alg {
		case "linear":
			c.linearExchange(func(int32, int32) int64 { return n })
		case "bruck":
			c.bruckAllgather(n)
		case "recdoub":
			c.recdoubAllgather(n)
		case "neighbor":
			c.neighborAllgather(n)
		case "shift":
			c.shiftAllgather(n)
		default:
			c.ringAllgather(n)
		}
	case mpi.Alltoall, mpi.Alltoallv:
		size := func(from, to int32) int64 { return n }
		if kind == mpi.Alltoallv {
			size = func(from, to int32) int64 { return c.in.lists[from][to] }
		}
		switch alg {
		case "linear":
			c.linearExchange(size)
		case "pairwise-xor":
			c.xorAlltoall(size)
		case "bruck":
			c.bruckAlltoall(n)
		default:
			c.shiftAlltoall(size)
		}
	case mpi.Gather:
		if alg == "binomial" {
			c.binomialGather(c.in.root, n)
		} else {
			c.linearFanIn(c.in.root, n)
		}
	case mpi.Scatter:
		if alg == "binomial" {
			c.binomialScatter(c.in.root, n)
		} else {
			c.linearFanOut(c.in.root, n)
		}
	case mpi.ReduceScatter:
		chunk := ceilDiv(n, int64(c.p))
		switch alg {
		case "reduce-scatter":
			c.binomialReduce(0, n)
			c.linearFanOut(0, chunk)
		case "rechalving":
			c.recHalvingReduceScatter(n)
		case "pairwise":
			// Step k sends rank me+k its block and receives (and combines)
			// rank me−k's contribution to this rank's block.
			for k := int32(1); k < c.p; k++ {
				c.round(c.send((c.me+k)%c.p, chunk), c.recv((c.me-k+c.p)%c.p, chunk))
				c.reduce(chunk)
			}
		default:
			c.ringReduceScatter(n)
		}
	case mpi.Scan:
		if alg == "recdoub" {
			for mask := int32(1); mask < c.p; mask <<= 1 {
				if dst := c.me ^ mask; dst < c.p {
					c.round(c.send(dst, n), c.recv(dst, n))
					c.reduce(n)
				}
			}
		} else {
			if c.me > 0 {
				c.round(c.recv(c.me-1, n))
				c.reduce(n)
			}
			if c.me < c.p-1 {
				c.round(c.send(c.me+1, n))
			}
		}
	}
}

// ceilDiv is ⌈a/b⌉ for a ≥ 0 and b > 0, without the overflow of
// (a+b−1)/b for sizes near the int64 limit.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

func (c *coll) dissemination() {
	for k := int32(1); k < c.p; k <<= 1 {
		c.round(c.send((c.me+k)%c.p, 0), c.recv((c.me-k%c.p+c.p)%c.p, 0))
	}
}

func (c *coll) linearBarrier() {
	if c.me == 0 {
		var in, out []graph.Op
		for x := int32(1); x < c.p; x++ {
			in = append(in, c.recv(x, 0))
			out = append(out, c.send(x, 0))
		}
		c.round(in...)
		c.round(out...)
		return
	}
	c.round(c.send(0, 0))
	c.round(c.recv(0, 0))
}

// rel and abs convert between communicator ranks and ranks relative to root.
func (c *coll) rel(root int32) int32    { return (c.me - root + c.p) % c.p }
func (c *coll) abs(v, root int32) int32 { return (v + root) % c.p }

func (c *coll) binomialBcast(root int32, n int64) {
	v := c.rel(root)
	mask := int32(1)
	for mask < c.p {
		if v&mask != 0 {
			c.round(c.recv(c.abs(v-mask, root), n))
			break
		}
		mask <<= 1
	}
	var sends []graph.Op
	for mask >>= 1; mask > 0; mask >>= 1 {
		if v+mask < c.p {
			sends = append(sends, c.send(c.abs(v+mask, root), n))
		}
	}
	c.round(sends...)
}

func (c *coll) binomialReduce(root int32, n int64) {
	v := c.rel(root)
	for mask := int32(1); mask < c.p; mask <<= 1 {
		if v&mask == 0 {
			if src := v | mask; src < c.p {
				c.round(c.recv(c.abs(src, root), n))
				c.reduce(n)
			}
			continue
		}
		c.round(c.send(c.abs(v&^mask, root), n))
		return
	}
}

// linearFanOut is the linear broadcast and scatter (n: one rank's
// block): the root sends every other rank n bytes in one round.
func (c *coll) linearFanOut(root int32, n int64) {
	if c.me != root {
		c.round(c.recv(root, n))
		return
	}
	var sends []graph.Op
	for x := int32(0); x < c.p; x++ {
		if x != root {
			sends = append(sends, c.send(x, n))
		}
	}
	c.round(sends...)
}

// linearFanIn is the linear gather: every other rank sends the root n
// bytes, received in one round.
func (c *coll) linearFanIn(root int32, n int64) {
	if c.me != root {
		c.round(c.send(root, n))
		return
	}
	var recvs []graph.Op
	for x := int32(0); x < c.p; x++ {
		if x != root {
			recvs = append(recvs, c.recv(x, n))
		}
	}
	c.round(recvs...)
}

// linearReduce is linearFanIn with the root combining the p−1
// contributions.
func (c *coll) linearReduce(root int32, n int64) {
	c.linearFanIn(root, n)
	if c.me == root {
		c.reduce(n * int64(c.p-1))
	}
}

func (c *coll) linearExchange(size func(from, to int32) int64) {
	var ops []graph.Op
	for k := int32(1); k < c.p; k++ {
		to, from := (c.me+k)%c.p, (c.me-k+c.p)%c.p
		ops = append(ops, c.send(to, size(c.me, to)), c.recv(from, size(from, c.me)))
	}
	c.round(ops...)
}

// binomialGather sends whole subtrees up a binomial tree: a rank forwards
// the blocks of every rank below it.
func (c *coll) binomialGather(root int32, n int64) {
	v := c.rel(root)
	for mask := int32(1); mask < c.p; mask <<= 1 {
		if v&mask == 0 {
			if src := v | mask; src < c.p {
				c.round(c.recv(c.abs(src, root), n*int64(min(mask, c.p-src))))
			}
			continue
		}
		c.round(c.send(c.abs(v&^mask, root), n*int64(min(mask, c.p-v))))
		return
	}
}

// binomialScatter is binomialGather reversed.
func (c *coll) binomialScatter(root int32, n int64) {
	v := c.rel(root)
	mask := int32(1)
	for mask < c.p {
		if v&mask != 0 {
			c.round(c.recv(c.abs(v-mask, root), n*int64(min(mask, c.p-v))))
			break
		}
		mask <<= 1
	}
	var sends []graph.Op
	for mask >>= 1; mask > 0; mask >>= 1 {
		if dst := v + mask; dst < c.p {
			sends = append(sends, c.send(c.abs(dst, root), n*int64(min(mask, c.p-dst))))
		}
	}
	c.round(sends...)
}

// add adds op to the collective: after the rank's program order when deps
// is empty (schedgen's independent operations), else requiring deps.
func (c *coll) add(op graph.Op, deps ...int32) int32 {
	op.Tag = c.tag
	if len(deps) == 0 {
		return c.l.add(c.st, op)
	}
	id := c.l.b.Add(c.st.rank, c.st.label(op))
	for _, d := range deps {
		c.l.b.Dep(c.st.rank, id, d, graph.Requires)
	}
	return id
}

// end makes ids what the operations after the collective require.
func (c *coll) end(ids []int32) {
	c.front = append(c.front[:0], ids...)
	c.first = false
}

// swapRoot exchanges rank 0 and root, schedgen's virtual ranks for rooted
// trees (its own inverse).
func swapRoot(x, root int32) int32 {
	switch x {
	case 0:
		return root
	case root:
		return 0
	}
	return x
}

// schedgen lowers the collective as LogGOPSim's schedgen writes it for a
// trace (see algorithms), adding operations in schedgen's order so that
// operations freed together start in the same order.
func (c *coll) schedgen(kind mpi.Kind, n int64) {
	var ends []int32
	switch kind {
	case mpi.Barrier, mpi.Allreduce, mpi.Allgather:
		if kind == mpi.Barrier {
			n = 1
		}
		recv := int32(-1)
		for dist := int32(1); dist < c.p; dist <<= 1 {
			var s int32
			if recv >= 0 {
				s = c.add(c.send((c.me+dist)%c.p, n), recv)
			} else {
				s = c.add(c.send((c.me+dist)%c.p, n))
			}
			ends = append(ends, s)
			recv = c.add(c.recv((c.me-dist+c.p)%c.p, n))
		}
		if recv >= 0 {
			ends = append(ends, recv)
		}
	case mpi.Bcast:
		root := c.in.root
		v := swapRoot(c.me, root)
		recv := int32(-1)
		for r := int32(1); r < c.p; r <<= 1 { // r = 2^round
			if v+r < c.p && v < r {
				var s int32
				if recv >= 0 {
					s = c.add(c.send(swapRoot(v+r, root), n), recv)
				} else {
					s = c.add(c.send(swapRoot(v+r, root), n))
				}
				ends = append(ends, s)
			}
			if v >= r && v < 2*r {
				recv = c.add(c.recv(swapRoot(v-r, root), n))
			}
		}
		if len(ends) == 0 && recv >= 0 {
			ends = append(ends, recv)
		}
	case mpi.Reduce:
		// The send to the parent (written first) requires every receive
		// from the children, which come in later rounds; a leaf's send
		// follows program order.
		root := c.in.root
		v := swapRoot(c.me, root)
		hasChild := v+1 < c.p && v == 0 || v > 0 && v+(1<<bits.Len32(uint32(v))) < c.p
		send := int32(-1)
		var recvs []int32
		for r := int32(1); r < c.p; r <<= 1 {
			if v+r < c.p && v < r {
				recvs = append(recvs, c.add(c.recv(swapRoot(v+r, root), n)))
			}
			if v >= r && v < 2*r {
				op := c.send(swapRoot(v-r, root), n)
				if hasChild {
					op.Tag = c.tag
					send = c.l.b.Add(c.st.rank, c.st.label(op))
				} else {
					send = c.add(op)
				}
			}
		}
		if send >= 0 {
			if hasChild {
				for _, d := range recvs {
					c.l.b.Dep(c.st.rank, send, d, graph.Requires)
				}
			}
			ends = append(ends, send)
		} else {
			ends = recvs
		}
	case mpi.Alltoall:
		for step := int32(1); step < c.p; step++ {
			ends = append(ends, c.add(c.send((c.me+step)%c.p, n)))
			ends = append(ends, c.add(c.recv((c.me-step+c.p)%c.p, n)))
		}
	default:
		c.run(kind, algorithms[kind][0])
		return
	}
	c.end(ends)
}
