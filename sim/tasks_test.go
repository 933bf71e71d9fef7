package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/taskgraph"
)

// greedy starts pending tasks in order at a fixed configuration until one
// does not fit; misbehave ignores the limits.
type greedy struct {
	w         *TaskWorkload
	node      Node
	cfg       int32
	misbehave bool
}

func (g *greedy) Name() string { return "greedy" }
func (g *greedy) Start(w *TaskWorkload, node Node) error {
	g.w, g.node = w, node
	return nil
}
func (g *greedy) Schedule(s *TaskState, pending []int32, choice []int32) {
	idle, p := s.IdleCores, s.PowerNW
	for i, t := range pending {
		if g.misbehave {
			choice[i] = g.cfg
			continue
		}
		c := g.w.Config(t, g.cfg)
		if int(c.Threads) > idle || p+c.PowerNW > g.node.CapNW() {
			break // first come, first served
		}
		choice[i] = g.cfg
		idle -= int(c.Threads)
		p += c.PowerNW
	}
}

// fork is 0 → {1, 2, 3} → 4 with one kernel: 2 threads, 1 s, 5 W; or 1
// thread, 3 s, 2 W.
func fork(t *testing.T) *TaskWorkload {
	b := taskgraph.NewBuilder("fork")
	none := taskgraph.Coord{I: -1, J: -1, K: -1}
	for i := 0; i < 5; i++ {
		b.Add("K", none)
	}
	for i := int32(1); i <= 3; i++ {
		b.Edge(0, i)
		b.Edge(i, 4)
	}
	d, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	p := taskgraph.NewProfiles(taskgraph.Machine{Threads: 8})
	p.Add("K", taskgraph.ProfileConfig{Threads: 1, Time: 3, Power: 2})
	p.Add("K", taskgraph.ProfileConfig{Threads: 2, Time: 1, Power: 5})
	w, err := NewTaskWorkload(d, p)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestRunTasksTimeline(t *testing.T) {
	// Cap 10 W at 2 threads: two of the three middle tasks run at once.
	res, err := RunTasks(fork(t), Node{Cores: 8, Cap: 10, IdleW: 100}, &greedy{cfg: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := int64(1e9)
	if res.Makespan != 4*s {
		t.Fatalf("makespan %d, want 4 s", res.Makespan)
	}
	want := []PowerStep{{0, 5}, {s, 10}, {2 * s, 5}, {4 * s, 0}}
	if len(res.Timeline) != len(want) {
		t.Fatalf("timeline %v, want %v", res.Timeline, want)
	}
	for i := range want {
		if res.Timeline[i] != want[i] {
			t.Fatalf("timeline %v, want %v", res.Timeline, want)
		}
	}
	// 5 tasks × 1 s × 5 W over 4 s; 10 thread·s of 32.
	if res.AvgPower != 25.0/4 || res.PeakPower != 10 || res.Utilization != 10.0/32 || res.Energy != 25+400 {
		t.Errorf("avg %g, peak %g, util %g, energy %g", res.AvgPower, res.PeakPower, res.Utilization, res.Energy)
	}
	if res.Events != 5 || res.Ticks != 4 {
		t.Errorf("%d events, %d ticks; want 5 and 4", res.Events, res.Ticks)
	}
	if res.Start[3] != 2*s || res.End[3] != 3*s {
		t.Errorf("task 3 ran %d..%d, want 2 s..3 s", res.Start[3], res.End[3])
	}
}

func TestRunTasksErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		node Node
		pol  TaskPolicy
		want string
	}{
		{"over cap", Node{Cores: 8, Cap: 6}, &greedy{cfg: 1, misbehave: true}, "over the node's 8 threads or 6 W cap"},
		{"over cores", Node{Cores: 3}, &greedy{cfg: 1, misbehave: true}, "with 2 threads and 5 W with 1 threads idle"},
		{"starved", Node{Cores: 8, Cap: 1}, &greedy{cfg: 0}, "policy starts none"},
		{"bad config", Node{Cores: 8}, &greedy{cfg: 7, misbehave: true}, "chose configuration 7 of 2"},
		{"no cores", Node{}, &greedy{}, "node has 0 cores, want 1..65536"},
		{"too many cores", Node{Cores: MaxNodeCores + 1}, &greedy{}, "node has 65537 cores, want 1..65536 (sim.MaxNodeCores)"},
		{"negative cap", Node{Cores: 1, Cap: -1}, &greedy{}, "negative"},
		{"NaN idle power", Node{Cores: 8, IdleW: math.NaN()}, &greedy{}, "idle power NaN W"},
	} {
		_, err := RunTasks(fork(t), c.node, c.pol)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

func TestNewTaskWorkloadMissingKernel(t *testing.T) {
	d, _ := taskgraph.Cholesky(2)
	p := taskgraph.NewProfiles(taskgraph.Machine{Threads: 4})
	p.Add("POTRF", taskgraph.ProfileConfig{Threads: 1, Time: 1, Power: 1})
	if _, err := NewTaskWorkload(d, p); err == nil || !strings.Contains(err.Error(), "kernel TRSM has no profile") {
		t.Errorf("error %v", err)
	}
}

// The executor allocates nothing per event: a run's allocations do not
// grow with the graph.
func TestRunTasksAllocs(t *testing.T) {
	allocs := func(nt int) float64 {
		d, _ := taskgraph.Cholesky(nt)
		w, err := NewTaskWorkload(d, taskgraph.DefaultProfiles())
		if err != nil {
			t.Fatal(err)
		}
		return testing.AllocsPerRun(3, func() {
			if _, err := RunTasks(w, Node{Cores: 112, Cap: 60}, &greedy{cfg: 3}); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(5), allocs(30)
	if large > small {
		t.Errorf("%v allocations for 35 tasks, %v for 4960", small, large)
	}
}

// A chain of 1001 tasks of 10^6 s ends past graph.MaxTimeNs: an error
// naming the task, not a wrapped time.
func TestRunTasksTimeLimit(t *testing.T) {
	b := taskgraph.NewBuilder("chain")
	none := taskgraph.Coord{I: -1, J: -1, K: -1}
	for i := int32(0); i < 1001; i++ {
		b.Add("K", none)
		if i > 0 {
			b.Edge(i-1, i)
		}
	}
	d, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	p := taskgraph.NewProfiles(taskgraph.Machine{Threads: 8})
	p.Add("K", taskgraph.ProfileConfig{Threads: 1, Time: 1e6, Power: 2})
	w, err := NewTaskWorkload(d, p)
	if err != nil {
		t.Fatal(err)
	}
	_, err = RunTasks(w, Node{Cores: 8}, &greedy{cfg: 0})
	if err == nil || !strings.Contains(err.Error(), "task 1000") || !strings.Contains(err.Error(), "MaxTimeNs") {
		t.Errorf("err %v, want task 1000 past the limit", err)
	}
}
