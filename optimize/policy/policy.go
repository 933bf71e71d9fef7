// Package policy holds what the power policies of optimize/policy/...
// share: the bulk-synchronous phases of an MPI trace, the map from its
// compute events to the calc operations of the lowered graph, a Plan that
// fixes every calc operation's duration and power and is replayed on the
// one engine (package sim) through its CalcPricer hook with the power
// accountant (compute/power) as observer, and the gap of a policy to the
// power-constrained LP bound (optimize/bound) at the same power cap.
package policy

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// Synchronizing reports whether a collective of kind k makes every member
// wait for every other (so it ends a bulk-synchronous phase): barrier,
// allreduce, allgather, alltoall(v) and reduce_scatter. Rooted collectives
// and scans do not.
func Synchronizing(k mpi.Kind) bool {
	switch k {
	case mpi.Barrier, mpi.Allreduce, mpi.Allgather, mpi.Alltoall, mpi.Alltoallv, mpi.ReduceScatter:
		return true
	}
	return false
}

// Phases are the bulk-synchronous phases of a trace: phase k of a rank is
// what it does between its k-th and (k+1)-th synchronizing collective on
// MPI_COMM_WORLD (the iterations of Dynamic Power Steering, Anger,
// 2016, Ch. 5; the OpenMP phase groups of Li, 2011, §2.1). Every rank has the
// same number of phases; the last one runs from the last collective to the
// end of the rank's program and may be empty.
type Phases struct {
	N int // phases per rank
	// Compute[r][k] lists the event indices of rank r's compute events in
	// phase k, in program order.
	Compute [][][]int
	// SendBytes[r][k] lists the sizes of the point-to-point sends (send,
	// isend) rank r issues in phase k after its last compute event: the
	// messages t_send of Li, 2011, Eq. 3.6, covers.
	SendBytes [][][]int64
}

// Split returns the phases of t. It fails when the ranks do not all call
// the same number of synchronizing collectives on MPI_COMM_WORLD.
func Split(t *mpi.Trace) (*Phases, error) {
	if len(t.Ranks) == 0 {
		return nil, errors.New("policy: trace has no ranks")
	}
	p := &Phases{Compute: make([][][]int, len(t.Ranks)), SendBytes: make([][][]int64, len(t.Ranks))}
	for r := range t.Ranks {
		comp := [][]int{nil}
		sends := [][]int64{nil}
		for i, e := range t.Ranks[r].Events {
			k := len(comp) - 1
			switch {
			case e.Kind == mpi.Compute:
				comp[k] = append(comp[k], i)
				sends[k] = sends[k][:0]
			case e.Kind == mpi.Send || e.Kind == mpi.Isend:
				sends[k] = append(sends[k], e.Bytes)
			case e.Kind.IsCollective() && e.Comm == mpi.World && Synchronizing(e.Kind):
				comp = append(comp, nil)
				sends = append(sends, nil)
			}
		}
		if r == 0 {
			p.N = len(comp)
		} else if len(comp) != p.N {
			return nil, fmt.Errorf("policy: rank %d calls %d synchronizing collectives on MPI_COMM_WORLD, rank 0 calls %d: the trace is not bulk-synchronous",
				r, len(comp)-1, p.N-1)
		}
		p.Compute[r], p.SendBytes[r] = comp, sends
	}
	return p, nil
}

// Work returns the recorded compute time (ns) of rank r in phase k.
func (p *Phases) Work(t *mpi.Trace, r, k int) int64 {
	var w int64
	for _, i := range p.Compute[r][k] {
		w += t.Ranks[r].Events[i].Duration
	}
	return w
}

// CalcOps maps every compute event of t to its calc operation in g, the
// graph lowered from t: CalcOps(t, g)[r][i] is the op of event i of rank r
// (-1 for events that are not compute). Lowering turns the k-th compute
// event of a rank into its k-th calc operation when collectives carry no
// reduction cost; CalcOps fails when the counts or durations disagree.
func CalcOps(t *mpi.Trace, g *graph.Graph) ([][]int32, error) {
	if g.NumRanks() != len(t.Ranks) {
		return nil, fmt.Errorf("policy: graph has %d ranks, trace %d", g.NumRanks(), len(t.Ranks))
	}
	out := make([][]int32, len(t.Ranks))
	for r, rk := range t.Ranks {
		m := make([]int32, len(rk.Events))
		op := g.RankStart[r]
		end := g.RankStart[r+1]
		for i, e := range rk.Events {
			m[i] = -1
			if e.Kind != mpi.Compute {
				continue
			}
			for op < end && g.Kind[op] != graph.Calc {
				op++
			}
			if op == end {
				return nil, fmt.Errorf("policy: rank %d event %d: no calc operation left in the graph (was it lowered with a reduction cost?)", r, i)
			}
			if g.Size[op] != e.Duration {
				return nil, fmt.Errorf("policy: rank %d event %d lasts %d ns but its calc operation %d has %d ns (lower without a reduction cost)", r, i, e.Duration, op, g.Size[op])
			}
			m[i] = op
			op++
		}
		for ; op < end; op++ {
			if g.Kind[op] == graph.Calc {
				return nil, fmt.Errorf("policy: rank %d has more calc operations than compute events (lower without a reduction cost)", r)
			}
		}
		out[r] = m
	}
	return out, nil
}

// Plan fixes, per operation, the duration (ns) of calc operations and the
// power (W) of their core while they run. Dur[op] < 0 keeps the recorded
// size; W[op] = 0 uses the rank's JobModel.ActiveW. A Plan is the
// sim.CalcPricer of a policy's replay.
type Plan struct {
	g   *graph.Graph
	Dur []int64
	W   []float64
}

// NewPlan returns a plan for g that keeps every recorded duration.
func NewPlan(g *graph.Graph) *Plan {
	p := &Plan{g: g, Dur: make([]int64, g.NumOps()), W: make([]float64, g.NumOps())}
	for i := range p.Dur {
		p.Dur[i] = -1
	}
	return p
}

// CalcDuration implements sim.CalcPricer.
func (p *Plan) CalcDuration(op int32, start int64) int64 {
	if d := p.Dur[op]; d >= 0 {
		return d
	}
	return p.g.Size[op]
}

// Outcome is a replay of a plan: time, energy and power of the job.
type Outcome struct {
	MakespanNs int64
	EnergyJ    float64
	AvgW       float64
	PeakW      float64
	OverCapNs  int64 // time above the cap, the job's or some node's (0 without a cap)
	// NodePeakW is the highest power of any node at any instant under
	// per-node caps (ReplayNodes), 0 otherwise.
	NodePeakW float64
	Ranks     []sim.RankStats
	// CalcStart and CalcEnd give when every calc operation ran (indexed
	// by op id; 0 for other operations).
	CalcStart, CalcEnd []int64
}

// recorder keeps calc start and end times and forwards to the accountant.
type recorder struct {
	acct       *power.Accountant
	g          *graph.Graph
	start, end []int64
}

func (r *recorder) Busy(op int32, start, end int64) {
	r.acct.Busy(op, start, end)
	if r.g.Kind[op] == graph.Calc {
		r.start[op], r.end[op] = start, end
	}
}

func (r *recorder) Message(send, recv int32, sent, matched int64) {}

// Replay runs g under net with plan's calc durations and prices the run
// with the job power model jm (plan.W overrides jm.OpW); capW > 0 also
// measures the time spent above that job power cap.
func Replay(g *graph.Graph, net network.LogGOPS, plan *Plan, jm power.JobModel, capW float64) (*Outcome, error) {
	return ReplayNodes(g, net, plan, jm, capW, nil)
}

// NodeCaps caps every node of a job rather than the job: the per-node
// limits RAPL or a node manager enforces. Every node draws BaseW besides
// its ranks, so a node cap leaves its ranks the cap less BaseW, as the
// LP's node chains take it (bound.Options.NodeOf).
type NodeCaps struct {
	// Of is the node of every rank, nodes numbered from 0.
	Of []int
	// BaseW is every node's constant power: its share of the job
	// model's BaseW.
	BaseW float64
}

// Nodes returns how many nodes nc places ranks on.
func (nc *NodeCaps) Nodes() int {
	n := 0
	for _, v := range nc.Of {
		n = max(n, v+1)
	}
	return n
}

// Validate checks that nc places each of ranks ranks on a node.
func (nc *NodeCaps) Validate(ranks int) error {
	if len(nc.Of) != ranks {
		return fmt.Errorf("policy: node caps place %d ranks, the job has %d", len(nc.Of), ranks)
	}
	for r, v := range nc.Of {
		if v < 0 {
			return fmt.Errorf("policy: node caps: rank %d on node %d", r, v)
		}
	}
	if !(nc.BaseW >= 0) || math.IsInf(nc.BaseW, 0) {
		return fmt.Errorf("policy: node caps: base power %g W per node: want a finite power ≥ 0", nc.BaseW)
	}
	return nil
}

// layout is nc as the power accountant places units: a rank on its node.
func (nc *NodeCaps) layout() power.NodeLayout {
	return power.NodeLayout{Nodes: nc.Nodes(), NodeOf: func(u int) int { return nc.Of[u] }, BaseW: nc.BaseW}
}

// ReplayNodes is Replay where capW is every node's cap under nc (nil:
// the job's): the outcome's OverCapNs is then the time some node stands
// above capW, and NodePeakW the highest node power.
func ReplayNodes(g *graph.Graph, net network.LogGOPS, plan *Plan, jm power.JobModel, capW float64, nc *NodeCaps) (*Outcome, error) {
	if nc != nil {
		if err := nc.Validate(g.NumRanks()); err != nil {
			return nil, err
		}
	}
	if err := jm.Validate(g.NumRanks()); err != nil {
		return nil, err
	}
	rec := &recorder{acct: power.NewAccountant(g), g: g, start: make([]int64, g.NumOps()), end: make([]int64, g.NumOps())}
	res, err := sim.Run(g, net, sim.Options{Pricer: plan, Observer: rec})
	if err != nil {
		return nil, fmt.Errorf("policy: replay: %w", err)
	}
	jm.OpW = plan.W
	var rep power.Report
	var nodes power.NodeCap
	if nc == nil {
		rep, err = rec.acct.Report(jm, res.Makespan, capW)
	} else {
		rep, nodes, err = rec.acct.ReportNodes(jm, res.Makespan, 0, nc.layout(), capW)
		rep.OverCapNs = nodes.OverCapNs
	}
	if err != nil {
		return nil, err
	}
	return &Outcome{MakespanNs: res.Makespan, EnergyJ: rep.EnergyJ, AvgW: rep.AvgW, PeakW: rep.PeakW, OverCapNs: rep.OverCapNs,
		NodePeakW: nodes.PeakW, Ranks: res.Ranks, CalcStart: rec.start, CalcEnd: rec.end}, nil
}

// Improvement returns 100·(base − x)/base, the percentage by which x
// improves on base (positive = better), 0 when base is 0.
func Improvement(base, x float64) float64 {
	if base == 0 {
		return 0
	}
	return 100 * (base - x) / base
}

// Gap is a policy's distance to the LP bound at one cap.
type Gap struct {
	CapW    float64 // power cap the LP was solved at: the job's, or every node's
	BoundNs int64   // the LP's optimal makespan (0 when Status is not "ok")
	Pct     float64 // 100·(policy makespan / bound − 1)
	// Status is "ok", "infeasible" (the cap is below what the fixed event
	// order needs), or "no-solver" (capsim was built without CLP).
	Status string
	// LeastCapW, where Status is "infeasible", is the least cap the fixed
	// event order has a schedule at (bound.Solver.MinFeasibleCap plus the
	// constant power), in the terms of CapW.
	LeastCapW float64
}

// LPGap solves the fixed-event-order LP of optimize/bound for trace t at
// job cap capW (the LP caps the task power capW − baseW) with the compute
// configurations configs and the communication comm, and returns the gap
// of a policy that took makespanNs. A nil comm prices every message at
// net's uncontended cost and every call as instantaneous; the LP then
// ignores NIC serialization and collective algorithms, so a replayed
// policy can come out below it (negative gap). A comm measured on a
// replay (scenarios.ReplayComm) avoids that. With nodeOf set, capW is
// every node's cap and baseW every node's constant power: the LP caps
// each node's task power (bound.Options.NodeOf, rank r on node
// nodeOf[r]).
func LPGap(t *mpi.Trace, comm bound.Comm, net network.LogGOPS, configs bound.ConfigFunc, capW, baseW float64, nodeOf []int, makespanNs int64) (Gap, error) {
	gp := Gap{CapW: capW}
	if !clp.Available() {
		gp.Status = "no-solver"
		return gp, nil
	}
	var d *bound.DAG
	var err error
	if comm == nil {
		d, err = bound.FromTrace(t, func(b int64) float64 { return float64(net.Cost(b)) / 1e9 }, configs)
	} else {
		d, err = bound.FromTraceComm(t, comm, configs)
	}
	if err != nil {
		return gp, fmt.Errorf("policy: LP bound: %w", err)
	}
	o, err := bound.InitialOrder(d)
	if err != nil {
		return gp, fmt.Errorf("policy: LP bound: %w", err)
	}
	s, err := bound.NewSolver(d, o, bound.Options{NodeOf: nodeOf})
	if err != nil {
		return gp, fmt.Errorf("policy: LP bound: %w", err)
	}
	defer s.Close()
	b, err := s.Solve(capW - baseW)
	var ie *bound.InfeasibleError
	if errors.As(err, &ie) {
		gp.Status = "infeasible"
		least, _ := s.MinFeasibleCap()
		gp.LeastCapW = least + baseW
		return gp, nil
	}
	if err != nil {
		return gp, fmt.Errorf("policy: LP bound at %g W: %w", capW, err)
	}
	gp.Status = "ok"
	if gp.BoundNs, err = graph.SecondsToNs(b.Makespan); err != nil {
		return gp, fmt.Errorf("policy: LP bound at %g W: makespan: %w", capW, err)
	}
	if gp.BoundNs > 0 {
		gp.Pct = 100 * (float64(makespanNs)/float64(gp.BoundNs) - 1)
	}
	return gp, nil
}

// TaskPowerPeak returns the job's peak power in the replay o of plan as
// the LP bound sees it (Bailey et al., SC'15, §3.3: slack draws its task's power): the
// largest sum over ranks of the power plan.W of each rank's current or
// most recent calc operation, base power excluded. A policy replayed at
// this peak meets the LP's cap, so the LP solved at base power plus this
// peak bounds the policy's makespan (up to the LP's fixed event order).
func TaskPowerPeak(g *graph.Graph, plan *Plan, o *Outcome) float64 {
	type change struct {
		t    int64
		rank int32
		w    float64
	}
	var ch []change
	for r := 0; r < g.NumRanks(); r++ {
		for op := g.RankStart[r]; op < g.RankStart[r+1]; op++ {
			if g.Kind[op] == graph.Calc {
				ch = append(ch, change{o.CalcStart[op], int32(r), plan.W[op]})
			}
		}
	}
	sort.SliceStable(ch, func(i, j int) bool { return ch[i].t < ch[j].t })
	cur := make([]float64, g.NumRanks())
	var sum, peak float64
	for i, c := range ch {
		sum += c.w - cur[c.rank]
		cur[c.rank] = c.w
		if i == len(ch)-1 || ch[i+1].t != c.t {
			peak = math.Max(peak, sum)
		}
	}
	return peak
}
