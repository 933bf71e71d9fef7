package dctdvfs

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Item is one choice for one phase in the frequency knapsack (Li,
// 2011, §3.2): Weight is the time the phase gains over its fastest level
// (Δt_{ijf_j} of Eq. 3.7, ≥ 0) and Energy its value (joules).
type Item struct {
	Weight, Energy float64
}

// Knapsack solves the multiple-choice knapsack of Li, 2011, Eqs. 3.1–3.3
// with corrected base cases: one item per phase, Σ Weight ≤
// slack, Σ Energy minimal. It is the dynamic program
//
//	A(0, Y) = 0 for Y ≥ 0
//	A(i, Y) = min over items k of phase i with w_ik ≤ Y of E_ik + A(i−1, Y − w_ik)
//
// (minimizing energy is maximizing −energy, the thesis' form) over slack
// discretized in steps of quantum; weights are rounded up to whole steps,
// so a choice never uses more than slack. Ties keep the lower item index
// (the faster level). ok is false when some phase has no item that fits.
func Knapsack(phases [][]Item, slack, quantum float64) (choice []int, energy float64, ok bool, err error) {
	if !(quantum > 0) || math.IsInf(quantum, 0) {
		return nil, 0, false, fmt.Errorf("dctdvfs: knapsack quantum %g must be positive", quantum)
	}
	if slack < 0 || math.IsNaN(slack) {
		slack = 0
	}
	Y := int(math.Floor(slack/quantum + 1e-9))
	if Y > 1<<22 {
		return nil, 0, false, fmt.Errorf("dctdvfs: knapsack of %d slack steps is too large (slack %g, quantum %g)", Y, slack, quantum)
	}
	M := len(phases)
	q := make([][]int, M)
	for i, items := range phases {
		if len(items) == 0 {
			return nil, 0, false, fmt.Errorf("dctdvfs: phase %d has no items", i)
		}
		q[i] = make([]int, len(items))
		for k, it := range items {
			if it.Weight < 0 || math.IsNaN(it.Weight) || math.IsNaN(it.Energy) {
				return nil, 0, false, fmt.Errorf("dctdvfs: phase %d item %d: weight %g, energy %g", i, k, it.Weight, it.Energy)
			}
			w := math.Ceil(it.Weight/quantum - 1e-9)
			if w > float64(Y) {
				q[i][k] = Y + 1 // never fits
			} else {
				q[i][k] = int(w)
			}
		}
	}
	inf := math.Inf(1)
	prev := make([]float64, Y+1) // A(0, ·) = 0
	cur := make([]float64, Y+1)
	pick := make([][]int16, M)
	for i := 0; i < M; i++ {
		pick[i] = make([]int16, Y+1)
		for y := 0; y <= Y; y++ {
			best, bk := inf, -1
			for k, it := range phases[i] {
				if q[i][k] > y {
					continue
				}
				if v := it.Energy + prev[y-q[i][k]]; v < best {
					best, bk = v, k
				}
			}
			cur[y] = best
			pick[i][y] = int16(bk)
		}
		prev, cur = cur, prev
	}
	if math.IsInf(prev[Y], 1) {
		return nil, 0, false, nil
	}
	choice = make([]int, M)
	y := Y
	for i := M - 1; i >= 0; i-- {
		k := int(pick[i][y])
		choice[i] = k
		y -= q[i][k]
	}
	for i, k := range choice {
		energy += phases[i][k].Energy
	}
	return choice, energy, true, nil
}

// Relaxed returns the LP relaxation of the knapsack (a hand-checkable case):
// the least energy when a phase may split its time between two levels,
// i.e. move along the lower convex hull of its (weight, energy) points.
// Starting from every phase's least-weight point, it spends slack on the
// hull segments of most negative slope first. It never exceeds the
// Knapsack optimum.
func Relaxed(phases [][]Item, slack float64) (float64, error) {
	type seg struct{ dw, de float64 }
	var segs []seg
	var e float64
	for i, items := range phases {
		if len(items) == 0 {
			return 0, errors.New("dctdvfs: relaxed knapsack: a phase has no items")
		}
		pts := append([]Item(nil), items...)
		sort.Slice(pts, func(a, b int) bool {
			if pts[a].Weight != pts[b].Weight {
				return pts[a].Weight < pts[b].Weight
			}
			return pts[a].Energy < pts[b].Energy
		})
		// Lower convex hull from the least-weight point, while energy falls.
		hull := []Item{pts[0]}
		for _, p := range pts[1:] {
			if p.Weight == hull[len(hull)-1].Weight {
				continue
			}
			for len(hull) >= 2 {
				a, b := hull[len(hull)-2], hull[len(hull)-1]
				if (b.Energy-a.Energy)*(p.Weight-a.Weight) >= (p.Energy-a.Energy)*(b.Weight-a.Weight) {
					hull = hull[:len(hull)-1]
					continue
				}
				break
			}
			hull = append(hull, p)
		}
		e += hull[0].Energy
		for k := 1; k < len(hull); k++ {
			dw, de := hull[k].Weight-hull[k-1].Weight, hull[k].Energy-hull[k-1].Energy
			if de >= 0 {
				break
			}
			segs = append(segs, seg{dw, de})
		}
		_ = i
		slack -= hull[0].Weight
	}
	if slack < 0 {
		return math.Inf(1), nil
	}
	// Slopes rise along each hull, so taking segments by slope keeps every
	// phase's segments in order.
	sort.SliceStable(segs, func(a, b int) bool { return segs[a].de/segs[a].dw < segs[b].de/segs[b].dw })
	for _, s := range segs {
		if slack <= 0 {
			break
		}
		take := math.Min(1, slack/s.dw)
		e += take * s.de
		slack -= take * s.dw
	}
	return e, nil
}
