package scenarios

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/optimize/lpchain"
	"github.com/capsim/capsim/scenarios/results"
)

// sweepShape builds the points of a sweep with the given machines,
// parameter sizes (one per parameter combination), policies and caps, in
// Points' order.
func sweepShape(machines int, sizes []float64, policies []string, caps int) ([]Point, func(Point) float64) {
	var pts []Point
	group := 0
	size := map[int]float64{}
	for m := 0; m < machines; m++ {
		for c, sz := range sizes {
			for _, pol := range policies {
				n := caps
				if pol == "uncapped" {
					n = 1
				}
				for i := 0; i < n; i++ {
					pts = append(pts, Point{Index: len(pts), Group: group, Machine: m, Policy: pol, CapW: float64(100 + i), Params: map[string]any{"c": c}})
					size[len(pts)-1] = sz
				}
				group++
			}
		}
	}
	return pts, func(p Point) float64 { return size[p.Index] }
}

// TestShardBalance checks Plan on several sweep shapes: every point is in
// exactly one shard's chunks, chunks cover consecutive caps of one group,
// and the most loaded shard's estimated work is at most 1.25 times the
// least loaded one's (1.35 for 5 points of one LP over 3 shards: each
// shard builds the LP and solves its chain from the first cap, and the
// one with the top cap solves all 5; the best cut, caps 1-3, 4 and 5,
// is 1.32 apart). Dealing groups by number modulo N,
// as sweeps did before, measured 17.9× on a 12-group × 10-cap sweep over
// 4 shards and left one shard of the demo's 2 points against 11 for the
// others.
func TestShardBalance(t *testing.T) {
	all := []string{"uncapped", "static", "conductor", "lp"}
	for _, c := range []struct {
		name     string
		machines int
		sizes    []float64
		policies []string
		caps     int
		shards   int
		ratio    float64
	}{
		{"demo", 1, []float64{1}, all, 10, 4, maxShardImbalance},
		{"12 groups x 10 caps", 1, []float64{1, 2, 4, 8}, []string{"static", "conductor", "lp"}, 10, 4, maxShardImbalance},
		{"sizes 1..64", 2, []float64{1, 4, 16, 64}, all, 20, 8, maxShardImbalance},
		{"one group", 1, []float64{1}, []string{"lp"}, 40, 4, maxShardImbalance},
		{"many small", 3, []float64{1, 1, 1, 1, 1, 1}, []string{"uncapped", "static"}, 3, 5, maxShardImbalance},
		{"more shards than points", 1, []float64{1}, []string{"static"}, 5, 3, 1.35},
	} {
		t.Run(c.name, func(t *testing.T) {
			pts, size := sweepShape(c.machines, c.sizes, c.policies, c.caps)
			plan := Plan(pts, c.shards, size)
			if len(plan) != c.shards {
				t.Fatalf("%d shards", len(plan))
			}
			seen := make([]int, len(pts))
			for _, s := range plan {
				for _, ch := range s {
					if ch.lo < 0 || ch.hi > len(ch.group) || ch.lo >= ch.hi {
						t.Fatalf("chunk %d:%d of a %d-point group", ch.lo, ch.hi, len(ch.group))
					}
					for _, p := range ch.group[ch.lo:ch.hi] {
						seen[p.Index]++
						if p.Group != ch.group[0].Group {
							t.Fatalf("chunk mixes groups %d and %d", p.Group, ch.group[0].Group)
						}
					}
				}
			}
			for i, n := range seen {
				if n != 1 {
					t.Fatalf("point %d in %d shards", i, n)
				}
			}
			loads := shardLoads(plan)
			lo, hi := loads[0], loads[0]
			for _, l := range loads {
				lo, hi = min(lo, l), max(hi, l)
			}
			if lo <= 0 || hi > c.ratio*lo {
				t.Errorf("shard loads %v: max/min %.3f, want ≤ %.2f", loads, hi/lo, c.ratio)
			}
			again := Plan(pts, c.shards, size)
			if fmt.Sprint(shardLoads(again)) != fmt.Sprint(loads) {
				t.Error("plan not deterministic")
			}
		})
	}
}

// TestShardsMatchOneRun runs the default scenario (Replayer: real replays
// and LP solves) whole and in 4 shards, some of whose groups are split
// between shards, and checks that the merged tables equal the single
// run's byte for byte: a split group's later chunk re-solves the LP path
// before it, as a resumed group does.
func TestShardsMatchOneRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the default sweep five times")
	}
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	pts := sc.Points()
	plan := Plan(pts, 4, sc.workloadSizes())
	split := false
	for _, s := range plan {
		for _, c := range s {
			split = split || c.lo > 0
		}
	}
	if !split {
		t.Fatal("no group of the default sweep is split over 4 shards: the test would not test splitting")
	}
	base := t.TempDir()
	one := filepath.Join(base, "one")
	if _, err := Run(context.Background(), sc, Replayer{}, RunOptions{OutDir: one, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	var shards []string
	for k := 0; k < 4; k++ {
		d := filepath.Join(base, fmt.Sprintf("s%d", k))
		if _, err := Run(context.Background(), sc, Replayer{}, RunOptions{OutDir: d, Shard: Shard{K: k, Of: 4}, Workers: 2}); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d)
	}
	merged := filepath.Join(base, "merged")
	st, _, err := results.Merge(merged, shards, results.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	sameFiles(t, one, merged)
}

// A plan may deal one group's points to a shard in runs that are not
// contiguous (refinePoints: stencil32's conductor points at three runs of
// caps in one shard); the shard re-solves the LP chain before each run,
// and the merged results equal one run's byte for byte.
func TestShardsNonContiguousMatchOneRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the stencil32 sweep five times")
	}
	sc, err := Load(filepath.Join("..", "examples", "bound", "stencil32.toml"))
	if err != nil {
		t.Fatal(err)
	}
	apart := false
	for _, s := range PlanWeights(sc.Points(), 4, sc.workloadWeights()) {
		runs := map[int]int{}
		for _, c := range s {
			runs[c.group[0].Group]++
			apart = apart || runs[c.group[0].Group] > 1
		}
	}
	if !apart {
		t.Fatal("no shard of stencil32 holds a group in runs apart: the test would not test them")
	}
	base := t.TempDir()
	one := filepath.Join(base, "one")
	if _, err := Run(context.Background(), sc, Replayer{}, RunOptions{OutDir: one, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	var shards []string
	for k := 0; k < 4; k++ {
		d := filepath.Join(base, fmt.Sprintf("s%d", k))
		if _, err := Run(context.Background(), sc, Replayer{}, RunOptions{OutDir: d, Shard: Shard{K: k, Of: 4}, Workers: 2}); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d)
	}
	merged := filepath.Join(base, "merged")
	st, _, err := results.Merge(merged, shards, results.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	sameFiles(t, one, merged)
}

// More shards than points is refused before anything is planned or
// written, with both numbers: a huge N would otherwise allocate a plan of
// N shards.
func TestShardCountBounded(t *testing.T) {
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	n := len(sc.Points())
	dir := t.TempDir()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu := testenv.CPUTime()
	_, err = Run(context.Background(), sc, Replayer{}, RunOptions{OutDir: dir, Shard: Shard{K: 1, Of: 1000000000}})
	cpu = testenv.CPUTime() - cpu
	runtime.ReadMemStats(&after)
	want := fmt.Sprintf("1000000000 shards for %d points", n)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want one containing %q", err, want)
	}
	// What refusing costs, counted where a loaded machine cannot stretch
	// it: the bytes allocated (a plan of 10^9 shards is gigabytes) and
	// the CPU time.
	if b := after.TotalAlloc - before.TotalAlloc; b > 64<<20 {
		t.Errorf("refusing allocated %d MiB", b>>20)
	}
	if cpu > 5*time.Second {
		t.Errorf("refusing took %v of CPU", cpu)
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		t.Errorf("refused run wrote %d files", len(ents))
	}
}

// The estimate's plan keeps the groups that share an LP (one workload's
// capped policies) in one shard when the shards balance without
// splitting them: 12 workloads × 3 capped policies × 10 caps over 4
// shards build 12 LPs in all, not one per workload and shard that holds
// a piece of it (which doubled the sweep's CPU time and left shards 1.6×
// apart). The plan taken for the estimates' spread (robustPlan) splits
// at most a quarter of them in two or three. An LP solve's weight
// follows its blocks: an exact LP of T tasks weighs T², one cut into
// blocks of 64 weighs 64·T.
func TestPlanKeepsLPTogether(t *testing.T) {
	pts, size := sweepShape(1, []float64{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}, []string{"uncapped", "static", "conductor", "lp"}, 10)
	// builds returns the shards that build each workload's LP and their
	// number in all.
	builds := func(plan [][]chunk) (map[string]map[int]bool, int) {
		where := map[string]map[int]bool{}
		n := 0
		for k, s := range plan {
			for _, c := range s {
				if !capped(c.group) {
					continue // no LP: the uncapped point goes where it balances
				}
				key := lpKey(c.group[0])
				if where[key] == nil {
					where[key] = map[int]bool{}
				}
				if !where[key][k] {
					n++
				}
				where[key][k] = true
			}
		}
		return where, n
	}
	_, runs, _, _ := planRuns(pts, 4, Weights{Replay: size, Solve: size})
	where, _ := builds(runs)
	for key, shards := range where {
		if len(shards) != 1 {
			t.Errorf("workload %s is in shards %v", key, shards)
		}
	}
	where, n := builds(Plan(pts, 4, size))
	split := 0
	for key, shards := range where {
		if len(shards) > 1 {
			split++
		}
		if len(shards) > 3 {
			t.Errorf("workload %s is in shards %v", key, shards)
		}
	}
	if split > 3 {
		t.Errorf("%d of 12 workloads split (%d LP builds)", split, n)
	}
	for _, tc := range []struct{ tasks, cut, want int }{{160, 0, 160}, {512, 0, 512}, {640, 0, 64}, {640, -1, 640}, {640, 100, 100}, {50, 100, 50}, {0, 0, 1}} {
		if got := blockTasks(tc.tasks, tc.cut); got != tc.want {
			t.Errorf("blockTasks(%d, %d) = %d, want %d", tc.tasks, tc.cut, got, tc.want)
		}
	}
}

// shapeTOML is the default scenario swept over 12 workloads: iterations
// 10 to 80 (160 to 1280 tasks; the LPs of 640 and more are cut into
// blocks of 64) and three balances.
func shapeScenario(t *testing.T) *Scenario {
	t.Helper()
	text := string(Default()) + "\n[sweep.params]\niterations = [10, 20, 40, 80]\nbalance = [0.25, 0.5, 1.0]\n"
	sc, err := Parse("shape.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// The cost model's estimate of each workload's work agrees with the CPU
// time measured for it (CAPSIM_SWEEP_TRACE spans of a one-worker sweep of
// shapeScenario: groups and replays, mean of the three balances) within
// 20 %, and so ranks the workloads as measured: 80 iterations cost the
// most, and 20 more than 40 (whose LP is cut into blocks). Weighing the lp
// policy's point as one replay put 20 iterations above 80.
func TestShardCostModel(t *testing.T) {
	sc := shapeScenario(t)
	measured := map[int]float64{10: 0.49, 20: 1.45, 40: 1.15, 80: 2.49} // CPU seconds
	w := sc.workloadWeights()
	est := map[int]float64{}
	pts := sc.Points()
	for _, c := range PlanWeights(pts, 1, w)[0] { // one shard: no workload split
		est[int(c.group[0].Params["iterations"].(int64))] += c.cost / 1e6 / 3
	}
	t.Logf("estimated %v, measured %v", est, measured)
	for it, m := range measured {
		if e := est[it]; e < m/1.2 || e > m*1.2 {
			t.Errorf("%d iterations: estimated %.2f s, measured %.2f s", it, e, m)
		}
	}
	if !(est[80] > est[20] && est[20] > est[40] && est[40] > est[10]) {
		t.Errorf("estimates %v do not rank as measured", est)
	}
	for _, n := range []int{2, 3, 4, 5} {
		loads := shardLoads(PlanWeights(pts, n, w))
		if r := slices.Max(loads) / slices.Min(loads); r > planImbalance {
			t.Errorf("%d shards: estimated loads %v, max/min %.3f > %.2f", n, loads, r, planImbalance)
		}
	}
}

// Caps at or above a workload's uncapped average power cost the LP almost
// nothing (gpu-node's CPU machine averages 400 W: its LP chain took 219
// ms at 300 W and 1 ms at each cap from 400 to 900 W), so the plan weighs
// a workload by the caps that bind on its machine, not by their number.
func TestShardCostBindingCaps(t *testing.T) {
	sc, err := Load(filepath.Join("..", "examples", "scenarios", "gpu-node.toml"))
	if err != nil {
		t.Fatal(err)
	}
	w := sc.workloadWeights()
	var g []Point // the CPU machine's static group: one point per cap
	for _, p := range sc.Points() {
		if p.Machine == 0 && p.Policy == "static" {
			g = append(g, p)
		}
	}
	avg, floor := w.Power(g[0])
	if math.Abs(avg-400) > 1 || floor <= 0 || floor >= avg {
		t.Fatalf("power %g W average, %g W least; want 400 and a lower floor", avg, floor)
	}
	wt := weight{replay: w.Replay(g[0]), solve: w.Solve(g[0]), avgW: avg, floorW: floor}
	first, rest := chainCost(g, 0, 1, wt), chainCost(g, 0, len(g), wt)-chainCost(g, 0, 1, wt)
	if rest > first/10 {
		t.Errorf("caps 400-900 W estimated %.0f µs against %.0f µs at 300 W", rest, first)
	}
}

// evenRuns cuts a workload's caps into runs whose costliest is the least
// costly of every way to cut them into that many runs or fewer (checked
// against all the cuts of 7 and 10 caps), and its runs cover the caps in
// order.
func TestEvenRuns(t *testing.T) {
	for _, c := range []struct {
		caps int
		w    weight
	}{
		// Caps 100, 101, … W: all bind, the upper ones do not, the
		// lowest is below the floor, depth unknown.
		{7, weight{replay: 11200, solve: 40960, avgW: 105, floorW: 99}},
		{10, weight{replay: 4800, solve: 102400, avgW: 108, floorW: 100.5}},
		{10, weight{replay: 4800, solve: 102400}},
	} {
		pts, _ := sweepShape(1, []float64{1}, []string{"uncapped", "static", "conductor", "lp"}, c.caps)
		var groups [][]Point
		for lo := 0; lo < len(pts); {
			hi := lo + 1
			for hi < len(pts) && pts[hi].Group == pts[lo].Group {
				hi++
			}
			groups = append(groups, pts[lo:hi])
			lo = hi
		}
		for runs := 1; runs <= c.caps; runs++ {
			got := evenRuns(groups, c.caps, runs, c.w)
			if len(got) > runs || got[0].lo != 0 || got[len(got)-1].hi != c.caps {
				t.Fatalf("%d caps in %d runs: %d runs, %d…%d", c.caps, runs, len(got), got[0].lo, got[len(got)-1].hi)
			}
			worst := 0.0
			for i, pt := range got {
				if i > 0 && pt.lo != got[i-1].hi {
					t.Fatalf("%d caps in %d runs: run %d starts at %d, the one before ends at %d", c.caps, runs, i, pt.lo, got[i-1].hi)
				}
				worst = max(worst, pt.cost)
			}
			// The least costliest run of every cut into at most runs
			// runs: cuts are the subsets of the caps 1…n-1 a run starts at.
			least := math.Inf(1)
			for mask := 0; mask < 1<<(c.caps-1); mask++ {
				starts := []int{0}
				for k := 1; k < c.caps; k++ {
					if mask&(1<<(k-1)) != 0 {
						starts = append(starts, k)
					}
				}
				if len(starts) > runs {
					continue
				}
				m := 0.0
				for i, lo := range starts {
					hi := c.caps
					if i+1 < len(starts) {
						hi = starts[i+1]
					}
					m = max(m, newPart(groups, lo, hi, c.w).cost)
				}
				least = min(least, m)
			}
			if worst > least*(1+1e-9) {
				t.Errorf("%d caps in %d runs: costliest run %.0f, least possible %.0f", c.caps, runs, worst, least)
			}
		}
	}
}

// A shard starts its LPs in order of their serial work (building the LP
// and solving its chains' caps), the longest first, and keeps each part's
// chunks together: on the 372-point shape over 4 shards, a shard whose
// last LP was a 320-task one (the longest chain of solves) left one of
// two workers waiting for its caps.
func TestShardChunkOrder(t *testing.T) {
	sc := shapeScenario(t)
	for k, s := range PlanWeights(sc.Points(), 4, sc.workloadWeights()) {
		seen := map[string]bool{}
		for i, c := range s {
			if i > 0 && c.path > s[i-1].path {
				t.Errorf("shard %d: chunk %d's serial work %.0f µs after %.0f µs", k, i, c.path, s[i-1].path)
			}
			key := lpKey(c.group[0])
			if seen[key] && lpKey(s[i-1].group[0]) != key {
				t.Errorf("shard %d: workload %s's chunks apart", k, key)
			}
			seen[key] = true
		}
	}
}

// stencil32 (one workload of 7 caps, 22 points) over 4 shards: the plan
// cuts its caps into even runs. Halving runs of caps, the plan before,
// was estimated 1.48 apart (measured 1.43 in CPU time).
func TestShardOneWorkload(t *testing.T) {
	sc, err := Load(filepath.Join("..", "examples", "bound", "stencil32.toml"))
	if err != nil {
		t.Fatal(err)
	}
	loads := shardLoads(PlanWeights(sc.Points(), 4, sc.workloadWeights()))
	if r := slices.Max(loads) / slices.Min(loads); r > 1.3 {
		t.Errorf("estimated loads %v: max/min %.3f", loads, r)
	}
}

// Parts of one workload in one shard cost one LP build and each chain
// up to the highest cap a part needs: runs that meet cost what the run
// they make up costs, and a shard that holds them is loaded by that.
func TestMergedCost(t *testing.T) {
	pts, _ := sweepShape(1, []float64{1}, []string{"uncapped", "static", "conductor", "lp"}, 25)
	var groups [][]Point
	for lo := 0; lo < len(pts); {
		hi := lo + 1
		for hi < len(pts) && pts[hi].Group == pts[lo].Group {
			hi++
		}
		groups = append(groups, pts[lo:hi])
		lo = hi
	}
	w := weight{replay: 4800, solve: 102400, avgW: 120, floorW: 99}
	whole := newPart(groups, 0, 25, w)
	for _, cut := range [][]int{{0, 3, 25}, {0, 9, 10, 25}, {0, 12, 13, 14, 25}} {
		var runs []part
		for i := 1; i < len(cut); i++ {
			runs = append(runs, newPart(groups, cut[i-1], cut[i], w))
		}
		if got := mergedCost(runs); math.Abs(got-whole.cost) > 1e-6*whole.cost {
			t.Errorf("runs %v: %.0f µs, the whole workload %.0f", cut, got, whole.cost)
		}
	}
	// Caps 0-4 and 20-24 (chains of caps 0-7, 8-15 and 16-24): one
	// LP, the middle chain not solved.
	a, b := newPart(groups, 0, 5, w), newPart(groups, 20, 25, w)
	want := a.cost + b.cost - usBuildTB*w.solve
	if got := mergedCost([]part{a, b}); math.Abs(got-want) > 1e-6*want {
		t.Errorf("caps 0-4 and 20-24: %.0f µs, want %.0f", got, want)
	}
}

// Moving single points (refiner) on stencil32 over 4 shards lowers the
// most loaded shard's estimated work below the best plan of runs of caps
// by at least refineGain, keeps every point in exactly one shard, and
// loads each shard with what its chunks say (each workload's LP built
// once per shard, its chains solved up to the highest cap held).
func TestRefinePoints(t *testing.T) {
	sc, err := Load(filepath.Join("..", "examples", "bound", "stencil32.toml"))
	if err != nil {
		t.Fatal(err)
	}
	pts, w := sc.Points(), sc.workloadWeights()
	parts, runs, _, _ := planRuns(pts, 4, w)
	r := newRefiner(parts, runs)
	before := slices.Max(r.load)
	if got := slices.Max(shardLoads(runs)); math.Abs(got-before) > 1e-6*before {
		t.Fatalf("refiner loads %v, the plan's %v", r.load, shardLoads(runs))
	}
	r.improve()
	plan := r.plan()
	after := slices.Max(shardLoads(plan))
	if after > before*(1-refineGain) {
		t.Errorf("most loaded shard %.0f µs after moving points, %.0f before", after, before)
	}
	seen := make([]int, len(pts))
	for _, s := range plan {
		for _, c := range s {
			for _, p := range c.group[c.lo:c.hi] {
				seen[p.Index]++
			}
		}
	}
	for i, n := range seen {
		if n != 1 {
			t.Errorf("point %d in %d shards", i, n)
		}
	}
	// The loads are those of the chunks as shards run them: one LP per
	// workload held, chains up to the highest cap held.
	for k, s := range plan {
		load := 0.0
		held := map[int][]bool{} // workload (index in parts) → caps held
		for _, c := range s {
			wl := slices.IndexFunc(parts, func(pt part) bool {
				return slices.ContainsFunc(pt.groups, func(g []Point) bool { return &g[0] == &c.group[0] })
			})
			for _, p := range c.group[c.lo:c.hi] {
				load += pointCost(p, parts[wl].w)
			}
			if capped(c.group) {
				if held[wl] == nil {
					held[wl] = make([]bool, len(c.group))
				}
				for i := c.lo; i < c.hi; i++ {
					held[wl][i] = true
				}
			}
		}
		for wl, at := range held {
			w, caps := parts[wl].w, capsGroup(parts[wl].groups)
			load += usBuildTB * w.solve
			for _, ch := range lpchain.Split(len(caps)) {
				for k := ch[1] - 1; k >= ch[0]; k-- {
					if at[k] {
						load += chainCost(caps, ch[0], k+1, w)
						break
					}
				}
			}
		}
		if got := shardLoads(plan)[k]; math.Abs(got-load) > 1e-6*load {
			t.Errorf("shard %d: chunks load %.0f µs, plan says %.0f", k, load, got)
		}
	}
	if fmt.Sprint(shardLoads(PlanWeights(pts, 4, w))) != fmt.Sprint(shardLoads(sortChunks(plan))) {
		t.Error("PlanWeights is not the refined plan")
	}
}

// Planning a large workload stays quick: one workload of 200 caps (601
// points) over 16 shards plans in 2 s of CPU, where refining up to 4
// parts per point took 27 s in every shard process; its plan is as
// balanced (estimated 1.10 apart). The CPU time is counted, not the wall
// time, which a loaded machine stretches without bound.
func TestPlanLargeWorkloadBounded(t *testing.T) {
	pts, size := sweepShape(1, []float64{1}, []string{"uncapped", "static", "conductor", "lp"}, 200)
	cpu := testenv.CPUTime()
	loads := shardLoads(Plan(pts, 16, size))
	if d := testenv.CPUTime() - cpu; d > 15*time.Second {
		t.Errorf("planning took %v of CPU", d)
	}
	if r := slices.Max(loads) / slices.Min(loads); r > 1.15 {
		t.Errorf("estimated loads %v: max/min %.3f", loads, r)
	}
}
