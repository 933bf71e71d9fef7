package dctdvfs

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/frontier"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// runner is one Run: the trace, its phases and model, and what DCT chose
// for each phase group, which DVFS then refines.
type runner struct {
	t    *mpi.Trace
	g    *graph.Graph
	net  network.LogGOPS
	o    Options
	m    *eventModel
	ph   *policy.Phases
	ops  [][]int32
	scal []Scaling // per trace region
	n, S int       // ranks, frequency levels
	res  *Result
	// conf[k][r][j] is the DCT configuration (an index of m.th) of rank
	// r's j-th compute event in group k (nil: a group without compute);
	// tcs[k], tis[k] and crits[k] are the group's critical time, each
	// rank's time and its critical rank.
	conf  [][][]int
	tcs   []float64
	tis   [][]float64
	crits []int
	prevC []int // per rank, the thread count of its last phase (−1: none yet)
	jm    power.JobModel
}

// Run applies DCT + DVFS to trace t (lowered to g without a reduction
// cost) and replays the baseline, DCT alone and DCT + DVFS under net.
func Run(t *mpi.Trace, g *graph.Graph, net network.LogGOPS, o Options) (*Result, error) {
	x, err := newRunner(t, g, net, o)
	if err != nil {
		return nil, err
	}
	baseline, dct, err := x.dct()
	if err != nil {
		return nil, err
	}
	bo, err := policy.Replay(g, net, baseline, x.jm, 0)
	if err != nil {
		return nil, fmt.Errorf("dctdvfs: baseline: %w", err)
	}
	do, err := policy.Replay(g, net, dct, x.jm, 0)
	if err != nil {
		return nil, fmt.Errorf("dctdvfs: DCT: %w", err)
	}
	plan, err := x.dvfs(do)
	if err != nil {
		return nil, err
	}
	po, err := policy.ReplayNodes(g, net, plan, x.jm, o.CapW, o.Nodes)
	if err != nil {
		return nil, fmt.Errorf("dctdvfs: DCT+DVFS: %w", err)
	}
	res := x.res
	res.Baseline, res.DCT, res.DCTDVFS = summary(bo), summary(do), summary(po)
	res.EnergySavedPct = policy.Improvement(bo.EnergyJ, po.EnergyJ)
	res.TimeLostPct = lost(bo.MakespanNs, po.MakespanNs)
	res.DCTEnergySavedPct = policy.Improvement(bo.EnergyJ, do.EnergyJ)
	res.DCTTimeLostPct = lost(bo.MakespanNs, do.MakespanNs)
	if !o.NoBound {
		if err := x.gap(plan, po); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// newRunner prepares a Run: the model, the phases, the calc operations
// and the scaling of every region.
func newRunner(t *mpi.Trace, g *graph.Graph, net network.LogGOPS, o Options) (*runner, error) {
	m, err := newModel(t, &o)
	if err != nil {
		return nil, err
	}
	ph, err := policy.Split(t)
	if err != nil {
		return nil, err
	}
	ops, err := policy.CalcOps(t, g)
	if err != nil {
		return nil, err
	}
	x := &runner{t: t, g: g, net: net, o: o, m: m, ph: ph, ops: ops, n: len(t.Ranks), S: len(m.ghz),
		scal: make([]Scaling, len(t.Regions)), res: &Result{Threads: make([][][]int, ph.N), GHz: make([][][]float64, ph.N)}}
	for i, name := range t.Regions {
		if x.scal[i], err = o.Profile.lookup(name); err != nil {
			return nil, err
		}
		if err := x.scal[i].validate(); err != nil {
			return nil, fmt.Errorf("region %q: %w", name, err)
		}
	}
	x.jm = power.JobModel{BaseW: float64(x.n) * o.Node.IdleW, IdleW: o.Node.WaitW, ActiveW: make([]float64, x.n), Wait: o.Node.Wait}
	for r := range x.jm.ActiveW {
		x.jm.ActiveW[r] = m.busyW(1, 0) // the master thread communicating at f_max
	}
	return x, nil
}

// sec is the time in seconds of rank r's compute event i with c threads
// at frequency level s.
func (x *runner) sec(r, i, c, s int) float64 {
	e := &x.t.Ranks[r].Events[i]
	return float64(e.Duration) * x.m.factor(x.scal[e.Region], r, e, c, s) / 1e9
}

// switched returns the penalty of running rank r's next phase with
// thread count c and records c in prev.
func (x *runner) switched(prev []int, r, c int) float64 {
	p := 0.0
	if prev[r] >= 0 && prev[r] != c {
		p = float64(x.o.SwitchPenaltyNs) / 1e9
	}
	prev[r] = c
	return p
}

// dct chooses, per group and rank, the thread count minimizing the group
// time (or, PerPhase, each phase's own time), and returns the baseline's
// plan (every phase at the most threads and f_max) and DCT's.
func (x *runner) dct() (baseline, dct *policy.Plan, err error) {
	n, ph, m, o := x.n, x.ph, x.m, x.o
	x.conf = make([][][]int, ph.N)
	x.tcs = make([]float64, ph.N)
	x.tis = make([][]float64, ph.N)
	x.crits = make([]int, ph.N)
	baseline, dct = policy.NewPlan(x.g), policy.NewPlan(x.g)
	x.prevC = make([]int, n)
	for r := range x.prevC {
		x.prevC[r] = -1
	}
	for k := 0; k < ph.N; k++ {
		times, any := x.groupTimes(k)
		if !any {
			continue
		}
		x.res.Groups++
		if err := x.dctGroup(k, times); err != nil {
			return nil, nil, err
		}
		tc := x.tcs[k]
		x.res.CoordRounds += o.Strategy.Rounds()
		x.res.CoordNs += ns(float64(o.Strategy.Rounds()) * o.Coordination * tc)
		for r := 0; r < n; r++ {
			last := len(ph.Compute[r][k]) - 1
			for j, i := range ph.Compute[r][k] {
				op := x.ops[r][i]
				c := m.th[x.conf[k][r][j]]
				baseline.Dur[op] = ns(x.sec(r, i, m.cmax, 0))
				baseline.W[op] = m.busyW(m.cmax, 0)
				coord := 0.0
				if j == last {
					coord = o.Coordination * tc // one round
				}
				dct.Dur[op] = ns(x.sec(r, i, c, 0) + x.switched(x.prevC, r, c) + coord)
				dct.W[op] = m.busyW(c, 0)
			}
		}
	}
	return baseline, dct, nil
}

// groupTimes returns times[r][c][j], the time of rank r's j-th compute
// event of group k with thread count m.th[c] at f_max, and whether the
// group has any.
func (x *runner) groupTimes(k int) (times [][][]float64, any bool) {
	times = make([][][]float64, x.n)
	for r := 0; r < x.n; r++ {
		times[r] = make([][]float64, len(x.m.th))
		for c := range x.m.th {
			for _, i := range x.ph.Compute[r][k] {
				times[r][c] = append(times[r][c], x.sec(r, i, x.m.th[c], 0))
				any = true
			}
		}
	}
	return times, any
}

// dctGroup sets group k's configurations and its critical time and rank
// from times (groupTimes).
func (x *runner) dctGroup(k int, times [][][]float64) error {
	ch, ti, tc, crit, err := DCT(times)
	if err != nil {
		return err
	}
	perPhase := x.o.Granularity == PerPhase
	x.conf[k] = make([][]int, x.n)
	for r := 0; r < x.n; r++ {
		nj := len(x.ph.Compute[r][k])
		x.conf[k][r] = make([]int, nj)
		for j := range x.conf[k][r] {
			x.conf[k][r][j] = ch[r]
		}
		if perPhase && nj > 0 {
			ti[r] = 0
			for j := 0; j < nj; j++ {
				best := 0
				for c := range x.m.th {
					if times[r][c][j] < times[r][best][j] {
						best = c
					}
				}
				x.conf[k][r][j] = best
				ti[r] += times[r][best][j]
			}
		}
	}
	if perPhase {
		tc, crit = 0, -1
		for r, t := range ti {
			if crit < 0 || t > tc {
				tc, crit = t, r
			}
		}
	}
	x.tis[k], x.tcs[k], x.crits[k] = ti, tc, crit
	return nil
}

// dvfs slows every non-critical rank's phases into their slack (do is
// DCT's replay, for the measured waits) and returns the DCT + DVFS plan.
func (x *runner) dvfs(do *policy.Outcome) (*policy.Plan, error) {
	plan := policy.NewPlan(x.g)
	prevS := make([]int, x.n)
	for r := range x.prevC {
		x.prevC[r] = -1
	}
	for k := 0; k < x.ph.N; k++ {
		if x.conf[k] == nil {
			continue
		}
		x.res.Threads[k] = make([][]int, x.n)
		x.res.GHz[k] = make([][]float64, x.n)
		for r := 0; r < x.n; r++ {
			cs, levels, err := x.levels(do, r, k)
			if err != nil {
				return nil, err
			}
			x.place(plan, prevS, r, k, cs, levels)
		}
	}
	return plan, nil
}

// levels returns the configurations and frequency levels of rank r's
// phases in group k: DCT's at f_max for the critical rank, else those
// the knapsack picks in the rank's slack.
func (x *runner) levels(do *policy.Outcome, r, k int) (cs, levels []int, err error) {
	o, m := x.o, x.m
	evs := x.ph.Compute[r][k]
	cs = x.conf[k][r]
	levels = make([]int, len(evs)) // all f_max
	if r == x.crits[k] || len(evs) == 0 {
		return cs, levels, nil
	}
	tdvfs := float64(o.TDVFSNs) / 1e9
	var send float64
	for _, b := range x.ph.SendBytes[r][k] {
		send += float64(x.net.Cost(b)) / 1e9
	}
	slack := Slack(x.tcs[k], x.tis[k][r], send, tdvfs, o.Epsilon)
	if o.WaitCap {
		slack = CapByWait(slack, measuredWait(x.t, x.ph, x.ops, do, r, k, send), tdvfs)
	}
	if slack <= 0 {
		return cs, levels, nil
	}
	sel, cc, err := m.choose(evs, r, cs, slack, x.tis[k][r], o.Node.IdleW+o.Node.WaitW, x.sec, o)
	if err != nil {
		return nil, nil, fmt.Errorf("dctdvfs: rank %d group %d: %w", r, k, err)
	}
	cs, levels = cc, sel.Levels
	x.res.SlackNs += ns(slack)
	if sel.Rejects {
		x.res.Rejected++
	}
	lp, err := x.relaxed(evs, r, k, cs, slack)
	if err != nil {
		return nil, nil, err
	}
	x.res.KnapsackJ += sel.PhaseJ
	x.res.RelaxedJ += lp
	return cs, levels, nil
}

// relaxed is the knapsack's own bound at the chosen configurations cs of
// rank r's phases evs in group k, with slack seconds.
func (x *runner) relaxed(evs []int, r, k int, cs []int, slack float64) (float64, error) {
	m := x.m
	items := make([][]Item, len(evs))
	for j, i := range evs {
		c := m.th[cs[j]]
		for s := 0; s < x.S; s++ {
			tt := x.sec(r, i, c, s)
			items[j] = append(items[j], Item{Weight: tt - x.sec(r, i, c, 0), Energy: tt * (x.o.Node.IdleW + m.busyW(c, s))})
		}
	}
	return Relaxed(items, slack-(m.groupTime(evs, r, cs, x.sec)-x.tis[k][r]))
}

// place writes rank r's phases of group k into plan at configurations cs
// and frequency levels levels, with the switch, DVFS and coordination
// overheads; prevS holds each rank's last level.
func (x *runner) place(plan *policy.Plan, prevS []int, r, k int, cs, levels []int) {
	o, m := x.o, x.m
	evs := x.ph.Compute[r][k]
	tdvfs := float64(o.TDVFSNs) / 1e9
	x.res.Threads[k][r] = make([]int, len(evs))
	x.res.GHz[k][r] = make([]float64, len(evs))
	for j, i := range evs {
		s := levels[j]
		c := m.th[cs[j]]
		op := x.ops[r][i]
		d := x.sec(r, i, c, s) + x.switched(x.prevC, r, c)
		if j == len(evs)-1 {
			d += float64(o.Strategy.Rounds()) * o.Coordination * x.tcs[k]
		}
		if s != prevS[r] {
			d += tdvfs
		}
		prevS[r] = s
		plan.Dur[op] = ns(d)
		plan.W[op] = m.busyW(c, s)
		x.res.Threads[k][r][j] = c
		x.res.GHz[k][r][j] = m.ghz[s]
	}
}

// gap sets the result's gap to the LP bound at the cap, the job's or
// every node's (or, uncapped, at the replay's peak task power): every
// compute event may run at any thread count and frequency.
func (x *runner) gap(plan *policy.Plan, po *policy.Outcome) error {
	m, o := x.m, x.o
	capW := o.CapW
	if capW == 0 {
		capW = x.jm.BaseW + policy.TaskPowerPeak(x.g, plan, po)
	}
	configs := func(r int, e *mpi.Event) []frontier.Config {
		var cs []frontier.Config
		sc := x.scal[e.Region]
		for c := range m.th {
			for s := 0; s < x.S; s++ {
				t := float64(e.Duration) * m.factor(sc, r, e, m.th[c], s) / 1e9
				if t <= 0 {
					t = 1e-12
				}
				cs = append(cs, frontier.Config{Time: t, Power: m.busyW(m.th[c], s)})
			}
		}
		return cs
	}
	var comm bound.Comm
	if o.Calibrate != nil {
		var err error
		if comm, err = o.Calibrate(x.fastest()); err != nil {
			return fmt.Errorf("dctdvfs: LP communication: %w", err)
		}
	}
	var err error
	baseW, nodeOf := x.jm.BaseW, []int(nil)
	if o.Nodes != nil {
		baseW, nodeOf = o.Nodes.BaseW, o.Nodes.Of
	}
	x.res.Gap, err = policy.LPGap(x.t, comm, x.net, configs, capW, baseW, nodeOf, po.MakespanNs)
	return err
}

// fastest is the plan with every compute event at its fastest thread
// count and f_max, whose replay calibrates the LP's communication.
func (x *runner) fastest() *policy.Plan {
	fastest := policy.NewPlan(x.g)
	for r := 0; r < x.n; r++ {
		for i, op := range x.ops[r] {
			if op < 0 {
				continue
			}
			best := math.Inf(1)
			for c := range x.m.th {
				best = math.Min(best, x.sec(r, i, x.m.th[c], 0))
			}
			fastest.Dur[op] = ns(best)
		}
	}
	return fastest
}
