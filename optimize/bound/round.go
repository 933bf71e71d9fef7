package bound

import (
	"fmt"

	"github.com/capsim/capsim/optimize/frontier"
)

// Rounding is a policy that turns the LP's continuous configurations into
// ones a machine can run (Bailey et al., SC'15, §3.5).
type Rounding int

// Rounding policies.
const (
	// RoundSplit runs each task as the LP says: a share of its work at one
	// hull point and the rest at the adjacent slower one, switching once
	// mid-task (Adagio-style). Its duration is the LP's (plus the switch
	// overhead) and its time-averaged power (Eq. 10) is at most the LP's
	// p_i (Eq. 11, §2.4); while in the faster point it draws more.
	RoundSplit Rounding = iota
	// RoundNearest runs each task wholly at the hull point nearest in time
	// to the LP's duration: the paper's choice (§3.5), which can exceed
	// the cap (note Example D).
	RoundNearest
	// RoundPowerSafe runs each task wholly at the fastest hull point whose
	// power is at most the LP's: the slower of the two, so every event's
	// power stays within the cap the LP met, at some cost in time.
	RoundPowerSafe
	// RoundStaggered splits every task as RoundSplit does, but whoever
	// replays it places each task's stretch at the faster point within the
	// task (in one or several pieces) where the job's instantaneous power
	// stays within the cap, and runs a task wholly at the slower point
	// only where no such placement exists (scenarios.ReplayRounded). Round
	// itself returns the same choices as RoundSplit.
	RoundStaggered
)

var roundingNames = [...]string{"split", "nearest", "power-safe", "staggered"}

func (r Rounding) String() string {
	if r < 0 || int(r) >= len(roundingNames) {
		return fmt.Sprintf("rounding %d", int(r))
	}
	return roundingNames[r]
}

// ParseRounding parses a Rounding's String form.
func ParseRounding(s string) (Rounding, error) {
	for i, n := range roundingNames {
		if n == s {
			return Rounding(i), nil
		}
	}
	return 0, fmt.Errorf("bound: unknown rounding %q (want split, nearest, power-safe or staggered)", s)
}

// RoundOptions are a rounding policy and its parameters.
type RoundOptions struct {
	Policy Rounding
	// SwitchS is the time, in seconds, a mid-task configuration switch adds
	// to its task under RoundSplit (the paper measured a 145 µs median
	// DVFS transition, §6.1–6.2); it is charged at the slower point's power.
	SwitchS float64
	// MinTaskS: under RoundSplit, a task whose LP duration is shorter than
	// this is not split but runs wholly at the slower point, as the paper's
	// replay changes configuration only for tasks of at least 1 ms.
	MinTaskS float64
}

// Choice is one task's rounded configuration.
type Choice struct {
	Fast, Slow int     // the two adjacent hull points (equal when not split)
	Frac       float64 // share of the work at Fast (1 when Fast == Slow)
	Time       float64 // duration, seconds
	Power      float64 // time-averaged power (Eq. 10), watts
	PeakW      float64 // the most the task draws at any instant
	Switched   bool    // switches configuration mid-task
}

// Round canonicalizes every task of the LP schedule b to the mix of two
// adjacent hull points with the LP's duration (§2.7), then applies the
// rounding policy.
func Round(d *DAG, b *Bound, opt RoundOptions) ([]Choice, error) {
	if len(b.Duration) != len(d.Tasks) {
		return nil, fmt.Errorf("bound: rounding %d task durations for %d tasks", len(b.Duration), len(d.Tasks))
	}
	if opt.SwitchS < 0 || opt.MinTaskS < 0 {
		return nil, fmt.Errorf("bound: negative switch overhead %g s or minimum task length %g s", opt.SwitchS, opt.MinTaskS)
	}
	out := make([]Choice, len(d.Tasks))
	for i, t := range d.Tasks {
		out[i] = roundTask(t.Hull, b.Duration[i], opt)
	}
	return out, nil
}

func whole(h []frontier.Config, k int) Choice {
	return Choice{Fast: k, Slow: k, Frac: 1, Time: h[k].Time, Power: h[k].Power, PeakW: h[k].Power}
}

func roundTask(h []frontier.Config, dur float64, opt RoundOptions) Choice {
	k, frac := frontier.Mix(h, dur)
	const eps = 1e-12
	if frac >= 1-eps || k+1 >= len(h) {
		return whole(h, k)
	}
	if frac <= eps {
		return whole(h, k+1)
	}
	switch opt.Policy {
	case RoundNearest:
		if dur-h[k].Time <= h[k+1].Time-dur {
			return whole(h, k)
		}
		return whole(h, k+1)
	case RoundPowerSafe:
		return whole(h, k+1)
	}
	if dur < opt.MinTaskS {
		return whole(h, k+1)
	}
	tf, ts := frac*h[k].Time, (1-frac)*h[k+1].Time
	energy := h[k].Power*tf + h[k+1].Power*ts + h[k+1].Power*opt.SwitchS
	time := tf + ts + opt.SwitchS
	return Choice{Fast: k, Slow: k + 1, Frac: frac, Time: time, Power: energy / time, PeakW: h[k].Power, Switched: true}
}
