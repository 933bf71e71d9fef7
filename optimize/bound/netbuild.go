package bound

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
)

// netBuild is one Net.build: the DAG being written, its vertex times and
// names, and the vertices of every operation.
type netBuild struct {
	n     *Net
	rec   *Record
	g     *graph.Graph
	d     *DAG
	times []float64 // per vertex, its time in the record (seconds)
	// Vertex names, read only when an error names a vertex: per vertex,
	// its operation and what of it the vertex is (a role).
	vop   []int32
	vrole []uint8
	B     []int32 // start: calc, send start; recv post
	E     []int32 // calc end; send CPU end; recv completion
	Kn    []int32 // send NIC end
	Mp    []int32 // per send: message processing
	Kpc   []int32 // per send: receiver CPU end of the processing
	Kpn   []int32 // per send: receiver NIC end of the processing
}

// build writes the DAG whose orders are rec's, and returns it with the
// task of every calc and rec's vertex times (seconds).
func (n *Net) build(rec *Record) (*DAG, []int32, []float64, error) {
	nb := &netBuild{n: n, rec: rec, g: rec.g, d: &DAG{Init: 0, Fin: 1, Vertices: 2}}
	nb.alloc()
	if err := nb.opVertices(); err != nil {
		return nil, nil, nil, err
	}
	nb.recvEdges()
	if err := nb.depEdges(); err != nil {
		return nil, nil, nil, err
	}
	lo := len(nb.d.Messages)
	cpuVal := nb.chainEdges()
	nb.postEdges(cpuVal)
	nb.n.res.Edges = [2]int{lo, len(nb.d.Messages)}
	taskOp := nb.tasks()
	d := nb.d
	g, vop, vrole := nb.g, nb.vop, nb.vrole
	d.nameOf = func(v int) string {
		switch {
		case v == d.Init:
			return "init"
		case v == d.Fin:
			return "fin"
		case v < 0 || v >= len(vop):
			return ""
		}
		return g.Describe(vop[v]) + " " + vertexRoles[vrole[v]]
	}
	return d, taskOp, nb.times, d.Validate()
}

// alloc sizes the DAG's vertices and edges for at most what build
// writes, allocated once: on 4.4 M vertices and 9.4 M edges (32 ranks ×
// 2,000 iterations) growing the slices cost 2 s of copying and page
// faults.
func (nb *netBuild) alloc() {
	g, rec := nb.g, nb.rec
	nops := g.NumOps()
	nv, ne := 2, 0
	for op := int32(0); op < int32(nops); op++ {
		deps, _ := g.Deps(op)
		ne += max(len(deps), 1)
		switch g.Kind[op] {
		case graph.Calc:
			nv, ne = nv+2, ne+1
		case graph.Send:
			nv, ne = nv+6, ne+5
		case graph.Recv:
			nv, ne = nv+2, ne+3 // its post on the CPU's clock too
		}
	}
	for c := range rec.chains {
		for _, items := range rec.chains[c] {
			ne += 2*len(items) + 1
			for _, it := range items {
				if it.kind == sim.StepRendezvous {
					nv++
				}
			}
		}
	}
	nb.d.Messages = make([]Message, 0, ne)
	nb.times = make([]float64, 2, nv)
	nb.times[1] = float64(rec.Makespan) / 1e9
	nb.vop, nb.vrole = make([]int32, 2, nv), make([]uint8, 2, nv)
	nb.vop[0], nb.vop[1] = -1, -1
	nb.B = make([]int32, nops)
	nb.n.lastStart = nb.B
	nb.E = make([]int32, nops)
	nb.Kn = make([]int32, nops)
	nb.Mp = make([]int32, nops)
	nb.n.lastProc = nb.Mp
	nb.Kpc = make([]int32, nops)
	nb.Kpn = make([]int32, nops)
}

// vert adds a vertex of operation op in role at ns in the record.
func (nb *netBuild) vert(op int32, role uint8, ns int64) int {
	nb.d.Vertices++
	nb.vop, nb.vrole = append(nb.vop, op), append(nb.vrole, role)
	nb.times = append(nb.times, float64(ns)/1e9)
	return nb.d.Vertices - 1
}

// edge adds a fixed edge of w ns from vertex a to b (none where either is
// missing, −1).
func (nb *netBuild) edge(a, b int, w int64) {
	if a >= 0 && b >= 0 {
		nb.d.Messages = append(nb.d.Messages, Message{Src: a, Dst: b, Time: float64(w) / 1e9})
	}
}

// params are the network parameters of a send's class.
func (nb *netBuild) params(send int32) network.LogGOPS {
	if c := nb.n.opt.Classes; c != nil {
		return c.Params[c.Of[send]]
	}
	return nb.n.net
}

// opVertices adds every operation's vertices and the fixed edges within
// it: a calc's start and end, a send's CPU and NIC ends and its message's
// processing on the receiver's CPU and NIC, a receive's post and
// completion.
func (nb *netBuild) opVertices() error {
	g, rec := nb.g, nb.rec
	B, E := nb.B, nb.E
	for op := int32(0); op < int32(g.NumOps()); op++ {
		B[op], E[op], nb.Kn[op], nb.Mp[op], nb.Kpc[op], nb.Kpn[op] = -1, -1, -1, -1, -1, -1
		if rec.start[op] < 0 {
			return fmt.Errorf("bound: %s never started in the replay", g.Describe(op))
		}
		B[op] = int32(nb.vert(op, roleStart, rec.start[op]))
		switch g.Kind[op] {
		case graph.Calc:
			E[op] = int32(nb.vert(op, roleEnd, rec.end[op]))
		case graph.Send:
			if err := nb.sendVertices(op); err != nil {
				return err
			}
		case graph.Recv:
			if rec.comp[op] < 0 || rec.match[op] < 0 {
				return fmt.Errorf("bound: %s never completed in the replay", g.Describe(op))
			}
			E[op] = int32(nb.vert(op, roleComplete, rec.comp[op]))
		}
	}
	return nil
}

// sendVertices adds send op's vertices and edges after its start.
func (nb *netBuild) sendVertices(op int32) error {
	g, rec := nb.g, nb.rec
	B := nb.B
	p := nb.params(op)
	s := g.Size[op]
	if busy := p.Overhead + p.OverheadPerByte.Charge(s); busy >= 0 {
		nb.E[op] = int32(nb.vert(op, roleCPUEnd, rec.end[op]))
		nb.edge(int(B[op]), int(nb.E[op]), busy)
	}
	if gap := nb.sendGap(op, p); gap >= 0 {
		nb.Kn[op] = int32(nb.vert(op, roleNICEnd, rec.nicEnd[op]))
		nb.edge(int(B[op]), int(nb.Kn[op]), gap)
	}
	if rec.proc[op] < 0 {
		return fmt.Errorf("bound: the message of %s was never received in the replay", g.Describe(op))
	}
	nb.Mp[op] = int32(nb.vert(op, roleReceived, rec.proc[op]))
	flight, busyR, gapR := nb.arrival(op, p)
	nb.edge(int(B[op]), int(nb.Mp[op]), flight)
	if busy := busyR; busy >= 0 {
		nb.Kpc[op] = int32(nb.vert(op, roleMsgCPUEnd, rec.procCPU[op]))
		nb.edge(int(nb.Mp[op]), int(nb.Kpc[op]), busy)
	}
	if gap := gapR; gap >= 0 {
		nb.Kpn[op] = int32(nb.vert(op, roleMsgNICEnd, rec.procNIC[op]))
		nb.edge(int(nb.Mp[op]), int(nb.Kpn[op]), gap)
	}
	return nil
}

// sendGap is how long send op, of parameters p, holds its NIC's send
// side: g + (s+H−1)·G, or g alone where the links of a topology carry the
// bytes (GraphOptions.Flow).
func (nb *netBuild) sendGap(op int32, p network.LogGOPS) int64 {
	if nb.n.routes != nil {
		return p.Gap
	}
	return p.Gap + p.GapPerByte.Charge(network.WireBytes(nb.g.Size[op], p.HeaderBytes))
}

// arrival prices the message of send op, of parameters p, as the engine
// does: the least time from the send's start to its processing at the
// receiver (flight), and how long that processing holds the receiver's
// CPU and NIC. With w = s + H the message's bytes on the wire, under
// LogGOPS the flight is o + L, the CPU o + max((s−1)·O, (w−1)·G) and the
// NIC g + (w−1)·G; under its LogGP variant the bytes are in flight,
// o + L + (w−1)·G, and the CPU o + (s−1)·O; over a topology's links
// (GraphOptions.Flow) the flight is the flow's uncontended route cost of
// w bytes (sim.RoutePrices.Flight), the CPU o + (s−1)·O and the NIC g.
func (nb *netBuild) arrival(op int32, p network.LogGOPS) (flight, cpu, nic int64) {
	s := nb.g.Size[op]
	w := network.WireBytes(s, p.HeaderBytes)
	if r := nb.n.routes; r != nil {
		flight = r.Flight(int32(nb.g.RankOf(op)), nb.g.Peer[op], w, p.Overhead+p.Latency, p.GapPerByte)
		return flight, p.Overhead + max(0, p.OverheadPerByte.Charge(s)), p.Gap
	}
	flight, cpu, nic = p.Overhead+p.Latency, p.Overhead+network.RecvCharge(s, w, p.OverheadPerByte, p.GapPerByte), p.Gap+p.GapPerByte.Charge(w)
	if nb.n.net.LogGP { // bytes in flight, no G at the receiver's CPU
		flight += max(0, p.GapPerByte.Charge(w))
		cpu = p.Overhead + max(0, p.OverheadPerByte.Charge(s))
	}
	return flight, cpu, nic
}

// recvEdges makes a receive complete after its post and its message's
// processing. On ranks of several CPUs of a graph that is not causal
// (see depEdges) the engine completes a receive at the time of the later
// of the two in its order of events, which can be the earlier in time
// (the other happened at a CPU's clock ahead of it): there the receive
// completes after that one alone.
func (nb *netBuild) recvEdges() {
	g, rec := nb.g, nb.rec
	both := g.Causal || rec.ncpu == 1
	for op := int32(0); op < int32(g.NumOps()); op++ {
		if g.Kind[op] == graph.Recv {
			if both || rec.atPost[op] {
				nb.edge(int(nb.B[op]), int(nb.E[op]), 0)
			}
			if both || !rec.atPost[op] {
				nb.edge(int(nb.Mp[rec.match[op]]), int(nb.E[op]), 0)
			}
		}
	}
}

// sat is the vertex at which dependency dep of kind satisfies its
// dependents.
func (nb *netBuild) sat(dep int32, kind graph.DepKind) int {
	if kind == graph.Irequires {
		return int(nb.B[dep])
	}
	switch nb.g.Kind[dep] {
	case graph.Recv:
		return int(nb.E[dep])
	case graph.Send:
		if nb.rec.rdv[dep] >= 0 {
			return int(nb.E[nb.rec.match[dep]])
		}
	}
	return int(nb.B[dep])
}

// depEdges adds the graph's dependencies: an operation starts after what
// it depends on (where it depends on nothing, after its rank's start:
// Init plus graph.Graph.StartNs). On ranks of several CPUs of a graph
// that is not causal (graph.Graph.Causal) the engine queues a released
// operation at its own CPU's clock, which can be earlier than its
// release: a receive completed by a message processed on another CPU
// (the sender's CPU number, as in LogGOPSim) releases its dependents at
// that CPU's later clock. There a dependency bounds nothing the CPU
// chains and the clock a receive read when posted (postEdges) do not
// already bound, so its row is left out: the engine's own replay
// breaks it.
func (nb *netBuild) depEdges() error {
	g, rec, d := nb.g, nb.rec, nb.d
	released := g.Causal || rec.ncpu == 1
	for op := int32(0); op < int32(g.NumOps()); op++ {
		deps, kinds := g.Deps(op)
		if len(deps) == 0 {
			nb.edge(d.Init, int(nb.B[op]), g.RankStartNs(g.RankOf(op)))
		}
		for j, dep := range deps {
			if g.Kind[dep] == graph.Send && kinds[j] == graph.Requires && rec.rdv[dep] < 0 && rec.match[dep] >= 0 && g.Size[dep] > nb.params(dep).EagerLimit {
				return fmt.Errorf("bound: %s waits on a rendezvous send that never completed", g.Describe(op))
			}
			if released {
				nb.edge(nb.sat(dep, kinds[j]), int(nb.B[op]), 0)
			}
		}
	}
	return nil
}

// chainEdges adds the resource chains: every operation reads its
// resource's clock, the value its previous item left, the first one its
// rank's start (Init plus graph.Graph.StartNs; the engine's clocks start
// there). It returns, per CPU slot and item, the clock's vertex after it,
// and keeps the chains' items as the Net's Resources.
func (nb *netBuild) chainEdges() (cpuVal [][]int32) {
	rec := nb.rec
	nb.n.res = &Resources{}
	for c := range rec.chains {
		if c == chainCPU {
			cpuVal = make([][]int32, len(rec.chains[c]))
		}
		per := len(rec.chains[c]) / max(1, nb.g.NumRanks()) // CPUs or NICs a rank
		for slot, items := range rec.chains[c] {
			prev, w := -1, int64(0)
			if st := nb.g.RankStartNs(slot / per); st > 0 {
				prev, w = nb.d.Init, st // the clock starts at the rank's start
			}
			spans := make([]Span, 0, len(items))
			for _, it := range items {
				if sp, ok := nb.span(c, it); ok {
					spans = append(spans, sp)
				}
				val := nb.chainItem(c, it, prev, w)
				prev, w = val, 0
				if c == chainCPU {
					cpuVal[slot] = append(cpuVal[slot], int32(val))
				}
			}
			if c == chainCPU {
				nb.edge(prev, nb.d.Fin, w)
			}
			nb.n.res.add(fmt.Sprintf("%s slot %d", chainNames[c], slot), c == chainCPU, spans)
		}
	}
	return cpuVal
}

// span is the time item it of chain c holds its resource, from its
// start to its end vertex; a rendezvous is none (resources.go).
func (nb *netBuild) span(c int, it item) (Span, bool) {
	op := it.op
	switch it.kind {
	case sim.StepCalc:
		return Span{nb.B[op], nb.E[op]}, nb.E[op] >= 0
	case sim.StepSend:
		if c == chainNICSend {
			return Span{nb.B[op], nb.Kn[op]}, nb.Kn[op] >= 0
		}
		return Span{nb.B[op], nb.E[op]}, nb.E[op] >= 0
	case sim.StepProcess:
		if c == chainNICRecv {
			return Span{nb.Mp[op], nb.Kpn[op]}, nb.Kpn[op] >= 0
		}
		return Span{nb.Mp[op], nb.Kpc[op]}, nb.Kpc[op] >= 0
	}
	return Span{}, false
}

// chainItem adds item it of a chain c at least w ns after the clock's
// vertex prev and returns the clock's vertex after it.
func (nb *netBuild) chainItem(c int, it item, prev int, w int64) int {
	op := it.op
	switch it.kind {
	case sim.StepCalc:
		nb.edge(prev, int(nb.B[op]), w)
		return int(nb.E[op])
	case sim.StepSend:
		nb.edge(prev, int(nb.B[op]), w)
		if c == chainNICSend {
			return int(nb.Kn[op])
		}
		return int(nb.E[op])
	case sim.StepProcess:
		nb.edge(prev, int(nb.Mp[op]), w)
		if c == chainNICRecv {
			return int(nb.Kpn[op])
		}
		return int(nb.Kpc[op])
	case sim.StepRendezvous:
		at := int(nb.E[nb.rec.match[op]]) // the receive's completion
		t := nb.times[at]
		if prev >= 0 {
			t = math.Max(t, nb.times[prev]+float64(w)/1e9)
		}
		val := nb.vert(op, roleRendezvous+uint8(c), int64(math.Round(t*1e9)))
		nb.edge(prev, val, w)
		nb.edge(at, val, 0)
		return val
	}
	return 0
}

// postEdges posts a receive when it is queued, at its CPU's clock then.
func (nb *netBuild) postEdges(cpuVal [][]int32) {
	g, rec := nb.g, nb.rec
	for op := int32(0); op < int32(g.NumOps()); op++ {
		if g.Kind[op] != graph.Recv {
			continue
		}
		slot := g.RankOf(op)*rec.ncpu + int(g.CPU[op])
		if k := rec.relPos[op]; k > 0 {
			nb.edge(int(cpuVal[slot][k-1]), int(nb.B[op]), 0)
		}
	}
}

// tasks makes every calc a task with its hull, or a fixed length, with
// each rank's idle power before its first task and its wait power after
// its tasks, and returns every task's calc operation.
func (nb *netBuild) tasks() (taskOp []int32) {
	n, g, rec, d := nb.n, nb.g, nb.rec, nb.d
	first := make([]int, g.NumRanks())
	last := make([]int, g.NumRanks())
	for r := range first {
		first[r], last[r] = -1, -1
	}
	for op := int32(0); op < int32(g.NumOps()); op++ {
		if g.Kind[op] != graph.Calc {
			continue
		}
		h := n.hull[op]
		if h == nil {
			nb.edge(int(nb.B[op]), int(nb.E[op]), rec.end[op]-rec.start[op])
			continue
		}
		r := g.RankOf(op)
		ev := -1
		if n.opt.Event != nil {
			ev = n.opt.Event(op)
		}
		i := len(d.Tasks)
		d.Tasks = append(d.Tasks, Task{Rank: r, Src: int(nb.B[op]), Dst: int(nb.E[op]), Hull: h, Event: ev})
		taskOp = append(taskOp, op)
		if last[r] >= 0 {
			n.endWait(d, last[r], taskOp[last[r]], int(nb.B[op]))
		} else {
			first[r] = i
		}
		last[r] = i
	}
	for r := range first {
		switch {
		case first[r] < 0:
			if n.opt.IdleW > 0 {
				d.Loads = append(d.Loads, Load{Rank: r, Src: d.Init, Dst: d.Fin, W: n.opt.IdleW})
			}
			continue
		case n.opt.IdleW > 0 && d.Tasks[first[r]].Src != d.Init:
			d.Loads = append(d.Loads, Load{Rank: r, Src: d.Init, Dst: d.Tasks[first[r]].Src, W: n.opt.IdleW})
		}
		n.endWait(d, last[r], taskOp[last[r]], d.Fin)
	}
	return taskOp
}
