package scenarios

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/optimize/lpchain"
)

// spanCosts are the CPU seconds of a one-worker sweep's work, read from
// its CAPSIM_SWEEP_TRACE (see sweepTrace): per workload (lpKey), its LP
// build and each cap's chain solve, and per point (pointKey) its own work
// without them. A span is a workload's when a group span of it encloses
// it (one worker: spans nest) or, for a replay ahead of its group, by its
// name.
type spanCosts struct {
	build map[string]float64
	chain map[string]map[float64]float64
	point map[string]float64
}

func pointKey(key, pol string, capW float64) string {
	return fmt.Sprintf("%s|%s|%g", key, pol, capW)
}

type rawSpan struct {
	t0, t1, cpu float64
	name        string
}

func readSpans(r io.Reader) ([]rawSpan, error) {
	var spans []rawSpan
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		f := strings.SplitN(sc.Text(), "\t", 5)
		if len(f) != 5 {
			return nil, fmt.Errorf("line %d: %d fields, want 5", line, len(f))
		}
		var s rawSpan
		var err [3]error
		s.t0, err[0] = strconv.ParseFloat(f[1], 64)
		s.t1, err[1] = strconv.ParseFloat(f[2], 64)
		s.cpu, err[2] = strconv.ParseFloat(f[3], 64)
		for _, e := range err {
			if e != nil {
				return nil, fmt.Errorf("line %d: %w", line, e)
			}
		}
		s.name = f[4]
		spans = append(spans, s)
	}
	return spans, sc.Err()
}

// capOf is the number after the last " cap " in a span's name.
func capOf(name string) float64 {
	i := strings.LastIndex(name, " cap ")
	f := strings.Fields(name[i+5:])
	c, _ := strconv.ParseFloat(f[0], 64)
	return c
}

func readSpanCosts(r io.Reader) (*spanCosts, error) {
	spans, err := readSpans(r)
	if err != nil {
		return nil, err
	}
	c := &spanCosts{build: map[string]float64{}, chain: map[string]map[float64]float64{}, point: map[string]float64{}}
	var groups []rawSpan
	for _, s := range spans {
		if strings.HasPrefix(s.name, "group ") {
			groups = append(groups, s)
		}
	}
	encloses := func(a, b rawSpan) bool { return a.t0 <= b.t0 && b.t1 <= a.t1 }
	workload := func(s rawSpan) string {
		best := -1
		for i, g := range groups {
			if encloses(g, s) && (best < 0 || g.t1-g.t0 < groups[best].t1-groups[best].t0) {
				best = i
			}
		}
		if best < 0 {
			return ""
		}
		_, key, _ := strings.Cut(groups[best].name, " of ")
		return key
	}
	var lpWork []rawSpan // builds and chain solves, taken out of the points that hold them
	for _, s := range spans {
		switch {
		case s.name == "build LP":
			c.build[workload(s)] += s.cpu
			lpWork = append(lpWork, s)
		case strings.HasPrefix(s.name, "bound chain "):
			k := workload(s)
			if c.chain[k] == nil {
				c.chain[k] = map[float64]float64{}
			}
			c.chain[k][capOf(s.name)] += s.cpu
			lpWork = append(lpWork, s)
		case strings.HasPrefix(s.name, "replay "): // replay POLICY cap C of KEY
			_, key, _ := strings.Cut(s.name, " of ")
			c.point[pointKey(key, strings.Fields(s.name)[1], capOf(s.name))] += s.cpu
		}
	}
	for _, s := range spans {
		if !strings.HasPrefix(s.name, "point ") {
			continue
		}
		cpu := s.cpu
		for _, n := range lpWork {
			if encloses(s, n) {
				cpu -= n.cpu
			}
		}
		c.point[pointKey(workload(s), strings.Fields(s.name)[1], capOf(s.name))] += cpu
	}
	return c, nil
}

// measuredLoads is what each shard of plan costs by the spans: its
// points' own work, and per workload it holds capped points of, the LP
// build and each chain's solves up to its highest cap held.
func (c *spanCosts) measuredLoads(plan [][]chunk) []float64 {
	out := make([]float64, len(plan))
	for s, chunks := range plan {
		held := map[string][]bool{}
		caps := map[string][]Point{}
		for _, ch := range chunks {
			for _, p := range ch.group[ch.lo:ch.hi] {
				out[s] += c.point[pointKey(lpKey(p), p.Policy, p.CapW)]
			}
			if !capped(ch.group) {
				continue
			}
			k := lpKey(ch.group[0])
			if held[k] == nil || len(ch.group) > len(caps[k]) {
				old := held[k]
				held[k] = make([]bool, len(ch.group))
				copy(held[k], old)
				caps[k] = ch.group
			}
			for i := ch.lo; i < ch.hi; i++ {
				held[k][i] = true
			}
		}
		for k, at := range held {
			out[s] += c.build[k]
			for _, r := range lpchain.Split(len(at)) {
				top := -1
				for i := r[0]; i < r[1]; i++ {
					if at[i] {
						top = i
					}
				}
				for i := r[0]; i <= top; i++ {
					out[s] += c.chain[k][caps[k][i].CapW]
				}
			}
		}
	}
	return out
}

// recordedShape is a scenario of testdata/shardcost with the trace of
// its one-worker sweep (CAPSIM_SWEEP_TRACE, capsim at this cost model's
// fit, on the shared 2-core machine).
type recordedShape struct {
	name  string
	sc    *Scenario
	costs *spanCosts
}

func recordedShapes(t *testing.T) []recordedShape {
	t.Helper()
	load := func(name, path string) *Scenario {
		sc, err := Load(filepath.Join("..", path))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	var out []recordedShape
	for _, c := range []struct {
		name string
		sc   *Scenario
	}{
		{"shape", shapeScenario(t)},
		{"stencil32", load("stencil32", filepath.Join("examples", "bound", "stencil32.toml"))},
		{"gpu-node", load("gpu-node", filepath.Join("examples", "scenarios", "gpu-node.toml"))},
	} {
		f, err := os.Open(filepath.Join("testdata", "shardcost", c.name+".tsv"))
		if err != nil {
			t.Fatal(err)
		}
		costs, err := readSpanCosts(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		out = append(out, recordedShape{c.name, c.sc, costs})
	}
	return out
}

// The cost model and the plans against the CPU time recorded per span of
// work (testdata/shardcost: one-worker sweeps of the 372-point shape,
// stencil32 and gpu-node with CAPSIM_SWEEP_TRACE, on the shared 2-core
// machine):
//   - caps that bind less than a third of the way down cost their chains
//     what the model says within 30 % in all (a chain's cost falling
//     linearly to nothing at the average power put them at 0.46 of it);
//   - every workload's work (its LP build, chains and points) is within
//     25 % of the estimate on the 372-point shape and 40 % on stencil32
//     (whose first binding cap solves in 0.8 µs per T·B, and whose lp
//     point at 1000 W fits the cap at its first probe);
//   - the plans' shards priced by the recorded spans are within 1.20 of
//     each other on the 372-point shape over 4 shards, and within 1.30 on
//     gpu-node (the estimate's own plan, which robustPlan leaves, 1.57).
//
// The other shapes' ratios are logged: gpu-node's accelerated machines
// solve their LPs from no basis in 0.5 and 2.0 µs per T·B, where the CPU
// machine takes 2.7, and no plan of its 3 workloads over 3 shards is
// within 2 priced by the recorded work.
func TestShardCostRecorded(t *testing.T) {
	shallowEst, shallowRec := 0.0, 0.0
	within := map[string]float64{"shape": 1.25, "stencil32": 1.4}
	for _, rs := range recordedShapes(t) {
		pts, w := rs.sc.Points(), rs.sc.workloadWeights()
		parts, _, _, _ := planRuns(pts, 1, w)
		for _, pt := range parts {
			k := lpKey(pt.groups[0][0])
			caps := capsGroup(pt.groups)
			est, rec := pt.cost, rs.costs.build[k]*1e6
			for i, p := range caps {
				rec += rs.costs.chain[k][p.CapW] * 1e6
				if d := pt.w.depth(p.CapW); d > 0 && d < 1.0/3 && i > 0 && pt.w.depth(caps[i-1].CapW) > 0 {
					shallowEst += chainCost(caps, 0, i+1, pt.w) - chainCost(caps, 0, i, pt.w)
					shallowRec += rs.costs.chain[k][p.CapW] * 1e6
				}
			}
			for _, g := range pt.groups {
				for _, p := range g {
					rec += rs.costs.point[pointKey(k, p.Policy, p.CapW)] * 1e6
				}
			}
			t.Logf("%s %s: estimated %.0f ms, recorded %.0f ms", rs.name, k, est/1e3, rec/1e3)
			if f := within[rs.name]; f > 0 && (est > f*rec || rec > f*est) {
				t.Errorf("%s %s: estimated %.0f ms, recorded %.0f ms", rs.name, k, est/1e3, rec/1e3)
			}
		}
		for _, n := range []int{2, 3, 4, 5} {
			plan := PlanWeights(pts, n, w)
			loads := rs.costs.measuredLoads(plan)
			r := ratioOf(loads)
			t.Logf("%s over %d shards: estimated %.3f apart, recorded %.3f", rs.name, n, ratioOf(shardLoads(plan)), r)
			if n == 4 && (rs.name == "shape" && r > 1.2 || rs.name == "gpu-node" && r > 1.3) {
				t.Errorf("%s over %d shards: recorded loads %v, %.3f apart", rs.name, n, loads, r)
			}
		}
	}
	t.Logf("caps binding less than a third of the way: chains estimated %.0f ms, recorded %.0f ms", shallowEst/1e3, shallowRec/1e3)
	if shallowEst < shallowRec/1.3 || shallowEst > shallowRec*1.3 {
		t.Errorf("caps binding less than a third of the way: chains estimated %.0f ms, recorded %.0f ms", shallowEst/1e3, shallowRec/1e3)
	}
}

func ratioOf(loads []float64) float64 { return slices.Max(loads) / slices.Min(loads) }

// gpu-node's plan over 4 shards against four recorded one-worker sweeps
// (testdata/shardcost/gpu-node*.tsv): each shard priced by the mean of
// the four traces' work is within 1.25 of the others. The traces differ
// by up to 14 % per shard (the same plan is 1.16 to 1.32 apart by one
// trace alone), so the mean is what the check holds. Its LPs are where
// the estimate errs most: the accelerated machines' cold solves (57 and
// 188 ms against 205 estimated) and their caps just above the uncapped
// run's average power (10 to 50 ms each, estimated 1).
func TestShardCostRecordedGPUNode(t *testing.T) {
	sc, err := Load(filepath.Join("..", "examples", "scenarios", "gpu-node.toml"))
	if err != nil {
		t.Fatal(err)
	}
	paths, err := filepath.Glob(filepath.Join("testdata", "shardcost", "gpu-node*.tsv"))
	if err != nil || len(paths) < 4 {
		t.Fatalf("gpu-node traces: %v, %v", paths, err)
	}
	plan := PlanWeights(sc.Points(), 4, sc.workloadWeights())
	mean := make([]float64, len(plan))
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		costs, err := readSpanCosts(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		loads := costs.measuredLoads(plan)
		t.Logf("%s: %.3f apart", filepath.Base(path), ratioOf(loads))
		for k, l := range loads {
			mean[k] += l / float64(len(paths))
		}
	}
	if r := ratioOf(mean); r > 1.25 {
		t.Errorf("gpu-node over 4 shards: mean recorded loads %v, %.3f apart", mean, r)
	} else {
		t.Logf("gpu-node over 4 shards: mean recorded loads %.3f apart", r)
	}
}
