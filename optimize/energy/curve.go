package energy

import (
	"fmt"
	"math"
)

// Point is one point of the frontier: the least energy of a schedule that
// ends by the deadline.
type Point struct {
	Deadline float64 // seconds
	Energy   float64 // joules
}

// Curve returns n points of the frontier (n ≥ 2), at deadlines evenly
// spaced from Fastest to the slowest that still saves energy (Slowest),
// solved from the slowest down, each from the previous basis. Where the
// two ends meet (no deadline saves energy, to 10⁻⁹ of the least
// makespan) it returns the one point.
func (f *Frontier) Curve(n int) ([]Point, error) {
	if n < 2 {
		return nil, fmt.Errorf("energy: %d points: want at least 2", n)
	}
	slow, _, err := f.Slowest()
	if err != nil {
		return nil, err
	}
	if !(slow > f.fast*(1+1e-9)) { // equal within CLP's tolerance
		n = 1
	}
	// From the slowest down: Slowest left the basis at the least energy,
	// and each deadline is then a step from the last.
	pts := make([]Point, n)
	for j := n - 1; j >= 0; j-- {
		t := f.fast
		if n > 1 {
			t = f.fast + (slow-f.fast)*float64(j)/float64(n-1)
		}
		e, err := f.EnergyAt(t)
		if err != nil {
			return nil, err
		}
		pts[j] = Point{Deadline: t, Energy: e}
	}
	return pts, nil
}

// SavedPct is how much less energy, in percent of FastestEnergy, the
// frontier needs at a deadline slowdown above the least makespan
// (0.05: 5 % slower): (E_fast − E(T_fast·(1+slowdown)))/E_fast·100.
func (f *Frontier) SavedPct(slowdown float64) (float64, error) {
	if !(slowdown >= 0) || math.IsInf(slowdown, 0) {
		return 0, fmt.Errorf("energy: slowdown %g: want a finite number ≥ 0", slowdown)
	}
	e, err := f.EnergyAt(f.fast * (1 + slowdown))
	if err != nil {
		return 0, err
	}
	if !(f.fastE > 0) {
		return 0, nil
	}
	return (f.fastE - e) / f.fastE * 100, nil
}
