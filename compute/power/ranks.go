package power

import (
	"fmt"
	"sort"
)

// RankProfiles returns each rank's power over [0, makespan] as a step
// function: its core's idle power m.IdleW, plus the active-minus-idle
// power of every operation keeping the rank busy (overlapping busy spans,
// e.g. on two CPUs of one rank, add up). The job's power is the sum of
// the ranks' plus m.BaseW.
func (a *Accountant) RankProfiles(m JobModel, makespan int64) ([]Step, error) {
	n := len(m.ActiveW)
	per := make([][]step, n)
	for _, iv := range a.busy {
		if int(iv.rank) >= n {
			return nil, fmt.Errorf("power: rank %d has no active power", iv.rank)
		}
		if iv.end > makespan {
			return nil, fmt.Errorf("power: rank %d busy until %d ns, after the makespan %d ns", iv.rank, iv.end, makespan)
		}
		extra := m.active(iv) - m.IdleW
		per[iv.rank] = append(per[iv.rank], step{iv.start, extra}, step{iv.end, -extra})
	}
	out := make([]Step, n)
	for r, st := range per {
		sort.Slice(st, func(i, j int) bool {
			if st[i].t != st[j].t {
				return st[i].t < st[j].t
			}
			return st[i].dw < st[j].dw
		})
		s := Step{Times: []int64{0}, Watts: []float64{m.IdleW}, End: makespan}
		w := m.IdleW
		for k := 0; k < len(st); {
			t := st[k].t
			for ; k < len(st) && st[k].t == t; k++ {
				w += st[k].dw
			}
			last := len(s.Times) - 1
			if t == s.Times[last] {
				s.Watts[last] = w
			} else if t < makespan {
				s.Times = append(s.Times, t)
				s.Watts = append(s.Watts, w)
			}
		}
		// Merge equal neighbours (a busy span starting where one ends).
		j := 0
		for i := 1; i < len(s.Times); i++ {
			if s.Watts[i] == s.Watts[j] {
				continue
			}
			j++
			s.Times[j], s.Watts[j] = s.Times[i], s.Watts[i]
		}
		s.Times, s.Watts = s.Times[:j+1], s.Watts[:j+1]
		out[r] = s
	}
	return out, nil
}
