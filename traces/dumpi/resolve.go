package dumpi

import (
	"fmt"
	"slices"
	"sort"

	"github.com/capsim/capsim/traces/mpi"
)

// resolver turns the ranks' local communicator instances into trace-wide
// communicators.
//
// Creating a communicator is collective over its parent: the k-th
// creation that the members of a communicator make on it is one call. The
// resolver starts from MPI_COMM_WORLD, and whenever every member of a
// resolved communicator has made its k-th creation on it (and the groups
// those calls name are known), it computes the new communicators' members
// as world ranks and assigns them to the members' local instances.
type resolver struct {
	t     *mpi.Trace
	ranks []*rankConv
	inst  [][]int32 // per rank, local instance → trace communicator (-1: unknown)
	self  []int32   // per rank, its MPI_COMM_SELF communicator (-1: not made yet)
}

type createKey struct {
	comm int32
	seq  int
}

type member struct {
	rank int
	cr   *creation
}

func resolve(t *mpi.Trace, ranks []*rankConv) error {
	rs := &resolver{t: t, ranks: ranks, inst: make([][]int32, len(ranks)), self: make([]int32, len(ranks))}
	for r, c := range ranks {
		rs.inst[r] = make([]int32, c.ninst)
		for i := range rs.inst[r] {
			rs.inst[r][i] = -1
		}
		rs.inst[r][instWorld] = mpi.World
		rs.self[r] = -1
	}
	for {
		groups := map[createKey][]member{}
		for r, c := range ranks {
			for i := range c.creations {
				cr := &c.creations[i]
				if cr.done {
					continue
				}
				if cr.parent == instSelf {
					rs.selfComm(r)
				}
				if g := rs.inst[r][cr.parent]; g >= 0 {
					k := createKey{g, cr.seq}
					groups[k] = append(groups[k], member{r, cr})
				}
			}
		}
		keys := make([]createKey, 0, len(groups))
		for k := range groups {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			return keys[i].comm < keys[j].comm || keys[i].comm == keys[j].comm && keys[i].seq < keys[j].seq
		})
		progress := false
		for _, k := range keys {
			ms := groups[k]
			if len(ms) != len(t.Comm(k.comm).Members) {
				continue
			}
			ok, err := rs.create(k, ms)
			if err != nil {
				return err
			}
			progress = progress || ok
		}
		if !progress {
			break
		}
	}
	for r, c := range ranks {
		for i := range c.creations {
			if cr := &c.creations[i]; !cr.done {
				parent := "a communicator whose own creation could not be resolved"
				if g := rs.inst[r][cr.parent]; g >= 0 {
					parent = fmt.Sprintf("communicator %q, but not every member of it calls it", t.Comm(g).Name)
				}
				return fmt.Errorf("%s: offset %d: %s on %s", c.path, cr.off, funcName(cr.id), parent)
			}
		}
	}
	return rs.remap()
}

// members evaluates a group to world ranks; ok is false while a
// communicator it derives from is unresolved.
func (rs *resolver) members(r int, g *group) ([]int32, bool, error) {
	if g == nil || g.base < 0 && g.prev == nil {
		return nil, true, nil
	}
	if g.prev == nil {
		var cid int32
		if g.base == instSelf {
			cid = rs.selfComm(r)
		} else if cid = rs.inst[r][g.base]; cid < 0 {
			return nil, false, nil
		}
		return slices.Clone(rs.t.Comm(cid).Members), true, nil
	}
	cur, ok, err := rs.members(r, g.prev)
	if !ok || err != nil {
		return nil, ok, err
	}
	var out []int32
	switch g.op {
	case idGroupIncl:
		out, err = groupIncl(cur, g.ranks)
	case idGroupExcl:
		out, err = groupExcl(cur, g.ranks)
	case idGroupRangeIncl, idGroupRangeExcl:
		out, err = groupRange(cur, g.ranks, g.op == idGroupRangeIncl)
	case idGroupUnion, idGroupIntersection, idGroupDifference:
		oth, ok, err := rs.members(r, g.other)
		if !ok || err != nil {
			return nil, ok, err
		}
		out = groupSetOp(g.op, cur, oth)
	}
	if err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// groupAt returns the world rank of group rank i of cur.
func groupAt(cur []int32, i int32) (int32, error) {
	if i < 0 || int(i) >= len(cur) {
		return 0, fmt.Errorf("group rank %d outside a group of %d", i, len(cur))
	}
	return cur[i], nil
}

// groupIncl is MPI_Group_incl: the ranks of cur, in the order listed.
func groupIncl(cur, ranks []int32) ([]int32, error) {
	var out []int32
	for _, i := range ranks {
		w, err := groupAt(cur, i)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

// groupExcl is MPI_Group_excl: cur without the ranks listed.
func groupExcl(cur, ranks []int32) ([]int32, error) {
	drop := map[int32]bool{}
	for _, i := range ranks {
		if _, err := groupAt(cur, i); err != nil {
			return nil, err
		}
		drop[i] = true
	}
	var out []int32
	for i, w := range cur {
		if !drop[int32(i)] {
			out = append(out, w)
		}
	}
	return out, nil
}

// groupRange is MPI_Group_range_incl (incl) or MPI_Group_range_excl: the
// ranks of cur in the (first, last, stride) triplets, or cur without them.
func groupRange(cur, ranks []int32, incl bool) ([]int32, error) {
	if len(ranks)%3 != 0 {
		return nil, fmt.Errorf("group ranges of %d numbers, not triplets", len(ranks))
	}
	var sel []int32
	for j := 0; j < len(ranks); j += 3 {
		first, last, stride := ranks[j], ranks[j+1], ranks[j+2]
		if stride == 0 || (last-first)/stride < 0 || (last-first)/stride > int32(len(cur)) {
			return nil, fmt.Errorf("group range %d..%d step %d", first, last, stride)
		}
		for i := first; stride > 0 && i <= last || stride < 0 && i >= last; i += stride {
			if _, err := groupAt(cur, i); err != nil {
				return nil, err
			}
			sel = append(sel, i)
		}
	}
	var out []int32
	if incl {
		for _, i := range sel {
			out = append(out, cur[i])
		}
		return out, nil
	}
	drop := map[int32]bool{}
	for _, i := range sel {
		drop[i] = true
	}
	for i, w := range cur {
		if !drop[int32(i)] {
			out = append(out, w)
		}
	}
	return out, nil
}

// groupSetOp is MPI_Group_union, MPI_Group_intersection or
// MPI_Group_difference of cur and oth, in cur's order (then oth's).
func groupSetOp(op uint16, cur, oth []int32) []int32 {
	in := map[int32]bool{}
	for _, w := range oth {
		in[w] = true
	}
	var out []int32
	switch op {
	case idGroupUnion:
		out = slices.Clone(cur)
		have := map[int32]bool{}
		for _, w := range cur {
			have[w] = true
		}
		for _, w := range oth {
			if !have[w] {
				out = append(out, w)
			}
		}
	case idGroupIntersection:
		for _, w := range cur {
			if in[w] {
				out = append(out, w)
			}
		}
	default:
		for _, w := range cur {
			if !in[w] {
				out = append(out, w)
			}
		}
	}
	return out
}

// selfComm returns rank r's MPI_COMM_SELF, defining it on first use.
func (rs *resolver) selfComm(r int) int32 {
	if rs.self[r] < 0 {
		rs.self[r] = rs.t.AddComm(fmt.Sprintf("self %d", r), []int32{int32(r)})
		rs.inst[r][instSelf] = rs.self[r]
	}
	return rs.self[r]
}

// create resolves one collective creation call; ok is false when it must
// wait for other communicators.
func (rs *resolver) create(k createKey, ms []member) (bool, error) {
	parent := rs.t.Comm(k.comm)
	first := ms[0]
	fail := func(m member, format string, a ...any) error {
		c := rs.ranks[m.rank]
		return fmt.Errorf("%s: offset %d: %s on %q: %s", c.path, m.cr.off, funcName(m.cr.id), parent.Name, fmt.Sprintf(format, a...))
	}
	for _, m := range ms {
		if m.cr.id != first.cr.id {
			return false, fail(m, "creation #%d on this communicator is %s on rank %d", k.seq, funcName(first.cr.id), first.rank)
		}
	}
	nc := newComms{assign: map[int][]int32{}, label: map[int]string{}, parent: parent, name: funcName(first.cr.id)}
	switch first.cr.id {
	case idCommDup:
		for _, m := range ms {
			nc.set(m.rank, slices.Clone(parent.Members), "")
		}
	case idCommSplit, idCartSub:
		if err := rs.split(&nc, first.cr.id, ms, fail); err != nil {
			return false, err
		}
	case idCommCreate:
		if ok, err := rs.fromGroups(&nc, ms, fail); !ok || err != nil {
			return false, err
		}
	default: // Cart_create, Graph_create: the members that got one, in parent order
		var mem []int32
		for _, w := range parent.Members {
			for _, m := range ms {
				if m.rank == int(w) && m.cr.newInst >= 0 {
					mem = append(mem, w)
				}
			}
		}
		for _, m := range ms {
			nc.set(m.rank, mem, "")
		}
	}
	return rs.define(&nc, ms, fail)
}

// newComms maps each member of a creation to the members of its new
// communicator and that communicator's name.
type newComms struct {
	assign map[int][]int32
	label  map[int]string
	parent *mpi.Communicator
	name   string // the creating function
}

// set gives world rank w the communicator of members mem, named after
// the function, the parent and suffix.
func (nc *newComms) set(w int, mem []int32, suffix string) {
	nc.assign[w] = mem
	nc.label[w] = fmt.Sprintf("%s(%s)%s", nc.name, nc.parent.Name, suffix)
}

// split assigns the communicators of MPI_Comm_split (by color, ordered
// by key then parent rank) or MPI_Cart_sub (colored by the dropped
// coordinates, ordered by parent rank).
func (rs *resolver) split(nc *newComms, id uint16, ms []member, fail func(member, string, ...any) error) error {
	pos := map[int]int{} // world rank → rank in parent
	for i, w := range nc.parent.Members {
		pos[int(w)] = i
	}
	type ck struct {
		key  int64
		prnk int
		w    int32
	}
	byColor := map[int64][]ck{}
	for _, m := range ms {
		color, key := m.cr.color, m.cr.key
		if id == idCartSub {
			var err error
			if color, err = rs.cartColor(m, pos[m.rank]); err != nil {
				return fail(m, "%v", err)
			}
			key = int64(pos[m.rank])
		}
		if m.cr.newInst < 0 || color < 0 {
			continue
		}
		m.cr.color = color
		byColor[color] = append(byColor[color], ck{key, pos[m.rank], int32(m.rank)})
	}
	for color, l := range byColor {
		sort.Slice(l, func(i, j int) bool { return l[i].key < l[j].key || l[i].key == l[j].key && l[i].prnk < l[j].prnk })
		mem := make([]int32, len(l))
		for i, x := range l {
			mem[i] = x.w
		}
		for _, x := range l {
			nc.set(int(x.w), mem, fmt.Sprintf(" color %d", color))
		}
	}
	return nil
}

// fromGroups assigns the communicator of MPI_Comm_create: the group every
// member that gets one passes; ok is false while a group is unresolved.
func (rs *resolver) fromGroups(nc *newComms, ms []member, fail func(member, string, ...any) error) (bool, error) {
	var mem []int32
	for _, m := range ms {
		if m.cr.newInst < 0 {
			continue
		}
		g, ok, err := rs.members(m.rank, m.cr.grp)
		if err != nil {
			return false, fail(m, "%v", err)
		}
		if !ok {
			return false, nil
		}
		if mem == nil {
			mem = g
		} else if !slices.Equal(mem, g) {
			return false, fail(m, "rank %d's group %v differs from another member's %v", m.rank, g, mem)
		}
		if !slices.Contains(g, int32(m.rank)) {
			return false, fail(m, "rank %d got a communicator from a group %v it is not in", m.rank, g)
		}
	}
	for _, m := range ms {
		if m.cr.newInst >= 0 {
			nc.set(m.rank, mem, "")
		}
	}
	return true, nil
}

// define defines each distinct member list of nc once, in the order of
// the parent's ranks so that ids are deterministic, and binds each
// member's new instance to it.
func (rs *resolver) define(nc *newComms, ms []member, fail func(member, string, ...any) error) (bool, error) {
	made := map[string]int32{}
	for _, w := range nc.parent.Members {
		var m member
		for _, x := range ms {
			if x.rank == int(w) {
				m = x
			}
		}
		m.cr.done = true
		if m.cr.newInst < 0 {
			continue
		}
		mem, ok := nc.assign[m.rank]
		if !ok || len(mem) == 0 {
			return false, fail(m, "rank %d got a communicator but is in none of the new ones", m.rank)
		}
		key := fmt.Sprint(mem)
		id, ok := made[key]
		if !ok {
			id = rs.t.AddComm(nc.label[m.rank], mem)
			made[key] = id
		}
		rs.inst[m.rank][m.cr.newInst] = id
	}
	return true, nil
}

// cartColor numbers the coordinates of the dimensions Cart_sub drops, for
// the member at rank prnk of its Cartesian communicator (row-major
// order, as MPI numbers Cartesian ranks).
func (rs *resolver) cartColor(m member, prnk int) (int64, error) {
	dims, ok := rs.ranks[m.rank].cartDims[m.cr.parent]
	if !ok {
		return 0, fmt.Errorf("MPI_Cart_sub on a communicator not made by MPI_Cart_create")
	}
	if len(m.cr.remain) != len(dims) {
		return 0, fmt.Errorf("%d kept-dimension flags for %d dimensions", len(m.cr.remain), len(dims))
	}
	coords := make([]int64, len(dims))
	rest := int64(prnk)
	for i := len(dims) - 1; i >= 0; i-- {
		if dims[i] <= 0 {
			return 0, fmt.Errorf("dimension %d of size %d", i, dims[i])
		}
		coords[i] = rest % int64(dims[i])
		rest /= int64(dims[i])
	}
	color := int64(0)
	for i, d := range dims {
		if m.cr.remain[i] == 0 {
			color = color*int64(d) + coords[i]
		}
	}
	return color, nil
}

// remap replaces local instances in events by trace communicators and
// averages the sizes of v-collectives over their members.
func (rs *resolver) remap() error {
	t := rs.t
	for r, c := range rs.ranks {
		evs := t.Ranks[r].Events
		for i := range evs {
			e := &evs[i]
			if !(e.Kind.IsPointToPoint() || e.Kind.IsCollective()) {
				continue
			}
			inst := e.Comm
			var id int32
			if inst == instSelf {
				id = rs.selfComm(r)
			} else if id = rs.inst[r][inst]; id < 0 {
				return fmt.Errorf("%s: event %d uses a communicator that was never resolved", c.path, i)
			}
			e.Comm = id
		}
	}
	// Gatherv, Scatterv: every member's own count, averaged.
	type key struct {
		comm int32
		seq  int
	}
	type acc struct {
		sum, n, root int64
		hasRoot      bool
	}
	sums := map[key]*acc{}
	keyOf := make([]map[int32]key, len(rs.ranks))
	for r, c := range rs.ranks {
		if len(c.vColl) == 0 {
			continue
		}
		want := map[int32]bool{}
		for _, i := range c.vColl {
			want[i] = true
		}
		keyOf[r] = map[int32]key{}
		seq := map[int32]int{}
		for i, e := range t.Ranks[r].Events {
			if !e.Kind.IsCollective() {
				continue
			}
			k := key{e.Comm, seq[e.Comm]}
			seq[e.Comm]++
			if want[int32(i)] {
				keyOf[r][int32(i)] = k
				a := sums[k]
				if a == nil {
					a = &acc{}
					sums[k] = a
				}
				a.sum += e.Bytes
				a.n++
				if e.Kind.IsRooted() && e.Peer >= 0 && int(e.Peer) < len(t.Comm(e.Comm).Members) && t.Comm(e.Comm).Members[e.Peer] == int32(r) {
					a.root, a.hasRoot = e.Bytes, true
				}
			}
		}
	}
	for r, m := range keyOf {
		for i, k := range m {
			a := sums[k]
			if a.hasRoot {
				t.Ranks[r].Events[i].Bytes = a.root // the root knows every member's count
			} else {
				t.Ranks[r].Events[i].Bytes = (a.sum + a.n/2) / a.n
			}
		}
	}
	return nil
}
