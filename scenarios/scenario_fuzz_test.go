package scenarios

import (
	"math"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/graph"
)

// FuzzScenario parses and validates arbitrary scenario text: it must never
// panic, and a scenario it accepts must be internally consistent: every
// number finite and in its range, the network valid, the point count
// within MaxPoints and equal to what Points builds, and the static
// policy's P-state assignment defined at every cap.
func FuzzScenario(f *testing.F) {
	base := string(Default())
	f.Add(Default())
	f.Add([]byte(strings.Replace(base, "idle_power_w = 45.0", "idle_power_w = nan", 1)))
	f.Add([]byte(strings.Replace(base, "freq_ghz = 1.9", "freq_ghz = inf", 1)))
	f.Add([]byte(strings.Replace(base, "L_ns = 2500", "L_ns = 9000000000000000000", 1)))
	f.Add([]byte(strings.Replace(base, "memory_boundness = 0.3", "memory_boundness = -inf", 1)))
	f.Add([]byte(base + "\n[sweep.params]\n\"machine.idle_power_w\" = [40.0, 1e308]\nbalance = [0.1, 0.5]\n"))
	f.Add([]byte(base + "\n[[network.override]]\nregion = \"stencil.*\"\nG_ns_per_byte = 1000000000000000000\n"))
	agg := strings.Replace(aggText(2, 1, 1, aggNet, "[aggregate]\nipc = \"1=2,2=1.5\"\nsleep_power_w = 5\n[aggregate.cross_socket]\nG_ns_per_byte = 9\n"), "cores_per_socket = 2", "cores_per_socket = 4", 1)
	f.Add([]byte(agg))
	f.Add([]byte(strings.Replace(agg, "[aggregate]", "[aggregate]\ndies_per_socket = 2\npatterns = [1, 3]", 1)))
	f.Add([]byte(gpuScenario(gpuMachine, "[sweep]\ncaps_w = [900.0, 1200.0]\ncap_scope = \"node\"\npolicies = [\"uncapped\", \"static\"]\n")))
	f.Add([]byte(gpuScenario(strings.Replace(gpuMachine, "power_limit_w = 350", "power_limit_w = 100", 1), "")))
	f.Add([]byte(gpuScenario(strings.Replace(gpuMachine, "memory_boundness = 0.25", "memory_boundness = nan", 1), "")))
	f.Fuzz(func(t *testing.T, text []byte) {
		sc, err := Parse("fuzz.toml", text)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.toml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		fin := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
		for _, m := range sc.Machines {
			if !fin(m.IdlePowerW) || m.IdlePowerW < 0 || !fin(m.CoreIdlePowerW) || m.CoreIdlePowerW < 0 || !fin(m.SpeedFactor) || m.SpeedFactor <= 0 {
				t.Fatalf("machine %s accepted with powers %g, %g and speed %g", m.Name, m.IdlePowerW, m.CoreIdlePowerW, m.SpeedFactor)
			}
			if m.Nodes*m.RanksPerNode > graph.MaxRanks || m.Nodes <= 0 || m.RanksPerNode <= 0 {
				t.Fatalf("machine %s accepted with %d nodes × %d ranks", m.Name, m.Nodes, m.RanksPerNode)
			}
			for _, p := range m.PStates {
				if !fin(p.FreqGHz) || p.FreqGHz <= 0 || !fin(p.ActivePowerW) || p.ActivePowerW <= 0 {
					t.Fatalf("machine %s accepted with P-state %+v", m.Name, p)
				}
			}
			for _, a := range m.Accelerators {
				if !fin(a.PowerW) || a.PowerW < 0 || a.PerNode < 1 || !fin(a.IdleW) || a.IdleW < 0 {
					t.Fatalf("machine %s accepted with accelerator %+v", m.Name, a)
				}
			}
			if g := m.GPU; g != nil {
				cs := g.Allowed()
				if len(cs) == 0 || !fin(g.IdleW) || g.IdleW < 0 || !(g.MemoryBoundness >= 0 && g.MemoryBoundness <= 1) {
					t.Fatalf("machine %s accepted with GPU %+v", m.Name, g)
				}
				for _, c := range cs {
					if !fin(c.MHz) || c.MHz <= 0 || !fin(c.PowerW) || c.PowerW < g.IdleW || (g.PowerLimitW > 0 && c.PowerW > g.PowerLimitW+1e-9) {
						t.Fatalf("machine %s: GPU clock %+v allowed (idle %g W, limit %g W)", m.Name, c, g.IdleW, g.PowerLimitW)
					}
					if r := g.Model().Ratio(c.MHz); !fin(r) || r <= 0 {
						t.Fatalf("machine %s: GPU clock %+v: time ratio %g", m.Name, c, r)
					}
				}
			}
			if b := m.BaseW(); !fin(b) || b < 0 {
				t.Fatalf("machine %s: base power %g", m.Name, b)
			}
			for _, c := range sc.Sweep.CapsW {
				if ps, err := m.Assign("static", c); err == nil && len(ps) == 0 {
					t.Fatalf("machine %s: no P-states assigned at %g W", m.Name, c)
				}
			}
		}
		if err := sc.Net().Validate(); err != nil {
			t.Fatalf("accepted network %+v: %v", sc.Network, err)
		}
		for _, o := range sc.Overrides() {
			if err := o.Params.Validate(); err != nil {
				t.Fatalf("accepted override %+v: %v", o, err)
			}
		}
		if mb := sc.Models.MemoryBoundness; !(mb >= 0 && mb <= 1) {
			t.Fatalf("accepted memory_boundness %g", mb)
		}
		for _, c := range sc.Sweep.CapsW {
			if !fin(c) || c <= 0 {
				t.Fatalf("accepted cap %g", c)
			}
		}
		n := 0
		for _, p := range sc.Sweep.Policies {
			if p == "uncapped" {
				n++
			} else {
				n += len(sc.Sweep.CapsW)
			}
		}
		if a := sc.Aggregate; a != nil {
			pats := 0
			for i := range sc.Machines {
				pats += len(a.patterns(&sc.Machines[i]))
			}
			n *= pats
			for k, p := range a.classes(sc.Net()) {
				if err := p.Validate(); err != nil {
					t.Fatalf("accepted aggregation class %d %+v: %v", k, p, err)
				}
			}
		} else {
			n *= len(sc.Machines)
		}
		for _, vs := range sc.Sweep.Params {
			n *= len(vs)
			if n > MaxPoints {
				t.Fatalf("accepted more than %d points", MaxPoints)
			}
		}
		if n <= 10000 {
			if pts := sc.Points(); len(pts) != n {
				t.Fatalf("%d points, want %d", len(pts), n)
			}
		}
	})
}
