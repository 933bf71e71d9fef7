package scenarios

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/network/topo"
	"github.com/capsim/capsim/scenarios/results"
)

func TestDefaultScenarioSweep(t *testing.T) {
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := Run(context.Background(), sc, Replayer{}, RunOptions{OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Points != 31 || sum.Computed != 31 {
		t.Fatalf("summary %+v", sum)
	}
	schema, rows, err := results.ReadArrow(filepath.Join(dir, results.ArrowFile))
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int { return schema.Index(name) }
	uncapped := rows[0].Values[col("makespan_ns")].(int64)
	peakUncapped := rows[0].Values[col("peak_power_w")].(float64)
	// 16 ranks at 2.1 GHz on 4 sockets: 180 W base, 12 W per busy core.
	if peakUncapped > 180+16*12+1e-9 || peakUncapped < 180+16*1.5 {
		t.Errorf("uncapped peak %.1f W outside [204, 372]", peakUncapped)
	}
	prev := int64(1 << 62)
	for _, r := range rows[1:11] {
		capW := r.Values[col("cap_w")].(float64)
		ms := r.Values[col("makespan_ns")].(int64)
		if ms < uncapped {
			t.Errorf("static at %g W (%d ns) beats the uncapped run (%d ns)", capW, ms, uncapped)
		}
		if ms > prev {
			t.Errorf("static makespan rises from %d to %d ns as the cap rises to %g W", prev, ms, capW)
		}
		prev = ms
		if over := r.Values[col("over_cap_ns")].(int64); capW >= 290 && over != 0 {
			t.Errorf("static at %g W spends %d ns over its cap", capW, over)
		}
	}
	if last := rows[10].Values[col("makespan_ns")].(int64); last != uncapped {
		t.Errorf("static at 380 W (every core fits 2.1 GHz) gives %d ns, uncapped %d ns", last, uncapped)
	}
	// The LP rows: the bound at every cap, and at 380 W (every task fast)
	// the rounded schedule is the uncapped run. Its over-cap time is
	// reported, not asserted: the replay is as soon as possible.
	for _, r := range rows[21:] {
		if r.Values[col("policy")] != "lp" || r.Values[col("bound_ns")] == nil {
			t.Fatalf("lp row %v", r.Values)
		}
		if bnd, ms := r.Values[col("bound_ns")].(int64), r.Values[col("makespan_ns")].(int64); bnd != rows[r.Index-20].Values[col("bound_ns")].(int64) || ms <= 0 {
			t.Errorf("lp row %d: bound %d, makespan %d", r.Index, bnd, ms)
		}
	}
	for _, r := range rows[11:21] {
		if r.Values[col("policy")] != "conductor" || r.Values[col("bound_ns")] != rows[r.Index-10].Values[col("bound_ns")] {
			t.Errorf("conductor row %v", r.Values)
		}
	}
	if last := rows[30].Values[col("makespan_ns")].(int64); last != uncapped {
		t.Errorf("lp at 380 W gives %d ns, uncapped %d ns", last, uncapped)
	}
	// Byte-identical on a second run.
	dir2 := t.TempDir()
	if _, err := Run(context.Background(), sc, Replayer{}, RunOptions{OutDir: dir2, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{results.ArrowFile, results.CSVFile} {
		a, _ := os.ReadFile(filepath.Join(dir, f))
		b, _ := os.ReadFile(filepath.Join(dir2, f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between runs", f)
		}
	}
}

func TestWorkloadParamErrors(t *testing.T) {
	base := string(Default())
	for _, tc := range []struct{ from, to, want string }{
		{"iterations = 20", `iterations = "many"`, "key workload.params.iterations: want an integer"},
		{"iterations = 20", "iterations = 20\ncolour = 3", "key workload.params.colour: unknown parameter"},
		{"ranks = 16", "ranks = 12", "key workload.params.ranks: 12 ranks, but the process grid [4 4] has 16"},
		{`generator = "stencil2d"`, `generator = "lulesh"`, "key workload.generator: unknown generator"},
		{`imbalance = "charged-field"`, `imbalance = "zigzag"`, "unknown imbalance"},
	} {
		sc, err := Parse("s.toml", []byte(strings.Replace(base, tc.from, tc.to, 1)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = sc.Graph(nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "s.toml") {
			t.Errorf("%s: err = %v, want %q", tc.to, err, tc.want)
		}
	}
}

// Network overrides: one selecting every message with parameters P gives
// exactly the replay of a base network P; one selecting the halo exchange
// with a faster network shortens the run; one selecting nothing (a
// misspelt region) or only messages an earlier one takes is refused by
// scenario check, before a sweep.
func TestNetworkOverrides(t *testing.T) {
	base := string(Default())
	fast := "L_ns = 500\no_ns = 300\nG_ns_per_byte = 1\n"
	makespan := func(text string) int64 {
		t.Helper()
		sc, err := Parse("o.toml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		tr, g, err := sc.build(nil)
		if err != nil {
			t.Fatal(err)
		}
		cls, err := sc.Classes(g, tr)
		if err != nil {
			t.Fatal(err)
		}
		met, _, err := sc.replay(g, &sc.Machines[0], sc.Net(), cls, "uncapped", 0)
		if err != nil {
			t.Fatal(err)
		}
		return met.MakespanNs
	}
	override := func(sel string) string {
		return strings.Replace(base, "[workload]", "[[network.override]]\n"+sel+"\n"+fast+"\n[workload]", 1)
	}
	plain := makespan(base)
	everything := makespan(override(`communicator = "0"`))
	asBase := makespan(strings.Replace(strings.Replace(strings.Replace(base, "L_ns = 2500", "L_ns = 500", 1), "o_ns = 1500", "o_ns = 300", 1), "G_ns_per_byte = 6", "G_ns_per_byte = 1", 1))
	if everything != asBase {
		t.Errorf("override of every message %d ns, base network with its parameters %d ns", everything, asBase)
	}
	halo := makespan(override(`region = "stencil.halo"`))
	if !(asBase < halo && halo < plain) {
		t.Errorf("fast everywhere %d ns, fast halo %d ns, plain %d ns: want increasing", asBase, halo, plain)
	}
	nosuch, err := Parse("o.toml", []byte(override(`region = "no.such.region"`)))
	if err != nil {
		t.Fatal(err)
	}
	if err := nosuch.Check(); err == nil || !strings.Contains(err.Error(), `o.toml:47: key network.override.region: network override 1 (communicator "", region "no.such.region") selects no message`) {
		t.Errorf("override selecting nothing: %v, want it refused by name", err)
	}
	// An override after one that takes every message it selects can
	// never apply: refused on its own line, naming the one before.
	shadowed, err := Parse("o.toml", []byte(strings.Replace(override(`communicator = "world"`), "[workload]", "[[network.override]]\nregion = \"stencil.halo\"\nL_ns = 9\n\n[workload]", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := shadowed.Check(); err == nil || !strings.Contains(err.Error(), `o.toml:53: key network.override.region: network override 2 (communicator "", region "stencil.halo") never applies: every message it selects is taken first by override 1 (communicator "world", region "")`) {
		t.Errorf("shadowed override: %v, want it refused naming the override before it", err)
	}
	if world := makespan(override(`communicator = "world"`)); world != asBase {
		t.Errorf("communicator by name: %d ns, want %d", world, asBase)
	}
}

// Scenario axes: a sweep over network.L_ns and models.memory_boundness
// gives, point for point, the makespans of scenarios written with those
// values, and bad axes are rejected with their key.
func TestScenarioAxes(t *testing.T) {
	base := strings.Replace(string(Default()), `policies = ["uncapped", "static", "conductor", "lp"]`, `policies = ["uncapped", "static"]`, 1)
	swept := base + "\n[sweep.params]\n\"network.L_ns\" = [1000, 8000]\n\"models.memory_boundness\" = [0.0, 0.6]\niterations = [3]\n"
	sc, err := Parse("axes.toml", []byte(swept))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Run(context.Background(), sc, Replayer{}, RunOptions{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	schema, rows, err := results.ReadArrow(filepath.Join(dir, results.ArrowFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4*11 {
		t.Fatalf("%d rows, want 44", len(rows))
	}
	col := func(name string) int { return schema.Index(name) }
	for _, r := range rows {
		if r.Values[col("policy")] != "static" || r.Values[col("cap_w")] != 330.0 {
			continue
		}
		L := r.Values[col("param.network.L_ns")].(int64)
		mb := r.Values[col("param.models.memory_boundness")].(float64)
		text := strings.Replace(base, "L_ns = 2500", fmt.Sprintf("L_ns = %d", L), 1)
		text = strings.Replace(text, "memory_boundness = 0.3", fmt.Sprintf("memory_boundness = %g", mb), 1)
		text = strings.Replace(text, "iterations = 20", "iterations = 3", 1)
		one, err := Parse("one.toml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		g, err := one.Graph(nil)
		if err != nil {
			t.Fatal(err)
		}
		met, err := one.Replay(g, &one.Machines[0], one.Net(), "static", 330)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Values[col("makespan_ns")].(int64); got != met.MakespanNs {
			t.Errorf("L=%d m=%g: swept %d ns, written %d ns", L, mb, got, met.MakespanNs)
		}
	}
	for _, tc := range []struct{ axis, want string }{
		{`"network.latency" = [1]`, "not a workload parameter"},
		{`"network.L_ns" = [-1]`, "latency must be an integer ≥ 0"},
		{`"models.memory_boundness" = [1.5]`, "must be in [0, 1]"},
		{`"machine.compute_speed_factor" = ["fast"]`, "is not a number"},
	} {
		_, err := Parse("bad.toml", []byte(base+"\n[sweep.params]\n"+tc.axis+"\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.toml") {
			t.Errorf("%s: %v, want %q", tc.axis, err, tc.want)
		}
	}
}

// The conductor policy on the default scenario: at every cap where Static
// stays within its cap, Conductor does too (every rank within its share,
// the shares adding up to the cap), it is never faster than the uncapped
// run, and the LP bound comes along for the gap.
func TestConductorPolicy(t *testing.T) {
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	m := &sc.Machines[0]
	g, err := sc.Graph(nil)
	if err != nil {
		t.Fatal(err)
	}
	unc, err := sc.Replay(g, m, sc.Net(), "uncapped", 0)
	if err != nil {
		t.Fatal(err)
	}
	var pts []Point
	for _, c := range []float64{290, 320, 350, 380} {
		pts = append(pts, Point{Machine: 0, Policy: "conductor", CapW: c})
	}
	var got []Metrics
	err = Replayer{}.Evaluate(context.Background(), sc, pts, func(p Point, met Metrics) error {
		got = append(got, met)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, met := range got {
		if met.OverCapNs != 0 {
			t.Errorf("conductor at %g W spends %d ns over the cap", pts[i].CapW, met.OverCapNs)
		}
		if met.MakespanNs < unc.MakespanNs {
			t.Errorf("conductor at %g W (%d ns) beats the uncapped run (%d ns)", pts[i].CapW, met.MakespanNs, unc.MakespanNs)
		}
		if met.BoundNs <= 0 {
			t.Errorf("conductor at %g W: no bound", pts[i].CapW)
		}
	}
}

// A 32-rank workload on the 16-rank default machine is an error naming
// both counts on every path, not an index out of range.
func TestWorkloadLargerThanMachine(t *testing.T) {
	text := strings.Replace(string(Default()), "ranks = 16\npx = 4", "ranks = 32\npx = 8", 1)
	sc, err := Parse("big.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := sc.Trace(nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := sc.Graph(nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &sc.Machines[0]
	_, dagErr := sc.BoundDAG(tr, m, sc.Net())
	_, replayErr := sc.Replay(g, m, sc.Net(), "static", 300)
	for name, err := range map[string]error{"BoundDAG": dagErr, "Replay": replayErr, "Check": sc.Check()} {
		if err == nil || !strings.Contains(err.Error(), "32 ranks but machine pal runs 16 (2 nodes × 8 ranks_per_node)") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := m.FitRanks(4, false); err != nil {
		t.Errorf("4 ranks on 16 slots: %v", err)
	}
	if err := m.FitRanks(4, true); err == nil {
		t.Error("a sweep of 4 ranks on 16 slots accepted")
	}
}

// Network topology: a crossbar replays as plain LogGOPS; a fat-tree with
// slow links lengthens the run, and the slower its links the longer; a
// topology too small for the machine, or a bad one, is an error naming
// network.topology.
func TestNetworkTopology(t *testing.T) {
	base := string(Default())
	replay := func(text string) (int64, error) {
		t.Helper()
		sc, err := Parse("t.toml", []byte(text))
		if err != nil {
			return 0, err
		}
		_, g, err := sc.build(nil)
		if err != nil {
			t.Fatal(err)
		}
		met, _, err := sc.replay(g, &sc.Machines[0], sc.Net(), nil, "uncapped", 0)
		return met.MakespanNs, err
	}
	with := func(table string) string {
		return strings.Replace(base, "[workload]", "[network.topology]\n"+table+"\n[workload]", 1)
	}
	plain, err := replay(base)
	if err != nil {
		t.Fatal(err)
	}
	if cb, err := replay(with(`kind = "crossbar"`)); err != nil || cb != plain {
		t.Errorf("crossbar: %d ns (%v), plain %d ns", cb, err, plain)
	}
	// The default machine has 2 nodes of 8 ranks: a 2-ary 1-tree.
	fast, err1 := replay(with("kind = \"fattree\"\nk = 2\nn = 1\nbw_GBps = 0.1"))
	slow, err2 := replay(with("kind = \"fattree\"\nk = 2\nn = 1\nbw_GBps = 0.01"))
	if err1 != nil || err2 != nil || !(fast < slow) {
		t.Errorf("fat-tree at 0.1 GB/s: %d ns (%v); at 0.01 GB/s: %d ns (%v): want increasing", fast, err1, slow, err2)
	}
	// bytes_first selects the former flow timing (sim.FlowNetwork.BytesFirst).
	for _, bf := range []bool{false, true} {
		sc, err := Parse("t.toml", []byte(with(fmt.Sprintf("kind = \"fattree\"\nk = 2\nn = 1\nbytes_first = %v", bf))))
		if err != nil {
			t.Fatal(err)
		}
		fn, err := sc.flowNetwork(&sc.Machines[0], 16)
		if err != nil || fn == nil || fn.BytesFirst != bf {
			t.Errorf("bytes_first = %v: flow network %+v (%v)", bf, fn, err)
		}
	}
	// neighbours selects the re-rating of neighbours only
	// (sim.FlowNetwork.Neighbours); exact is deprecated (a warning), is accepted
	// and changes nothing.
	for _, c := range []struct {
		key  string
		want bool
	}{{"", false}, {"neighbours = true", true}, {"neighbours = false", false}, {"exact = true", false}, {"exact = false", false}} {
		sc, err := Parse("t.toml", []byte(with("kind = \"fattree\"\nk = 2\nn = 1\n"+c.key)))
		if err != nil {
			t.Fatal(err)
		}
		fn, err := sc.flowNetwork(&sc.Machines[0], 16)
		if err != nil || fn == nil || fn.Neighbours != c.want {
			t.Errorf("%q: flow network %+v (%v), want Neighbours %v", c.key, fn, err, c.want)
		}
	}
	// The same tree in the generalised (XGFT) form: one switch of 2 hosts.
	if x, err := replay(with("kind = \"fattree\"\ndown = [2]\nup = [1]\nbw_GBps = 0.1")); err != nil || x != fast {
		t.Errorf("XGFT down = [2], up = [1]: %d ns (%v), want the 2-ary 1-tree's %d ns", x, err, fast)
	}
	for _, c := range []struct{ table, want string }{
		{"kind = \"torus\"\ndims = [1]", "needs 2 nodes"},
		{"kind = \"fattree\"\nk = 1\nn = 1", "network.topology"},
		{"kind = \"mesh\"", "unknown kind"},
		{"kind = \"fattree\"\nk = 2\nn = 1\nmapping = \"no-such-file\"", "network.topology.mapping"},
	} {
		if _, err := replay(with(c.table)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.table, err, c.want)
		}
	}
}

// TestNetTopologySpec checks the topo.Parse spec a scenario's
// [network.topology] table gives, the generalised fat-tree's lists and the
// dragonfly's chassis and wiring included.
func TestNetTopologySpec(t *testing.T) {
	hop := int64(5000)
	for _, c := range []struct {
		t    NetTopology
		want string
	}{
		{NetTopology{Kind: "fattree", K: 4, N: 2, BW: 1, HopNs: &hop}, "fattree:k=4,n=2,bw=1,hop_ns=5000"},
		{NetTopology{Kind: "fattree", Down: []int{4, 4}, Up: []int{1, 2}, Links: []int{1, 2}}, "fattree:down=4x4,up=1x2,links=1x2"},
		{NetTopology{Kind: "dragonfly", Groups: 4, Routers: 4, Hosts: 2, Chassis: 2, ChassisBW: 5, Wiring: "simgrid"},
			"dragonfly:groups=4,routers=4,hosts=2,chassis=2,chassis_bw=5,wiring=simgrid"},
	} {
		got := c.t.Spec()
		if got != c.want {
			t.Errorf("Spec() = %q, want %q", got, c.want)
			continue
		}
		if _, err := topo.Parse(got); err != nil {
			t.Errorf("topo.Parse(%q): %v", got, err)
		}
	}
}
