package scenarios

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot/plotter"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/scenarios/report"
	"github.com/capsim/capsim/scenarios/results"
)

// ReportOptions controls WriteReport.
type ReportOptions struct {
	// Scenario is the sweep's scenario; nil reads the one the sweep
	// recorded in the results folder (none: the report has no summary of
	// the machines and no detail).
	Scenario *Scenario
	// Detail lists the points shown in detail (nil: DefaultPick); NoDetail
	// leaves them out.
	Detail   []Pick
	NoDetail bool
	// Compare, when set, is a second results folder (the same workload on
	// another machine or model) compared point by point with this one.
	Compare string
	// Partial reports a folder that holds only some of its sweep's
	// points (a shard, a sweep stopped early), saying so on the page;
	// without it such a folder is refused.
	Partial bool
}

// ReportFiles is what WriteReport wrote.
type ReportFiles struct {
	Page    string // the HTML report
	Figures string // the folder of PNG and SVG figures
	Count   int    // figures written
}

// WriteReport writes the report of the sweep whose results are in dir:
// dir/report.html (or dir/compare.html when comparing) and its figures as
// PNG and SVG in dir/figures/. The page opens with what was simulated
// (machines, network, workload, caps, policies) and the headline (the best
// policy at every cap and its gap to the bound), then the sweep's figures
// (makespan, gap to the bound and energy against the cap), the energy–time
// frontier with every policy's replays (frontierSection), a comparison of
// every machine with the first, the comparison with another results folder
// (opt.Compare), the points in detail, and the results table.
func WriteReport(dir string, opt ReportOptions) (*ReportFiles, error) {
	for _, d := range []string{dir, opt.Compare} {
		if d == "" {
			continue
		}
		if err := results.InUse(d); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
	}
	schema, rows, err := results.ReadArrow(filepath.Join(dir, results.ArrowFile))
	if errors.Is(err, fs.ErrNotExist) {
		if st, serr := os.Stat(dir); serr == nil && st.IsDir() {
			if _, jerr := os.Stat(filepath.Join(dir, results.JournalFile)); jerr == nil {
				return nil, fmt.Errorf("report: %s holds a sweep's points but no %s: the sweep stopped before it finished: rerun it to resume (or capsim merge --partial the folder into another and report that with --partial)", dir, results.ArrowFile)
			}
			return nil, fmt.Errorf("report: %s is not a results folder: it holds no %s (capsim sweep and capsim merge write one)", dir, results.ArrowFile)
		}
	}
	if err != nil {
		return nil, err
	}
	if err := requireColumns(schema, filepath.Join(dir, results.ArrowFile), "policy", "cap_w", "makespan_ns"); err != nil {
		return nil, err
	}
	partial, err := checkCoverage(dir, len(rows), opt.Partial)
	if err != nil {
		return nil, err
	}
	if opt.Compare != "" {
		if _, err := checkCoverage(opt.Compare, -1, opt.Partial); err != nil {
			return nil, err
		}
	}
	sc := opt.Scenario
	if sc == nil {
		if sc, err = LoadSource(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if sc == nil && len(opt.Detail) > 0 && !opt.NoDetail {
		// A point in detail replays the scenario; without one the
		// page left out the point asked for, with exit 0.
		return nil, fmt.Errorf("report: --detail: %s holds no %s (the scenario a point in detail replays): give the scenario with --scenario FILE", dir, SourceFile)
	}
	// What the page says of the scenario beside the table, and every
	// section it computes again (the frontier, the points in detail),
	// come from the inputs as they are now: where they are no longer
	// those of the results, the page says so and leaves the computed
	// sections out, and a detail asked for is refused.
	var stale error
	if sc != nil {
		stale = sc.checkResults(dir)
	}
	if stale != nil && opt.Scenario != nil {
		if err := sc.sameScenarioText(dir); err != nil {
			return nil, err
		}
	}
	if stale != nil && !opt.NoDetail {
		return nil, fmt.Errorf("%w; rerun the sweep (capsim sweep --restart), or leave the detail out (--no-detail)", stale)
	}
	unit, _ := report.ResultsTimeUnit(schema, rows)
	pg := &report.Page{Schema: schema, Rows: rows}
	if partial != "" {
		pg.Summary = append(pg.Summary, report.Section{Heading: "Partial results", Text: partial})
	}
	pg.Title = "capsim sweep: " + filepath.Base(filepath.Clean(dir))
	if sc == nil {
		pg.Summary = append(pg.Summary, report.Section{Heading: "No scenario", Text: fmt.Sprintf(
			"The folder holds no %s, so this page has no description of the scenario, no energy–time frontier and no point in detail; give the scenario with capsim report --scenario FILE.", SourceFile)})
	}
	if sc != nil {
		pg.Title = "capsim: " + sc.Title()
		sum := sc.summary()
		if stale != nil {
			sum.Rows = append([][]string{{"inputs changed", stale.Error() +
				"; this section describes the scenario as the sweep recorded it (its text and recording configuration), and the sections that compute from the inputs (the energy–time frontier, the points in detail) are left out"}}, sum.Rows...)
		}
		pg.Summary = append(pg.Summary, sum)
	}
	if sec, ok, err := aggregateSection(schema, rows, unit); err != nil {
		return nil, err
	} else if ok {
		// An aggregation sweep: its patterns in place of the policies
		// against the cap (it runs uncapped), no point in detail.
		pg.Summary = append(pg.Summary, sec)
		opt.NoDetail = true
	} else {
		var least map[int]string
		if sc != nil && stale == nil {
			least = sc.leastCaps(newView(schema), rows)
		}
		pg.Summary = append(pg.Summary, headline(schema, rows, unit, least))
		if pg.Figures, err = report.Figures(schema, rows); err != nil {
			return nil, err
		}
		if sc != nil && stale == nil {
			_, ns := report.ResultsTimeUnit(schema, rows)
			if sec, ok, err := sc.frontierSection(context.Background(), schema, rows, unit, ns); err != nil {
				return nil, err
			} else if ok {
				pg.Sections = append(pg.Sections, sec)
			}
		}
	}
	if sec, ok, err := compareMachines(schema, rows); err != nil {
		return nil, err
	} else if ok {
		pg.Sections = append(pg.Sections, sec)
	}
	page := "report.html"
	if opt.Compare != "" {
		sec, err := compareFolders(dir, opt.Compare)
		if err != nil {
			return nil, err
		}
		pg.Sections = append(pg.Sections, sec)
		page = "compare.html"
	}
	if sc != nil && !opt.NoDetail {
		picks := opt.Detail
		if len(picks) == 0 {
			if p, ok := sc.scheduledPick(newView(schema), rows); ok {
				picks = []Pick{p}
			} else {
				pg.Sections = append(pg.Sections, report.Section{Heading: "No point in detail",
					Text: "No point of these results has a schedule (every cap is below the least power its policy can run the job at), so there is no run to draw."})
			}
		}
		for i, p := range picks { // before any point is replayed
			if j := sc.samePoint(picks, i); j >= 0 {
				pt := sc.pointOf(p)
				capText := fmt.Sprintf(", cap %g W", pt.CapW)
				if pt.CapW == 0 {
					capText = ""
				}
				return nil, fmt.Errorf("report: details %d and %d (--detail) are one point (machine %s, policy %s%s): name each point once",
					j+1, i+1, pt.Machine, pt.Policy, capText)
			}
		}
		for i, p := range picks {
			prefix := "detail_"
			if i > 0 {
				prefix = fmt.Sprintf("detail%d_", i+1)
			}
			secs, err := sc.Detail(p, prefix, unit)
			if err != nil {
				return nil, err
			}
			pg.Sections = append(pg.Sections, secs...)
		}
	}
	all := append([]report.Figure(nil), pg.Figures...)
	for _, sec := range append(pg.Summary, pg.Sections...) {
		all = append(all, sec.Figures...)
	}
	figDir := filepath.Join(dir, "figures")
	path := filepath.Join(dir, page)
	written := []string{path}
	for _, f := range all {
		written = append(written, filepath.Join(figDir, f.Name+".png"), filepath.Join(figDir, f.Name+".svg"))
	}
	// Refused before a file is written: figures without their page.
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("report: %s is a folder: the page cannot be written there; remove or rename it", path)
	}
	if st, err := os.Stat(figDir); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("report: %s is a file: the figures go into a folder of that name; remove or rename it", figDir)
	}
	if err := recordReportFiles(dir, written); err != nil {
		return nil, err
	}
	if _, err := report.SaveFigures(figDir, all); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { return pg.Write(w) }); err != nil {
		return nil, err
	}
	return &ReportFiles{Page: path, Figures: figDir, Count: len(all)}, nil
}

// checkResults reports results in dir computed from other inputs than
// the scenario's now (a trace re-recorded, a model file edited, another
// capsim), or whose inputs cannot be read again: a report that computes
// from the inputs (the points in detail, the frontier) would show the
// current trace beside a table of the old one. A folder without a
// journal is not checked.
func (sc *Scenario) checkResults(dir string) error {
	id, err := sc.Identity()
	if err != nil {
		return fmt.Errorf("report: the inputs of the results cannot be read again: %w", err)
	}
	if err := results.CheckSweep(dir, id); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("report: the inputs are no longer those of the results: %w", err)
	}
	return nil
}

// sameScenarioText refuses a scenario given for the results in dir
// (report --scenario) that does not say what the one their sweep ran
// says (the text dir's SourceFile records, up to comments and layout:
// canonicalHash; else the text their journal records): the page would
// describe another sweep beside the table. A journal that records no
// scenario is not checked.
func (sc *Scenario) sameScenarioText(dir string) error {
	ins, err := results.ReadInputs(dir)
	if err != nil {
		return nil // no journal: checkResults found nothing to compare
	}
	if saved, err := LoadSource(dir); err == nil {
		a, errA := canonicalHash(saved.Text)
		b, errB := canonicalHash(sc.Text)
		if errA == nil && errB == nil && a == b {
			return nil
		}
	}
	sum := sha256.Sum256(sc.Text)
	for _, in := range ins {
		if in.Name == "scenario" && in.Hash != hex.EncodeToString(sum[:]) {
			what := "they were swept from " + in.Path
			if samePath(in.Path, sc.File) {
				what = "it changed since the sweep"
			}
			return fmt.Errorf("report: --scenario %s is not the scenario of the results in %s (%s); leave --scenario out to describe them by %s",
				sc.File, dir, what, filepath.Join(dir, SourceFile))
		}
	}
	return nil
}

// samePath reports whether a and b name one file, made absolute.
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// requireColumns reports the columns of names that schema lacks.
func requireColumns(s results.Schema, file string, names ...string) error {
	var missing []string
	for _, n := range names {
		if s.Index(n) < 0 {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: not a sweep's results table: it lacks the column(s) %s", file, strings.Join(missing, ", "))
	}
	return nil
}

// Title is the scenario's name, or its file's name without extension.
func (s *Scenario) Title() string {
	if s.Name != "" {
		return s.Name
	}
	return strings.TrimSuffix(filepath.Base(s.File), filepath.Ext(s.File))
}

// summary describes what the scenario simulates: machines, network,
// workload, models, caps and policies.
func (s *Scenario) summary() report.Section {
	sec := report.Section{Heading: "What was simulated"}
	add := func(k, v string) { sec.Rows = append(sec.Rows, []string{k, v}) }
	add("scenario", s.File)
	for _, m := range s.Machines {
		var ps []string
		for _, p := range m.PStates {
			ps = append(ps, fmt.Sprintf("%s GHz %s W", report.FormatNumber(p.FreqGHz, 4), report.FormatNumber(p.ActivePowerW, 4)))
		}
		d := fmt.Sprintf("%d nodes × %d sockets × %d cores, %d ranks per node; P-states (per active core): %s; idle %s W per socket, %s W per idle core",
			m.Nodes, m.SocketsPerNode, m.CoresPerSocket, m.RanksPerNode, strings.Join(ps, ", "),
			report.FormatNumber(m.IdlePowerW, 4), report.FormatNumber(m.CoreIdlePowerW, 4))
		for _, a := range m.Accelerators {
			per := a.PerNode
			if per == 0 {
				per = 1
			}
			d += fmt.Sprintf("; accelerator %s ×%d per node for regions %q", a.Name, per, a.Regions)
			if a.IdleW > 0 {
				d += fmt.Sprintf(", idle %s W each", report.FormatNumber(a.IdleW, 4))
			}
		}
		if g := m.GPU; g != nil {
			var cs []string
			for _, c := range g.Allowed() {
				cs = append(cs, fmt.Sprintf("%s MHz %s W", report.FormatNumber(c.MHz, 5), report.FormatNumber(c.PowerW, 4)))
			}
			d += fmt.Sprintf("; GPU %s per rank: clocks %s; idle %s W; memory-bound share %s; kernels recorded at %s MHz",
				g.Name, strings.Join(cs, ", "), report.FormatNumber(g.IdleW, 4), report.FormatNumber(g.MemoryBoundness, 4), report.FormatNumber(g.Model().Recorded(), 5))
			if g.PowerLimitW > 0 {
				d += fmt.Sprintf(" (power limit %s W)", report.FormatNumber(g.PowerLimitW, 4))
			}
		}
		if m.SpeedFactor != 0 && m.SpeedFactor != 1 {
			d += fmt.Sprintf("; compute times ×%s", report.FormatNumber(m.SpeedFactor, 4))
		}
		add("machine "+m.Name, d)
	}
	n := s.Net()
	net := fmt.Sprintf("LogGOPS L=%d ns, o=%d ns, g=%d ns, G=%s ns/B, O=%s ns/B, S=%d B", n.Latency, n.Overhead, n.Gap, n.GapPerByte, n.OverheadPerByte, n.EagerLimit)
	if n.HeaderBytes != 0 {
		net += fmt.Sprintf(", H=%d B", n.HeaderBytes)
	}
	if s.Network.Collective != "" {
		net += "; collectives " + s.Network.Collective
	}
	if t := s.Network.Topology; t != nil {
		net += fmt.Sprintf("; topology %s (%s), messages as flows sharing its links; %s", t.Kind, t.Spec(), ContentionNote(t, s.Bound.Messages))
	}
	if k := len(s.Network.Overrides); k > 0 {
		net += fmt.Sprintf("; %d override(s)", k)
	}
	add("network", net)
	w := s.Workload.Trace
	if w == "" {
		w = "generator " + s.Workload.Generator + formatParams(s.Workload.Params)
	} else {
		w = "trace " + w
		if n := s.Workload.Replicate; n > 0 {
			w += fmt.Sprintf(", replicated to %d ranks", n)
		}
	}
	add("workload", w)
	if r := s.recordedLine(); r != "" {
		add("recorded run", r)
	}
	add("recorded at", s.RecordedConfig().String())
	if s.Models.File != "" {
		add("models", "model file "+s.Models.File)
	} else {
		add("models", fmt.Sprintf("DVFS, memory-bound fraction %s", report.FormatNumber(s.Models.MemoryBoundness, 4)))
	}
	caps := append([]float64(nil), s.Sweep.CapsW...)
	sort.Float64s(caps)
	if len(caps) > 0 {
		scope := ""
		if s.Sweep.CapScope == CapScopeNode {
			scope = " per node"
		}
		if !slices.ContainsFunc(s.Sweep.Policies, policy.IsCapped) {
			scope += " (no policy of this sweep runs under them)"
		}
		if len(caps) == 1 {
			add("power caps", fmt.Sprintf("1 cap, %s W%s", report.FormatNumber(caps[0], 6), scope))
		} else {
			add("power caps", fmt.Sprintf("%d caps, %s to %s W%s", len(caps), report.FormatNumber(caps[0], 6), report.FormatNumber(caps[len(caps)-1], 6), scope))
		}
	}
	add("policies", strings.Join(s.Sweep.Policies, ", "))
	for _, a := range s.paramAxes() {
		add("axis "+a, fmt.Sprint(s.Sweep.Params[a]))
	}
	return sec
}

func formatParams(p map[string]any) string {
	if len(p) == 0 {
		return ""
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, p[k]))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// view reads the columns of a results table that the report compares.
type view struct {
	machine, policy, capW, makespan, energy, bound, over, below int
	params                                                      []int
	s                                                           results.Schema
}

func newView(s results.Schema) view {
	v := view{s: s, machine: s.Index("machine"), policy: s.Index("policy"), capW: s.Index("cap_w"),
		makespan: s.Index("makespan_ns"), energy: s.Index("energy_j"), bound: s.Index("bound_ns"), over: s.Index("over_cap_ns"),
		below: s.Index("below_bound")}
	for i, c := range s {
		if strings.HasPrefix(c.Name, "param.") {
			v.params = append(v.params, i)
		}
	}
	return v
}

func (v view) str(r results.Row, c int) string {
	if c < 0 {
		return ""
	}
	return results.FormatValue(r.Values[c])
}

func (v view) num(r results.Row, c int) (float64, bool) {
	if c < 0 {
		return 0, false
	}
	switch x := r.Values[c].(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x)
	}
	return 0, false
}

// paramKey is the row's parameter values ("" without parameter axes).
func (v view) paramKey(r results.Row) string {
	var parts []string
	for _, c := range v.params {
		parts = append(parts, strings.TrimPrefix(v.s[c].Name, "param.")+"="+v.str(r, c))
	}
	return strings.Join(parts, " ")
}

// withinCap reports whether the row's schedule stayed within its cap.
func (v view) withinCap(r results.Row) bool {
	o, ok := v.num(r, v.over)
	return !ok || o == 0
}

// nextBest is the runner-up policy and how much slower it is than the
// best: in percent, or in the time unit where the best took 0 ns (a job
// without work), where a percentage has no value.
func nextBest(pol string, t, best, ns float64, unit string) string {
	if best > 0 {
		return fmt.Sprintf("%s (+%.2f %%)", pol, (t/best-1)*100)
	}
	return fmt.Sprintf("%s (+%.3f %s)", pol, (t-best)/ns, unit)
}

// headline is the best policy at every cap of every machine and parameter
// set: the least makespan among the schedules that stayed within the cap,
// with the bound and its gap.
//
// least holds, by point index, the least cap of a point whose policy has
// no schedule at its cap, as text (Scenario.leastCaps; nil where not
// known).
func headline(s results.Schema, rows []results.Row, unit string, least map[int]string) report.Section {
	v := newView(s)
	_, ns := report.ResultsTimeUnit(s, rows)
	sec := report.Section{Heading: "Headline: the best policy at each cap",
		Text:    "The fastest schedule among the policies that stayed within the cap at every instant, and its gap to the LP bound (the least makespan any schedule keeping the trace's event order can reach under that cap). A negative gap is tagged with why: \"order changed\" where the schedule left that order, for which alone the bound holds.",
		Columns: []string{"machine", "parameters", "cap (W)", "best policy", "makespan (" + unit + ")", "LP bound (" + unit + ")", "gap (%)", "next best"}}
	type key struct {
		machine, params string
		capW            float64
	}
	type entry struct {
		pol   string
		t     float64
		below string // the row's below_bound
	}
	best := map[key][]entry{}
	bound := map[key]float64{}
	var keys []key
	over := map[string][]string{} // per machine, parameters and policy: the caps it exceeded
	var overKeys []string
	left := map[key][]string{}       // per cap: why each policy is not the best there
	none := map[string][]string{}    // per machine, parameters and policy: the caps it has no schedule at
	noneLeast := map[string]string{} // and the least cap it has one at, where known
	var noneKeys []string
	for _, r := range rows {
		c, ok := v.num(r, v.capW)
		t, ok2 := v.num(r, v.makespan)
		if ok {
			k := key{v.str(r, v.machine), v.paramKey(r), c}
			if _, seen := left[k]; !seen {
				keys = append(keys, k)
				left[k] = nil
			}
			switch {
			case !ok2:
				why := v.str(r, v.policy) + ": no schedule at this cap"
				if w, ok := least[r.Index]; ok {
					why += " (its least feasible cap: " + w + ")"
				}
				left[k] = append(left[k], why)
				pk := strings.Join(strings.Fields(v.str(r, v.machine)+" "+v.paramKey(r)+" "+v.str(r, v.policy)), " ")
				if _, seen := none[pk]; !seen {
					noneKeys = append(noneKeys, pk)
				}
				none[pk] = append(none[pk], report.FormatNumber(c, 6))
				if w, ok := least[r.Index]; ok {
					noneLeast[pk] = w
				}
			case !v.withinCap(r):
				left[k] = append(left[k], v.str(r, v.policy)+": over the cap")
			}
		}
		if ok && ok2 && !v.withinCap(r) {
			k := strings.Join(strings.Fields(v.str(r, v.machine)+" "+v.paramKey(r)+" "+v.str(r, v.policy)), " ")
			if _, seen := over[k]; !seen {
				overKeys = append(overKeys, k)
			}
			over[k] = append(over[k], report.FormatNumber(c, 6))
		}
		if !ok || !ok2 || !v.withinCap(r) {
			continue
		}
		k := key{v.str(r, v.machine), v.paramKey(r), c}
		best[k] = append(best[k], entry{v.str(r, v.policy), t, v.str(r, v.below)})
		if b, ok := v.num(r, v.bound); ok {
			bound[k] = b
		}
	}
	for _, k := range keys {
		es := best[k]
		if len(es) == 0 {
			// Every policy at this cap went over it or has no schedule:
			// the row says so rather than the cap missing from the table.
			sec.Rows = append(sec.Rows, []string{k.machine, k.params, report.FormatNumber(k.capW, 6), "none within the cap", "–", "–", "–", strings.Join(left[k], "; ")})
			continue
		}
		sort.SliceStable(es, func(i, j int) bool { return es[i].t < es[j].t })
		line := []string{k.machine, k.params, report.FormatNumber(k.capW, 6), es[0].pol, fmt.Sprintf("%.3f", es[0].t/ns), "–", "–", "–"}
		if b, ok := bound[k]; ok && b > 0 {
			line[5] = fmt.Sprintf("%.3f", b/ns)
			line[6] = fmt.Sprintf("%.2f", (es[0].t/b-1)*100) + belowNote(es[0].below)
		}
		if len(es) > 1 {
			line[7] = nextBest(es[1].pol, es[1].t, es[0].t, ns, unit)
		}
		sec.Rows = append(sec.Rows, line)
	}
	if len(keys) == 0 {
		// Only uncapped points: no cap to pick a best policy at.
		sec.Text = "No point of these results ran under a power cap, so no policy is the best at one: the sweep's figures and the results table give the uncapped runs."
		sec.Columns = nil
		return sec
	}
	if len(overKeys) > 0 {
		var parts []string
		for _, k := range overKeys {
			parts = append(parts, k+" at "+strings.Join(over[k], ", ")+" W")
		}
		sec.Text += " Schedules over their cap at some instant are never the best here, and the figures ring their points: " + strings.Join(parts, "; ") + "."
	}
	if len(noneKeys) > 0 {
		var parts []string
		for _, k := range noneKeys {
			part := k + " at " + strings.Join(none[k], ", ") + " W"
			if w, ok := noneLeast[k]; ok {
				part += " (least feasible cap " + w + ")"
			}
			parts = append(parts, part)
		}
		sec.Text += " No schedule exists (the cap is below the least power the policy can run the job at; their rows in the results table are empty and the figures leave them out): " + strings.Join(parts, "; ") + "."
	}
	return sec
}

// belowNote tags the gap of a schedule that ended before the bound with
// why (its below_bound): "order changed" where it left the LP's event
// order, for which alone the bound holds.
func belowNote(why string) string {
	switch {
	case why == "":
		return ""
	case OrderChanged(why):
		return " (order changed)"
	}
	return " (below the bound: " + why + ")"
}

// ratioRow is the comparison of one point of machine (or folder) B with
// the same point of A.
type ratioRow struct {
	params, policy     string
	capW               float64
	speedup, energy    float64 // T_A/T_B, E_B/E_A
	edp                float64 // (E_B·T_B)/(E_A·T_A)
	nameA, nameB, what string
}

// ratios compares rows of b with the rows of a that have the same policy,
// cap and parameters; machine names are matched too when match is set.
func ratios(va view, a []results.Row, vb view, b []results.Row, match func(ra, rb results.Row) bool) []ratioRow {
	type key struct {
		params, policy string
		capW           float64
	}
	keyOf := func(v view, r results.Row) key {
		c, _ := v.num(r, v.capW)
		return key{v.paramKey(r), v.str(r, v.policy), c}
	}
	byKey := map[key][]results.Row{}
	for _, r := range a {
		byKey[keyOf(va, r)] = append(byKey[keyOf(va, r)], r)
	}
	var out []ratioRow
	for _, rb := range b {
		k := keyOf(vb, rb)
		for _, ra := range byKey[k] {
			if !match(ra, rb) {
				continue
			}
			ta, ok1 := va.num(ra, va.makespan)
			tb, ok2 := vb.num(rb, vb.makespan)
			ea, ok3 := va.num(ra, va.energy)
			eb, ok4 := vb.num(rb, vb.energy)
			if !ok1 || !ok2 || !ok3 || !ok4 || tb <= 0 || ea <= 0 || ta <= 0 {
				continue
			}
			out = append(out, ratioRow{params: k.params, policy: k.policy, capW: k.capW, speedup: ta / tb, energy: eb / ea,
				edp: eb * tb / (ea * ta), nameA: va.str(ra, va.machine), nameB: vb.str(rb, vb.machine)})
		}
	}
	return out
}

// ratioSection tabulates ratio rows and draws the speedup against the cap
// per policy.
func ratioSection(heading, text, figName string, rs []ratioRow) (report.Section, error) {
	sec := report.Section{Heading: heading, Text: text,
		Columns: []string{"parameters", "policy", "cap (W)", "A", "B", "speedup of B", "energy B/A", "energy-delay B/A"}}
	pts := map[string]plotter.XYs{}
	var names []string
	for _, r := range rs {
		c := "no cap"
		if r.capW > 0 {
			c = report.FormatNumber(r.capW, 6)
		}
		sec.Rows = append(sec.Rows, []string{r.params, r.policy, c, r.nameA, r.nameB,
			fmt.Sprintf("%.3f×", r.speedup), fmt.Sprintf("%.3f", r.energy), fmt.Sprintf("%.3f", r.edp)})
		if r.capW > 0 {
			n := r.policy
			if r.params != "" {
				n += " " + r.params
			}
			if r.nameB != "" {
				n = r.nameB + ": " + n
			}
			if _, ok := pts[n]; !ok {
				names = append(names, n)
			}
			pts[n] = append(pts[n], plotter.XY{X: r.capW, Y: r.speedup})
		}
	}
	if len(names) > 0 {
		f, err := report.Lines(figName, heading+": speedup against the power cap", "power cap (W)", "speedup (×)", names, pts)
		if err != nil {
			return sec, err
		}
		sec.Figures = append(sec.Figures, f)
	}
	return sec, nil
}

// compareMachines compares every machine of a sweep with its first one,
// point by point; ok is false when the sweep has one machine.
func compareMachines(s results.Schema, rows []results.Row) (report.Section, bool, error) {
	v := newView(s)
	if v.machine < 0 {
		return report.Section{}, false, nil
	}
	var machines []string
	seen := map[string]bool{}
	for _, r := range rows {
		if m := v.str(r, v.machine); !seen[m] {
			seen[m] = true
			machines = append(machines, m)
		}
	}
	if len(machines) < 2 {
		return report.Section{}, false, nil
	}
	first := machines[0]
	var a, b []results.Row
	for _, r := range rows {
		if v.str(r, v.machine) == first {
			a = append(a, r)
		} else {
			b = append(b, r)
		}
	}
	rs := ratios(v, a, v, b, func(ra, rb results.Row) bool { return true })
	sec, err := ratioSection("Machines compared with "+first,
		fmt.Sprintf("Each machine's point against the same policy, cap and parameters on %s (A): speedup T_A/T_B, energy E_B/E_A and energy-delay product (E·T)_B/(E·T)_A; below 1 is better for energy.", first),
		"machines_speedup", rs)
	return sec, true, err
}

// compareFolders compares the results in dir (B) with those in other (A),
// point by point: the same workload on another machine or model.
func compareFolders(dir, other string) (report.Section, error) {
	if err := sameWorkload(dir, other); err != nil {
		return report.Section{}, err
	}
	sa, ra, err := results.ReadArrow(filepath.Join(other, results.ArrowFile))
	if err != nil {
		return report.Section{}, err
	}
	sb, rb, err := results.ReadArrow(filepath.Join(dir, results.ArrowFile))
	if err != nil {
		return report.Section{}, err
	}
	for _, c := range []struct {
		s    results.Schema
		file string
	}{{sa, other}, {sb, dir}} {
		if err := requireColumns(c.s, filepath.Join(c.file, results.ArrowFile), "policy", "cap_w", "makespan_ns", "energy_j"); err != nil {
			return report.Section{}, err
		}
	}
	va, vb := newView(sa), newView(sb)
	sameName := func(x, y results.Row) bool { return va.str(x, va.machine) == vb.str(y, vb.machine) }
	rs := ratios(va, ra, vb, rb, sameName)
	if len(rs) == 0 { // other machines: compare the first machine of each
		fa, fb := firstMachine(va, ra), firstMachine(vb, rb)
		rs = ratios(va, ra, vb, rb, func(x, y results.Row) bool {
			return va.str(x, va.machine) == fa && vb.str(y, vb.machine) == fb
		})
	}
	if len(rs) == 0 {
		return report.Section{}, fmt.Errorf("compare %s with %s: no point has the same policy, cap and parameters in both", dir, other)
	}
	return ratioSection(fmt.Sprintf("%s (B) compared with %s (A)", filepath.Base(filepath.Clean(dir)), filepath.Base(filepath.Clean(other))),
		"Each point of B against the point of A with the same policy, cap and parameters: speedup T_A/T_B, energy E_B/E_A, energy-delay product (E·T)_B/(E·T)_A.",
		"compare_speedup", rs)
}

// sameWorkload refuses to compare the results folder dir with other
// where both record traces and their content differs (a comparison
// point by point of two workloads reads as one workload on two machines),
// or where they are one folder.
func sameWorkload(dir, other string) error {
	if a, errA := os.Stat(dir); errA == nil {
		if b, errB := os.Stat(other); errB == nil && os.SameFile(a, b) {
			return fmt.Errorf("compare %s with %s: they are one folder", dir, other)
		}
	}
	traces := func(d string) ([]string, string) {
		ins, err := results.ReadInputs(d)
		if err != nil {
			return nil, ""
		}
		var hashes []string
		name := ""
		for _, in := range ins {
			if in.Name == "workload.trace" || strings.HasPrefix(in.Name, "workload.trace:") {
				hashes = append(hashes, in.Hash)
				if name == "" {
					name = in.Path
				}
			}
		}
		sort.Strings(hashes)
		return hashes, name
	}
	ha, na := traces(dir)
	hb, nb := traces(other)
	if len(ha) > 0 && len(hb) > 0 && !slices.Equal(ha, hb) {
		return fmt.Errorf("compare %s with %s: they swept other traces (%s and %s, of other content): a comparison is of one workload on other machines or models", dir, other, na, nb)
	}
	sa, errA := LoadSource(dir)
	sb, errB := LoadSource(other)
	if errA != nil || errB != nil {
		return nil // no scenario recorded: the traces' hashes are all there is to go by
	}
	if ga, gb := sa.generated(), sb.generated(); ga != "" && gb != "" && ga != gb {
		return fmt.Errorf("compare %s with %s: they swept other workloads (%s and %s): a comparison is of one workload on other machines or models", dir, other, ga, gb)
	}
	return nil
}

// generated describes the scenario's generated workload: its generator
// and the parameters every point shares (those of no sweep.params axis,
// which the comparison matches point by point); "" for a trace.
func (s *Scenario) generated() string {
	if s.Workload.Generator == "" {
		return ""
	}
	var kv []string
	for k, v := range s.Workload.Params {
		if _, axis := s.Sweep.Params[k]; !axis {
			kv = append(kv, fmt.Sprintf("%s=%v", k, v))
		}
	}
	sort.Strings(kv)
	return "generator " + s.Workload.Generator + " (" + strings.Join(kv, ", ") + ")"
}

func firstMachine(v view, rows []results.Row) string {
	if len(rows) == 0 {
		return ""
	}
	return v.str(rows[0], v.machine)
}

// checkCoverage refuses a results folder that holds only some of its
// sweep's points (a shard, a sweep stopped early: its report would show
// some caps and policies and not others), unless partial, and one whose
// table is not its journal's (a sweep stopped after points it had not yet
// written to the table). With partial it returns what the page says of
// the missing points. rows < 0 skips the table's check; a folder without
// a journal (a table written by other means) is not checked.
func checkCoverage(dir string, rows int, partial bool) (string, error) {
	cov, err := results.ReadCoverage(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	held := cov.Points - len(cov.Missing)
	if rows >= 0 && rows != held {
		return "", fmt.Errorf("%s holds %d rows but its journal %s %d points: the sweep stopped before writing its table; rerun it (capsim sweep) to finish",
			filepath.Join(dir, results.ArrowFile), rows, results.JournalFile, held)
	}
	if len(cov.Missing) == 0 {
		return "", nil
	}
	msg := fmt.Sprintf("%s: %s", dir, cov)
	if !partial {
		return "", fmt.Errorf("%s (a shard, or a sweep that has not finished: merge the shards with capsim merge, or rerun the sweep; --partial reports these points anyway)", msg)
	}
	return msg + ".", nil
}
