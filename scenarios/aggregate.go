package scenarios

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/capsim/capsim/compute/models"
	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/aggregate"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/scenarios/report"
	"github.com/capsim/capsim/scenarios/results"
	"github.com/capsim/capsim/traces/graph"
)

// Aggregate is [aggregate]: a sweep axis over the task-aggregation
// patterns of each machine's node (Dong Li, PhD thesis, Virginia Tech, 2011, Ch. 4;
// docs/design/aggregation.md). The workload's T ranks are placed k to a node on
// T/k of the machine's nodes, grouped by their communication (§4.2), and
// every point is one pattern replayed on the engine: each message priced
// by the LogGOPS parameters of where its two ranks sit (same die, same
// socket, across sockets of a node, or across nodes: [network]), compute
// scaled by the pattern's IPC, the unused nodes in deep sleep.
type Aggregate struct {
	// DiesPerSocket splits each socket's cores into dies (default 1):
	// the node is sockets_per_node × dies_per_socket ×
	// cores_per_socket/dies_per_socket.
	DiesPerSocket int `toml:"dies_per_socket"`
	// Patterns lists the pattern numbers swept (default: every pattern
	// of each machine's node).
	Patterns []int `toml:"patterns"`
	// NodeMemGB and TaskMemGB check that a node's tasks fit its memory
	// (0: not checked; §3.1 rule 6).
	NodeMemGB float64 `toml:"node_mem_gb"`
	TaskMemGB float64 `toml:"task_mem_gb"`
	// IPC gives every pattern's IPC ("1=2.0,4=1.95,…"); or IPCModel (an
	// ipc-mlr model file) predicts them from IPCSamples (the workload's
	// tasks measured under the sample patterns). Compute time scales as
	// IPC[1]/IPC[p] (§3.3). None: compute does not depend on the pattern.
	IPC        string `toml:"ipc"`
	IPCModel   string `toml:"ipc_model"`
	IPCSamples string `toml:"ipc_samples"`
	// SleepPowerW is the power of each node without tasks (deep sleep).
	SleepPowerW float64 `toml:"sleep_power_w"`
	// Exhaustive groups exhaustively up to this many partitions, else by
	// Kernighan–Lin (default 10 000).
	Exhaustive int64 `toml:"exhaustive"`
	// Intra gives every intra-node class its parameters over the
	// defaults (those of [network] with L_ns = 300, o_ns = 200, g_ns = 0,
	// G_ns_per_byte = 1: illustrative, the thesis publishes none);
	// SameDie, SameSocket and CrossSocket override it per class.
	Intra       *NetParams `toml:"intra"`
	SameDie     *NetParams `toml:"same_die"`
	SameSocket  *NetParams `toml:"same_socket"`
	CrossSocket *NetParams `toml:"cross_socket"`

	ipc map[int]float64 // by pattern number, nil without IPCs
}

// NetParams sets some LogGOPS parameters; the others keep their base.
type NetParams struct {
	LNs        *Ns              `toml:"L_ns"`
	ONs        *Ns              `toml:"o_ns"`
	GapNs      *Ns              `toml:"g_ns"`
	GNsPerByte *network.PerByte `toml:"G_ns_per_byte"`
	ONsPerByte *network.PerByte `toml:"O_ns_per_byte"`
	SBytes     *int64           `toml:"S_bytes"`
	HBytes     *int64           `toml:"H_bytes"`
}

// over returns base with the parameters p sets.
func (p *NetParams) over(base network.LogGOPS) network.LogGOPS {
	if p == nil {
		return base
	}
	for _, f := range []struct {
		v   *int64
		dst *int64
	}{{(*int64)(p.LNs), &base.Latency}, {(*int64)(p.ONs), &base.Overhead}, {(*int64)(p.GapNs), &base.Gap}, {p.SBytes, &base.EagerLimit}, {p.HBytes, &base.HeaderBytes}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	if p.GNsPerByte != nil {
		base.GapPerByte = *p.GNsPerByte
	}
	if p.ONsPerByte != nil {
		base.OverheadPerByte = *p.ONsPerByte
	}
	return base
}

func (p *NetParams) check(key string) error {
	if p == nil {
		return nil
	}
	for _, c := range []struct {
		key string
		v   *int64
	}{{"L_ns", (*int64)(p.LNs)}, {"o_ns", (*int64)(p.ONs)}, {"g_ns", (*int64)(p.GapNs)}, {"S_bytes", p.SBytes}} {
		if c.v != nil && (*c.v < 0 || c.key != "S_bytes" && *c.v > graph.MaxTimeNs) {
			return bad(key+"."+c.key, "must be in 0..%d, got %d", int64(graph.MaxTimeNs), *c.v)
		}
	}
	if p.HBytes != nil {
		if err := checkHeader(*p.HBytes); err != "" {
			return bad(key+".H_bytes", "%s", err)
		}
	}
	for _, c := range []struct {
		key string
		v   *network.PerByte
	}{{"G_ns_per_byte", p.GNsPerByte}, {"O_ns_per_byte", p.ONsPerByte}} {
		if c.v != nil {
			if err := checkPerByte(*c.v); err != "" {
				return bad(key+"."+c.key, "%s", err)
			}
		}
	}
	return nil
}

// normalizeAggregate checks [aggregate] against the machines and the
// rest of the scenario and loads its IPCs.
func (s *Scenario) normalizeAggregate() error {
	a := s.Aggregate
	if a == nil {
		return nil
	}
	if a.DiesPerSocket == 0 {
		a.DiesPerSocket = 1
	}
	if a.DiesPerSocket < 0 || a.DiesPerSocket > 1024 {
		return bad("aggregate.dies_per_socket", "must be a positive integer, got %d", a.DiesPerSocket)
	}
	for _, c := range []struct {
		key      string
		v, limit float64
		unit     string
	}{{"node_mem_gb", a.NodeMemGB, aggregate.MaxMemoryBytes >> 30, "GiB (aggregate.MaxMemoryBytes)"},
		{"task_mem_gb", a.TaskMemGB, aggregate.MaxMemoryBytes >> 30, "GiB (aggregate.MaxMemoryBytes)"},
		{"sleep_power_w", a.SleepPowerW, power.MaxWatts, "W (power.MaxWatts)"}} {
		if !finite(c.v, 0, false) || c.v > c.limit {
			return bad("aggregate."+c.key, "must be a finite number in [0, %.10g] %s, got %g", c.limit, c.unit, c.v)
		}
	}
	if a.Exhaustive < 0 {
		return bad("aggregate.exhaustive", "must be ≥ 0, got %d", a.Exhaustive)
	}
	for _, p := range []struct {
		key string
		p   *NetParams
	}{{"intra", a.Intra}, {"same_die", a.SameDie}, {"same_socket", a.SameSocket}, {"cross_socket", a.CrossSocket}} {
		if err := p.p.check("aggregate." + p.key); err != nil {
			return err
		}
	}
	if s.Network.Topology != nil {
		return bad("aggregate", "[aggregate] places ranks by their communication; it cannot be combined with network.topology (whose mapping places them by rank)")
	}
	if len(s.Network.Overrides) > 0 {
		return bad("aggregate", "[aggregate] prices each message by where its ranks sit; it cannot be combined with network.override")
	}
	for _, p := range s.Sweep.Policies {
		if p != policy.Uncapped {
			return bad("sweep.policies", "an [aggregate] sweep runs the uncapped policy only (got %q)", p)
		}
	}
	maxID := 0
	for i := range s.Machines {
		m := &s.Machines[i]
		if len(m.Accelerators) > 0 {
			return bad("aggregate", "machine %s: [aggregate] does not place accelerators; drop its [[machine.accelerator]] or [aggregate]", m.Name)
		}
		if m.ThreadsPerRank != 1 {
			return bad("aggregate", "machine %s: [aggregate] places one task per core (threads_per_rank = 1), got %d", m.Name, m.ThreadsPerRank)
		}
		if m.CoresPerSocket%a.DiesPerSocket != 0 {
			return bad("aggregate.dies_per_socket", "machine %s: %d cores per socket do not divide into %d dies", m.Name, m.CoresPerSocket, a.DiesPerSocket)
		}
		ps, err := aggregate.Patterns(a.topology(m))
		if err != nil {
			return bad("aggregate", "machine %s: %v", m.Name, err)
		}
		maxID = max(maxID, len(ps))
	}
	seen := map[int]bool{}
	for _, id := range a.Patterns {
		if id < 1 || id > maxID {
			return bad("aggregate.patterns", "pattern %d: the machines' nodes allow patterns 1..%d", id, maxID)
		}
		if seen[id] {
			return bad("aggregate.patterns", "pattern %d listed twice", id)
		}
		seen[id] = true
	}
	if a.IPC != "" && a.IPCModel != "" {
		return bad("aggregate.ipc", "set aggregate.ipc or aggregate.ipc_model, not both")
	}
	if (a.IPCModel == "") != (a.IPCSamples == "") {
		return bad("aggregate.ipc_model", "aggregate.ipc_model and aggregate.ipc_samples go together")
	}
	var err error
	switch {
	case a.IPC != "":
		if a.ipc, err = aggregate.ParseIPC(a.IPC); err != nil {
			return bad("aggregate.ipc", "%v", err)
		}
	case a.IPCModel != "":
		for _, f := range [][2]string{{"aggregate.ipc_model", a.IPCModel}, {"aggregate.ipc_samples", a.IPCSamples}} {
			if err := s.checkReopenable(f[0], f[1]); err != nil {
				return err
			}
		}
		if a.ipc, _, err = models.PredictIPCFiles(s.path(a.IPCModel), s.path(a.IPCSamples), ""); err != nil {
			return bad("aggregate.ipc_model", "%v", err)
		}
	}
	if a.ipc != nil {
		for i := range s.Machines {
			m := &s.Machines[i]
			for _, p := range a.patterns(m) {
				if v, ok := a.ipc[p.ID]; !ok || !(v > 0) {
					return bad("aggregate.ipc", "machine %s: no positive IPC for pattern %d (the reference P1 and every pattern swept need one)", m.Name, p.ID)
				}
			}
			if !(a.ipc[1] > 0) {
				return bad("aggregate.ipc", "no positive IPC for the reference pattern 1")
			}
		}
	}
	return nil
}

// topology is machine m's node as [aggregate] splits it.
func (a *Aggregate) topology(m *Machine) aggregate.Topology {
	return aggregate.Topology{Sockets: m.SocketsPerNode, DiesPerSocket: a.DiesPerSocket, CoresPerDie: m.CoresPerSocket / a.DiesPerSocket,
		MemoryBytes: int64(a.NodeMemGB * (1 << 30))}
}

// patterns lists the patterns swept on machine m, by number.
func (a *Aggregate) patterns(m *Machine) []aggregate.Pattern {
	all, err := aggregate.Patterns(a.topology(m))
	if err != nil { // checked by normalizeAggregate
		return nil
	}
	if len(a.Patterns) == 0 {
		return all
	}
	var out []aggregate.Pattern
	for _, p := range all {
		for _, id := range a.Patterns {
			if p.ID == id {
				out = append(out, p)
			}
		}
	}
	return out
}

// pattern returns pattern id of machine m.
func (a *Aggregate) pattern(m *Machine, id int) (aggregate.Pattern, bool) {
	for _, p := range a.patterns(m) {
		if p.ID == id {
			return p, true
		}
	}
	return aggregate.Pattern{}, false
}

// classes returns the LogGOPS parameters of every placement class: the
// network's across nodes, the intra defaults with Intra and the per-class
// tables inside a node.
func (a *Aggregate) classes(net network.LogGOPS) aggregate.Classes {
	intra := net
	intra.Latency, intra.Overhead, intra.Gap, intra.GapPerByte = 300, 200, 0, network.NsPerByte(1)
	intra = a.Intra.over(intra)
	var c aggregate.Classes
	c[aggregate.SameDie] = a.SameDie.over(intra)
	c[aggregate.SameSocket] = a.SameSocket.over(intra)
	c[aggregate.CrossSocket] = a.CrossSocket.over(intra)
	c[aggregate.InterNode] = net
	return c
}

// config is the what-if setting of machine m.
func (a *Aggregate) config(m *Machine, net network.LogGOPS) aggregate.Config {
	return aggregate.Config{Topology: a.topology(m), Nodes: m.Nodes, TaskMemBytes: int64(a.TaskMemGB * (1 << 30)),
		IPC: a.ipc, Net: a.classes(net), Threshold: aggregate.DefaultThreshold, ExhaustiveLimit: a.Exhaustive}
}

// fitsAggregate checks that some pattern can hold the workload's ranks
// on machine m: at most nodes × cores of them.
func (sc *Scenario) fitsAggregate(m *Machine, g *graph.Graph) error {
	if n := g.NumRanks(); n > m.Nodes*m.SocketsPerNode*m.CoresPerSocket {
		return fmt.Errorf("%s: the workload has %d ranks but machine %s has %d cores (%d nodes × %d sockets × %d cores): no aggregation pattern holds them",
			sc.File, n, m.Name, m.Nodes*m.SocketsPerNode*m.CoresPerSocket, m.Nodes, m.SocketsPerNode, m.CoresPerSocket)
	}
	return nil
}

// evaluateAggregate replays each point's pattern: the ranks grouped into
// nodes and cores (aggregate.Place), each message priced by its placement
// class, compute scaled by IPC[1]/IPC[p] (through the machine's
// compute_speed_factor), the used nodes' power from the machine's model
// and SleepPowerW for each unused node. An infeasible pattern's point is
// emitted with null metrics.
func (sc *Scenario) evaluateAggregate(ctx context.Context, m *Machine, g *graph.Graph, net network.LogGOPS, pts []Point, emit func(Point, Metrics) error) error {
	a := sc.Aggregate
	cfg := a.config(m, net)
	w := aggregate.FromGraph(g)
	for _, p := range pts {
		if err := ctx.Err(); err != nil {
			return err
		}
		if p.Done {
			continue
		}
		pat, ok := a.pattern(m, p.Pattern)
		if !ok {
			return fmt.Errorf("machine %s has no aggregation pattern %d", m.Name, p.Pattern)
		}
		e, err := aggregate.Place(w, cfg, pat)
		if err != nil {
			return err
		}
		if e.Err != nil {
			if err := emit(p, Metrics{Infeasible: true}); err != nil {
				return err
			}
			continue
		}
		mm := *m
		mm.Nodes, mm.RanksPerNode = e.Nodes, pat.TasksPerNode()
		if a.ipc != nil {
			mm.SpeedFactor *= a.ipc[1] / a.ipc[pat.ID]
		}
		met, _, err := sc.replay(g, &mm, net, aggregate.PlacementClasses(g, e, cfg.Net), p.Policy, p.CapW)
		if err != nil {
			return fmt.Errorf("pattern %v: %w", pat, err)
		}
		sleep := float64(m.Nodes-e.Nodes) * a.SleepPowerW
		met.EnergyJ += sleep * float64(met.MakespanNs) / 1e9
		met.AvgPowerW += sleep
		met.PeakPowerW += sleep
		met.Nodes = e.Nodes
		if err := emit(p, met); err != nil {
			return err
		}
	}
	return nil
}

// aggregateColumns are the results columns of an [aggregate] sweep,
// after the parameter axes.
func aggregateColumns() results.Schema {
	return results.Schema{{Name: "pattern", Type: results.Int64}, {Name: "layout", Type: results.String},
		{Name: "tasks_per_node", Type: results.Int64}, {Name: "nodes", Type: results.Int64}}
}

// aggregateValues are the values of aggregateColumns for point p.
func (s *Scenario) aggregateValues(p Point, m Metrics) []any {
	pat, _ := s.Aggregate.pattern(&s.Machines[p.Machine], p.Pattern)
	var nodes any
	if !m.Infeasible {
		nodes = int64(m.Nodes)
	}
	return []any{int64(pat.ID), fmt.Sprintf("%dx%dx%d", pat.Sockets, pat.Dies, pat.Cores), int64(pat.TasksPerNode()), nodes}
}

// aggregateSection is the report's section of an [aggregate] sweep: per
// machine and parameter values, every pattern's nodes, replayed makespan
// and energy against the reference P1, and the two choices on the
// replayed times: Eq. 4.5 with the 5 % threshold and the thesis's ranking
// (fewer nodes, then processors, then dies), and the least energy within
// the threshold; with a figure of makespan and energy per pattern.
func aggregateSection(s results.Schema, rows []results.Row, unit string) (report.Section, bool, error) {
	v := newView(s)
	cp, cl, ck, cn := s.Index("pattern"), s.Index("layout"), s.Index("tasks_per_node"), s.Index("nodes")
	if cp < 0 || cl < 0 || ck < 0 || cn < 0 {
		return report.Section{}, false, nil
	}
	_, ns := report.ResultsTimeUnit(s, rows)
	sec := report.Section{Heading: "Aggregation patterns (Li, 2011, Ch. 4)",
		Text: "Each pattern replayed on the engine, with messages priced by where their ranks sit and unused nodes in deep sleep. " +
			"Δt is Eq. 4.5 on the replayed makespans against P1 (one task per node); candidates are within 5 % of P1's time. " +
			"\"rule\" marks the thesis's choice among them (fewer nodes, then fewer processors, then fewer dies), \"energy\" the least energy.",
		Columns: []string{"machine", "parameters", "pattern", "sockets×dies×cores", "tasks/node", "nodes", "makespan (" + unit + ")", "Δt (%)", "energy (J)", "energy vs P1 (%)", "choice"}}
	type grp struct {
		machine, params string
		rows            []results.Row
	}
	var gs []*grp
	byKey := map[string]*grp{}
	for _, r := range rows {
		k := v.str(r, v.machine) + "\x00" + v.paramKey(r)
		if byKey[k] == nil {
			byKey[k] = &grp{machine: v.str(r, v.machine), params: v.paramKey(r)}
			gs = append(gs, byKey[k])
		}
		byKey[k].rows = append(byKey[k].rows, r)
	}
	intOf := func(r results.Row, c int) int {
		x, _ := v.num(r, c)
		return int(x)
	}
	var names []string
	tpts, epts := map[string]plotter.XYs{}, map[string]plotter.XYs{}
	trel, erel := map[string]plotter.XYs{}, map[string]plotter.XYs{}
	relative := true // every group has P1: plot against it
	for _, g := range gs {
		sort.SliceStable(g.rows, func(i, j int) bool { return intOf(g.rows[i], cp) < intOf(g.rows[j], cp) })
		es := make([]aggregate.Estimate, len(g.rows))
		var ref *results.Row
		for i, r := range g.rows {
			var lay [3]int
			for j, f := range strings.Split(v.str(r, cl), "x") {
				if j < 3 {
					lay[j], _ = strconv.Atoi(f)
				}
			}
			es[i].Pattern = aggregate.Pattern{ID: intOf(r, cp), Sockets: lay[0], Dies: lay[1], Cores: lay[2]}
			t, ok := v.num(r, v.makespan)
			if !ok {
				es[i].Err = fmt.Errorf("infeasible")
				continue
			}
			es[i].Nodes = intOf(r, cn)
			es[i].CompNs = t
			es[i].EnergyJ, _ = v.num(r, v.energy)
			if es[i].Pattern.ID == 1 {
				ref = &g.rows[i]
			}
		}
		rule, least := -1, -1
		var t0, e0 float64
		relative = relative && es[0].Pattern.ID == 1 && es[0].Err == nil && es[0].CompNs > 0 && es[0].EnergyJ > 0
		if ref != nil && es[0].Pattern.ID == 1 && es[0].Err == nil {
			t0, e0 = es[0].CompNs, es[0].EnergyJ
			for i := range es {
				if es[i].Err == nil {
					es[i].DeltaNs = aggregate.Delta(es[0], es[i])
					es[i].Candidate = es[i].DeltaNs <= aggregate.DefaultThreshold*t0
				}
			}
			rule = aggregate.Select(es, aggregate.DefaultThreshold)
			least = aggregate.SelectEnergy(es, aggregate.DefaultThreshold)
		}
		name := g.machine
		if g.params != "" {
			name += " " + g.params
		}
		names = append(names, name)
		for i, r := range g.rows {
			e := es[i]
			row := []string{g.machine, g.params, fmt.Sprintf("P%d", e.Pattern.ID), v.str(r, cl), strconv.Itoa(intOf(r, ck))}
			if e.Err != nil {
				sec.Rows = append(sec.Rows, append(row, "infeasible", "", "", "", "", ""))
				continue
			}
			dt, de := "", ""
			if t0 > 0 {
				dt = fmt.Sprintf("%+.2f", 100*e.DeltaNs/t0)
			}
			if e0 > 0 {
				de = fmt.Sprintf("%+.2f", 100*(e.EnergyJ/e0-1))
			}
			var choice []string
			if i == rule {
				choice = append(choice, "rule")
			}
			if i == least {
				choice = append(choice, "energy")
			}
			sec.Rows = append(sec.Rows, append(row, strconv.Itoa(e.Nodes), fmt.Sprintf("%.4g", e.CompNs/ns), dt,
				fmt.Sprintf("%.4g", e.EnergyJ), de, strings.Join(choice, ", ")))
			tpts[name] = append(tpts[name], plotter.XY{X: float64(e.Pattern.ID), Y: e.CompNs / ns})
			epts[name] = append(epts[name], plotter.XY{X: float64(e.Pattern.ID), Y: e.EnergyJ})
			if t0 > 0 && e0 > 0 {
				trel[name] = append(trel[name], plotter.XY{X: float64(e.Pattern.ID), Y: e.CompNs / t0})
				erel[name] = append(erel[name], plotter.XY{X: float64(e.Pattern.ID), Y: e.EnergyJ / e0})
			}
		}
	}
	var figs []report.Figure
	tl, el := "makespan ("+unit+")", "energy (J)"
	if relative {
		tpts, epts, tl, el = trel, erel, "makespan / P1's", "energy / P1's"
	}
	for _, f := range []struct {
		name, title, ylabel string
		pts                 map[string]plotter.XYs
	}{{"aggregate_makespan", "Makespan per aggregation pattern", tl, tpts},
		{"aggregate_energy", "Energy per aggregation pattern (unused nodes asleep)", el, epts}} {
		fig, err := report.Lines(f.name, f.title, "pattern", f.ylabel, names, f.pts)
		if err != nil {
			return report.Section{}, false, err
		}
		fig.Plot.X.Tick.Marker = patternTicks{}
		fig.Plot.Y.Tick.Marker = decimalTicks{}
		figs = append(figs, fig)
	}
	sec.Figures = figs
	return sec, true, nil
}

// decimalTicks are gonum's default ticks labelled with as many decimals
// as their spacing needs (the default labels round to significant digits:
// 1.04 printed as "1" beside 0.96).
type decimalTicks struct{}

// Ticks implements plot.Ticker.
func (decimalTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	prec := 0
	for ; prec < 12; prec++ { // the fewest decimals that write every label exactly
		exact := true
		for _, t := range ts {
			if t.Label == "" {
				continue
			}
			v, _ := strconv.ParseFloat(strconv.FormatFloat(t.Value, 'f', prec, 64), 64)
			exact = exact && math.Abs(v-t.Value) <= 1e-9*math.Max(1, math.Abs(t.Value))
		}
		if exact {
			break
		}
	}
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', prec, 64)
		}
	}
	return ts
}

// patternTicks label every whole pattern number.
type patternTicks struct{}

// Ticks implements plot.Ticker.
func (patternTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for v := math.Ceil(lo); v <= hi; v++ {
		ts = append(ts, plot.Tick{Value: v, Label: "P" + strconv.Itoa(int(v))})
	}
	return ts
}
