package scenarios

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/lpchain"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// TestLPShareBuildsOnce checks that the groups of one machine and
// parameter values get one bounder, built once, closed after the last
// group releases it, and that other parameter values get their own.
func TestLPShareBuildsOnce(t *testing.T) {
	a := Point{Machine: 0, Policy: "static", Params: map[string]any{"iterations": int64(2)}}
	b := Point{Machine: 0, Policy: "lp", Params: map[string]any{"iterations": int64(2)}}
	c := Point{Machine: 0, Policy: "lp", Params: map[string]any{"iterations": int64(3)}}
	u := Point{Machine: 0, Policy: "uncapped", Params: map[string]any{"iterations": int64(2)}}
	l := newLPShare([][]Point{{u}, {a}, {b}, {c}}, nil)
	builds := 0
	build := func() (*bounder, error) { builds++; return &bounder{}, nil }
	ba, _ := l.get(lpKey(a), build)
	bb, _ := l.get(lpKey(b), build)
	bc, _ := l.get(lpKey(c), build)
	if builds != 2 || ba != bb || ba == bc {
		t.Fatalf("built %d bounders (want 2), same for one workload %v, same for two %v", builds, ba == bb, ba == bc)
	}
	wbuilds := 0
	wbuild := func() (*mpi.Trace, *graph.Graph, error) { wbuilds++; return &mpi.Trace{}, nil, nil }
	ta, _, _ := l.workload(lpKey(a), wbuild)
	tb, _, _ := l.workload(lpKey(b), wbuild)
	tc, _, _ := l.workload(lpKey(c), wbuild)
	if wbuilds != 2 || ta != tb || ta == tc {
		t.Fatalf("built %d workloads (want 2), same for one workload %v, same for two %v", wbuilds, ta == tb, ta == tc)
	}
	l.release(lpKey(a))
	if len(l.bds) != 2 {
		t.Fatalf("after the first of two groups: %d bounders held, want 2", len(l.bds))
	}
	l.release(lpKey(b))
	l.release(lpKey(c))
	if len(l.bds) != 0 || len(l.wls) != 0 {
		t.Fatalf("after every group: %d bounders and %d workloads held, want 0", len(l.bds), len(l.wls))
	}
}

// TestSharedLPMatchesOwn runs the default scenario's policy groups at
// once on one shared LP and checks every point's metrics equal those of
// the group run alone on its own LP (the chain of caps each group would
// solve), whatever order the groups reach the caps in.
func TestSharedLPMatchesOwn(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	sc, all := defaultGroups(t, []float64{290, 300, 310, 320}) // its first four caps
	run := func(pts []Point, lps *lpShare) map[int]Metrics {
		out := map[int]Metrics{}
		err := evaluate(context.Background(), sc, pts, func(p Point, m Metrics) error { out[p.Index] = m; return nil }, lps)
		if err != nil {
			t.Error(err)
		}
		return out
	}
	own := map[int]Metrics{}
	for _, g := range all {
		for k, m := range run(g, nil) {
			own[k] = m
		}
	}
	lps := newLPShare(all, sc.Sweep.CapsW)
	var mu sync.Mutex
	var wg sync.WaitGroup
	shared := map[int]Metrics{}
	for i, pts := range all {
		if i%2 == 1 { // a later chunk of the group first: it re-solves the caps before
			pts[0].Done, pts[1].Done = true, true
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := run(pts, lps)
			mu.Lock()
			defer mu.Unlock()
			for k, m := range r {
				shared[k] = m
			}
		}()
	}
	wg.Wait()
	if len(lps.bds) != 0 {
		t.Errorf("%d bounders left open", len(lps.bds))
	}
	for k, m := range shared {
		if !reflect.DeepEqual(m, own[k]) {
			t.Errorf("point %d: shared LP gives %+v, its own %+v", k, m, own[k])
		}
	}
	if len(shared) == 0 || len(shared) >= len(own) {
		t.Errorf("%d points evaluated shared, %d alone", len(shared), len(own))
	}
}

// TestInterleave checks the feed order of groups: LPs in batches of the
// worker count, each batch's groups round-robin over its LPs, lp groups
// first, every group once.
func TestInterleave(t *testing.T) {
	g := func(it int64, pol string) []Point {
		return []Point{{Policy: pol, Params: map[string]any{"iterations": it}}}
	}
	var in [][]Point
	for _, it := range []int64{1, 2, 3} {
		for _, pol := range []string{"uncapped", "static", "lp"} {
			in = append(in, g(it, pol))
		}
	}
	name := func(gs [][]Point) []string {
		var s []string
		for _, x := range gs {
			s = append(s, fmt.Sprint(x[0].Params["iterations"], x[0].Policy))
		}
		return s
	}
	for _, tc := range []struct {
		workers int
		want    string
	}{
		{1, "[1lp 1static 1uncapped 2lp 2static 2uncapped 3lp 3static 3uncapped]"},
		{2, "[1lp 2lp 1static 2static 1uncapped 2uncapped 3lp 3static 3uncapped]"},
		{4, "[1lp 2lp 3lp 1static 2static 3static 1uncapped 2uncapped 3uncapped]"},
	} {
		if got := fmt.Sprint(name(interleave(in, tc.workers, nil))); got != tc.want {
			t.Errorf("%d workers: %s, want %s", tc.workers, got, tc.want)
		}
	}
	// Two LPs of two chains each (20 caps): with 2 workers the first
	// batch holds both LPs' first chains, so both are built at once.
	var caps []float64
	for c := 290.0; c < 390; c += 5 {
		caps = append(caps, c)
	}
	in = nil
	for _, it := range []int64{1, 2} {
		for _, c := range []float64{290, 340} {
			in = append(in, []Point{{Policy: "lp", CapW: c, Params: map[string]any{"iterations": it}}})
		}
	}
	named := func(gs [][]Point) string {
		var s []string
		for _, x := range gs {
			s = append(s, fmt.Sprint(x[0].Params["iterations"], "@", x[0].CapW))
		}
		return fmt.Sprint(s)
	}
	for _, tc := range []struct {
		workers int
		want    string
	}{
		{1, "[1@290 1@340 2@290 2@340]"},
		{2, "[1@290 2@290 1@340 2@340]"},
	} {
		if got := named(interleave(in, tc.workers, caps)); got != tc.want {
			t.Errorf("two LPs, %d workers: %s, want %s", tc.workers, got, tc.want)
		}
	}
	// One LP of two chains: its lower chain's groups go first, at any
	// worker count (the lower caps' solves are the critical path).
	in = nil
	for _, c := range []float64{290, 295, 340, 345} {
		for _, pol := range []string{"static", "lp"} {
			in = append(in, []Point{{Policy: pol, CapW: c, Params: map[string]any{"iterations": int64(1)}}})
		}
	}
	for _, workers := range []int{1, 2, 3} {
		got := named(interleave(in, workers, caps))
		if want := "[1@290 1@295 1@290 1@295 1@340 1@345 1@340 1@345]"; got != want {
			t.Errorf("one LP, %d workers: %s, want %s", workers, got, want)
		}
		if got := interleave(in, workers, caps); got[0][0].Policy != "lp" || got[4][0].Policy != "lp" {
			t.Errorf("one LP, %d workers: lp groups not first in their chain", workers)
		}
	}
}

// TestWorkersSameResults sweeps the default scenario over 12 caps (two
// LP chains, solved at the same time by two workers) with 1 and 2
// workers and checks the results files are byte-identical: the chains
// are the caps', not the workers'.
func TestWorkersSameResults(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	sc.Sweep.CapsW = nil
	for c := 290.0; c < 350; c += 5 {
		sc.Sweep.CapsW = append(sc.Sweep.CapsW, c)
	}
	if n := len(lpchain.Split(len(sc.Sweep.CapsW))); n != 2 {
		t.Fatalf("%d caps make %d LP chains, want 2", len(sc.Sweep.CapsW), n)
	}
	base := t.TempDir()
	var dirs []string
	for _, w := range []int{1, 2, 3} {
		d := filepath.Join(base, fmt.Sprint(w))
		if _, err := Run(context.Background(), sc, Replayer{}, RunOptions{OutDir: d, Workers: w}); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	sameFiles(t, dirs[0], dirs[1])
	sameFiles(t, dirs[0], dirs[2])
}

// TestLPPointsAnyOrder checks that the lp policy's points depend on
// their caps' chain alone: its points of one chain, each a group of its
// own (as splitLP makes them), planned at once by two goroutines on one
// shared LP in reverse cap order, equal the group run in cap order on its
// own LP. Each plans on a fork of the chain's LP at its cap
// (bounder.fork), not after the points before it.
func TestLPPointsAnyOrder(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	sc.Sweep.CapsW = []float64{290, 300, 310, 320, 330, 340}
	var group []Point
	for _, p := range sc.Points() {
		if p.Policy == "lp" {
			group = append(group, p)
		}
	}
	want := map[int]Metrics{}
	if err := evaluate(context.Background(), sc, group, func(p Point, m Metrics) error { want[p.Index] = m; return nil }, nil); err != nil {
		t.Fatal(err)
	}
	done := slices.Clone(group)
	done[0].Done = true
	if got := splitLP([][]Point{done}); len(got) != len(group)-1 || got[0][0].CapW != group[1].CapW {
		t.Fatalf("splitLP: %d groups from %d points (1 done), want %d of one", len(got), len(group), len(group)-1)
	}
	groups := splitLP([][]Point{group})
	slices.Reverse(groups)
	lps := newLPShare(groups, sc.Sweep.CapsW)
	var mu sync.Mutex
	got := map[int]Metrics{}
	next := make(chan []Point)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range next {
				err := evaluate(context.Background(), sc, g, func(p Point, m Metrics) error {
					mu.Lock()
					defer mu.Unlock()
					got[p.Index] = m
					return nil
				}, lps)
				if err != nil {
					t.Error(err)
				}
			}
		}()
	}
	for _, g := range groups {
		next <- g
	}
	close(next)
	wg.Wait()
	if len(got) != len(want) {
		t.Fatalf("%d points planned in any order, %d in order", len(got), len(want))
	}
	for k, m := range want {
		if !reflect.DeepEqual(got[k], m) {
			t.Errorf("point %d: in any order %+v, in order %+v", k, got[k], m)
		}
	}
}

// TestPreReplayMatchesGroup checks that the points replayed ahead of
// their group (prereplay, before the LP is built) get the metrics, bounds
// included, of the group replaying them on its own LP, and that the
// groups take every replay made ahead.
func TestPreReplayMatchesGroup(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	sc, all := defaultGroups(t, []float64{290, 310, 330, 350})
	own := map[int]Metrics{}
	for _, g := range all {
		if err := evaluate(context.Background(), sc, g, func(p Point, m Metrics) error { own[p.Index] = m; return nil }, nil); err != nil {
			t.Fatal(err)
		}
	}
	lps := newLPShare(all, sc.Sweep.CapsW)
	pre := 0
	for _, g := range all {
		if pol := g[0].Policy; pol == "static" || pol == "conductor" {
			prereplay(context.Background(), sc, g, lps)
			pre += len(g)
		}
	}
	if pre == 0 || len(lps.pre) != pre {
		t.Fatalf("%d points replayed ahead, want the static and conductor policies' %d", len(lps.pre), pre)
	}
	got := map[int]Metrics{}
	for _, g := range all {
		if err := evaluate(context.Background(), sc, g, func(p Point, m Metrics) error { got[p.Index] = m; return nil }, lps); err != nil {
			t.Fatal(err)
		}
	}
	if len(lps.pre) != 0 {
		t.Errorf("%d replays made ahead left untaken", len(lps.pre))
	}
	for k, m := range own {
		if !reflect.DeepEqual(got[k], m) {
			t.Errorf("point %d: replayed ahead %+v, by its group %+v", k, got[k], m)
		}
	}
}

// TestPreReplaysOrder checks where preReplays puts the replays that need
// no LP: after the first tasks, one per LP they build at once.
func TestPreReplaysOrder(t *testing.T) {
	pt := func(pol string, machine int) []Point { return []Point{{Policy: pol, Machine: machine, CapW: 300}} }
	name := func(tasks []task) string {
		var s []string
		for _, tk := range tasks {
			n := fmt.Sprint(tk.pts[0].Policy, tk.pts[0].Machine)
			if tk.pre {
				n = "pre " + n
			}
			s = append(s, n)
		}
		return strings.Join(s, ", ")
	}
	for _, c := range []struct {
		in      [][]Point
		workers int
		want    string
	}{
		{[][]Point{pt("lp", 0), pt("lp", 0), pt("conductor", 0), pt("static", 0), pt("uncapped", 0)}, 2,
			"lp0, pre conductor0, pre static0, uncapped0, lp0, conductor0, static0"},
		{[][]Point{pt("lp", 0), pt("lp", 1), pt("static", 0), pt("static", 1)}, 2,
			"lp0, lp1, pre static0, pre static1, static0, static1"},
		{[][]Point{pt("lp", 0), pt("lp", 1), pt("static", 0)}, 1,
			"lp0, pre static0, lp1, static0"},
		{[][]Point{pt("lp", 0)}, 2, "lp0"},
	} {
		var in []task
		for _, g := range c.in {
			in = append(in, task{pts: g})
		}
		if got := name(preReplays(in, c.workers)); got != c.want {
			t.Errorf("%d workers: %s, want %s", c.workers, got, c.want)
		}
	}
}

// TestTaskQueue checks the order in which workers take tasks: in order,
// except that a task that is not ready yields to the first later one that
// is (within queueLookahead), the first task where none is; every task
// once; none after the context is done.
func TestTaskQueue(t *testing.T) {
	mk := func(names ...string) []task {
		var ts []task
		for _, n := range names {
			ts = append(ts, task{pts: []Point{{Policy: n}}})
		}
		return ts
	}
	for _, tc := range []struct {
		name     string
		tasks    []task
		notReady string // tasks with this policy are not ready
		want     string
	}{
		{"all ready", mk("a", "b", "c"), "", "a b c"},
		{"first waits", mk("w", "a", "w", "b"), "w", "a b w w"},
		{"none ready", mk("w", "w"), "w", "w w"},
		{"no ready func", mk("w", "a"), "-", "w a"},
	} {
		q := &taskQueue{tasks: tc.tasks}
		if tc.notReady != "-" {
			q.ready = func(tk task) bool { return tk.pts[0].Policy != tc.notReady }
		}
		var got []string
		for {
			tk, ok := q.next(context.Background())
			if !ok {
				break
			}
			got = append(got, tk.pts[0].Policy)
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("%s: took %q, want %q", tc.name, s, tc.want)
		}
	}
	// Beyond the lookahead the first task is taken.
	far := append(mk(make([]string, queueLookahead+1)...), mk("a")...)
	for i := range far[:queueLookahead+1] {
		far[i].pts[0].Policy = "w"
	}
	q := &taskQueue{tasks: far, ready: func(tk task) bool { return tk.pts[0].Policy != "w" }}
	if tk, _ := q.next(context.Background()); tk.pts[0].Policy != "w" {
		t.Errorf("took the ready task %d places ahead, past the lookahead of %d", queueLookahead+1, queueLookahead)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := (&taskQueue{tasks: mk("a")}).next(ctx); ok {
		t.Error("a task taken after the context was done")
	}
}

// defaultGroups returns the default scenario at caps and its points'
// groups, in the order of their first points.
func defaultGroups(t *testing.T, caps []float64) (*Scenario, [][]Point) {
	t.Helper()
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	sc.Sweep.CapsW = caps
	byGroup := map[int][]Point{}
	var order []int
	for _, p := range sc.Points() {
		if _, ok := byGroup[p.Group]; !ok {
			order = append(order, p.Group)
		}
		byGroup[p.Group] = append(byGroup[p.Group], p)
	}
	groups := make([][]Point, len(order))
	for i, g := range order {
		groups[i] = byGroup[g]
	}
	return sc, groups
}
