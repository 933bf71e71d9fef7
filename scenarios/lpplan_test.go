package scenarios

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
)

// The lp policy replays within the cap at every instant and within 0.5 %
// of the bound on the shipped scenario at all its caps, and on
// workloads of the kinds that once beat the bound: a balanced stencil, a
// random-imbalance 3-D stencil, a wavefront stencil with 1 MiB halos and
// sweep3d. Without headroom (the LP's schedule at the cap itself,
// staggered) the shipped scenario was 4.5 % over the bound at 300 W and
// over the cap at 360 and 370 W.
func TestLPPolicyTight(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	base := string(Default())
	gen := base[strings.Index(base, "[workload]"):strings.Index(base, "[models]")]
	for _, tc := range []struct {
		name, workload string
		caps           []float64 // nil: the scenario's
	}{
		{"default", gen, nil},
		{"balanced stencil", "[workload]\ngenerator = \"stencil2d\"\n[workload.params]\nranks = 16\npx = 4\npy = 4\niterations = 10\nhalo_bytes = 32768\ncompute_ns = 2000000\n", []float64{290, 300, 310, 330, 350}},
		{"random 3-D stencil", "[workload]\ngenerator = \"stencil3d\"\n[workload.params]\npx = 4\npy = 2\npz = 2\nimbalance = \"random\"\nbalance = 0.3\nhalo_bytes = 4096\n", []float64{290, 300, 310, 330}},
		{"wavefront, 1 MiB halos", "[workload]\ngenerator = \"stencil2d\"\n[workload.params]\npx = 4\npy = 4\nhalo_bytes = 1048576\niterations = 6\nimbalance = \"wavefront\"\nbalance = 0.4\n", []float64{290, 300, 310}},
		{"sweep3d", "[workload]\ngenerator = \"sweep3d\"\n[workload.params]\npx = 4\npy = 4\nblocks = 4\n", []float64{290, 300, 310, 330}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := Parse(tc.name+".toml", []byte(strings.Replace(base, gen, tc.workload, 1)))
			if err != nil {
				t.Fatal(err)
			}
			if tc.caps != nil {
				sc.Sweep.CapsW = tc.caps
			}
			var pts []Point
			for _, p := range sc.Points() {
				if p.Policy == "lp" {
					pts = append(pts, p)
				}
			}
			err = evaluate(context.Background(), sc, pts, func(p Point, m Metrics) error {
				gap := float64(m.MakespanNs)/float64(m.BoundNs) - 1
				t.Logf("%g W: makespan %d ns, bound %d ns, gap %.3f %%", p.CapW, m.MakespanNs, m.BoundNs, 100*gap)
				switch {
				case m.BoundNs <= 0:
					t.Errorf("%g W: no bound", p.CapW)
				case m.OverCapNs > 0:
					t.Errorf("%g W: over the cap for %d ns", p.CapW, m.OverCapNs)
				case gap < -1e-9 || gap > 0.005:
					t.Errorf("%g W: %.3f %% over the bound, want 0–0.5 %%", p.CapW, 100*gap)
				}
				return nil
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// powerQuantum is the largest step in power between adjacent hull points.
func TestPowerQuantum(t *testing.T) {
	_, _, _, _, bd := defaultBounder(t)
	// The default machine's P-states draw 12.0, 10.2, 8.7, 7.4 and 6.8 W
	// per busy core above idle: the largest step on a hull is 1.8 W
	// (2.1 to 1.9 GHz) unless the hull skips a P-state.
	q := powerQuantum(bd.d)
	if q < 1.8-1e-9 || q > 12.0-6.8 {
		t.Errorf("power quantum %g W, want between 1.8 and 5.2 W", q)
	}
	t.Logf("power quantum %g W", q)
}

// On examples/scenarios/gpu-node.toml's gpu-node (one accelerator per
// rank) the LP splits most stencil calls between the device (0.204 ms at
// 45 W) and the CPU at 2.6 GHz (1 ms at 15 W): at 600 W, 309 of its 320
// tasks. With every device stretch first, all 16 ranks drew 45 W at once
// after each exchange (880 W, over the cap for 0.9–2.0 ms at 400–800 W
// whatever the headroom). A rank's own device queues nobody, so stagger
// places those stretches like a P-state's: every point is within the cap,
// and within the gap to the bound measured per cap, with a
// margin.
func TestLPPolicyGPUNode(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	if testing.Short() {
		t.Skip("sweeps the gpu-node lp points")
	}
	sc, err := Load(filepath.Join("..", "examples", "scenarios", "gpu-node.toml"))
	if err != nil {
		t.Fatal(err)
	}
	most := map[float64]float64{ // the gap measured, with a margin
		300: 0.001, 400: 0.01, 500: 0.001, 600: 0.001, 700: 0.001, 800: 0.001, 900: 0.001,
	}
	var pts []Point
	for _, p := range sc.Points() {
		if p.Policy == "lp" && sc.Machines[p.Machine].Name == "gpu-node" {
			pts = append(pts, p)
		}
	}
	if len(pts) != len(most) {
		t.Fatalf("%d lp points on gpu-node, want %d", len(pts), len(most))
	}
	err = evaluate(context.Background(), sc, pts, func(p Point, m Metrics) error {
		gap := float64(m.MakespanNs)/float64(m.BoundNs) - 1
		t.Logf("%g W: makespan %d ns, bound %d ns, gap %.3f %%, peak %g W", p.CapW, m.MakespanNs, m.BoundNs, 100*gap, m.PeakPowerW)
		switch {
		case m.BoundNs <= 0:
			t.Errorf("%g W: no bound", p.CapW)
		case m.OverCapNs > 0:
			t.Errorf("%g W: over the cap for %d ns (peak %g W)", p.CapW, m.OverCapNs, m.PeakPowerW)
		case gap < -1e-9 || gap > most[p.CapW]:
			t.Errorf("%g W: %.3f %% over the bound, want 0–%.1f %%", p.CapW, 100*gap, 100*most[p.CapW])
		}
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
}

// leastTry finds the try that trying 0, 1, … in turn stops at (the first
// that fits; none where a try below the LP's least feasible cap comes
// first), for every threshold of fitting and of feasibility on up to 9
// tries, with at most ⌈log2(n+1)⌉ tries: 4 for the 8 doublings of headroom
// at 10^4 tasks, where trying in turn took up to 8.
func TestLeastTry(t *testing.T) {
	for _, tc := range []struct{ n, most int }{{0, 0}, {1, 1}, {2, 2}, {3, 2}, {5, 3}, {8, 4}, {9, 4}} {
		for fit := 0; fit <= tc.n; fit++ { // the least k that fits (n: none)
			for feasible := fit; feasible <= tc.n; feasible++ { // the least k below the least feasible cap
				want := tc.n
				for k := 0; k < tc.n && k < feasible; k++ {
					if k >= fit {
						want = k
						break
					}
				}
				tries := 0
				got, err := leastTry(tc.n, func(k int) (bool, bool, error) {
					tries++
					if k < 0 || k >= tc.n {
						t.Fatalf("n %d: tried %d", tc.n, k)
					}
					return k >= fit && k < feasible, k < feasible, nil
				})
				if err != nil || got != want || tries > tc.most {
					t.Errorf("n %d, fits from %d, feasible below %d: got %d (%v) in %d tries, want %d in at most %d",
						tc.n, fit, feasible, got, err, tries, want, tc.most)
				}
			}
		}
	}
	// Infeasible everywhere: none.
	if got, _ := leastTry(4, func(int) (bool, bool, error) { return false, false, nil }); got != 4 {
		t.Errorf("nothing feasible: got %d, want 4", got)
	}
	// An error ends the search.
	errStop := errors.New("stop")
	if _, err := leastTry(4, func(int) (bool, bool, error) { return false, true, errStop }); !errors.Is(err, errStop) {
		t.Errorf("error %v, want %v", err, errStop)
	}
}

// stagger on a schedule that staggerFits probed goes on from the probe's
// first round (r.first) instead of replaying it: the outcome is the same
// as stagger on the same schedule unprobed, at the caps where the schedule
// at the cap itself fits as it is and where it does not.
func TestStaggerAfterProbe(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	sc, tr, g, m, bd := defaultBounder(t)
	ro := bound.RoundOptions{Policy: bound.RoundStaggered}
	seen := map[bool]int{}
	for _, capW := range sc.Sweep.CapsW {
		b, err := bd.solve(context.Background(), capW)
		if err != nil || b == nil {
			t.Fatalf("%g W: %v", capW, err)
		}
		fresh, err := roundLP(g, bd.d, b, ro, bd.n)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := sc.stagger(g, tr, fresh, capW, m, sc.Net())
		if err != nil {
			t.Fatal(err)
		}
		probed, err := roundLP(g, bd.d, b, ro, bd.n)
		if err != nil {
			t.Fatal(err)
		}
		fits, err := sc.staggerFits(g, tr, probed, capW, m, sc.Net())
		if err != nil {
			t.Fatal(err)
		}
		if probed.first == nil {
			t.Fatalf("%g W: the probe kept no first round", capW)
		}
		seen[fits]++
		got, _, err := sc.stagger(g, tr, probed, capW, m, sc.Net())
		if err != nil {
			t.Fatal(err)
		}
		if got != want || probed.first != nil {
			t.Errorf("%g W (fits %v): stagger after the probe %+v, unprobed %+v", capW, fits, got, want)
		}
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Errorf("caps where the schedule fits as it is / does not: %d / %d; want both", seen[true], seen[false])
	}
}

// The lp policy is within the cap at every instant at every cap, with and
// without a fat-tree, and where the cap does not bind (at or above the
// uncapped replay's peak) it is the uncapped replay. On the 64-rank OTF2
// stencil (ranks wait at their last task's power, which the LP does not
// price) no headroom's schedule replays within the cap: the staggered
// schedule drew 1488 W, over caps of 1200–1480 W for 38–41 ms of 41 ms.
// With a 60 W device per rank that the loop body always runs on, the
// uncapped replay peaks at 4560 W; lp stays within the cap.
func TestLPPolicyWithinCap(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	if testing.Short() {
		t.Skip("sweeps lp points")
	}
	const fatTree = "[network.topology]\nkind = \"fattree\"\nk = 4\nn = 3\noversub = 2.0\n\n"
	s64 := filepath.Join("..", "..", "shared", "traces", "otf2", "tracer-stencil4d-64", "traces.otf2")
	for _, tc := range []struct {
		name, file string // file: a scenario ("": the default)
		edit       func(string) string
		caps       []float64
		topology   bool
	}{
		{"default", "", nil, []float64{290, 330, 370, 380, 400}, false},
		{"default fat-tree", "", nil, []float64{290, 330, 370, 400}, true},
		{"stencil32", filepath.Join("..", "examples", "bound", "stencil32.toml"), nil, []float64{1000, 1400, 1500}, false},
		{"gpu-node", filepath.Join("..", "examples", "scenarios", "gpu-node.toml"), nil, []float64{300, 500, 700, 900, 1000}, false},
		{"stencil4d-64", "", func(s string) string {
			s = strings.Replace(s, "nodes = 2\n", "nodes = 8\n", 1)
			w := s[strings.Index(s, "[workload]"):strings.Index(s, "[models]")]
			s = strings.Replace(s, w, "[workload]\ntrace = "+strconv.Quote(s64)+"\n\n", 1)
			return strings.Replace(s, `caps = "290:380:10"`, `caps_w = [1200.0, 1500.0]`, 1)
		}, []float64{1200, 1400, 1500}, false},
		{"stencil4d-64 fat-tree", "", func(s string) string {
			s = strings.Replace(s, "nodes = 2\n", "nodes = 8\n", 1)
			w := s[strings.Index(s, "[workload]"):strings.Index(s, "[models]")]
			s = strings.Replace(s, w, "[workload]\ntrace = "+strconv.Quote(s64)+"\n\n", 1)
			return strings.Replace(s, `caps = "290:380:10"`, `caps_w = [1200.0, 1500.0]`, 1)
		}, []float64{1200, 1500}, true},
		{"stencil4d-64 accelerator", "", func(s string) string {
			s = strings.Replace(s, "nodes = 2\n", "nodes = 8\n", 1)
			w := s[strings.Index(s, "[workload]"):strings.Index(s, "[models]")]
			s = strings.Replace(s, w, "[workload]\ntrace = "+strconv.Quote(s64)+"\n\n", 1)
			s = strings.Replace(s, "[network]", "[[machine.accelerator]]\nname = \"gpu0\"\nregions = \"TRACER_Loop\"\npower_w = 60.0\nper_node = 8\n\n[network]", 1)
			m := s[strings.Index(s, "[models]"):strings.Index(s, "[sweep]")]
			model, _ := filepath.Abs(filepath.Join("testdata", "tracer-loop-accel.json"))
			s = strings.Replace(s, m, "[models]\nfile = "+strconv.Quote(model)+"\n\n", 1)
			return strings.Replace(s, `caps = "290:380:10"`, `caps_w = [1200.0, 1500.0]`, 1)
		}, []float64{1160, 1250, 1500}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasPrefix(tc.name, "stencil4d-64") {
				if _, err := os.Stat(s64); err != nil {
					t.Skip("no shared traces")
				}
			}
			src := Default()
			if tc.file != "" {
				var err error
				if src, err = os.ReadFile(tc.file); err != nil {
					t.Fatal(err)
				}
			}
			text := string(src)
			if tc.edit != nil {
				text = tc.edit(text)
			}
			if tc.topology {
				text = strings.Replace(text, "[workload]", fatTree+"[workload]", 1)
			}
			name := tc.name + ".toml"
			if tc.file != "" {
				name = tc.file // its relative paths are its folder's
			}
			sc, err := Parse(name, []byte(text))
			if err != nil {
				t.Fatal(err)
			}
			sc.Sweep.CapsW = tc.caps
			checkLPWithinCap(t, sc)
		})
	}
}

// checkLPWithinCap evaluates the uncapped and lp points of each of sc's
// machines and checks that every lp point is within its cap, and within
// 0.5 % of the uncapped makespan where the cap is at or above its peak
// (or sooner: on an accelerator the ranks share, the LP's schedule can end
// before the uncapped run, which queues every call on the device).
func checkLPWithinCap(t *testing.T, sc *Scenario) {
	t.Helper()
	for k, mach := range sc.Machines {
		var unc, lp []Point
		for _, p := range sc.Points() {
			if p.Machine != k {
				continue
			}
			switch p.Policy {
			case "uncapped":
				unc = append(unc, p)
			case "lp":
				lp = append(lp, p)
			}
		}
		if len(unc) != 1 || len(lp) == 0 {
			t.Fatalf("%s: %d uncapped and %d lp points, want 1 and some", mach.Name, len(unc), len(lp))
		}
		var u Metrics
		if err := evaluate(context.Background(), sc, unc, func(_ Point, m Metrics) error { u = m; return nil }, nil); err != nil {
			t.Fatal(err)
		}
		err := evaluate(context.Background(), sc, lp, func(p Point, m Metrics) error {
			t.Logf("%s %g W: makespan %d ns (uncapped %d ns, peak %g W), peak %g W, over %d ns", mach.Name, p.CapW, m.MakespanNs, u.MakespanNs, u.PeakPowerW, m.PeakPowerW, m.OverCapNs)
			if m.Infeasible {
				return nil
			}
			if m.OverCapNs > 0 || m.PeakPowerW > p.CapW+1e-9 {
				t.Errorf("%s %g W: over the cap for %d ns (peak %g W)", mach.Name, p.CapW, m.OverCapNs, m.PeakPowerW)
			}
			if d := float64(m.MakespanNs)/float64(u.MakespanNs) - 1; p.CapW >= u.PeakPowerW && d > 0.005 {
				t.Errorf("%s %g W (not binding): %.3f %% after the uncapped replay, want within 0.5 %%", mach.Name, p.CapW, 100*d)
			}
			return nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
}
