package chakra

import (
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// kinds maps Chakra's collectives to capsim's.
var kinds = [...]mpi.Kind{
	AllReduce:          mpi.Allreduce,
	Reduce:             mpi.Reduce,
	AllGather:          mpi.Allgather,
	Gather:             mpi.Gather,
	Scatter:            mpi.Scatter,
	Broadcast:          mpi.Bcast,
	AllToAll:           mpi.Alltoall,
	ReduceScatter:      mpi.ReduceScatter,
	ReduceScatterBlock: mpi.ReduceScatter,
	Barrier:            mpi.Barrier,
}

// eventBytes converts comm_size, the collective's whole data set of S
// bytes, into the bytes mpi.Event counts on a group of p: S for
// reductions and broadcasts, the per-rank block S/p (rounded up) for
// gathers, scatters and all-to-all, none for a barrier.
func eventBytes(k mpi.Kind, s int64, p int) int64 {
	switch k {
	case mpi.Allgather, mpi.Gather, mpi.Scatter, mpi.Alltoall:
		q := s / int64(p) // rounded up without the overflow of (s+p−1)/p
		if s%int64(p) != 0 {
			q++
		}
		return q
	case mpi.Barrier:
		return 0
	}
	return s
}

// micros converts a recorded duration to ns.
func micros(f *File, i int, us uint64) (int64, error) {
	if us > uint64(graph.MaxTimeNs/1000) {
		return 0, nodeErr(f, i, "duration %d µs exceeds %d µs", us, graph.MaxTimeNs/1000)
	}
	return int64(us) * 1000, nil
}

// emit adds rank r's operations for the nodes of fn: every node gets an
// entry and an exit operation (the same one for a single operation), and
// node i's entry requires the exits of the nodes it depends on.
func emit(b *graph.Builder, r int, fn *fileNodes, calls map[callKey]call, nm *namer, n, k int, opt Options) error {
	f := fn.f
	entry := make([]int32, len(f.Nodes))
	exit := make([]int32, len(f.Nodes))
	stream := make([]uint8, len(f.Nodes)) // the CPU of the node's entry
	busy := make([]bool, len(f.Nodes))    // its exit holds the stream after releasing dependents
	base := int32(r / k * k)              // the first rank of r's replica
	if r >= k {                           // the previous copy of the file: as many operations and dependencies
		b.Grow(r, int(b.Len(r-k)))
		b.GrowDeps(r, b.NumDeps(r-k))
	} else {
		b.Grow(r, len(f.Nodes))
	}
	for i := range f.Nodes {
		nd := &f.Nodes[i]
		cpu := GPUCompute
		if a, ok := nd.Attr("is_cpu_op"); ok && a.Int != 0 {
			cpu = HostCPU
		}
		calc := func(ns int64) int32 {
			op := graph.CalcOp(ns)
			op.CPU = cpu
			if nd.Name != "" {
				op.Region = b.Region(nd.Name)
			}
			return b.Add(r, op)
		}
		switch {
		case nd.Type == CompNode || nd.Type == MemLoadNode || nd.Type == MemStoreNode ||
			nd.Type == CommCollNode && !fn.coll[i]:
			ns, err := micros(f, i, nd.DurationMicros)
			if err != nil {
				return err
			}
			if nd.DurationMicros == 0 && opt.Roofline != nil {
				if m, ok, err := opt.Roofline.nodeNs(f, i); err != nil {
					return err
				} else if ok {
					ns = m
				}
			}
			entry[i] = calc(ns)
			exit[i], stream[i], busy[i] = entry[i], cpu, ns > 0
		case nd.Type == MetadataNode:
			entry[i] = calc(0)
			exit[i], stream[i] = entry[i], cpu
		case nd.Type == CommSendNode || nd.Type == CommRecvNode:
			op, err := p2p(f, i, base, n)
			if err != nil {
				return err
			}
			entry[i] = b.Add(r, op)
			exit[i], stream[i], busy[i] = entry[i], GPUComm, true
		case nd.Type == CommCollNode:
			var err error
			entry[i], exit[i], err = collective(b, r, f, i, calls[callKey{int32(r), int32(i)}], nm, opt)
			if err != nil {
				return err
			}
			stream[i] = GPUComm
		default:
			return nodeErr(f, i, "unknown node type")
		}
		b.SetLabel(r, entry[i], fn.labels[i])
	}
	fence(b, r, fn.all, exit, stream, busy)
	for i, ds := range fn.deps {
		for _, d := range ds {
			b.Dep(r, entry[i], exit[d], graph.Requires)
		}
	}
	return nil
}

// fence ends with a zero-time calc on its own stream every node whose
// exit holds its stream after it releases its dependents (a calc that
// takes time, a message's overhead) and that a node on another stream
// depends on. The engine releases a calc's dependents when it starts (as
// LogGOPSim does) and a dependent then waits only for its own CPU; the
// fence starts when the node's stream is free again, at the node's end.
func fence(b *graph.Builder, r int, deps [][]int32, exit []int32, stream []uint8, busy []bool) {
	need := make([]bool, len(deps))
	for i, ds := range deps {
		for _, d := range ds {
			need[d] = need[d] || busy[d] && stream[d] != stream[i]
		}
	}
	for d, ok := range need {
		if !ok {
			continue
		}
		op := graph.CalcOp(0)
		op.CPU = stream[d]
		f := b.Add(r, op)
		b.Dep(r, f, exit[d], graph.Requires)
		exit[d] = f
	}
}

// p2p lowers a COMM_SEND or COMM_RECV node; base is the first rank of
// the replica (peers are numbered within it).
func p2p(f *File, i int, base int32, n int) (graph.Op, error) {
	nd := &f.Nodes[i]
	size, err := commSize(f, i)
	if err != nil {
		return graph.Op{}, err
	}
	tag, _ := nd.Attr("comm_tag")
	peerAttr := "comm_dst"
	if nd.Type == CommRecvNode {
		peerAttr = "comm_src"
	}
	peer, ok := nd.Attr(peerAttr)
	switch {
	case !ok:
		return graph.Op{}, nodeErr(f, i, "no %s attribute", peerAttr)
	case peer.Int < 0 || base+int32(min(peer.Int, 1<<30)) >= int32(n):
		return graph.Op{}, nodeErr(f, i, "%s %d is not an NPU (0..%d)", peerAttr, peer.Int, n-1)
	case tag.Int < 0 || tag.Int >= int64(lower.CollectiveTagBase):
		return graph.Op{}, nodeErr(f, i, "comm_tag %d outside 0..%d", tag.Int, lower.CollectiveTagBase-1)
	}
	var op graph.Op
	if nd.Type == CommSendNode {
		op = graph.SendOp(size, base+int32(peer.Int), int32(tag.Int))
	} else {
		op = graph.RecvOp(size, base+int32(peer.Int), int32(tag.Int))
	}
	op.CPU = GPUComm
	return op, nil
}

// collective lowers collective node i of rank r between a gate and a
// join that take no time, so that dependencies attach to one operation.
func collective(b *graph.Builder, r int, f *File, i int, c call, nm *namer, opt Options) (entry, exit int32, err error) {
	name, _ := nm.name(&f.Nodes[i], r) // matchCalls checked it
	members := nm.groups[name]
	me := int32(-1)
	for j, m := range members {
		if m == int32(r) {
			me = int32(j)
		}
	}
	kind := kinds[c.kind]
	gate := graph.CalcOp(0)
	gate.CPU = GPUComm
	entry = b.Add(r, gate)
	alg := opt.Algorithm[kind]
	if alg == "" {
		alg = lower.SelectNCCL
	}
	lo := opt.Lower
	lo.Algorithm = nil
	ends, err := lower.Append(b, r, []int32{entry}, lower.Call{
		Kind: kind, Members: members, Me: me, Bytes: eventBytes(kind, c.bytes, len(members)),
		Tag: c.tag, CPU: GPUComm, Region: graph.NoRegion,
	}, alg, lo)
	if err != nil {
		return 0, 0, nodeErr(f, i, "%v", err)
	}
	if len(ends) == 1 && ends[0] == entry {
		return entry, entry, nil
	}
	// The join takes no time, so it releases dependents on other streams
	// when the collective's last operation has completed.
	join := b.Add(r, gate)
	for _, e := range ends {
		b.Dep(r, join, e, graph.Requires)
	}
	return entry, join, nil
}
