package dumpi

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// Regions says how the compute between MPI calls is named.
type Regions uint8

const (
	// RegionsByCall names the compute after the MPI call that precedes
	// it ("after MPI_Waitall"), so that per-region models can tell the
	// phases of an iteration apart; inside a function that the tracer
	// recorded entering and leaving (compiler instrumentation), the
	// compute takes the innermost function's name instead.
	RegionsByCall Regions = iota
	// RegionsSingle names all compute "compute".
	RegionsSingle
)

// Options controls how a DUMPI trace becomes an MPI trace.
type Options struct {
	// CPUClock takes compute durations from the CPU-time stamps instead
	// of the wall-clock ones.
	CPUClock bool
	// Regions selects how compute regions are named.
	Regions Regions
	// Stamps keeps each event's recorded time in the trace
	// (mpi.Rank.Stamps), on the clock CPUClock chooses. Off by default:
	// they take 16 bytes per event, which only calibration needs.
	Stamps bool
}

// Info describes what ReadInfo found, per rank.
type Info struct {
	Meta    string // the .meta file read
	Version string // the tracer's version, from rank 0's header ("8.1.0")
	Ranks   []RankInfo
}

// RankInfo counts one rank's records.
type RankInfo struct {
	File    string
	Version string
	// Calls counts the records per function id; Skipped those that
	// became no event (queries, datatype and communicator management,
	// completions of no outstanding request, MPI-IO, ...).
	Calls, Skipped [numFuncSlots + 2]int
	// FooterCalls is the tracer's own count of calls per function id,
	// from the file's footer (nil when the file has none).
	FooterCalls []uint32
	// TypeSizes is the size in bytes of every predefined datatype id on
	// the recording machine.
	TypeSizes []int64
	// ProcNull counts sends and receives with MPI_PROC_NULL (no message);
	// UnknownRequests waits and tests on requests not outstanding;
	// Cancelled MPI_Cancel calls (their operation dropped).
	ProcNull, UnknownRequests, Cancelled int
}

// FunctionName returns the name of function id, the index of
// RankInfo.Calls and Skipped ("MPI_Isend" for 8).
func FunctionName(id int) string {
	if id < 0 || id >= len(funcs) {
		return fmt.Sprintf("function id %d", id)
	}
	return funcName(uint16(id))
}

// CallCount returns the number of records of the MPI function named name
// ("MPI_Isend").
func (ri *RankInfo) CallCount(name string) int {
	for id, f := range funcs {
		if f.name == name {
			return ri.Calls[id]
		}
	}
	return 0
}

// Read reads the DUMPI trace whose .meta file is path (or the folder
// holding it, or one of its .bin files) into an MPI trace.
//
// Every rank's events are its MPI calls in program order, with the
// compute between calls (wall-clock gaps, or CPU-time gaps with
// Options.CPUClock) as compute events named by Options.Regions. Sends and
// receives keep their peer and communicator; communicators created by
// MPI_Comm_dup, MPI_Comm_split, MPI_Comm_create (with groups from
// MPI_Comm_group and MPI_Group_incl/excl/range_incl/range_excl/union/
// intersection/difference), MPI_Cart_create, MPI_Cart_sub and
// MPI_Graph_create become communicators of the trace with their members
// as world ranks. Message sizes are counts times the recording machine's
// datatype sizes (from the file's table, and derived datatypes from the
// constructors recorded). See the package comment for the mapping of each
// call.
func Read(path string, opt Options) (*mpi.Trace, error) {
	t, _, err := read(path, opt, false)
	return t, err
}

// ReadInfo is Read that also reports what it found per rank.
func ReadInfo(path string, opt Options) (*mpi.Trace, *Info, error) {
	return read(path, opt, true)
}

// read reads the trace; with perRank false, Info keeps one RankInfo (the
// last rank's) instead of one per rank, which for traces of many ranks is
// memory the caller does not need.
func read(path string, opt Options, perRank bool) (*mpi.Trace, *Info, error) {
	mp, err := findMeta(path)
	if err != nil {
		return nil, nil, err
	}
	m, err := readMeta(mp)
	if err != nil {
		return nil, nil, err
	}
	t := mpi.NewTrace(m.numprocs)
	t.Records = true
	info := &Info{Meta: mp, Version: m.version, Ranks: make([]RankInfo, 1)}
	if perRank {
		info.Ranks = make([]RankInfo, m.numprocs)
	}
	convs := make([]*rankConv, m.numprocs)
	regs := newRegions(t)
	for r := range m.files {
		ri := &info.Ranks[0]
		if perRank {
			ri = &info.Ranks[r]
		} else {
			*ri = RankInfo{}
		}
		if err := readRank(r, m, mp, t, opt, ri, convs, regs); err != nil {
			return nil, nil, err
		}
		if r == 0 && ri.Version != "" {
			info.Version = ri.Version
		}
	}
	if err := resolve(t, convs); err != nil {
		return nil, nil, err
	}
	if err := checkSizes(t, convs); err != nil {
		return nil, nil, err
	}
	renumberTags(t)
	recordStarts(t, convs)
	return t, info, nil
}

// checkSizes refuses a collective in which a member sends another more
// than that member receives from it (mpi.CheckSizes), naming both calls
// by their rank's .bin file and record index.
func checkSizes(t *mpi.Trace, convs []*rankConv) error {
	calls := make([][]mpi.CollSizes, len(convs))
	for r, c := range convs {
		if c != nil {
			calls[r], c.sizes = c.sizes, nil
		}
	}
	if err := mpi.CheckSizes(t, calls); err != nil {
		return fmt.Errorf("dumpi: %w", err)
	}
	return nil
}

// recordStarts keeps each rank's recorded start (graph.Recorded.StartNs):
// the stop of its MPI_Init on the wall clock, else its first record's
// start, relative to the earliest rank's. Ranks without wall-clock times
// start with the earliest.
func recordStarts(t *mpi.Trace, convs []*rankConv) {
	if t.Recorded == nil {
		return
	}
	at, lo, seen := make([]int64, len(convs)), int64(math.MaxInt64), false
	for r, c := range convs {
		if c == nil || !c.wallSeen {
			continue
		}
		at[r] = c.wallFirst
		if c.inited {
			at[r] = c.initStop
		}
		lo, seen = min(lo, at[r]), true
	}
	if !seen {
		return
	}
	for r, c := range convs {
		if c == nil || !c.wallSeen {
			at[r] = lo
		}
	}
	t.Recorded.StartNs = graph.RelativeStarts(at)
}

// maxTag bounds the tags a lowered trace carries (lower.MaxUserTag).
const maxTag = 1 << 20

// renumberTags maps the tags of point-to-point calls to 0, 1, 2, … in
// their order when any is maxTag or more (applications may use tags up to
// MPI_TAG_UB, often 2^31−1). Matching only compares tags, so the messages
// match as they did; MPI_ANY_TAG stays.
func renumberTags(t *mpi.Trace) {
	big := false
	for _, rk := range t.Ranks {
		for _, e := range rk.Events {
			big = big || e.Kind.IsPointToPoint() && e.Tag >= maxTag
		}
	}
	if !big {
		return
	}
	seen := map[int32]int32{}
	for _, rk := range t.Ranks {
		for _, e := range rk.Events {
			if e.Kind.IsPointToPoint() && e.Tag >= 0 {
				seen[e.Tag] = 0
			}
		}
	}
	for i, tag := range slices.Sorted(maps.Keys(seen)) {
		seen[tag] = int32(i)
	}
	for r := range t.Ranks {
		evs := t.Ranks[r].Events
		for i := range evs {
			if e := &evs[i]; e.Kind.IsPointToPoint() && e.Tag >= 0 {
				e.Tag = seen[e.Tag]
			}
		}
	}
}

// readRank reads rank r's file of the trace whose .meta file, at mp, is m.
func readRank(r int, m *meta, mp string, t *mpi.Trace, opt Options, ri *RankInfo, convs []*rankConv, regs *regions) error {
	path := m.files[r]
	b, err := openBin(path)
	if err != nil {
		return fmt.Errorf("rank %d: %w", r, err)
	}
	defer b.Close()
	ri.File, ri.Version, ri.FooterCalls, ri.TypeSizes = path, b.ver.String(), b.footCalls, b.typeSizes
	// Size the event list from the tracer's call count (a call and the
	// compute before it are at most two events, Sendrecv three), bounded
	// by what the file can hold (a record is at least 3 bytes), so the
	// list is not regrown as the records are read.
	if n := len(b.footCalls); n > 0 && b.footer > b.body {
		calls := min(int64(b.footCalls[n-1]), (b.footer-b.body)/3)
		t.Ranks[r].Events = make([]mpi.Event, 0, 2*calls+1)
	}
	c := newRankConv(r, t, b, opt, ri, regs)
	c.files, c.meta = m.files, mp
	if err := c.run(); err != nil {
		return err
	}
	c.flush()
	if sp := c.span(); sp > 0 {
		if t.Recorded == nil {
			t.Recorded = &graph.Recorded{SpanNs: make([]int64, len(t.Ranks))}
		}
		t.Recorded.SpanNs[r] = sp
	}
	// The tables built while reading are not needed any more; keep only
	// what resolving communicators uses.
	c.reqs, c.persist, c.types, c.comms, c.groups, c.perParent = nil, nil, nil, nil, nil, nil
	c.b, c.info, c.regs, c.fnStack, c.scratch, c.idx = nil, nil, nil, nil, nil, nil
	convs[r] = c
	return nil
}
