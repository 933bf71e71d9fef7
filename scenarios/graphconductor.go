package scenarios

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/conductor"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/traces/graph"
)

// conductorIterations is how many iterations of an execution graph the
// Conductor runtime plays per point, in periods of reallocation: the
// point's replay is the last.
const conductorIterations = 3

// replayGraphConductor replays execution graph g under the Conductor
// runtime (conductor.Iterate) at sweep cap capW on machine m: the graph
// is one iteration of a repeating workload (a training step), its tasks
// those of graphPhases, every configuration of every task measured by
// replay first, then conductorIterations × p.Period iterations played
// on the engine, each configured from what the one before measured: a
// task's slack is the time from its end to its unit's next task beyond
// the least such gap the exploration saw (none on the replay's critical
// path); the units whose waits for their next task over a period are
// within p.CriticalFrac of the period's length of the least take the
// power the others leave unused (conductor.Iterate). It returns the last iteration's metrics.
func (sc *Scenario) replayGraphConductor(g *graph.Graph, m *Machine, net network.LogGOPS, cls *network.Classes, capW float64, p conductor.Params) (*graphRun, error) {
	gm, err := sc.newGraphMachine(g, m)
	if err != nil {
		return nil, err
	}
	gp := splitGraph(g, m.GPU != nil)
	ex, err := sc.explore(gp, gm, net, cls, capW)
	if err != nil {
		return nil, err
	}
	tasks := make([]conductor.Task, len(gp.tasks))
	index := make([][]int, len(gp.tasks))
	for i := range gp.tasks {
		tasks[i].Unit = gp.unit(&gp.tasks[i])
		tasks[i].Hull, index[i] = gm.hull(gp, ex, i)
	}
	var last *graphRun
	cfg := make([]int, len(tasks))
	extra := make([]int64, len(tasks))
	replay := func(hc []int, extraS []float64) (conductor.Observation, error) {
		for i, k := range hc {
			cfg[i], extra[i] = index[i][k], graph.SatNs(extraS[i]*1e9)
		}
		run, err := sc.replayPhaseTasks(gp, gm, net, cls, capW, cfg, extra, true)
		if err != nil {
			return conductor.Observation{}, err
		}
		last = run
		next := gp.nextStarts(run)
		obs := conductor.Observation{Slack: make([]float64, len(tasks)), Wait: make([]float64, len(tasks)), Makespan: float64(run.makespan) / 1e9}
		for i := range tasks {
			obs.Wait[i] = math.Max(0, float64(next[i]-run.end[i])/1e9)
			if !run.onPath[i] {
				obs.Slack[i] = math.Max(0, float64(next[i]-run.end[i])/1e9-ex.minGap[i])
			}
		}
		return obs, nil
	}
	var domain []int
	if sc.Sweep.CapScope == CapScopeNode {
		domain = make([]int, gp.units())
		for u, r := range gp.unitRank {
			domain[u] = r / m.RanksPerNode
		}
	}
	if _, err := conductor.Iterate(tasks, gp.staticShares(gm, sc.JobCap(m, capW)), domain, p, conductorIterations*p.Period, replay); err != nil {
		return nil, fmt.Errorf("%s: %w", m.Name, err)
	}
	return last, nil
}

// staticShares are the units' power shares at job cap jobCapW, as
// static splits it: each rank an equal share of what the cap leaves above
// lpBaseW, of which every unit first takes what its slowest
// configuration draws, then the rank's GPU streams, each in turn, up to
// the power of static's clock above idle, and its cores the rest in
// equal parts; units that run fences alone draw nothing and get nothing.
func (gp *graphPhases) staticShares(gm *graphMachine, jobCapW float64) []float64 {
	m := gm.m
	ranks := gp.g.NumRanks()
	rank := math.Max(0, (jobCapW-m.lpBaseW())/float64(ranks))
	out := make([]float64, gp.units())
	left := make([]float64, ranks)
	cores := make([]int, ranks)
	for r := range left {
		left[r] = rank
	}
	floor := func(u int) float64 {
		if !gp.unitWork[u] {
			return 0
		}
		if gp.unitGPU[u] {
			cs := m.GPU.Allowed()
			return cs[len(cs)-1].PowerW - m.GPU.IdleW
		}
		return m.PStates[len(m.PStates)-1].ActivePowerW
	}
	for u, r := range gp.unitRank {
		out[u] = floor(u)
		left[r] -= out[u]
		if !gp.unitGPU[u] && gp.unitWork[u] {
			cores[r]++
		}
	}
	for u, r := range gp.unitRank {
		if gp.unitGPU[u] && gp.unitWork[u] && left[r] > 0 {
			add := math.Min(left[r], math.Max(0, m.gpuClock(policy.Static, jobCapW).PowerW-m.GPU.IdleW-out[u]))
			out[u] += add
			left[r] -= add
		}
	}
	for u, r := range gp.unitRank {
		if !gp.unitGPU[u] && gp.unitWork[u] && left[r] > 0 {
			out[u] += left[r] / float64(cores[r])
		}
	}
	return out
}
