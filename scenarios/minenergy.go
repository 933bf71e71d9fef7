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
// DAG and order, rounded and replayed as the lp policy's (each task split
// between the one or two configurations the LP mixes, released when the
// schedule starts it, its faster stretch staggered within the cap). As
// the lp policy's LP, the frontier's meets the cap with time-averaged
// power, so its schedule at the cap itself rarely replays within the cap
// at every instant: the point takes the frontier's schedule at the cap
// less the least headroom whose schedule replays within the full cap as
// it is (leastHeadroom, the lp policy's search), at the deadline
// sweep.slowdown_pct above the least makespan under that lower cap
// (minEnergySchedule). With no headroom that fits, it is the schedule at
// the cap itself, staggered; where that replay still goes over the cap,
// the lp policy's guard (capSafe.within). BoundNs is the bound at the
// cap. ok is false (and there is no replay) where the cap is below the
// order's least feasible cap or there is no LP solver.
//
// Its frontier LPs are built and solved at their caps alone, from no
// basis, so the point depends on nothing else planned, in any order on
// any worker.
func (sc *Scenario) minEnergyPoint(ctx context.Context, bd *bounder, g *graph.Graph, capW float64, net network.LogGOPS) (met Metrics, run *taskRun, ok bool, err error) {
	b, err := bd.solve(ctx, capW)
	if err != nil || b == nil {
		return Metrics{}, nil, false, err
	}
	end := span(ctx, "min-energy cap %g", capW)
	defer end()
	m := bd.m
	// The bound at the cap less a headroom, on a copy of the LP solved
	// from no basis (then from the previous headroom's).
	p := &lpPlanner{bd: bd, fork: bd.s.Clone}
	defer func() {
		if p.s != nil {
			p.s.Close()
		}
	}()
	probe := func(h float64) (*rounded, bool, bool, error) {
		least := b
		if h != 0 {
			bh, err := p.solveAt(ctx, capW, h)
			if err != nil || bh == nil {
				return nil, false, false, err // nil: below the order's least feasible cap
			}
			least = bh
		}
		lpCapW := bd.lpCap(capW) - h
		s, err := minEnergySchedule(bd, lpCapW, least.Makespan, sc.Sweep.SlowdownPct)
		if err != nil {
			return nil, false, false, fmt.Errorf("min-energy policy at %g W, headroom %g W: %w", capW, h, err)
		}
		plan := &bound.Bound{CapW: lpCapW, Makespan: s.Makespan, Vertex: s.Vertex}
		r := newRounded(g, bd.d, plan, s.Tasks, true, bd.n)
		r.scratch = &p.scratch
		fits, err := sc.staggerFits(g, bd.t, r, capW, m, net)
		return r, true, fits, err
	}
	r0, _, fits, err := probe(0)
	if err != nil {
		return Metrics{}, nil, false, err
	}
	if met, run, err = sc.stagger(g, bd.t, r0, capW, m, net); err != nil {
		return Metrics{}, nil, false, err
	}
	if !fits {
		r, _, err := leastHeadroom(powerQuantum(bd.d), capW, probe)
		if err != nil {
			return Metrics{}, nil, false, err
		}
		if r != nil {
			// As for the lp policy, stagger shortening the faster
			// stretches of the schedule at the cap itself can still end
			// sooner (see better).
			hm, hrun, err := sc.stagger(g, bd.t, r, capW, m, net)
			if err != nil {
				return Metrics{}, nil, false, err
			}
			if !better(met, hm) {
				met, run = hm, hrun
			}
		}
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
// LP cap lpCapW (task power) by the deadline slowdownPct above leastS, the
// bound at the cap, or, where leastS is 0, the frontier LP's own least
// makespan at the cap, solved. Taking the bound for the least makespan
// saves solving the frontier's time LP for it (half the point's CPU time
// on the default scenario). Where leastS is below the frontier LP's own
// least makespan (the bound's LP relaxed into blocks, bound.cuts), the
// deadline is slowdownPct above the latter, solved.
func minEnergySchedule(bd *bounder, lpCapW, leastS, slowdownPct float64) (*energy.Schedule, error) {
	opt := energy.Options{BaseW: bd.m.lpBaseW(), CapW: lpCapW, LeastMakespan: leastS, NodeOf: bd.sc.lpNodeOf(bd.m, bd.d)}
	if leastS > 0 {
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
	}
	f, err := energy.New(bd.d, bd.o, opt)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ScheduleAt(f.Fastest() * (1 + slowdownPct/100))
}
