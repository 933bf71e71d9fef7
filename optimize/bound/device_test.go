package bound

import (
	"math"
	"math/rand"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// devConfigs are a task's configurations with a shared device: the
// device (0.3× the recorded time at 280 W, point 0) and testConfigs' CPU
// points, all on the convex hull (the device point is steep enough that
// no CPU point is dropped: a schedule at any CPU point is a hull mix
// without the device).
func devConfigs(ns int64) []frontier.Config {
	return append([]frontier.Config{{Time: math.Round(0.3*float64(ns)) / 1e9, Power: 280, Label: "dev"}}, testConfigs(ns)...)
}

// deviceCase is a netCase whose ranks share devices: rank r's tasks may
// run on device r mod devs (ranks ≥ 2·devs stay on their CPU).
type deviceCase struct {
	netCase
	devOf []int32 // per operation: its rank's device, −1 if none
}

func newDeviceCase(t testing.TB, rng *rand.Rand, maxRanks int) *deviceCase {
	net := network.LogGOPS{Latency: int64(rng.Intn(5000)), Overhead: int64(200 + rng.Intn(2000)), Gap: int64(100 + rng.Intn(2000)),
		GapPerByte: network.NsPerByte(int64(rng.Intn(3))), OverheadPerByte: network.NsPerByte(int64(rng.Intn(2))), EagerLimit: 1024 << rng.Intn(4)}
	tr := randomTrace(rng, maxRanks, net.EagerLimit)
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatalf("lowering: %v", err)
	}
	devs := 1 + rng.Intn(2)
	rank := g.OpRanks()
	devOf := make([]int32, g.NumOps())
	for op := range devOf {
		devOf[op] = -1
		if r := int(rank[op]); g.Kind[op] == graph.Calc && r < 2*devs+rng.Intn(2) {
			devOf[op] = int32(r % devs)
		}
	}
	configs := func(op int32) []frontier.Config {
		if devOf[op] >= 0 {
			return devConfigs(g.Size[op])
		}
		return testConfigs(g.Size[op])
	}
	wait := WaitPower{}
	if rng.Intn(4) == 0 {
		wait = WaitPower{Constant: true, W: float64(20 + rng.Intn(40))}
	}
	// The reference replay runs every task at its fastest: on the device,
	// queueing there.
	n, err := FromGraph(g, net, GraphOptions{Configs: configs, Wait: wait, IdleW: 20, Device: devOf})
	if err != nil {
		t.Fatalf("FromGraph: %v", err)
	}
	markTestDevices(n, devOf, devs)
	return &deviceCase{netCase{g: g, net: net, n: n}, devOf}
}

// markTestDevices marks the device point of n's tasks on a device.
func markTestDevices(n *Net, devOf []int32, devs int) {
	n.DAG.Devices = nil
	for k := 0; k < devs; k++ {
		n.DAG.Devices = append(n.DAG.Devices, Device{Name: "dev", Count: 1})
	}
	for i, op := range n.TaskOp {
		tk := &n.DAG.Tasks[i]
		if devOf[op] < 0 {
			continue
		}
		tk.OnDevice = make([]bool, len(tk.Hull))
		for g := range tk.Hull {
			tk.OnDevice[g] = tk.Hull[g].Label == "dev"
		}
		tk.Device = int(devOf[op])
	}
}

// replay runs the case's graph with task i for choice(i)'s duration at
// its power, holding its device for dev ns (0: on its CPU).
func (c *deviceCase) replay(t testing.TB, choice func(i int) (frontier.Config, int64)) (*Record, []float64) {
	dur := make([]int64, c.g.NumOps())
	for op := range dur {
		dur[op] = c.g.Size[op]
	}
	devOf := make([]int32, c.g.NumOps())
	devNs := make([]int64, c.g.NumOps())
	for op := range devOf {
		devOf[op] = -1
	}
	pw := make([]float64, len(c.n.TaskOp))
	for i, op := range c.n.TaskOp {
		cf, dev := choice(i)
		dur[op] = int64(math.Round(cf.Time * 1e9))
		pw[i] = cf.Power
		if dev > 0 {
			devOf[op], devNs[op] = c.devOf[op], min(dev, dur[op])
		}
	}
	rec, err := Observe(c.g, c.net, sim.Options{Pricer: fixedPricer(dur), Device: devOf, DeviceNs: devNs})
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	return rec, pw
}

// checkDeviceBoundValid is checkBoundValid with shared devices: random
// runs, each task on its device, on a CPU point, or split between them
// (its device part first, drawing the device's power throughout: above
// the hull's line), replayed with the device queueing, each run's cap its
// own peak power. A run that keeps the LP's orders must finish no
// earlier than the bound; one that changes them no earlier than the LP
// of its own orders (with the same device marks). The LP's own schedule
// at a random cap is replayed too.
func checkDeviceBoundValid(t testing.TB, seed int64, maxRanks, runs int, st *boundStats) {
	rng := rand.New(rand.NewSource(seed))
	c := newDeviceCase(t, rng, maxRanks)
	n := c.n
	s, err := NewSolver(n.DAG, n.Order, Options{KeepBasis: true})
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	defer s.Close()
	const rel = 1e-6
	check := func(rec *Record, pw []float64, what string) {
		st.runs++
		capW := c.peakPower(rec, pw)
		cert, err := n.Check(rec, pw, capW)
		if err != nil {
			t.Fatalf("seed %d %s: %v", seed, what, err)
		}
		ms := float64(rec.Makespan) / 1e9
		var b *Bound
		if cert.Kept && cert.Feasible {
			st.kept++
			if b, err = s.Solve(capW); err != nil {
				t.Fatalf("seed %d %s: a run that keeps the order, but the LP at %g W: %v", seed, what, capW, err)
			}
		} else {
			if cert.Kept {
				st.keptTie++
			} else {
				st.changed++
			}
			own, err := n.ReplayNet(rec)
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, what, err)
			}
			markTestDevices(own, c.devOf, len(n.DAG.Devices))
			os, err := NewSolver(own.DAG, own.Order, Options{})
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, what, err)
			}
			defer os.Close()
			if b, err = os.Solve(capW); err != nil {
				t.Fatalf("seed %d %s: LP of the run's own orders at %g W: %v", seed, what, capW, err)
			}
		}
		if ms < b.Makespan*(1-rel) {
			t.Fatalf("seed %d %s: run %.9f s finishes before the bound %.9f s at %g W (orders kept: %v)", seed, what, ms, b.Makespan, capW, cert.Kept && cert.Feasible)
		}
	}
	for k := 0; k < runs; k++ {
		mode := rng.Intn(3)
		rec, pw := c.replay(t, func(i int) (frontier.Config, int64) {
			h := n.DAG.Tasks[i].Hull
			if n.DAG.Tasks[i].OnDevice == nil {
				return h[rng.Intn(len(h))], 0
			}
			dev, cpu := h[0], h[1+rng.Intn(len(h)-1)]
			switch {
			case mode == 0 || rng.Intn(3) == 0: // a point
				if rng.Intn(2) == 0 {
					return dev, int64(math.Round(dev.Time * 1e9))
				}
				return cpu, 0
			default: // a split: share x of the work on the device
				x := rng.Float64()
				d := math.Round((x*dev.Time+(1-x)*cpu.Time)*1e9) / 1e9
				return frontier.Config{Time: d, Power: dev.Power}, int64(math.Round(x * dev.Time * 1e9))
			}
		})
		check(rec, pw, "random run")
	}
	// The LP's own schedule at a cap between the least feasible one and
	// the reference's peak, replayed with its durations: a device task
	// between its device point and the CPU point after it holds the device
	// for the device point's share of its work, drawing the hull's power.
	lo, _ := s.MinFeasibleCap()
	hi := c.peakPower(n.Ref, fastestPowers(n))
	if hi <= lo {
		return
	}
	capW := lo + rng.Float64()*(hi-lo)
	b, err := s.Solve(capW)
	if err != nil {
		t.Fatalf("seed %d: LP at %g W: %v", seed, capW, err)
	}
	rec, pw := c.replay(t, func(i int) (frontier.Config, int64) {
		h := n.DAG.Tasks[i].Hull
		d := math.Min(math.Max(math.Round(b.Duration[i]*1e9)/1e9, h[0].Time), h[len(h)-1].Time)
		cf := frontier.Config{Time: d, Power: frontier.PowerAt(h, d)}
		if n.DAG.Tasks[i].OnDevice == nil || d >= h[1].Time {
			return cf, 0
		}
		x := (h[1].Time - d) / (h[1].Time - h[0].Time) // the device's share of the work
		return cf, int64(math.Round(x * h[0].Time * 1e9))
	})
	st.lpOwn++
	check(rec, pw, "LP schedule")
}

// TestDeviceBoundValid is the adversarial test of the shared-device rows
// (device.go): random traces whose ranks share one or two devices, random
// runs that queue at them. A bound above any such run would not be one.
func TestDeviceBoundValid(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	cases := 150
	if testing.Short() {
		cases = 40
	}
	var st boundStats
	for seed := int64(0); seed < int64(cases); seed++ {
		checkDeviceBoundValid(t, seed, 8, 8, &st)
	}
	t.Logf("%d runs: %d kept the LP's orders, %d kept them but tie events, %d changed them; %d LP schedules replayed", st.runs, st.kept, st.keptTie, st.changed, st.lpOwn)
}

// Two ranks share one device between two barriers; each has one task
// there that runs 2 ms on the device at 45 W or 10 ms on its CPU at 50 W
// (slower and more power: the hull is the device point alone), then,
// after the second barrier, a 4 ms CPU task. Network: L = 1 µs, o = g =
// 0.5 µs; a 2-rank barrier is one 0-byte message each way, 2 µs (o + L +
// o). With a device each, the tasks run side by side: 2 µs + 2 ms + 2 µs
// + 4 ms = 6.004 ms, bound and replay. With one shared device the second
// task waits for the first: the device is busy 2 × 2 ms = 4 ms between
// the barriers, so no schedule ends before 4 + 4 = 8 ms (the replay that
// queues: 8.004 ms). A row over the whole run alone (the engine LP's
// only stretch between separators, all the rows it had before the device
// windows) let the LP overlap the two device tasks: 6.004 ms, a bound, but
// 2 ms loose; the window between the barriers gives 8.003 ms.
func TestDeviceRowsTwoRanks(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	tr := mpi.NewTrace(2)
	for r := 0; r < 2; r++ {
		tr.Ranks[r].Events = []mpi.Event{
			{Kind: mpi.Barrier, Peer: 0},
			{Kind: mpi.Compute, Duration: 2000000, Peer: -1},
			{Kind: mpi.Barrier, Peer: 0},
			{Kind: mpi.Compute, Duration: 4000000, Peer: -1},
		}
	}
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	net := network.LogGOPS{Latency: 1000, Overhead: 500, Gap: 500, EagerLimit: 65535}
	devOf := make([]int32, g.NumOps())
	for op := range devOf {
		devOf[op] = -1
		if g.Kind[op] == graph.Calc && g.Size[op] == 2000000 {
			devOf[op] = 0
		}
	}
	configs := func(op int32) []frontier.Config {
		if devOf[op] < 0 {
			return []frontier.Config{{Time: 4e-3, Power: 15}}
		}
		return []frontier.Config{{Time: 2e-3, Power: 45, Label: "dev"}, {Time: 10e-3, Power: 50}}
	}
	for _, shared := range []bool{false, true} {
		opt := GraphOptions{Configs: configs}
		if shared {
			opt.Device = devOf
		}
		n, err := FromGraph(g, net, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(n.DAG.Tasks) != 4 || len(n.DAG.Tasks[0].Hull) != 1 {
			t.Fatalf("%d tasks, hull %v: want 4 tasks, the first with the device point alone", len(n.DAG.Tasks), n.DAG.Tasks[0].Hull)
		}
		if shared {
			markTestDevices(n, devOf, 1)
		}
		s, err := NewSolver(n.DAG, n.Order, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Solve(1000)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		ref := float64(n.Ref.Makespan) / 1e9
		if shared {
			// The reference replay queues the second task behind the
			// first: it is a schedule, and the bound holds the 4 ms.
			if math.Abs(ref-8.004e-3) > 1e-12 || !(b.Makespan >= 8e-3) || b.Makespan > ref*(1+1e-9) {
				t.Errorf("shared device: bound %.9f s, replay %.9f s; want the bound in [8 ms, the replay's 8.004 ms]", b.Makespan, ref)
			}
		} else if math.Abs(b.Makespan-6.004e-3) > 1e-12 || math.Abs(ref-6.004e-3) > 1e-12 {
			t.Errorf("a device each: bound %.9f s, replay %.9f s, want 6.004 ms both", b.Makespan, ref)
		}
	}
}
