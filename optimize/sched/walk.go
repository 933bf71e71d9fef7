package sched

import (
	"math"
	"sort"

	"github.com/capsim/capsim/sim"
)

type mode uint8

const (
	modeCCS mode = iota
	modePAS
	modeSAS
)

// ladder is the sequence of configurations a walking scheduler moves a
// task through, from its starting (fastest) configuration down.
type ladder struct {
	cfg    []int32
	time   []float64 // ns
	cores  []int32
	power  []int64   // nW
	mono   bool      // times strictly increase and powers strictly decrease
	sufMax []float64 // sufMax[p] = max(time[p:])
	fast   float64   // the kernel's fastest time, ns
}

// walker implements CCS (Algorithm 4), PAS (Algorithm 5) and SAS
// (Algorithm 6). Each tick starts every pending task at the top of its
// ladder and, while the tasks do not fit, moves the "losing" task one
// step down: the task whose step gives the smallest estimated makespan
// (ties: the task that became ready first). Below a ladder's last step a
// task is deferred (not started this tick).
type walker struct {
	name string
	mode mode
	opt  Options
	// naive selects the losing task by evaluating every candidate at every
	// step, as the algorithms are written; the default finds the same task
	// faster (see pick). Tests compare the two.
	naive bool

	c       common
	nStatic int
	ladders []ladder // per kernel

	// Per tick, indexed like pending.
	pos   []int32
	tau   []float64
	est   float64 // the last tick's makespan estimate, ns
	state tick
	// Segment trees over the pending positions: the largest term and the
	// smallest trial term (+Inf for tasks without a step).
	taus, trials segtree
}

// tick is the state of one Schedule call.
type tick struct {
	pending     []int32
	coreLimit   int
	powerLimit  int64 // nW
	needCores   int
	needPower   int64   // nW
	active      int     // tasks not deferred
	deferD      float64 // when a deferred task is assumed to start, ns from now
	mustRun     bool    // nothing runs: the last active task cannot be deferred
	deferAsStep bool
	pinned      bool // the last active task's deferral step was removed
}

func (w *walker) Name() string { return w.name }

func (w *walker) Start(tw *sim.TaskWorkload, node sim.Node) error {
	if err := w.c.start(tw, node); err != nil {
		return err
	}
	w.nStatic = node.Cores
	if w.mode == modeCCS {
		w.nStatic = w.opt.StaticCores
		if w.nStatic <= 0 {
			w.nStatic = StaticCores(tw, node)
		}
		w.nStatic = min(w.nStatic, node.Cores)
	}
	w.ladders = make([]ladder, len(tw.Configs))
	for k, cs := range tw.Configs {
		var idx []int32
		if w.mode == modeCCS && !w.opt.CCSFrontier {
			// The highest-performance configuration among the top
			// frequencies, then one thread count less at a time.
			top := w.c.top[k]
			best := int32(-1)
			for th := len(top) - 1; th >= 1; th-- {
				if j := top[th]; j >= 0 && (best < 0 || cs[j].Time <= cs[best].Time) {
					best = j
				}
			}
			for th := int(cs[best].Threads); th >= 1; th-- {
				if top[th] >= 0 {
					idx = append(idx, top[th])
				}
			}
		} else {
			idx = Frontier(tw, k)
		}
		l := ladder{cfg: idx, fast: float64(cs[w.c.fastest[k]].Time)}
		for _, i := range idx {
			l.time = append(l.time, float64(cs[i].Time))
			l.cores = append(l.cores, cs[i].Threads)
			l.power = append(l.power, cs[i].PowerNW)
		}
		l.mono = true
		for p := 1; p < len(idx); p++ {
			if !(l.time[p] > l.time[p-1] && l.power[p] < l.power[p-1]) {
				l.mono = false
			}
		}
		l.sufMax = make([]float64, len(idx))
		m := 0.0
		for p := len(idx) - 1; p >= 0; p-- {
			m = max(m, l.time[p])
			l.sufMax[p] = m
		}
		w.ladders[k] = l
	}
	n := tw.DAG.NumTasks()
	w.pos = make([]int32, 0, n)
	w.tau = make([]float64, 0, n)
	return nil
}

func (w *walker) lad(i int) *ladder { return &w.ladders[w.c.w.DAG.Kernel[w.state.pending[i]]] }

// term is task i's part of the makespan estimate at ladder position p
// (p = len means deferred).
func (w *walker) term(i int, p int32) float64 {
	l := w.lad(i)
	bl := w.c.bl[w.state.pending[i]]
	if int(p) < len(l.cfg) {
		return l.time[p] + bl
	}
	return w.state.deferD + l.fast + bl
}

// trial returns the term of task i one step down, or false when i has no
// step to take.
func (w *walker) trial(i int) (float64, bool) {
	p := w.pos[i]
	l := w.lad(i)
	switch {
	case int(p)+1 < len(l.cfg):
		return l.time[p+1] + w.c.bl[w.state.pending[i]], true
	case int(p)+1 == len(l.cfg) && w.state.deferAsStep && w.canDefer():
		return w.term(i, p+1), true
	}
	return 0, false
}

func (w *walker) canDefer() bool { return !(w.state.mustRun && w.state.active == 1) }

func (w *walker) violated() bool {
	s := &w.state
	return s.needCores > s.coreLimit || s.needPower > s.powerLimit
}

// stepDown moves a task of ladder l from point p to p+1 (deferred past
// the last point) in the needs, and returns its new position.
func (s *tick) stepDown(l *ladder, p int32) int32 {
	s.needCores -= int(l.cores[p])
	s.needPower -= l.power[p]
	p++
	if int(p) < len(l.cfg) {
		s.needCores += int(l.cores[p])
		s.needPower += l.power[p]
	} else {
		s.active--
	}
	return p
}

// drop takes a task of ladder l at point p out of the needs (deferred) and
// returns its new position, past the ladder's last point.
func (s *tick) drop(l *ladder, p int32) int32 {
	s.needCores -= int(l.cores[p])
	s.needPower -= l.power[p]
	s.active--
	return int32(len(l.cfg))
}

// move takes task i one step down.
func (w *walker) move(i int) {
	p := w.state.stepDown(w.lad(i), w.pos[i])
	w.pos[i] = p
	w.tau[i] = w.term(i, p)
	w.update(i)
}

// update refreshes task i in the segment trees; when only one task is
// left active and it may not be deferred, its deferral step goes too.
func (w *walker) update(i int) {
	if w.naive || w.taus.n == 0 {
		return
	}
	w.taus.set(i, w.tau[i])
	w.trials.set(i, w.trialOrInf(i))
	if w.state.mustRun && w.state.active == 1 && !w.state.pinned {
		w.state.pinned = true
		for j := range w.pos {
			if int(w.pos[j]) < len(w.lad(j).cfg) {
				w.trials.set(j, w.trialOrInf(j))
				break
			}
		}
	}
}

func (w *walker) trialOrInf(i int) float64 {
	if tr, ok := w.trial(i); ok {
		return tr
	}
	return math.Inf(1)
}

// deferNow takes task i from its position straight to deferred.
func (w *walker) deferNow(i int) {
	w.pos[i] = w.state.drop(w.lad(i), w.pos[i])
	w.tau[i] = w.term(i, w.pos[i])
	w.update(i)
}

// maxTerm returns the current makespan estimate.
func (w *walker) maxTerm() float64 {
	m := math.Inf(-1)
	for _, t := range w.tau {
		m = max(m, t)
	}
	return m
}

func (w *walker) Schedule(st *sim.TaskState, pending []int32, choice []int32) {
	n := len(pending)
	s := &w.state
	*s = tick{pending: pending}
	s.coreLimit = st.IdleCores
	s.powerLimit = math.MaxInt64
	if w.mode == modeCCS {
		s.coreLimit = w.nStatic - (w.c.node.Cores - st.IdleCores)
	} else if capNW := w.c.node.CapNW(); capNW != math.MaxInt64 {
		s.powerLimit = capNW - st.PowerNW
	}
	if s.coreLimit <= 0 || s.powerLimit < 0 {
		return
	}
	s.deferAsStep = !w.opt.DeferLast
	s.mustRun = st.Running == 0
	if st.NextEnd >= 0 {
		s.deferD = float64(st.NextEnd - st.Now)
	} else {
		s.deferD = math.Inf(1)
		for _, t := range pending {
			k := w.c.w.DAG.Kernel[t]
			s.deferD = min(s.deferD, w.ladders[k].fast)
		}
	}
	w.pos, w.tau = w.pos[:n], w.tau[:n]
	for i := range pending {
		l := w.lad(i)
		w.pos[i] = 0
		w.tau[i] = l.time[0] + w.c.bl[pending[i]]
		s.needCores += int(l.cores[0])
		s.needPower += l.power[0]
	}
	s.active = n
	w.taus.n, w.trials.n = 0, 0
	if !w.naive {
		w.taus.init(w.tau, math.Inf(-1), false)
		for i := range w.pos {
			w.tau[i] = w.trialOrInf(i) // scratch: trial terms
		}
		w.trials.init(w.tau, math.Inf(1), true)
		for i := range pending {
			w.tau[i] = w.lad(i).time[0] + w.c.bl[pending[i]]
		}
	}
	for w.violated() {
		i := -1
		switch {
		case w.mode == modeCCS && w.opt.CCSLargest:
			i = w.pickNaive(true)
		case w.naive:
			i = w.pickNaive(false)
		default:
			i = w.pick()
		}
		if i < 0 {
			if !w.opt.DeferLast {
				break
			}
			// DeferLast: everyone is at the lowest point; defer the most
			// recently ready task that may be deferred.
			for j := n - 1; j >= 0; j-- {
				if int(w.pos[j]) < len(w.lad(j).cfg) && w.canDefer() {
					i = j
					break
				}
			}
			if i < 0 {
				break
			}
			w.deferNow(i)
			continue
		}
	}
	if w.mode == modeSAS {
		w.slack()
	}
	w.est = w.maxTerm()
	for i := range pending {
		l := w.lad(i)
		if int(w.pos[i]) < len(l.cfg) && !w.violated() {
			choice[i] = l.cfg[w.pos[i]]
		}
	}
}

// pickNaive evaluates every candidate step: the resulting makespan is
// max(M without i, trial term of i). It returns the task with the
// smallest (largest, for CCS's literal rule) resulting makespan, ties to
// the first, after moving it; −1 when no task can move.
func (w *walker) pickNaive(largest bool) int {
	// Top two terms for the "without i" maxima.
	m1, m2, a1 := math.Inf(-1), math.Inf(-1), -1
	for j, t := range w.tau {
		if t > m1 {
			m1, m2, a1 = t, m1, j
		} else if t > m2 {
			m2 = t
		}
	}
	best, bi := 0.0, -1
	for j := range w.tau {
		tr, ok := w.trial(j)
		if !ok {
			continue
		}
		other := m1
		if j == a1 {
			other = m2
		}
		v := max(other, tr)
		if bi < 0 || (!largest && v < best) || (largest && v > best) {
			best, bi = v, j
		}
	}
	if bi >= 0 {
		w.move(bi)
	}
	return bi
}

// pick is pickNaive(false) in O(log n) per step, with segment trees
// over the terms and the trial terms. With M the estimate and a the first
// task whose term is M, a step of a task j ≠ a gives max(M, trial_j) and
// a step of a gives max(M₂, trial_a), M₂ the largest other term. The
// smallest of these wins, ties to the first task. A winner j ≠ a whose
// trial is ≤ M keeps winning while its next trial is ≤ M, since no other
// task changes: it is walked down in a tight loop, straight to deferral
// when even deferral leaves the tasks over the limits.
func (w *walker) pick() int {
	n := len(w.tau)
	m := w.taus.max(0, n)
	a := w.taus.firstGE(0, m)
	m2 := max(w.taus.max(0, a), w.taus.max(a+1, n))
	best, bi := math.Inf(1), -1
	if tr, ok := w.trial(a); ok {
		best, bi = max(m2, tr), a
	}
	// The best other task: the first with trial ≤ M, else the first with
	// the smallest trial.
	mn := min(w.trials.min(0, a), w.trials.min(a+1, n))
	j := -1
	v := math.Inf(1)
	if mn <= m {
		v = m
		if j = w.trials.firstLE(0, m); j == a {
			j = w.trials.firstLE(a+1, m)
		}
	} else if !math.IsInf(mn, 1) {
		v = mn
		if j = w.trials.firstLE(0, mn); j == a {
			j = w.trials.firstLE(a+1, mn)
		}
	}
	if j >= 0 && (bi < 0 || v < best || v == best && j < bi) {
		if v != m {
			w.move(j)
			return j
		}
		// While a cannot step to ≤ M, M and a stay put as long as the
		// walked tasks end below M, and the next winner is the next task
		// whose trial is ≤ M: everything before it is unchanged.
		aOut := true
		if tr, ok := w.trial(a); ok && tr <= m {
			aOut = false
		}
		for {
			w.walk(j, m)
			if !aOut || !w.violated() || w.tau[j] >= m {
				return j
			}
			k := w.trials.firstLE(j+1, m)
			if k < 0 {
				return j
			}
			j = k
		}
	}
	if bi >= 0 {
		w.move(bi)
	}
	return bi
}

// walk moves task j (not the first maximal task, trial ≤ m) down while it
// stays the winner: the limits are still exceeded and its next trial is
// ≤ m.
func (w *walker) walk(j int, m float64) {
	s := &w.state
	l := w.lad(j)
	bl := w.c.bl[s.pending[j]]
	p := w.pos[j]
	// Steps are taken on the sums only; the trees are updated at the end.
	defer func() {
		w.pos[j] = p
		w.tau[j] = w.term(j, p)
		w.update(j)
	}()
	for {
		if s.deferAsStep && int(p)+1 < len(l.cfg) && l.sufMax[p+1]+bl <= m &&
			s.deferD+l.fast+bl <= m && w.canDefer() &&
			(s.needCores-int(l.cores[p]) > s.coreLimit ||
				s.needPower-l.power[p] > s.powerLimit) {
			// Every remaining step wins and none satisfies the limits.
			p = s.drop(l, p)
			return
		}
		if l.mono && int(p)+1 < len(l.cfg) {
			// Along a frontier times rise and powers fall: the walk ends
			// at the first point within the limits, or at the last point
			// whose term is ≤ m (then, at the ladder's end, deferral).
			baseC := s.needCores - int(l.cores[p])
			baseP := s.needPower - l.power[p]
			lo := int(p) + 1
			r := lo + sort.Search(len(l.cfg)-lo, func(i int) bool { return l.time[lo+i]+bl > m }) - 1
			q := lo + sort.Search(r+1-lo, func(i int) bool { return baseP+l.power[lo+i] <= s.powerLimit })
			for ; q <= r && baseC+int(l.cores[q]) > s.coreLimit; q++ {
			}
			if q <= r {
				r = q
			}
			p = int32(r)
			s.needCores = baseC + int(l.cores[p])
			s.needPower = baseP + l.power[p]
			if q > r && r == len(l.cfg)-1 && s.deferAsStep && w.canDefer() && s.deferD+l.fast+bl <= m {
				p = s.drop(l, p)
			}
			return
		}
		if p = s.stepDown(l, p); int(p) == len(l.cfg) {
			return
		}
		if !w.violated() {
			return
		}
		var tr float64
		switch {
		case int(p)+1 < len(l.cfg):
			tr = l.time[p+1] + bl
		case s.deferAsStep && w.canDefer():
			tr = s.deferD + l.fast + bl
		default:
			return
		}
		if tr > m {
			return
		}
	}
}

// slack is Algorithm 6 after PAS: every task off the critical path (its
// term below M) moves down its frontier while the estimate stays M and
// the threads still fit; deferral is not a slack step.
func (w *walker) slack() {
	s := &w.state
	m := w.maxTerm()
	for i := range w.tau {
		l := w.lad(i)
		if int(w.pos[i]) >= len(l.cfg) || w.tau[i] >= m {
			continue
		}
		bl := w.c.bl[s.pending[i]]
		for p := w.pos[i]; int(p)+1 < len(l.cfg); p++ {
			if l.time[p+1]+bl > m || s.needCores-int(l.cores[p])+int(l.cores[p+1]) > s.coreLimit {
				break
			}
			w.move(i)
		}
	}
}
