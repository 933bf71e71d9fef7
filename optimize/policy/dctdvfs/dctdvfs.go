// Package dctdvfs implements DCT + DVFS slack reclamation for hybrid
// MPI/OpenMP traces (Dong Li's thesis, Virginia Tech, 2011,
// Ch. 3): in every OpenMP phase group (the phases between two synchronizing
// collectives, policy.Split) each MPI task first takes the thread count
// that minimizes its predicted group time (dynamic concurrency throttling,
// Eqs. 3.4–3.5); the tasks that then finish before the critical one get
// their slack (Eq. 3.6, or 3.20 with an error tolerance, optionally capped
// by the wait measured in a replay, §3.6) and spend it on lower
// frequencies chosen by the multiple-choice knapsack dynamic program
// (Li, 2011, Eqs. 3.1–3.3, with corrected base cases) under the energy
// constraint Eq. 3.8. The chosen (threads, frequency) of every compute
// event becomes a policy.Plan replayed on the engine.
//
// Traces carry no thread counts: every compute event is taken as recorded
// with the node's largest concurrency configuration at the fastest
// frequency, and a Profile gives each region's thread scaling (Amdahl's
// law, Anger, 2016, Eq. 4, plus a per-thread overhead, the synchronization
// cost that Li, 2011, §3.4, takes as linear in the thread count) and its
// frequency sensitivity.
package dctdvfs

import (
	"errors"
	"fmt"
	"math"
	"path"
	"sort"

	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// Scaling is how a phase's time responds to threads and frequency,
// relative to the one-thread time at f_max:
//
//	T(c, f) ∝ (Serial + (1 − Serial)/c + Overhead·(c − 1)) · (Beta·f_max/f + 1 − Beta)
type Scaling struct {
	Serial   float64 // Amdahl serial fraction f of Anger, 2016, Eq. 4, in [0, 1]
	Overhead float64 // per extra thread, as a share of the one-thread time (≥ 0)
	Beta     float64 // frequency-sensitive share (Anger, 2016, Ch. 5, τ(f)), in [0, 1]
}

func (s Scaling) threads(c int) float64 {
	return s.Serial + (1-s.Serial)/float64(c) + s.Overhead*float64(c-1)
}

func (s Scaling) validate() error {
	if !(s.Serial >= 0 && s.Serial <= 1) || !(s.Overhead >= 0) || math.IsInf(s.Overhead, 0) || !(s.Beta >= 0 && s.Beta <= 1) {
		return fmt.Errorf("dctdvfs: scaling %+v: want serial and beta in [0, 1] and overhead ≥ 0", s)
	}
	return nil
}

// Rule gives the regions matching Pattern (path.Match syntax) a Scaling.
type Rule struct {
	Pattern string
	Scaling Scaling
}

// Profile gives every region its Scaling: the first matching rule, else
// Default. When a compute event carries an "intensity" parameter
// (gen.ParamIntensity, written by the stencil generator) it is used as the
// event's Beta.
type Profile struct {
	Default Scaling
	Rules   []Rule
}

func (p *Profile) lookup(region string) (Scaling, error) {
	for _, r := range p.Rules {
		ok, err := path.Match(r.Pattern, region)
		if err != nil {
			return Scaling{}, fmt.Errorf("dctdvfs: profile pattern %q: %w", r.Pattern, err)
		}
		if ok {
			return r.Scaling, nil
		}
	}
	return p.Default, nil
}

// Node is the part of a node each MPI task runs on: its cores and its
// share of the node's base power; with one task per node (the
// THREAD_MASTERONLY model of Li, 2011, §2.1) the whole node.
type Node struct {
	// Threads lists the concurrency configurations C; the largest is
	// c^max, the one the trace was recorded with.
	Threads []int
	// PStates gives the busy power of one core per frequency; the
	// fastest is f_max, the recorded frequency.
	PStates []power.PState
	// IdleW is the task's share of its node's power with every core
	// idle: the node draws it once, whatever number of tasks it holds.
	IdleW float64
	// CoreIdleW is the power of a core the phase leaves unused, above
	// IdleW: a phase with c threads draws IdleW + c·P(f) + (c_max − c)·
	// CoreIdleW.
	CoreIdleW float64
	WaitW     float64 // extra node power of a task's idle cores (before its first phase; while it waits under power.WaitIdle)
	// Wait is what a task's node draws above IdleW between its phases
	// (MPI calls and waits) and after its last one (power.WaitPower; the
	// zero value: the power of its last phase, Bailey et al., SC'15, §3.3; the
	// thesis' model: power.WaitIdle, WaitW).
	Wait power.WaitPower
}

// Strategy selects the adaptation strategy (Li, 2011, §3.3).
type Strategy int

const (
	// DCTFirst throttles concurrency first, then spends the slack on
	// frequencies (§3.3.1, the thesis' default).
	DCTFirst Strategy = iota
	// Combined lets non-critical tasks choose threads and frequencies
	// together under the slack (§3.3.3, Eqs. 3.13–3.16).
	Combined
)

// String returns "dct-first" or "combined".
func (s Strategy) String() string {
	if s == Combined {
		return "combined"
	}
	return "dct-first"
}

// Rounds returns the coordination rounds per phase group of s (Li,
// 2011, §3.6): one for DCT first, two for combined.
func (s Strategy) Rounds() int {
	if s == Combined {
		return 2
	}
	return 1
}

// ParseStrategy maps "dct-first" or "combined" to a Strategy.
func ParseStrategy(s string) (Strategy, error) {
	switch s {
	case "dct-first", "":
		return DCTFirst, nil
	case "combined":
		return Combined, nil
	}
	return 0, fmt.Errorf("dctdvfs: unknown strategy %q (want dct-first or combined)", s)
}

// Granularity selects how finely DCT chooses thread counts.
type Granularity int

const (
	// OnePhase gives all phases of a task's group one thread count.
	OnePhase Granularity = iota
	// PerPhase gives every phase its own fastest thread count.
	PerPhase
)

// String returns "one-phase" or "per-phase".
func (g Granularity) String() string {
	if g == PerPhase {
		return "per-phase"
	}
	return "one-phase"
}

// ParseGranularity maps "one-phase" or "per-phase" to a Granularity.
func ParseGranularity(s string) (Granularity, error) {
	switch s {
	case "one-phase", "":
		return OnePhase, nil
	case "per-phase":
		return PerPhase, nil
	}
	return 0, fmt.Errorf("dctdvfs: unknown granularity %q (want one-phase or per-phase)", s)
}

// Options configures a run.
type Options struct {
	Node      Node
	Profile   Profile
	Strategy  Strategy
	Objective Objective
	// TDVFSNs is the DVFS switching overhead t_dvfs (ns): it is taken off
	// the slack (Eq. 3.6) and charged to every phase whose frequency
	// differs from its rank's previous phase.
	TDVFSNs int64
	// Epsilon is the error tolerance ε of Eq. 3.20 (0 = Eq. 3.6).
	Epsilon float64
	// Granularity is OnePhase (one thread count per task and phase group,
	// the thesis' improved one phase approach) or PerPhase (each phase its
	// own best count, the profile-driven static mapping of Li, 2011, §3.1.1).
	Granularity Granularity
	// SwitchPenaltyNs is charged to a phase whose thread count differs
	// from its rank's previous phase (the cache misses of Li, 2011,
	// §3.1).
	SwitchPenaltyNs int64
	// Coordination is the runtime's overhead per coordination round, as a
	// share of the phase group's critical time t_c: the sampling,
	// prediction and exchange of slack the thesis' runtime performs per
	// phase group (Li, 2011, §3.6: DCT first needs one round per group,
	// DVFS first and combined two). Every task's last phase of the group
	// is extended by Rounds·Coordination·t_c at its own power; DCT alone
	// pays one round. The thesis reports only aggregates: 0.736 % on
	// LU-MZ, where no configuration changes (Li, 2011, §3.7), and < 4 % (mostly
	// < 2 %) on System G (§3.7). 0 = free coordination.
	Coordination float64
	// WaitCap caps each task's slack by its wait measured in the replay
	// of the DCT-only plan (Li, 2011, §3.6).
	WaitCap bool
	// CapW is the job power cap the LP bound is solved at, or every
	// node's with Nodes; 0 takes the policy's own peak as the LP counts
	// power (policy.TaskPowerPeak). DCT + DVFS chooses by slack, not by
	// power: its phases draw no more than the baseline's (fewer threads,
	// lower frequencies), and its replay reports the time it stands above
	// the cap (Summary.OverCapNs).
	CapW float64
	// Nodes, when set, makes CapW (> 0) every node's cap: the LP bound
	// caps each node's power (bound.Options.NodeOf) and the replay counts
	// the time some node stands above CapW.
	Nodes *policy.NodeCaps
	// Calibrate, when set, returns the LP bound's communication measured
	// on a replay with the given compute times (those of the LP's
	// unconstrained schedule: every compute event at its fastest
	// configuration); nil prices messages at their uncontended LogGOPS
	// cost (see policy.LPGap).
	Calibrate func(sim.CalcPricer) (bound.Comm, error)
	NoBound   bool
}

// Summary is one replay.
type Summary struct {
	MakespanNs int64
	EnergyJ    float64
	AvgW       float64
	PeakW      float64
	// OverCapNs is the time above the cap, the job's or some node's
	// (DCT + DVFS's replay; 0 without a cap).
	OverCapNs int64
	// NodePeakW is the highest node power under Options.Nodes.
	NodePeakW float64
}

// Result is a DCT + DVFS run against its baseline, every task at c^max and
// f_max.
type Result struct {
	Groups                 int // phase groups with compute
	Baseline, DCT, DCTDVFS Summary
	// EnergySavedPct and TimeLostPct compare DCT + DVFS with the baseline
	// (positive = less energy, more time); the DCT ones compare DCT alone.
	EnergySavedPct, TimeLostPct       float64
	DCTEnergySavedPct, DCTTimeLostPct float64
	// Threads[k][r] and GHz[k][r] give rank r's thread count and
	// frequency per compute event of group k.
	Threads [][][]int
	GHz     [][][]float64
	// SlackNs is the slack dispersed, summed over tasks and groups.
	SlackNs int64
	// KnapsackJ and RelaxedJ sum the phase energy the knapsack chose and
	// the least its LP relaxation allows, over the tasks that had slack:
	// the knapsack's distance to its own bound.
	KnapsackJ, RelaxedJ float64
	Rejected            int // selections Eq. 3.8 rejected
	// CoordRounds counts the coordination rounds of DCT + DVFS (its
	// strategy's rounds per phase group); CoordNs is the coordination
	// time charged to one task, summed over groups.
	CoordRounds int
	CoordNs     int64
	Gap         policy.Gap // DCT + DVFS makespan vs the LP bound
}

type eventModel struct {
	t      *mpi.Trace
	o      *Options
	ghz    []float64 // fastest first
	watts  []float64
	th     []int // ascending
	cmax   int
	intens int
}

// factor returns T(c, f_s)/T(c_max, f_max) of compute event e of rank r.
func (m *eventModel) factor(sc Scaling, r int, e *mpi.Event, c, s int) float64 {
	beta := sc.Beta
	if m.intens >= 0 {
		if p := m.t.Params(r, e); len(p) > m.intens {
			beta = p[m.intens]
		}
	}
	tf := beta*m.ghz[0]/m.ghz[s] + 1 - beta
	return sc.threads(c) / sc.threads(m.cmax) * tf
}

// choose picks the frequency levels of rank r's phases evs (and, with the
// Combined strategy, one thread count for them all) under slack seconds;
// cs holds the DCT configuration of each phase and tdct the group time
// with it.
func (m *eventModel) choose(evs []int, r int, cs []int, slack, tdct, waitW float64, sec func(r, i, c, s int) float64, o Options) (Selection, []int, error) {
	quantum := math.Max(1e-6, slack/4096)
	cands := [][]int{cs}
	if o.Strategy == Combined {
		for c := range m.th {
			u := make([]int, len(evs))
			same := true
			for j := range u {
				u[j] = c
				same = same && cs[j] == c
			}
			if !same {
				cands = append(cands, u)
			}
		}
	}
	var refJ float64 // Eq. 3.15: the energy at (c_max, f_max)
	for _, i := range evs {
		refJ += sec(r, i, m.cmax, 0) * (o.Node.IdleW + m.busyW(m.cmax, 0))
	}
	var best Selection
	var bestC []int
	bestObj := math.Inf(1)
	for ci, cc := range cands {
		phases := make([][]Level, len(evs))
		for j, i := range evs {
			c := m.th[cc[j]]
			for s := range m.ghz {
				phases[j] = append(phases[j], Level{Seconds: sec(r, i, c, s), Watts: o.Node.IdleW + m.busyW(c, s)})
			}
		}
		y := slack - (m.groupTime(evs, r, cc, sec) - tdct) // slack left at (cc, f_max)
		if y < -1e-12 {
			continue
		}
		sel, err := SelectFrequencies(phases, math.Max(0, y), o.Objective, waitW, quantum)
		if err != nil {
			return Selection{}, nil, err
		}
		if ci > 0 && sel.PhaseJ > refJ*(1+1e-12) {
			continue
		}
		obj := sel.PhaseJ
		if o.Objective == WholeInterval {
			obj += waitW * (y - sel.UsedS)
		}
		if obj < bestObj-1e-12 {
			best, bestC, bestObj = sel, cc, obj
		}
	}
	if bestC == nil {
		return Selection{}, nil, errors.New("no configuration fits the slack")
	}
	return best, bestC, nil
}

// groupTime is the time of rank r's phases evs at configurations cs and
// f_max.
func (m *eventModel) groupTime(evs []int, r int, cs []int, sec func(r, i, c, s int) float64) float64 {
	var t float64
	for j, i := range evs {
		t += sec(r, i, m.th[cs[j]], 0)
	}
	return t
}

// measuredWait is rank r's wait after group k in the DCT replay: from the
// end of its last compute event of the group to the start of its next
// compute event (or its finish), less its send time.
func measuredWait(t *mpi.Trace, ph *policy.Phases, ops [][]int32, o *policy.Outcome, r, k int, send float64) float64 {
	evs := ph.Compute[r][k]
	end := o.CalcEnd[ops[r][evs[len(evs)-1]]]
	next := o.Ranks[r].Finish
	for kk := k + 1; kk < ph.N; kk++ {
		if len(ph.Compute[r][kk]) > 0 {
			next = o.CalcStart[ops[r][ph.Compute[r][kk][0]]]
			break
		}
	}
	return math.Max(0, float64(next-end)/1e9-send)
}

func newModel(t *mpi.Trace, o *Options) (*eventModel, error) {
	ps, err := power.NewPStates(o.Node.PStates)
	if err != nil {
		return nil, fmt.Errorf("dctdvfs: %w", err)
	}
	m := &eventModel{t: t, o: o, intens: -1}
	for i := len(ps) - 1; i >= 0; i-- {
		m.ghz = append(m.ghz, ps[i].GHz)
		m.watts = append(m.watts, ps[i].Watts)
	}
	if len(o.Node.Threads) == 0 {
		return nil, errors.New("dctdvfs: no concurrency configurations (Node.Threads)")
	}
	m.th = append([]int(nil), o.Node.Threads...)
	sort.Ints(m.th)
	for i, c := range m.th {
		if c < 1 || (i > 0 && c == m.th[i-1]) {
			return nil, fmt.Errorf("dctdvfs: thread counts %v: want distinct counts ≥ 1", o.Node.Threads)
		}
	}
	m.cmax = m.th[len(m.th)-1]
	if o.Node.IdleW < 0 || o.Node.WaitW < 0 || o.Node.CoreIdleW < 0 || o.SwitchPenaltyNs < 0 || o.Epsilon < 0 || o.TDVFSNs < 0 || o.CapW < 0 || !(o.Coordination >= 0 && o.Coordination < 1) {
		return nil, errors.New("dctdvfs: idle and wait power, ε, t_dvfs and the cap must be ≥ 0, and the coordination overhead in [0, 1)")
	}
	if o.Nodes != nil {
		if o.CapW <= 0 {
			return nil, errors.New("dctdvfs: node caps need a cap (CapW > 0)")
		}
		if err := o.Nodes.Validate(len(t.Ranks)); err != nil {
			return nil, fmt.Errorf("dctdvfs: %w", err)
		}
	}
	for i, n := range t.ParamNames {
		if n == gen.ParamIntensity {
			m.intens = i
		}
	}
	return m, nil
}

// lost returns 100·(x − base)/base.
func lost(base, x int64) float64 {
	if base == 0 {
		return 0
	}
	return 100 * float64(x-base) / float64(base)
}

// busyW is the node power above IdleW of a phase with c threads at
// P-state s.
func (m *eventModel) busyW(c, s int) float64 {
	return float64(c)*m.watts[s] + float64(m.cmax-c)*m.o.Node.CoreIdleW
}

// ns converts seconds to ns, saturating past graph.MaxTimeNs (the replay
// then reports the operation).
func ns(s float64) int64 { return graph.SatNs(s * 1e9) }

func summary(o *policy.Outcome) Summary {
	return Summary{MakespanNs: o.MakespanNs, EnergyJ: o.EnergyJ, AvgW: o.AvgW, PeakW: o.PeakW, OverCapNs: o.OverCapNs, NodePeakW: o.NodePeakW}
}

// PowersOfTwo returns 1, 2, 4, … up to cmax, and cmax itself: the default
// concurrency configurations of a node with cmax hardware threads.
func PowersOfTwo(cmax int) []int {
	var out []int
	for c := 1; c < cmax; c *= 2 {
		out = append(out, c)
	}
	return append(out, cmax)
}
