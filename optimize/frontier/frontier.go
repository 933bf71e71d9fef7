// Package frontier reduces a task's measured configurations to what the
// power-constrained LP can use: the Pareto-efficient points in (time,
// power), then their lower convex hull (Bailey et al., SC'15, §3.2, Table 1).
package frontier

import (
	"fmt"
	"math"
	"sort"
)

// Config is one configuration of a task: its duration and average power.
type Config struct {
	Time  float64 // seconds (any unit, used consistently)
	Power float64 // watts
	Label string  // optional, e.g. "2.6GHz/8t"
}

// Hull returns the lower convex hull of the Pareto frontier of cs, sorted
// by increasing time (and so decreasing power): dominated points and
// points above the segment joining their neighbours are dropped. Along the
// result, time strictly increases, power strictly decreases and the
// slopes strictly increase.
func Hull(cs []Config) ([]Config, error) {
	pareto, err := Pareto(cs)
	if err != nil {
		return nil, err
	}
	// Lower convex hull (monotone chain).
	var hull []Config
	for _, p := range pareto {
		for len(hull) >= 2 {
			a, b := hull[len(hull)-2], hull[len(hull)-1]
			// b is dropped when it lies on or above the segment a–p.
			if (b.Power-a.Power)*(p.Time-a.Time) >= (p.Power-a.Power)*(b.Time-a.Time) {
				hull = hull[:len(hull)-1]
				continue
			}
			break
		}
		hull = append(hull, p)
	}
	return hull, nil
}

// Pareto returns the Pareto-efficient configurations of cs sorted by
// increasing time (and so strictly decreasing power): those that no other
// configuration beats in both time and power.
func Pareto(cs []Config) ([]Config, error) {
	if len(cs) == 0 {
		return nil, fmt.Errorf("frontier: no configurations")
	}
	pts := append([]Config(nil), cs...)
	for _, c := range pts {
		if !(c.Time > 0) || !(c.Power >= 0) || math.IsInf(c.Time, 0) || math.IsInf(c.Power, 0) {
			return nil, fmt.Errorf("frontier: configuration (%g, %g W) needs a positive finite time and a finite power ≥ 0", c.Time, c.Power)
		}
	}
	sort.SliceStable(pts, func(i, j int) bool {
		if pts[i].Time != pts[j].Time {
			return pts[i].Time < pts[j].Time
		}
		return pts[i].Power < pts[j].Power
	})
	var pareto []Config
	for _, p := range pts {
		if len(pareto) > 0 && p.Power >= pareto[len(pareto)-1].Power {
			continue
		}
		pareto = append(pareto, p)
	}
	return pareto, nil
}

// Slope returns the power change per unit of time along hull segment k
// (from point k to k+1); it is negative.
func Slope(h []Config, k int) float64 {
	return (h[k+1].Power - h[k].Power) / (h[k+1].Time - h[k].Time)
}

// PowerAt returns the least power needed to finish in time d: the hull's
// value at d, clamped to its ends.
func PowerAt(h []Config, d float64) float64 {
	if d <= h[0].Time {
		return h[0].Power
	}
	for k := 0; k+1 < len(h); k++ {
		if d <= h[k+1].Time {
			return h[k].Power + Slope(h, k)*(d-h[k].Time)
		}
	}
	return h[len(h)-1].Power
}

// TimeAt returns the shortest time reachable within power w: the hull's
// inverse, clamped to its ends (the slowest point when even it exceeds w).
func TimeAt(h []Config, w float64) float64 {
	if w >= h[0].Power {
		return h[0].Time
	}
	for k := 0; k+1 < len(h); k++ {
		if w >= h[k+1].Power {
			return h[k].Time + (w-h[k].Power)/Slope(h, k)
		}
	}
	return h[len(h)-1].Time
}

// Mix expresses duration d as a mix of the two adjacent hull points around
// it: a fraction frac of the work in h[k] and the rest in h[k+1] (frac is 1
// and k the last index when d is at or beyond an end).
func Mix(h []Config, d float64) (k int, frac float64) {
	if d <= h[0].Time || len(h) == 1 {
		return 0, 1
	}
	for k = 0; k+1 < len(h); k++ {
		if d <= h[k+1].Time {
			return k, (h[k+1].Time - d) / (h[k+1].Time - h[k].Time)
		}
	}
	return len(h) - 1, 1
}
