package scenarios

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/conductor"
)

// topoScenario is the default scenario with topology top ("[network.
// topology]" keys), edited by edit.
func topoScenario(t *testing.T, top string, edit func(string) string) *Scenario {
	t.Helper()
	text := string(Default())
	if edit != nil {
		text = edit(text)
	}
	text = strings.Replace(text, "[workload]", "[network.topology]\n"+top+"\n\n[workload]", 1)
	sc, err := Parse("topo.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// stencil2x2 makes the default scenario a 2×2-rank stencil, a rank per
// node of one socket and core.
func stencil2x2(s string) string {
	r := strings.NewReplacer("nodes = 2\n", "nodes = 4\n", "ranks_per_node = 8\n", "ranks_per_node = 1\n",
		"sockets_per_node = 2\n", "sockets_per_node = 1\n", "cores_per_socket = 8\n", "cores_per_socket = 1\n",
		"ranks = 16\npx = 4\npy = 4", "ranks = 4\npx = 2\npy = 2")
	return r.Replace(s)
}

// stencil4d64 runs the shared 64-rank OTF2 stencil on 8 default nodes.
func stencil4d64(trace string) func(string) string {
	return func(s string) string {
		s = strings.Replace(s, "nodes = 2\n", "nodes = 8\n", 1)
		w := s[strings.Index(s, "[workload]"):strings.Index(s, "[models]")]
		s = strings.Replace(s, w, "[workload]\ntrace = "+strconv.Quote(trace)+"\n\n", 1)
		return strings.Replace(s, `caps = "290:380:10"`, `caps_w = [1200.0, 1500.0]`, 1)
	}
}

// With a topology, the engine LP prices every message at no less than
// its uncontended route, so at caps from binding to non-binding the bound
// is at most every replay within its cap (uncapped, static, conductor and
// the lp policy's rounding) that keeps the LP's orders, and
// order_free_lower_ns at most every replay within its cap. At a cap that
// does not bind the uncapped replay is above the bound by the links'
// contention, which the LP leaves out (logged). Where the network's G is
// above the links' (the default's 6 ns/B against 12.5 GB/s links), the
// LP priced the bytes at G and the uncapped 2×2 stencil came out 16 %
// below it; where G = 0 and the links are slow, the LP left the bytes out
// and its DAG was 14 % below a replay without contention (the pair).
func TestBoundWithTopology(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	s64 := filepath.Join("..", "..", "shared", "traces", "otf2", "tracer-stencil4d-64", "traces.otf2")
	pair := func(s string) string { // 2 ranks exchanging halos: no two flows share a link
		return strings.Replace(stencil2x2(s), "ranks = 4\npx = 2\npy = 2", "ranks = 2\npx = 2\npy = 1", 1)
	}
	for _, tc := range []struct {
		name, top string
		edit      func(string) string
		caps      []float64
		// exact: no two flows ever share a link, so the uncapped replay is
		// the LP's DAG to the ns.
		exact bool
		long  bool // skipped with -short
	}{
		{"default fat-tree", "kind = \"fattree\"\nk = 4\nn = 2", nil, []float64{290, 330, 450}, false, false},
		{"default torus", "kind = \"torus\"\ndims = [2, 2]", nil, []float64{290, 350, 450}, false, true},
		{"default dragonfly", "kind = \"dragonfly\"\ngroups = 2\nrouters = 2\nhosts = 1\nglobal = 1", nil, []float64{290, 350, 450}, false, true},
		{"2x2 fat-tree", "kind = \"fattree\"\nk = 2\nn = 2", stencil2x2, []float64{210, 220, 230, 260}, false, false},
		{"2x2 fat-tree, G = 0, slow links", "kind = \"fattree\"\nk = 2\nn = 2\nbw_GBps = 0.1", func(s string) string {
			return strings.Replace(stencil2x2(s), "G_ns_per_byte = 6", "G_ns_per_byte = 0", 1)
		}, []float64{210, 220, 260}, false, false},
		{"2x2 torus", "kind = \"torus\"\ndims = [2, 2]", stencil2x2, []float64{210, 230, 260}, false, false},
		{"pair fat-tree, G = 0, slow links", "kind = \"fattree\"\nk = 2\nn = 2\nbw_GBps = 0.1", func(s string) string {
			return strings.Replace(pair(s), "G_ns_per_byte = 6", "G_ns_per_byte = 0", 1)
		}, []float64{150, 200, 260}, true, false},
		{"stencil4d-64 fat-tree", "kind = \"fattree\"\nk = 4\nn = 3\noversub = 2.0", stencil4d64(s64), []float64{1200, 1500}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.long && testing.Short() {
				t.Skip("long")
			}
			if strings.HasPrefix(tc.name, "stencil4d-64") {
				if _, err := os.Stat(s64); err != nil {
					t.Skip("no shared traces")
				}
			}
			sc := topoScenario(t, tc.top, tc.edit)
			rep, err := sc.RunBound(context.Background(), BoundConfig{CapsW: tc.caps, Machine: &sc.Machines[0], LPRounding: true, Conductor: conductor.DefaultParams()})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Rows {
				if r.Infeasible {
					continue
				}
				checkTopoRow(t, r)
			}
			last := rep.Rows[len(rep.Rows)-1]
			t.Logf("%s: uncapped %d ns, LP's DAG %d ns (+%.2f %% contention), bound %d ns at %g W", sc.Network.Topology.Spec(), last.UncappedNs, last.LPUncappedNs, last.UncappedOverLPPct, last.BoundNs, last.CapW)
			if last.UncappedOverLPPct < 0 {
				t.Errorf("the uncapped replay is %.2f %% below the LP's DAG", last.UncappedOverLPPct)
			}
			if tc.exact && last.UncappedNs != last.LPUncappedNs {
				t.Errorf("no flows share a link, yet the uncapped replay took %d ns and the LP's DAG %d ns", last.UncappedNs, last.LPUncappedNs)
			}
			if !strings.Contains(last.Contention, sc.Network.Topology.Spec()) {
				t.Errorf("contention note %q does not name the topology", last.Contention)
			}
		})
	}
}

// checkTopoRow checks one cap's row: no replay within the cap beats
// order_free_lower_ns, and none that kept the LP's orders beats the bound.
func checkTopoRow(t *testing.T, r BoundRow) {
	t.Helper()
	type run struct {
		name    string
		ns      *int64
		overCap int64
		changed bool
	}
	unc := r.UncappedNs
	for _, x := range []run{
		{"lp", r.RoundedNs, r.RoundedOverCap, r.RoundedOrderChanged},
		{"static", &r.StaticNs, r.StaticOverCap, r.StaticOrderChanged},
		{"conductor", r.ConductorNs, r.ConductorOverCap, r.ConductorOrderChanged},
		{"uncapped", &unc, 0, false},
	} {
		if x.ns == nil || x.overCap > 0 && x.name != "uncapped" {
			continue
		}
		if x.name == "uncapped" && r.BoundNs > r.LPUncappedNs {
			continue // a cap that binds: the uncapped replay is over it
		}
		if *x.ns < r.OrderFreeLowerNs {
			t.Errorf("%g W: %s %d ns beats order_free_lower_ns %d", r.CapW, x.name, *x.ns, r.OrderFreeLowerNs)
		}
		if !x.changed && *x.ns < r.BoundNs {
			t.Errorf("%g W: %s %d ns beats the bound %d ns and kept its orders", r.CapW, x.name, *x.ns, r.BoundNs)
		}
	}
}
