package conductor

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/optimize/frontier"
)

// Task is one task of a repeating workload that Iterate plays Conductor
// on: a stretch of one power unit's work between two communication
// operations, with the configurations measured for it, fastest first
// (the configuration exploration of Marathe et al., ISC'15, §4).
type Task struct {
	Unit int               // the power unit (a rank's core or device) it runs on
	Hull []frontier.Config // fastest first, power decreasing
}

// Observation is what one iteration's replay measured, per task.
type Observation struct {
	// Slack is how long the task could have run longer without delaying
	// the run (the wait at its next communication; 0 on the critical
	// path): Adagio's slack (Rountree et al., ICS'09).
	Slack []float64
	// Wait is, per task, the time from its end to the start of its
	// unit's next task (to the iteration's end for a unit's last task):
	// the time the unit spent blocked, as a runtime measures it (Adagio's
	// and Conductor's slack, Rountree et al., ICS'09; Marathe et al.,
	// ISC'15), which unlike Slack keeps the waits of a unit that always
	// waits.
	Wait []float64
	// Makespan is the iteration's length in seconds.
	Makespan float64
}

// Replay runs one iteration with every task at the configuration cfg[i]
// of its hull, lengthened by extraS[i] seconds of overheads, and returns
// what it measured.
type Replay func(cfg []int, extraS []float64) (Observation, error)

// IterResult is Iterate's outcome: the last iteration's configurations.
type IterResult struct {
	Config   []int     // per task, the hull point it ran in the last iteration
	ExtraS   []float64 // per task, its overheads in the last iteration
	ShareW   []float64 // per unit, its power share in the last iteration
	Reallocs int
	Switches int // configuration changes over all iterations
}

// Iterate plays Conductor as a runtime over a workload whose iteration
// repeats (a training step, a solver's time step): in every iteration
// each task runs the fastest configuration within its unit's power share,
// slowed by Adagio into (1 − margin) of the time and slack its previous
// instance (the same task one iteration earlier) saw; every p.Period
// iterations the power that non-critical units left unused goes to the
// critical ones (Marathe et al., ISC'15; Bailey et al., SC'15, §4.2). As
// for the ranks of an MPI trace (Schedule), a unit is critical when its
// tasks' waits summed over the period are within p.CriticalFrac of the
// period's length (its iterations' makespans) of the least unit's: units
// that tie, such as the GPUs of equal data-parallel ranks, are all
// critical, whichever of them a replay's critical path runs through.
// What a unit leaves unused is its share less the most power any
// of its tasks drew over the period and the guard band: a unit that
// draws its share only in bursts keeps it, so that no instant exceeds
// the cap. Every iteration is measured by replay; the units' power shares
// start at shareW (its length is the number of units; its sum is the
// cap) and keep their sum, and every task's configuration draws at most
// its unit's share where its slowest does. Power moves only among the
// units of one power domain: domain[u] is unit u's (a node under a
// per-node cap; nil: one domain of all units). It returns the
// configurations of the last of iterations iterations.
func Iterate(tasks []Task, shareW []float64, domain []int, p Params, iterations int, replay Replay) (*IterResult, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	units := len(shareW)
	if units < 1 || iterations < 1 || (domain != nil && len(domain) != units) {
		return nil, fmt.Errorf("conductor: %d units, %d domains given, %d iterations: want units, a domain for each or none, and iterations", units, len(domain), iterations)
	}
	groups := map[int][]int{}
	var order []int
	for u := range units {
		d := 0
		if domain != nil {
			d = domain[u]
		}
		if groups[d] == nil {
			order = append(order, d)
		}
		groups[d] = append(groups[d], u)
	}
	for u, w := range shareW {
		if !(w >= 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("conductor: unit %d's power share %g W: want a finite number ≥ 0", u, w)
		}
	}
	for i, t := range tasks {
		if t.Unit < 0 || t.Unit >= units || len(t.Hull) == 0 {
			return nil, fmt.Errorf("conductor: task %d: unit %d of %d, %d configurations", i, t.Unit, units, len(t.Hull))
		}
	}
	n := len(tasks)
	res := &IterResult{Config: make([]int, n), ExtraS: make([]float64, n), ShareW: append([]float64(nil), shareW...)}
	need := make([]float64, units) // what each unit's fastest configuration draws
	runs := make([]bool, units)    // the unit has tasks
	for _, t := range tasks {
		need[t.Unit] = math.Max(need[t.Unit], t.Hull[0].Power)
		runs[t.Unit] = true
	}
	var prev *Observation
	prevCfg := make([]int, n)
	realloc := false
	// A unit keeps the most power its tasks drew over the period (peak,
	// over one unit of span), so that it never draws above its share.
	peak := make([]float64, units)
	// A unit's waits summed over the period's tasks; a unit without tasks
	// waits throughout and is never the least.
	wait := make([]float64, units)
	resetWait := func() {
		for u := range wait {
			wait[u] = 0
			if !runs[u] {
				wait[u] = math.Inf(1)
			}
		}
	}
	resetWait()
	length := 0.0 // the period's length so far
	critical := make([]bool, units)
	for it := 0; it < iterations; it++ {
		res.Switches += configureIteration(tasks, res, prev, prevCfg, p, realloc)
		copy(prevCfg, res.Config)
		obs, err := replay(res.Config, res.ExtraS)
		if err != nil {
			return nil, fmt.Errorf("conductor: iteration %d: %w", it, err)
		}
		if len(obs.Slack) != n || len(obs.Wait) != n {
			return nil, fmt.Errorf("conductor: iteration %d measured %d slacks and %d waits of %d tasks", it, len(obs.Slack), len(obs.Wait), n)
		}
		prev = &obs
		for i, t := range tasks {
			peak[t.Unit] = math.Max(peak[t.Unit], t.Hull[res.Config[i]].Power)
			wait[t.Unit] += obs.Wait[i]
		}
		length += obs.Makespan
		realloc = (it+1)%p.Period == 0 && it+1 < iterations
		if realloc {
			markCritical(critical, wait, length, p.CriticalFrac)
			for _, d := range order {
				moveAmong(groups[d], res.ShareW, peak, critical, p, need)
			}
			res.Reallocs++
			for u := range peak {
				peak[u] = 0
			}
			resetWait()
			length = 0
		}
	}
	return res, nil
}

// configureIteration picks every task's configuration for the next
// iteration (see Iterate) and its overheads: a switch where the unit's
// configuration changes from its previous task's, and a reallocation on
// every unit's first task after one. It returns the switches.
func configureIteration(tasks []Task, res *IterResult, prev *Observation, prevCfg []int, p Params, realloc bool) int {
	lastW := map[int]float64{}
	first := map[int]bool{}
	switches := 0
	for i, t := range tasks {
		h := t.Hull
		k := fastestWithin(h, res.ShareW[t.Unit])
		if prev != nil {
			tp := h[prevCfg[i]].Time
			allowed := (1 - p.Margin) * (tp + prev.Slack[i])
			for k+1 < len(h) && h[k+1].Time <= allowed {
				k++
			}
		}
		w, seen := lastW[t.Unit]
		if h[k].Time < p.MinTaskS && seen {
			for g := range h {
				if h[g].Power == w && h[g].Power <= res.ShareW[t.Unit] {
					k = g
				}
			}
		}
		extra := 0.0
		if realloc && !first[t.Unit] {
			extra += p.ReallocS
		}
		first[t.Unit] = true
		if seen && h[k].Power != w {
			extra += p.SwitchS
			switches++
		}
		lastW[t.Unit] = h[k].Power
		res.Config[i], res.ExtraS[i] = k, extra
	}
	return switches
}

// moveAmong is moveShares over the units us of a domain.
func moveAmong(us []int, share, peak []float64, critical []bool, p Params, need []float64) {
	k := len(us)
	sh, pk, one, cr, nd := make([]float64, k), make([]float64, k), make([]float64, k), make([]bool, k), make([]float64, k)
	for j, u := range us {
		sh[j], pk[j], one[j], cr[j], nd[j] = share[u], peak[u], 1, critical[u], need[u]
	}
	moveShares(sh, pk, one, cr, p, nd)
	for j, u := range us {
		share[u] = sh[j]
	}
}
