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
	var fresh bool
	if e.ops, fresh = zeroed(scr.ops, n+1); fresh {
		hugepage.Advise(e.ops)
	}
	ops := e.ops
	var maxCPU, maxNIC uint8
	ordered := false
	// The first pass counts each operation's dependencies and successors,
	// the seeds, the receives and the CPUs and NICs, and fills the hot
	// fields of each record.
	err = eachWindow(src, starts, window, func(w graph.Window) error {
		base := starts[w.Rank] + w.First
		off := starts[w.Rank] - w.Origin
		ordered = ordered || w.DepOrder != nil
		for i := range w.Kind {
			id := base + int32(i)
			deps, _ := w.Deps(i)
			ops[id].rem = int32(len(deps))
			if len(deps) == 0 {
				roots++
			}
			for _, d := range deps {
				ops[off+d].succ++
			}
			if w.Kind[i] == graph.Recv {
				recvs++
			}
			typ, p := typeOf(w.Kind[i]), w.Peer[i]
			switch {
			case typ == evCalc:
				p = -1 // a calc's peer is never read
			case p >= int32(nr) || p < 0 && (typ == evSend || p != graph.AnySource):
				// Validate catches this; a graph that skipped it would
				// index past the per-rank state.
				return fmt.Errorf("sim: %s: peer %d is not a rank (0..%d)", e.g.Describe(id), p, nr-1)
			}
			ops[id].pk = p<<3 | int32(typ)
			ops[id].sz = -1
			if sz := w.Size[i]; sz >= 0 && sz <= math.MaxInt32 {
				ops[id].sz = int32(sz)
			}
			maxCPU, maxNIC = max(maxCPU, w.CPU[i]), max(maxNIC, w.NIC[i])
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	e.ncpu, e.nnic = int(maxCPU)+1, int(maxNIC)+1
	// An exclusive prefix sum turns the counts into where each list
	// starts; filling the lists in order advances each start to where the
	// next list starts, and a shift by one restores the starts.
	total := int32(0)
	for i := 0; i <= n; i++ {
		c := ops[i].succ
		ops[i].succ = total
		total += c
	}
	if e.succ, fresh = zeroed(scr.succ, int(total)); fresh {
		hugepage.Advise(e.succ)
	}
	irq := false
	place := func(v, d int32, k graph.DepKind) {
		if k == graph.Irequires {
			v |= irqBit
			irq = true
		}
		e.succ[ops[d].succ] = v
		ops[d].succ++
	}
	if ordered {
		err = e.placeDeclared(src, starts, window, place)
	} else {
		err = eachWindow(src, starts, window, func(w graph.Window) error {
			base := starts[w.Rank] + w.First
			off := starts[w.Rank] - w.Origin
			for i := range w.Kind {
				deps, kinds := w.Deps(i)
				for j, d := range deps {
					place(base+int32(i), off+d, kinds[j])
				}
			}
			return nil
		})
	}
	if err != nil {
		return 0, 0, err
	}
	for i := n; i > 0; i-- {
		ops[i].succ = ops[i-1].succ
	}
	ops[0].succ = 0
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

// placeDeclared places each rank's dependency edges in the order the rank
// declared them (graph.Window.DepOrder; storage order where a window has
// none). A declaration position ranges over the whole rank, so the rank's
// edges are gathered before they are placed.
func (e *engine) placeDeclared(src graph.Source, starts []int32, window int, place func(v, d int32, k graph.DepKind)) error {
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
			place(owner[k], dep[k], kind[k])
		}
		owner, dep, kind, pos = owner[:0], dep[:0], kind[:0], pos[:0]
		return nil
	}
	err := eachWindow(src, starts, window, func(w graph.Window) error {
		if w.Rank != rank {
			if err := placeRank(); err != nil {
				return err
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
		return nil
	})
	if err != nil {
		return err
	}
	return placeRank()
}

// eachWindow calls f with every window of src, rank by rank, each rank's
// in order, checking that rank r yields starts[r+1]-starts[r] operations.
func eachWindow(src graph.Source, starts []int32, window int, f func(w graph.Window) error) error {
	for r := 0; r < src.NumRanks(); r++ {
		want := starts[r+1] - starts[r]
		for first := int32(0); first < want; {
			w, err := src.Window(r, first, window)
			if err != nil {
				return fmt.Errorf("sim: %w", err)
			}
			if w.Len() == 0 {
				return fmt.Errorf("sim: rank %d ends after %d operations, want %d", r, first, want)
			}
			if err := f(w); err != nil {
				return err
			}
			first += int32(w.Len())
		}
	}
	return nil
}
