package scenarios

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/network"
)

// Scenario-level sweep axes. A sweep.params key without a dot is a
// workload generator parameter; a dotted key names a scalar of the
// scenario itself, so a sweep can vary the network, the compute model or
// the machine's power and speed:
//
//	[sweep.params]
//	"network.L_ns" = [1000, 2500, 5000]
//	"models.memory_boundness" = [0.1, 0.3, 0.5]
//	"machine.compute_speed_factor" = [0.5, 1.0]
type axis struct {
	doc   string
	check func(v float64) string // "" when v is allowed
	set   func(sc *Scenario, v float64)
}

func nonNegInt(v float64) string {
	if v < 0 || v != math.Trunc(v) || v > 1e15 {
		return "must be an integer ≥ 0"
	}
	return ""
}

// headerAxis checks a header size in bytes (network.LogGOPS.HeaderBytes).
func headerAxis(v float64) string {
	if v < 0 || v != math.Trunc(v) || v > network.MaxHeaderBytes {
		return fmt.Sprintf("must be an integer in 0..%d", int64(network.MaxHeaderBytes))
	}
	return ""
}

// perByteAxis checks a time per byte in ns (network.PerByteFromFloat).
func perByteAxis(v float64) string {
	if !(v >= 0) {
		return "must be a number ≥ 0"
	}
	if _, err := network.PerByteFromFloat(v); err != nil {
		return err.Error()
	}
	return ""
}

// watts checks a power (power.CheckWatts).
func watts(v float64) string {
	if err := power.CheckWatts(v, false); err != nil {
		return err.Error()
	}
	return ""
}

var scenarioAxes = map[string]axis{
	"network.L_ns":                 {"latency", nonNegInt, func(sc *Scenario, v float64) { sc.Network.LNs = Ns(v) }},
	"network.o_ns":                 {"CPU overhead per message", nonNegInt, func(sc *Scenario, v float64) { sc.Network.ONs = Ns(v) }},
	"network.g_ns":                 {"NIC gap per message", nonNegInt, func(sc *Scenario, v float64) { sc.Network.GapNs = Ns(v) }},
	"network.G_ns_per_byte":        {"gap per byte", perByteAxis, func(sc *Scenario, v float64) { sc.Network.GNsPerByte, _ = network.PerByteFromFloat(v) }},
	"network.O_ns_per_byte":        {"CPU overhead per byte", perByteAxis, func(sc *Scenario, v float64) { sc.Network.ONsPerByte, _ = network.PerByteFromFloat(v) }},
	"network.S_bytes":              {"eager limit", nonNegInt, func(sc *Scenario, v float64) { sc.Network.SBytes = int64(v) }},
	"network.H_bytes":              {"header bytes per message", headerAxis, func(sc *Scenario, v float64) { sc.Network.HBytes = int64(v) }},
	"models.memory_boundness":      {"DVFS memory-bound share", func(v float64) string { return within(v, 0, 1) }, func(sc *Scenario, v float64) { sc.Models.MemoryBoundness = v }},
	"machine.compute_speed_factor": {"compute time multiplier", func(v float64) string { return positive(v) }, func(sc *Scenario, v float64) { forMachines(sc, func(m *Machine) { m.SpeedFactor = v }) }},
	"machine.idle_power_w":         {"socket idle power", watts, func(sc *Scenario, v float64) { forMachines(sc, func(m *Machine) { m.IdlePowerW = v }) }},
	"machine.core_idle_power_w":    {"waiting core power", watts, func(sc *Scenario, v float64) { forMachines(sc, func(m *Machine) { m.CoreIdlePowerW = v }) }},
}

func within(v, lo, hi float64) string {
	if !(v >= lo && v <= hi) {
		return fmt.Sprintf("must be in [%g, %g]", lo, hi)
	}
	return ""
}

func positive(v float64) string {
	if !(v > 0) || math.IsInf(v, 0) {
		return "must be a number > 0"
	}
	return ""
}

func forMachines(sc *Scenario, f func(m *Machine)) {
	for i := range sc.Machines {
		f(&sc.Machines[i])
	}
}

// ScenarioAxes lists the dotted sweep.params keys a sweep can vary.
func ScenarioAxes() []string {
	keys := make([]string, 0, len(scenarioAxes))
	for k := range scenarioAxes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkAxis validates the values of sweep.params key k when k is a
// scenario axis.
func checkAxis(k string, vs []any) error {
	if !strings.Contains(k, ".") {
		return nil
	}
	ax, ok := scenarioAxes[k]
	if !ok {
		return bad("sweep.params."+k, "%q is not a workload parameter (no dot) nor a scenario axis (%s)", k, strings.Join(ScenarioAxes(), ", "))
	}
	for _, v := range vs {
		var x float64
		switch n := v.(type) {
		case int64:
			x = float64(n)
		case float64:
			x = n
		default:
			return bad("sweep.params."+k, "%v is not a number", v)
		}
		if msg := ax.check(x); msg != "" {
			return bad("sweep.params."+k, "%s %s, got %v", ax.doc, msg, v)
		}
	}
	return nil
}

// at returns the scenario with the scenario axes of a point's parameter
// values applied (a copy when any applies) and the remaining, workload
// parameters.
func (sc *Scenario) at(params map[string]any) (*Scenario, map[string]any) {
	var work map[string]any
	cp := sc
	for k, v := range params {
		ax, ok := scenarioAxes[k]
		if !ok {
			if work == nil {
				work = map[string]any{}
			}
			work[k] = v
			continue
		}
		if cp == sc {
			c := *sc
			c.Machines = append([]Machine(nil), sc.Machines...)
			cp = &c
		}
		x, _ := v.(float64)
		if n, ok := v.(int64); ok {
			x = float64(n)
		}
		ax.set(cp, x)
	}
	return cp, work
}
