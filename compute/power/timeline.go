package power

import (
	"fmt"
	"sort"
)

// Interval is a span [Start, End) in ns during which a rank draws Watts
// (set from its state or configuration, e.g. with PStates.At or a
// compute.Prediction). Outside its intervals a rank draws the idle power.
type Interval struct {
	Start, End int64
	Watts      float64
}

// Step is a piecewise-constant power curve: Watts[i] is drawn on
// [Times[i], Times[i+1]); the last value holds until End.
type Step struct {
	Times []int64
	Watts []float64
	End   int64
}

// Energy returns the integral of s in joules (W·ns·1e-9).
func (s Step) Energy() float64 {
	var e float64
	for i, t := range s.Times {
		next := s.End
		if i+1 < len(s.Times) {
			next = s.Times[i+1]
		}
		e += s.Watts[i] * float64(next-t)
	}
	return e * 1e-9
}

// Peak returns the largest power of s.
func (s Step) Peak() float64 {
	var p float64
	for _, w := range s.Watts {
		p = max(p, w)
	}
	return p
}

// Over returns how long s draws more than capW, in ns.
func (s Step) Over(capW float64) int64 {
	var ns int64
	for i, t := range s.Times {
		next := s.End
		if i+1 < len(s.Times) {
			next = s.Times[i+1]
		}
		if s.Watts[i] > capW && next > t {
			ns += next - t
		}
	}
	return ns
}

// segments calls f with each stretch [from, to) of s and its power: the
// first even where it lasts no time (a curve of one instant still has a
// peak), the others only where they last.
func (s Step) segments(f func(from, to int64, w float64)) {
	for i, t := range s.Times {
		next := s.End
		if i+1 < len(s.Times) {
			next = s.Times[i+1]
		}
		if next <= t && i > 0 {
			continue
		}
		f(t, next, s.Watts[i])
	}
}

// Average returns Energy over the span of s, in W.
func (s Step) Average() float64 {
	if len(s.Times) == 0 || s.End <= s.Times[0] {
		return 0
	}
	return s.Energy() / (float64(s.End-s.Times[0]) * 1e-9)
}

// Rank turns one rank's intervals into its power over [0, end): idleW
// outside intervals. Intervals must be non-overlapping, with
// 0 ≤ Start ≤ End ≤ end; they need not be sorted.
func Rank(iv []Interval, idleW float64, end int64) (Step, error) {
	s := append([]Interval(nil), iv...)
	sort.Slice(s, func(i, j int) bool { return s[i].Start < s[j].Start })
	out := Step{End: end}
	push := func(t int64, w float64) {
		if n := len(out.Times); n > 0 && out.Times[n-1] == t {
			out.Watts[n-1] = w
			return
		}
		if n := len(out.Watts); n > 0 && out.Watts[n-1] == w {
			return
		}
		out.Times = append(out.Times, t)
		out.Watts = append(out.Watts, w)
	}
	push(0, idleW)
	var cur int64
	for i, x := range s {
		if x.Start < cur || x.End < x.Start || x.End > end {
			return Step{}, fmt.Errorf("power: interval %d [%d, %d) overlaps, is reversed or leaves [0, %d)", i, x.Start, x.End, end)
		}
		if x.Start == x.End {
			continue
		}
		push(x.Start, x.Watts)
		push(x.End, idleW)
		cur = x.End
	}
	if n := len(out.Times); n > 1 && out.Times[n-1] == end {
		out.Times, out.Watts = out.Times[:n-1], out.Watts[:n-1]
	}
	return out, nil
}

// Job sums per-rank power curves into the job's power over time.
func Job(ranks []Step) Step {
	var end int64
	var ts []int64
	for _, r := range ranks {
		end = max(end, r.End)
		ts = append(ts, r.Times...)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	out := Step{End: end}
	idx := make([]int, len(ranks))
	for k, t := range ts {
		if k > 0 && ts[k-1] == t {
			continue
		}
		var w float64
		for r, s := range ranks {
			for idx[r]+1 < len(s.Times) && s.Times[idx[r]+1] <= t {
				idx[r]++
			}
			if len(s.Times) > 0 && s.Times[idx[r]] <= t && t < s.End {
				w += s.Watts[idx[r]]
			}
		}
		if n := len(out.Watts); n > 0 && out.Watts[n-1] == w {
			continue
		}
		out.Times = append(out.Times, t)
		out.Watts = append(out.Watts, w)
	}
	return out
}

// ByNode sums per-rank power curves into per-node curves: ranks
// n·perNode … (n+1)·perNode−1 share node n, and each of the nodes draws
// an equal share of baseW (the job's constant power) on top, so that the
// nodes' curves add up to the job's.
func ByNode(ranks []Step, perNode int, baseW float64) ([]Step, error) {
	if perNode < 1 {
		return nil, fmt.Errorf("power: %d ranks per node", perNode)
	}
	nodes := (len(ranks) + perNode - 1) / perNode
	out := make([]Step, nodes)
	for n := range out {
		s := Job(ranks[n*perNode : min(len(ranks), (n+1)*perNode)])
		for i := range s.Watts {
			s.Watts[i] += baseW / float64(nodes)
		}
		out[n] = s
	}
	return out, nil
}

// Split is energy split into idle and dynamic parts (Anger's thesis Eq. 5:
// E = E_i + E_d), in joules.
type Split struct {
	Idle, Dynamic float64
}

// Total returns Idle + Dynamic.
func (s Split) Total() float64 { return s.Idle + s.Dynamic }

// Account splits the energy of ranks running for makespan ns: idle energy
// is idleW per rank over the whole makespan (it scales with wall time);
// dynamic energy is Σ (Watts − idleW)·duration over the intervals.
func Account(ranks [][]Interval, idleW float64, makespan int64) (Split, error) {
	var sp Split
	sp.Idle = idleW * float64(len(ranks)) * float64(makespan) * 1e-9
	for r, iv := range ranks {
		for i, x := range iv {
			if x.End < x.Start || x.Start < 0 || x.End > makespan {
				return Split{}, fmt.Errorf("power: rank %d interval %d [%d, %d) outside [0, %d)", r, i, x.Start, x.End, makespan)
			}
			sp.Dynamic += (x.Watts - idleW) * float64(x.End-x.Start) * 1e-9
		}
	}
	return sp, nil
}
