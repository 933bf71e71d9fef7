package bound

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
)

// lpBuild is one block's LP as build writes it, step by step: its
// columns, their bounds, then its rows as triplets.
type lpBuild struct {
	s        *Solver
	b        *block
	d        *DAG
	o        *Order
	mix, inc bool // the task form (s.opt.Form)
	tau      float64
	fixed    []fixedEdge
	evOf     map[int32]int32
	nevCol   int          // time columns
	ncol     int          // all columns
	nev      int          // events of the block
	chains   []powerChain // the job's power, or each capped node's (Options.NodeOf)
	p        *clp.Problem
	ts       triplets
}

// powerChain is one power the LP caps, in delta form (12)(13): the job's,
// or a node's (the tasks and loads of its ranks).
type powerChain struct {
	nStart    []int32 // per event (from 1): its tasks starting, then (prefix sums) their offsets in starts
	nEnd      []int32 // per event (from 1): its tasks ending, then their offsets in ends
	powerEv   []bool  // per event: the chain's power can rise there (a power row)
	loadDelta []float64
	pCol      int // its first P column's index in the block's pCol
}

// build writes block b's LP (Bailey et al., SC'15, Figs. 4–6, in the
// form of s.opt.Form) with times in units of b.tau.
func (s *Solver) build(b *block) (*clp.Problem, error) {
	l := &lpBuild{s: s, b: b, d: s.d, o: s.o, mix: s.opt.Form == FormMix, inc: s.opt.Form == FormIncrement}
	if err := l.columns(); err != nil {
		return nil, err
	}
	l.powerEvents()
	if l.ncol > math.MaxInt32 {
		return nil, fmt.Errorf("%d columns exceed CLP's 32-bit indices", l.ncol)
	}
	l.bounds()
	l.taskRows()
	l.hullRows()
	if err := s.deviceRows(b, &l.ts, l.col, l.endRow); err != nil {
		return nil, err
	}
	l.p.Obj[l.nevCol-1] = 1 // (1): the block's last event (Fin's in the last block)
	most := l.powerRows()
	l.shortcut(most)
	p := l.p
	p.Start, p.Index, p.Value = l.ts.csc(l.ncol)
	return p, p.Validate()
}

// columns lays out the block's columns: one time per key event (the
// vertices of an event share it, (15); events that only pass precedence
// on are eliminated, see reduceEvents), then per task (segment: d_i, p_i;
// mix: one c_ig per hull point; increment: one δ_ig per segment; none for
// a one-point task). The P columns of the power events follow
// (powerEvents).
func (l *lpBuild) columns() error {
	s, b, o := l.s, l.b, l.o
	var err error
	if l.fixed, l.evOf, l.nevCol, err = s.keyEvents(b); err != nil {
		return err
	}
	b.fastLen = o.Times[b.verts[len(b.verts)-1]] - o.Times[b.verts[0]]
	b.tau = 1
	if b.fastLen > 0 {
		b.tau = b.fastLen
	}
	l.tau = b.tau
	l.ncol = l.nevCol
	for _, i := range b.tasks {
		h := len(l.d.Tasks[i].Hull)
		switch {
		case h == 1:
			s.taskCol[i] = -1
		case l.mix:
			s.taskCol[i] = int32(l.ncol)
			l.ncol += h
		case l.inc:
			s.taskCol[i] = int32(l.ncol)
			l.ncol += h - 1
		default:
			s.taskCol[i] = int32(l.ncol)
			l.ncol += 2
		}
	}
	return nil
}

// col is vertex v's time column.
func (l *lpBuild) col(v int) int32 { return l.b.kcol[l.evOf[int32(v)]] }

// powerEvents finds the events that need a power row, (12)(13): only
// where a chain's power can rise, at an event where one of its tasks
// starts (or where a task of negative power ends); elsewhere P_k ≤
// P_{k−1}. Loads are constants: their starts and ends move the
// right-hand sides of the power rows. Each power event of each chain
// gets a P column, the chains one after another.
//
// There is one chain, the job's, or with Options.NodeOf one per capped
// node, over its ranks' tasks and loads.
func (l *lpBuild) powerEvents() {
	b, d, o := l.b, l.d, l.o
	l.nev = b.hi - b.lo
	l.chains = make([]powerChain, l.s.chains())
	for g := range l.chains {
		c := &l.chains[g]
		c.nStart = make([]int32, l.nev+1)
		c.nEnd = make([]int32, l.nev+1)
		c.powerEv = make([]bool, l.nev)
		c.loadDelta = make([]float64, l.nev)
	}
	for _, i := range b.tasks {
		t := &d.Tasks[i]
		g := l.s.chainOf(t.Rank)
		if g < 0 {
			continue
		}
		c := &l.chains[g]
		if a, e := o.Event[t.Src], o.Event[t.PowerEnd()]; a < e {
			c.nStart[a-b.lo+1]++
			c.powerEv[a-b.lo] = true
			if e < b.hi {
				c.nEnd[e-b.lo+1]++
				if t.Hull[len(t.Hull)-1].Power < 0 {
					c.powerEv[e-b.lo] = true
				}
			}
		}
	}
	for _, i := range b.loads {
		ld := &d.Loads[i]
		g := l.s.chainOf(ld.Rank)
		if g < 0 {
			continue
		}
		c := &l.chains[g]
		if a, e := o.Event[ld.Src], o.Event[ld.Dst]; a < e {
			c.loadDelta[a-b.lo] += ld.W
			if ld.W > 0 {
				c.powerEv[a-b.lo] = true
			}
			if e < b.hi {
				c.loadDelta[e-b.lo] -= ld.W
			}
		}
	}
	b.pCol = b.pCol[:0]
	for g := range l.chains {
		c := &l.chains[g]
		c.pCol = len(b.pCol)
		for k := range c.powerEv {
			if c.powerEv[k] {
				b.pCol = append(b.pCol, int32(l.ncol))
				l.ncol++
			}
		}
	}
}

// bounds makes the problem with its column bounds, and sizes the
// triplets for its rows.
func (l *lpBuild) bounds() {
	s, b, o, tau := l.s, l.b, l.o, l.tau
	inf := math.Inf(1)
	p := &clp.Problem{ColLo: make([]float64, l.ncol), ColUp: make([]float64, l.ncol), Obj: make([]float64, l.ncol)}
	for c := 0; c < l.nevCol; c++ {
		p.ColUp[c] = inf
	}
	if o.Event[b.verts[0]] == b.lo {
		p.ColUp[0] = 0 // (2) v_init = 0, and the block's first event is its time 0
	}
	for _, i := range b.tasks {
		c, h := s.taskCol[i], l.d.Tasks[i].Hull
		switch {
		case c < 0:
		case l.mix:
			for g := range h {
				p.ColUp[int(c)+g] = 1 // (6)
			}
		case l.inc:
			for g := 0; g+1 < len(h); g++ {
				p.ColUp[int(c)+g] = (h[g+1].Time - h[g].Time) / tau
			}
		default:
			p.ColLo[c], p.ColUp[c] = h[0].Time/tau, h[len(h)-1].Time/tau
			p.ColLo[c+1], p.ColUp[c+1] = h[len(h)-1].Power, h[0].Power
		}
	}
	for _, c := range b.pCol {
		p.ColLo[c], p.ColUp[c] = -inf, inf
	}
	l.p = p
	est := 3*len(b.tasks) + 2*len(b.msgs) + 2*l.nevCol + 3*len(b.pCol) + 4*(l.ncol-l.nevCol-len(b.pCol))
	l.ts.row = make([]int32, 0, est)
	l.ts.col = make([]int32, 0, est)
	l.ts.val = make([]float64, 0, est)
}

// endRow ends the row being written, with bounds lo and up.
func (l *lpBuild) endRow(lo, up float64) {
	l.p.RowLo = append(l.p.RowLo, lo)
	l.p.RowUp = append(l.p.RowUp, up)
	l.ts.rows++
}

// taskRows writes (3)(4)(7) with the Finalize fix, v_dst − v_src − d_i ≥
// 0 for every task, then the messages and the event chain (14) between
// key events.
func (l *lpBuild) taskRows() {
	s, b, tau, ts := l.s, l.b, l.tau, &l.ts
	inf := math.Inf(1)
	for _, i := range b.tasks {
		t := &l.d.Tasks[i]
		c, h := s.taskCol[i], t.Hull
		ts.add(l.col(t.Dst), 1)
		ts.add(l.col(t.Src), -1)
		switch {
		case c < 0:
			l.endRow(h[0].Time/tau, inf)
			continue
		case l.mix:
			for g := range h {
				ts.add(c+int32(g), -h[g].Time/tau)
			}
		case l.inc:
			for g := 0; g+1 < len(h); g++ {
				ts.add(c+int32(g), -1)
			}
			l.endRow(h[0].Time/tau, inf)
			continue
		default:
			ts.add(c, -1)
		}
		l.endRow(0, inf)
	}
	for _, e := range l.fixed {
		ts.add(b.kcol[e.to], 1)
		ts.add(b.kcol[e.from], -1)
		l.endRow(e.w/tau, inf)
	}
}

// hullRows writes each task's configuration rows: (9) Σ_g c_ig = 1 in the
// mix form, and (7)(8)(11) in the segment form, p_i above every segment's
// line of its convex hull.
func (l *lpBuild) hullRows() {
	s, tau, ts := l.s, l.tau, &l.ts
	inf := math.Inf(1)
	for _, i := range l.b.tasks {
		c, h := s.taskCol[i], l.d.Tasks[i].Hull
		switch {
		case c < 0, l.inc:
		case l.mix:
			for g := range h {
				ts.add(c+int32(g), 1)
			}
			l.endRow(1, 1)
		default:
			for k := 0; k+1 < len(h); k++ {
				sl := frontier.Slope(h, k)
				ts.add(c, -sl*tau)
				ts.add(c+1, 1)
				l.endRow(h[k].Power-sl*h[k].Time, inf)
			}
		}
	}
}

// powerRows writes (12)(13) in delta form for every chain, at its power
// events k only: P_k − P_{k'} − Σ starts p_i + Σ ends p_i = 0 over the
// events after the previous power event k' up to k, P_k ≤ cap; one-point
// tasks' powers move to the right-hand side. It returns the most power an
// event draws in a chain with every task at its fastest.
func (l *lpBuild) powerRows() (most float64) {
	for g := range l.chains {
		most = math.Max(most, l.chainRows(g))
	}
	return most
}

// chainRows writes the power rows of chain g and returns the most power
// an event draws in it with every task at its fastest.
func (l *lpBuild) chainRows(g int) (most float64) {
	b, d, c := l.b, l.d, &l.chains[g]
	starts, ends := l.startsEnds(g)
	var fast, rhs float64
	lastPower := -1 // ends after the last power event need no row
	for k := range c.powerEv {
		if c.powerEv[k] {
			lastPower = k
		}
	}
	j := c.pCol
	for k := 0; k <= lastPower; k++ {
		for _, i := range starts[c.nStart[k]:c.nStart[k+1]] {
			fast += d.Tasks[i].Hull[0].Power
			rhs += l.power(i, 1)
		}
		for _, i := range ends[c.nEnd[k]:c.nEnd[k+1]] {
			fast -= d.Tasks[i].Hull[0].Power
			rhs += l.power(i, -1)
		}
		fast += c.loadDelta[k]
		rhs += c.loadDelta[k]
		most = math.Max(most, fast)
		if !c.powerEv[k] {
			continue
		}
		l.ts.add(b.pCol[j], 1)
		if j > c.pCol {
			l.ts.add(b.pCol[j-1], -1)
		}
		l.endRow(rhs, rhs)
		rhs = 0
		j++
	}
	return most
}

// startsEnds lists the tasks of chain g that start and that end at each
// event, by its offsets nStart and nEnd (made prefix sums here).
func (l *lpBuild) startsEnds(g int) (starts, ends []int32) {
	b, d, o, nev, c := l.b, l.d, l.o, l.nev, &l.chains[g]
	nStart, nEnd := c.nStart, c.nEnd
	for k := 0; k < nev; k++ {
		nStart[k+1] += nStart[k]
		nEnd[k+1] += nEnd[k]
	}
	starts = make([]int32, nStart[nev])
	ends = make([]int32, nEnd[nev])
	ns := append([]int32(nil), nStart[:nev]...)
	ne := append([]int32(nil), nEnd[:nev]...)
	for _, i := range b.tasks {
		t := &d.Tasks[i]
		if l.s.chainOf(t.Rank) != g {
			continue
		}
		if a, e := o.Event[t.Src], o.Event[t.PowerEnd()]; a < e {
			starts[ns[a-b.lo]] = i
			ns[a-b.lo]++
			if e < b.hi {
				ends[ne[e-b.lo]] = i
				ne[e-b.lo]++
			}
		}
	}
	return starts, ends
}

// power adds task i's power, with sign, to the power row being written,
// and returns the constant part that moves to its right-hand side.
func (l *lpBuild) power(i int32, sign float64) float64 {
	c, h := l.s.taskCol[i], l.d.Tasks[i].Hull
	switch {
	case c < 0:
		return sign * h[0].Power
	case l.mix:
		for g := range h {
			l.ts.add(c+int32(g), -sign*h[g].Power)
		}
	case l.inc:
		for g := 0; g+1 < len(h); g++ {
			l.ts.add(c+int32(g), -sign*frontier.Slope(h, g)*l.tau)
		}
		return sign * h[0].Power
	default:
		l.ts.add(c+1, -sign)
	}
	return 0
}

// shortcut sets b.needFast, the cap from which the fastest
// as-soon-as-possible schedule is optimal and no LP is solved (most, the
// most power an event draws with every task at its fastest), where the
// block's initial times keep its ties. With cuts (lazy.go) the block's
// rows are a relaxation: messages sent before its first cut and received
// after it no longer hold it back, so its fastest as-soon-as-possible
// length can be shorter than the reference replay's o.Times, which the
// shortcut would take (TestBlocksAreOneLP: up to 6.9 % above the LP's
// optimum, which glpsol found). Such blocks are always solved.
func (l *lpBuild) shortcut(most float64) {
	b, o := l.b, l.o
	b.needFast = math.Inf(1)
	tied := true
	for j := 1; j < len(b.verts); j++ {
		if o.Event[b.verts[j]] == o.Event[b.verts[j-1]] && o.Times[b.verts[j]] != o.Times[b.verts[j-1]] {
			tied = false
		}
	}
	cut := l.s.lazy != nil && len(l.s.lazy.cutList) > 0
	if tied && !b.devices && !cut {
		b.needFast = most
	}
}
