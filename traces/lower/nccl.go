package lower

import (
	"fmt"
	"math"
	"strings"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// SelectNCCL is the selector that runs every collective as NCCL does
// (NVIDIA Collective Communications Library, src/device and src/graph):
// ring allreduce, allgather, reduce-scatter, and pipelined chains for
// broadcast and reduce, point-to-point exchanges for all-to-all, each split
// across Options.Channels channels. NCCL has no barrier, gather or scatter
// kernels (frameworks build them from these); the selector takes
// dissemination, linear gather and linear scatter for them.
const SelectNCCL = "nccl"

// The NCCL algorithm names.
const (
	ncclRing = "nccl-ring"
	ncclTree = "nccl-tree"
	ncclP2P  = "nccl-p2p"
)

// DefaultChunkBytes is the pipeline chunk of NCCL's tree and chain
// algorithms: one step of the Simple protocol's buffer (NCCL_BUFFSIZE
// 4 MiB over NCCL_STEPS 8).
const DefaultChunkBytes = 512 << 10

// maxChannels bounds Options.Channels (NCCL's MAXCHANNELS is 32 or 64).
const maxChannels = 64

// maxChunks bounds the chunks one pipelined part is cut into; bigger
// messages get bigger chunks.
const maxChunks = 256

// ncclChoice is the algorithm the nccl selector takes for kind k.
func ncclChoice(k mpi.Kind) string {
	switch k {
	case mpi.Allreduce, mpi.Allgather, mpi.ReduceScatter, mpi.Bcast, mpi.Reduce:
		return ncclRing
	case mpi.Alltoall, mpi.Alltoallv:
		return ncclP2P
	case mpi.Barrier:
		return "dissemination"
	}
	return "linear"
}

func (o Options) check() error {
	if o.ReduceNsPerByte < 0 {
		return fmt.Errorf("lower: negative reduction cost %g ns/byte", o.ReduceNsPerByte)
	}
	if o.Channels < 0 || o.Channels > maxChannels {
		return fmt.Errorf("lower: %d channels (want 0..%d)", o.Channels, maxChannels)
	}
	if o.ChunkBytes < 0 {
		return fmt.Errorf("lower: negative chunk size %d", o.ChunkBytes)
	}
	if o.RanksPerNode < 0 {
		return fmt.Errorf("lower: %d ranks per node", o.RanksPerNode)
	}
	if o.IntraLink > Net {
		return fmt.Errorf("lower: intra-node link kind %d (want %d..%d)", o.IntraLink, NVLink, Net)
	}
	if o.BusBytesPerNs < 0 || math.IsNaN(o.BusBytesPerNs) || math.IsInf(o.BusBytesPerNs, 0) {
		return fmt.Errorf("lower: bus bandwidth %g bytes/ns (want finite, ≥ 0)", o.BusBytesPerNs)
	}
	return nil
}

// selected is the algorithm selector sel picks for a call of kind k
// moving n bytes on the group members, and under the nccl selector with
// the tuning inputs set the protocol its messages travel with (nil: the
// network's own parameters).
func (o Options) selected(sel string, k mpi.Kind, members []int32, n int64) (string, *ncclWire) {
	alg := choose(sel, k, int32(len(members)), n)
	if sel == SelectNCCL {
		return o.ncclTuned(k, members, n, alg)
	}
	return alg, nil
}

// ncclWire is how the messages of a tuned NCCL call travel: the call's
// algorithm and protocol, the nodes its group spans, and the placement
// that tells a message within a node (Options.IntraLink) from one
// between nodes (Net).
type ncclWire struct {
	alg     string
	proto   Protocol
	nodes   int
	perNode int32
	intra   Link
}

// of returns the wire of a message from world rank from to world rank to.
func (w *ncclWire) of(from, to int32) Wire {
	l := w.intra
	if from/w.perNode != to/w.perNode {
		l = Net
	}
	x, _ := NewWire(w.alg, w.proto, l, w.nodes) // checked when the tuning took w.alg
	return x
}

// ncclTuned is the algorithm the nccl selector takes for a call of kind k
// moving n bytes (mpi.Event.Bytes) on the group members, given its fixed
// choice alg, and the wire of its messages: alg and nil, except that
// with the tuning inputs set (Options.RanksPerNode,
// Options.BusBytesPerNs) an allreduce, allgather, reduce-scatter,
// broadcast or reduce takes TuneNCCL's algorithm (ring or tree for an
// allreduce, the ring otherwise) and its messages TuneNCCL's protocol.
// The group spans the nodes its members sit on; a group with unequal
// numbers of members per node, which NCCL's model does not describe,
// keeps alg and the network's parameters.
func (o Options) ncclTuned(k mpi.Kind, members []int32, n int64, alg string) (string, *ncclWire) {
	if o.RanksPerNode <= 0 || o.BusBytesPerNs <= 0 || len(members) < 2 {
		return alg, nil
	}
	bytes := n // the size NCCL's tuning takes: the whole buffer
	switch k {
	case mpi.Allreduce, mpi.ReduceScatter, mpi.Bcast, mpi.Reduce:
	case mpi.Allgather:
		bytes = n * int64(len(members))
	default:
		return alg, nil
	}
	perNode := map[int32]int{}
	for _, m := range members {
		perNode[m/int32(o.RanksPerNode)]++
	}
	nodes := len(perNode)
	for _, c := range perNode {
		if c != len(members)/nodes || len(members)%nodes != 0 {
			return alg, nil
		}
	}
	t, err := TuneNCCL(k, bytes, len(members), nodes, o.IntraLink, o.BusBytesPerNs)
	if err != nil {
		return alg, nil
	}
	return t.Algorithm, &ncclWire{alg: t.Algorithm, proto: t.Protocol, nodes: nodes, perNode: int32(o.RanksPerNode), intra: o.IntraLink}
}

// nccl runs kind with NCCL algorithm alg and reports whether alg is one.
func (c *coll) nccl(kind mpi.Kind, alg string, n int64) bool {
	if !strings.HasPrefix(alg, "nccl-") {
		return false
	}
	root := c.in.root
	switch {
	case kind == mpi.Allreduce && alg == ncclTree:
		c.channels(n, func(d *coll, n int64) {
			half := blocks{n, 2}
			c0, c1 := btrees(c.p, c.me)
			d.parallel(2, func(i int, e *coll) { e.treeAllreduce([]treePos{c0, c1}[i], half.size(int32(i))) })
		})
	case kind == mpi.Allreduce:
		c.channels(n, func(d *coll, n int64) { d.ringAllreduce(n) })
	case kind == mpi.Allgather:
		c.channels(n, func(d *coll, n int64) { d.ringAllgather(n) })
	case kind == mpi.ReduceScatter:
		c.channels(n, func(d *coll, n int64) { d.ringReduceScatter(n) })
	case kind == mpi.Bcast:
		c.channels(n, func(d *coll, n int64) { d.chain(root, n, false) })
	case kind == mpi.Reduce:
		c.channels(n, func(d *coll, n int64) { d.chain(root, n, true) })
	case kind == mpi.Alltoall:
		c.channels(n, func(d *coll, n int64) { d.p2pExchange(func(int32, int32) int64 { return n }) })
	case kind == mpi.Alltoallv:
		k := c.nchannels(1)
		c.parallel(k, func(i int, d *coll) {
			d.p2pExchange(func(from, to int32) int64 { return blocks{c.in.lists[from][to], int64(k)}.size(int32(i)) })
		})
	default:
		return false
	}
	return true
}

// nchannels is the number of channels for a message of n bytes: the
// option, but no more channels than bytes.
func (c *coll) nchannels(n int64) int {
	k := max(1, c.l.opt.Channels)
	if int64(k) > n {
		k = int(max(1, n))
	}
	return k
}

// channels splits n bytes across the channels and runs body on each share.
func (c *coll) channels(n int64, body func(d *coll, n int64)) {
	k := c.nchannels(n)
	b := blocks{n, int64(k)}
	c.parallel(k, func(i int, d *coll) { body(d, b.size(int32(i))) })
}

// parallel runs k parts that start together after what came before and
// do not wait for each other; the collective continues once all are done.
// Part i sends with its own tag when tagStep is set.
func (c *coll) parallel(k int, body func(i int, d *coll)) {
	var out []int32
	empty := false
	for i := 0; i < k; i++ {
		d := *c
		d.front, d.spare = append([]int32(nil), c.front...), nil
		if c.tagStep != 0 {
			d.tag = c.base + *c.forks*c.tagStep
		}
		*c.forks++
		body(i, &d)
		if d.first {
			empty = true
			continue
		}
		out = append(out, d.front...)
	}
	if out == nil {
		return
	}
	if empty {
		if c.first {
			out = append(out, c.st.last...)
		} else {
			out = append(out, c.front...)
		}
	}
	c.front, c.spare, c.first = out, nil, false
}

// pipeline runs the stages of a part on nchunks chunks, so that a link
// carries chunk k+1 while the next carries chunk k: stage s of chunk k
// requires stage s−1 of chunk k and stage s of chunk k−1. stage(s, k)
// returns the operations of stage s (of nstages) for chunk k; a rank with
// no operations in a stage returns none.
func (c *coll) pipeline(nchunks int64, nstages int, stage func(s int, k int64) []graph.Op) {
	prevChunk := make([][]int32, nstages)
	var last []int32
	for k := int64(0); k < nchunks; k++ {
		var prev []int32
		for s := 0; s < nstages; s++ {
			ops := stage(s, k)
			if len(ops) == 0 {
				continue
			}
			ids := make([]int32, 0, len(ops))
			for _, op := range ops {
				op.Tag = c.tag
				var id int32
				if prev == nil && c.first {
					id = c.l.add(c.st, op)
				} else {
					id = c.l.b.Add(c.st.rank, c.st.label(op))
					deps := prev
					if prev == nil {
						deps = c.front
					}
					for _, d := range deps {
						c.l.b.Dep(c.st.rank, id, d, graph.Requires)
					}
				}
				for _, d := range prevChunk[s] {
					c.l.b.Dep(c.st.rank, id, d, graph.Requires)
				}
				ids = append(ids, id)
			}
			prevChunk[s], prev = ids, ids
		}
		if prev != nil {
			last = prev
		}
	}
	if last != nil {
		c.front, c.spare, c.first = last, nil, false
	}
}

// chunks cuts n bytes into pipeline chunks of Options.ChunkBytes (at most
// maxChunks of them).
func (c *coll) chunks(n int64) blocks {
	size := c.l.opt.ChunkBytes
	if size == 0 {
		size = DefaultChunkBytes
	}
	k := min(max(1, ceilDiv(n, size)), maxChunks)
	return blocks{n, k}
}

// chain is NCCL's pipelined chain (ring) broadcast from root, or with
// reduce set its reduce to root: the data flows in chunks along the ring
// root, root+1, …, root−1 (reduce: the other way round, ending at root),
// every rank forwarding chunk k while it receives chunk k+1.
func (c *coll) chain(root int32, n int64, reduce bool) {
	v := c.rel(root)
	prev, next := c.abs(v-1+c.p, root), c.abs(v+1, root)
	first, last := v == 0, v == c.p-1
	if reduce {
		prev, next = next, prev
		first, last = last, first
	}
	b := c.chunks(n)
	c.pipeline(b.k, 3, func(s int, k int64) []graph.Op {
		x := b.size(int32(k))
		switch {
		case s == 0 && !first:
			return []graph.Op{c.recv(prev, x)}
		case s == 1 && reduce && !first:
			return c.reduceOps(x)
		case s == 2 && !last:
			return []graph.Op{c.send(next, x)}
		}
		return nil
	})
}

// reduceOps is the calc that combines bytes received (none when free).
func (c *coll) reduceOps(bytes int64) []graph.Op {
	if ns := c.l.opt.ReduceNsPerByte * float64(bytes); ns > 0 {
		return []graph.Op{graph.CalcOp(graph.SatNs(ns))}
	}
	return nil
}

// p2pExchange is NCCL's all-to-all: one group of sends and receives with
// every other rank, all in flight at once.
func (c *coll) p2pExchange(size func(from, to int32) int64) {
	ops := make([]graph.Op, 0, 2*(c.p-1))
	for k := int32(1); k < c.p; k++ {
		to, from := (c.me+k)%c.p, (c.me-k+c.p)%c.p
		ops = append(ops, c.send(to, size(c.me, to)), c.recv(from, size(from, c.me)))
	}
	c.round(ops...)
}

// treePos is a rank's place in a binary tree: its parent and children
// (−1 where there is none).
type treePos struct{ up, down0, down1 int32 }

// btree is the place of rank r in NCCL's binary tree over p ranks
// (ncclGetBtree, src/graph/trees.cc): rank 0 is the root with one child,
// and rank r's parent and children follow from its lowest set bit.
func btree(p, r int32) treePos {
	bit := int32(1)
	for ; bit < p; bit <<= 1 {
		if bit&r != 0 {
			break
		}
	}
	if r == 0 {
		t := treePos{-1, -1, -1}
		if p > 1 {
			t.down1 = bit >> 1
		}
		return t
	}
	up := (r ^ bit) | bit<<1
	if up >= p {
		up = r ^ bit
	}
	t := treePos{up, -1, -1}
	low := bit >> 1
	if low == 0 {
		return t
	}
	t.down0 = r - low
	d1 := r + low
	for d1 >= p {
		low >>= 1
		if low == 0 {
			d1 = -1
			break
		}
		d1 = r + low
	}
	t.down1 = d1
	return t
}

// btrees is rank r's place in NCCL's two complementary trees
// (ncclGetDtree): the binary tree, and the same tree shifted by one rank
// for odd p or mirrored (r ↦ p−1−r) for even p, so that a rank that is a
// leaf in one tree is an inner node in the other.
func btrees(p, r int32) (treePos, treePos) {
	t0 := btree(p, r)
	var m func(int32) int32
	var t1 treePos
	if p%2 == 1 {
		t1 = btree(p, (r-1+p)%p)
		m = func(x int32) int32 { return (x + 1) % p }
	} else {
		t1 = btree(p, p-1-r)
		m = func(x int32) int32 { return p - 1 - x }
	}
	for _, x := range []*int32{&t1.up, &t1.down0, &t1.down1} {
		if *x >= 0 {
			*x = m(*x)
		}
	}
	return t0, t1
}

// treeAllreduce is NCCL's tree allreduce on one tree, pipelined in chunks:
// each chunk is reduced from the leaves up to the root and broadcast back
// down.
func (c *coll) treeAllreduce(t treePos, n int64) {
	b := c.chunks(n)
	kids := make([]int32, 0, 2)
	for _, d := range []int32{t.down0, t.down1} {
		if d >= 0 {
			kids = append(kids, d)
		}
	}
	c.pipeline(b.k, 5, func(s int, k int64) []graph.Op {
		x := b.size(int32(k))
		var ops []graph.Op
		switch s {
		case 0:
			for _, d := range kids {
				ops = append(ops, c.recv(d, x))
			}
		case 1:
			if len(kids) > 0 {
				ops = c.reduceOps(x * int64(len(kids)))
			}
		case 2:
			if t.up >= 0 {
				ops = append(ops, c.send(t.up, x))
			}
		case 3:
			if t.up >= 0 {
				ops = append(ops, c.recv(t.up, x))
			}
		case 4:
			for _, d := range kids {
				ops = append(ops, c.send(d, x))
			}
		}
		return ops
	})
}
