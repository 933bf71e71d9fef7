package scenarios

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/capsim/capsim/compute/power"
)

// FuzzParse feeds arbitrary text to the scenario parser: it must never
// panic; an error must name the file; a scenario it accepts must satisfy
// the invariants normalize promises and expand into points without
// panicking.
func FuzzParse(f *testing.F) {
	f.Add(Default())
	for _, ex := range []string{"gpu-node.toml", "aggregate.toml", "gpu-training.toml", "gpu-training-nodecap-lp.toml"} {
		if b, err := os.ReadFile("../examples/scenarios/" + ex); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("[[machine]]\nnodes = \"two\"\n"))
	f.Add([]byte("name = 1\n"))
	f.Add([]byte(strings.Replace(string(Default()), `caps = "290:380:10"`, "caps_w = [300, 320, 300]", 1)))
	f.Add([]byte(strings.Replace(string(Default()), `caps = "290:380:10"`, "caps_w = [10, 300]", 1)))
	f.Add([]byte("[sweep]\ncaps_w = [1, 2\n"))
	for _, r := range [][2]string{{"active_power_w = 12.0", "active_power_w = 1e308"}, {`caps = "290:380:10"`, `caps = "290:380:1e-300"`},
		{`caps = "290:380:10"`, "caps_w = [1e300]"}, {"seed = 1", "seed = -1"}} {
		f.Add([]byte(strings.Replace(string(Default()), r[0], r[1], 1)))
	}
	f.Add([]byte("[[machine]]\nnodes=1\ncores_per_socket=1\nranks_per_node=1\n[[machine.pstate]]\nfreq_ghz=1\nactive_power_w=1\n" +
		"[workload]\ngenerator=\"stencil\"\n[sweep]\npolicies=[\"static\"]\ncaps_w=[10]\n[sweep.params]\nx=[1,2.5,\"a\"]\n"))
	const file = "fuzz.toml"
	f.Fuzz(func(t *testing.T, text []byte) {
		sc, err := Parse(file, text)
		if err != nil {
			if !strings.Contains(err.Error(), file) {
				t.Fatalf("error does not name the file: %v", err)
			}
			var pe *ParseError
			if errors.As(err, &pe) && pe.File != file {
				t.Fatalf("ParseError.File = %q", pe.File)
			}
			return
		}
		if len(sc.Machines) == 0 {
			t.Fatal("accepted a scenario without machines")
		}
		if sc.Seed > math.MaxInt64 {
			t.Fatalf("accepted seed %d (a negative number)", int64(sc.Seed))
		}
		for _, m := range sc.Machines {
			if len(m.PStates) == 0 || m.Nodes <= 0 || m.CoresPerSocket <= 0 || m.RanksPerNode <= 0 {
				t.Fatalf("accepted machine %+v", m)
			}
			for _, w := range append([]float64{m.IdlePowerW, m.CoreIdlePowerW}, m.PStates[0].ActivePowerW) {
				if w > power.MaxWatts {
					t.Fatalf("accepted machine power %g W", w)
				}
			}
			for j := 1; j < len(m.PStates); j++ {
				if !(m.PStates[j].FreqGHz < m.PStates[j-1].FreqGHz) {
					t.Fatalf("pstates not fastest first: %+v", m.PStates)
				}
			}
		}
		seen := map[float64]bool{}
		for _, c := range sc.Sweep.CapsW {
			if !(c > 0) || c > power.MaxWatts {
				t.Fatalf("accepted cap %g", c)
			}
			if seen[c] {
				t.Fatalf("accepted cap %g twice", c)
			}
			seen[c] = true
			for _, m := range sc.Machines {
				floor := m.BaseW()
				if sc.Sweep.CapScope == CapScopeNode {
					floor /= float64(m.Nodes)
				}
				if c <= floor {
					t.Fatalf("accepted cap %g W (scope %s) at or below machine %s's idle floor %g W", c, sc.Sweep.CapScope, m.Name, floor)
				}
			}
		}
		// Expanding a huge cross product is a resource problem, not a
		// parser one: only expand sweeps of reasonable size.
		n := len(sc.Machines) * (len(sc.Sweep.CapsW) + 1) * len(sc.Sweep.Policies)
		for _, vs := range sc.Sweep.Params {
			n *= len(vs)
		}
		if n > 1e5 {
			return
		}
		pts := sc.Points()
		schema := sc.Schema()
		for i, p := range pts {
			if p.Index != i {
				t.Fatalf("point %d has index %d", i, p.Index)
			}
			if r := sc.Row(p, Metrics{}); len(r.Values) != len(schema) {
				t.Fatalf("row has %d values, schema %d columns", len(r.Values), len(schema))
			}
		}
		if sc.Fingerprint() == "" {
			t.Fatal("empty fingerprint")
		}
	})
}

// FuzzParseCapRange checks that an accepted range is positive, at most
// power.MaxWatts, strictly ascending and within [from, to], and that no
// range panics.
func FuzzParseCapRange(f *testing.F) {
	for _, s := range []string{"290:380:10", "35:250:5", "1:1:1", "10:5:1", "1:2:0", "a:b:c", "1:1e9:1e-9", "1:2", " 3 : 9 : 2 ", "NaN:1:1", "1:Inf:1",
		"290:380:1e-300", "1e8:100000000.000001:1e-9", "290:1e300:1e299"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		caps, err := ParseCapRange(spec)
		if err != nil {
			if !strings.Contains(err.Error(), "cap range") {
				t.Fatalf("error does not say what was parsed: %v", err)
			}
			return
		}
		if len(caps) == 0 || len(caps) > 100000 {
			t.Fatalf("%q: %d caps", spec, len(caps))
		}
		for i, c := range caps {
			if !(c > 0) || c > power.MaxWatts {
				t.Fatalf("%q: cap %g", spec, c)
			}
			if i > 0 && !(c > caps[i-1]) {
				t.Fatalf("%q: caps not strictly ascending: %v", spec, caps)
			}
		}
	})
}

// FuzzParseShard checks that an accepted shard is in range and prints
// back as the text it was read from.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "1/2", "2/2", "-1/3", "0/0", "1/2x", " 0/4 ", "01/2", "9223372036854775807/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.Of <= 0 || sh.K < 0 || sh.K >= sh.Of {
			t.Fatalf("%q: accepted %+v", s, sh)
		}
		back, err := ParseShard(strings.TrimSpace(s))
		if err != nil || back != sh {
			t.Fatalf("%q: round trip %+v, %v", s, back, err)
		}
	})
}
