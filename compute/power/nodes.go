package power

import (
	"fmt"
	"sort"
)

// NodeProfiles returns each node's power over [0, makespan] under the
// per-socket two-segment model s (Anger's thesis §4.1.2): ranks r·perNode …
// (r+1)·perNode−1 share node r, each busy rank keeps one core active, and
// a node with k active cores draws s.Power(k) (s.Idle with none, the
// deepest C-state). Busy spans of one rank that overlap count as separate
// cores. It fails if a node has more active cores than s has.
func (a *Accountant) NodeProfiles(s Sockets, perNode, ranks int, makespan int64) ([]Step, error) {
	if perNode < 1 {
		return nil, fmt.Errorf("power: %d ranks per node", perNode)
	}
	nodes := (ranks + perNode - 1) / perNode
	per := make([][]step, nodes)
	for _, iv := range a.busy {
		if int(iv.rank) >= ranks {
			return nil, fmt.Errorf("power: rank %d of %d", iv.rank, ranks)
		}
		if iv.end > makespan {
			return nil, fmt.Errorf("power: rank %d busy until %d ns, after the makespan %d ns", iv.rank, iv.end, makespan)
		}
		n := int(iv.rank) / perNode
		per[n] = append(per[n], step{iv.start, 1}, step{iv.end, -1})
	}
	idle, err := s.Power(0)
	if err != nil {
		return nil, err
	}
	out := make([]Step, nodes)
	for n, st := range per {
		sort.Slice(st, func(i, j int) bool {
			if st[i].t != st[j].t {
				return st[i].t < st[j].t
			}
			return st[i].dw < st[j].dw
		})
		p := Step{Times: []int64{0}, Watts: []float64{idle}, End: makespan}
		active := 0
		for k := 0; k < len(st); {
			t := st[k].t
			for ; k < len(st) && st[k].t == t; k++ {
				active += int(st[k].dw)
			}
			w, err := s.Power(active)
			if err != nil {
				return nil, fmt.Errorf("node %d at %d ns: %w", n, t, err)
			}
			last := len(p.Times) - 1
			switch {
			case t == p.Times[last]:
				p.Watts[last] = w
			case w == p.Watts[last] || t >= makespan:
			default:
				p.Times = append(p.Times, t)
				p.Watts = append(p.Watts, w)
			}
		}
		out[n] = p
	}
	return out, nil
}

// step is a change of a node's active-core count at time t.
type step struct {
	t  int64
	dw float64
}
