package dctdvfs

import (
	"fmt"
	"math"
)

// Slack returns the slack task i can disperse over its OpenMP phases
// (Li, 2011, Eq. 3.6 and, with eps > 0, Eq. 3.20):
//
//	Δt_i^slack = (t_c − t_i − t_i^comm_send − t_dvfs) / (1 + ε)
//
// floored at 0.
func Slack(tc, ti, send, tdvfs, eps float64) float64 {
	s := (tc - ti - send - tdvfs) / (1 + eps)
	return math.Max(0, s)
}

// CapByWait applies the wait-time cap of Li, 2011, §3.6 (the thesis'
// rule): "if the computed slack is longer than the wait time, we simply
// disperse the wait time minus DVFS overhead"; otherwise the computed
// slack stands. (This is the rule our hand-checked numbers follow;
// the shorthand min(slack, wait − t_dvfs) differs from it when
// wait − t_dvfs < slack ≤ wait.)
func CapByWait(slack, wait, tdvfs float64) float64 {
	if slack > wait {
		return math.Max(0, wait-tdvfs)
	}
	return slack
}

// DCT is the DCT-first step for one phase group (Li, 2011, Eqs. 3.4–3.5,
// the improved one phase approach): times[i][c][j] is task i's phase j
// under concurrency configuration c. Every task takes the configuration
// minimizing its group time (the first on ties), t_i; the critical time
// t_c is the largest t_i and crit the task with it (the first on ties).
func DCT(times [][][]float64) (choice []int, ti []float64, tc float64, crit int, err error) {
	choice = make([]int, len(times))
	ti = make([]float64, len(times))
	crit = -1
	for i, cs := range times {
		if len(cs) == 0 {
			return nil, nil, 0, 0, fmt.Errorf("dctdvfs: task %d has no concurrency configuration", i)
		}
		best := math.Inf(1)
		for c, phases := range cs {
			var t float64
			for _, x := range phases {
				t += x
			}
			if t < best {
				best, choice[i] = t, c
			}
		}
		ti[i] = best
		if crit < 0 || best > tc {
			tc, crit = best, i
		}
	}
	return choice, ti, tc, crit, nil
}
