package scenarios

import (
	"context"
	"fmt"
	"math"

	"github.com/capsim/capsim/internal/units"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/energy"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/mpi"
)

// MaxFrontierPoints is the most deadlines a frontier is solved at: each
// is an LP solve, and 10^8 of them ran until killed.
const MaxFrontierPoints = 10000

// FrontierConfig is what RunFrontier computes: the energy–time frontier
// of a workload on a machine (capsim frontier).
type FrontierConfig struct {
	// Machine is the scenario's machine to run on (Scenario.MachineByName).
	Machine *Machine
	// Trace is the MPI trace; Graph, where Trace is nil, the execution
	// graph (its LP the bound's, over the engine's semantics); both nil
	// take the scenario's workload.
	Trace *mpi.Trace
	Graph *graph.Graph
	// Collectives are the trace format's own collective algorithms, used
	// for the kinds the scenario's network.collectives leaves out.
	Collectives map[mpi.Kind]string
	// TablePath, where set, is a configuration table (compute/table CSV)
	// giving every compute task its configurations instead of the
	// machine's P-states.
	TablePath string
	// CapW, when positive, is a power cap every schedule keeps too: the
	// job's, or each node's where the scenario's sweep.cap_scope is node.
	CapW float64
	// Points is how many deadlines the frontier is solved at, 2 to
	// MaxFrontierPoints.
	Points int
	// TracePath and Import are the file Trace or Graph was read from and
	// how (BoundConfig's): a deadlock of the reference replay then names
	// its operations as that file does.
	TracePath string
	Import    importer.Options
}

// FrontierPoint is one deadline of the frontier and the least energy of
// a schedule that keeps the trace's order and ends by it.
type FrontierPoint struct {
	DeadlineNs int64   `json:"deadline_ns"`
	EnergyJ    float64 `json:"energy_j"`
}

// FrontierReport is what RunFrontier found (capsim frontier --json).
type FrontierReport struct {
	Machine string  `json:"machine"`
	Ranks   int     `json:"ranks"`
	CapW    float64 `json:"cap_w,omitempty"`
	// Points are the frontier at the least makespan and at whole
	// nanoseconds evenly spaced from there to the least deadline that
	// reaches the least energy: Points many, fewer where the frontier
	// spans fewer nanoseconds, one where the least makespan reaches it.
	Points []FrontierPoint `json:"points"`
	// ByBudget is the frontier read the other way: at energy budgets
	// evenly spaced from the least energy to the fastest schedule's, the
	// least makespan (solved, not interpolated); one budget where the two
	// energies are equal within the LP solver's tolerance.
	ByBudget []FrontierPoint `json:"by_budget"`
	// FastestNs and FastestEnergyJ are the fastest schedule's: every task
	// at its fastest configuration, as soon as possible (under a cap, it
	// may exceed the cap).
	FastestNs      int64   `json:"fastest_ns"`
	FastestEnergyJ float64 `json:"fastest_energy_j"`
	// LeastNs is the least makespan of the order within the cap, where
	// the frontier starts: FastestNs without a cap.
	LeastNs int64 `json:"least_ns"`
	// SavedPct0 and SavedPct5 are the energy the frontier saves against
	// the fastest schedule, in percent of its energy, at the least
	// makespan (under a cap, the least that keeps it) and at 5 % longer.
	SavedPct0 float64 `json:"saved_pct_at_0"`
	SavedPct5 float64 `json:"saved_pct_at_5"`
	// LP is the size of the frontier's LP once every point is solved.
	LP FrontierLP `json:"lp"`
}

// FrontierLP is the size of a frontier's LP (energy.Stats).
type FrontierLP struct {
	// TimeColumns are the events that keep a time column, Columns every
	// column (the tasks' fractions too), Rows the energy LP's rows.
	TimeColumns int `json:"time_columns"`
	Columns     int `json:"columns"`
	Rows        int `json:"rows"`
	// RowsAdded are the rows found on demand, in Rounds solves whose
	// solutions broke them.
	RowsAdded int `json:"rows_added"`
	Rounds    int `json:"rounds"`
	// Arcs and Pivots, without a cap, are the minimum-cost flow's arcs
	// and its network simplex's pivots (the LP's dual, solved in its
	// place; Columns and Rows are the LP's size then).
	Arcs   int `json:"arcs,omitempty"`
	Pivots int `json:"pivots,omitempty"`
}

// RunFrontier computes the energy–time frontier of the fixed-event-order
// LP (optimize/energy) of the workload on cfg.Machine: the LP's DAG and
// event order are the bound's (RunBound), with the machine's base power
// (its GPUs' idle power included).
func (sc *Scenario) RunFrontier(ctx context.Context, cfg FrontierConfig) (*FrontierReport, error) {
	if cfg.Points < 2 || cfg.Points > MaxFrontierPoints {
		return nil, fmt.Errorf("frontier: %d points: want 2 to %d", cfg.Points, MaxFrontierPoints)
	}
	f, r, err := sc.newFrontier(cfg)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rep := &FrontierReport{Machine: r.m.Name, Ranks: r.g.NumRanks(), CapW: cfg.CapW}
	if err := frontierCurve(ctx, f, cfg.Points, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// newFrontier builds the frontier's LP of cfg (RunFrontier) and returns it
// with the run that built its DAG and order; the caller closes it.
func (sc *Scenario) newFrontier(cfg FrontierConfig) (*energy.Frontier, *boundRun, error) {
	r, err := sc.frontierDAG(cfg)
	if err != nil {
		return nil, nil, err
	}
	return r.frontier(cfg)
}

// frontierDAG builds the DAG and order of cfg's frontier (the bound's).
func (sc *Scenario) frontierDAG(cfg FrontierConfig) (*boundRun, error) {
	r := &boundRun{sc: sc, m: cfg.Machine, net: sc.Net(),
		cfg: BoundConfig{Machine: cfg.Machine, Trace: cfg.Trace, Graph: cfg.Graph, Collectives: cfg.Collectives, TablePath: cfg.TablePath,
			TracePath: cfg.TracePath, Import: cfg.Import}}
	if err := r.lower(); err != nil {
		return nil, err
	}
	if err := r.buildLP(); err != nil {
		return nil, err
	}
	return r, nil
}

// frontier builds the frontier's LP of cfg over r's DAG and order
// (frontierDAG).
func (r *boundRun) frontier(cfg FrontierConfig) (*energy.Frontier, *boundRun, error) {
	opt := energy.Options{BaseW: r.m.lpBaseW()}
	if cfg.CapW > 0 {
		opt.CapW, opt.NodeOf = r.sc.lpCapOf(r.m, cfg.CapW), r.sc.lpNodeOf(r.m, r.d)
		if err := r.capFits(cfg.CapW, opt.NodeOf); err != nil {
			return nil, nil, err
		}
	}
	f, err := energy.New(r.d, r.o, opt)
	if err != nil {
		return nil, nil, fmt.Errorf("frontier: %w", err)
	}
	return f, r, nil
}

// capFits checks that the order has a schedule within capW, the job's
// cap or each node's (nodeOf), and otherwise names the least cap it needs,
// as capsim bound does.
func (r *boundRun) capFits(capW float64, nodeOf []int) error {
	least, at, err := bound.MinFeasibleNodeCap(r.d, r.o, nodeOf)
	if err != nil {
		return fmt.Errorf("frontier: %w", err)
	}
	base := r.sc.lpBaseOf(r.m)
	if capW-base >= least-1e-9 && capW > base {
		return nil
	}
	what := ""
	if nodeOf != nil {
		what = " on every node"
	}
	return fmt.Errorf("frontier: power cap %g W is below the least power the schedule needs%s: %.6g W (event %d runs %d tasks at their slowest)",
		capW, what, least+base, at, len(r.o.Active(r.d, at)))
}

// frontierCurve fills rep from f: the curve both ways and the headline.
func frontierCurve(ctx context.Context, f *energy.Frontier, n int, rep *FrontierReport) error {
	slow, _, err := f.Slowest()
	if err != nil {
		return fmt.Errorf("frontier: %w", err)
	}
	ts := wholeNsDeadlines(f.Fastest(), slow, n)
	es := make([]float64, len(ts))
	rep.Points = make([]FrontierPoint, len(ts))
	// From the slowest down, as energy.Curve: Slowest left the basis at
	// the least energy, and each deadline is a step from the last.
	for j := len(ts) - 1; j >= 0; j-- {
		if err := ctx.Err(); err != nil {
			return err
		}
		if es[j], err = f.EnergyAt(ts[j]); err != nil {
			return fmt.Errorf("frontier: %w", err)
		}
		if rep.Points[j], err = frontierPoint(ts[j], es[j]); err != nil {
			return err
		}
	}
	least, fastE := es[len(es)-1], f.FastestEnergy()
	if start := es[0]; fastE < start {
		fastE = start // under a cap: the capped curve's start, the fastest schedule's energy may be less
	}
	for _, b := range budgets(least, fastE, 1e-6*f.Scale(), n) {
		if err := ctx.Err(); err != nil {
			return err
		}
		t, err := f.TimeFor(b)
		if err != nil {
			return fmt.Errorf("frontier: %w", err)
		}
		fp, err := frontierPoint(t, b)
		if err != nil {
			return err
		}
		rep.ByBudget = append(rep.ByBudget, fp)
	}
	if rep.FastestNs, err = graph.SecondsToNs(f.FastestMakespan()); err != nil {
		return fmt.Errorf("frontier: fastest schedule: %w", err)
	}
	if rep.LeastNs, err = graph.SecondsToNs(f.Fastest()); err != nil {
		return fmt.Errorf("frontier: least makespan: %w", err)
	}
	rep.FastestEnergyJ = units.Joules(f.FastestEnergy())
	for _, s := range []struct {
		slow float64
		pct  *float64
	}{{0, &rep.SavedPct0}, {0.05, &rep.SavedPct5}} {
		p, err := f.SavedPct(s.slow)
		if err != nil {
			return fmt.Errorf("frontier: %w", err)
		}
		*s.pct = units.Pct(p)
	}
	st := f.Stats()
	rep.LP = FrontierLP{TimeColumns: st.TimeColumns, Columns: st.Columns, Rows: st.Rows, RowsAdded: st.Added, Rounds: st.Rounds, Arcs: st.Arcs, Pivots: st.Pivots}
	return nil
}

// budgets are the energy budgets, in joules, of the curve read the other
// way: n evenly spaced from the least energy least to fastE, the first
// raised by slack (the least energy within the LP solver's tolerance) and
// those not above it left out, so that they increase; least + slack alone
// where fastE is not above it.
func budgets(least, fastE, slack float64, n int) []float64 {
	bs := []float64{least + slack}
	for j := 1; j < n; j++ {
		if b := least + (fastE-least)*float64(j)/float64(n-1); b > bs[0] {
			bs = append(bs, b)
		}
	}
	return bs
}

// wholeNsDeadlines are the deadlines, in seconds, a curve of n points is
// solved at: the least makespan fast, then whole nanoseconds evenly spaced
// up to the slowest slow (rounded), so that no two points print the same
// deadline; fewer where the curve spans fewer nanoseconds, and fast alone
// where the ends meet (within energy.Curve's 10⁻⁹ of fast, or 1 ns).
func wholeNsDeadlines(fast, slow float64, n int) []float64 {
	fastNs, slowNs := math.Round(fast*1e9), math.Round(slow*1e9)
	span := slowNs - fastNs
	if !(slow > fast*(1+1e-9)) || !(span >= 1) {
		return []float64{fast}
	}
	n = int(math.Min(float64(n), span+1))
	ts := make([]float64, n)
	ts[0] = fast
	for j := 1; j < n; j++ {
		ts[j] = (fastNs + math.Round(span*float64(j)/float64(n-1))) / 1e9
	}
	return ts
}

// frontierPoint is a deadline in seconds and an energy in joules as the
// report writes them.
func frontierPoint(deadline, energyJ float64) (FrontierPoint, error) {
	ns, err := graph.SecondsToNs(deadline)
	if err != nil {
		return FrontierPoint{}, fmt.Errorf("frontier: deadline: %w", err)
	}
	if math.IsNaN(energyJ) || math.IsInf(energyJ, 0) {
		return FrontierPoint{}, fmt.Errorf("frontier: energy %g J at %d ns", energyJ, ns)
	}
	return FrontierPoint{DeadlineNs: ns, EnergyJ: units.Joules(energyJ)}, nil
}
