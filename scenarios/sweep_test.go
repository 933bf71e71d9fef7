package scenarios

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/scenarios/results"
)

// fakeEval derives metrics from the point alone, like a real evaluator,
// optionally sleeping so a test can kill a sweep half-way.
type fakeEval struct {
	delay time.Duration
	// stall, when set, blocks the evaluator for good once it has emitted
	// that many points (counted in stalled), so that a process killed
	// afterwards is always killed mid-sweep, however loaded the machine.
	stall   int
	stalled *atomic.Int64
}

func (f fakeEval) Evaluate(ctx context.Context, sc *Scenario, pts []Point, emit func(Point, Metrics) error) error {
	for _, p := range pts {
		if err := ctx.Err(); err != nil {
			return err
		}
		if p.Done {
			continue
		}
		time.Sleep(f.delay)
		it, _ := p.Params["iterations"].(int64)
		if l, ok := p.Params["network.L_ns"].(int64); ok { // a trace's axis
			it = l / 100
		}
		m := Metrics{MakespanNs: 1e6*it + int64(1e9/(p.CapW+1)), EnergyJ: p.CapW / 3, AvgPowerW: p.CapW * 0.9, PeakPowerW: p.CapW}
		if p.Policy == "static" && p.CapW > 120 {
			m.BoundNs = m.MakespanNs - 1000
		}
		if f.stall > 0 && f.stalled.Load() >= int64(f.stall) {
			time.Sleep(time.Hour) // the parent kills this process
		}
		if err := emit(p, m); err != nil {
			return err
		}
		if f.stalled != nil {
			f.stalled.Add(1)
		}
	}
	return nil
}

const sweepTOML = `
name = "t"
[[machine]]
name = "a"
nodes = 1
cores_per_socket = 4
ranks_per_node = 4
[[machine.pstate]]
freq_ghz = 2.0
active_power_w = 10
[[machine]]
name = "b"
nodes = 2
cores_per_socket = 4
ranks_per_node = 4
[[machine.pstate]]
freq_ghz = 1.0
active_power_w = 5
[workload]
generator = "stencil2d"
[sweep]
caps_w = [100, 150, 200, 250]
policies = ["uncapped", "static"]
[sweep.params]
iterations = [10, 20]
`

func mustParse(t *testing.T) *Scenario {
	t.Helper()
	sc, err := Parse("t.toml", []byte(sweepTOML))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestPointsAndSchema(t *testing.T) {
	sc := mustParse(t)
	pts := sc.Points()
	// 2 machines × 2 iteration values × (1 uncapped + 4 static)
	if len(pts) != 20 {
		t.Fatalf("%d points, want 20", len(pts))
	}
	if pts[0].Policy != "uncapped" || pts[1].Policy != "static" || pts[1].CapW != 100 || pts[4].CapW != 250 {
		t.Fatalf("order: %+v %+v %+v", pts[0], pts[1], pts[4])
	}
	if pts[19].Machine != 1 || pts[19].Params["iterations"].(int64) != 20 || pts[19].Group != 7 {
		t.Fatalf("last point %+v", pts[19])
	}
	if i := sc.Schema().Index("param.iterations"); i < 0 || sc.Schema()[i].Type != results.Int64 {
		t.Fatalf("schema %v", sc.Schema())
	}
}

func runAll(t *testing.T, sc *Scenario, dir string, sh Shard) {
	t.Helper()
	if _, err := Run(context.Background(), sc, fakeEval{}, RunOptions{OutDir: dir, Shard: sh, Workers: 3}); err != nil {
		t.Fatal(err)
	}
}

func sameFiles(t *testing.T, a, b string) {
	t.Helper()
	for _, f := range []string{results.ArrowFile, results.CSVFile} {
		x, err1 := os.ReadFile(filepath.Join(a, f))
		y, err2 := os.ReadFile(filepath.Join(b, f))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between %s and %s", f, a, b)
		}
	}
}

func TestSweepDeterministicAndShards(t *testing.T) {
	sc := mustParse(t)
	base := t.TempDir()
	one, two := filepath.Join(base, "one"), filepath.Join(base, "two")
	runAll(t, sc, one, Shard{})
	runAll(t, sc, two, Shard{})
	sameFiles(t, one, two)
	csv, _ := os.ReadFile(filepath.Join(one, results.CSVFile))
	if n := strings.Count(string(csv), "\n"); n != 21 {
		t.Fatalf("csv has %d lines, want 21", n)
	}

	var shards []string
	for k := 0; k < 3; k++ {
		d := filepath.Join(base, fmt.Sprintf("s%d", k))
		runAll(t, sc, d, Shard{K: k, Of: 3})
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

func TestParseShard(t *testing.T) {
	if sh, err := ParseShard("2/5"); err != nil || sh != (Shard{2, 5}) {
		t.Fatalf("%v %v", sh, err)
	}
	for _, s := range []string{"5/5", "-1/3", "a/b", "1/0", "1/2/3", "1/2x"} {
		if _, err := ParseShard(s); err == nil {
			t.Errorf("ParseShard(%q) succeeded", s)
		}
	}
}

// TestKilledSweepResumes kills a sweep with SIGKILL in a child process
// part-way, resumes it here, and checks the table equals an uninterrupted run.
func TestKilledSweepResumes(t *testing.T) {
	if dir := os.Getenv("CAPSIM_SWEEP_CHILD"); dir != "" {
		Run(context.Background(), mustParse(t), fakeEval{delay: 20 * time.Millisecond, stall: 10, stalled: new(atomic.Int64)}, RunOptions{OutDir: dir, Workers: 2})
		return
	}
	sc := mustParse(t)
	base := t.TempDir()
	killed := filepath.Join(base, "killed")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledSweepResumes$")
	cmd.Env = append(os.Environ(), "CAPSIM_SWEEP_CHILD="+killed)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// The child stalls for good after 10 points: wait for 7 of them
	// however slowly a loaded machine starts it (the guard is only for a
	// child that never writes).
	journal := filepath.Join(killed, results.JournalFile)
	guard := time.After(5 * time.Minute)
wait:
	for {
		b, _ := os.ReadFile(journal)
		if bytes.Count(b, []byte("\n")) >= 8 {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the child exited before the kill: %v", err)
		case <-guard:
			break wait
		case <-time.After(2 * time.Millisecond):
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-exited
	b, _ := os.ReadFile(journal)
	finished := bytes.Count(b, []byte("\n")) - 1
	if finished < 7 || finished >= 20 {
		t.Fatalf("child finished %d points before the kill; want a partial sweep", finished)
	}
	if _, err := os.Stat(filepath.Join(killed, results.CSVFile)); err == nil {
		t.Fatal("a killed sweep left a results table")
	}
	sum, err := Run(context.Background(), sc, fakeEval{}, RunOptions{OutDir: killed, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != finished || sum.Computed != 20-finished {
		t.Errorf("resume skipped %d and computed %d; %d had finished", sum.Skipped, sum.Computed, finished)
	}
	clean := filepath.Join(base, "clean")
	runAll(t, sc, clean, Shard{})
	sameFiles(t, clean, killed)
}

// stopAfter passes the first n points on and then fails, like a sweep
// killed part-way through a group.
type stopAfter struct {
	ev Evaluator
	n  *int
}

var errStopped = errors.New("stopped")

func (s stopAfter) Evaluate(ctx context.Context, sc *Scenario, pts []Point, emit func(Point, Metrics) error) error {
	return s.ev.Evaluate(ctx, sc, pts, func(p Point, m Metrics) error {
		if *s.n <= 0 {
			return errStopped
		}
		*s.n--
		return emit(p, m)
	})
}

// A sweep of the default scenario stopped in the middle of its LP groups
// (in the second of two LP chains) and resumed gives the table of one
// never stopped: the resumed groups re-solve the LP at their chain's
// finished caps first, so every cap is re-solved from the same basis as
// before (the LP's optimum is degenerate and its tolerance ns-sized, so
// another basis path gives other digits).
func TestResumedLPSweepMatches(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	sc.Sweep.CapsW = nil // 14 caps: two LP chains of 7 (lpchain.Split)
	for c := 290.0; c < 360; c += 5 {
		sc.Sweep.CapsW = append(sc.Sweep.CapsW, c)
	}
	base := t.TempDir()
	clean, resumed := filepath.Join(base, "clean"), filepath.Join(base, "resumed")
	if _, err := Run(context.Background(), sc, Replayer{}, RunOptions{OutDir: clean, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	// Groups run in order on one worker: uncapped, static, conductor, lp
	// (14 caps each); stop after 9 caps of the lp group, in its second
	// chain.
	n := 1 + 14 + 14 + 9
	if _, err := Run(context.Background(), sc, stopAfter{Replayer{}, &n}, RunOptions{OutDir: resumed, Workers: 1}); !errors.Is(err, errStopped) {
		t.Fatalf("stopped sweep: %v", err)
	}
	sum, err := Run(context.Background(), sc, Replayer{}, RunOptions{OutDir: resumed, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != 38 || sum.Computed != 5 {
		t.Errorf("resume skipped %d and computed %d points, want 38 and 5", sum.Skipped, sum.Computed)
	}
	sameFiles(t, clean, resumed)
}

// TestSweepTrace checks the trace a sweep writes where CAPSIM_SWEEP_TRACE
// is set: a span for every point computed, every cap an LP chain solved
// and every lp point's headroom search, each with its worker and its
// times in order.
func TestSweepTrace(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	sc.Sweep.CapsW = sc.Sweep.CapsW[:3]
	path := filepath.Join(t.TempDir(), "trace.tsv")
	t.Setenv(sweepTraceEnv, path)
	if _, err := Run(context.Background(), sc, Replayer{}, RunOptions{OutDir: t.TempDir(), Workers: 2}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var w int
		var t0, t1, cpu float64
		f := strings.SplitN(line, "\t", 5)
		if len(f) != 5 {
			t.Fatalf("line %q: want 5 tab-separated fields", line)
		}
		if _, err := fmt.Sscan(f[0], &w); err != nil || w < 0 || w > 1 {
			t.Errorf("line %q: worker %q, want 0 or 1", line, f[0])
		}
		if _, err := fmt.Sscan(f[1]+" "+f[2]+" "+f[3], &t0, &t1, &cpu); err != nil || t0 < 0 || t1 < t0 || cpu < 0 {
			t.Errorf("line %q: times %v–%v s, CPU %v s", line, t0, t1, cpu)
		}
		count[strings.Fields(f[4])[0]+" "+strings.Fields(f[4])[1]]++
	}
	// 3 caps × 3 capped policies + uncapped; one chain of 3 caps; 3 lp
	// points; the LP built once.
	for k, want := range map[string]int{"point static": 3, "point conductor": 3, "point lp": 3, "point uncapped": 1,
		"bound chain": 3, "plan cap": 3, "build LP": 1} {
		if count[k] != want {
			t.Errorf("%d %q spans, want %d (all: %v)", count[k], k, want, count)
		}
	}
}

// stopEval emits the first point of each group and then waits in its
// "LP" until the caller stops the sweep, failing in the evaluator's own
// terms, as the LP does (a task-power cap the user never gave).
type stopEval struct{ started chan struct{} }

func (f stopEval) Evaluate(ctx context.Context, sc *Scenario, pts []Point, emit func(Point, Metrics) error) error {
	for i, p := range pts {
		if p.Done {
			continue
		}
		if i > 0 {
			f.started <- struct{}{}
			<-ctx.Done()
			return fmt.Errorf("bound at 109.71875 W: %w", ctx.Err())
		}
		if err := emit(p, Metrics{MakespanNs: 1}); err != nil {
			return err
		}
	}
	return nil
}

// A sweep stopped by its caller (Ctrl-C) says which points were being
// computed in the scenario's terms (machine, policy, the cap given,
// parameters), never the LP's task-power cap, and keeps those finished.
func TestSweepStoppedNamesPoints(t *testing.T) {
	sc := mustParse(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	f := stopEval{started: make(chan struct{}, 64)}
	go func() {
		<-f.started
		cancel(errors.New("interrupted by SIGINT"))
	}()
	sum, err := Run(ctx, sc, f, RunOptions{OutDir: filepath.Join(t.TempDir(), "out"), Workers: 1})
	var st *StoppedError
	if !errors.As(err, &st) || len(st.Running) != 1 {
		t.Fatalf("err %v, want a StoppedError naming one point", err)
	}
	msg := err.Error()
	for _, want := range []string{"point 2 (machine ", ", policy static, cap 150 W, iterations = 10)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not name %q", msg, want)
		}
	}
	if strings.Contains(msg, "109.7") {
		t.Errorf("%q names the evaluator's inner cap", msg)
	}
	if sum == nil || sum.Computed != 2 {
		t.Errorf("summary %+v, want the 2 points finished before the stop", sum)
	}
}
