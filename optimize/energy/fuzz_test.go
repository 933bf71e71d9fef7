package energy

import (
	"math"
	"math/rand"
	"testing"

	"github.com/capsim/capsim/optimize/bound"
)

// FuzzFrontier builds an adversarial DAG from the fuzzer's numbers (ranks,
// tasks, configurations, messages, loads, base power and cap) and checks
// the frontier's contract: its fastest end is the all-fastest replay, no
// discrete configuration beats it at its own makespan, the curve does not
// rise and is convex, and the time LP reads it back; without a cap, the
// minimum-cost flow's energies are CLP's at every point of the curve.
func FuzzFrontier(f *testing.F) {
	f.Add(int64(1), uint8(2), uint8(2), uint8(2), uint8(10), uint8(0))
	f.Add(int64(7), uint8(4), uint8(3), uint8(3), uint8(0), uint8(50))
	f.Add(int64(42), uint8(1), uint8(4), uint8(4), uint8(255), uint8(255))
	f.Fuzz(func(t *testing.T, seed int64, ranks, perRank, configs, base, capFrac uint8) {
		rng := rand.New(rand.NewSource(seed))
		d := randomDAG(rng, 1+int(ranks%4), 1+int(perRank%3), 1+int(configs%3))
		o, err := bound.InitialOrder(d)
		if err != nil {
			t.Skip(err)
		}
		if seed%2 == 0 {
			chainPower(d, o)
		}
		opt := Options{BaseW: float64(base)}
		if capFrac > 0 {
			minCap, _ := bound.MinFeasibleCap(d, o)
			opt.CapW = minCap * (1 + float64(capFrac)/64)
		}
		fr := newFrontier(t, d, o, opt)
		if opt.CapW == 0 {
			pts := brute(d, o, opt.BaseW)
			if !near(fr.Fastest(), pts[0].Deadline) || !near(fr.FastestEnergy(), pts[0].Energy) {
				t.Fatalf("fastest %g s %g J, the all-fastest replay %g s %g J", fr.Fastest(), fr.FastestEnergy(), pts[0].Deadline, pts[0].Energy)
			}
			for _, p := range pts {
				e, err := fr.EnergyAt(p.Deadline)
				if err != nil {
					t.Fatal(err)
				}
				if e > p.Energy+1e-7*math.Max(1, p.Energy) {
					t.Fatalf("a discrete schedule ends at %.9g s with %.9g J, the frontier there is %.9g J", p.Deadline, p.Energy, e)
				}
			}
		}
		pts, err := fr.Curve(9)
		if err != nil {
			t.Fatal(err)
		}
		checkCurve(t, "curve", pts)
		if opt.CapW == 0 {
			lpOpt := opt
			lpOpt.lp = true
			ref := newFrontier(t, d, o, lpOpt)
			for _, p := range pts {
				want, err := ref.EnergyAt(p.Deadline)
				if err != nil {
					t.Fatal(err)
				}
				if !relNear(p.Energy, want) {
					t.Fatalf("at %.9g s the flow gives %.15g J, CLP %.15g J", p.Deadline, p.Energy, want)
				}
			}
			ref.Close()
		}
		for _, p := range pts {
			got, err := fr.TimeFor(p.Energy + budgetSlack*fr.Scale())
			if err != nil {
				t.Fatal(err)
			}
			if got > p.Deadline*(1+1e-6)+1e-9 {
				t.Fatalf("budget %.9g J needs %.9g s, the frontier reaches it by %.9g s", p.Energy, got, p.Deadline)
			}
		}
	})
}
