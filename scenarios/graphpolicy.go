package scenarios

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/optimize/policy/dctdvfs"
	"github.com/capsim/capsim/optimize/policy/steering"
	"github.com/capsim/capsim/traces/graph"
)

// Steering and DCT + DVFS on an execution graph (see graphphase.go for
// its phases, tasks, units and configurations). Iteration k (steering)
// or phase group k (dct-dvfs) is every rank's k-th phase. Both replay
// on the engine with the scenario's models, like a sweep's points.

// graphPolicy is one policy replay of an execution graph.
type graphPolicy struct {
	sc  *Scenario
	m   *Machine
	g   *graph.Graph
	net network.LogGOPS
	cls *network.Classes // the graph's message classes (Scenario.Classes)
	gp  *graphPhases
	gm  *graphMachine
	ex  *explored
	// byPhase[k] lists the tasks of every rank's k-th phase.
	byPhase [][]int
}

// replayGraphPolicy replays execution graph g under steering or
// dct-dvfs on machine m of sc (r.Policy, r.CapW, the policies' options)
// and reports it as ReplayPolicy does. The LP bound is the graph's
// (bound.FromGraph, the engine's messages) at the job cap.
func replayGraphPolicy(ctx context.Context, r PolicyReplay, sc *Scenario, m *Machine, g *graph.Graph, net network.LogGOPS) (*PolicyReport, error) {
	if r.Beta != nil {
		return nil, optionf("--beta does not apply to an execution graph: its operations take the scenario's models (memory_boundness, the GPU's)")
	}
	if r.LPMessages != "" && r.LPMessages != MessagesEngine {
		return nil, optionf("--lp-messages %s: the LP of an execution graph takes the engine's messages (engine)", r.LPMessages)
	}
	// The policies' caps are the job's: ReplayPolicy refuses a --cap
	// under per-node caps, and without one the cap is the policy's own
	// job power (steer, dctDVFS).
	sc.Sweep.CapScope = CapScopeJob
	if err := m.FitGraph(g, false); err != nil {
		return nil, fmt.Errorf("%s: %w", r.Trace, err)
	}
	gm, err := sc.newGraphMachine(g, m)
	if err != nil {
		return nil, err
	}
	cls, err := sc.Classes(g, nil)
	if err != nil {
		return nil, err
	}
	x := &graphPolicy{sc: sc, m: m, g: g, net: net, cls: cls, gm: gm, gp: splitGraph(g, m.GPU != nil)}
	for i, t := range x.gp.tasks {
		for len(x.byPhase) <= t.phase {
			x.byPhase = append(x.byPhase, nil)
		}
		x.byPhase[t.phase] = append(x.byPhase[t.phase], i)
	}
	if x.ex, err = sc.explore(x.gp, gm, net, nil, r.CapW); err != nil {
		return nil, err
	}
	out := &PolicyReport{Trace: r.Trace, Policy: r.Policy, Machine: m.Name, Network: net.String(), Phases: len(x.byPhase)}
	var capW float64
	switch r.Policy {
	case PolicySteering:
		capW, err = x.steer(r, out)
	default:
		capW, err = x.dctDVFS(r, out)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Trace, err)
	}
	out.RuntimeImprovementPct = policy.Improvement(float64(out.Baseline.MakespanNs), float64(out.Result.MakespanNs))
	out.EnergyImprovementPct = policy.Improvement(out.Baseline.EnergyJ, out.Result.EnergyJ)
	out.LP = PolicyBound{CapW: capW, Status: "skipped", Messages: MessagesEngine}
	if !r.NoBound {
		if out.LP, err = x.gap(ctx, capW, out.Result.MakespanNs); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// run replays the tasks at configurations cfg (extra ns per task) under
// job cap capW and returns the run and its PolicyRun.
func (x *graphPolicy) run(cfg []int, extra []int64, capW float64) (*graphRun, PolicyRun, error) {
	run, err := x.sc.replayPhaseTasks(x.gp, x.gm, x.net, x.cls, capW, cfg, extra, false)
	if err != nil {
		return nil, PolicyRun{}, err
	}
	mt := run.met
	return run, PolicyRun{MakespanNs: mt.MakespanNs, EnergyJ: mt.EnergyJ, AvgW: mt.AvgPowerW, PeakW: mt.PeakPowerW, OverCapNs: mt.OverCapNs}, nil
}

// options returns task i's configurations' times (s) and powers (W
// above the floor), fastest first.
func (x *graphPolicy) options(i int) (times, watts []float64) {
	t := &x.gp.tasks[i]
	times = x.ex.sec[i]
	watts = make([]float64, len(times))
	for k := range watts {
		watts[k] = x.gm.taskW(x.gp, t, k)
	}
	return times, watts
}

// combo is a rank's configuration in one iteration: its GPU streams'
// clock and its cores' P-state.
type combo struct{ clock, pstate int }

// rankTimes replays every combination of a GPU clock and a P-state on
// every rank and returns, per combination, each rank's time (s) in each
// of its phases: from its phase's first task's start to its last's end.
func (x *graphPolicy) rankTimes(capW float64) ([]combo, [][][]float64, error) {
	var combos []combo
	clocks := 1
	if x.gp.gpu {
		clocks = x.gm.configs(true)
	}
	for c := range clocks {
		for p := range x.gm.configs(false) {
			combos = append(combos, combo{c, p})
		}
	}
	n := len(x.gp.tasks)
	out := make([][][]float64, len(combos))
	cfg := make([]int, n)
	for j, cb := range combos {
		for i := range x.gp.tasks {
			cfg[i] = cb.pstate
			if x.gp.tasks[i].onGPU {
				cfg[i] = cb.clock
			}
		}
		run, err := x.sc.replayPhaseTasks(x.gp, x.gm, x.net, x.cls, capW, cfg, nil, false)
		if err != nil {
			return nil, nil, err
		}
		out[j] = make([][]float64, x.g.NumRanks())
		for r := range out[j] {
			out[j][r] = make([]float64, x.gp.phases[r])
		}
		for k, ts := range x.byPhase {
			for rk, sp := range x.spans(run, ts) {
				out[j][rk][k] = math.Max(1e-12, float64(sp[1]-sp[0])/1e9)
			}
		}
	}
	return combos, out, nil
}

// ranksOf lists the ranks with tasks among ts, in increasing order.
func (x *graphPolicy) ranksOf(ts []int) []int {
	var out []int
	for _, i := range ts {
		if rk := x.gp.tasks[i].rank; len(out) == 0 || out[len(out)-1] != rk {
			out = append(out, rk)
		}
	}
	return out
}

// spans returns, per rank with tasks among ts, the start of its first and
// the end of its last in run.
func (x *graphPolicy) spans(run *graphRun, ts []int) map[int][2]int64 {
	out := map[int][2]int64{}
	for _, i := range ts {
		rk := x.gp.tasks[i].rank
		s, ok := out[rk]
		if !ok {
			s = [2]int64{math.MaxInt64, 0}
		}
		out[rk] = [2]int64{min(s[0], run.start[i]), max(s[1], run.end[i])}
	}
	return out
}

// comboW is what rank rk's tasks among ts draw together at combination
// cb, above the floor.
func (x *graphPolicy) comboW(ts []int, rk int, cb combo) float64 {
	var w float64
	for _, i := range ts {
		if t := &x.gp.tasks[i]; t.rank == rk {
			k := cb.pstate
			if t.onGPU {
				k = cb.clock
			}
			w += x.gm.taskW(x.gp, t, k)
		}
	}
	return w
}

// steer is Dynamic Power Steering (Anger, 2016, §5.1, Algorithm 2) per
// iteration over the ranks: a rank's configurations are the combinations
// of its GPU's clock and its cores' P-state, each timed by replay (the
// rank's span in the iteration with every rank at it) and drawing its
// units' task powers together; a rank's list keeps those on its
// time–power front, fastest first (steering.AssignEach: every rank its
// own list). The budget is the job cap less lpBaseW (0: every rank at
// the middle of its list in every iteration). Its baseline is static at
// the same cap, the uniform assignment within the budget. It returns the
// job cap.
func (x *graphPolicy) steer(r PolicyReplay, out *PolicyReport) (float64, error) {
	s := r.Steering
	if s.DecisionNs < 0 || s.DecisionNs > graph.MaxTimeNs {
		return 0, optionf("--decision-ns %d outside 0..%d", s.DecisionNs, graph.MaxTimeNs)
	}
	combos, rt, err := x.rankTimes(r.CapW)
	if err != nil {
		return 0, err
	}
	// fronts[k][rk]: rank rk's combinations in iteration k on its front.
	fronts := make([]map[int][]int, len(x.byPhase))
	times := make([]map[int][]float64, len(x.byPhase))
	watts := make([]map[int][]float64, len(x.byPhase))
	middle := 0.0
	for k, ts := range x.byPhase {
		fronts[k], times[k], watts[k] = map[int][]int{}, map[int][]float64{}, map[int][]float64{}
		for _, rk := range x.ranksOf(ts) {
			order := make([]int, len(combos))
			for j := range order {
				order[j] = j
			}
			w := func(j int) float64 { return x.comboW(ts, rk, combos[j]) }
			sort.SliceStable(order, func(a, b int) bool { return w(order[a]) > w(order[b]) })
			tt, ww := make([]float64, len(order)), make([]float64, len(order))
			for j, c := range order {
				tt[j], ww[j] = rt[c][rk][k], w(c)
			}
			fronts[k][rk], times[k][rk], watts[k][rk] = front(order, tt, ww)
			middle += watts[k][rk][len(watts[k][rk])/2] / float64(len(x.byPhase))
		}
	}
	budget := r.CapW - x.m.lpBaseW()
	if r.CapW == 0 {
		budget = middle
	}
	if budget <= 0 {
		return 0, fmt.Errorf("--cap %g W does not cover the base power %g W (sockets and idle GPUs)", r.CapW, x.m.lpBaseW())
	}
	capW := budget + x.m.lpBaseW()
	out.BudgetW = budget
	n := len(x.gp.tasks)
	cfg := make([]int, n)
	extra := make([]int64, n)
	static := x.staticConfigs(capW)
	for k, ts := range x.byPhase {
		ranks := x.ranksOf(ts)
		from := k
		if s.Predict == steering.Previous {
			from = k - 1
		}
		tt, ww := make([][]float64, len(ranks)), make([][]float64, len(ranks))
		for j, rk := range ranks {
			if from >= 0 && fronts[from][rk] != nil {
				tt[j], ww[j] = times[from][rk], watts[from][rk]
			}
		}
		states, _, ok := steering.AssignEach(tt, ww, budget, s.Strict)
		if !ok {
			out.OverBudgetPhases++
		}
		pick := map[int]int{} // per rank, its combination (−1: static's)
		for j, rk := range ranks {
			pick[rk] = -1
			if tt[j] != nil {
				pick[rk] = fronts[from][rk][states[j]]
			}
		}
		seen := map[int]bool{}
		for _, i := range ts {
			t := &x.gp.tasks[i]
			switch c := pick[t.rank]; {
			case c < 0: // no previous iteration to predict from: the baseline's
				cfg[i] = static(i)
			case t.onGPU:
				cfg[i] = combos[c].clock
			default:
				cfg[i] = combos[c].pstate
			}
			if !seen[t.rank] {
				seen[t.rank], extra[i] = true, s.DecisionNs
			}
		}
	}
	_, res, err := x.run(cfg, extra, capW)
	if err != nil {
		return 0, err
	}
	base, _, err := x.sc.replay(x.g, x.m, x.net, x.cls, policy.Static, capW)
	if err != nil {
		return 0, err
	}
	out.Baseline = PolicyRun{MakespanNs: base.MakespanNs, EnergyJ: base.EnergyJ, AvgW: base.AvgPowerW, PeakW: base.PeakPowerW, OverCapNs: base.OverCapNs}
	out.Result = res
	return capW, nil
}

// front keeps, of points sorted by decreasing power, those on the
// time–power front: each slower than the one before (a point that draws
// no more and is no slower drops those before it).
func front(idx []int, times, watts []float64) ([]int, []float64, []float64) {
	var i2 []int
	var t2, w2 []float64
	for j := range idx {
		for len(t2) > 0 && times[j] <= t2[len(t2)-1] {
			i2, t2, w2 = i2[:len(i2)-1], t2[:len(t2)-1], w2[:len(w2)-1]
		}
		i2, t2, w2 = append(i2, idx[j]), append(t2, times[j]), append(w2, watts[j])
	}
	return i2, t2, w2
}

// dctDVFS is DCT + DVFS slack reclamation (Li, 2011, Ch. 3) per phase
// group. Concurrency throttling has nothing to throttle on a graph (a
// kernel or a host operation carries no OpenMP thread count): every task
// keeps its recorded concurrency, so the DCT step is the baseline, every
// unit at its fastest configuration. Every rank off the group's critical
// time t_c then spends its slack (Eq. 3.6, or 3.20 with ε; with
// --wait-cap capped by the wait measured in the baseline's replay, §3.6)
// on slower configurations of its tasks, chosen by the knapsack under
// the energy constraint Eq. 3.8 (dctdvfs.SelectFrequencies): a task's
// levels are its unit's configurations, timed by replay, at its unit's
// power above the machine's base (taskW plus floorW). With
// --objective whole-interval the slack a rank leaves unused is charged
// at its waiting power in the same terms: the idle power of the units
// its tasks in the group run on (waitW), since the base power is drawn
// whether the rank runs or waits. The rank's
// tasks in a group may overlap (a host core and GPU streams), so their
// summed lengthening within its slack is a conservative schedule. It
// returns the LP's job cap: r.CapW, else the policy's peak power.
func (x *graphPolicy) dctDVFS(r PolicyReplay, out *PolicyReport) (float64, error) {
	d := r.DCTDVFS
	if !(d.CoordinationPct >= 0 && d.CoordinationPct < 100) {
		return 0, optionf("--coordination-pct %g outside [0, 100)", d.CoordinationPct)
	}
	if d.TDVFSNs < 0 || !(d.Epsilon >= 0) {
		return 0, optionf("--tdvfs-ns %d and --epsilon %g must be ≥ 0", d.TDVFSNs, d.Epsilon)
	}
	n := len(x.gp.tasks)
	fastest := make([]int, n)
	baseRun, base, err := x.run(fastest, nil, r.CapW)
	if err != nil {
		return 0, err
	}
	next := x.gp.nextStarts(baseRun)
	cfg := make([]int, n)
	extra := make([]int64, n)
	tdvfs := float64(d.TDVFSNs) / 1e9
	for _, ts := range x.byPhase {
		span := x.spans(baseRun, ts) // per rank: its phase's start and end
		gapEnd := map[int]int64{}    // per rank: when its next phase starts
		for _, i := range ts {
			rk := x.gp.tasks[i].rank
			gapEnd[rk] = max(gapEnd[rk], next[i])
		}
		ranks := x.ranksOf(ts) // in rank order, so that sums are reproducible
		var tc float64
		crit := -1
		for _, rk := range ranks {
			if t := float64(span[rk][1]-span[rk][0]) / 1e9; crit < 0 || t > tc {
				tc, crit = t, rk
			}
		}
		for _, rk := range ranks {
			s := span[rk]
			if rk == crit {
				continue
			}
			ti := float64(s[1]-s[0]) / 1e9
			slack := dctdvfs.Slack(tc, ti, 0, tdvfs, d.Epsilon)
			if d.WaitCap {
				slack = dctdvfs.CapByWait(slack, float64(gapEnd[rk]-s[1])/1e9, tdvfs)
			}
			if slack <= 0 {
				continue
			}
			var mine []int
			var levels [][]dctdvfs.Level
			var items [][]dctdvfs.Item
			var waitW float64
			for _, i := range ts {
				if x.gp.tasks[i].rank != rk {
					continue
				}
				waitW += x.waitW(i)
				times, watts := x.options(i)
				lv := make([]dctdvfs.Level, len(times))
				it := make([]dctdvfs.Item, len(times))
				for k := range times {
					w := watts[k] + x.floorW(i)
					lv[k] = dctdvfs.Level{Seconds: times[k], Watts: w}
					it[k] = dctdvfs.Item{Weight: math.Max(0, times[k]-times[0]), Energy: times[k] * w}
				}
				mine, levels, items = append(mine, i), append(levels, lv), append(items, it)
			}
			sel, err := dctdvfs.SelectFrequencies(levels, slack, d.Objective, waitW, math.Max(1e-6, slack/4096))
			if err != nil {
				return 0, fmt.Errorf("rank %d: %w", rk, err)
			}
			relaxed, err := dctdvfs.Relaxed(items, slack)
			if err != nil {
				return 0, err
			}
			out.SlackNs += graph.SatNs(slack * 1e9)
			out.KnapsackJ += sel.PhaseJ
			out.RelaxedJ += relaxed
			for j, i := range mine {
				cfg[i] = sel.Levels[j]
			}
		}
	}
	// Overheads: t_dvfs where a unit's configuration changes, and the
	// coordination rounds on each rank's last task of a group.
	lastCfg := map[int]int{}
	for k, ts := range x.byPhase {
		lastOf := map[int]int{}
		for _, i := range ts {
			t := &x.gp.tasks[i]
			if c, ok := lastCfg[t.unit]; (ok && c != cfg[i]) || (!ok && cfg[i] != 0) {
				extra[i] += d.TDVFSNs
			}
			lastCfg[t.unit] = cfg[i]
			lastOf[t.rank] = i
		}
		if d.CoordinationPct > 0 {
			tc := x.groupCritical(baseRun, k)
			for _, i := range lastOf {
				extra[i] += graph.SatNs(float64(d.Strategy.Rounds()) * d.CoordinationPct / 100 * tc * 1e9)
			}
			out.CoordRounds += d.Strategy.Rounds()
			out.CoordNs += graph.SatNs(float64(d.Strategy.Rounds()) * d.CoordinationPct / 100 * tc * 1e9)
		}
	}
	_, res, err := x.run(cfg, extra, r.CapW)
	if err != nil {
		return 0, err
	}
	dct := base
	out.Baseline, out.DCT, out.Result = base, &dct, res
	capW := r.CapW
	if capW == 0 {
		capW = res.PeakW
	}
	return capW, nil
}

// staticConfigs returns, per task, the configuration static runs it at
// under job cap capW: its GPU's clock, or its core's P-state.
func (x *graphPolicy) staticConfigs(capW float64) func(i int) int {
	clock, core := 0, len(x.m.PStates)-1
	if x.m.GPU != nil {
		c := x.m.gpuClock(policy.Static, capW)
		for k, a := range x.m.GPU.Allowed() {
			if a == c {
				clock = k
			}
		}
	}
	share := x.m.coreShare(policy.Static, capW)
	for k, p := range x.m.PStates {
		if p.ActivePowerW <= share+1e-9 {
			core = k
			break
		}
	}
	return func(i int) int {
		if x.gp.tasks[i].onGPU {
			return clock
		}
		return core
	}
}

// floorW is what task i's unit draws at least while it runs, beyond its
// task power: a GPU stream's idle power (taskW is above it), nothing on a
// core.
func (x *graphPolicy) floorW(i int) float64 {
	if x.gp.tasks[i].onGPU {
		return x.m.GPU.IdleW
	}
	return 0
}

// waitW is what task i's unit draws while its rank waits, in the terms
// of the task's levels (above the machine's base power, which the rank
// draws whether it runs or waits): a GPU stream's idle power (floorW), a
// core's idle power.
func (x *graphPolicy) waitW(i int) float64 {
	if x.gp.tasks[i].onGPU {
		return x.floorW(i)
	}
	return x.m.CoreIdlePowerW
}

// groupCritical is phase group k's critical time in run: the longest
// rank's span of its tasks, in seconds.
func (x *graphPolicy) groupCritical(run *graphRun, k int) float64 {
	var tc float64
	for _, s := range x.spans(run, x.byPhase[k]) {
		tc = math.Max(tc, float64(s[1]-s[0])/1e9)
	}
	return tc
}

// gap solves the graph's LP at job cap capW and returns the policy's gap
// to it.
func (x *graphPolicy) gap(ctx context.Context, capW float64, makespanNs int64) (PolicyBound, error) {
	out := PolicyBound{CapW: capW, Messages: MessagesEngine}
	sc := *x.sc
	sc.Bound.Messages = MessagesEngine
	sc.Sweep.CapsW = []float64{capW}
	bd, err := sc.newGraphBounder(x.g, x.cls, x.m, x.net, 0)
	if err != nil {
		return out, fmt.Errorf("LP bound: %w", err)
	}
	defer bd.close()
	if bd == nil || bd.lp == nil {
		out.Status = "no-solver"
		return out, nil
	}
	var ie *bound.InfeasibleError
	var se *clp.StatusError
	res, err := bd.solve(ctx, capW)
	if errors.As(err, &ie) || (errors.As(err, &se) && se.Status == clp.PrimalInfeasible) || (err == nil && res == nil) {
		out.Status = "infeasible"
		out.LeastCapW, _ = sc.leastLPCapW(bd.d, bd.o, bd.m)
		return out, nil
	} else if err != nil {
		return out, fmt.Errorf("LP bound at %g W: %w", capW, err)
	}
	if out.BoundNs, err = graph.SecondsToNs(res.Makespan); err != nil {
		return out, fmt.Errorf("LP bound at %g W: makespan: %w", capW, err)
	}
	out.Status = "ok"
	// A graph without work has a bound of 0 ns, its replays take none
	// either: the gap stays 0 (as GapPct's), not an infeasible LP.
	if out.BoundNs > 0 {
		out.GapPct = 100 * (float64(makespanNs)/float64(out.BoundNs) - 1)
	}
	return out, nil
}
