package scenarios

import (
	"context"
	"fmt"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/energy"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/traces/graph"
)

// minEnergyPoint is the min-energy policy's point at job cap capW on g:
// the energy–time frontier's schedule (optimize/energy) of the bounder's
// DAG and order under the cap, at the deadline sweep.slowdown_pct above
// the bound at the cap (the least makespan the order keeps under it, see
// minEnergySchedule), rounded and replayed
// as the lp policy's (each task split between the one or two
// configurations the LP mixes, released when the schedule starts it, its
// faster stretch staggered within the cap) and, where that replay still
// goes over the cap, the lp policy's guard (capSafe.within). BoundNs is
// the bound at the cap. ok is false (and there is no replay) where the
// cap is below the order's least feasible cap or there is no LP solver.
//
// Its LP is built and solved at the cap alone, from no basis, so the point
// depends on nothing else planned, in any order on any worker.
func (sc *Scenario) minEnergyPoint(ctx context.Context, bd *bounder, g *graph.Graph, capW float64, net network.LogGOPS) (met Metrics, run *taskRun, ok bool, err error) {
	b, err := bd.solve(ctx, capW)
	if err != nil || b == nil {
		return Metrics{}, nil, false, err
	}
	end := span(ctx, "min-energy cap %g", capW)
	defer end()
	m := bd.m
	s, err := minEnergySchedule(bd, capW, b.Makespan, sc.Sweep.SlowdownPct)
	if err != nil {
		return Metrics{}, nil, false, fmt.Errorf("min-energy policy at %g W: %w", capW, err)
	}
	plan := &bound.Bound{CapW: m.LPCap(capW), Makespan: s.Makespan, Vertex: s.Vertex}
	r := newRounded(g, bd.d, plan, s.Tasks, true, bd.n)
	if met, run, err = sc.stagger(g, bd.t, r, capW, m, net); err != nil {
		return Metrics{}, nil, false, err
	}
	guard, err := sc.newCapGuard(policy.MinEnergy, g, bd.t, m, net, capW, &bd.guard)
	if err != nil {
		return Metrics{}, nil, false, err
	}
	if met, run, _, err = guard.within(met, run); err != nil {
		return Metrics{}, nil, false, err
	}
	if met.BoundNs, err = graph.SecondsToNs(b.Makespan); err != nil {
		return Metrics{}, nil, false, fmt.Errorf("LP bound at %g W: makespan: %w", capW, err)
	}
	return met, run, true, nil
}

// minEnergySchedule is the frontier's schedule of bd's DAG and order at
// job cap capW by the deadline slowdownPct above leastS, the bound at the
// cap: the frontier's LP takes leastS for its least makespan instead of
// solving its time LP for it (half the point's CPU time on the default
// scenario). Where leastS is below the frontier LP's own least makespan
// (the bound's LP relaxed into blocks, bound.cuts), the deadline is
// slowdownPct above the latter, solved.
func minEnergySchedule(bd *bounder, capW, leastS, slowdownPct float64) (*energy.Schedule, error) {
	opt := energy.Options{BaseW: bd.m.lpBaseW(), CapW: bd.m.LPCap(capW), LeastMakespan: leastS}
	f, err := energy.New(bd.d, bd.o, opt)
	if err != nil {
		return nil, err
	}
	s, err := f.ScheduleAt(leastS * (1 + slowdownPct/100))
	f.Close()
	if err == nil {
		return s, nil
	}
	opt.LeastMakespan = 0
	if f, err = energy.New(bd.d, bd.o, opt); err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ScheduleAt(f.Fastest() * (1 + slowdownPct/100))
}
