// Package mpi defines the in-memory MPI trace: per rank, in program order,
// compute regions and MPI calls, plus the communicators they use.
//
// An MPI trace is the level at which applications are recorded. It is
// lowered into an execution graph (package traces/lower) before replay, with
// the algorithm of every collective chosen at lowering time.
package mpi

import (
	"fmt"
	"strings"

	"github.com/capsim/capsim/internal/units"
	"github.com/capsim/capsim/traces/graph"
)

// Kind is the kind of a trace event: a compute region or an MPI call.
type Kind uint8

// Event kinds. The values are stable: they are stored in trace files.
const (
	Compute Kind = iota
	Send
	Recv
	Isend
	Irecv
	Wait
	Waitall
	Barrier
	Bcast
	Reduce
	Allreduce
	Allgather
	Alltoall
	Alltoallv
	Gather
	Scatter
	ReduceScatter
	Scan
	numKinds
)

var kindNames = [...]string{
	Compute: "compute", Send: "send", Recv: "recv", Isend: "isend", Irecv: "irecv",
	Wait: "wait", Waitall: "waitall", Barrier: "barrier", Bcast: "bcast", Reduce: "reduce",
	Allreduce: "allreduce", Allgather: "allgather", Alltoall: "alltoall", Alltoallv: "alltoallv",
	Gather: "gather", Scatter: "scatter", ReduceScatter: "reduce_scatter", Scan: "scan",
}

// String returns the kind's name as used in trace files ("allreduce").
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ParseKind maps a name such as "allreduce" to its Kind.
func ParseKind(s string) (Kind, error) {
	for k, n := range kindNames {
		if n == s {
			return Kind(k), nil
		}
	}
	return 0, fmt.Errorf("unknown event kind %q", s)
}

// Kinds returns every event kind in value order.
func Kinds() []Kind {
	ks := make([]Kind, numKinds)
	for i := range ks {
		ks[i] = Kind(i)
	}
	return ks
}

// AlgorithmsSpec writes algorithms per collective kind as KIND=ALGORITHM
// items in kind order, comma-separated ("" for none): the form of
// --coll and of an Arrow trace's collectives metadata.
func AlgorithmsSpec(algs map[Kind]string) string {
	var parts []string
	for _, k := range Kinds() {
		if a, ok := algs[k]; ok {
			parts = append(parts, k.String()+"="+a)
		}
	}
	return strings.Join(parts, ",")
}

// IsCollective reports whether k is a collective operation.
func (k Kind) IsCollective() bool { return k >= Barrier && k < numKinds }

// IsRooted reports whether k is a collective with a root (Peer holds it).
func (k Kind) IsRooted() bool { return k == Bcast || k == Reduce || k == Gather || k == Scatter }

// IsPointToPoint reports whether k is a point-to-point call.
func (k Kind) IsPointToPoint() bool { return k >= Send && k <= Irecv }

// World is the id of MPI_COMM_WORLD in every trace.
const World int32 = 0

// AnySource and AnyTag are the wildcards a receive may carry.
const (
	AnySource int32 = -1
	AnyTag    int32 = -1
)

// NoRegion marks an event without a named region. It is the zero value:
// Trace.Regions[0] is always the empty name.
const NoRegion int32 = 0

// Event is one entry of a rank's event list.
//
// The zero Event is a compute event of no region and no duration; every
// field's zero value means "none". Field use by kind:
//   - Compute: Region, Duration (measured ns); optional parameters in
//     Rank.Params[ParamOff : ParamOff+ParamLen] when ParamLen > 0 (ParamLen
//     is then len(Trace.ParamNames)).
//   - Send/Recv/Isend/Irecv: Comm, Peer (rank within Comm; AnySource allowed
//     on receives), Tag (AnyTag allowed on receives), Bytes. Isend/Irecv
//     also set Req, the request id a later Wait or Waitall completes.
//   - Wait: Req. Waitall: the request ids Rank.List[ListOff : ListOff+ListLen].
//   - Collectives: Comm; Bytes is the per-rank payload (the count times the
//     datatype size of one rank's contribution); rooted collectives put the
//     root's rank within Comm in Peer. Alltoallv lists the bytes sent to each
//     member of Comm in Rank.List[ListOff : ListOff+ListLen].
//
// Duration on an MPI call is the time the call took when traced (optional,
// 0 if unknown); replay recomputes communication from the network model.
type Event struct {
	Kind     Kind
	Region   int32
	Comm     int32
	Peer     int32
	Tag      int32
	Bytes    int64
	Duration int64
	Req      int64
	ListOff  int32
	ListLen  int32
	ParamOff int32
	ParamLen int32
}

// Rank holds one rank's events in program order and their side arrays.
type Rank struct {
	Events []Event
	List   []int64   // request ids of Waitall, per-peer bytes of Alltoallv
	Params []float64 // per-compute-event parameters, len(Trace.ParamNames) each
	// Stamps holds when each event ran in the traced program: nil when
	// the trace has no timestamps, else one Stamp per event (Stamps[i]
	// for Events[i]). Importers of formats with time fill it; Append
	// keeps it aligned with Events.
	Stamps []Stamp
	// File is the file the rank's events were read from, to name them in
	// error messages ("" when unknown or not a file).
	File string
	// Pos holds where each event was read in File: its line, counted from
	// 1, in a text trace; its record's index in the rank's record list,
	// counted from 0, in a binary one (Trace.Records). It is nil when
	// unknown, and may be shorter than Events (the events an importer
	// adds at a rank's end, after its last record, have none). Mark
	// fills it.
	Pos []int32
}

// Stamp is when a traced event ran, in ns on the trace's clock, which the
// ranks of one trace share (up to the recording machine's clock skew).
// For an MPI event it is the entry into and the return from the MPI call
// that produced it (a Wait completing a request: the MPI_Wait… call; an
// Isend: the MPI_Isend call); for compute, the stretch's start and end.
// The zero Stamp means unknown.
type Stamp struct {
	Start, End int64
}

// Known reports whether s holds a recorded time.
func (s Stamp) Known() bool { return s != Stamp{} }

// Communicator lists its members as world ranks, in communicator rank order.
type Communicator struct {
	ID      int32
	Name    string
	Members []int32
}

// Trace is an MPI trace of a whole job.
type Trace struct {
	Ranks      []Rank
	Comms      []Communicator // Comms[0] is World, with every rank in order
	Regions    []string       // Regions[0] is "", the NoRegion entry
	ParamNames []string       // names of the per-compute-event numeric parameters
	// Recorded is what the trace says about the run it was recorded
	// from (recorded spans, measurement gaps); nil when it says nothing.
	// Lowering hands it to the execution graph.
	Recorded *graph.Recorded
	// StartNs, when set, has an entry per rank: the time in ns at which
	// the rank starts in a replay (graph.Graph.StartNs, which lowering
	// sets from it). nil: every rank starts at 0.
	StartNs []int64
	// Algorithms are the collective algorithms the trace's format replays
	// its collectives with (liballprof's: schedgen's, as LogGOPSim does);
	// lowering takes them for the kinds its options leave out, so that
	// every lowering of the trace (a replay, the LP bound, a deadlock's
	// description) is the same program. nil: capsim's defaults.
	Algorithms map[Kind]string
	// Records reports that Rank.Pos counts records of a binary file (a
	// DUMPI record, an OTF2 event) rather than lines of a text file.
	Records bool
	// Rows reports that each rank's File is an Arrow MPI-trace file
	// whose rows are the events in Row's order (Rank.Pos is then nil).
	Rows bool
	// Where, when set, names where event i of rank r was recorded, for a
	// format whose events have no line or record index to name them by
	// (OTF2: the archive, the location and its event file, the record's
	// timestamp); Source returns it. Importers set it only when asked
	// (otf2.Options.Where), which error messages do after the fact.
	Where func(r, i int) string
}

// NewTrace returns an empty trace of n ranks with MPI_COMM_WORLD defined.
func NewTrace(n int) *Trace {
	m := make([]int32, n)
	for i := range m {
		m[i] = int32(i)
	}
	return &Trace{
		Ranks:   make([]Rank, n),
		Comms:   []Communicator{{ID: World, Name: "world", Members: m}},
		Regions: []string{""},
	}
}

// Comm returns the communicator with the given id, or nil.
func (t *Trace) Comm(id int32) *Communicator {
	if id >= 0 && int(id) < len(t.Comms) && t.Comms[id].ID == id {
		return &t.Comms[id]
	}
	for i := range t.Comms {
		if t.Comms[i].ID == id {
			return &t.Comms[i]
		}
	}
	return nil
}

// AddComm defines a new communicator over the given world ranks and
// returns its id.
func (t *Trace) AddComm(name string, members []int32) int32 {
	id := int32(0)
	for _, c := range t.Comms {
		if c.ID >= id {
			id = c.ID + 1
		}
	}
	t.Comms = append(t.Comms, Communicator{ID: id, Name: name, Members: members})
	return id
}

// Region interns a region name and returns its index ("" is NoRegion).
func (t *Trace) Region(name string) int32 {
	if len(t.Regions) == 0 {
		t.Regions = []string{""}
	}
	for i, n := range t.Regions {
		if n == name {
			return int32(i)
		}
	}
	t.Regions = append(t.Regions, name)
	return int32(len(t.Regions) - 1)
}

// Append adds e to rank r's events (with an unknown Stamp when the rank
// has stamps).
func (t *Trace) Append(r int, e Event) {
	rk := &t.Ranks[r]
	rk.Events = append(rk.Events, e)
	if rk.Stamps != nil {
		rk.Stamps = append(rk.Stamps, Stamp{})
	}
}

// AppendStamped adds e to rank r's events with its recorded time s,
// giving the rank stamps (unknown for its earlier events) if it had none.
func (t *Trace) AppendStamped(r int, e Event, s Stamp) {
	rk := &t.Ranks[r]
	if rk.Stamps == nil {
		rk.Stamps = make([]Stamp, len(rk.Events), max(cap(rk.Events), len(rk.Events)+1))
	}
	rk.Events = append(rk.Events, e)
	rk.Stamps = append(rk.Stamps, s)
}

// Mark records that rank r's events added since its last Mark were read
// at pos in its File (a line, or a record index when t.Records). An
// importer calls it after each line or record it has applied.
func (t *Trace) Mark(r int, pos int32) {
	rk := &t.Ranks[r]
	if len(rk.Pos) == len(rk.Events) {
		return
	}
	if rk.Pos == nil {
		rk.Pos = make([]int32, 0, cap(rk.Events))
	}
	for len(rk.Pos) < len(rk.Events) {
		rk.Pos = append(rk.Pos, pos)
	}
}

// Source names where event i of rank r was read: "FILE:LINE" in a text
// trace, "FILE record K" in a binary one, with the event's recorded
// start time when known, in seconds on the trace's clock ("FILE record
// K, time 5.000000040 s"), "FILE row N" in an
// Arrow MPI trace (Rows), or what Where says. It is "" when the trace
// does not say.
func (t *Trace) Source(r, i int) string {
	if r < 0 || r >= len(t.Ranks) || i < 0 || i >= len(t.Ranks[r].Events) {
		return ""
	}
	if t.Where != nil {
		return t.Where(r, i)
	}
	rk := &t.Ranks[r]
	switch {
	case rk.File == "":
		return ""
	case t.Rows:
		return fmt.Sprintf("%s row %d", rk.File, t.Row(r, i))
	case i >= len(rk.Pos) || rk.Pos[i] < 0:
		return ""
	case !t.Records:
		return fmt.Sprintf("%s:%d", rk.File, rk.Pos[i])
	}
	s := fmt.Sprintf("%s record %d", rk.File, rk.Pos[i])
	if i < len(rk.Stamps) && rk.Stamps[i].Known() {
		s += ", time " + units.FormatNs(rk.Stamps[i].Start)
	}
	return s
}

// WithoutSources returns a shallow copy of t that does not say where its
// events were read (no Rank.File, Rank.Pos, Records or Rows): to compare
// the traces two files hold.
func (t *Trace) WithoutSources() *Trace {
	c := *t
	c.Records, c.Rows, c.Where = false, false, nil
	c.Ranks = make([]Rank, len(t.Ranks))
	for r, rk := range t.Ranks {
		rk.File, rk.Pos = "", nil
		c.Ranks[r] = rk
	}
	return &c
}

// Stamped reports whether any rank of t has recorded times.
func (t *Trace) Stamped() bool {
	for _, rk := range t.Ranks {
		if rk.Stamps != nil {
			return true
		}
	}
	return false
}

// AppendList adds e after storing list in the rank's side array and
// pointing e's ListOff/ListLen at it (for Waitall and Alltoallv).
func (t *Trace) AppendList(r int, e Event, list []int64) {
	rk := &t.Ranks[r]
	e.ListOff, e.ListLen = int32(len(rk.List)), int32(len(list))
	rk.List = append(rk.List, list...)
	t.Append(r, e)
}

// AppendCompute adds a compute event of the named region lasting ns
// nanoseconds, with optional parameters (len(params) must be 0 or
// len(t.ParamNames)).
func (t *Trace) AppendCompute(r int, region string, ns int64, params ...float64) {
	e := Event{Kind: Compute, Region: t.Region(region), Duration: ns}
	if len(params) > 0 {
		rk := &t.Ranks[r]
		e.ParamOff, e.ParamLen = int32(len(rk.Params)), int32(len(params))
		rk.Params = append(rk.Params, params...)
	}
	t.Append(r, e)
}

// Params returns the parameters of compute event e of rank r (nil if none).
func (t *Trace) Params(r int, e *Event) []float64 {
	if e.ParamLen == 0 {
		return nil
	}
	return t.Ranks[r].Params[e.ParamOff : e.ParamOff+e.ParamLen]
}

// List returns the side-array entries of event e of rank r.
func (t *Trace) List(r int, e *Event) []int64 {
	return t.Ranks[r].List[e.ListOff : e.ListOff+e.ListLen]
}

// NumEvents returns the total number of events over all ranks.
func (t *Trace) NumEvents() int {
	n := 0
	for _, r := range t.Ranks {
		n += len(r.Events)
	}
	return n
}

// Row returns the position of event i of rank r in the trace's rank-major
// order (all of rank 0's events, then rank 1's, …): its row in an Arrow
// MPI-trace file, counted from 0.
func (t *Trace) Row(r, i int) int64 {
	var row int64
	for q := 0; q < r && q < len(t.Ranks); q++ {
		row += int64(len(t.Ranks[q].Events))
	}
	return row + int64(i)
}

// Describe names event i of rank r in MPI terms: the call, its peer, tag
// and communicator, and where it was read (Source, e.g. "rank 1:
// MPI_Recv 8 bytes from 0 tag 7 on comm world (rank1.txt:12)"), or its
// trace row when the trace does not say ("(trace row 12)").
func (t *Trace) Describe(r, i int) string {
	if r < 0 || r >= len(t.Ranks) || i < 0 || i >= len(t.Ranks[r].Events) {
		return fmt.Sprintf("rank %d event %d", r, i)
	}
	e := &t.Ranks[r].Events[i]
	s := fmt.Sprintf("rank %d: ", r)
	if e.Kind == Compute {
		s += "compute"
		if int(e.Region) < len(t.Regions) && t.Regions[e.Region] != "" {
			s += " " + t.Regions[e.Region]
		}
		return s + t.where(r, i)
	}
	s += "MPI_" + mpiName(e.Kind)
	comm := fmt.Sprint(e.Comm)
	if c := t.Comm(e.Comm); c != nil && c.Name != "" {
		comm = c.Name
	}
	switch e.Kind {
	case Send, Isend:
		s += fmt.Sprintf(" %d bytes to %d tag %d", e.Bytes, e.Peer, e.Tag)
	case Recv, Irecv:
		from, tag := fmt.Sprint(e.Peer), fmt.Sprint(e.Tag)
		if e.Peer == AnySource {
			from = "any source"
		}
		if e.Tag == AnyTag {
			tag = "any"
		}
		s += fmt.Sprintf(" %d bytes from %s tag %s", e.Bytes, from, tag)
	case Wait, Waitall:
		return s + t.where(r, i)
	default:
		if e.Kind.IsRooted() {
			s += fmt.Sprintf(" %d bytes root %d", e.Bytes, e.Peer)
		} else {
			s += fmt.Sprintf(" %d bytes", e.Bytes)
		}
	}
	return s + " on comm " + comm + t.where(r, i)
}

// where is Describe's closing parenthesis: the event's Source, or its
// trace row.
func (t *Trace) where(r, i int) string {
	if src := t.Source(r, i); src != "" {
		return " (" + src + ")"
	}
	return fmt.Sprintf(" (trace row %d)", t.Row(r, i))
}

// mpiName is the MPI spelling of a call kind ("Allreduce").
func mpiName(k Kind) string {
	n := k.String()
	if k == ReduceScatter {
		return "Reduce_scatter"
	}
	return string(n[0]-'a'+'A') + n[1:]
}
