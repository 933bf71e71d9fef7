package scenarios

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/plot/plotter"

	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/energy"
	"github.com/capsim/capsim/scenarios/report"
	"github.com/capsim/capsim/scenarios/results"
)

// reportFrontierPoints is how many deadlines the report's frontier curve
// is solved at.
const reportFrontierPoints = 21

// reportFrontierMaxTasks is the most tasks of a frontier LP the report
// solves: the LP is one model from no basis, 7 s of CPU at the default
// scenario's 320 tasks and over a minute at 1,024 (the stencil of
// examples/bound/stencil32.toml on 32 ranks × 32 iterations).
const reportFrontierMaxTasks = 1000

// frontierRow is one replayed point of the report's frontier section:
// its row and the frontier at its makespan.
type frontierRow struct {
	row      results.Row
	pol      string
	capW     float64 // NaN: uncapped
	t, e     float64 // makespan (ns), energy (J)
	frontier float64 // the least energy by t (J); NaN below the least makespan
}

// frontierSection is the report's energy–time frontier of the workload on
// every machine of the sweep: the frontier (the least energy of any
// schedule that keeps the trace's order and ends by each makespan,
// optimize/energy, as capsim frontier computes it) with every policy's
// replayed (makespan, energy) point and each point's energy above the
// frontier at its own makespan. ok is false where there is none to draw:
// an execution graph under an LP other than the engine's, a sweep over
// workload parameters, no LP solver.
func (sc *Scenario) frontierSection(ctx context.Context, s results.Schema, rows []results.Row, unit string, ns float64) (report.Section, bool, error) {
	if !clp.Available() || len(sc.paramAxes()) > 0 || sc.Aggregate != nil {
		return report.Section{}, false, nil
	}
	t, g, _, err := sc.workload(nil)
	if err != nil || t == nil && sc.Bound.Messages != MessagesEngine {
		return report.Section{}, false, err // an execution graph's LP is the engine's alone
	}
	if t != nil {
		g = nil
	}
	v := newView(s)
	if v.machine < 0 || v.energy < 0 {
		return report.Section{}, false, nil
	}
	var machines []string
	byMachine := map[string][]frontierRow{}
	for _, r := range rows {
		tm, ok := v.num(r, v.makespan)
		e, ok2 := v.num(r, v.energy)
		if !ok || !ok2 {
			continue
		}
		mn := v.str(r, v.machine)
		if _, seen := byMachine[mn]; !seen {
			machines = append(machines, mn)
		}
		c, capped := v.num(r, v.capW)
		if !capped {
			c = math.NaN()
		}
		byMachine[mn] = append(byMachine[mn], frontierRow{row: r, pol: v.str(r, v.policy), capW: c, t: tm, e: e})
	}
	sec := report.Section{Heading: "Energy–time frontier",
		Columns: []string{"machine", "policy", "cap (W)", "makespan (" + unit + ")", "energy (J)", "frontier (J)", "above (J)", "above (%)"}}
	sec.Text = "The least energy of any schedule that keeps the trace's event order and ends by a deadline (the LP of capsim frontier, no power cap: docs/design/frontier.md), " +
		"with every policy's replayed point and its energy above the frontier at its own makespan. " +
		"The frontier prices a waiting core at its task's lowest power, at most what a replay charges, so no replay that keeps the order lies below it; " +
		"a replay that leaves the order (running as soon as possible, it can) may, and one faster than the order's least makespan has no frontier value (–)."
	for _, mn := range machines {
		m, _, err := sc.MachineByName(mn)
		if err != nil {
			return report.Section{}, false, err
		}
		fr := byMachine[mn]
		cfg := FrontierConfig{Machine: m, Trace: t, Graph: g}
		r, err := sc.frontierDAG(cfg)
		if errors.Is(err, bound.ErrWildcard) {
			// The sweep replayed the trace; only the LP cannot order it.
			return report.Section{Heading: sec.Heading, Text: fmt.Sprintf(
				"No frontier: the LP cannot order workload.trace %s: %v.", sc.Workload.Trace, err)}, true, nil
		}
		if err != nil {
			return report.Section{}, false, err
		}
		if n := len(r.d.Tasks); n > reportFrontierMaxTasks {
			sec.Text += fmt.Sprintf(" On machine %s the LP has %d tasks, more than the report solves (%d): capsim frontier computes it.", mn, n, reportFrontierMaxTasks)
			continue
		}
		f, _, err := r.frontier(cfg)
		if err != nil {
			return report.Section{}, false, err
		}
		curve, head, err := frontierAt(ctx, f, fr, unit, ns)
		f.Close()
		if err != nil {
			return report.Section{}, false, fmt.Errorf("report: frontier of machine %s: %w", mn, err)
		}
		sec.Text += fmt.Sprintf(" On machine %s: %s", mn, head)
		// The capped policies in the order of their first rows, then the
		// uncapped ones: the colours of the cap figures (report.Figures).
		var names, flat []string
		pts := map[string]plotter.XYs{}
		var over plotter.XYs
		for _, p := range fr {
			name := p.pol
			if math.IsNaN(p.capW) {
				name += " (no cap)"
			}
			if _, seen := pts[name]; !seen {
				if math.IsNaN(p.capW) {
					flat = append(flat, name)
				} else {
					names = append(names, name)
				}
			}
			pts[name] = append(pts[name], plotter.XY{X: p.t, Y: p.e})
			if !v.withinCap(p.row) {
				over = append(over, plotter.XY{X: p.t, Y: p.e})
			}
			capS := "–"
			if !math.IsNaN(p.capW) {
				capS = report.FormatNumber(p.capW, 6)
			}
			fs, aj, ap := "–", "–", "–"
			if !math.IsNaN(p.frontier) {
				fs = report.FormatNumber(p.frontier, 6)
				above := aboveFrontier(p.e, p.frontier)
				aj = report.FormatNumber(above, 4)
				if p.frontier > 0 { // a job without work uses no energy
					ap = fmt.Sprintf("%.2f", 100*above/p.frontier)
				}
			}
			sec.Rows = append(sec.Rows, []string{mn, p.pol, capS, report.FormatCell("makespan_ns", p.t, ns), report.FormatNumber(p.e, 6), fs, aj, ap})
		}
		names = append(names, flat...)
		fig, err := report.FrontierPlot("frontier_"+mn, "Energy vs makespan, with the energy–time frontier: "+mn, unit, ns, curve, names, pts, over)
		if err != nil {
			return report.Section{}, false, err
		}
		sec.Figures = append(sec.Figures, fig)
	}
	if len(sec.Rows) == 0 {
		sec.Columns = nil // no machine's frontier solved: the text says why
	}
	return sec, true, nil
}

// frontierAt solves f's curve (reportFrontierPoints deadlines, in ns) and
// the frontier at every row's makespan (fr[i].frontier), the makespans in
// increasing order so that each solve starts from the last basis, and
// returns the curve and the headline: the energy the frontier saves at
// the least makespan and at 5 % slower (times in unit, ns nanoseconds).
func frontierAt(ctx context.Context, f *energy.Frontier, fr []frontierRow, unit string, ns float64) (plotter.XYs, string, error) {
	cpts, err := f.Curve(reportFrontierPoints)
	if err != nil {
		return nil, "", err
	}
	curve := make(plotter.XYs, len(cpts))
	for i, p := range cpts {
		curve[i] = plotter.XY{X: p.Deadline * 1e9, Y: p.Energy}
	}
	fast, slow := cpts[0].Deadline, cpts[len(cpts)-1].Deadline
	least := cpts[len(cpts)-1].Energy
	idx := make([]int, len(fr))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return fr[idx[a]].t < fr[idx[b]].t })
	for _, i := range idx {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		sec := fr[i].t / 1e9
		switch {
		case sec < fast*(1-1e-9):
			fr[i].frontier = math.NaN()
		case sec >= slow:
			fr[i].frontier = least
		default:
			if fr[i].frontier, err = f.EnergyAt(sec); err != nil {
				return nil, "", err
			}
		}
	}
	s0, err := f.SavedPct(0)
	if err != nil {
		return nil, "", err
	}
	s5, err := f.SavedPct(0.05)
	if err != nil {
		return nil, "", err
	}
	at := func(s float64) string { return report.FormatCell("makespan_ns", s*1e9, ns) + " " + unit }
	head := fmt.Sprintf("the fastest schedule of the order (every task at its fastest configuration) ends at %s with %s J under the frontier's pricing; the frontier saves %.2f %% of it at that makespan and %.2f %% at 5 %% slower, and reaches its least energy, %s J, at %s.",
		at(fast), report.FormatNumber(f.FastestEnergy(), 6), s0, s5, report.FormatNumber(least, 6), at(slow))
	return curve, head, nil
}

// frontierTol is the relative difference between a replay's energy and the
// frontier's below which the two are the same energy: the LP's solution
// is exact only to its tolerances (CLP's 1e-7 on each constraint), summed
// over the tasks.
const frontierTol = 1e-6

// aboveFrontier is how much more energy e is than the frontier's f, 0
// where the two differ by less than the LP's tolerance, so that a replay
// on the frontier is not shown a few nanojoules below it.
func aboveFrontier(e, f float64) float64 {
	if math.Abs(e-f) <= frontierTol*math.Abs(f) {
		return 0
	}
	return e - f
}
