package bound

import (
	"context"
	"errors"
	"math"
	"math/rand"
	"sort"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// randomTrace is an MPI trace of 2–maxRanks ranks: phases of compute,
// blocking and nonblocking point-to-point exchanges (eager and rendezvous
// sizes for eager limit S) and collectives over all ranks or a
// subcommunicator, with random compute lengths.
func randomTrace(rng *rand.Rand, maxRanks int, S int64) *mpi.Trace {
	n := 2 + rng.Intn(maxRanks-1)
	t := mpi.NewTrace(n)
	var sub []int32
	for r := 0; r < n; r++ {
		if rng.Intn(2) == 0 {
			sub = append(sub, int32(r))
		}
	}
	if len(sub) >= 2 {
		t.Comms = append(t.Comms, mpi.Communicator{ID: 1, Name: "sub", Members: sub})
	}
	size := func() int64 {
		switch rng.Intn(3) {
		case 0:
			return int64(rng.Intn(64))
		case 1:
			return S/2 + int64(rng.Intn(int(S/2)))
		}
		return S + 1 + int64(rng.Intn(int(4*S)))
	}
	add := func(r int, e mpi.Event) { t.Ranks[r].Events = append(t.Ranks[r].Events, e) }
	compute := func(r int) {
		add(r, mpi.Event{Kind: mpi.Compute, Duration: int64(1000 + rng.Intn(50000)), Peer: -1})
	}
	req := int64(0)
	phases := 2 + rng.Intn(5)
	for ph := 0; ph < phases; ph++ {
		for r := 0; r < n; r++ {
			if rng.Intn(4) > 0 {
				compute(r)
			}
		}
		switch rng.Intn(4) {
		case 0: // blocking pairs: the lower rank sends first
			perm := rng.Perm(n)
			for k := 0; k+1 < n; k += 2 {
				a, b := min(perm[k], perm[k+1]), max(perm[k], perm[k+1])
				s1, s2 := size(), size()
				add(a, mpi.Event{Kind: mpi.Send, Peer: int32(b), Bytes: s1, Tag: 1})
				add(b, mpi.Event{Kind: mpi.Recv, Peer: int32(a), Bytes: s1, Tag: 1})
				if rng.Intn(2) == 0 {
					compute(b)
				}
				add(b, mpi.Event{Kind: mpi.Send, Peer: int32(a), Bytes: s2, Tag: 2})
				add(a, mpi.Event{Kind: mpi.Recv, Peer: int32(b), Bytes: s2, Tag: 2})
			}
		case 1: // nonblocking ring exchange
			for r := 0; r < n; r++ {
				l, rt := (r+n-1)%n, (r+1)%n
				var reqs []int64
				for _, p := range []int{l, rt} {
					req++
					add(r, mpi.Event{Kind: mpi.Irecv, Peer: int32(p), Bytes: 0, Tag: 3, Req: req})
					reqs = append(reqs, req)
				}
				if rng.Intn(2) == 0 {
					compute(r)
				}
				for _, p := range []int{rt, l} {
					req++
					add(r, mpi.Event{Kind: mpi.Isend, Peer: int32(p), Tag: 3, Req: req})
					reqs = append(reqs, req)
				}
				if rng.Intn(2) == 0 {
					compute(r)
				}
				for _, q := range reqs {
					add(r, mpi.Event{Kind: mpi.Wait, Req: q, Peer: -1})
				}
			}
		default: // a collective
			kinds := []mpi.Kind{mpi.Barrier, mpi.Allreduce, mpi.Bcast, mpi.Reduce, mpi.Allgather, mpi.Alltoall}
			k := kinds[rng.Intn(len(kinds))]
			comm := int32(0)
			members := t.Comms[0].Members
			if len(t.Comms) > 1 && rng.Intn(2) == 0 {
				comm, members = 1, sub
			}
			b := size()
			if k == mpi.Alltoall || k == mpi.Allgather {
				b = b/int64(len(members)) + 1
			}
			for _, r := range members {
				add(int(r), mpi.Event{Kind: k, Comm: comm, Bytes: b, Peer: 0})
			}
		}
	}
	// Nonblocking ring messages: sizes must agree; the isend carries
	// the bytes, the irecv takes them from its matching send.
	for r := 0; r < n; r++ {
		for i := range t.Ranks[r].Events {
			e := &t.Ranks[r].Events[i]
			if e.Kind == mpi.Isend {
				e.Bytes = int64(64 * (1 + (r+i)%3))
			}
		}
	}
	fixRingSizes(t)
	for r := 0; r < n; r++ {
		compute(r)
	}
	return t
}

// fixRingSizes gives every irecv its matching isend's size (in order per
// source, destination and tag).
func fixRingSizes(t *mpi.Trace) {
	type key struct{ src, dst, tag int32 }
	sends := map[key][]int64{}
	for r := range t.Ranks {
		for _, e := range t.Ranks[r].Events {
			if e.Kind == mpi.Isend {
				k := key{int32(r), e.Peer, e.Tag}
				sends[k] = append(sends[k], e.Bytes)
			}
		}
	}
	for r := range t.Ranks {
		for i := range t.Ranks[r].Events {
			e := &t.Ranks[r].Events[i]
			if e.Kind == mpi.Irecv {
				k := key{e.Peer, int32(r), e.Tag}
				e.Bytes = sends[k][0]
				sends[k] = sends[k][1:]
			}
		}
	}
}

// testConfigs are a task's configurations: its recorded time at 120 W,
// slower ones at less power, and a dominated one.
func testConfigs(ns int64) []frontier.Config {
	at := func(f float64) float64 { return math.Round(f*float64(ns)) / 1e9 } // whole ns, as a replay runs them
	return []frontier.Config{{Time: at(1), Power: 120}, {Time: at(1.15), Power: 90}, {Time: at(1.4), Power: 62}, {Time: at(1.5), Power: 80}}
}

type netCase struct {
	g   *graph.Graph
	net network.LogGOPS
	n   *Net
	// flow, when set, is the topology the case's replays run on (the
	// Net's GraphOptions.Flow), contended.
	flow *sim.FlowNetwork
}

func newNetCase(t testing.TB, rng *rand.Rand, maxRanks int, wait WaitPower) *netCase {
	return newNetCaseFlow(t, rng, maxRanks, wait, nil)
}

// newNetCaseFlow is newNetCase with messages over a topology: flow, when
// not nil, returns one for a trace of ranks ranks.
func newNetCaseFlow(t testing.TB, rng *rand.Rand, maxRanks int, wait WaitPower, flow func(ranks int) *sim.FlowNetwork) *netCase {
	net := network.LogGOPS{Latency: int64(rng.Intn(5000)), Overhead: int64(200 + rng.Intn(2000)), Gap: int64(100 + rng.Intn(2000)),
		GapPerByte: network.NsPerByte(int64(rng.Intn(3))), OverheadPerByte: network.NsPerByte(int64(rng.Intn(2))), EagerLimit: 1024 << rng.Intn(4), LogGP: rng.Intn(5) == 0}
	if rng.Intn(2) == 0 {
		// Fractional times per byte (0.08 is 100 Gb/s): the LP's edges
		// must round (s−1)·G and (s−1)·O as the engine does.
		net.GapPerByte = network.PerByteFs(rng.Int63n(3 * network.FsPerNs))
		net.OverheadPerByte = network.PerByteFs(rng.Int63n(network.FsPerNs))
	}
	if net.Latency%3 == 0 {
		// Header bytes on a third of the cases, drawn from L so that the
		// random stream stays the same: the LP's edges must price s + H
		// bytes by G (and a flow's bytes) as the engine does.
		net.HeaderBytes = net.Latency % 64
	}
	tr := randomTrace(rng, maxRanks, net.EagerLimit)
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatalf("lowering: %v", err)
	}
	// A third of the cases start their ranks apart (graph.Graph.StartNs),
	// drawn from a generator of their own so the other draws stay.
	if srng := rand.New(rand.NewSource(int64(g.NumOps())*7919 + int64(g.NumRanks()))); srng.Intn(3) == 0 {
		g.StartNs = make([]int64, g.NumRanks())
		for r := range g.StartNs {
			g.StartNs[r] = srng.Int63n(20000)
		}
	}
	var fl *sim.FlowNetwork
	if flow != nil {
		fl = flow(g.NumRanks())
	}
	n, err := FromGraph(g, net, GraphOptions{Configs: func(op int32) []frontier.Config { return testConfigs(g.Size[op]) }, Wait: wait, IdleW: 20, Flow: fl})
	if err != nil {
		t.Fatalf("FromGraph: %v", err)
	}
	return &netCase{g, net, n, fl}
}

// replay runs the case's graph with task i at cfg[i] of testConfigs and
// returns the record and each task's power.
func (c *netCase) replay(t testing.TB, choice func(i int) frontier.Config) (*Record, []float64) {
	dur := make([]int64, c.g.NumOps())
	for op := range dur {
		dur[op] = c.g.Size[op]
	}
	pw := make([]float64, len(c.n.TaskOp))
	for i, op := range c.n.TaskOp {
		cf := choice(i)
		dur[op] = int64(math.Round(cf.Time * 1e9))
		pw[i] = cf.Power
	}
	rec, err := Observe(c.g, c.net, sim.Options{Pricer: fixedPricer(dur), Flow: c.flow})
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	return rec, pw
}

// peakPower is the most the replay draws at any instant under the wait
// model (without the machine's base power): a core draws IdleW before its
// rank's first task, a task's power while it runs, and the wait power
// from its end until its rank's next task starts (or the job ends).
func (c *netCase) peakPower(rec *Record, pw []float64) float64 {
	type change struct {
		t int64
		w float64
	}
	var ch []change
	idle := c.n.opt.IdleW
	ranks := c.g.NumRanks()
	byRank := make([][]int, ranks)
	for i, op := range c.n.TaskOp {
		r := c.g.RankOf(op)
		byRank[r] = append(byRank[r], i)
	}
	for r := 0; r < ranks; r++ {
		cur := idle
		ch = append(ch, change{0, idle})
		for j, i := range byRank[r] {
			op := c.n.TaskOp[i]
			ch = append(ch, change{rec.start[op], pw[i] - cur})
			cur = pw[i]
			if c.n.opt.Wait.Constant {
				ch = append(ch, change{rec.end[op], c.n.opt.Wait.W - cur})
				cur = c.n.opt.Wait.W
			}
			_ = j
		}
	}
	sort.SliceStable(ch, func(a, b int) bool { return ch[a].t < ch[b].t })
	w, peak := 0.0, 0.0
	for k := range ch {
		w += ch[k].w
		if k+1 == len(ch) || ch[k+1].t != ch[k].t {
			if ch[k].t < rec.Makespan || k+1 == len(ch) && ch[k].t == 0 {
				peak = math.Max(peak, w)
			}
		}
	}
	return peak
}

// TestNetFastestIsReplay: at every task's fastest configuration the LP's
// schedule is the engine's to the nanosecond, and the vertex times of the
// reference replay satisfy every row.
func TestNetFastestIsReplay(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	rng := rand.New(rand.NewSource(1))
	for k := 0; k < 100; k++ {
		c := newNetCase(t, rng, 8, WaitPower{})
		n := c.n
		asap, err := InitialOrder(n.DAG)
		if err != nil {
			t.Fatal(err)
		}
		for v, tv := range asap.Times {
			if math.Abs(tv-n.Times[v]) > 1e-9*float64(len(n.TaskOp)+1) {
				t.Fatalf("case %d: %s: the rows' least time %.9f, the replay's %.9f", k, n.DAG.name(v), tv, n.Times[v])
			}
		}
		s, err := NewSolver(n.DAG, n.Order, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Solve(1e9)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(b.Makespan*1e9-float64(n.Ref.Makespan)) > 1 {
			t.Fatalf("case %d: uncapped LP %.3f ns, fastest replay %d ns", k, b.Makespan*1e9, n.Ref.Makespan)
		}
	}
}

// boundStats counts the adversarial runs.
type boundStats struct {
	runs, kept, keptTie, changed, lpOwn int
	free                                int // runs checked against the order-free optimum
}

// checkBoundValid runs one adversarial case: a random trace, random
// per-task configurations (and the LP's own schedules), each run's cap
// its own peak power (so it stays within the cap at every instant).
// A run that keeps the LP's orders must meet every row and finish no
// earlier than the bound; a run that changes them must finish no earlier
// than the LP of its own orders.
func checkBoundValid(t testing.TB, seed int64, maxRanks, runs int, st *boundStats) {
	checkBoundValidFlow(t, seed, maxRanks, runs, st, nil)
}

// checkBoundValidFlow is checkBoundValid with the case's messages over
// a topology where flow is not nil (newNetCaseFlow).
func checkBoundValidFlow(t testing.TB, seed int64, maxRanks, runs int, st *boundStats, flow func(rng *rand.Rand, ranks int) *sim.FlowNetwork) {
	rng := rand.New(rand.NewSource(seed))
	wait := WaitPower{}
	if rng.Intn(4) == 0 {
		wait = WaitPower{Constant: true, W: float64(20 + rng.Intn(40))}
	}
	var fl func(int) *sim.FlowNetwork
	if flow != nil {
		fl = func(ranks int) *sim.FlowNetwork { return flow(rng, ranks) }
	}
	c := newNetCaseFlow(t, rng, maxRanks, wait, fl)
	n := c.n
	s, err := NewSolver(n.DAG, n.Order, Options{KeepBasis: true})
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	defer s.Close()
	var free *OrderFree
	if len(n.DAG.Tasks) <= 12 {
		if free, err = NewOrderFree(n.DAG, n.Order, OrderFreeOptions{Resources: n.Resources(), MaxNodes: 20_000}); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
	const rel = 1e-6
	check := func(rec *Record, pw []float64, what string) {
		st.runs++
		capW := c.peakPower(rec, pw)
		cert, err := n.Check(rec, pw, capW)
		if err != nil {
			t.Fatalf("seed %d %s: %v", seed, what, err)
		}
		ms := float64(rec.Makespan) / 1e9
		// Whatever its orders, no run within the cap beats the
		// order-free bounds.
		lo, err := OrderFreeLower(context.Background(), n.DAG, n.Resources(), capW)
		if err != nil || ms < lo*(1-rel) {
			t.Fatalf("seed %d %s: run %.9f s finishes before the order-free lower bound %.9f s at %g W (%v)", seed, what, ms, lo, capW, err)
		}
		if free != nil {
			r, err := free.Solve(capW)
			switch {
			case errors.Is(err, ErrSearchLimit):
			case err != nil:
				t.Fatalf("seed %d %s: order-free optimum at %g W: %v", seed, what, capW, err)
			case ms < r.Makespan*(1-rel):
				t.Fatalf("seed %d %s: run %.9f s finishes before the order-free optimum %.9f s at %g W", seed, what, ms, r.Makespan, capW)
			default:
				st.free++
			}
		}
		if cert.Kept && cert.Feasible {
			st.kept++
			b, err := s.Solve(capW)
			if err != nil {
				t.Fatalf("seed %d %s: a run that keeps the order and meets every row, but the LP at %g W: %v", seed, what, capW, err)
			}
			if ms < b.Makespan*(1-rel) {
				t.Fatalf("seed %d %s: run %.9f s finishes before the bound %.9f s at %g W with the LP's orders", seed, what, ms, b.Makespan, capW)
			}
			if fast := float64(n.Ref.Makespan) / 1e9; b.Makespan < fast*(1-rel) {
				t.Fatalf("seed %d %s: the bound %.9f s at %g W is below the uncapped makespan %.9f s", seed, what, b.Makespan, capW, fast)
			}
			return
		}
		if cert.Kept {
			st.keptTie++
		} else {
			st.changed++
		}
		own, err := n.ReplayNet(rec)
		if err != nil {
			t.Fatalf("seed %d %s: %v", seed, what, err)
		}
		oc, err := own.Check(rec, pw, capW)
		if err != nil || !oc.Kept || !oc.Feasible {
			t.Fatalf("seed %d %s: the run is not a feasible point of the LP of its own orders: %+v %v", seed, what, oc, err)
		}
		os, err := NewSolver(own.DAG, own.Order, Options{})
		if err != nil {
			t.Fatalf("seed %d %s: %v", seed, what, err)
		}
		defer os.Close()
		b, err := os.Solve(capW)
		if err != nil {
			t.Fatalf("seed %d %s: LP of the run's own orders at %g W: %v", seed, what, capW, err)
		}
		if ms < b.Makespan*(1-rel) {
			t.Fatalf("seed %d %s: run %.9f s finishes before the LP of its own orders %.9f s at %g W", seed, what, ms, b.Makespan, capW)
		}
	}
	for k := 0; k < runs; k++ {
		mode := rng.Intn(3)
		rec, pw := c.replay(t, func(i int) frontier.Config {
			h := testConfigs(c.g.Size[n.TaskOp[i]])
			switch mode {
			case 0:
				return h[rng.Intn(len(h))]
			case 1:
				return h[rng.Intn(2)]
			}
			return h[0]
		})
		check(rec, pw, "random run")
	}
	// The LP's own schedule at a binding cap, replayed with its
	// continuous durations.
	lo, _ := s.MinFeasibleCap()
	hi := c.peakPower(n.Ref, fastestPowers(n))
	capW := lo + rng.Float64()*(hi-lo)
	b, err := s.Solve(capW)
	if err != nil {
		t.Fatalf("seed %d: LP at %g W: %v", seed, capW, err)
	}
	rec, pw := c.replay(t, func(i int) frontier.Config {
		// Whole ns, at the hull's power for that duration.
		h := n.DAG.Tasks[i].Hull
		d := math.Min(math.Max(math.Round(b.Duration[i]*1e9)/1e9, h[0].Time), h[len(h)-1].Time)
		return frontier.Config{Time: d, Power: frontier.PowerAt(h, d)}
	})
	st.lpOwn++
	check(rec, pw, "LP schedule")
}

func fastestPowers(n *Net) []float64 {
	p := make([]float64, len(n.DAG.Tasks))
	for i, t := range n.DAG.Tasks {
		p[i] = t.Hull[0].Power
	}
	return p
}

// TestBoundValid is the adversarial property test of the LP over the
// engine's semantics (docs/design/bound.md): 2,000 runs (500 with -short).
func TestBoundValid(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	cases := 250
	if testing.Short() {
		cases = 60
	}
	var st boundStats
	for seed := int64(0); seed < int64(cases); seed++ {
		checkBoundValid(t, seed, 16, 7, &st)
	}
	t.Logf("%d runs: %d kept the LP's orders (bound holds), %d kept them but tie events the LP orders, %d changed them (own-order LP holds); %d LP schedules replayed; %d against the order-free optimum",
		st.runs, st.kept, st.keptTie, st.changed, st.lpOwn, st.free)
	if st.runs < 2000 && !testing.Short() {
		t.Fatalf("%d runs, want ≥ 2,000", st.runs)
	}
}

// FuzzBoundValid is TestBoundValid's generator as a fuzz target.
func FuzzBoundValid(f *testing.F) {
	if !clp.Available() {
		f.Skip("no CLP")
	}
	// Seed 11 has a run that leaves the LP's CPU order and ends before a
	// lower bound that keeps the order's edges.
	for _, s := range []int64{1, 2, 3, 11} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed int64) {
		var st boundStats
		checkBoundValid(t, seed, 16, 3, &st)
	})
}

// docs/design/bound.md's worked example: rank 0 computes a, then sends 1 byte
// to rank 1, which receives it and computes b. L = 3 µs, o = g = 1 µs,
// G = O = 0; a and b run 10 µs at 100 W or 15 µs at 60 W. The makespan
// is d_a + o + L + o + d_b = d_a + d_b + 5 µs. With the task's power
// drawn while waiting, rank 0 draws p_a until the end, so p_a + p_b ≤
// cap while b runs: at 160 W, d_a + d_b ≥ 25 µs and the bound is 30 µs;
// the least cap is 120 W (both at 60 W). Waiting at 0 W, a and b never
// overlap and the bound is the fastest, 25 µs.
func TestBoundDocExample(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	tr := mpi.NewTrace(2)
	tr.Ranks[0].Events = []mpi.Event{{Kind: mpi.Compute, Duration: 10000, Peer: -1}, {Kind: mpi.Send, Peer: 1, Bytes: 1}}
	tr.Ranks[1].Events = []mpi.Event{{Kind: mpi.Recv, Peer: 0, Bytes: 1}, {Kind: mpi.Compute, Duration: 10000, Peer: -1}}
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	net := network.LogGOPS{Latency: 3000, Overhead: 1000, Gap: 1000, EagerLimit: 65535}
	configs := func(op int32) []frontier.Config {
		return []frontier.Config{{Time: 10e-6, Power: 100}, {Time: 15e-6, Power: 60}}
	}
	for _, c := range []struct {
		wait   WaitPower
		capW   float64
		want   float64
		minCap float64
	}{
		{WaitPower{}, 160, 30e-6, 120},
		{WaitPower{}, 1000, 25e-6, 120},
		{WaitPower{Constant: true}, 160, 25e-6, 60},
	} {
		n, err := FromGraph(g, net, GraphOptions{Configs: configs, Wait: c.wait})
		if err != nil {
			t.Fatal(err)
		}
		if n.Ref.Makespan != 25000 {
			t.Fatalf("fastest replay %d ns, want 25000", n.Ref.Makespan)
		}
		s, err := NewSolver(n.DAG, n.Order, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if lo, _ := s.MinFeasibleCap(); math.Abs(lo-c.minCap) > 1e-9 {
			t.Errorf("wait %v: least cap %g W, want %g", c.wait, lo, c.minCap)
		}
		b, err := s.Solve(c.capW)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(b.Makespan-c.want) > 1e-12 {
			t.Errorf("wait %v at %g W: bound %.9f s, want %.9f", c.wait, c.capW, b.Makespan, c.want)
		}
	}
}
