package scenarios

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/energy"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/sim"
)

// frontierStats counts the adversarial replays of checkFrontierValid.
type frontierStats struct {
	points, random, changed, overCap int
	// belowTrace counts the replays that left the trace's order and use
	// less energy than the trace order's frontier at their makespan (or
	// end before its least makespan).
	belowTrace int
	// closest is the least energy above the frontier, in percent of it,
	// of any replay checked.
	closest float64
}

// randomFrontierScenario is a small random scenario: one node of 2–4
// ranks, 2–4 P-states, a random wait power, a 2-D stencil of 2–4
// iterations with a random imbalance, and every sweep policy at two
// random caps between the machine's base power and its peak.
func randomFrontierScenario(rng *rand.Rand) string {
	px, py := 1+rng.Intn(2), 2
	ranks := px * py
	var ps strings.Builder
	f, w := 2.0+rng.Float64(), 8+rng.Float64()*10
	for range 2 + rng.Intn(3) {
		fmt.Fprintf(&ps, "[[machine.pstate]]\nfreq_ghz = %.3f\nactive_power_w = %.3f\n", f, w)
		f *= 0.7 + 0.25*rng.Float64()
		w *= 0.5 + 0.4*rng.Float64()
	}
	wait := []string{`"task"`, `"idle"`, fmt.Sprintf("%.2f", 1+rng.Float64()*4)}[rng.Intn(3)]
	idle := 5 + rng.Float64()*20
	base := idle // one node, one socket
	peak := base + float64(ranks)*(w/(0.5+0.4*0.5)+20)
	c1 := base + (peak-base)*(0.3+0.3*rng.Float64())
	c2 := base + (peak-base)*(0.7+0.4*rng.Float64())
	imb := []string{"none", "charged-field", "wavefront", "random"}[rng.Intn(4)]
	return fmt.Sprintf(`name = "frontier-prop"
seed = %d
[[machine]]
name = "m"
nodes = 1
sockets_per_node = 1
cores_per_socket = %d
ranks_per_node = %d
idle_power_w = %.3f
core_idle_power_w = %.3f
wait_power = %s
%s
[network]
L_ns = %d
o_ns = %d
g_ns = 1000
G_ns_per_byte = %d
S_bytes = 65535
[workload]
generator = "stencil2d"
[workload.params]
px = %d
py = %d
iterations = %d
halo_bytes = %d
compute_ns = %d
imbalance = %q
%s
[models]
memory_boundness = %.2f
[sweep]
caps_w = [%.3f, %.3f]
policies = ["uncapped", "static", "static-rapl", "lp", "conductor", "min-energy"]
slowdown_pct = %.1f
`, rng.Intn(1000), ranks, ranks, idle, rng.Float64()*2, wait, ps.String(),
		rng.Intn(5000), 200+rng.Intn(2000), rng.Intn(8), px, py, 2+rng.Intn(3), 1024<<rng.Intn(6), 200000+rng.Intn(2000000), imb, balanceKey(imb, 0.2+0.8*rng.Float64()),
		rng.Float64()*0.6, c1, c2, []float64{0, 1, 5, 20}[rng.Intn(4)])
}

// checkFrontierValid is one adversarial case of the frontier's promise
// over replays: on a random scenario (randomFrontierScenario), every
// sweep policy's replay at every cap that keeps its cap, and replays of
// random schedules (every task at a random configuration of its hull, or
// a random mix of two, as soon as possible), use no less energy than the
// frontier (no cap) at their own makespans: the frontier of the trace's
// order where the replay keeps it (bound.Net.Check), else the frontier of
// the order the replay ran in (bound.Net.ReplayNet). A replay that leaves
// the trace's order can use less energy than the trace order's frontier
// (an lp replay at a low cap, 1.7 % less on one random case).
func checkFrontierValid(t testing.TB, seed int64, randomRuns int, st *frontierStats) {
	rng := rand.New(rand.NewSource(seed))
	text := randomFrontierScenario(rng)
	sc, err := Parse("frontier-prop.toml", []byte(text))
	if err != nil {
		t.Fatalf("seed %d: %v\n%s", seed, err, text)
	}
	m := &sc.Machines[0]
	tr, g, err := sc.build(nil)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	net := sc.Net()
	bd, err := sc.newBounder(tr, m, net)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	defer bd.close()
	f, err := energy.New(bd.d, bd.o, energy.Options{BaseW: m.BaseW()})
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	defer f.Close()
	check := func(met Metrics, opts sim.Options, rnet network.LogGOPS, what string) {
		if met.OverCapNs > 0 {
			st.overCap++
			return
		}
		ms := float64(met.MakespanNs) / 1e9
		fr := f
		opts.Observer = nil
		rec, err := bound.Observe(bd.n.Graph(), rnet, opts)
		if err != nil {
			t.Fatalf("seed %d %s: %v", seed, what, err)
		}
		// No cap, and powers no row can refuse: only the order and the
		// time rows are checked.
		pw := make([]float64, len(bd.n.TaskOp))
		for i := range pw {
			pw[i] = math.MaxFloat64
		}
		c, err := bd.n.Check(rec, pw, math.MaxFloat64)
		if err != nil {
			t.Fatalf("seed %d %s: %v", seed, what, err)
		}
		order := "the trace's order"
		if !c.Kept || !c.Feasible {
			// The replay left the order: it is a schedule of the order
			// it ran in (bound.Net.ReplayNet), whose frontier holds.
			st.changed++
			if ms < f.Fastest()*(1-1e-9) {
				st.belowTrace++
			} else if e, err := f.EnergyAt(ms); err == nil && met.EnergyJ < e*(1-1e-5)-1e-9 {
				st.belowTrace++
			}
			order = "its own order (" + c.Order + c.Row + ")"
			rn, err := bd.n.ReplayNet(rec)
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, what, err)
			}
			if fr, err = energy.New(rn.DAG, rn.Order, energy.Options{BaseW: m.BaseW()}); err != nil {
				t.Fatalf("seed %d %s: %v", seed, what, err)
			}
			defer fr.Close()
		}
		e, err := fr.EnergyAt(ms)
		if err != nil {
			t.Fatalf("seed %d %s: frontier of %s at %.9f s: %v", seed, what, order, ms, err)
		}
		// The replay's joules are rounded to the nJ (units.Joules), its
		// times to the ns, and CLP's tolerance is 10⁻⁷ of the LP's unit
		// of energy per row: 10⁻⁵ of the energy covers them.
		if met.EnergyJ < e*(1-1e-5)-1e-9 {
			t.Fatalf("seed %d %s: the replay ends at %d ns with %.9f J, below the frontier of %s, %.9f J there\n%s", seed, what, met.MakespanNs, met.EnergyJ, order, e, text)
		}
		st.closest = math.Min(st.closest, 100*(met.EnergyJ-e)/e)
	}
	cls, err := sc.Classes(g, tr)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	bd.forkCaps = map[int]bool{}
	for k := range sc.Sweep.CapsW {
		bd.forkCaps[k] = true
	}
	ctx := context.Background()
	for _, pol := range sc.Sweep.Policies {
		caps := sc.Sweep.CapsW
		if pol == policy.Uncapped {
			caps = []float64{0}
		}
		for _, capW := range caps {
			what := fmt.Sprintf("policy %s at %g W", pol, capW)
			var r replayed
			switch pol {
			case policy.LP:
				met, run, b, err := sc.lpPoint(ctx, bd, g, capW, net)
				if err != nil {
					t.Fatalf("seed %d %s: %v", seed, what, err)
				}
				if b == nil {
					continue
				}
				r = replayed{met, run.opts, run.net}
			case policy.MinEnergy:
				met, run, ok, err := sc.minEnergyPoint(ctx, bd, g, capW, net)
				if err != nil {
					t.Fatalf("seed %d %s: %v", seed, what, err)
				}
				if !ok {
					continue
				}
				r = replayed{met, run.opts, run.net}
			default:
				pd, po, err := bd.plan()
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if r, err = sc.replayPoint(g, tr, pd, po, cls, m, net, pol, capW); err != nil {
					t.Fatalf("seed %d %s: %v", seed, what, err)
				}
			}
			st.points++
			check(r.met, r.opts, r.net, what)
		}
	}
	plan := &bound.Bound{Vertex: bd.o.Times}
	for k := range randomRuns {
		ch := make([]bound.Choice, len(bd.d.Tasks))
		for i, tk := range bd.d.Tasks {
			h := tk.Hull
			a := rng.Intn(len(h))
			ch[i] = bound.Choice{Fast: a, Slow: a, Frac: 1, Time: h[a].Time, Power: h[a].Power, PeakW: h[a].Power}
			if b := a + 1 + rng.Intn(len(h)-a); b < len(h) && k%2 == 1 {
				x := rng.Float64()
				tf, ts := x*h[a].Time, (1-x)*h[b].Time
				ch[i] = bound.Choice{Fast: a, Slow: b, Frac: x, Time: tf + ts, Power: (tf*h[a].Power + ts*h[b].Power) / (tf + ts), PeakW: h[a].Power, Switched: true}
			}
		}
		r := newRounded(g, bd.d, plan, ch, false, nil)
		met, run, err := sc.replayPhased(g, tr, bd.d, r.times, r.powers, r.parts, r.phases, math.Inf(1), m, net)
		if err != nil {
			t.Fatalf("seed %d random schedule %d: %v", seed, k, err)
		}
		st.random++
		check(met, run.opts, run.net, fmt.Sprintf("random schedule %d", k))
	}
}

// TestFrontierBelowReplays is the adversarial property test of the
// frontier over replays (docs/design/frontier.md): on 40 random scenarios
// (12 with -short), every policy's replay within its cap and 6 random
// schedules each use at least the frontier's energy at their makespans.
func TestFrontierBelowReplays(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	cases := 40
	if testing.Short() {
		cases = 12
	}
	st := frontierStats{closest: math.Inf(1)}
	for seed := range int64(cases) {
		checkFrontierValid(t, seed, 6, &st)
	}
	t.Logf("%d policy points and %d random schedules (%d over their cap, not checked; %d that left the trace's order, checked against their own order's frontier, %d of them below the trace order's); the closest was %.4f %% above its frontier",
		st.points, st.random, st.overCap, st.changed, st.belowTrace, st.closest)
	if st.points+st.random-st.overCap < cases*10 {
		t.Fatalf("only %d replays checked", st.points+st.random-st.overCap)
	}
}

// FuzzFrontierBelowReplays is TestFrontierBelowReplays's generator as a
// fuzz target.
func FuzzFrontierBelowReplays(f *testing.F) {
	if !clp.Available() {
		f.Skip("no CLP")
	}
	for _, s := range []int64{1, 2, 3} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed int64) {
		st := frontierStats{closest: math.Inf(1)}
		checkFrontierValid(t, seed, 2, &st)
	})
}

// TestMinEnergyScheduleBelowBound: told a least makespan below the
// frontier LP's own (as a bound relaxed into blocks can be), the
// min-energy schedule falls back to the LP's own least makespan.
func TestMinEnergyScheduleBelowBound(t *testing.T) {
	if !clp.Available() {
		t.Skip("no CLP")
	}
	sc, err := Parse("frontier-prop.toml", []byte(randomFrontierScenario(rand.New(rand.NewSource(5)))))
	if err != nil {
		t.Fatal(err)
	}
	m := &sc.Machines[0]
	tr, _, err := sc.build(nil)
	if err != nil {
		t.Fatal(err)
	}
	bd, err := sc.newBounder(tr, m, sc.Net())
	if err != nil {
		t.Fatal(err)
	}
	defer bd.close()
	capW := sc.Sweep.CapsW[1]
	b, err := bd.solve(context.Background(), capW)
	if err != nil || b == nil {
		t.Fatalf("bound at %g W: %v", capW, err)
	}
	want, err := minEnergySchedule(bd, m.LPCap(capW), b.Makespan, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := minEnergySchedule(bd, m.LPCap(capW), 0.5*b.Makespan, 0)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.Makespan-want.Makespan) > 1e-6*want.Makespan || math.Abs(got.Energy-want.Energy) > 1e-6*want.Energy {
		t.Errorf("below the bound: %.9f s %.9f J; at the bound %.9f s %.9f J", got.Makespan, got.Energy, want.Makespan, want.Energy)
	}
}

// balanceKey is the stencil's balance key, left out where the pattern
// (none) does not read it.
func balanceKey(imbalance string, balance float64) string {
	if imbalance == "none" {
		return ""
	}
	return fmt.Sprintf("balance = %.2f", balance)
}
