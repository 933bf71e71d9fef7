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

// NodeCap is how a replay's nodes stood against a per-node power cap.
type NodeCap struct {
	PeakW     float64 // the highest power of any node at any instant
	OverCapNs int64   // time during which some node's power exceeds the cap
}

// NodeLayout places a job's power units on its nodes.
type NodeLayout struct {
	// Nodes is how many nodes the job runs on.
	Nodes int
	// NodeOf is the node of unit u (a rank, then a device, as
	// JobModel.DeviceIdleW numbers them), in [0, Nodes).
	NodeOf func(unit int) int
	// BaseW is what every node draws besides its units: its sockets' and
	// devices' constant part, as JobModel.BaseW is the job's.
	BaseW float64
}

// NodeCurves returns each node's power under m over [0, makespan]:
// l.BaseW plus the power of its units, placed by l.
func (a *Accountant) NodeCurves(m JobModel, makespan int64, l NodeLayout) ([]Step, error) {
	if err := m.Validate(len(m.ActiveW)); err != nil {
		return nil, err
	}
	units, err := a.curves(m, makespan)
	if err != nil {
		return nil, err
	}
	return nodeCurves(units, makespan, l)
}

// nodeCurves is NodeCurves from the units' curves (Accountant.curves).
func nodeCurves(units []Step, makespan int64, l NodeLayout) ([]Step, error) {
	per := make([][]Step, l.Nodes)
	for u, s := range units {
		n := l.NodeOf(u)
		if n < 0 || n >= l.Nodes {
			return nil, fmt.Errorf("power: unit %d on node %d of %d", u, n, l.Nodes)
		}
		per[n] = append(per[n], s)
	}
	out := make([]Step, l.Nodes)
	for n, us := range per {
		out[n] = sum(us, l.BaseW, makespan)
	}
	return out, nil
}

// NodeCap returns, under m over [0, makespan], the highest node power and
// how long some node exceeds capW watts (0: no cap), a node's power as
// NodeCurves gives it on layout l.
func (a *Accountant) NodeCap(m JobModel, makespan int64, l NodeLayout, capW float64) (NodeCap, error) {
	curves, err := a.NodeCurves(m, makespan, l)
	if err != nil {
		return NodeCap{}, err
	}
	return nodeCap(curves, capW), nil
}

// ReportNodes returns Report(m, makespan, jobCapW) and NodeCap(m,
// makespan, l, nodeCapW) from one accounting of the units' power.
func (a *Accountant) ReportNodes(m JobModel, makespan int64, jobCapW float64, l NodeLayout, nodeCapW float64) (Report, NodeCap, error) {
	if err := m.Validate(len(m.ActiveW)); err != nil {
		return Report{}, NodeCap{}, err
	}
	units, err := a.curves(m, makespan)
	if err != nil {
		return Report{}, NodeCap{}, err
	}
	curves, err := nodeCurves(units, makespan, l)
	if err != nil {
		return Report{}, NodeCap{}, err
	}
	return report(units, m, makespan, jobCapW), nodeCap(curves, nodeCapW), nil
}

// nodeCap is NodeCap from the nodes' power curves.
func nodeCap(curves []Step, capW float64) NodeCap {
	type span struct{ start, end int64 }
	var over []span
	var out NodeCap
	for _, c := range curves {
		c.segments(func(from, to int64, w float64) {
			out.PeakW = max(out.PeakW, w)
			if capW > 0 && w > capW+1e-9 && to > from {
				over = append(over, span{from, to})
			}
		})
	}
	// The union of every node's time over the cap.
	sort.Slice(over, func(i, j int) bool { return over[i].start < over[j].start })
	var end int64 = -1
	for _, s := range over {
		switch {
		case s.start >= end:
			out.OverCapNs += s.end - s.start
			end = s.end
		case s.end > end:
			out.OverCapNs += s.end - end
			end = s.end
		}
	}
	return out
}
