package bound

import (
	"fmt"
	"math"
	"sort"
)

// Shared devices (DAG.Devices, Task.OnDevice).
//
// A device runs one task at a time per unit, in an order the LP cannot
// write. What it keeps is a necessary condition, per window of time:
// every task whose device part certainly runs between the times of two
// events a and b uses the device for at most Count·(t_b − t_a) in all.
// A task's device part runs between its start (vertex Src) and its end
// (vertex Dst). So a window [a, b] may count task i when, in every
// schedule that keeps the LP's orders,
//
//	t_a ≤ t(Src_i)  and  t(Dst_i) ≤ t_b.
//
// The LP keeps the order of its chained events (Order.Chained; every
// event when nil): a schedule may tie them, not swap them. Src_i is
// chained (a task's power starts there). Dst_i is chained under the
// older message models, but not under the engine's (FromGraph), where a
// task's power runs on to its rank's next task: there the end that the
// rows use is end_i, a chained vertex that the DAG's edges reach from
// Dst_i (deviceEnds), so that t(Dst_i) ≤ t(end_i) in every schedule that
// meets the DAG's rows. A window from the event of Src_a to the event of
// end_b, with a and b chained, then counts every device task i with
// event(Src_i) ≥ event(Src_a) and event(end_i) ≤ event(end_b), whatever
// the schedule: the row
//
//	Σ_i Σ_g∈device c_ig·Time_g ≤ Count·(t(end_b) − t(Src_a))
//
// holds for every schedule the bound is over (the mix form's c_ig are the
// schedule's shares of its hull points), and any family of windows keeps
// the LP a relaxation. The windows written (deviceWindows) are the
// device's groups of tasks that overlap in the reference order (a
// bulk-synchronous code's time steps) and, in groups of at most
// maxSubTasks tasks, the windows from each later start to the group's end
// and from the group's start to each earlier end. Unions of consecutive
// groups raised no bound on gpu-node-shared or on 320 random (trace, cap)
// pairs (TestDeviceBoundValid's generator), where the sub-windows raised
// 12, by up to 5.6 %, so they are not written.

// maxSubTasks is the largest group of a device's tasks whose
// sub-windows are written (their rows hold O(tasks²) entries).
const maxSubTasks = 64

// deviceEnds returns, per task of d that may run on a shared device, a
// chained vertex end_i that the DAG's task and message edges reach from
// the task's Dst (Dst itself when chained), the one of least event among
// those found along paths that stop at their first chained vertex, and
// the length gap_i of the longest such path from Dst to end_i with every
// task at its fastest (a lower bound on t(end_i) − t(Dst_i) in every
// schedule: a rank's messages after its task, a collective); −1 and 0 for
// tasks on no shared device or with no such vertex. d is the full DAG:
// every edge is a row that every schedule the bound is over meets.
func deviceEnds(d *DAG, o *Order) ([]int32, []float64, error) {
	if len(d.Devices) == 0 {
		return nil, nil, nil
	}
	chained := func(v int) bool { return o.Chained == nil || o.Chained[o.Event[v]] }
	topo, err := topoOrder(d)
	if err != nil {
		return nil, nil, err
	}
	start, to, w := outEdges(d) // with their least lengths
	// first[v]: the chained vertex of least event among the first chained
	// vertices on the paths leaving v (v excluded), −1 if none; dist[v]:
	// the longest of those paths to it.
	first := make([]int32, d.Vertices)
	dist := make([]float64, d.Vertices)
	for j := len(topo) - 1; j >= 0; j-- {
		v := topo[j]
		best, long := int32(-1), 0.0
		for e := start[v]; e < start[v+1]; e++ {
			u := to[e]
			c, l := first[u], w[e]+dist[u]
			if chained(int(u)) {
				c, l = u, w[e]
			}
			switch {
			case c < 0:
			case best < 0 || o.Event[c] < o.Event[best]:
				best, long = c, l
			case c == best:
				long = math.Max(long, l)
			}
		}
		first[v], dist[v] = best, long
	}
	end := make([]int32, len(d.Tasks))
	gap := make([]float64, len(d.Tasks))
	for i := range d.Tasks {
		t := &d.Tasks[i]
		end[i] = -1
		switch {
		case !onSomeDevice(t):
		case chained(t.Dst):
			end[i] = int32(t.Dst)
		default:
			end[i], gap[i] = first[t.Dst], dist[t.Dst]
		}
	}
	return end, gap, nil
}

// onSomeDevice reports whether some configuration of t runs on a shared
// device.
func onSomeDevice(t *Task) bool {
	for _, x := range t.OnDevice {
		if x {
			return true
		}
	}
	return false
}

// devTask is a device task of a block: its start event and vertex, and
// the event and vertex of its end (deviceEnds).
type devTask struct {
	i           int32
	a, b        int // events
	src, endVtx int
	gap         float64 // least time from the task's end to endVtx
}

// deviceWindow is one device row: tasks[lo:hi] of its device, sorted by
// start event, counted where they lie in [a, b] (events), from vertex
// from to vertex to.
type deviceWindow struct {
	dev      int
	a, b     int
	from, to int
}

// deviceTasks returns the device tasks of block b per device, each sorted
// by start event, then end event. Tasks whose start is not chained or
// whose end lies outside the block are left out (a window may leave
// tasks out: it stays a necessary condition).
func (s *Solver) deviceTasks(b *block) map[int][]devTask {
	d, o := s.d, s.o
	byDev := map[int][]devTask{}
	for _, i := range b.tasks {
		t := &d.Tasks[i]
		if !onSomeDevice(t) || s.devEnd == nil || s.devEnd[i] < 0 {
			continue
		}
		a, e := o.Event[t.Src], int(s.devEnd[i])
		bEv := o.Event[e]
		if o.Chained != nil && !o.Chained[a] || bEv > b.hi || bEv <= a {
			continue
		}
		byDev[t.Device] = append(byDev[t.Device], devTask{i: i, a: a, b: bEv, src: t.Src, endVtx: e, gap: s.devGap[i]})
	}
	for _, ts := range byDev {
		sort.Slice(ts, func(x, y int) bool {
			if ts[x].a != ts[y].a {
				return ts[x].a < ts[y].a
			}
			if ts[x].b != ts[y].b {
				return ts[x].b < ts[y].b
			}
			return ts[x].i < ts[y].i
		})
	}
	return byDev
}

// deviceWindows returns the windows of one device's tasks ts (sorted as
// deviceTasks sorts them): its groups (tasks whose [start, end] event
// ranges overlap, as in a bulk-synchronous code's time step) and
// sub-windows of small groups.
// Windows are distinct and in a fixed order.
func deviceWindows(dev int, ts []devTask) []deviceWindow {
	type group struct{ lo, hi int } // ts[lo:hi]
	var groups []group
	reach := math.MinInt
	for j, t := range ts {
		if j == 0 || t.a >= reach {
			groups = append(groups, group{j, j})
			reach = t.b
		}
		groups[len(groups)-1].hi = j + 1
		reach = max(reach, t.b)
	}
	var out []deviceWindow
	seen := map[[2]int]bool{}
	add := func(from, to devTask) {
		if to.b <= from.a || seen[[2]int{from.a, to.b}] {
			return
		}
		seen[[2]int{from.a, to.b}] = true
		out = append(out, deviceWindow{dev: dev, a: from.a, b: to.b, from: from.src, to: to.endVtx})
	}
	last := func(g group) devTask { // the task of the group's latest end
		k := g.lo
		for j := g.lo; j < g.hi; j++ {
			if ts[j].b > ts[k].b {
				k = j
			}
		}
		return ts[k]
	}
	for _, g := range groups {
		end := last(g)
		add(ts[g.lo], end)
		if g.hi-g.lo > maxSubTasks {
			continue
		}
		for x := g.lo + 1; x < g.hi; x++ {
			add(ts[x], end) // from each later start to the group's end
		}
		for x := g.lo; x < g.hi; x++ {
			if ts[x].b < end.b {
				add(ts[g.lo], ts[x]) // from the group's start to each earlier end
			}
		}
	}
	return out
}

// deviceRows adds, per shared device and window of block b (see
// deviceWindows), the row Σ device time − Count·(t_to − t_from − gap) ≤ 0,
// gap the least of its tasks' (deviceEnds), in the mix form only.
func (s *Solver) deviceRows(b *block, ts *triplets, col func(int) int32, endRow func(lo, up float64)) error {
	d := s.d
	if len(d.Devices) == 0 {
		return nil
	}
	for _, i := range b.tasks {
		t := &d.Tasks[i]
		if onSomeDevice(t) && s.opt.Form != FormMix && len(t.Hull) > 1 {
			return fmt.Errorf("shared devices need the mix form (task %d may run on device %s)", i, d.Devices[t.Device].Name)
		}
	}
	byDev := s.deviceTasks(b)
	devs := make([]int, 0, len(byDev))
	for k := range byDev {
		devs = append(devs, k)
	}
	sort.Ints(devs)
	for _, k := range devs {
		tasks := byDev[k]
		n := d.Devices[k].Count
		for _, w := range deviceWindows(k, tasks) {
			cf, ct := col(w.from), col(w.to)
			if cf < 0 || ct < 0 {
				return fmt.Errorf("device %s: window from event %d to %d has no time column", d.Devices[k].Name, w.a, w.b)
			}
			if cf == ct {
				continue
			}
			var rhs float64
			terms := 0
			gap := math.Inf(1)
			first := sort.Search(len(tasks), func(j int) bool { return tasks[j].a >= w.a })
			for _, dt := range tasks[first:] {
				if dt.a > w.b {
					break
				}
				if dt.b > w.b {
					continue
				}
				gap = math.Min(gap, dt.gap)
				t := &d.Tasks[dt.i]
				c := s.taskCol[dt.i]
				for g, x := range t.OnDevice {
					if !x {
						continue
					}
					terms++
					if c < 0 {
						rhs -= t.Hull[g].Time / b.tau
					} else {
						ts.add(c+int32(g), t.Hull[g].Time/b.tau)
					}
				}
			}
			if terms == 0 {
				continue
			}
			ts.add(ct, -n)
			ts.add(cf, n)
			endRow(math.Inf(-1), rhs-n*gap/b.tau)
			b.deviceRows++
			b.devices = true
		}
	}
	return nil
}

// markDeviceKeys marks as key, in keyEvents' numbering, the events the
// device rows of block b take times at: their tasks' ends (starts are
// key as every task's are).
func (s *Solver) markDeviceKeys(b *block, evOf map[int32]int32, key []bool) {
	if len(s.d.Devices) == 0 || s.devEnd == nil {
		return
	}
	for _, i := range b.tasks {
		if e := s.devEnd[i]; e >= 0 {
			if ev, ok := evOf[e]; ok {
				key[ev] = true
			}
		}
	}
}
