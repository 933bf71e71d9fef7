package scenarios

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/conductor"
	"github.com/capsim/capsim/optimize/frontier"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/scenarios/report"
	"github.com/capsim/capsim/scenarios/results"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/sim/critpath"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// Pick names one point of a scenario to look at in detail. Zero fields
// take defaults (see DefaultPick).
type Pick struct {
	Machine string  // machine name
	Policy  string  // any sweep policy: uncapped, static, static-rapl, conductor, lp
	CapW    float64 // job power cap in watts (ignored by uncapped)
}

// DefaultPick is the point the report details when none is named: the
// first machine, the static policy (else uncapped, else the sweep's first
// policy) and the median cap of the sweep, the first point's workload
// parameters.
func (sc *Scenario) DefaultPick() Pick {
	p := Pick{Machine: sc.Machines[0].Name, Policy: policy.Uncapped}
	if pols := sc.Sweep.Policies; len(pols) > 0 && !slices.Contains(pols, policy.Uncapped) {
		p.Policy = pols[0]
	}
	if slices.Contains(sc.Sweep.Policies, policy.Static) {
		p.Policy = policy.Static
	}
	if caps := sc.Sweep.CapsW; len(caps) > 0 {
		s := append([]float64(nil), caps...)
		sort.Float64s(s)
		p.CapW = s[len(s)/2]
	}
	return p
}

// scheduledPick is the point the report details when none is named:
// DefaultPick, unless its row in rows has no schedule (its cap is below
// what its policy can run the job at, and its detail would fail); then
// the median cap with one of the same machine and policy, else the
// uncapped run, else the first point with one, all of the first point's
// workload parameters, which Detail replays. ok is false where none of
// them has a schedule.
func (sc *Scenario) scheduledPick(v view, rows []results.Row) (Pick, bool) {
	def := sc.DefaultPick()
	pts := sc.Points()
	if v.machine < 0 || v.policy < 0 || v.makespan < 0 || len(pts) == 0 {
		return def, true
	}
	first := fmt.Sprint(pts[0].Params)
	var same, others []Pick
	defWithout := false
	for _, r := range rows {
		if r.Index < 0 || r.Index >= len(pts) || fmt.Sprint(pts[r.Index].Params) != first {
			continue
		}
		p := Pick{Machine: v.str(r, v.machine), Policy: v.str(r, v.policy)}
		if c, ok := v.num(r, v.capW); ok && p.Policy != policy.Uncapped {
			p.CapW = c
		}
		isDef := p.Machine == def.Machine && p.Policy == def.Policy && (p.Policy == policy.Uncapped || p.CapW == def.CapW)
		if _, ok := v.num(r, v.makespan); !ok {
			defWithout = defWithout || isDef
			continue
		}
		if p.Machine == def.Machine && p.Policy == def.Policy {
			same = append(same, p)
		}
		others = append(others, p)
	}
	switch {
	case !defWithout:
		return def, true
	case len(same) > 0:
		sort.Slice(same, func(i, j int) bool { return same[i].CapW < same[j].CapW })
		return same[len(same)/2], true
	}
	for _, p := range others {
		if p.Policy == policy.Uncapped {
			return p, true
		}
	}
	if len(others) > 0 {
		return others[0], true
	}
	return def, false
}

// fillPick gives the zero fields of pick DefaultPick's values.
func (sc *Scenario) fillPick(pick Pick) Pick {
	def := sc.DefaultPick()
	if pick.Machine == "" {
		pick.Machine = def.Machine
	}
	if pick.Policy == "" {
		pick.Policy = def.Policy
	}
	if pick.CapW == 0 {
		pick.CapW = def.CapW
	}
	return pick
}

// pointOf is the point pick details: its zero fields filled in, and no
// cap for the uncapped policy.
func (sc *Scenario) pointOf(pick Pick) Pick {
	p := sc.fillPick(pick)
	if p.Policy == policy.Uncapped {
		p.CapW = 0
	}
	return p
}

// samePoint returns the index of an earlier pick of picks that details
// the same point as picks[i], or -1.
func (sc *Scenario) samePoint(picks []Pick, i int) int {
	for j := range picks[:i] {
		if sc.pointOf(picks[j]) == sc.pointOf(picks[i]) {
			return j
		}
	}
	return -1
}

// Detail replays one point of the scenario (with the first point's
// workload parameters) and draws it: a Gantt chart of what every rank did
// with the point's critical path over it, each rank's power over time, the
// job's power against the cap, and the configurations of the longest
// compute task with their Pareto frontier and convex hull (the choices the
// LP bound mixes from). It returns two sections: the point (its figures
// and where each rank's time went) and its critical path (package
// sim/critpath: the chain of operations that determines the makespan,
// segment by segment, and its time computing, communicating and waiting).
// Figure names start with prefix; times are shown in unit
// (report.TimeUnit's names; empty: chosen by the point's makespan).
func (sc *Scenario) Detail(pick Pick, prefix, unit string) ([]report.Section, error) {
	sec, cp, err := sc.detail(pick, prefix, unit)
	if err != nil {
		return nil, err
	}
	return []report.Section{sec, cp}, nil
}

func (sc *Scenario) detail(pick Pick, prefix, unit string) (report.Section, report.Section, error) {
	var cp report.Section
	pick = sc.fillPick(pick)
	if err := sc.checkPick(pick); err != nil {
		return report.Section{}, cp, err
	}
	if pts := sc.Points(); len(pts) > 0 {
		sc, _ = sc.at(pts[0].Params)
	}
	var m *Machine
	for i := range sc.Machines {
		if sc.Machines[i].Name == pick.Machine {
			m = &sc.Machines[i]
		}
	}
	if m == nil {
		return report.Section{}, cp, fmt.Errorf("detail: scenario %s has no machine %q", sc.File, pick.Machine)
	}
	if pick.Policy == policy.Uncapped {
		pick.CapW = 0
	}
	var params map[string]any
	if pts := sc.Points(); len(pts) > 0 {
		_, params = sc.at(pts[0].Params)
	}
	t, g, err := sc.build(params)
	if err != nil {
		return report.Section{}, cp, err
	}
	cls, err := sc.Classes(g, t)
	if err != nil {
		return report.Section{}, cp, err
	}
	if err := m.FitGraph(g, true); err != nil {
		return report.Section{}, cp, fmt.Errorf("detail: %w", err)
	}
	if err := sc.capScopeFits(pick.Policy, t != nil); err != nil {
		return report.Section{}, cp, fmt.Errorf("detail: %w", err)
	}
	met, rec, err := sc.replayPolicy(t, g, m, cls, pick.Policy, pick.CapW)
	if err != nil {
		return report.Section{}, cp, fmt.Errorf("detail: %w", err)
	}
	if unit == "" {
		unit, _ = report.TimeUnit(float64(met.MakespanNs))
	}
	what := fmt.Sprintf("machine %s, policy %s", m.Name, pick.Policy)
	if pick.CapW > 0 {
		what += fmt.Sprintf(", cap %g W", pick.CapW)
	}
	uns, err := report.UnitNs(unit)
	if err != nil {
		return report.Section{}, cp, fmt.Errorf("detail: %w", err)
	}
	sec := report.Section{
		Heading: "One point in detail: " + what,
		Text: fmt.Sprintf("Replayed again for these figures: makespan %.3f %s, energy %s J, average power %.1f W, peak %.1f W%s. The table gives where each rank's time went: computing, in the CPU overhead of its messages, and blocked in MPI calls until it finished.",
			float64(met.MakespanNs)/uns, unit, energyText(met.EnergyJ), met.AvgPowerW, met.PeakPowerW, overCapText(pick.CapW, float64(met.OverCapNs)/uns, unit)),
	}
	sec.Columns, sec.Rows = rankTable(rec.res, unit, uns)
	sec.Text += cpusText(g, m)
	_, path, err := critpath.Run(g, rec.net, rec.opts)
	if err != nil {
		return report.Section{}, cp, fmt.Errorf("detail: critical path: %w", err)
	}
	if path.Makespan != met.MakespanNs {
		return report.Section{}, cp, fmt.Errorf("detail: critical path: the replay again took %d ns, the point %d ns", path.Makespan, met.MakespanNs)
	}
	if met.BoundNs == 0 && pick.CapW > 0 && t != nil {
		// The LP bound at the point's cap, as the sweep gives it (the
		// lp policy's replay carries it already).
		bd, err := sc.newBounder(t, m, sc.Net())
		if err != nil {
			return report.Section{}, cp, fmt.Errorf("detail: LP bound: %w", err)
		}
		met.BoundNs, err = bd.at(context.Background(), pick.CapW)
		bd.close()
		if err != nil {
			return report.Section{}, cp, fmt.Errorf("detail: LP bound: %w", err)
		}
	}
	cp = pathSection(g, path, what, met.BoundNs, unit, uns)
	add := func(f report.Figure, err error) error {
		if err != nil {
			return err
		}
		sec.Figures = append(sec.Figures, f)
		return nil
	}
	if err := add(gantt(g, rec, path, prefix+"gantt", "Gantt chart and critical path: "+what, unit)); err != nil {
		return sec, cp, err
	}
	steps, err := rec.acct.RankProfiles(rec.model, rec.res.Makespan)
	if err != nil {
		return sec, cp, fmt.Errorf("detail: %w", err)
	}
	var perRank []report.Series
	ranks := len(rec.model.ActiveW)
	for r, s := range steps {
		name := fmt.Sprintf("rank %d", r)
		if r >= ranks { // a GPU, accounted apart from its rank's core
			name = fmt.Sprintf("GPU %d", r-ranks)
		}
		perRank = append(perRank, series(name, s, 0))
	}
	if err := add(report.PowerHeatMap(prefix+"rank_power", "Power of each rank's core: "+what, perRank, unit)); err != nil {
		return sec, cp, err
	}
	job := series("job", power.Job(steps), rec.model.BaseW)
	// Against the job's cap: under per-node caps, nodes × the cap.
	if err := add(report.PowerOverTime(prefix+"job_power", "Job power: "+what, []report.Series{job}, sc.JobCap(m, pick.CapW), unit)); err != nil {
		return sec, cp, err
	}
	switch cs := sc.taskConfigs(g, m); {
	case len(cs) == 0:
	case sameTime(cs):
		sec.Text += fmt.Sprintf(" The configurations of the longest compute task are not drawn: all %d take the same time (%s), so there is no trade-off of time against power to show.", len(cs), report.FormatNumber(cs[0].Time, 4)+" s")
	default:
		if err := add(report.Frontier(prefix+"task_frontier", "Configurations of the longest compute task", cs)); err != nil {
			return sec, cp, err
		}
	}
	if links := sc.linkUse(rec.res); len(links) > 0 && rec.res.Makespan > 0 {
		if err := add(report.LinkUtilisation(prefix+"link_utilisation", "Busiest links: "+what, links, float64(rec.res.Makespan))); err != nil {
			return sec, cp, err
		}
		sec.Text += fmt.Sprintf(" Under the flow model %d of the %d links of the topology %s carried messages; the link figure shows the busiest (at most %d): each link's utilisation, bytes ÷ (bandwidth × makespan), and the share of the makespan during which at least one flow crossed it.",
			len(links), sc.top.NumLinks(), sc.top, report.MaxLinkBars)
	}
	return sec, cp, nil
}

// cpusText says, for a graph whose ranks run several CPUs at once, that
// the rank table and the per-rank power add them up: on a machine with
// [machine.gpu] its CPUs other than CPU 0 are the GPU's streams, else
// more cores of the rank's host (empty where every rank has one CPU).
func cpusText(g *graph.Graph, m *Machine) string {
	cpus := cpusAtOnce(g)
	if cpus == 1 {
		return ""
	}
	what := "more cores of its host; its row of the power figure adds up their powers"
	if m.GPU != nil {
		what = "CPU 0 its host core, the others its GPU's streams, whose power the figure draws apart"
	}
	return fmt.Sprintf(" A rank here runs up to %d CPUs at once (%s): its computing and communication in the table are summed over them, so they can exceed its finish time.", cpus, what)
}

// linkUse returns the links of the scenario's topology that carried
// flows in res, for report.LinkUtilisation; nil without the flow model.
func (sc *Scenario) linkUse(res *sim.Result) []report.LinkUse {
	if sc.top == nil {
		return nil
	}
	var out []report.LinkUse
	for id, st := range res.Links {
		if st.Flows == 0 {
			continue
		}
		out = append(out, report.LinkUse{Name: fmt.Sprintf("link %d", id), Bandwidth: sc.top.Link(int32(id)).Bandwidth,
			Bytes: st.Bytes, BusyNs: st.BusyNs, Peak: st.Peak})
	}
	return out
}

// series converts a power curve for plotting, adding base watts.
func series(name string, s power.Step, base float64) report.Series {
	out := report.Series{Name: name, End: float64(s.End)}
	for i, t := range s.Times {
		out.Times = append(out.Times, float64(t))
		out.Watts = append(out.Watts, s.Watts[i]+base)
	}
	return out
}

// gantt draws the recorded busy spans: compute (calc operations) and
// communication overhead (sends and receives), and the critical path over
// them.
func gantt(g *graph.Graph, rec *recording, path *critpath.Path, name, title, unit string) (report.Figure, error) {
	raw := rec.acct.Spans()
	spans := make([]report.Span, 0, len(raw))
	for _, s := range raw {
		class := 1
		if g.Kind[s.Op] == graph.Calc {
			class = 0
		}
		spans = append(spans, report.Span{Row: int(s.Rank), Start: float64(s.Start), End: float64(s.End), Class: class})
	}
	sort.SliceStable(spans, func(i, j int) bool {
		if spans[i].Row != spans[j].Row {
			return spans[i].Row < spans[j].Row
		}
		return spans[i].Start < spans[j].Start
	})
	line := make([]report.Span, 0, len(path.Segments))
	for _, seg := range path.Segments {
		r := seg.Rank
		if seg.Kind == critpath.Message {
			r = seg.Peer // in flight: drawn as the step to the receiver
		}
		line = append(line, report.Span{Row: int(r), Start: float64(seg.Start), End: float64(seg.End)})
	}
	return report.GanttPath(name, title, g.NumRanks(), []string{"compute", "communication"}, spans, line, "critical path", unit)
}

// taskConfigs returns the configurations of the graph's longest calc
// operation on machine m: one per P-state, its DVFS-scaled time and the
// P-state's active core power.
func (sc *Scenario) taskConfigs(g *graph.Graph, m *Machine) []frontier.Config {
	longest, op := int64(0), -1
	for i, k := range g.Kind {
		if k == graph.Calc && g.Size[i] > longest {
			longest, op = g.Size[i], i
		}
	}
	if op < 0 {
		return nil
	}
	sp, err := sc.speedsOf(m, g.Regions)
	if err != nil {
		return nil
	}
	cs := sp.configs(g.Region[op]+1, float64(longest)/1e9)
	if len(cs) > 0 && math.IsNaN(cs[0].Time) {
		return nil
	}
	return cs
}

// sameTime reports whether every configuration of cs takes the same time.
func sameTime(cs []frontier.Config) bool {
	for _, c := range cs {
		if c.Time != cs[0].Time {
			return false
		}
	}
	return true
}

// checkPick refuses a pick that selects no point of the sweep: a policy
// it did not run, or a cap it did not sweep (the detail would replay a
// point the results do not hold).
func (sc *Scenario) checkPick(p Pick) error {
	if !slices.Contains(sc.Sweep.Policies, p.Policy) {
		return fmt.Errorf("detail: policy %q is not one of the sweep's policies (%s)", p.Policy, strings.Join(sc.Sweep.Policies, ", "))
	}
	if p.Policy != policy.Uncapped && !slices.Contains(sc.Sweep.CapsW, p.CapW) {
		caps := make([]string, len(sc.Sweep.CapsW))
		for i, c := range sc.Sweep.CapsW {
			caps[i] = strconv.FormatFloat(c, 'g', -1, 64)
		}
		return fmt.Errorf("detail: cap %g W is not one of the sweep's caps (%s W)", p.CapW, strings.Join(caps, ", "))
	}
	return nil
}

// ParsePick reads a point to detail: machine=NAME,policy=P,cap=W (any of
// them may be left out).
func ParsePick(spec string) (Pick, error) {
	var p Pick
	if spec == "" {
		return p, nil
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || v == "" {
			return p, fmt.Errorf("detail %q: %q is not key=value", spec, kv)
		}
		if seen[k] {
			return p, fmt.Errorf("detail %q: %s given twice", spec, k)
		}
		seen[k] = true
		switch k {
		case "machine":
			p.Machine = v
		case "policy":
			p.Policy = v
		case "cap":
			c, err := strconv.ParseFloat(v, 64)
			if err != nil || !(c > 0) || math.IsInf(c, 0) {
				return p, fmt.Errorf("detail %q: cap %q is not a positive number of watts", spec, v)
			}
			p.CapW = c
		default:
			return p, fmt.Errorf("detail %q: unknown key %q (want machine, policy, cap)", spec, k)
		}
	}
	return p, nil
}

// rankTable is where each rank's time went (compute, communication
// overhead, waiting, finish), in units of uns ns. With more than 32 ranks
// it lists the 8 that waited least and the 8 that waited most (the
// critical and the most idle ranks), and a row of means.
func rankTable(res *sim.Result, unit string, uns float64) ([]string, [][]string) {
	cols := []string{"rank", "compute (" + unit + ")", "communication (" + unit + ")", "waiting (" + unit + ")", "waiting (%)", "finish (" + unit + ")"}
	row := func(name string, st sim.RankStats) []string {
		pct := 0.0
		if res.Makespan > 0 {
			pct = 100 * float64(st.Wait) / float64(res.Makespan)
		}
		return []string{name, fmt.Sprintf("%.3f", float64(st.Compute)/uns), fmt.Sprintf("%.3f", float64(st.Comm)/uns),
			fmt.Sprintf("%.3f", float64(st.Wait)/uns), fmt.Sprintf("%.1f", pct), fmt.Sprintf("%.3f", float64(st.Finish)/uns)}
	}
	idx := make([]int, len(res.Ranks))
	for i := range idx {
		idx[i] = i
	}
	if len(idx) > 32 {
		sort.SliceStable(idx, func(a, b int) bool { return res.Ranks[idx[a]].Wait < res.Ranks[idx[b]].Wait })
		idx = append(idx[:8:8], idx[len(idx)-8:]...)
	}
	var rows [][]string
	for _, r := range idx {
		rows = append(rows, row(fmt.Sprint(r), res.Ranks[r]))
	}
	var mean sim.RankStats
	n := int64(len(res.Ranks))
	for _, st := range res.Ranks {
		mean.Compute += st.Compute
		mean.Comm += st.Comm
		mean.Wait += st.Wait
		mean.Finish += st.Finish
	}
	if n > 0 {
		mean = sim.RankStats{Compute: mean.Compute / n, Comm: mean.Comm / n, Wait: mean.Wait / n, Finish: mean.Finish / n}
	}
	rows = append(rows, row("mean", mean))
	return cols, rows
}

// replayPolicy replays one point of any sweep policy and returns what the
// replay recorded: the replayer's P-state policies directly, conductor and
// lp and min-energy over the LP's DAG of the MPI trace t, lp and
// min-energy over the LP of the execution graph g where t is nil (their
// schedules rounded as sweeps round it, staggered within the cap), and
// conductor on an execution graph as the sweep plays it.
func (sc *Scenario) replayPolicy(t *mpi.Trace, g *graph.Graph, m *Machine, cls *network.Classes, pol string, capW float64) (Metrics, *recording, error) {
	if !policy.IsOnDAG(pol) {
		return sc.replay(g, m, sc.Net(), cls, pol, capW)
	}
	if t == nil && pol == policy.Conductor {
		run, err := sc.replayGraphConductor(g, m, sc.Net(), cls, capW, conductor.DefaultParams())
		if err != nil {
			return Metrics{}, nil, err
		}
		return run.met, &recording{acct: run.acct, model: run.model, res: run.res, net: run.net, opts: run.opts}, nil
	}
	if t == nil && !plansOnGraph(pol) {
		return Metrics{}, nil, fmt.Errorf("the %s policy needs an MPI-trace workload (the DAG of its MPI calls)", pol)
	}
	net := sc.Net()
	bd, err := sc.policyBounder(pol, t, g, cls, m, net)
	if err != nil {
		return Metrics{}, nil, err
	}
	defer bd.close()
	var met Metrics
	var run *taskRun
	if pol == policy.Conductor {
		pd, po, perr := bd.plan()
		if perr != nil {
			return Metrics{}, nil, perr
		}
		met, _, run, err = sc.replayConductor(g, bd.t, pd, po, capW, conductor.DefaultParams(), m, net)
	} else if pol == policy.MinEnergy {
		var ok bool
		met, run, ok, err = sc.minEnergyPoint(context.Background(), bd, g, capW, net)
		if err == nil && !ok {
			return Metrics{}, nil, sc.noSchedule(bd, capW)
		}
	} else {
		// The bounder solves the caps of the sweep's chain before capW
		// first and plans on its LP's fork at capW, as the sweep does: the
		// LP's optimum is degenerate, and its warm starts give this point
		// the schedule the sweep had.
		bd.forkCaps = lpForkCaps([]Point{{Policy: policy.LP, CapW: capW}}, sc.Sweep.CapsW)
		var b *bound.Bound
		met, run, b, err = sc.lpPoint(context.Background(), bd, g, capW, net)
		if err == nil && b == nil {
			return Metrics{}, nil, sc.noSchedule(bd, capW)
		}
	}
	if err != nil {
		return Metrics{}, nil, err
	}
	return met, &recording{acct: run.acct, model: run.model, res: run.res, net: run.net, opts: run.opts}, nil
}

// pathRows is the most segments pathSection lists; a longer path shows
// its first and last pathRows/2 and sums the rest in one row.
const pathRows = 60

// pathSection describes the critical path of a point: its shares of the
// makespan (computing, communicating, waiting; against the LP bound when
// boundNs > 0) and a table of its segments, in unit (uns ns).
func pathSection(g *graph.Graph, p *critpath.Path, what string, boundNs int64, unit string, uns float64) report.Section {
	// Runs of segments of one rank, kind and operation are one row.
	type row struct {
		seg critpath.Segment
		n   int
	}
	var rows []row
	for _, s := range p.Segments {
		if n := len(rows); n > 0 {
			l := &rows[n-1]
			if l.seg.Rank == s.Rank && l.seg.Kind == s.Kind && critpath.Describe(g, l.seg) == critpath.Describe(g, s) {
				l.seg.End = s.End
				l.n++
				continue
			}
		}
		rows = append(rows, row{s, 1})
	}
	ranks := map[int32]bool{}
	for _, s := range p.Segments {
		ranks[s.Rank] = true
	}
	comp, comm, wait := p.Shares()
	k := p.ByKind()
	pct := func(v int64) float64 {
		if p.Makespan == 0 {
			return 0
		}
		return 100 * float64(v) / float64(p.Makespan)
	}
	text := fmt.Sprintf("The chain of operations that determines the makespan (%.3f %s), from time 0 to the end: %d segments on %d ranks. "+
		"Along it, computing %.1f %%, communicating %.1f %% (send overhead %.1f %%, receive overhead %.1f %%, messages in flight %.1f %%, NIC gaps %.1f %%), waiting %.1f %%.",
		float64(p.Makespan)/uns, unit, len(p.Segments), len(ranks), pct(comp), pct(comm),
		pct(k[critpath.Send]), pct(k[critpath.Recv]), pct(k[critpath.Message]), pct(k[critpath.NIC]), pct(wait))
	if boundNs > 0 {
		text += fmt.Sprintf(" The LP bound at this cap is %.3f %s: the point is %.3f %s (%.1f %%) above it.",
			float64(boundNs)/uns, unit, float64(p.Makespan-boundNs)/uns, unit, 100*float64(p.Makespan-boundNs)/float64(boundNs))
	}
	text += " The black line on the Gantt chart above follows the path."
	sec := report.Section{
		Heading: "Critical path: " + what,
		Text:    text,
		Columns: []string{"#", "rank", "kind", "operation", "start (" + unit + ")", "duration (" + unit + ")", "share (%)"},
	}
	line := func(i int, r row) []string {
		op := critpath.Describe(g, r.seg)
		if r.n > 1 {
			op = fmt.Sprintf("%s (×%d)", op, r.n)
		}
		rank := fmt.Sprint(r.seg.Rank)
		if r.seg.Kind == critpath.Message {
			rank = fmt.Sprintf("%d→%d", r.seg.Rank, r.seg.Peer)
		}
		return []string{fmt.Sprint(i + 1), rank, r.seg.Kind.String(), op, fmt.Sprintf("%.3f", float64(r.seg.Start)/uns),
			fmt.Sprintf("%.3f", float64(r.seg.Duration())/uns), fmt.Sprintf("%.1f", pct(r.seg.Duration()))}
	}
	for i, r := range rows {
		if len(rows) > pathRows && i == pathRows/2 {
			rest := rows[i : len(rows)-pathRows/2]
			var c, m, w int64
			for _, x := range rest {
				switch {
				case x.seg.Kind == critpath.Compute:
					c += x.seg.Duration()
				case x.seg.Kind.Communicating():
					m += x.seg.Duration()
				default:
					w += x.seg.Duration()
				}
			}
			sec.Rows = append(sec.Rows, []string{"…", "", "", fmt.Sprintf("%d more rows: compute %.3f, communication %.3f, wait %.3f %s", len(rest), float64(c)/uns, float64(m)/uns, float64(w)/uns, unit),
				fmt.Sprintf("%.3f", float64(rest[0].seg.Start)/uns), fmt.Sprintf("%.3f", float64(c+m+w)/uns), fmt.Sprintf("%.1f", pct(c+m+w))})
		}
		if len(rows) > pathRows && i >= pathRows/2 && i < len(rows)-pathRows/2 {
			continue
		}
		sec.Rows = append(sec.Rows, line(i, r))
	}
	return sec
}

// overCapText is how long the detailed point's power was over its cap,
// and nothing for an uncapped point, which has no cap to be over.
func overCapText(capW, over float64, unit string) string {
	if capW <= 0 {
		return ""
	}
	return fmt.Sprintf(", %.3f %s above the cap", over, unit)
}

// energyText is an energy in J to 1 mJ, or, below 1 mJ (a job of
// nanoseconds), to 4 significant digits rather than as 0.000.
func energyText(j float64) string {
	if j != 0 && math.Abs(j) < 1e-3 {
		return report.FormatNumber(j, 4)
	}
	return fmt.Sprintf("%.3f", j)
}

// noSchedule is the error of a point in detail whose LP has no schedule at
// capW: below its least feasible cap (leastLPCapW), which it names, or
// without the LP solver.
func (sc *Scenario) noSchedule(bd *bounder, capW float64) error {
	if bd == nil || bd.s == nil {
		return fmt.Errorf("the LP has no schedule at %g W%s: capsim was built without the LP solver", capW, sc.perNode())
	}
	least, err := sc.leastLPCapW(bd.d, bd.o, bd.m)
	if err != nil {
		return fmt.Errorf("the LP has no schedule at %g W%s, below its least feasible cap", capW, sc.perNode())
	}
	return fmt.Errorf("the LP has no schedule at %g W%s: its least feasible cap is %.6g W%s", capW, sc.perNode(), least, sc.perNode())
}
