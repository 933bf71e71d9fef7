package bound

import (
	"sort"

	"github.com/capsim/capsim/compute/power"
)

// FastJob is a split task's faster stretch to place: Need ns within
// [Start, End) at DW watts above the floor. PlaceFast fills Pieces and
// leaves in Need what it could not place.
type FastJob struct {
	Task       int // the caller's index of the task
	Start, End int64
	Need       int64
	DW         float64
	Pieces     [][2]int64 // the stretches placed, [from, to) ns, in order
	fast       bool       // in its faster stretch now
	done       bool       // placed, or given up
}

// PlaceFast sweeps time over the floor curve c (the job's power with every
// split task at its slower point) and places the jobs' faster stretches so
// that the floor plus the extra power of the tasks in theirs stays within
// capW at every instant: first the tasks that must (their remaining
// faster stretch fills what is left of the task), then those already fast
// (fewer switches), then by least laxity. The instantaneous cap is a
// knapsack whose fractional relaxation is the LP's time-averaged power
// constraint (Bailey et al., SC'15, Fig. 6); this is the rounding's
// greedy for it. Decisions change only at the
// floor's breakpoints, a job's start, a job's placement finishing and a
// job's laxity running out, so the sweep takes O(jobs × running jobs).
func PlaceFast(c power.Step, capW float64, jobs []FastJob) {
	byStart := make([]int, len(jobs))
	for k := range byStart {
		byStart[k] = k
	}
	sort.SliceStable(byStart, func(a, b int) bool { return jobs[byStart[a]].Start < jobs[byStart[b]].Start })
	var active []int
	next := 0 // in byStart
	seg := 0  // segment of c
	t := int64(0)
	if len(jobs) > 0 {
		t = jobs[byStart[0]].Start
	}
	floorAt := func(t int64) (float64, int64) {
		for seg+1 < len(c.Times) && c.Times[seg+1] <= t {
			seg++
		}
		nx := c.End
		if seg+1 < len(c.Times) {
			nx = c.Times[seg+1]
		}
		return c.Watts[seg], nx
	}
	for next < len(byStart) || len(active) > 0 {
		if len(active) == 0 && jobs[byStart[next]].Start > t {
			t = jobs[byStart[next]].Start
		}
		for next < len(byStart) && jobs[byStart[next]].Start <= t {
			active = append(active, byStart[next])
			next++
		}
		// Drop finished or expired jobs.
		k := 0
		for _, j := range active {
			if jb := &jobs[j]; !jb.done && jb.Need > 0 && jb.End > t {
				active[k] = j
				k++
			} else {
				jb.done, jb.fast = true, false
			}
		}
		active = active[:k]
		floor, segEnd := floorAt(t)
		// Choose who is fast on [t, until): must-run first, then those
		// already fast, then by least laxity.
		lax := func(j int) int64 { return jobs[j].End - t - jobs[j].Need }
		sort.SliceStable(active, func(a, b int) bool {
			ja, jb := active[a], active[b]
			ma, mb := lax(ja) <= 0, lax(jb) <= 0
			if ma != mb {
				return ma
			}
			if fa, fb := jobs[ja].fast, jobs[jb].fast; fa != fb && !ma {
				return fa
			}
			if la, lb := lax(ja), lax(jb); la != lb {
				return la < lb
			}
			return ja < jb
		})
		w := floor
		until := segEnd
		if next < len(byStart) {
			until = min(until, jobs[byStart[next]].Start)
		}
		for _, j := range active {
			jb := &jobs[j]
			if w+jb.DW <= capW+5e-10 {
				w += jb.DW
				jb.fast = true
				until = min(until, t+jb.Need)
			} else {
				jb.fast = false
				if lax(j) <= 0 {
					jb.done = true // cannot run its faster stretch in full
					continue
				}
				until = min(until, jb.End-jb.Need) // its laxity runs out
			}
			until = min(until, jb.End)
		}
		if until <= t {
			until = t + 1
		}
		for _, j := range active {
			jb := &jobs[j]
			if !jb.fast || jb.done {
				continue
			}
			d := min(until, t+jb.Need) - t
			if np := len(jb.Pieces); np > 0 && jb.Pieces[np-1][1] == t {
				jb.Pieces[np-1][1] += d
			} else {
				jb.Pieces = append(jb.Pieces, [2]int64{t, t + d})
			}
			jb.Need -= d
		}
		t = until
	}
}
