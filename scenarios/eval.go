package scenarios

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/capsim/capsim/compute/dvfs"
	"github.com/capsim/capsim/compute/gpu"
	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/internal/units"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/network/topo"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/conductor"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// Replayer evaluates sweep points by building the workload, lowering it
// with the scenario's collective algorithms, choosing every rank's P-state
// by the point's policy, and replaying it under the scenario's LogGOPS
// network with DVFS-scaled compute times and the machine's power model.
type Replayer struct{}

// Evaluate runs one group of points (see Evaluator).
func (Replayer) Evaluate(ctx context.Context, sc *Scenario, pts []Point, emit func(Point, Metrics) error) error {
	return evaluate(ctx, sc, pts, emit, nil)
}

// sharedReplayer is the Replayer within one Run: the groups of a machine
// and parameter values share their LP (lpShare).
type sharedReplayer struct{ lps *lpShare }

// Evaluate runs one group of points (see Evaluator).
func (r sharedReplayer) Evaluate(ctx context.Context, sc *Scenario, pts []Point, emit func(Point, Metrics) error) error {
	return evaluate(ctx, sc, pts, emit, r.lps)
}

// evaluate is Replayer.Evaluate, with the LP taken from lps when not nil.
func evaluate(ctx context.Context, sc *Scenario, pts []Point, emit func(Point, Metrics) error, lps *lpShare) (err error) {
	if len(pts) == 0 {
		return nil
	}
	sc, params := sc.at(pts[0].Params) // the group's scenario axes applied
	m := &sc.Machines[pts[0].Machine]
	shared := lps != nil && pts[0].Policy != policy.Uncapped // a group of lps's (newLPShare)
	if shared {
		defer lps.release(lpKey(pts[0]))
	}
	var t *mpi.Trace
	var g *graph.Graph
	if shared && pts[0].Pattern == 0 {
		// The groups of one LP share their workload, as they share the LP.
		t, g, err = lps.workload(lpKey(pts[0]), func() (*mpi.Trace, *graph.Graph, error) { return sc.build(params) })
	} else {
		t, g, err = sc.build(params)
	}
	if err != nil {
		return err
	}
	defer func() { err = sc.deadlockInMPITerms(err, t, g, params) }()
	if pts[0].Pattern > 0 {
		if err := sc.fitsAggregate(m, g); err != nil {
			return err
		}
		return sc.evaluateAggregate(ctx, m, g, sc.Net(), pts, emit)
	}
	if err := sc.fits(m, t, g, pts[0].Policy); err != nil {
		return err
	}
	net := sc.Net()
	cls, err := sc.Classes(g, t)
	if err != nil {
		return err
	}
	var bd *bounder
	switch {
	case pts[0].Policy == policy.Uncapped:
	case lps != nil:
		key := lpKey(pts[0])
		if bd, err = lps.get(key, func() (*bounder, error) {
			defer span(ctx, "build LP")()
			if t == nil {
				b, err := sc.newGraphBounder(g, cls, m, net, lps.workers)
				if b != nil {
					b.forkCaps = lps.forks[key]
				}
				return b, err
			}
			b, err := sc.newBounderOn(t, m, net, lps.workers)
			if b != nil {
				b.forkCaps = lps.forks[key]
			}
			return b, err
		}); err != nil {
			return err
		}
	default:
		if t == nil {
			bd, err = sc.newGraphBounder(g, cls, m, net, 0)
		} else {
			bd, err = sc.newBounder(t, m, net)
		}
		if err != nil {
			return err
		}
		defer bd.close()
		if bd != nil {
			bd.forkCaps = lpForkCaps(pts, sc.Sweep.CapsW)
		}
	}
	for _, p := range pts {
		if err := ctx.Err(); err != nil {
			return err
		}
		if p.Done { // committed before a resume (bd.solve goes through the caps before a cap of its chain)
			continue
		}
		end := span(ctx, "point %s cap %g", p.Policy, p.CapW)
		var met Metrics
		var ropts sim.Options // how the point was replayed, for belowBound
		var rnet network.LogGOPS
		switch p.Policy {
		case policy.LP, policy.MinEnergy:
			var run *taskRun
			ok := false
			if p.Policy == policy.LP {
				var b *bound.Bound
				met, run, b, err = sc.lpPoint(ctx, bd, g, p.CapW, net)
				ok = b != nil
			} else {
				met, run, ok, err = sc.minEnergyPoint(ctx, bd, g, p.CapW, net)
			}
			if err != nil {
				return err
			}
			if !ok { // below the LP's least feasible cap, or no LP solver
				met = Metrics{Infeasible: true}
				if bd != nil && bd.s != nil {
					met.LeastCapW, _ = sc.leastLPCapW(bd.d, bd.o, bd.m)
				}
			} else {
				ropts, rnet = run.opts, run.net
			}
		default:
			r, ok := lps.takePre(p.Index)
			if !ok {
				var pd *bound.DAG
				var po *bound.Order
				if p.Policy == policy.Conductor && t != nil { // an execution graph's plays on the engine alone (replayPoint)
					if bd == nil {
						return fmt.Errorf("the conductor policy needs an MPI-trace workload (the DAG of its MPI calls)")
					}
					if lps != nil && sc.Bound.Messages == MessagesEngine {
						pd, po, err = lps.planLP(lpKey(p), sc, t, m, net)
					} else {
						pd, po, err = bd.plan()
					}
					if err != nil {
						return err
					}
				}
				if r, err = sc.replayPoint(g, t, pd, po, cls, m, net, p.Policy, p.CapW); err != nil {
					return err
				}
			}
			met, ropts, rnet = r.met, r.opts, r.net
			if bd != nil {
				if met.BoundNs, err = bd.at(ctx, p.CapW); err != nil {
					return err
				}
			}
		}
		if bd != nil && met.BoundNs > 0 && met.MakespanNs < met.BoundNs {
			met.BelowBound = bd.belowBound(g, met, ropts, rnet)
		}
		end()
		if err := emit(p, met); err != nil {
			return err
		}
	}
	return nil
}

// prereplay replays the points of a group of lps's
// ahead of it, while the LP they take their bound from may still be
// built (Run feeds these replays right after the group that builds it),
// and keeps their metrics in lps for the group, which then fills in the
// bound's columns alone. A point's replay depends on its policy and cap
// alone, never on the LP, so the results are those of the group replaying
// it. It reports no error: where anything fails it keeps nothing, and the
// group replays the point itself and reports the error.
func prereplay(ctx context.Context, sc *Scenario, pts []Point, lps *lpShare) {
	pol := pts[0].Policy
	if pts[0].Pattern > 0 || (pol == policy.Conductor && sc.Bound.Messages != MessagesEngine) {
		return // an aggregate's replays, or a Conductor that plans on the LP's own DAG
	}
	sc, params := sc.at(pts[0].Params)
	m := &sc.Machines[pts[0].Machine]
	key := lpKey(pts[0])
	t, g, err := lps.workload(key, func() (*mpi.Trace, *graph.Graph, error) { return sc.build(params) })
	if err != nil || sc.fits(m, t, g, pol) != nil {
		return
	}
	net := sc.Net()
	cls, err := sc.Classes(g, t)
	if err != nil {
		return
	}
	var pd *bound.DAG
	var po *bound.Order
	if pol == policy.Conductor {
		if t == nil {
			return
		}
		if lps.built(key) {
			return
		}
		if pd, po, err = lps.planLP(key, sc, t, m, net); err != nil {
			return
		}
	}
	for _, p := range pts {
		if p.Done || ctx.Err() != nil {
			continue
		}
		if lps.built(key) {
			return // the rest is the group's, as the LP's work can go on now
		}
		end := span(ctx, "replay %s cap %g of %s", p.Policy, p.CapW, key)
		r, err := sc.replayPoint(g, t, pd, po, cls, m, net, pol, p.CapW)
		end()
		if err != nil {
			return
		}
		lps.putPre(p.Index, r)
	}
}

// replayPoint replays a point of a policy other than lp's at job cap
// capW: the Conductor's on its plan pd and po (on an execution graph, t
// nil, the Conductor runtime played on the engine), any other's (replay)
// with the message classes cls. It returns the metrics, without the
// bound's columns, and how the point was replayed.
func (sc *Scenario) replayPoint(g *graph.Graph, t *mpi.Trace, pd *bound.DAG, po *bound.Order, cls *network.Classes, m *Machine, net network.LogGOPS, pol string, capW float64) (replayed, error) {
	if pol == policy.Conductor && t == nil {
		run, err := sc.replayGraphConductor(g, m, net, cls, capW, conductor.DefaultParams())
		if err != nil {
			return replayed{}, err
		}
		return replayed{run.met, run.opts, run.net}, nil
	}
	if pol == policy.Conductor {
		met, _, run, err := sc.replayConductor(g, t, pd, po, capW, conductor.DefaultParams(), m, net)
		if err != nil {
			return replayed{}, err
		}
		return replayed{met, run.opts, run.net}, nil
	}
	met, rec, err := sc.replay(g, m, net, cls, pol, capW)
	if err != nil {
		return replayed{}, err
	}
	return replayed{met, rec.opts, rec.net}, nil
}

// dvfsModel is the scenario's DVFS model on machine m: a share
// memory_boundness of compute time is insensitive to frequency, and times
// are recorded at workload.recorded_ghz, else at m's fastest P-state
// (RecordedConfig).
func (sc *Scenario) dvfsModel(m *Machine) *dvfs.Model {
	return &dvfs.Model{Beta: 1 - sc.Models.MemoryBoundness, RefGHz: sc.recordedRef(m)}
}

// indices returns the index in m.PStates of each of ps.
func (m *Machine) indices(ps []PState) []int {
	idx := make([]int, len(ps))
	for r, p := range ps {
		for k, q := range m.PStates {
			if q == p {
				idx[r] = k
				break
			}
		}
	}
	return idx
}

// Net returns the scenario's LogGOPS parameters.
func (sc *Scenario) Net() network.LogGOPS {
	n := sc.Network
	return network.LogGOPS{Latency: int64(n.LNs), Overhead: int64(n.ONs), Gap: int64(n.GapNs),
		GapPerByte: n.GNsPerByte, OverheadPerByte: n.ONsPerByte, EagerLimit: n.SBytes, HeaderBytes: n.HBytes}
}

// Overrides returns the scenario's network overrides over its base
// parameters.
func (sc *Scenario) Overrides() []network.Override {
	base := sc.Net()
	var out []network.Override
	for _, o := range sc.Network.Overrides {
		p := base
		for _, f := range []struct {
			v   *int64
			dst *int64
		}{{(*int64)(o.LNs), &p.Latency}, {(*int64)(o.ONs), &p.Overhead}, {(*int64)(o.GapNs), &p.Gap}, {o.SBytes, &p.EagerLimit}, {o.HBytes, &p.HeaderBytes}} {
			if f.v != nil {
				*f.dst = *f.v
			}
		}
		if o.GNsPerByte != nil {
			p.GapPerByte = *o.GNsPerByte
		}
		if o.ONsPerByte != nil {
			p.OverheadPerByte = *o.ONsPerByte
		}
		out = append(out, network.Override{Comm: string(o.Communicator), Region: o.Region, Params: p})
	}
	return out
}

// Classes assigns the messages of g (lowered from trace t, or nil for a
// graph-level workload) their network parameters under the scenario's
// overrides and, for messages with a wire protocol (graph.Graph.Wire,
// network.nccl_intra), the protocol's; nil when neither applies.
func (sc *Scenario) Classes(g *graph.Graph, t *mpi.Trace) (*network.Classes, error) {
	var names func(int32) string
	if t != nil {
		names = func(c int32) string {
			for _, cm := range t.Comms {
				if cm.ID == c {
					return cm.Name
				}
			}
			return ""
		}
	}
	cls, err := network.Classify(g, sc.Net(), sc.Overrides(), names)
	if err != nil {
		pe := sc.keyError("network.override", err.Error())
		var se *network.SelectError
		if errors.As(err, &se) {
			// The line of the override's own selector.
			for _, key := range []string{"region", "communicator"} {
				if l := arrayKeyLine(sc.Text, "network.override", se.Override-1, "", -1, key); l > 0 {
					pe.Line, pe.Key = l, "network.override."+key
					break
				}
			}
		}
		return nil, pe
	}
	return cls, nil
}

// Ranks returns how many ranks machine m runs: nodes × ranks_per_node.
func (m *Machine) Ranks() int { return m.Nodes * m.RanksPerNode }

// FitRanks reports a workload of n ranks that machine m cannot run: more
// ranks than it has slots, or, with exact (as a sweep runs it), any other
// number than its slots.
func (m *Machine) FitRanks(n int, exact bool) error {
	if n > m.Ranks() || exact && n != m.Ranks() {
		return &RanksError{Ranks: n, Machine: m}
	}
	return nil
}

// FitGraph is FitRanks for the ranks of execution graph g, and checks
// that m has a core for every CPU of the ranks of a node: without
// [machine.gpu] a rank's CPUs run at once on as many cores of its host
// (a Chakra trace's GPU streams, a GOAL file's cpu field), each drawing
// its P-state's power; with one, CPU 0 is the host core and the others
// the GPU's streams.
func (m *Machine) FitGraph(g *graph.Graph, exact bool) error {
	if err := m.FitRanks(g.NumRanks(), exact); err != nil {
		return err
	}
	if m.GPU != nil {
		return nil
	}
	// Ranks fill the nodes in blocks of ranks_per_node.
	perNode := min(m.RanksPerNode, g.NumRanks())
	if cpus := cpusAtOnce(g); cpus > 1 && perNode*max(cpus, m.ThreadsPerRank) > m.SocketsPerNode*m.CoresPerSocket {
		return &CoresError{CPUs: cpus, Ranks: perNode, Machine: m}
	}
	return nil
}

// cpusAtOnce is the most CPUs a rank of g runs at once: its highest CPU
// number plus one (1 for a graph without operations).
func cpusAtOnce(g *graph.Graph) int {
	var most uint8
	for _, c := range g.CPU {
		most = max(most, c)
	}
	return int(most) + 1
}

// CoresError is a workload whose ranks run up to CPUs CPUs at once,
// more than the cores of a node of Machine give its ranks, on a machine
// without a GPU to run them on.
type CoresError struct {
	CPUs, Ranks int // CPUs of a rank, ranks of a node
	Machine     *Machine
}

func (e *CoresError) Error() string {
	m := e.Machine
	return fmt.Sprintf("the workload's ranks run up to %d CPUs at once (a Chakra trace's GPU streams, a GOAL file's cpu field) and machine %s has no [machine.gpu], so they run on cores of their node: %d ranks × %d CPUs on a node exceed its %d cores (%d sockets_per_node × %d cores_per_socket); add a [machine.gpu] table to run CPUs other than 0 on a GPU, or give the node more cores",
		e.CPUs, m.Name, e.Ranks, e.CPUs, m.SocketsPerNode*m.CoresPerSocket, m.SocketsPerNode, m.CoresPerSocket)
}

// RanksError is a workload of Ranks ranks that Machine cannot run.
type RanksError struct {
	Ranks   int
	Machine *Machine
}

func (e *RanksError) Error() string {
	m := e.Machine
	return fmt.Sprintf("the workload has %d ranks but machine %s runs %d (%d nodes × %d ranks_per_node)", e.Ranks, m.Name, m.Ranks(), m.Nodes, m.RanksPerNode)
}

// BaseW is the machine's constant power: every socket idle and every
// accelerator device idle (their idle_w).
func (m *Machine) BaseW() float64 {
	w := float64(m.Nodes*m.SocketsPerNode) * m.IdlePowerW
	for _, a := range m.Accelerators {
		w += float64(m.Nodes*a.PerNode) * a.IdleW
	}
	return w
}

// gpuIdleW is what the machine's GPUs draw idle, all together (0 without
// [machine.gpu]).
func (m *Machine) gpuIdleW() float64 {
	if m.GPU == nil {
		return 0
	}
	return float64(m.Ranks()) * m.GPU.IdleW
}

// deviceIdleW returns the idle power of each of the machine's GPUs, one
// per slot (nodes × ranks_per_node), a JobModel's DeviceIdleW (nil
// without [machine.gpu]). A GPU draws it whether or not the workload runs
// a rank on its slot, as the machine's idle power counts it (gpuIdleW), so
// a replay of fewer ranks than slots charges the unused GPUs too; device k
// is the GPU of rank k (power.Accountant.OnDevice).
func (m *Machine) deviceIdleW() []float64 {
	if m.GPU == nil {
		return nil
	}
	w := make([]float64, m.Ranks())
	for r := range w {
		w[r] = m.GPU.IdleW
	}
	return w
}

// JobCap returns the job's power cap for a sweep cap of capW watts: capW
// itself, or nodes × capW where the scenario's caps are per node.
func (sc *Scenario) JobCap(m *Machine, capW float64) float64 {
	if sc.Sweep.CapScope == CapScopeNode {
		return capW * float64(m.Nodes)
	}
	return capW
}

// gpuClock returns the clock of every rank's GPU under a policy and job
// cap: the fastest its power limit allows, and under static the fastest
// whose running power above idle, with the slowest P-state's core power,
// fits the rank's equal share of what the cap leaves above the machine's
// idle power (the slowest allowed where none fits).
func (m *Machine) gpuClock(pol string, jobCapW float64) gpu.Clock {
	cs := m.GPU.Allowed()
	if pol != policy.Static && pol != policy.StaticRAPL {
		return cs[0]
	}
	share := m.rankShare(jobCapW)
	core := m.PStates[len(m.PStates)-1].ActivePowerW
	for _, c := range cs {
		if c.PowerW-m.GPU.IdleW+core <= share+1e-9 {
			return c
		}
	}
	return cs[len(cs)-1]
}

// rankShare is a rank's equal share of what job cap jobCapW leaves above
// the machine's idle power (sockets, devices and GPUs idle).
func (m *Machine) rankShare(jobCapW float64) float64 {
	return (jobCapW - m.BaseW() - m.gpuIdleW()) / float64(m.Ranks())
}

// Assign returns each rank's P-state under a policy and cap: the fastest
// for "uncapped"; for "static", the fastest whose active power fits the
// rank's equal share of what the cap leaves above the base power (the
// slowest when none fits, so the run may exceed the cap). Regions that can
// run on an accelerator do so under "uncapped" wherever their model
// offloads them, under "static" only where the device's power fits the
// share too.
//
// With a GPU, the share the static policy gives a rank's core is what its
// GPU's clock (gpuClock) leaves of it.
func (m *Machine) Assign(pol string, capW float64) ([]PState, error) {
	ranks := m.Nodes * m.RanksPerNode
	ps := make([]PState, ranks)
	switch pol {
	case policy.Uncapped, policy.StaticRAPL: // static-rapl: RAPL picks the speed (policy.RAPLMix)
		for r := range ps {
			ps[r] = m.PStates[0]
		}
	case policy.Static:
		share := m.coreShare(pol, capW)
		pick := m.PStates[len(m.PStates)-1]
		for _, p := range m.PStates {
			if p.ActivePowerW <= share+1e-9 {
				pick = p
				break
			}
		}
		for r := range ps {
			ps[r] = pick
		}
	default:
		return nil, fmt.Errorf("policy %q is not implemented by the replayer", pol)
	}
	return ps, nil
}

// coreShare is the share of job cap jobCapW a rank's core gets under
// policy pol: the rank's share, less its GPU's running power above idle.
func (m *Machine) coreShare(pol string, jobCapW float64) float64 {
	share := m.rankShare(jobCapW)
	if m.GPU != nil {
		share -= m.gpuClock(pol, jobCapW).PowerW - m.GPU.IdleW
	}
	return share
}

// Replay replays g on machine m with the policy's P-states and returns
// the point's metrics.
func (sc *Scenario) Replay(g *graph.Graph, m *Machine, net network.LogGOPS, pol string, capW float64) (Metrics, error) {
	met, _, err := sc.replay(g, m, net, nil, pol, capW)
	return met, err
}

// recording is what a replay recorded beyond its metrics.
type recording struct {
	acct  *power.Accountant
	model power.JobModel
	ghz   []float64 // per rank
	res   *sim.Result
	// net and opts replay the point again (opts without its observer),
	// for its critical path.
	net  network.LogGOPS
	opts sim.Options
}

// replay is Replay with messages priced by network classes cls (nil: net
// for all), returning what it recorded too.
func (sc *Scenario) replay(g *graph.Graph, m *Machine, net network.LogGOPS, cls *network.Classes, pol string, capW float64) (Metrics, *recording, error) {
	if err := m.FitGraph(g, false); err != nil {
		return Metrics{}, nil, err
	}
	nodeCapW := 0.0
	if sc.Sweep.CapScope == CapScopeNode {
		nodeCapW = capW
	}
	capW = sc.JobCap(m, capW)
	ps, err := m.Assign(pol, capW)
	if err != nil {
		return Metrics{}, nil, err
	}
	sp, err := sc.speedsOf(m, g.Regions)
	if err != nil {
		return Metrics{}, nil, err
	}
	idx := m.indices(ps)
	var use func(region int) bool // where regions may run on a device (nil: wherever the model offloads)
	if pol == policy.Static {
		share := m.coreShare(pol, capW)
		use = func(i int) bool { return sp.devWatts[idx[0]][i] <= share+1e-9 }
	}
	pl := plan{ratio: make([][]float64, len(ps)), watts: make([][]float64, len(ps)), dev: make([][]bool, len(ps))}
	for r, k := range idx {
		pl.ratio[r], pl.watts[r], pl.dev[r] = sp.row(k, use)
		if pol == policy.StaticRAPL {
			pl.ratio[r], pl.watts[r] = sp.raplRows(m.coreShare(pol, capW), m.CoreIdlePowerW)
			pl.dev[r] = make([]bool, len(pl.ratio[r]))
		}
	}
	ghz := make([]float64, len(ps))
	active := make([]float64, len(ps))
	for r, p := range ps {
		ghz[r], active[r] = p.FreqGHz, p.ActivePowerW
		if pol == policy.StaticRAPL {
			active[r] = pl.watts[r][0]
		}
	}
	acct := power.NewAccountant(g)
	fl, err := sc.flowNetwork(m, g.NumRanks())
	if err != nil {
		return Metrics{}, nil, err
	}
	pr := pl.pricer(g)
	var gpuW float64
	if m.GPU != nil {
		c := m.gpuClock(pol, capW)
		pr.gpu = make([]float64, m.Ranks())
		for r := range pr.gpu {
			pr.gpu[r] = m.GPU.Model().Ratio(c.MHz) * m.SpeedFactor
		}
		gpuW = c.PowerW
		acct.OnDevice(len(ps), onGPU(g))
	}
	opts := sim.Options{
		Pricer:  pr,
		Classes: cls,
		Device:  pl.devices(g, sp, m),
		Flow:    fl,
	}
	run := opts
	run.Observer = acct
	res, err := sim.Run(g, net, run)
	if err != nil {
		return Metrics{}, nil, err
	}
	jm := power.JobModel{BaseW: m.BaseW(), IdleW: m.CoreIdlePowerW, ActiveW: active, OpW: pl.opWatts(g), OpWaitW: pl.opWaitWatts(g, active), Wait: m.WaitPower}
	if m.GPU != nil {
		jm.DeviceIdleW = m.deviceIdleW()
		on := onGPU(g)
		for op := range jm.OpW {
			if g.Kind[op] == graph.Calc && on(int32(op)) {
				jm.OpW[op] = gpuW
			}
		}
	}
	met, err := sc.powerMetrics(acct, jm, res.Makespan, capW, nodeCapW, m)
	if err != nil {
		return Metrics{}, nil, err
	}
	return met, &recording{acct: acct, model: jm, ghz: ghz, res: res, net: net, opts: opts}, nil
}

// onGPU reports, per operation of g, whether it runs on its rank's GPU
// on a machine with [machine.gpu]: the operations of the rank's CPUs
// other than CPU 0 (a Chakra trace's GPU streams).
func onGPU(g *graph.Graph) func(op int32) bool {
	return func(op int32) bool { return g.CPU[op] != 0 }
}

// powerMetrics returns a replay's metrics from its accountant under job
// model jm: energy, average and peak power and the time over job cap
// jobCapW, or, with nodeCapW > 0, the time some node of machine m is over
// nodeCapW (a node draws its share of the constant power and its ranks'
// cores and GPUs).
func (sc *Scenario) powerMetrics(acct *power.Accountant, jm power.JobModel, makespan int64, jobCapW, nodeCapW float64, m *Machine) (Metrics, error) {
	metrics := func(rep power.Report) Metrics {
		return Metrics{MakespanNs: makespan, EnergyJ: units.Joules(rep.EnergyJ), AvgPowerW: units.Watts(rep.AvgW),
			PeakPowerW: units.Watts(rep.PeakW), OverCapNs: rep.OverCapNs}
	}
	if nodeCapW <= 0 {
		rep, err := acct.Report(jm, makespan, jobCapW)
		if err != nil {
			return Metrics{}, err
		}
		return metrics(rep), nil
	}
	rep, nc, err := acct.ReportNodes(jm, makespan, jobCapW, m.nodeLayout(jm), nodeCapW)
	if err != nil {
		return Metrics{}, err
	}
	met := metrics(rep)
	met.OverCapNs = nc.OverCapNs
	return met, nil
}

// Graph builds the execution graph of the scenario's workload with the
// parameter overrides of a point.
func (sc *Scenario) Graph(overrides map[string]any) (*graph.Graph, error) {
	_, g, err := sc.build(overrides)
	return g, err
}

// build returns the workload's MPI trace (nil for graph-level workloads)
// and its execution graph, lowered with the scenario's collective
// algorithms.
func (sc *Scenario) build(overrides map[string]any) (*mpi.Trace, *graph.Graph, error) {
	coll, err := lower.ParseAlgorithms(sc.Network.Collective)
	if err != nil {
		return nil, nil, sc.keyError("network.collectives", err.Error())
	}
	t, g, formatColl, err := sc.workload(overrides)
	if err != nil || g != nil {
		return nil, g, err
	}
	for k, alg := range formatColl { // the trace format's own choice, unless the scenario names one
		if _, set := coll[k]; !set {
			coll[k] = alg
		}
	}
	opt, err := sc.lowerOptions(coll)
	if err != nil {
		return nil, nil, err
	}
	g, err = lower.Lower(t, opt)
	if err != nil && sc.Workload.Trace != "" {
		err = sc.keyErr("workload.trace", importer.Relowered(err, t, sc.path(sc.Workload.Trace), sc.Workload.importOptions(), opt))
	}
	return t, g, err
}

// Trace returns the workload as an MPI trace, or nil when the workload is
// an execution graph or GOAL file (which have no MPI-call structure).
func (sc *Scenario) Trace(overrides map[string]any) (*mpi.Trace, error) {
	t, _, _, err := sc.workload(overrides)
	return t, err
}

// workload returns the MPI trace, or the graph of a graph-level trace file
// (any format the importer registry reads), and the trace format's own
// collective algorithms.
func (sc *Scenario) workload(overrides map[string]any) (*mpi.Trace, *graph.Graph, map[mpi.Kind]string, error) {
	w := sc.Workload
	if w.Trace != "" {
		path := w.Trace
		if !filepath.IsAbs(path) && sc.File != DefaultName {
			path = filepath.Join(filepath.Dir(sc.File), path)
		}
		o := w.importOptions()
		lo, err := sc.lowerOptions(nil)
		if err != nil {
			return nil, nil, nil, err
		}
		o.Chakra.Lower = lo
		t, err := importer.Read(path, o)
		if err != nil {
			return nil, nil, nil, sc.keyErr("workload.trace", err)
		}
		if w.Replicate > 0 && t.Chakra == nil {
			return nil, nil, nil, fmt.Errorf("%s: workload.replicate: %s is a %s trace; only Chakra traces replicate", sc.File, w.Trace, t.Format)
		}
		return t.MPI, t.Graph, t.Collectives, nil
	}
	p := params{file: sc.File, text: sc.Text, vals: map[string]any{}}
	for k, v := range w.Params {
		p.vals[k] = v
	}
	for k, v := range overrides {
		p.vals[k] = v
	}
	p.axes = map[string]bool{}
	for k := range overrides {
		p.axes[k] = true
	}
	t, err := sc.generate(w.Generator, &p)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := p.unused(); err != nil {
		return nil, nil, nil, err
	}
	return t, nil, nil, nil
}

// gridParams names the extents of a stencil's process grid.
var gridParams = []string{"px", "py", "pz"}

// Generators lists the workload generators a scenario can name.
func Generators() []string { return []string{"stencil2d", "stencil3d", "sweep3d", "collective"} }

func (sc *Scenario) generate(name string, p *params) (*mpi.Trace, error) {
	switch name {
	case "stencil2d", "stencil3d":
		s := gen.Stencil{
			Iterations:     int(p.int("iterations", 10)),
			HaloBytes:      p.int("halo_bytes", 32768),
			ComputeNs:      p.int("compute_ns", 1000000),
			Imbalance:      p.str("imbalance", gen.ImbalanceNone),
			Balance:        p.float("balance", 1),
			Intensity:      p.float("intensity", 1),
			AllreduceBytes: p.int("allreduce_bytes", 8),
			Periodic:       p.bool("periodic", false),
			Sigma:          p.float("sigma", 0.15),
			Seed:           uint64(p.int("seed", int64(sc.Seed))),
		}
		p.zeroIsDefault("sigma")
		if int64(s.Seed) < 0 {
			return nil, p.bad("seed", fmt.Sprintf("want an integer ≥ 0, got %d", int64(s.Seed)))
		}
		s.Dims = []int{int(p.int("px", 4)), int(p.int("py", 4))}
		if name == "stencil3d" {
			s.Dims = append(s.Dims, int(p.int("pz", 2)))
		}
		for i, d := range s.Dims { // before ranks, which they multiply to
			if d < 1 {
				return nil, p.bad(gridParams[i], fmt.Sprintf("grid extent %d is not positive", d))
			}
		}
		if r := p.int("ranks", 0); p.has("ranks") {
			n := 1
			for _, d := range s.Dims {
				n *= d
			}
			if int64(n) != r {
				return nil, p.bad("ranks", fmt.Sprintf("%d ranks, but the process grid %v has %d", r, s.Dims, n))
			}
		}
		if err := p.needsImbalance(s.Imbalance); err != nil {
			return nil, err
		}
		if p.err != nil {
			return nil, p.err
		}
		t, err := s.Generate()
		if err != nil {
			return nil, p.genErr(err)
		}
		return t, nil
	case "sweep3d":
		s := gen.Sweep{Px: int(p.int("px", 4)), Py: int(p.int("py", 4)), Octants: int(p.int("octants", 8)),
			Blocks: int(p.int("blocks", 10)), ComputeNs: p.int("compute_ns", 100000), Bytes: p.int("bytes", 4096)}
		p.zeroIsDefault("octants")
		if p.err != nil {
			return nil, p.err
		}
		t, err := s.Generate()
		if err != nil {
			return nil, p.genErr(err)
		}
		return t, nil
	case "collective":
		kind, err := mpi.ParseKind(p.str("kind", "allreduce"))
		if err != nil {
			return nil, p.bad("kind", err.Error())
		}
		c := gen.Collective{Kind: kind, Ranks: int(p.int("ranks", 16)), CommSize: int(p.int("comm_size", 0)),
			Bytes: p.int("bytes", 1024), Root: int32(p.int("root", 0)), Reps: int(p.int("reps", 10)), GapNs: p.int("gap_ns", 0)}
		if p.err != nil {
			return nil, p.err
		}
		t, err := c.Generate()
		if err != nil {
			return nil, p.genErr(err)
		}
		return t, nil
	}
	return nil, sc.keyError("workload.generator", fmt.Sprintf("unknown generator %q (want %s)", name, strings.Join(Generators(), ", ")))
}

// params reads generator parameters from a free-form TOML table, reporting
// the first badly typed one and any left unused.
type params struct {
	file string
	text []byte // the scenario's, to name the line of a key
	vals map[string]any
	used map[string]bool
	err  error
	// axes holds the keys whose value is a sweep.params axis's. Where
	// imbalance is one, its points without a pattern keep the other
	// axes' balance and sigma (needsImbalance).
	axes map[string]bool
}

func (p *params) bad(key, msg string) error {
	k := "workload.params"
	if key != "" {
		k += "." + key
	}
	line := keyLine(p.text, strings.Split(k, "."))
	if (line == 0 || p.axes[key]) && key != "" { // a sweep.params axis
		if l := keyLine(p.text, []string{"sweep", "params", key}); l > 0 {
			k, line = "sweep.params."+key, l
		}
	}
	return &ParseError{File: p.file, Line: line, Key: k, Msg: msg}
}

// genErr is a generator's error at the parameter it names (a
// gen.ParamError), else at [workload.params].
func (p *params) genErr(err error) error {
	var pe *gen.ParamError
	if errors.As(err, &pe) {
		return p.bad(pe.Param, err.Error())
	}
	return p.bad("", err.Error())
}

// has reports whether the scenario gives key (in workload.params or as a
// sweep.params axis).
func (p *params) has(key string) bool {
	_, ok := p.vals[key]
	return ok
}

// zeroIsDefault refuses keys written as 0 whose generator would take 0
// for its default, silently.
func (p *params) zeroIsDefault(keys ...string) {
	for _, k := range keys {
		if v, ok := p.vals[k]; ok && p.err == nil && (v == int64(0) || v == float64(0)) {
			p.err = p.bad(k, "0: want a number > 0 (leave the key out for the default)")
		}
	}
}

// needsImbalance refuses the stencil keys that only some imbalance
// patterns read (gen.ImbalanceReaders) given with a pattern that does not:
// the points of a balance axis would all be one workload.
func (p *params) needsImbalance(pattern string) error {
	if p.err != nil || p.axes["imbalance"] {
		return p.err
	}
	if pattern == "" {
		pattern = gen.ImbalanceNone
	}
	if !slices.Contains([]string{gen.ImbalanceNone, gen.ImbalanceRandom, gen.ImbalanceCharged, gen.ImbalanceWavefront}, pattern) {
		return nil // the generator names the unknown pattern
	}
	for _, key := range gen.ImbalanceParams {
		if uses := gen.ImbalanceReaders(key); p.has(key) && !slices.Contains(uses, pattern) {
			return p.bad(key, fmt.Sprintf("has no effect with imbalance %q: it applies to %s", pattern, strings.Join(uses, ", ")))
		}
	}
	return nil
}

func (p *params) get(key string) (any, bool) {
	if p.used == nil {
		p.used = map[string]bool{}
	}
	p.used[key] = true
	v, ok := p.vals[key]
	return v, ok
}

func (p *params) int(key string, def int64) int64 {
	v, ok := p.get(key)
	if !ok {
		return def
	}
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
	}
	if p.err == nil {
		p.err = p.bad(key, fmt.Sprintf("want an integer, got %#v", v))
	}
	return def
}

func (p *params) float(key string, def float64) float64 {
	v, ok := p.get(key)
	if !ok {
		return def
	}
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			return x
		}
	}
	if p.err == nil {
		p.err = p.bad(key, fmt.Sprintf("want a finite number, got %#v", v))
	}
	return def
}

func (p *params) str(key, def string) string {
	v, ok := p.get(key)
	if !ok {
		return def
	}
	if s, ok := v.(string); ok {
		return s
	}
	if p.err == nil {
		p.err = p.bad(key, fmt.Sprintf("want a string, got %#v", v))
	}
	return def
}

func (p *params) bool(key string, def bool) bool {
	v, ok := p.get(key)
	if !ok {
		return def
	}
	if b, ok := v.(bool); ok {
		return b
	}
	if p.err == nil {
		p.err = p.bad(key, fmt.Sprintf("want true or false, got %#v", v))
	}
	return def
}

func (p *params) unused() error {
	var extra []string
	for k := range p.vals {
		if !p.used[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) == 0 {
		return nil
	}
	sort.Strings(extra)
	return p.bad(extra[0], "unknown parameter for this generator")
}

// flowNetwork returns the flow model of the scenario's network.topology
// for machine m running ranks ranks, nil without one. The block mapping
// puts m's ranks_per_node consecutive ranks on each node.
func (sc *Scenario) flowNetwork(m *Machine, ranks int) (*sim.FlowNetwork, error) {
	t := sc.Network.Topology
	if t == nil || sc.top == nil {
		return nil, nil
	}
	var mp []int32
	var err error
	switch t.Mapping {
	case "", "block":
		if need := (ranks + m.RanksPerNode - 1) / m.RanksPerNode; sc.top.NumLinks() > 0 && need > sc.top.Nodes() {
			return nil, sc.keyError("network.topology", fmt.Sprintf("machine %s needs %d nodes for %d ranks; the topology %s has %d", m.Name, need, ranks, sc.top, sc.top.Nodes()))
		}
		mp = make([]int32, ranks)
		for r := range mp {
			mp[r] = int32(r / m.RanksPerNode)
		}
	default:
		how := t.Mapping
		if how != "round-robin" {
			how = sc.path(how)
		}
		if mp, err = topo.Map(how, ranks, sc.top); err != nil {
			return nil, sc.keyError("network.topology.mapping", err.Error())
		}
	}
	return &sim.FlowNetwork{Topology: sc.top, Mapping: mp, Neighbours: t.Neighbours, CM02: t.CM02, BytesFirst: t.BytesFirst}, nil
}
