package scenarios

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// Check runs every check a sweep runs before its first point, so that
// `capsim scenario check` accepts exactly what `capsim sweep` can run:
// each distinct workload of the sweep is built (the trace file read, or
// the generator run, and lowered with the scenario's collective
// algorithms), its rank count is checked against every machine's process
// grid and the network topology's mapping (a mapping file read), its
// communication classes against the network overrides, and every policy
// against the workload's kind (lp and min-energy on an execution graph
// need the engine LP, conductor under per-node caps an execution graph;
// the LP policies need the LP solver). Run calls it (through Replayer, a
// Checker) before opening the results directory.
func (sc *Scenario) Check() error {
	if err := sc.policyKeysUsed(); err != nil {
		return err
	}
	type built struct {
		t   *mpi.Trace
		g   *graph.Graph
		err error
	}
	workloads := map[string]*built{}
	checked := map[string]bool{}
	for _, p := range sc.Points() {
		psc, params := sc.at(p.Params)
		if err := psc.Machines[p.Machine].coreIdleBelowActive(); err != nil {
			// An axis of machine.core_idle_power_w: Parse checked the
			// file's own value.
			return sc.keyError("sweep.params.machine.core_idle_power_w", err.Error())
		}
		key := fmt.Sprint(params) // fmt sorts map keys
		w := workloads[key]
		if w == nil {
			w = &built{}
			w.t, w.g, w.err = psc.build(params)
			if w.err == nil {
				_, w.err = psc.Classes(w.g, w.t)
			}
			workloads[key] = w
		}
		if w.err != nil {
			return withParams(w.err, params)
		}
		if ck := fmt.Sprint(p.Machine, p.Policy, key); !checked[ck] {
			checked[ck] = true
			check := psc.fits(&psc.Machines[p.Machine], w.t, w.g, p.Policy)
			if p.Pattern > 0 {
				check = psc.fitsAggregate(&psc.Machines[p.Machine], w.g)
			}
			if err := check; err != nil {
				return withParams(err, params)
			}
		}
	}
	return nil
}

// policyKeysUsed refuses a key of [sweep] that only a policy the sweep
// does not run reads: sweep.slowdown_pct is the min-energy policy's
// deadline, and a sweep without it would run as if the key were absent.
// 'capsim policy min-energy --scenario' reads it whatever sweep.policies
// lists, so Parse accepts it.
func (sc *Scenario) policyKeysUsed() error {
	if sc.setInText("sweep", "slowdown_pct") && !slices.Contains(sc.Sweep.Policies, policy.MinEnergy) {
		return sc.keyError("sweep.slowdown_pct", fmt.Sprintf("the min-energy policy's deadline, but sweep.policies (%s) does not run min-energy, so no point would read it: add min-energy to sweep.policies, or leave the key out",
			strings.Join(sc.Sweep.Policies, ", ")))
	}
	return nil
}

// withParams names the workload parameters an error arose at, if any.
func withParams(err error, params map[string]any) error {
	if len(params) == 0 {
		return err
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		v := fmt.Sprint(params[k])
		if s, ok := params[k].(string); ok {
			v = strconv.Quote(s)
		}
		keys[i] = k + " = " + v
	}
	return fmt.Errorf("at the sweep point %s: %w", strings.Join(keys, ", "), err)
}

// fits checks that the workload (t, its graph g; t is nil for an
// execution-graph workload) can run on machine m under policy.
func (sc *Scenario) fits(m *Machine, t *mpi.Trace, g *graph.Graph, pol string) error {
	if err := m.FitGraph(g, true); err != nil {
		var ce *CoresError
		if errors.As(err, &ce) && sc.Workload.Trace != "" {
			err = fmt.Errorf("workload.trace %s: %w", sc.Workload.Trace, err)
		}
		for i := range sc.Machines {
			if &sc.Machines[i] == m {
				e := sc.badAt("machine", i, "", -1, "ranks_per_node", "%v", err).(*ParseError)
				e.File, e.Err = sc.File, err
				return e
			}
		}
		return fmt.Errorf("%s: %w", sc.File, err)
	}
	if err := sc.acceleratorsSelect(m, g); err != nil {
		return err
	}
	if sc.set != nil {
		// A misspelt pattern of models.file, its region left to no
		// model (compute.Set.CheckUnpriced).
		if err := sc.set.CheckUnpriced(g); err != nil {
			return sc.keyError("models.file", fmt.Sprintf("%s: %v", sc.Models.File, err))
		}
	}
	if err := sc.capScopeFits(pol, t != nil); err != nil {
		return err
	}
	// The topology's mapping of these ranks (a mapping file read whole:
	// every line a node of the topology, one per rank).
	if _, err := sc.flowNetwork(m, g.NumRanks()); err != nil {
		return err
	}
	if policy.IsOnDAG(pol) {
		if t == nil && plansOnGraph(pol) {
			if err := sc.graphLPFits(pol); err != nil {
				return err
			}
		} else if t == nil && pol != policy.Conductor {
			return fmt.Errorf("%s: policy %s needs an MPI-trace workload (the LP and Conductor work on the DAG of its MPI calls); this workload is an execution graph or GOAL file: drop %s from sweep.policies",
				sc.File, pol, pol)
		}
		if policy.NeedsSolver(pol) && !clp.Available() {
			return fmt.Errorf("%s: policy %s: %w", sc.File, pol, clp.ErrNoSolver)
		}
	}
	return nil
}

// Check is Scenario.Check: Replayer is a Checker.
func (Replayer) Check(sc *Scenario) error { return sc.Check() }

// acceleratorsSelect refuses an accelerator of m whose regions glob
// matches no compute region of the workload's graph g: a misspelt glob
// would leave every region on the CPU, the machine silently its
// accelerator-less twin. Each accelerator is checked, and so is each
// matched region's model: one that cannot run on the accelerator's
// device (a device its profile lacks, a host-only model) is refused at
// the accelerator's name, as the sweep would refuse it at its first point.
func (sc *Scenario) acceleratorsSelect(m *Machine, g *graph.Graph) error {
	i := slices.IndexFunc(sc.Machines, func(o Machine) bool { return o.Name == m.Name })
	bad := func(k int, key, format string, a ...any) error {
		pe := sc.badAt("machine", i, "accelerator", k, key, format, a...)
		pe.(*ParseError).File = sc.File
		return pe
	}
	for k, acc := range m.Accelerators {
		var names []string
		matched := false
		for _, name := range g.Regions {
			if name == "" {
				continue
			}
			if ok, _ := path.Match(acc.Regions, name); !ok {
				names = append(names, strconv.Quote(name))
				continue
			}
			matched = true
			if err := sc.runsOn(m, name, acc.Name); err != nil {
				return bad(k, "name", "machine %s: accelerator %s: region %q (regions %q): %v", m.Name, acc.Name, name, acc.Regions, err)
			}
		}
		if !matched {
			return bad(k, "regions", "machine %s: accelerator %s: regions %q matches no region of the workload (its regions: %s)",
				m.Name, acc.Name, acc.Regions, strings.Join(names, ", "))
		}
	}
	return nil
}

// runsOn says why region's model of models.file cannot price it on device
// of machine m at its fastest P-state, or nil (also without a model file,
// or without a model for the region, which CheckUnpriced reports).
func (sc *Scenario) runsOn(m *Machine, region, device string) error {
	if sc.set == nil || len(m.PStates) == 0 {
		return nil
	}
	model, _, err := sc.set.Lookup(region)
	if err != nil || model == nil {
		return nil
	}
	_, err = model.Predict(compute.Work{Seconds: 1, At: sc.set.Recorded}, deviceTarget(m.PStates[0].FreqGHz, device, sc.set.Recorded))
	if err != nil {
		return fmt.Errorf("%s (%s model): %w", sc.path(sc.Models.File), model.Kind(), err)
	}
	return nil
}
