// Package steering implements Dynamic Power Steering for bulk-synchronous
// MPI traces (Anger's thesis, Georgia Tech, 2016,
// §5.1, Algorithm 2): before every iteration each core (rank) gets a P-state so that
// the most loaded core runs as fast as the global power budget allows and
// every other core runs at the slowest P-state that still reaches the
// barrier no later than it; cores that finish early wait at the lowest
// P-state (Eq. 7: they sleep for T_MaxWork − T_LocalWork).
//
// The iterations are the phases between synchronizing collectives on
// MPI_COMM_WORLD (policy.Split). Steering produces one P-state per (rank,
// compute event) — a policy.Plan — that is replayed on the one engine
// (package sim) with the power accountant, next to the "no steering"
// baseline in which every core runs at the fastest P-state the budget
// allows uniformly (the thesis' baseline: all cores at the middle P-state
// under a budget of all cores at the middle P-state).
package steering

import (
	"errors"
	"fmt"
	"slices"

	"github.com/capsim/capsim/compute/dvfs"
	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/frontier"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// Machine is the power model steering assigns P-states on.
type Machine struct {
	// PStates gives the busy power of one core per P-state (any order).
	PStates []power.PState
	// BaseW is the job's constant power (sockets, uncore); the budget and
	// the cap of the LP bound exclude it.
	BaseW float64
	// SleepW is the power of an idle core: before its first compute
	// phase and, under power.WaitIdle, while it waits.
	SleepW float64
	// Wait is what a core draws between its compute phases (MPI calls,
	// waits at the barrier) and after its last one (power.WaitPower; the
	// zero value charges the P-state of its last phase, as Bailey et al., SC'15,
	// §3.3, charges slack).
	// DPS's cores sleep at the barrier: power.WaitIdle.
	Wait power.WaitPower
	// Beta is the frequency-sensitive share of compute time, τ(f) =
	// Beta·f_max/f + 1 − Beta (Anger, 2016, Ch. 5), used for compute events
	// without an "intensity" parameter (gen.ParamIntensity); events with
	// one use it as their Beta.
	Beta float64
}

// NoteMachine is the machine of the DPS unit tests of Anger, 2016, Ch. 5: the PAL
// P-states 2.1, 1.9, 1.7, 1.5, 1.4 GHz with made-up per-core powers 20,
// 17, 14, 12, 11 W, 5 W per sleeping core, no base power and fully
// compute-bound work; cores sleep while they wait (power.WaitIdle).
func NoteMachine() Machine {
	return Machine{PStates: []power.PState{{GHz: 2.1, Watts: 20}, {GHz: 1.9, Watts: 17}, {GHz: 1.7, Watts: 14}, {GHz: 1.5, Watts: 12}, {GHz: 1.4, Watts: 11}},
		SleepW: 5, Beta: 1, Wait: power.WaitPower{Mode: power.WaitIdle}}
}

// fastestFirst returns the P-states sorted by decreasing frequency.
func (m *Machine) fastestFirst() ([]power.PState, error) {
	ps, err := power.NewPStates(m.PStates)
	if err != nil {
		return nil, fmt.Errorf("steering: %w", err)
	}
	out := make([]power.PState, len(ps))
	for i, p := range ps {
		out[len(ps)-1-i] = p
	}
	return out, nil
}

// Assign is Algorithm 2 (Anger, 2016, Ch. 5) for one iteration. times[i][s] is
// core i's compute time at P-state s, P-states ordered fastest first with
// busy powers watts[s]; budget is PWR_max, the bound on Σ watts[state_i].
//
// The critical core is the one with the longest time at the fastest
// P-state (the first on ties). For pm = fastest … slowest it gets P-state
// pm, every other core the slowest P-state s with times[i][s] ≤
// times[crit][pm] (step 5 with ≤ where the thesis prints <; strict = true uses the
// printed "<", under which cores tied with the critical core are forced
// faster), or the fastest when none reaches it; the first pm whose total
// power fits the budget is returned with ok = true. When none fits, every
// core gets the slowest P-state and ok is false.
func Assign(times [][]float64, watts []float64, budget float64, strict bool) (states []int, total float64, ok bool) {
	return AssignNodes(times, watts, nil, budget, strict)
}

// AssignNodes is Assign where every node keeps its own budget: core i is
// on node nodeOf[i] (nil: every core on one node, Assign), and the first
// pm whose assignment keeps every node's summed power within budget is
// returned. The critical core and the target time are the job's (the
// barrier waits for the slowest core on any node); total is the job's
// summed power.
func AssignNodes(times [][]float64, watts []float64, nodeOf []int, budget float64, strict bool) (states []int, total float64, ok bool) {
	n, S := len(times), len(watts)
	states = make([]int, n)
	if n == 0 || S == 0 {
		return states, 0, true
	}
	crit := 0
	for i := range times {
		if times[i][0] > times[crit][0] {
			crit = i
		}
	}
	var perNode []float64 // each node's summed power, with nodeOf
	if nodeOf != nil {
		nodes := 0
		for _, v := range nodeOf {
			nodes = max(nodes, v+1)
		}
		perNode = make([]float64, nodes)
	}
	for pm := 0; pm < S; pm++ {
		tmax := times[crit][pm]
		total = 0
		clear(perNode)
		for i := range times {
			s := pm
			if i != crit {
				s = 0
				for c := S - 1; c >= 0; c-- {
					if fits(times[i][c], tmax, strict) {
						s = c
						break
					}
				}
			}
			states[i] = s
			total += watts[s]
			if nodeOf != nil {
				perNode[nodeOf[i]] += watts[s]
			}
		}
		if within(total, perNode, budget) {
			return states, total, true
		}
	}
	total = 0
	for i := range states {
		states[i] = S - 1
		total += watts[S-1]
	}
	return states, total, false
}

// within reports whether the job's total (perNode nil) or every node's
// power of perNode fits budget.
func within(total float64, perNode []float64, budget float64) bool {
	if perNode == nil {
		return total <= budget+1e-9
	}
	for _, w := range perNode {
		if w > budget+1e-9 {
			return false
		}
	}
	return true
}

func fits(t, tmax float64, strict bool) bool {
	if strict {
		return t < tmax
	}
	return t <= tmax*(1+1e-12)
}

// Uniform returns the fastest P-state index whose power, on all n cores,
// fits budget (the "no steering" baseline), or the slowest when none does.
func Uniform(n int, watts []float64, budget float64) int {
	for s, w := range watts {
		if float64(n)*w <= budget+1e-9 {
			return s
		}
	}
	return len(watts) - 1
}

// Prediction selects what an iteration's assignment is computed from.
type Prediction int

const (
	// Oracle uses the iteration's own work: the cores compute their load,
	// share it, then set P-states (the thesis' workload generator, §5.1.2).
	Oracle Prediction = iota
	// Previous uses the previous iteration's work (the thesis' assumption
	// that it changes little): that of the latest phase with compute; the
	// first iteration runs the baseline.
	Previous
)

// String returns "oracle" or "previous".
func (p Prediction) String() string {
	if p == Previous {
		return "previous"
	}
	return "oracle"
}

// ParsePrediction maps "oracle" or "previous" to a Prediction.
func ParsePrediction(s string) (Prediction, error) {
	switch s {
	case "oracle", "":
		return Oracle, nil
	case "previous":
		return Previous, nil
	}
	return 0, fmt.Errorf("steering: unknown prediction %q (want oracle or previous)", s)
}

// Options configures a steering run.
type Options struct {
	Machine Machine
	// BudgetW is PWR_max, the bound on the summed P-state power of the
	// cores; 0 means every core at the middle P-state (the thesis' setup).
	// With Nodes it is every node's budget (> 0), its cap less
	// Nodes.BaseW.
	BudgetW float64
	// Nodes, when set, gives every node its own budget: each iteration's
	// P-states keep every node's summed power within BudgetW
	// (AssignNodes), the baseline runs at the fastest uniform P-state
	// that fits the fullest node, the replays count the time some node
	// stands above Nodes.BaseW + BudgetW, and the LP bound caps each node.
	Nodes *policy.NodeCaps
	// Strict uses the printed "<" of Algorithm 2 step 5 instead of ≤.
	Strict  bool
	Predict Prediction
	// Calibrate, when set, returns the LP bound's communication measured
	// on a replay with the given compute times (those of the LP's
	// unconstrained schedule: every compute event at its fastest
	// configuration); nil prices messages at their uncontended LogGOPS
	// cost (see policy.LPGap).
	Calibrate func(sim.CalcPricer) (bound.Comm, error)
	// DecisionNs is the per-iteration cost of steering (sharing the loads
	// and setting P-states), charged to every rank's first compute event
	// of each iteration; the thesis studied the best case, 0 (Anger,
	// 2016, Ch. 6).
	DecisionNs int64
	// NoBound skips the LP bound.
	NoBound bool
}

// Summary is one replay of a P-state assignment.
type Summary struct {
	MakespanNs int64
	EnergyJ    float64
	AvgW       float64
	PeakW      float64
	OverCapNs  int64   // time the job (or, with Options.Nodes, some node) spent above its base power + budget
	NodePeakW  float64 // the highest node power with Options.Nodes
}

// Result is a steering run against its baseline.
type Result struct {
	BudgetW   float64 // PWR_max used
	CapW      float64 // BaseW + BudgetW, the job power cap it implies (with Options.Nodes, every node's: Nodes.BaseW + BudgetW)
	Phases    int     // iterations (phases with compute)
	Baseline  Summary // every core at BaseGHz
	Steered   Summary
	BaseGHz   float64
	OverPhase int // phases where no assignment fit the budget (run at the slowest P-state)
	// RuntimePct and EnergyPct are the improvements of steering over the
	// baseline, 100·(base − steered)/base (positive = better).
	RuntimePct, EnergyPct float64
	// GHz[k][r] is rank r's frequency in phase k (GHz[k] is nil for
	// phases without compute on any rank).
	GHz [][]float64
	Gap policy.Gap // steered makespan vs the LP bound at CapW
}

// model is the per-event time model: T(f)/T(f_max) per compute event.
type model struct {
	t      *mpi.Trace
	ps     []power.PState
	intens int // index of the intensity parameter, -1 if none
	beta   float64
}

func newModel(t *mpi.Trace, m Machine, ps []power.PState) *model {
	md := &model{t: t, ps: ps, intens: -1, beta: m.Beta}
	for i, n := range t.ParamNames {
		if n == gen.ParamIntensity {
			md.intens = i
		}
	}
	return md
}

// factor returns T(f)/T(f_max) of compute event e of rank r.
func (md *model) factor(r int, e *mpi.Event, s int) float64 {
	beta := md.beta
	if md.intens >= 0 {
		if p := md.t.Params(r, e); len(p) > md.intens {
			beta = p[md.intens]
		}
	}
	x, err := (&dvfs.Model{Beta: beta, RefGHz: md.ps[0].GHz}).Factor(md.ps[0].GHz, md.ps[s].GHz)
	if err != nil {
		return 1
	}
	return x
}

// Run steers trace t (lowered to g without a reduction cost) under net and
// replays it and its baseline.
func Run(t *mpi.Trace, g *graph.Graph, net network.LogGOPS, o Options) (*Result, error) {
	x, err := newSteer(t, g, o)
	if err != nil {
		return nil, err
	}
	res := x.res
	baseline, steered := x.plans(x.phaseTimes())
	// Between phases a core draws the machine's wait power.
	active := make([]float64, x.n)
	for r := range active {
		active[r] = x.watts[x.S-1]
	}
	jm := power.JobModel{BaseW: o.Machine.BaseW, IdleW: o.Machine.SleepW, ActiveW: active, Wait: o.Machine.Wait}
	bo, err := policy.ReplayNodes(g, net, baseline, jm, res.CapW, o.Nodes)
	if err != nil {
		return nil, fmt.Errorf("steering: baseline: %w", err)
	}
	so, err := policy.ReplayNodes(g, net, steered, jm, res.CapW, o.Nodes)
	if err != nil {
		return nil, fmt.Errorf("steering: steered: %w", err)
	}
	res.Baseline = summary(bo)
	res.Steered = summary(so)
	res.RuntimePct = policy.Improvement(float64(bo.MakespanNs), float64(so.MakespanNs))
	res.EnergyPct = policy.Improvement(bo.EnergyJ, so.EnergyJ)
	if !o.NoBound {
		if res.Gap, err = x.gap(net, so.MakespanNs); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// steer is one Run: the trace's phases, the machine's P-states and the
// budget.
type steer struct {
	t      *mpi.Trace
	g      *graph.Graph
	o      Options
	ph     *policy.Phases
	ops    [][]int32
	ps     []power.PState // fastest first
	watts  []float64      // per P-state
	n, S   int            // ranks, P-states
	budget float64        // the job's, or every node's with nodeOf
	nodeOf []int          // node of every rank under Options.Nodes, else nil
	base   int            // the uniform P-state within the budget
	md     *model
	res    *Result
}

// newSteer checks the machine and budget and splits t into its phases.
func newSteer(t *mpi.Trace, g *graph.Graph, o Options) (*steer, error) {
	ps, err := o.Machine.fastestFirst()
	if err != nil {
		return nil, err
	}
	if o.Machine.BaseW < 0 || o.Machine.SleepW < 0 || !(o.Machine.Beta >= 0 && o.Machine.Beta <= 1) {
		return nil, errors.New("steering: base and sleep power must be ≥ 0 and beta in [0, 1]")
	}
	ph, err := policy.Split(t)
	if err != nil {
		return nil, err
	}
	ops, err := policy.CalcOps(t, g)
	if err != nil {
		return nil, err
	}
	x := &steer{t: t, g: g, o: o, ph: ph, ops: ops, ps: ps, n: len(t.Ranks), S: len(ps)}
	x.watts = make([]float64, x.S)
	for s, p := range ps {
		x.watts[s] = p.Watts
	}
	x.budget = o.BudgetW
	if x.budget == 0 {
		x.budget = float64(x.n) * x.watts[x.S/2]
	}
	if x.budget < 0 || o.DecisionNs < 0 || o.DecisionNs > graph.MaxTimeNs {
		return nil, fmt.Errorf("steering: budget (%g W) negative or decision cost (%d ns) outside 0..%d (graph.MaxTimeNs)", x.budget, o.DecisionNs, graph.MaxTimeNs)
	}
	x.md = newModel(t, o.Machine, ps)
	fullest, capW := x.n, o.Machine.BaseW+x.budget
	if nc := o.Nodes; nc != nil {
		if o.BudgetW <= 0 {
			return nil, errors.New("steering: node caps need a budget (BudgetW > 0)")
		}
		if err := nc.Validate(x.n); err != nil {
			return nil, fmt.Errorf("steering: %w", err)
		}
		x.nodeOf = nc.Of
		per := make([]int, nc.Nodes())
		for _, v := range nc.Of {
			per[v]++
		}
		fullest, capW = slices.Max(per), nc.BaseW+x.budget
	}
	x.base = Uniform(fullest, x.watts, x.budget)
	x.res = &Result{BudgetW: x.budget, CapW: capW, BaseGHz: ps[x.base].GHz, GHz: make([][]float64, ph.N)}
	return x, nil
}

// eventNs is rank r's compute event e at P-state s, in ns.
func (x *steer) eventNs(r int, e *mpi.Event, s int) float64 {
	return float64(e.Duration) * x.md.factor(r, e, s)
}

// phaseTimes returns times[k][r][s]: rank r's compute time (ns) in phase
// k at P-state s.
func (x *steer) phaseTimes() [][][]float64 {
	times := make([][][]float64, x.ph.N)
	for k := 0; k < x.ph.N; k++ {
		times[k] = make([][]float64, x.n)
		for r := 0; r < x.n; r++ {
			row := make([]float64, x.S)
			for _, i := range x.ph.Compute[r][k] {
				e := &x.t.Ranks[r].Events[i]
				for s := range row {
					row[s] += x.eventNs(r, e, s)
				}
			}
			times[k][r] = row
		}
	}
	return times
}

// plans returns the baseline's plan (every rank at the uniform P-state)
// and the steered one (Algorithm 2 on each phase's times, or the previous
// phase's with Predict = Previous).
func (x *steer) plans(times [][][]float64) (baseline, steered *policy.Plan) {
	o, res, n := x.o, x.res, x.n
	baseline, steered = policy.NewPlan(x.g), policy.NewPlan(x.g)
	last := -1 // the latest phase with compute, for Previous
	for k := 0; k < x.ph.N; k++ {
		any := false
		for r := 0; r < n; r++ {
			any = any || len(x.ph.Compute[r][k]) > 0
		}
		if !any {
			continue
		}
		res.Phases++
		var states []int
		switch {
		case o.Predict == Previous && last < 0:
			states = make([]int, n)
			for r := range states {
				states[r] = x.base
			}
		default:
			from := k
			if o.Predict == Previous {
				from = last
			}
			var ok bool
			if states, _, ok = AssignNodes(times[from], x.watts, x.nodeOf, x.budget, o.Strict); !ok {
				res.OverPhase++
			}
		}
		last = k
		x.place(baseline, steered, k, states)
	}
	return baseline, steered
}

// place writes phase k's compute events into both plans, the steered one
// at states (per rank), the first event of each rank's phase charged the
// decision cost.
func (x *steer) place(baseline, steered *policy.Plan, k int, states []int) {
	x.res.GHz[k] = make([]float64, x.n)
	for r := 0; r < x.n; r++ {
		x.res.GHz[k][r] = x.ps[states[r]].GHz
		for j, i := range x.ph.Compute[r][k] {
			e := &x.t.Ranks[r].Events[i]
			op := x.ops[r][i]
			steered.Dur[op] = graph.SatNs(x.eventNs(r, e, states[r]))
			if j == 0 {
				steered.Dur[op] += x.o.DecisionNs
			}
			steered.W[op] = x.watts[states[r]]
			baseline.Dur[op] = graph.SatNs(x.eventNs(r, e, x.base))
			baseline.W[op] = x.watts[x.base]
		}
	}
}

// gap is the steered run's gap to the LP bound at the cap, every compute
// event free to run at any P-state.
func (x *steer) gap(net network.LogGOPS, makespanNs int64) (policy.Gap, error) {
	configs := func(r int, e *mpi.Event) []frontier.Config {
		cs := make([]frontier.Config, x.S)
		for s := range cs {
			sec := x.eventNs(r, e, s) / 1e9
			if sec <= 0 {
				sec = 1e-12
			}
			cs[s] = frontier.Config{Time: sec, Power: x.watts[s]}
		}
		return cs
	}
	var comm bound.Comm
	if x.o.Calibrate != nil {
		fastest := policy.NewPlan(x.g)
		for r := 0; r < x.n; r++ {
			for i, op := range x.ops[r] {
				if op >= 0 {
					fastest.Dur[op] = graph.SatNs(x.eventNs(r, &x.t.Ranks[r].Events[i], 0))
				}
			}
		}
		var err error
		if comm, err = x.o.Calibrate(fastest); err != nil {
			return policy.Gap{}, fmt.Errorf("steering: LP communication: %w", err)
		}
	}
	baseW := x.o.Machine.BaseW
	if x.o.Nodes != nil {
		baseW = x.o.Nodes.BaseW
	}
	return policy.LPGap(x.t, comm, net, configs, x.res.CapW, baseW, x.nodeOf, makespanNs)
}

func summary(o *policy.Outcome) Summary {
	return Summary{MakespanNs: o.MakespanNs, EnergyJ: o.EnergyJ, AvgW: o.AvgW, PeakW: o.PeakW, OverCapNs: o.OverCapNs, NodePeakW: o.NodePeakW}
}

// AssignEach is Assign where every unit has configurations of its own:
// times[i][s] and watts[i][s] are unit i's time and power at its
// configuration s, fastest first. The critical unit (the longest at its
// fastest configuration, the first on ties) takes its configurations
// from the fastest on; every other unit the slowest whose time reaches
// the critical one's no later (its fastest when none does), and the first
// assignment whose summed power fits budget is returned with ok = true.
// When none fits, every unit takes its slowest and ok is false. With one
// list of P-states shared by every unit it is Assign.
func AssignEach(times, watts [][]float64, budget float64, strict bool) (states []int, total float64, ok bool) {
	n := len(times)
	states = make([]int, n)
	crit := -1
	for i := range times {
		if len(times[i]) > 0 && (crit < 0 || times[i][0] > times[crit][0]) {
			crit = i
		}
	}
	if crit < 0 {
		return states, 0, true
	}
	for pm := range times[crit] {
		tmax := times[crit][pm]
		total = 0
		for i := range times {
			s := 0
			if i == crit {
				s = pm
			} else {
				for c := len(times[i]) - 1; c >= 0; c-- {
					if fits(times[i][c], tmax, strict) {
						s = c
						break
					}
				}
			}
			states[i] = s
			if len(watts[i]) > 0 {
				total += watts[i][s]
			}
		}
		if total <= budget+1e-9 {
			return states, total, true
		}
	}
	total = 0
	for i := range states {
		states[i] = max(0, len(times[i])-1)
		if len(watts[i]) > 0 {
			total += watts[i][states[i]]
		}
	}
	return states, total, false
}
