package sim

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/internal/hugepage"
	"github.com/capsim/capsim/traces/graph"
)

// buildWindow is how many operations of a rank the engine reads from its
// source at a time while it builds its records.
const buildWindow = 1 << 16

// build fills the engine's per-operation records (ops) and successor lists
// (succ) from src, reading each rank's operations in windows of at most
// window operations; rank r's operation i gets the engine id starts[r]+i
// (starts has an entry per rank and one past the last). It sets the
// engine's CPU and NIC counts and returns the number of operations without
// dependencies and of receives.
//
// The records do not depend on where windows end: a successor list holds
// its operation's successors in increasing operation order, or in the
// order the rank declared the dependencies where the source gives that
// order (graph.Graph.DepOrder), which is the order LogGOPSim releases them
// in.
func (e *engine) build(src graph.Source, starts []int32, window int, scr *Scratch) (roots, recvs int, err error) {
	nr := src.NumRanks()
	n := int(starts[nr])
	// ops has a spare entry past the sentinel: the first pass counts
	// operation d's successors in ops[d+2], so that after a prefix sum
	// ops[d+1].succ is where d's list starts, and filling the lists
	// advances it to where d+1's starts (the successor lists of a
	// compressed sparse row graph, filled in one forward pass).
	buf, fresh := zeroed(scr.ops, n+2)
	if fresh {
		hugepage.Advise(buf)
	}
	e.ops = buf[:n+1]
	var maxCPU, maxNIC uint8
	ordered := false
	// The first pass counts each operation's dependencies and successors,
	// the seeds, the receives and the CPUs and NICs, and fills the hot
	// fields of each record.
	it := windows{src: src, starts: starts, max: window}
	for it.next() {
		w := &it.w
		base := starts[w.Rank] + w.First
		off := starts[w.Rank] - w.Origin + 2
		ordered = ordered || w.DepOrder != nil
		kind, size, peer, cpu, nic := w.Kind, w.Size, w.Peer, w.CPU, w.NIC
		ds, dop := w.DepStart, w.DepOp
		e0 := ds[0]
		for i := range kind {
			id := base + int32(i)
			lo, hi := ds[i]-e0, ds[i+1]-e0
			buf[id].rem = hi - lo
			if hi == lo {
				roots++
			}
			for _, d := range dop[lo:hi] {
				buf[off+d].succ++
			}
			if kind[i] == graph.Recv {
				recvs++
			}
			typ, p := typeOf(kind[i]), peer[i]
			switch {
			case typ == evCalc:
				p = -1 // a calc's peer is never read
			case p >= int32(nr) || p < 0 && (typ == evSend || p != graph.AnySource):
				// Validate catches this; a graph that skipped it would
				// index past the per-rank state.
				return 0, 0, fmt.Errorf("sim: %s: peer %d is not a rank (0..%d)", e.g.Describe(id), p, nr-1)
			}
			buf[id].pk = p<<3 | int32(typ)
			buf[id].sz = -1
			if sz := size[i]; sz >= 0 && sz <= math.MaxInt32 {
				buf[id].sz = int32(sz)
			}
			maxCPU, maxNIC = max(maxCPU, cpu[i]), max(maxNIC, nic[i])
		}
	}
	if it.err != nil {
		return 0, 0, it.err
	}
	e.ncpu, e.nnic = int(maxCPU)+1, int(maxNIC)+1
	for i := 1; i <= n+1; i++ {
		buf[i].succ += buf[i-1].succ
	}
	total := buf[n+1].succ
	buf[n+1].succ = 0
	if e.succ, fresh = zeroed(scr.succ, int(total)); fresh {
		hugepage.Advise(e.succ)
	}
	var irq bool
	if ordered {
		irq, err = e.placeDeclared(src, starts, window)
	} else {
		irq, err = e.placeStored(src, starts, window)
	}
	if err != nil {
		return 0, 0, err
	}
	ops := e.ops
	if irq {
		// Mark the operations that release some successor when they start.
		for i := 0; i < n; i++ {
			for _, v := range e.succ[ops[i].succ : ops[i+1].succ&^irqBit] {
				if v < 0 {
					ops[i].succ |= irqBit
					break
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		if lo := ops[i].succ; lo >= 0 && ops[i+1].succ&^irqBit == lo+1 && e.succ[lo] == int32(i+1) {
			ops[i].pk |= chainBit
		}
	}
	return roots, recvs, nil
}

// place appends v (with irqBit for an irequires edge) to the successor
// list of d, whose next entry goes where the record of d+1 says (see
// build).
func (e *engine) place(v, d int32, k graph.DepKind) (irq bool) {
	if k == graph.Irequires {
		v |= irqBit
		irq = true
	}
	e.succ[e.ops[d+1].succ] = v
	e.ops[d+1].succ++
	return irq
}

// placeStored places every dependency edge of src in storage order and
// reports whether there was an irequires edge.
func (e *engine) placeStored(src graph.Source, starts []int32, window int) (irq bool, err error) {
	ops, succ := e.ops, e.succ
	it := windows{src: src, starts: starts, max: window}
	for it.next() {
		w := &it.w
		base := starts[w.Rank] + w.First
		off := starts[w.Rank] - w.Origin
		e0 := w.DepStart[0]
		for i := range w.Kind {
			for j := w.DepStart[i] - e0; j < w.DepStart[i+1]-e0; j++ {
				v, d := base+int32(i), off+w.DepOp[j]
				if w.DepKind[j] == graph.Irequires {
					v |= irqBit
					irq = true
				}
				succ[ops[d+1].succ] = v
				ops[d+1].succ++
			}
		}
	}
	return irq, it.err
}

// placeDeclared places each rank's dependency edges in the order the rank
// declared them (graph.Window.DepOrder; storage order where a window has
// none). A declaration position ranges over the whole rank, so the rank's
// edges are gathered before they are placed.
func (e *engine) placeDeclared(src graph.Source, starts []int32, window int) (irq bool, err error) {
	// The current rank's edges in storage order, and at[p], the edge
	// declared at position p.
	var owner, dep, pos, at []int32
	var kind []graph.DepKind
	rank := -1
	placeRank := func() error {
		at = at[:0]
		for range owner {
			at = append(at, -1)
		}
		for k, p := range pos {
			if p < 0 || int(p) >= len(at) || at[p] >= 0 {
				return fmt.Errorf("sim: rank %d: dependency declaration order is not a permutation of its %d edges", rank, len(owner))
			}
			at[p] = int32(k)
		}
		for _, k := range at {
			irq = e.place(owner[k], dep[k], kind[k]) || irq
		}
		owner, dep, kind, pos = owner[:0], dep[:0], kind[:0], pos[:0]
		return nil
	}
	it := windows{src: src, starts: starts, max: window}
	for it.next() {
		w := &it.w
		if w.Rank != rank {
			if err := placeRank(); err != nil {
				return false, err
			}
			rank = w.Rank
		}
		base := starts[w.Rank] + w.First
		off := starts[w.Rank] - w.Origin
		for i := range w.Kind {
			deps, kinds := w.Deps(i)
			e0 := int(w.DepStart[i] - w.DepStart[0])
			for j, d := range deps {
				p := int32(len(pos))
				if w.DepOrder != nil {
					p = w.DepOrder[e0+j]
				}
				owner = append(owner, base+int32(i))
				dep = append(dep, off+d)
				kind = append(kind, kinds[j])
				pos = append(pos, p)
			}
		}
	}
	if it.err != nil {
		return false, it.err
	}
	return irq, placeRank()
}

// windows iterates over the windows of src, rank by rank, each rank's in
// order, checking that rank r yields starts[r+1]-starts[r] operations:
// after next returns true, w is the next window; after it returns false,
// err says why, or is nil at the end.
type windows struct {
	src    graph.Source
	starts []int32
	max    int

	r     int
	first int32
	w     graph.Window
	err   error
}

func (it *windows) next() bool {
	for ; it.r < it.src.NumRanks(); it.r, it.first = it.r+1, 0 {
		want := it.starts[it.r+1] - it.starts[it.r]
		if it.first >= want {
			continue
		}
		w, err := it.src.Window(it.r, it.first, it.max)
		if err != nil {
			it.err = fmt.Errorf("sim: %w", err)
			return false
		}
		if w.Len() == 0 {
			it.err = fmt.Errorf("sim: rank %d ends after %d operations, want %d", it.r, it.first, want)
			return false
		}
		if w.Rank != it.r || w.First != it.first {
			it.err = fmt.Errorf("sim: asked for rank %d from operation %d, got rank %d from %d", it.r, it.first, w.Rank, w.First)
			return false
		}
		it.w, it.first = w, it.first+int32(w.Len())
		return true
	}
	return false
}
