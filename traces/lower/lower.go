// Package lower turns an MPI trace (package traces/mpi) into the execution
// graph (package traces/graph) that the replay engine runs, choosing an
// algorithm for every collective.
//
// Program order becomes dependencies. A compute region or a blocking call
// requires everything before it on its rank to have completed. A
// nonblocking Isend or Irecv requires the same, but later operations do not
// wait for it: they only start after it has started (irequires), which
// keeps posting order, until a Wait or Waitall makes the next operation
// require its completion. Collectives expand into point-to-point messages
// between the members of their communicator; the rounds of an algorithm
// depend on each other as data flows through them.
//
// Tags keep communicators apart, as MPI's contexts do. A point-to-point
// message with user tag t (0 ≤ t < MaxUserTag) on communicator c carries
// tag c·2^20 + t. Collective messages carry CollectiveTagBase + c·2^20 +
// s·TagsPerCall + i, where s is the collective's sequence number on c
// (modulo 2^20/TagsPerCall) and i the parallel part (channel, tree) of an
// NCCL algorithm that sends it (0 for every other algorithm), so
// collectives never match user messages, each other or another part of
// themselves. A receive with MPI_ANY_TAG matches any tag from its source.
package lower

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// CollectiveTagBase is the first tag used by lowered collectives.
const CollectiveTagBase int32 = 1 << 30

// MaxUserTag bounds the tags of point-to-point calls in a trace.
const MaxUserTag int32 = 1 << 20

// partBits is log2(TagsPerCall): the tag bits of a collective's parallel
// part.
const partBits = 8

// Algorithm names, per collective kind; the first one listed is the default.
// Besides these, every kind takes the selectors "openmpi", "mpich" and
// "nccl", which choose one of them per call as those libraries do
// (selector.go, nccl.go).
//
// "schedgen" reproduces, operation for operation and dependency for
// dependency, the schedule LogGOPSim's schedgen writes for the collective
// when it converts a liballprof trace: dissemination with 1-byte messages
// for barriers and with the payload for allreduce and allgather, binomial
// trees sending to the nearest child first (root swapped with rank 0) for
// bcast and reduce, and a linear exchange for alltoall.
var algorithms = map[mpi.Kind][]string{
	mpi.Barrier:       {"dissemination", "linear", "schedgen"},
	mpi.Bcast:         {"binomial", "linear", "schedgen", "scatter-rdb-allgather", "scatter-ring-allgather", "pipeline", ncclRing},
	mpi.Reduce:        {"binomial", "linear", "schedgen", ncclRing},
	mpi.Allreduce:     {"recdoub", "ring", "reduce-bcast", "schedgen", "rabenseifner", ncclRing, ncclTree},
	mpi.Allgather:     {"ring", "linear", "schedgen", "bruck", "recdoub", "neighbor", "shift", ncclRing},
	mpi.Alltoall:      {"pairwise", "linear", "schedgen", "pairwise-xor", "bruck", ncclP2P},
	mpi.Alltoallv:     {"pairwise", "linear", "pairwise-xor", ncclP2P},
	mpi.Gather:        {"linear", "binomial"},
	mpi.Scatter:       {"linear", "binomial"},
	mpi.ReduceScatter: {"ring", "reduce-scatter", "pairwise", "rechalving", ncclRing},
	mpi.Scan:          {"linear", "recdoub"},
}

// Algorithms returns the algorithm names available for a collective kind,
// the default first and the selectors last.
func Algorithms(k mpi.Kind) []string {
	if _, ok := algorithms[k]; !ok {
		return nil
	}
	return append(append([]string(nil), algorithms[k]...), SelectOpenMPI, SelectMPICH, SelectNCCL)
}

// Options controls lowering.
type Options struct {
	// Algorithm maps a collective kind to an algorithm name; kinds left
	// out use their default.
	Algorithm map[mpi.Kind]string
	// ReduceNsPerByte is the compute cost of combining received data in
	// reductions (reduce, allreduce, reduce_scatter, scan), in ns per byte.
	ReduceNsPerByte float64
	// Channels is the number of channels NCCL's algorithms split a
	// collective across (each runs the algorithm on its share of the
	// bytes, independently of the others); 0 means 1.
	Channels int
	// ChunkBytes is the pipeline chunk of NCCL's tree and chain
	// algorithms, in bytes; 0 means DefaultChunkBytes.
	ChunkBytes int64
	// RanksPerNode, IntraLink and BusBytesPerNs are the inputs of NCCL's
	// tuning model (TuneNCCL) for the nccl selector: ranks sit on nodes
	// in blocks of RanksPerNode (rank r on node r/RanksPerNode), joined
	// within a node by links of kind IntraLink, and a collective's bus
	// bandwidth is BusBytesPerNs (all channels together, in bytes/ns;
	// 1/G of a LogGP network). With RanksPerNode and BusBytesPerNs both
	// positive the selector runs an allreduce with the algorithm (ring or
	// tree) the model predicts fastest; otherwise it takes the ring.
	RanksPerNode  int
	IntraLink     Link
	BusBytesPerNs float64
}

// ParseAlgorithms reads a spec such as "allreduce=ring,bcast=binomial" or
// "openmpi,alltoall=bruck": comma-separated items applied in order, each
// COLLECTIVE=ALGORITHM, or a selector ("openmpi", "mpich", "nccl") for every
// collective, or "default", which drops what came before so that every
// collective takes its default (the trace format's choice, else the first
// of Algorithms). A collective named twice (after the last "default") is
// refused: the spec does not say which algorithm was meant.
func ParseAlgorithms(spec string) (map[mpi.Kind]string, error) {
	m := map[mpi.Kind]string{}
	if strings.TrimSpace(spec) == "" {
		return m, nil
	}
	given := map[mpi.Kind]bool{} // a kind named twice is a typo: which one was meant?
	for _, kv := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			switch k {
			case "default":
				clear(m)
				clear(given)
				continue
			case SelectOpenMPI, SelectMPICH, SelectNCCL:
				for kind := range algorithms {
					m[kind] = k
				}
				continue
			}
			return nil, fmt.Errorf("collective spec %q: %q is not COLLECTIVE=ALGORITHM, openmpi, mpich or default", spec, kv)
		}
		kind, err := mpi.ParseKind(strings.TrimSpace(k))
		if err != nil || !kind.IsCollective() {
			return nil, fmt.Errorf("collective spec %q: %q is not a collective", spec, k)
		}
		v = strings.TrimSpace(v)
		if !known(kind, v) {
			return nil, fmt.Errorf("collective spec %q: %s has no algorithm %q (have %s)", spec, kind, v, strings.Join(Algorithms(kind), ", "))
		}
		if given[kind] {
			return nil, fmt.Errorf("collective spec %q: %s given twice", spec, kind)
		}
		given[kind] = true
		m[kind] = v
	}
	return m, nil
}

func known(k mpi.Kind, alg string) bool {
	if _, ok := algorithms[k]; ok && (alg == SelectOpenMPI || alg == SelectMPICH || alg == SelectNCCL) {
		return true
	}
	for _, a := range algorithms[k] {
		if a == alg {
			return true
		}
	}
	return false
}

// Error is a lowering error naming the rank and the event index.
type Error struct {
	Rank, Event int
	Msg         string
	// Source is where the event was read (mpi.Trace.Source: "FILE:LINE",
	// "FILE record K"), "" when the trace does not say.
	Source string
}

func (e *Error) Error() string {
	if e.Source != "" {
		return fmt.Sprintf("rank %d event %d (%s): %s", e.Rank, e.Event, e.Source, e.Msg)
	}
	return fmt.Sprintf("rank %d event %d: %s", e.Rank, e.Event, e.Msg)
}

// sourced sets the Source of the *Error err is, from t.
func sourced(err error, t *mpi.Trace) error {
	if e, ok := err.(*Error); ok && e.Source == "" {
		e.Source = t.Source(e.Rank, e.Event)
	}
	return err
}

// at is " (FILE:LINE)" for event i of rank r of t, "" when t does not say
// where it was read.
func at(t *mpi.Trace, r, i int) string {
	if s := t.Source(r, i); s != "" {
		return " (" + s + ")"
	}
	return ""
}

// perMember reports whether a collective of kind k moves its payload
// once per member (a block each member sends or receives), so that the
// members' blocks together are the payload times the group's size.
func perMember(k mpi.Kind) bool {
	switch k {
	case mpi.Allgather, mpi.Gather, mpi.Scatter, mpi.Alltoall:
		return true
	}
	return false
}

// tooLarge says what is wrong with a collective of kind k on p members
// whose blocks of bytes each add up to more than an int64 holds ("gather
// of N bytes per member: the 4 blocks together are more than 2^63−1
// bytes"), or "".
func tooLarge(k mpi.Kind, bytes int64, p int32) string {
	if !perMember(k) || p < 1 || bytes <= math.MaxInt64/int64(p) {
		return ""
	}
	return fmt.Sprintf("%s of %d bytes per member: the %d blocks together are more than 2^63−1 bytes", k, bytes, p)
}

// collCall names a collective call of kind k as it is told apart from
// another: with its root for rooted kinds ("bcast (root 2)").
func collCall(k mpi.Kind, root int32) string {
	if k.IsRooted() {
		return fmt.Sprintf("%s (root %d)", k, root)
	}
	return k.String()
}

// collKey identifies one collective call: its communicator and its
// sequence number among that communicator's collectives.
type collKey struct {
	comm int32
	seq  int
}

// instance is one collective as called by all members.
type instance struct {
	kind   mpi.Kind
	root   int32
	bytes  int64
	first  int   // the world rank whose call made the instance
	firstI int   // that call's event index on rank first
	events []int // event index per member (communicator rank order)
	lists  [][]int64
}

// rankState tracks one rank's program while its events are lowered.
type rankState struct {
	rank    int
	last    []int32 // ops the next operation must require
	started int32   // a nonblocking op the next operation must irequire, or -1
	region  int32   // graph region of the event being lowered (NoRegion: none)
	cpu     uint8   // CPU and NIC of every operation the rank adds
	nic     uint8
	reqs    map[int64]int32
}

type lowerer struct {
	t     *mpi.Trace
	opt   Options
	b     *graph.Builder
	comms map[int32]*mpi.Communicator
	// commRank[comm][world rank] = rank within the communicator
	commRank map[int32]map[int32]int32
	inst     map[collKey]*instance
	ranks    []rankState
}

// Lower lowers trace t into an execution graph.
func Lower(t *mpi.Trace, opt Options) (*graph.Graph, error) {
	g, _, err := LowerMapped(t, opt)
	return g, err
}

// EventMap says which operations of the graph each trace event became:
// event i of rank r became operations Start[r][i] up to (not including)
// Start[r][i+1], as graph-wide ids; waits and empty collectives become
// none. Start[r] has len(events)+1 entries.
type EventMap struct {
	Start [][]int32
}

// Ops returns the operation ids of event i of rank r.
func (m *EventMap) Ops(r, i int) (from, to int32) { return m.Start[r][i], m.Start[r][i+1] }

// Event returns the event (rank r, index i in its events) that operation
// op was lowered from; ok is false for an operation no event produced.
func (m *EventMap) Event(op int32) (r, i int, ok bool) {
	for r, st := range m.Start {
		if len(st) == 0 || op < st[0] || op >= st[len(st)-1] {
			continue
		}
		// st is non-decreasing: the event i with st[i] ≤ op < st[i+1].
		i := sort.Search(len(st), func(j int) bool { return st[j] > op }) - 1
		return r, i, true
	}
	return 0, 0, false
}

// Describer returns a function that names operation op of g, lowered from
// t with this map, in MPI terms: the call it came from (rank, call, peer,
// tag, communicator and where it was read, as mpi.Trace.Describe names
// it), then the lowered operation. For error messages such as
// sim.DeadlockError's.
func (m *EventMap) Describer(t *mpi.Trace, g *graph.Graph) func(op int32) string {
	return func(op int32) string {
		r, i, ok := m.Event(op)
		if !ok {
			return g.Describe(op)
		}
		return t.Describe(r, i) + collectiveCall(t, r, i) + "; lowered to " + g.Describe(op)
	}
}

// LowerMapped is Lower that also returns which operations each event
// became, to relate replay observations back to the trace (as the
// replay-calibrated LP bound does).
func LowerMapped(t *mpi.Trace, opt Options) (*graph.Graph, *EventMap, error) {
	if len(t.Algorithms) > 0 { // the format's choice where opt names none
		all := make(map[mpi.Kind]string, len(t.Algorithms)+len(opt.Algorithm))
		for k, a := range t.Algorithms {
			all[k] = a
		}
		for k, a := range opt.Algorithm {
			all[k] = a
		}
		opt.Algorithm = all
	}
	for k, a := range opt.Algorithm {
		if !known(k, a) {
			return nil, nil, fmt.Errorf("lower: %s has no algorithm %q", k, a)
		}
	}
	if err := opt.check(); err != nil {
		return nil, nil, err
	}
	l := &lowerer{t: t, opt: opt, b: graph.NewBuilder(len(t.Ranks)), comms: map[int32]*mpi.Communicator{},
		commRank: map[int32]map[int32]int32{}, inst: map[collKey]*instance{}}
	if err := l.indexComms(); err != nil {
		return nil, nil, err
	}
	if err := l.matchCollectives(); err != nil {
		return nil, nil, sourced(err, t)
	}
	for _, name := range t.Regions[min(1, len(t.Regions)):] {
		l.b.Region(name) // graph region i is trace region i+1
	}
	l.ranks = make([]rankState, len(t.Ranks))
	m := &EventMap{Start: make([][]int32, len(t.Ranks))}
	for r := range t.Ranks {
		l.ranks[r] = rankState{rank: r, started: -1, reqs: map[int64]int32{}}
		m.Start[r] = make([]int32, len(t.Ranks[r].Events)+1)
		if err := l.lowerRank(r, m.Start[r]); err != nil {
			return nil, nil, sourced(err, t)
		}
	}
	g, err := l.b.Build()
	if err != nil {
		return nil, nil, err
	}
	if err := t.Recorded.Validate(g.NumRanks()); err != nil {
		return nil, nil, fmt.Errorf("lower: %w", err)
	}
	if err := graph.ValidateStarts(t.StartNs, g.NumRanks()); err != nil {
		return nil, nil, fmt.Errorf("lower: %w", err)
	}
	g.Recorded, g.StartNs = t.Recorded, t.StartNs
	for r, st := range m.Start {
		for i := range st {
			st[i] += g.RankStart[r]
		}
	}
	return g, m, nil
}

func (l *lowerer) indexComms() error {
	n := int32(len(l.t.Ranks))
	for i := range l.t.Comms {
		c := &l.t.Comms[i]
		if _, dup := l.comms[c.ID]; dup {
			return fmt.Errorf("lower: communicator %d defined twice", c.ID)
		}
		if len(c.Members) == 0 {
			return fmt.Errorf("lower: communicator %d (%s) has no members", c.ID, c.Name)
		}
		if c.ID < 0 || c.ID >= 1<<10 {
			return fmt.Errorf("lower: communicator id %d outside 0..1023", c.ID)
		}
		idx := make(map[int32]int32, len(c.Members))
		for j, w := range c.Members {
			if w < 0 || w >= n {
				return fmt.Errorf("lower: communicator %d member %d is not a rank (0..%d)", c.ID, w, n-1)
			}
			if _, dup := idx[w]; dup {
				return fmt.Errorf("lower: communicator %d lists rank %d twice", c.ID, w)
			}
			idx[w] = int32(j)
		}
		l.comms[c.ID] = c
		l.commRank[c.ID] = idx
	}
	return nil
}

// matchCollectives pairs up the collective calls of every communicator's
// members by sequence number and checks that they agree.
func (l *lowerer) matchCollectives() error {
	for r := range l.t.Ranks {
		seq := map[int32]int{}
		rk := &l.t.Ranks[r]
		for i := range rk.Events {
			e := &rk.Events[i]
			if !e.Kind.IsCollective() {
				continue
			}
			c, ok := l.comms[e.Comm]
			if !ok {
				return &Error{Rank: r, Event: i, Msg: fmt.Sprintf("%s on unknown communicator %d", e.Kind, e.Comm)}
			}
			me, ok := l.commRank[e.Comm][int32(r)]
			if !ok {
				return &Error{Rank: r, Event: i, Msg: fmt.Sprintf("%s on communicator %d, which rank %d is not a member of", e.Kind, e.Comm, r)}
			}
			p := int32(len(c.Members))
			if e.Kind.IsRooted() && (e.Peer < 0 || e.Peer >= p) {
				return &Error{Rank: r, Event: i, Msg: fmt.Sprintf("%s root %d is not a rank of communicator %d (size %d)", e.Kind, e.Peer, e.Comm, p)}
			}
			if e.Bytes < 0 {
				return &Error{Rank: r, Event: i, Msg: fmt.Sprintf("%s with negative size %d", e.Kind, e.Bytes)}
			}
			if msg := tooLarge(e.Kind, e.Bytes, p); msg != "" {
				return &Error{Rank: r, Event: i, Msg: fmt.Sprintf("%s on communicator %d", msg, e.Comm)}
			}
			key := collKey{e.Comm, seq[e.Comm]}
			seq[e.Comm]++
			in, ok := l.inst[key]
			if !ok {
				in = &instance{kind: e.Kind, root: e.Peer, bytes: e.Bytes, first: r, firstI: i, events: make([]int, p), lists: make([][]int64, p)}
				for j := range in.events {
					in.events[j] = -1
				}
				l.inst[key] = in
			} else if in.kind != e.Kind || (e.Kind.IsRooted() && in.root != e.Peer) {
				return &Error{Rank: r, Event: i, Msg: fmt.Sprintf("collective call #%d on communicator %d is %s here but %s on rank %d%s: every member makes the same call",
					key.seq+1, e.Comm, collCall(e.Kind, e.Peer), collCall(in.kind, in.root), in.first, at(l.t, in.first, in.firstI))}
			} else if err := in.sameSize(key, r, e, at(l.t, in.first, in.firstI)); err != "" {
				return &Error{Rank: r, Event: i, Msg: err}
			}
			in.events[me] = i
			if e.Kind == mpi.Alltoallv {
				list := l.t.List(r, e)
				if int32(len(list)) != p {
					return &Error{Rank: r, Event: i, Msg: fmt.Sprintf("alltoallv lists %d sizes for a communicator of %d", len(list), p)}
				}
				var sum int64
				for _, b := range list {
					if b < 0 {
						return &Error{Rank: r, Event: i, Msg: "alltoallv with a negative size"}
					}
					if sum += b; sum < 0 {
						return &Error{Rank: r, Event: i, Msg: "alltoallv whose sizes add up to more than 2^63−1 bytes"}
					}
				}
				in.lists[me] = list
			}
		}
	}
	keys := make([]collKey, 0, len(l.inst))
	for k := range l.inst {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].comm < keys[j].comm || keys[i].comm == keys[j].comm && keys[i].seq < keys[j].seq
	})
	for _, k := range keys {
		in := l.inst[k]
		for j, ev := range in.events {
			if ev < 0 {
				w := l.comms[k.comm].Members[j]
				return &Error{Rank: int(w), Event: len(l.t.Ranks[w].Events), Msg: fmt.Sprintf("rank never calls collective call #%d on communicator %d (%s on rank %d%s)", k.seq+1, k.comm, collCall(in.kind, in.root), in.first, at(l.t, in.first, in.firstI))}
			}
		}
	}
	return nil
}

// add appends op to rank r after everything the program order requires.
func (l *lowerer) add(st *rankState, op graph.Op) int32 {
	id := l.b.Add(st.rank, st.label(op))
	for _, d := range st.last {
		l.b.Dep(st.rank, id, d, graph.Requires)
	}
	if st.started >= 0 {
		l.b.Dep(st.rank, id, st.started, graph.Irequires)
	}
	return id
}

// label gives a message operation the region of the MPI call it lowers,
// so network overrides can select messages by calling region. Calc
// operations keep their own region (a collective's reductions have none,
// so compute models do not price them as the caller's region).
func (st *rankState) label(op graph.Op) graph.Op {
	if op.Kind != graph.Calc && op.Region == graph.NoRegion {
		op.Region = st.region
	}
	op.CPU, op.NIC = st.cpu, st.nic
	return op
}

// TagComm returns the communicator of a message lowered with tag tag (see
// the package comment), or -1 for AnyTag.
func TagComm(tag int32) int32 {
	if tag < 0 {
		return -1
	}
	return tag &^ CollectiveTagBase >> 20
}

// then makes id the only operation the next one waits for.
func (st *rankState) then(id int32) {
	st.last = append(st.last[:0], id)
	st.started = -1
}

// lowerRank lowers rank r's events; start[i] receives the rank-local index
// of event i's first operation, start[len] the rank's operation count.
func (l *lowerer) lowerRank(r int, start []int32) error {
	rk := &l.t.Ranks[r]
	st := &l.ranks[r]
	seq := map[int32]int{}
	defer func() { start[len(rk.Events)] = l.b.Len(r) }()
	for i := range rk.Events {
		start[i] = l.b.Len(r)
		e := &rk.Events[i]
		if e.Region < 0 || int(e.Region) >= max(1, len(l.t.Regions)) {
			return &Error{Rank: r, Event: i, Msg: fmt.Sprintf("region %d out of range", e.Region)}
		}
		st.region = graph.NoRegion
		if e.Region != mpi.NoRegion {
			st.region = e.Region - 1
		}
		switch e.Kind {
		case mpi.Compute:
			if e.Duration < 0 {
				return &Error{Rank: r, Event: i, Msg: fmt.Sprintf("compute with negative duration %d", e.Duration)}
			}
			op := graph.CalcOp(e.Duration)
			op.Region = st.region
			st.then(l.add(st, op))
		case mpi.Send, mpi.Recv, mpi.Isend, mpi.Irecv:
			op, err := l.p2p(r, i, e)
			if err != nil {
				return err
			}
			id := l.add(st, op)
			if e.Kind == mpi.Send || e.Kind == mpi.Recv {
				st.then(id)
				continue
			}
			if _, dup := st.reqs[e.Req]; dup {
				return &Error{Rank: r, Event: i, Msg: fmt.Sprintf("request %d is still pending", e.Req)}
			}
			st.reqs[e.Req] = id
			st.started = id
		case mpi.Wait, mpi.Waitall:
			reqs := []int64{e.Req}
			if e.Kind == mpi.Waitall {
				if e.ListOff < 0 || e.ListLen < 0 || int(e.ListOff+e.ListLen) > len(rk.List) {
					return &Error{Rank: r, Event: i, Msg: "waitall request list out of range"}
				}
				reqs = l.t.List(r, e)
			}
			for _, q := range reqs {
				id, ok := st.reqs[q]
				if !ok {
					return &Error{Rank: r, Event: i, Msg: fmt.Sprintf("%s on unknown request %d", e.Kind, q)}
				}
				delete(st.reqs, q)
				st.last = append(st.last, id)
			}
		default:
			if !e.Kind.IsCollective() {
				return &Error{Rank: r, Event: i, Msg: fmt.Sprintf("unknown event kind %d", e.Kind)}
			}
			key := collKey{e.Comm, seq[e.Comm]}
			seq[e.Comm]++
			if err := l.collective(st, i, key); err != nil {
				return err
			}
		}
	}
	return nil
}

func (l *lowerer) p2p(r, i int, e *mpi.Event) (graph.Op, error) {
	c, ok := l.comms[e.Comm]
	if !ok {
		return graph.Op{}, &Error{Rank: r, Event: i, Msg: fmt.Sprintf("%s on unknown communicator %d", e.Kind, e.Comm)}
	}
	if _, ok := l.commRank[e.Comm][int32(r)]; !ok {
		return graph.Op{}, &Error{Rank: r, Event: i, Msg: fmt.Sprintf("%s on communicator %d, which rank %d is not a member of", e.Kind, e.Comm, r)}
	}
	recv := e.Kind == mpi.Recv || e.Kind == mpi.Irecv
	peer := e.Peer
	if recv && peer == mpi.AnySource {
		peer = graph.AnySource
	} else if peer < 0 || int(peer) >= len(c.Members) {
		return graph.Op{}, &Error{Rank: r, Event: i, Msg: fmt.Sprintf("%s peer %d is not a rank of communicator %d (size %d)", e.Kind, e.Peer, e.Comm, len(c.Members))}
	} else {
		peer = c.Members[peer]
	}
	if e.Tag >= MaxUserTag || e.Tag < 0 && !(recv && e.Tag == mpi.AnyTag) {
		return graph.Op{}, &Error{Rank: r, Event: i, Msg: fmt.Sprintf("%s tag %d outside 0..%d", e.Kind, e.Tag, MaxUserTag-1)}
	}
	tag := e.Tag
	if tag != mpi.AnyTag {
		tag |= e.Comm << 20 // separate communicators, as MPI's contexts do
	}
	if e.Bytes < 0 {
		return graph.Op{}, &Error{Rank: r, Event: i, Msg: fmt.Sprintf("%s with negative size %d", e.Kind, e.Bytes)}
	}
	if recv {
		return graph.RecvOp(e.Bytes, peer, tag), nil
	}
	return graph.SendOp(e.Bytes, peer, tag), nil
}

// SchedgenAlgorithms returns the algorithm choice that reproduces
// LogGOPSim's schedgen for every collective it converts ("schedgen" for
// barrier, bcast, reduce, allreduce, allgather and alltoall): the default
// for traces recorded with liballprof.
func SchedgenAlgorithms() map[mpi.Kind]string {
	m := map[mpi.Kind]string{}
	for k, algs := range algorithms {
		if slices.Contains(algs, "schedgen") {
			m[k] = "schedgen"
		}
	}
	return m
}
