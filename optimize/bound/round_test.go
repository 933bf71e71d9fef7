package bound

import (
	"math"
	"testing"

	"github.com/capsim/capsim/optimize/frontier"
)

// A hand-checkable example: the LP at 40 W runs 5/7 of the work at g2 and
// 2/7 at g4 (d = 100/7); nearest picks g2 (12 s, 44 W, over the cap),
// power-safe g4 (20 s, 30 W), split keeps 100/7 s at a true average of
// 38.4 W (Eq. 10).
func TestRoundExampleD(t *testing.T) {
	h, _ := frontier.Hull([]frontier.Config{{Time: 10, Power: 50}, {Time: 12, Power: 44}, {Time: 14, Power: 41},
		{Time: 20, Power: 30}, {Time: 15, Power: 55}, {Time: 25, Power: 31}})
	d := &DAG{Vertices: 2, Init: 0, Fin: 1, Tasks: []Task{{Src: 0, Dst: 1, Hull: h}}}
	b := &Bound{Duration: []float64{solve(t, d, 40)[0]}}
	cases := []struct {
		opt         RoundOptions
		time, power float64
		peak        float64
		switched    bool
	}{
		{RoundOptions{Policy: RoundSplit}, 100.0 / 7, 38.4, 44, true},
		{RoundOptions{Policy: RoundNearest}, 12, 44, 44, false},
		{RoundOptions{Policy: RoundPowerSafe}, 20, 30, 30, false},
		// A 145 µs switch adds its time at the slower point's power.
		{RoundOptions{Policy: RoundSplit, SwitchS: 145e-6}, 100.0/7 + 145e-6, (38.4*100/7 + 30*145e-6) / (100.0/7 + 145e-6), 44, true},
		// Shorter than the minimum length: not split, the slower point.
		{RoundOptions{Policy: RoundSplit, MinTaskS: 15}, 20, 30, 30, false},
	}
	for _, c := range cases {
		ch, err := Round(d, b, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		g := ch[0]
		if math.Abs(g.Time-c.time) > 1e-9 || math.Abs(g.Power-c.power) > 1e-9 || g.PeakW != c.peak || g.Switched != c.switched {
			t.Errorf("%+v: got %+v, want time %v power %v peak %v", c.opt, g, c.time, c.power, c.peak)
		}
	}
	if _, err := ParseRounding("nearest"); err != nil {
		t.Error(err)
	}
	if _, err := ParseRounding("up"); err == nil {
		t.Error("bad rounding accepted")
	}
}

// §9.5 property 5 and §2.4: for any mix of two adjacent hull points, the
// split's true average power (10) never exceeds the LP's linear power (11),
// and the power-safe choice never exceeds it either.
func TestRoundNeverAboveLPPower(t *testing.T) {
	h, _ := frontier.Hull([]frontier.Config{{Time: 1, Power: 100}, {Time: 1.3, Power: 70}, {Time: 1.8, Power: 50}, {Time: 3, Power: 35}})
	d := &DAG{Vertices: 2, Init: 0, Fin: 1, Tasks: []Task{{Src: 0, Dst: 1, Hull: h}}}
	for dur := 1.0; dur <= 3; dur += 0.01 {
		lp := frontier.PowerAt(h, dur)
		for _, pol := range []Rounding{RoundSplit, RoundPowerSafe} {
			ch, _ := Round(d, &Bound{Duration: []float64{dur}}, RoundOptions{Policy: pol})
			if ch[0].Power > lp+1e-9 {
				t.Errorf("%v at d = %v: power %v above the LP's %v", pol, dur, ch[0].Power, lp)
			}
			if pol == RoundSplit && math.Abs(ch[0].Time-dur) > 1e-9 {
				t.Errorf("split at d = %v takes %v", dur, ch[0].Time)
			}
		}
	}
}
