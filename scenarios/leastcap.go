package scenarios

import (
	"fmt"

	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/scenarios/report"
	"github.com/capsim/capsim/scenarios/results"
)

// leastLPCapW is the least cap, in the sweep's terms (the job's, or every
// node's under sweep.cap_scope = "node"), at which the LP of DAG d in
// order o on machine m has a schedule: the most power its tasks draw at
// their slowest at any event, summed over the job or a node
// (bound.MinFeasibleNodeCap, the numbers the LP's rows hold), plus the
// power the LP leaves out (Scenario.lpBaseOf). Below it the lp and
// min-energy policies have no schedule.
func (sc *Scenario) leastLPCapW(d *bound.DAG, o *bound.Order, m *Machine) (float64, error) {
	w, _, err := bound.MinFeasibleNodeCap(d, o, sc.lpNodeOf(m, d))
	if err != nil {
		return 0, err
	}
	return w + sc.lpBaseOf(m), nil
}

// leastCaps returns, for the rows of the lp and min-energy policies with
// no schedule at their cap (null makespan), the least cap of their
// point's LP (leastLPCapW), by point index, each LP built once per
// machine and parameter values. A row it cannot tell (the LP cannot be
// built now) is left out: the page then says only that no schedule
// exists.
func (sc *Scenario) leastCaps(v view, rows []results.Row) map[int]string {
	out := map[int]string{}
	pts := sc.Points()
	memo := map[string]float64{}
	for _, r := range rows {
		if _, ok := v.num(r, v.makespan); ok || r.Index < 0 || r.Index >= len(pts) {
			continue
		}
		p := pts[r.Index]
		if p.Policy != policy.LP && p.Policy != policy.MinEnergy || p.CapW <= 0 || p.Pattern > 0 {
			continue
		}
		key := fmt.Sprint(p.Machine, p.Params) // fmt sorts map keys
		w, seen := memo[key]
		if !seen {
			w = sc.pointLeastCap(p)
			memo[key] = w
		}
		if w > 0 {
			out[r.Index] = report.FormatNumber(w, 6) + " W" + sc.perNode()
		}
	}
	return out
}

// pointLeastCap is leastLPCapW of point p's LP as its sweep built it
// (Evaluate); 0 where it cannot be built.
func (sc *Scenario) pointLeastCap(p Point) float64 {
	psc, params := sc.at(p.Params)
	t, g, err := psc.build(params)
	if err != nil {
		return 0
	}
	m := &psc.Machines[p.Machine]
	net := psc.Net()
	var d *bound.DAG
	var o *bound.Order
	if t != nil {
		if d, o, _, err = psc.BoundLPNet(t, m, net); err != nil {
			return 0
		}
	} else {
		cls, err := psc.Classes(g, t)
		if err != nil || psc.Bound.Messages != MessagesEngine {
			return 0
		}
		n, err := psc.graphNet(g, m, net, cls)
		if err != nil {
			return 0
		}
		d, o = n.DAG, n.Order
	}
	w, err := psc.leastLPCapW(d, o, m)
	if err != nil {
		return 0
	}
	return w
}
