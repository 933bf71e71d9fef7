// Package power models node and processor power and turns per-rank
// activity timelines into power over time and energy (Anger, PhD thesis,
// Georgia Tech 2016, §4.1; Dong Li, PhD thesis, Virginia Tech 2011,
// §3.5): active power per P-state, idle power with the
// per-socket two-segment (C-state) model, application-dependent active
// power, the energy-scaling model (Eq. 5–6) and the IPS system-power
// model (Eq. 3.19).
package power

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/capsim/capsim/compute"
)

// MaxWatts is the largest power any one value may give: a P-state's,
// an idle floor, a device's, a model's or a job's power cap. A gigawatt is
// some thirty times the draw of the largest supercomputer; a larger value
// is a typo, and one near the float range would overflow the energy of a
// replay and the LP's coefficients to infinity.
const MaxWatts = 1e9

// CheckWatts reports whether w is a finite power of at most MaxWatts,
// above 0 when positive is set and at least 0 otherwise, with an error
// that says what is wanted.
func CheckWatts(w float64, positive bool) error {
	lo, ok := "≥ 0", w >= 0
	if positive {
		lo, ok = "> 0", w > 0
	}
	if !ok || w > MaxWatts {
		return fmt.Errorf("want a finite power %s and at most %g W (power.MaxWatts), got %g", lo, MaxWatts, w)
	}
	return nil
}

// PState is the active power of a core (or node) at one frequency.
type PState struct {
	GHz   float64 `json:"ghz"`
	Watts float64 `json:"watts"`
}

// PStates is a P-state power table sorted by ascending frequency.
type PStates []PState

// NewPStates validates and sorts a table.
func NewPStates(ps []PState) (PStates, error) {
	t := append(PStates(nil), ps...)
	sort.Slice(t, func(i, j int) bool { return t[i].GHz < t[j].GHz })
	for i, p := range t {
		if !(p.GHz > 0) || math.IsInf(p.GHz, 0) || CheckWatts(p.Watts, false) != nil {
			return nil, fmt.Errorf("power: P-state %d: invalid (%g GHz, %g W)", i+1, p.GHz, p.Watts)
		}
		if err := compute.CheckGHz(p.GHz); err != nil {
			return nil, fmt.Errorf("power: P-state: %w", err)
		}
		if i > 0 && p.GHz == t[i-1].GHz {
			return nil, fmt.Errorf("power: duplicate P-state %g GHz", p.GHz)
		}
	}
	if len(t) == 0 {
		return nil, errors.New("power: empty P-state table")
	}
	return t, nil
}

// At returns the power at ghz, interpolating linearly between P-states;
// outside the table it extends the end segments (a single P-state is
// constant) and reports extrapolated = true.
func (t PStates) At(ghz float64) (watts float64, extrapolated bool) {
	n := len(t)
	if n == 0 {
		return 0, true
	}
	if n == 1 {
		return t[0].Watts, ghz != t[0].GHz
	}
	i := sort.Search(n, func(i int) bool { return t[i].GHz >= ghz })
	if i < n && t[i].GHz == ghz {
		return t[i].Watts, false
	}
	extrapolated = i == 0 || i == n
	i = min(max(i, 1), n-1)
	a, b := t[i-1], t[i]
	return a.Watts + (b.Watts-a.Watts)*(ghz-a.GHz)/(b.GHz-a.GHz), extrapolated
}

// Sockets is the per-socket two-segment model of idle and active power
// versus the number of active cores (Anger's thesis §4.1.2, Fig. 16): sockets are
// filled in order, and while socket s is being filled the node draws
// Intercept[s] + Slope[s]·k for k active cores. Idle is the power with no
// core active (all cores in the deepest C-state).
type Sockets struct {
	Idle      float64   `json:"idle_w"`
	Cores     []int     `json:"cores"`     // cores per socket, in fill order
	Intercept []float64 `json:"intercept"` // W, per socket segment
	Slope     []float64 `json:"slope"`     // W per active core, per socket segment
}

// Power returns the node power with active cores busy.
func (m Sockets) Power(active int) (float64, error) {
	if active < 0 {
		return 0, fmt.Errorf("power: negative active cores %d", active)
	}
	if active == 0 {
		return m.Idle, nil
	}
	total := 0
	for s, c := range m.Cores {
		total += c
		if active <= total {
			return m.Intercept[s] + m.Slope[s]*float64(active), nil
		}
	}
	return 0, fmt.Errorf("power: %d active cores exceed the node's %d", active, total)
}

// ExtrapolatedIdle returns the first socket's intercept: the idle power
// to use for the energy model instead of the measured deep-C-state idle
// power (Anger's thesis §4.1.2).
func (m Sockets) ExtrapolatedIdle() float64 {
	if len(m.Intercept) == 0 {
		return m.Idle
	}
	return m.Intercept[0]
}

// Increments returns the three increments of Anger's thesis §4.1.2:
//   - leaveIdle: moving all cores out of the deepest idle state,
//     Intercept[0] − Idle;
//   - wakeFirst: the first active core (its package wakes), Slope[0];
//   - wake[s−1] for each further socket s: the extra jump when its first
//     core becomes active, P(first core of s) − P(last core of s−1) −
//     Slope[s].
func (m Sockets) Increments() (leaveIdle, wakeFirst float64, wake []float64) {
	if len(m.Cores) == 0 {
		return 0, 0, nil
	}
	leaveIdle = m.Intercept[0] - m.Idle
	wakeFirst = m.Slope[0]
	total := m.Cores[0]
	for s := 1; s < len(m.Cores); s++ {
		last := m.Intercept[s-1] + m.Slope[s-1]*float64(total)
		first := m.Intercept[s] + m.Slope[s]*float64(total+1)
		wake = append(wake, first-last-m.Slope[s])
		total += m.Cores[s]
	}
	return leaveIdle, wakeFirst, wake
}

// CoreSample is one stress-benchmark measurement: node power with Active
// cores busy.
type CoreSample struct {
	Active int
	Watts  float64
}

// FitSockets fits the two-segment model from stress-benchmark samples:
// a least-squares line per socket over the samples whose active-core count
// falls in that socket's range (sockets filled in order). Samples with 0
// active cores set Idle (their mean); without them Idle is the first
// intercept. Each socket needs samples at two or more distinct counts.
func FitSockets(samples []CoreSample, cores []int) (Sockets, error) {
	m := Sockets{Cores: append([]int(nil), cores...)}
	lo := 1
	var idleSum float64
	var idleN int
	for _, s := range samples {
		if s.Active == 0 {
			idleSum += s.Watts
			idleN++
		}
	}
	for si, c := range cores {
		if c <= 0 {
			return Sockets{}, fmt.Errorf("power: socket %d has %d cores", si, c)
		}
		hi := lo + c - 1
		var xs, ys []float64
		for _, s := range samples {
			if s.Active >= lo && s.Active <= hi {
				xs = append(xs, float64(s.Active))
				ys = append(ys, s.Watts)
			}
		}
		b, a, err := line(xs, ys)
		if err != nil {
			return Sockets{}, fmt.Errorf("power: socket %d (cores %d–%d): %w", si, lo, hi, err)
		}
		m.Intercept = append(m.Intercept, a)
		m.Slope = append(m.Slope, b)
		lo = hi + 1
	}
	for _, s := range samples {
		if s.Active < 0 || s.Active >= lo {
			return Sockets{}, fmt.Errorf("power: sample with %d active cores outside 0..%d", s.Active, lo-1)
		}
	}
	if idleN > 0 {
		m.Idle = idleSum / float64(idleN)
	} else if len(m.Intercept) > 0 {
		m.Idle = m.Intercept[0]
	}
	return m, nil
}

// line fits y = slope·x + intercept by least squares.
func line(x, y []float64) (slope, intercept float64, err error) {
	if len(x) < 2 {
		return 0, 0, fmt.Errorf("need ≥ 2 samples, have %d", len(x))
	}
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	n := float64(len(x))
	mx, my = mx/n, my/n
	var sxx, sxy float64
	for i := range x {
		sxx += (x[i] - mx) * (x[i] - mx)
		sxy += (x[i] - mx) * (y[i] - my)
	}
	if sxx == 0 {
		return 0, 0, errors.New("all samples at the same core count")
	}
	slope = sxy / sxx
	return slope, my - slope*mx, nil
}

// Amdahl returns the time speedup 1/((1−f)/p + f) of Anger's thesis Eq. 4 for
// serial fraction f on p workers.
func Amdahl(f float64, p int) float64 { return 1 / ((1-f)/float64(p) + f) }

// EnergyParallel returns E_p = E_i/S_t + E_d (Anger's thesis Eq. 5) for
// sequential energy e1 with idle fraction s and time speedup st.
func EnergyParallel(e1, s, st float64) float64 { return e1*s/st + e1*(1-s) }

// EnergySpeedup returns S_e = 1/((1−s) + s/S_t), Anger's thesis Eq. 6 in its
// corrected form (the thesis prints s/S_e).
func EnergySpeedup(s, st float64) float64 { return 1 / ((1 - s) + s/st) }

// IdleFraction returns the application-dependent idle fraction
// s_app = P_idle / P̄_1,app (Anger's thesis §4.1.3): the extrapolated idle power
// over the application's measured single-thread average power.
func IdleFraction(idleW, appW float64) (float64, error) {
	if !(appW > 0) || idleW < 0 || idleW > appW {
		return 0, fmt.Errorf("power: idle fraction needs 0 ≤ idle (%g W) ≤ app power (%g W)", idleW, appW)
	}
	return idleW / appW, nil
}

// IPS is the system-power model P = K1·IPS + K0 of Dong Li's thesis Eq. 3.19
// (K1 in W·s per instruction, K0 in W).
type IPS struct {
	K1 float64 `json:"k1"`
	K0 float64 `json:"k0"`
}

// Watts returns K1·instr/seconds + K0.
func (m IPS) Watts(instr, seconds float64) float64 { return m.K1*instr/seconds + m.K0 }

// InterpInstructions estimates the instruction count at threads by linear
// interpolation between the minimum- and maximum-concurrency samples
// (Dong Li's thesis §3.5); outside [tmin, tmax] it is clamped to the end values.
func InterpInstructions(threads, tmin int, imin float64, tmax int, imax float64) float64 {
	if tmax == tmin || threads <= tmin {
		return imin
	}
	if threads >= tmax {
		return imax
	}
	return imin + float64(threads-tmin)/float64(tmax-tmin)*(imax-imin)
}

// ScalingEnergy predicts the energy of a parallel run from a sequential
// one with the refined model of Anger's thesis §4.1.1–4.1.3: the sequential run
// takes t1 seconds at the application's measured single-thread power
// app1W, of which idleW (the extrapolated idle power, Sockets.
// ExtrapolatedIdle) is idle; at time speedup st the idle energy shrinks by
// st and the dynamic energy is unchanged (Eq. 5).
func ScalingEnergy(idleW, app1W, t1, st float64) (Split, error) {
	if _, err := IdleFraction(idleW, app1W); err != nil {
		return Split{}, err
	}
	if !(t1 > 0) || !(st > 0) {
		return Split{}, fmt.Errorf("power: scaling energy needs positive time (%g s) and speedup (%g)", t1, st)
	}
	return Split{Idle: idleW * t1 / st, Dynamic: (app1W - idleW) * t1}, nil
}
