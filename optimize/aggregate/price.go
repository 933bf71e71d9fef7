package aggregate

import (
	"fmt"
	"math"
	"sort"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/graph"
)

// Message is Count messages of Bytes bytes from task From to task To.
type Message struct {
	From, To int
	Bytes    int64
	Count    int64
}

// Workload is what the what-if needs of a trace: each task's computation
// time on the reference pattern (one task per node) and its
// point-to-point messages.
type Workload struct {
	ComputeNs []int64
	Messages  []Message
}

// Tasks is the number of tasks (T).
func (w Workload) Tasks() int { return len(w.ComputeNs) }

// FromGraph reads a workload from an execution graph: each rank's Calc
// time and its sends, merged by (sender, receiver, size) in that order.
// Collectives arrive lowered into point-to-point messages.
func FromGraph(g *graph.Graph) Workload {
	nr := g.NumRanks()
	w := Workload{ComputeNs: make([]int64, nr)}
	idx := make(map[[3]int64]int)
	for r := 0; r < nr; r++ {
		for id := g.RankStart[r]; id < g.RankStart[r+1]; id++ {
			switch g.Kind[id] {
			case graph.Calc:
				w.ComputeNs[r] = graph.SatNs(float64(w.ComputeNs[r]) + float64(g.Size[id]))
			case graph.Send:
				key := [3]int64{int64(r), int64(g.Peer[id]), g.Size[id]}
				if i, ok := idx[key]; ok {
					w.Messages[i].Count++
					continue
				}
				idx[key] = len(w.Messages)
				w.Messages = append(w.Messages, Message{From: r, To: int(g.Peer[id]), Bytes: g.Size[id], Count: 1})
			}
		}
	}
	return w
}

// Validate reports messages naming tasks out of range or to themselves,
// and negative times, sizes or counts.
func (w Workload) Validate() error {
	n := w.Tasks()
	if n == 0 {
		return fmt.Errorf("aggregate: workload has no tasks")
	}
	for r, c := range w.ComputeNs {
		if c < 0 {
			return fmt.Errorf("aggregate: task %d computes %d ns, negative", r, c)
		}
	}
	for i, m := range w.Messages {
		if m.From < 0 || m.From >= n || m.To < 0 || m.To >= n || m.From == m.To {
			return fmt.Errorf("aggregate: message %d goes from task %d to task %d; tasks must differ and lie in [0,%d)", i, m.From, m.To, n)
		}
		if m.Bytes < 0 || m.Count < 0 {
			return fmt.Errorf("aggregate: message %d (%d→%d): %d bytes × %d must not be negative", i, m.From, m.To, m.Bytes, m.Count)
		}
	}
	return nil
}

// Classes holds the LogGP parameters of each placement class (our
// choice; Li, 2011, gives none: separate sets for same die, same socket, different socket
// and inter-node).
type Classes [4]network.LogGOPS

// MessageNs is the LogGP time of one message of m bytes in class c:
// o + L + (m+H−1)·G + o (LogGP, H the header bytes), with (m−1)·O added
// where the parameters carry a per-byte overhead.
func (cl Classes) MessageNs(c Class, m int64) float64 {
	p := cl[c]
	b := max(m-1, 0)
	return float64(2*p.Overhead + p.Latency + p.GapPerByte.Times(max(p.Wire(m)-1, 0)) + p.OverheadPerByte.Times(b))
}

// Factor multiplies the time of messages of class Class sent while at
// least Noise other tasks of the node communicate, for messages of at most
// MaxBytes bytes (0: any size): one row of the interference table of
// Li, 2011, §4.3 (Fig. 4.4: up to 2.82 for intra-node messages).
type Factor struct {
	Class    Class
	Noise    int
	MaxBytes int64
	Factor   float64
}

// Interference is the interference table. A message's factor is that of
// the row of its class with the largest Noise not above the message's
// noise, then the smallest MaxBytes that covers its size; 1 without a
// row.
type Interference []Factor

// Lookup returns the factor of a message of class c and m bytes with
// noise other tasks communicating on its node.
func (t Interference) Lookup(c Class, noise int, m int64) float64 {
	best := -1
	for i, f := range t {
		if f.Class != c || f.Noise > noise || (f.MaxBytes > 0 && m > f.MaxBytes) {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b := t[best]
		if f.Noise > b.Noise || (f.Noise == b.Noise && covers(f.MaxBytes, b.MaxBytes)) {
			best = i
		}
	}
	if best < 0 {
		return 1
	}
	return t[best].Factor
}

// covers reports whether limit a is tighter than b (0 is unbounded).
func covers(a, b int64) bool { return a > 0 && (b == 0 || a < b) }

// Power is the node power model of the energy choice (our
// choice; Li, 2011, §4.4, computes no energy): a node that runs tasks
// draws BaseW plus CoreW per task for the whole run, a node without tasks
// SleepW (deep sleep).
type Power struct {
	BaseW, CoreW, SleepW float64
}

// energyJ is the energy of a run of ns nanoseconds on used of machine
// nodes, k tasks on each used node: ns·(used·(base + k·core) +
// (machine − used)·sleep), divided by 1e9 last so whole inputs stay exact.
func (p Power) energyJ(ns float64, used, machine, k int) float64 {
	return ns * (float64(used)*(p.BaseW+float64(k)*p.CoreW) + float64(machine-used)*p.SleepW) / 1e9
}

// DefaultThreshold is the thesis's performance-loss threshold, 5 %
// (Li, 2011, §4.4).
const DefaultThreshold = 0.05

// Config is the what-if's setting.
type Config struct {
	Topology Topology
	// Nodes is the machine's node count (0: one per task, the reference).
	Nodes int
	// TaskMemBytes is each task's memory, checked against the node's.
	TaskMemBytes int64
	// IPC is each pattern's predicted IPC by pattern ID (Li, 2011, §4.1);
	// computation scales as IPC[1]/IPC[p] (t = I/(IPC·f), I invariant).
	// Nil: computation does not depend on the pattern.
	IPC map[int]float64
	// Net prices messages by placement class; Interference scales them.
	Net          Classes
	Interference Interference
	// Threshold is Eq. 4.5's performance-loss threshold as a fraction of
	// the reference time (the thesis's is DefaultThreshold).
	Threshold float64
	// Power prices energy; zero skips the energy choice.
	Power Power
	// ExhaustiveLimit: group exhaustively when a pattern has at most this
	// many partitions (0: 10 000), else by Kernighan–Lin.
	ExhaustiveLimit int64
}

// Estimate is one pattern's prediction.
type Estimate struct {
	Pattern Pattern
	// Err says why the pattern is infeasible (then nothing else is set).
	Err error
	// Nodes is the number of nodes used; Groups the tasks of each node,
	// Slots[r] the core of task r on its node; Exhaustive whether the
	// grouping was searched exhaustively rather than by Kernighan–Lin.
	Nodes      int
	Groups     [][]int
	Slots      []Slot
	Exhaustive bool
	// CompNs is the average computation time over tasks, CommNs the
	// longest communication upper bound over tasks (Li, 2011, §4.4).
	CompNs, CommNs float64
	// DeltaNs is Eq. 4.5 against the reference pattern; Candidate whether
	// it is within the threshold.
	DeltaNs   float64
	Candidate bool
	// EnergyJ is the modelled energy over the whole machine.
	EnergyJ float64
}

// TotalNs is CompNs + CommNs.
func (e Estimate) TotalNs() float64 { return e.CompNs + e.CommNs }

// Result is the what-if over every pattern.
type Result struct {
	Estimates []Estimate // one per pattern, in pattern order
	// Chosen is the index in Estimates of the pattern the thesis's rule
	// picks (Select), ByEnergy that of the least-energy candidate (-1
	// without a power model).
	Chosen, ByEnergy int
}

// Evaluate prices every pattern of cfg.Topology for w and chooses.
func Evaluate(w Workload, cfg Config) (Result, error) {
	if err := w.Validate(); err != nil {
		return Result{}, err
	}
	pats, err := Patterns(cfg.Topology)
	if err != nil {
		return Result{}, err
	}
	T := w.Tasks()
	nodes := cfg.Nodes
	if nodes <= 0 {
		nodes = T
	}
	thr := cfg.Threshold
	if thr < 0 || math.IsNaN(thr) {
		return Result{}, fmt.Errorf("aggregate: threshold %g is negative", thr)
	}
	limit := cfg.ExhaustiveLimit
	if limit == 0 {
		limit = 10_000
	}
	ref := 1.0
	if cfg.IPC != nil {
		r, ok := cfg.IPC[1]
		if !ok || !(r > 0) {
			return Result{}, fmt.Errorf("aggregate: IPC of the reference pattern P1 is missing or not positive")
		}
		ref = r
		if err := ipcPatternsExist(cfg.IPC, pats); err != nil {
			return Result{}, err
		}
	}
	pairs := pairTimes(w, cfg.Net)
	res := Result{Chosen: -1, ByEnergy: -1}
	for _, p := range pats {
		e := Estimate{Pattern: p}
		if err := Feasible(cfg.Topology, p, T, cfg.TaskMemBytes, nodes); err != nil {
			e.Err = err
			res.Estimates = append(res.Estimates, e)
			continue
		}
		ipc := ref
		if cfg.IPC != nil {
			v, ok := cfg.IPC[p.ID]
			if !ok || !(v > 0) {
				return Result{}, fmt.Errorf("aggregate: IPC of %v is missing or not positive", p)
			}
			ipc = v
		}
		if err := place(&e, w, pairs, limit); err != nil {
			return Result{}, err
		}
		var comp float64
		for _, c := range w.ComputeNs {
			comp += float64(c) * ref / ipc
		}
		e.CompNs = comp / float64(T)
		var big commTerm
		e.CommNs, big = commUpperBound(w, e, cfg.Net, cfg.Interference)
		if !(e.TotalNs() <= float64(graph.MaxTimeNs)) {
			return Result{}, fmt.Errorf("aggregate: %v: %s", p, big.tooLong(e, cfg.Net, ref, ipc))
		}
		res.Estimates = append(res.Estimates, e)
	}
	if res.Estimates[0].Err != nil {
		return Result{}, fmt.Errorf("aggregate: the reference pattern is infeasible: %w", res.Estimates[0].Err)
	}
	r0 := res.Estimates[0]
	for i := range res.Estimates {
		e := &res.Estimates[i]
		if e.Err != nil {
			continue
		}
		e.DeltaNs = Delta(r0, *e)
		e.Candidate = e.DeltaNs <= thr*r0.TotalNs()
		if cfg.Power != (Power{}) {
			e.EnergyJ = cfg.Power.energyJ(e.TotalNs(), e.Nodes, nodes, e.Pattern.TasksPerNode())
		}
	}
	res.Chosen = Select(res.Estimates, thr)
	if cfg.Power != (Power{}) {
		res.ByEnergy = SelectEnergy(res.Estimates, thr)
	}
	return res, nil
}

// Place groups w's tasks into nodes and each node's tasks onto cores under
// pattern p alone (Li, 2011, §4.2, as Evaluate does for every pattern), for a sweep
// that replays one pattern per point. An infeasible pattern comes back
// with Err set and a nil error; the error is for a workload or setting
// that no pattern can take. CompNs, CommNs and the choice are not set.
func Place(w Workload, cfg Config, p Pattern) (Estimate, error) {
	if err := w.Validate(); err != nil {
		return Estimate{}, err
	}
	if err := cfg.Topology.Validate(); err != nil {
		return Estimate{}, err
	}
	e := Estimate{Pattern: p}
	nodes := cfg.Nodes
	if nodes <= 0 {
		nodes = w.Tasks()
	}
	if e.Err = Feasible(cfg.Topology, p, w.Tasks(), cfg.TaskMemBytes, nodes); e.Err != nil {
		return e, nil
	}
	limit := cfg.ExhaustiveLimit
	if limit == 0 {
		limit = 10_000
	}
	if err := place(&e, w, pairTimes(w, cfg.Net), limit); err != nil {
		return Estimate{}, err
	}
	return e, nil
}

// Delta is Eq. 4.5: t1comp + t1comm − t0comp − t0comm of candidate c
// against reference r.
func Delta(r, c Estimate) float64 { return c.CompNs + c.CommNs - r.CompNs - r.CommNs }

// Select applies the thesis's choice (Li, 2011, §4.4) to estimates whose
// first entry is the reference: candidates are the feasible patterns with
// Eq. 4.5's Δt ≤ threshold·(reference time); among them it picks the most
// energy-friendly — fewer nodes (more tasks per node), then fewer
// processors, then fewer dies — and ties go to the faster prediction. It
// returns the index, or -1 when there is none.
func Select(es []Estimate, threshold float64) int {
	if len(es) == 0 || es[0].Err != nil {
		return -1
	}
	r := es[0]
	var idx []int
	for i, e := range es {
		if e.Err == nil && Delta(r, e) <= threshold*r.TotalNs() {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return -1
	}
	sort.SliceStable(idx, func(a, b int) bool {
		p, q := es[idx[a]], es[idx[b]]
		if x, y := p.Pattern.TasksPerNode(), q.Pattern.TasksPerNode(); x != y {
			return x > y
		}
		if p.Pattern.Sockets != q.Pattern.Sockets {
			return p.Pattern.Sockets < q.Pattern.Sockets
		}
		if x, y := p.Pattern.DiesUsed(), q.Pattern.DiesUsed(); x != y {
			return x < y
		}
		return p.TotalNs() < q.TotalNs()
	})
	return idx[0]
}

// SelectEnergy picks, among the same candidates as Select, the one of
// least EnergyJ (ties: the faster, then the lower index), or -1.
func SelectEnergy(es []Estimate, threshold float64) int {
	if len(es) == 0 || es[0].Err != nil {
		return -1
	}
	r := es[0]
	best := -1
	for i, e := range es {
		if e.Err != nil || Delta(r, e) > threshold*r.TotalNs() {
			continue
		}
		if best < 0 || e.EnergyJ < es[best].EnergyJ || (e.EnergyJ == es[best].EnergyJ && e.TotalNs() < es[best].TotalNs()) {
			best = i
		}
	}
	return best
}

// pairTimes sums each communicating pair's messages (both directions) in
// µs, intra-node at the worst intra placement (different sockets, Li, 2011, §4.2)
// and inter-node.
func pairTimes(w Workload, net Classes) []PairTime {
	idx := make(map[[2]int]int)
	var ps []PairTime
	for _, m := range w.Messages {
		i, j := min(m.From, m.To), max(m.From, m.To)
		k, ok := idx[[2]int{i, j}]
		if !ok {
			k = len(ps)
			idx[[2]int{i, j}] = k
			ps = append(ps, PairTime{I: i, J: j})
		}
		n := float64(m.Count)
		ps[k].Intra += n * net.MessageNs(CrossSocket, m.Bytes) / 1e3
		ps[k].Inter += n * net.MessageNs(InterNode, m.Bytes) / 1e3
	}
	return ps
}

// place groups the tasks into nodes and each node's tasks onto its cores
// by the same partitioner: into sockets, then into dies (Li, 2011, §4.2).
func place(e *Estimate, w Workload, pairs []PairTime, limit int64) error {
	T, k := w.Tasks(), e.Pattern.TasksPerNode()
	cost, err := EdgeCosts(T, k, pairs)
	if err != nil {
		return err
	}
	part := func(c [][]float64, size int) ([][]int, bool, error) {
		if PartitionCount(len(c), size) <= limit {
			g, err := Exhaustive(c, size, limit)
			return g, true, err
		}
		g, err := Partition(c, size)
		return g, false, err
	}
	e.Groups, e.Exhaustive, err = part(cost, k)
	if err != nil {
		return fmt.Errorf("aggregate: grouping for %v: %w", e.Pattern, err)
	}
	e.Nodes = len(e.Groups)
	e.Slots = make([]Slot, T)
	p := e.Pattern
	for _, g := range e.Groups {
		sockets, _, err := part(sub(cost, g), p.Dies*p.Cores)
		if err != nil {
			return err
		}
		for s, sg := range sockets {
			members := pick(g, sg)
			dies, _, err := part(sub(cost, members), p.Cores)
			if err != nil {
				return err
			}
			for d, dg := range dies {
				for c, v := range pick(members, dg) {
					e.Slots[v] = Slot{Socket: s, Die: d, Core: c}
				}
			}
		}
	}
	return nil
}

func sub(cost [][]float64, g []int) [][]float64 {
	s := make([][]float64, len(g))
	for i, a := range g {
		s[i] = make([]float64, len(g))
		for j, b := range g {
			s[i][j] = cost[a][b]
		}
	}
	return s
}

func pick(g, idx []int) []int {
	out := make([]int, len(idx))
	for i, v := range idx {
		out[i] = g[v]
	}
	return out
}

// commUpperBound is the longest per-task communication time under e's
// placement: every message a task sends or receives at its class's LogGP
// time times the interference factor, under the upper-bound assumption
// of Li, 2011, §4.3, that all other tasks of the node communicate at the same time
// (noise: k−2 other tasks for an intra-node message, k−1 for inter-node).
func commUpperBound(w Workload, e Estimate, net Classes, inter Interference) (float64, commTerm) {
	node := make([]int, w.Tasks())
	for n, g := range e.Groups {
		for _, v := range g {
			node[v] = n
		}
	}
	k := e.Pattern.TasksPerNode()
	per := make([]float64, w.Tasks())
	var big commTerm
	for _, m := range w.Messages {
		c := ClassOf(node[m.From], e.Slots[m.From], node[m.To], e.Slots[m.To])
		noise := k - 1
		if c != InterNode {
			noise = k - 2
		}
		one, f := net.MessageNs(c, m.Bytes), inter.Lookup(c, noise, m.Bytes)
		t := float64(m.Count) * one * f
		per[m.From] += t
		per[m.To] += t
		if t > big.ns {
			big = commTerm{ns: t, class: c, msg: m, oneNs: one, factor: f}
		}
	}
	worst := 0.0
	for _, t := range per {
		worst = math.Max(worst, t)
	}
	return worst, big
}

// commTerm is the messages of one pair that cost a placement the most
// communication time: their class, the time of one message and the
// interference factor it is multiplied by.
type commTerm struct {
	ns     float64
	class  Class
	msg    Message
	oneNs  float64
	factor float64
}

// tooLong says why estimate e's time is past graph.MaxTimeNs, naming the
// inputs of its larger part: the IPCs that scale its computation (ref,
// the reference pattern's, over ipc, its own), or its costliest
// messages' class's network parameters and interference factor.
func (b commTerm) tooLong(e Estimate, net Classes, ref, ipc float64) string {
	s := fmt.Sprintf("the analytic time %.4g ns (computation %.4g ns, communication %.4g ns) is past %d ns (graph.MaxTimeNs, about 31.7 years)",
		e.TotalNs(), e.CompNs, e.CommNs, int64(graph.MaxTimeNs))
	if e.CompNs >= e.CommNs {
		return s + fmt.Sprintf(": the computation, the trace's compute times scaled by the reference pattern's IPC over this pattern's (%g / %g): an IPC in the wrong unit?", ref, ipc)
	}
	s += fmt.Sprintf(": tasks %d→%d send %d %s message(s) of %d B at %.4g ns each under the %s network %s",
		b.msg.From, b.msg.To, b.msg.Count, b.class, b.msg.Bytes, b.oneNs, b.class, net[b.class])
	if b.factor != 1 {
		s += fmt.Sprintf(", times the %s interference factor %g", b.class, b.factor)
	}
	return s + ": a parameter in the wrong unit?"
}

// TimeFromIPC is t = I/(IPC·f) in seconds (our reading of Li, 2011, §4.1).
func TimeFromIPC(instructions, ipc, hz float64) float64 { return instructions / (ipc * hz) }

// UniformIntra is the classes with inter for inter-node messages and
// intra for every intra-node placement.
func UniformIntra(inter, intra network.LogGOPS) Classes {
	var c Classes
	c[SameDie], c[SameSocket], c[CrossSocket], c[InterNode] = intra, intra, intra, inter
	return c
}

// ipcPatternsExist refuses an IPC given for a pattern number that is none
// of pats: it would price nothing (a 9 written for the 8 patterns of two
// sockets of two dies of two cores).
func ipcPatternsExist(ipc map[int]float64, pats []Pattern) error {
	ids := make([]int, 0, len(ipc))
	for id := range ipc {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		found := false
		for _, p := range pats {
			found = found || p.ID == id
		}
		if !found {
			return fmt.Errorf("aggregate: IPC given for pattern %d, but the patterns are P1 to P%d", id, len(pats))
		}
	}
	return nil
}
