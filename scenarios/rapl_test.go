package scenarios

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/scenarios/results"
)

// TestStaticRAPLPolicy replays the default scenario (16 ranks on 4 PAL
// sockets, 180 W base) under static-rapl. At a per-rank share of 11.1 W,
// between the 2.1 GHz (12 W) and 1.9 GHz (10.2 W) P-states, the windowed
// average holds every busy rank at exactly the share, so the job peaks at
// the cap (ranks in slack draw their task's power, wait_power "task"),
// and it beats the discrete static, which drops to 1.9 GHz. At 4 W per
// rank, below the 1.4 GHz state's 6.8 W, clock modulation keeps the
// static-rapl run at the cap where the discrete static (slowest P-state)
// exceeds it.
func TestStaticRAPLPolicy(t *testing.T) {
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	g, err := sc.Graph(nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &sc.Machines[0]
	for _, c := range []struct {
		capW       float64
		staticOver bool
	}{{180 + 16*11.1, false}, {180 + 16*4, true}} {
		rapl, err := sc.Replay(g, m, sc.Net(), "static-rapl", c.capW)
		if err != nil {
			t.Fatal(err)
		}
		static, err := sc.Replay(g, m, sc.Net(), "static", c.capW)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(float64(rapl.PeakPowerW)-c.capW) > 1e-6 || rapl.OverCapNs != 0 {
			t.Errorf("cap %g W: static-rapl peaks at %g W, %d ns over; want exactly the cap", c.capW, rapl.PeakPowerW, rapl.OverCapNs)
		}
		if (static.OverCapNs > 0) != c.staticOver {
			t.Errorf("cap %g W: static %d ns over the cap", c.capW, static.OverCapNs)
		}
		if c.staticOver {
			if rapl.MakespanNs <= static.MakespanNs {
				t.Errorf("cap %g W: clock-modulated static-rapl (%d ns) not slower than static over the cap (%d ns)", c.capW, rapl.MakespanNs, static.MakespanNs)
			}
		} else if rapl.MakespanNs >= static.MakespanNs {
			t.Errorf("cap %g W: static-rapl %d ns, static %d ns; want static-rapl faster", c.capW, rapl.MakespanNs, static.MakespanNs)
		}
		t.Logf("cap %g W: static-rapl %d ns %.3f W peak; static %d ns %.3f W peak, %d ns over", c.capW, rapl.MakespanNs, rapl.PeakPowerW, static.MakespanNs, static.PeakPowerW, static.OverCapNs)
	}
}

// TestStaticRAPLBalancedAtBound is Bailey et al., SC'15, §6.3's observation that on a
// balanced code the paper's Static leaves the LP little: the windowed
// average is the LP's own interpolation between adjacent P-states
// (Bailey et al., SC'15, §4.1, Fig. 6). On the default stencil without imbalance the compute is
// balanced but the communication is not (corner ranks send 2 halos, inner
// ones 4, each holding the NIC g + (s−1)·G ≈ 197 µs), and the engine LP
// (the bound) moves power to the ranks that communicate most: static-rapl
// is 2.1 %, 4.7 % and 0.3 % above it at 290, 330 and 370 W, and the LP's
// schedule replayed (the lp policy) gets 80.34, 69.76 and 67.26 ms there,
// 1.2 %, 3.9 % and 0.9 % faster than static-rapl, within 0.8 % of the
// bound: the gap is real. With the replay-calibrated LP (no bound),
// static-rapl came out 0.13 % below it. Checked here: static-rapl never
// beats the bound, is never slower than the discrete static, and is
// within 5 % of the bound.
func TestStaticRAPLBalancedAtBound(t *testing.T) {
	text := string(Default())
	for from, to := range map[string]string{
		`imbalance = "charged-field"`:                          `imbalance = "none"`,
		"balance = 0.5\n":                                      "",
		`policies = ["uncapped", "static", "conductor", "lp"]`: `policies = ["static", "static-rapl"]`,
		`caps = "290:380:10"`:                                  `caps = "290:370:40"`,
	} {
		if !strings.Contains(text, from) {
			t.Fatalf("default scenario lacks %q", from)
		}
		text = strings.Replace(text, from, to, 1)
	}
	sc, err := Parse("balanced.toml", []byte(text))
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
	col := func(name string) int { return schema.Index(name) }
	n := 0
	static := map[float64]float64{} // static's makespan minus static-rapl's
	for _, r := range rows {
		if r.Values[col("policy")] == "static" {
			static[r.Values[col("cap_w")].(float64)] += float64(r.Values[col("makespan_ns")].(int64))
		}
	}
	for _, r := range rows {
		if r.Values[col("policy")] != "static-rapl" {
			continue
		}
		n++
		gap, ok := r.Values[col("gap_pct")].(float64)
		if !ok || gap < -1e-4 || gap > 5 {
			t.Errorf("cap %v W: static-rapl gap to the LP bound %v %%; want in [0, 5] %%", r.Values[col("cap_w")], r.Values[col("gap_pct")])
		}
		static[r.Values[col("cap_w")].(float64)] -= float64(r.Values[col("makespan_ns")].(int64))
	}
	if n != 3 {
		t.Errorf("%d static-rapl rows, want 3", n)
	}
	for c, d := range static {
		if d < 0 {
			t.Errorf("cap %g W: static-rapl %.0f ns slower than static", c, -d)
		}
	}
}
