package mcf

import "math"

// pivot makes one pivot and reports whether there was one to make: it
// finds an entering arc (block search), the cycle it closes in the tree
// and the cycle's leaving arc, moves the flow around the cycle and
// updates the tree and the potentials.
func (g *Network) pivot() bool {
	in := g.entering()
	if in < 0 {
		return false
	}
	g.pivots++
	join := g.join(in)
	first, second := int32(g.src[in]), int32(g.dst[in])
	if g.state[in] == stateUpper {
		first, second = second, first
	}
	// The leaving arc: the first of least residual on the path from
	// first up to join, else the last on the path from second (the
	// strongly feasible rule).
	delta := g.cap[in]
	side := 0
	var uOut int32 = -1
	for u := first; u != join; u = g.parent[u] {
		e := g.pred[u]
		d := g.flow[e]
		if !g.predUp[u] {
			d = g.cap[e] - d
		}
		if d < delta {
			delta, uOut, side = d, u, 1
		}
	}
	for u := second; u != join; u = g.parent[u] {
		e := g.pred[u]
		d := g.flow[e]
		if g.predUp[u] {
			d = g.cap[e] - d
		}
		if d <= delta {
			delta, uOut, side = d, u, 2
		}
	}
	if math.IsInf(delta, 1) {
		// A cycle of uncapacitated arcs of negative cost: the problem's
		// own, or one through the root whose artificial arcs are too
		// cheap.
		g.unbounded = true
		for _, u := range [2]int32{first, second} {
			for ; u != join; u = g.parent[u] {
				if g.artificial(int(g.pred[u])) {
					g.cheapArt = true
				}
			}
		}
		return false
	}
	delta = math.Max(delta, 0)
	if delta > 0 {
		val := float64(g.state[in]) * delta
		g.flow[in] += val
		for u := int32(g.src[in]); u != join; u = g.parent[u] {
			g.move(u, val)
		}
		for u := int32(g.dst[in]); u != join; u = g.parent[u] {
			g.move(u, -val)
		}
	}
	if side == 0 {
		// The entering arc goes from one bound to the other.
		if g.state[in] == stateLower {
			g.state[in], g.flow[in] = stateUpper, g.cap[in]
		} else {
			g.state[in], g.flow[in] = stateLower, 0
		}
		return true
	}
	// The leaving arc is at the bound its residual ran out at.
	out := g.pred[uOut]
	toZero := g.predUp[uOut] == (side == 1)
	if toZero {
		g.state[out], g.flow[out] = stateLower, 0
	} else {
		g.state[out], g.flow[out] = stateUpper, g.cap[out]
	}
	g.state[in] = stateTree
	uIn, vIn := first, second
	if side == 2 {
		uIn, vIn = second, first
	}
	g.update(in, join, uIn, vIn, uOut)
	return true
}

// move adds val to the flow on u's tree arc where the arc runs from u's
// parent down to u and subtracts it where it runs up, within the arc's
// bounds.
func (g *Network) move(u int32, val float64) {
	e := g.pred[u]
	if g.predUp[u] {
		val = -val
	}
	f := g.flow[e] + val
	g.flow[e] = math.Min(math.Max(f, 0), g.cap[e])
}

// entering returns an arc that violates its optimality condition by more
// than the tolerance, the most violating of the first block of arcs that
// holds one, searching from where the last search stopped; −1 where none.
func (g *Network) entering() int {
	total := len(g.src)
	block := max(int(math.Sqrt(float64(total))), 10)
	best, most := -1, -g.tol
	cnt := 0
	for k := 0; k < total; k++ {
		a := g.next
		g.next++
		if g.next == total {
			g.next = 0
		}
		if g.state[a] != stateTree && !g.artificial(a) {
			if c := float64(g.state[a]) * g.reduced(a); c < most {
				best, most = a, c
			}
		}
		cnt++
		if cnt == block {
			if best >= 0 {
				return best
			}
			cnt = 0
		}
	}
	return best
}

// join returns the first common node of the tree paths from the entering
// arc's ends to the root.
func (g *Network) join(in int) int32 {
	u, v := int32(g.src[in]), int32(g.dst[in])
	for u != v {
		if g.succNum[u] < g.succNum[v] {
			u = g.parent[u]
		} else {
			v = g.parent[v]
		}
	}
	return u
}

// update replaces the tree arc of uOut by the entering arc in, whose end
// uIn lies in the subtree that leaves (below uOut) and vIn outside it:
// the stem from uIn up to uOut is reversed and hung from vIn, and the
// thread, subtree sizes, last successors and potentials follow (LEMON's
// NetworkSimplex updateTreeStructure).
func (g *Network) update(in int, join, uIn, vIn, uOut int32) {
	oldRevThread := g.revThread[uOut]
	oldSuccNum := g.succNum[uOut]
	oldLastSucc := g.lastSucc[uOut]
	vOut := g.parent[uOut]
	if uIn == uOut {
		g.parent[uIn] = vIn
		g.pred[uIn] = int32(in)
		g.predUp[uIn] = uIn == g.src[in]
		if g.thread[vIn] != uOut {
			after := g.thread[oldLastSucc]
			g.thread[oldRevThread] = after
			g.revThread[after] = oldRevThread
			after = g.thread[vIn]
			g.thread[vIn] = uOut
			g.revThread[uOut] = vIn
			g.thread[oldLastSucc] = after
			g.revThread[after] = oldLastSucc
		}
	} else {
		threadContinue := g.thread[vIn]
		if oldRevThread == vIn {
			threadContinue = g.thread[oldLastSucc]
		}
		stem, parStem := uIn, vIn
		last := g.lastSucc[uIn]
		after := g.thread[last]
		g.thread[vIn] = uIn
		g.dirty = append(g.dirty[:0], vIn)
		for stem != uOut {
			nextStem := g.parent[stem]
			g.thread[last] = nextStem
			g.dirty = append(g.dirty, last)
			before := g.revThread[stem]
			g.thread[before] = after
			g.revThread[after] = before
			g.parent[stem] = parStem
			parStem = stem
			stem = nextStem
			if g.lastSucc[stem] == g.lastSucc[parStem] {
				last = g.revThread[parStem]
			} else {
				last = g.lastSucc[stem]
			}
			after = g.thread[last]
		}
		g.parent[uOut] = parStem
		g.thread[last] = threadContinue
		g.revThread[threadContinue] = last
		g.lastSucc[uOut] = last
		if oldRevThread != vIn {
			g.thread[oldRevThread] = after
			g.revThread[after] = oldRevThread
		}
		for _, u := range g.dirty {
			g.revThread[g.thread[u]] = u
		}
		tmpSc, tmpLs := int32(0), g.lastSucc[uOut]
		for u, p := uOut, g.parent[uOut]; u != uIn; u, p = p, g.parent[p] {
			g.pred[u] = g.pred[p]
			g.predUp[u] = !g.predUp[p]
			tmpSc += g.succNum[u] - g.succNum[p]
			g.succNum[u] = tmpSc
			g.lastSucc[p] = tmpLs
		}
		g.pred[uIn] = int32(in)
		g.predUp[uIn] = uIn == g.src[in]
		g.succNum[uIn] = oldSuccNum
	}
	upLimitOut := int32(-1)
	if g.lastSucc[join] == vIn {
		upLimitOut = join
	}
	lastSuccOut := g.lastSucc[uOut]
	for u := vIn; u != -1 && g.lastSucc[u] == vIn; u = g.parent[u] {
		g.lastSucc[u] = lastSuccOut
	}
	if join != oldRevThread && vIn != oldRevThread {
		for u := vOut; u != upLimitOut && g.lastSucc[u] == oldLastSucc; u = g.parent[u] {
			g.lastSucc[u] = oldRevThread
		}
	} else if lastSuccOut != oldLastSucc {
		for u := vOut; u != upLimitOut && g.lastSucc[u] == oldLastSucc; u = g.parent[u] {
			g.lastSucc[u] = lastSuccOut
		}
	}
	for u := vIn; u != join; u = g.parent[u] {
		g.succNum[u] += oldSuccNum
	}
	for u := vOut; u != join; u = g.parent[u] {
		g.succNum[u] -= oldSuccNum
	}
	// The subtree now under uIn moves by the change of uIn's potential.
	c := g.cost[in]
	if g.predUp[uIn] {
		c = -c
	}
	sigma := g.pi[vIn] + c - g.pi[uIn]
	end := g.thread[g.lastSucc[uIn]]
	for u := uIn; u != end; u = g.thread[u] {
		g.pi[u] += sigma
	}
}
