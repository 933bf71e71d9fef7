// Package inspect summarises a trace without replaying it: its ranks,
// operations by kind, message sizes, collectives by kind and
// communicator, code regions with their recorded time, and the recorded
// run (graph.Recorded: each rank's span and the measurement gaps).
//
// MPI traces (package traces/mpi) are summarised in MPI terms, execution
// graphs (package traces/graph) in terms of their operations; both give a
// Report, which the command "capsim inspect" prints as text or JSON.
package inspect

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// Report is a trace's summary.
type Report struct {
	// Trace and Format name the trace and its format; the caller sets
	// them.
	Trace  string `json:"trace"`
	Format string `json:"format"`
	// Level is "mpi" for MPI traces, "graph" for execution graphs.
	Level string `json:"level"`
	Ranks int    `json:"ranks"`
	// Events counts the MPI trace's events or the graph's operations.
	Events int64 `json:"events"`
	// Operations are the events (MPI calls and compute) or operations
	// (calc, send, recv) by kind, in kind order.
	Operations []Kind `json:"operations"`
	// Messages are the sizes of the point-to-point messages sent: MPI
	// sends (blocking or not), or a graph's send operations.
	Messages Sizes `json:"messages"`
	// Collectives are the collective calls by kind and communicator (MPI
	// traces).
	Collectives []Collective `json:"collectives,omitempty"`
	// Communicators lists the MPI trace's communicators.
	Communicators []Communicator `json:"communicators,omitempty"`
	// Regions are the code regions of compute (MPI traces) or calc
	// operations (graphs) with their count and time; the compute outside
	// any region is "".
	Regions []Region `json:"regions"`
	// Recorded is the run the trace was recorded from; nil when the trace
	// says nothing of it.
	Recorded *Recorded `json:"recorded,omitempty"`
}

// Kind is one kind of event or operation.
type Kind struct {
	Kind  string `json:"kind"`
	Count int64  `json:"count"`
	// Bytes are the bytes the calls move: per call as the trace gives
	// them (a collective's per-rank payload).
	Bytes int64 `json:"bytes"`
	// TimeNs is the recorded time in the calls (MPI traces: their
	// duration; compute and calc: their length).
	TimeNs int64 `json:"time_ns"`
}

// Sizes summarises message sizes in bytes.
type Sizes struct {
	Count  int64 `json:"count"`
	Total  int64 `json:"total"`
	Min    int64 `json:"min"`
	Median int64 `json:"median"`
	Max    int64 `json:"max"`
	// Histogram counts the sizes by powers of two: bin Le holds the sizes
	// s with Le/2 < s ≤ Le (0 and 1 alone); empty bins are left out.
	Histogram []Bin `json:"histogram,omitempty"`
}

// Bin is one bin of a size histogram.
type Bin struct {
	Le    int64 `json:"le"`
	Count int64 `json:"count"`
}

// Collective is the calls of one collective kind on one communicator.
type Collective struct {
	Kind string `json:"kind"`
	Comm string `json:"comm"`
	// Calls counts the per-rank calls; Instances the collective
	// operations (calls over the communicator's size).
	Calls     int64 `json:"calls"`
	Instances int64 `json:"instances"`
	Bytes     int64 `json:"bytes"`
	TimeNs    int64 `json:"time_ns"`
}

// Communicator is one MPI communicator.
type Communicator struct {
	ID   int32  `json:"id"`
	Name string `json:"name"`
	Size int    `json:"size"`
}

// Region is one code region.
type Region struct {
	Name   string `json:"name"`
	Count  int64  `json:"count"`
	TimeNs int64  `json:"time_ns"`
}

// Recorded is the recorded run: the job's span, each rank's, and the
// measurement gaps.
type Recorded struct {
	JobNs   int64 `json:"job_ns"`
	GapNs   int64 `json:"gap_ns"`
	OffNs   int64 `json:"recording_off_ns"`
	GapKept bool  `json:"gaps_kept"`
	// Note says what was done with the gaps; "" when there are none.
	Note string `json:"note,omitempty"`
	// StartSpreadNs is the time between the first and the last rank's
	// recorded start (graph.Recorded.StartNs).
	StartSpreadNs int64        `json:"start_spread_ns,omitempty"`
	Ranks         []RankRecord `json:"ranks"`
}

// RankRecord is one rank's recorded start, span and gaps.
type RankRecord struct {
	Rank      int   `json:"rank"`
	StartNs   int64 `json:"start_ns,omitempty"`
	SpanNs    int64 `json:"span_ns"`
	OffNs     int64 `json:"recording_off_ns,omitempty"`
	OutsideNs int64 `json:"outside_ns,omitempty"`
}

// MPI summarises an MPI trace.
func MPI(t *mpi.Trace) *Report {
	rep := &Report{Level: "mpi", Ranks: len(t.Ranks)}
	kinds := make([]Kind, len(mpi.Kinds()))
	regions := map[int32]*Region{}
	type collKey struct {
		kind mpi.Kind
		comm int32
	}
	colls := map[collKey]*Collective{}
	var sizes []int64
	for r := range t.Ranks {
		for i := range t.Ranks[r].Events {
			e := &t.Ranks[r].Events[i]
			rep.Events++
			k := &kinds[e.Kind]
			k.Count++
			addSat(&k.Bytes, e.Bytes)
			addSat(&k.TimeNs, e.Duration)
			switch {
			case e.Kind == mpi.Compute:
				reg := regions[e.Region]
				if reg == nil {
					reg = &Region{Name: regionName(t, e.Region)}
					regions[e.Region] = reg
				}
				reg.Count++
				addSat(&reg.TimeNs, e.Duration)
			case e.Kind == mpi.Send || e.Kind == mpi.Isend:
				sizes = append(sizes, e.Bytes)
			case e.Kind.IsCollective():
				key := collKey{e.Kind, e.Comm}
				c := colls[key]
				if c == nil {
					c = &Collective{Kind: e.Kind.String(), Comm: commName(t, e.Comm)}
					colls[key] = c
				}
				c.Calls++
				addSat(&c.Bytes, e.Bytes)
				addSat(&c.TimeNs, e.Duration)
			}
		}
	}
	for k, kc := range kinds {
		if kc.Count > 0 {
			kc.Kind = mpi.Kind(k).String()
			rep.Operations = append(rep.Operations, kc)
		}
	}
	rep.Messages = summarise(sizes)
	keys := make([]collKey, 0, len(colls))
	for k := range colls {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b collKey) int { return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.comm, b.comm)) })
	for _, k := range keys {
		c := colls[k]
		if cm := t.Comm(k.comm); cm != nil && len(cm.Members) > 0 {
			c.Instances = c.Calls / int64(len(cm.Members))
		}
		rep.Collectives = append(rep.Collectives, *c)
	}
	for _, c := range t.Comms {
		rep.Communicators = append(rep.Communicators, Communicator{ID: c.ID, Name: c.Name, Size: len(c.Members)})
	}
	rep.Regions = sortRegions(regions)
	rep.Recorded = recorded(t.Recorded, len(t.Ranks))
	return rep
}

// Graph summarises an execution graph.
func Graph(g *graph.Graph) *Report {
	rep := &Report{Level: "graph", Ranks: g.NumRanks(), Events: int64(g.NumOps())}
	var kinds [3]Kind
	regions := map[int32]*Region{}
	var sizes []int64
	for id, k := range g.Kind {
		kc := &kinds[k]
		kc.Count++
		switch k {
		case graph.Calc:
			addSat(&kc.TimeNs, g.Size[id])
			reg := regions[g.Region[id]]
			if reg == nil {
				reg = &Region{Name: g.RegionName(int32(id))}
				regions[g.Region[id]] = reg
			}
			reg.Count++
			addSat(&reg.TimeNs, g.Size[id])
		case graph.Send:
			addSat(&kc.Bytes, g.Size[id])
			sizes = append(sizes, g.Size[id])
		case graph.Recv:
			addSat(&kc.Bytes, g.Size[id])
		}
	}
	for k, kc := range kinds {
		if kc.Count > 0 {
			kc.Kind = graph.OpKind(k).String()
			rep.Operations = append(rep.Operations, kc)
		}
	}
	rep.Messages = summarise(sizes)
	rep.Regions = sortRegions(regions)
	rep.Recorded = recorded(g.Recorded, g.NumRanks())
	return rep
}

func regionName(t *mpi.Trace, id int32) string {
	if id >= 0 && int(id) < len(t.Regions) {
		return t.Regions[id]
	}
	return fmt.Sprintf("region %d", id)
}

func commName(t *mpi.Trace, id int32) string {
	if c := t.Comm(id); c != nil && c.Name != "" {
		return c.Name
	}
	return fmt.Sprintf("comm %d", id)
}

// sortRegions lists regions by time, longest first, then by name.
func sortRegions(m map[int32]*Region) []Region {
	out := make([]Region, 0, len(m))
	for _, r := range m {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b Region) int { return cmp.Or(cmp.Compare(b.TimeNs, a.TimeNs), cmp.Compare(a.Name, b.Name)) })
	return out
}

// summarise returns the statistics of sizes (which it sorts).
func summarise(sizes []int64) Sizes {
	var s Sizes
	if len(sizes) == 0 {
		return s
	}
	slices.Sort(sizes)
	s.Count, s.Min, s.Max = int64(len(sizes)), sizes[0], sizes[len(sizes)-1]
	s.Median = sizes[(len(sizes)-1)/2]
	for _, v := range sizes {
		addSat(&s.Total, v)
		le := int64(0)
		switch n := bits.Len64(uint64(v - 1)); {
		case v <= 0:
		case n >= 63:
			le = math.MaxInt64
		default:
			le = int64(1) << n
		}
		if n := len(s.Histogram); n > 0 && s.Histogram[n-1].Le == le {
			s.Histogram[n-1].Count++
		} else {
			s.Histogram = append(s.Histogram, Bin{Le: le, Count: 1})
		}
	}
	return s
}

// recorded converts a trace's recorded run; nil when it has none.
func recorded(rec *graph.Recorded, n int) *Recorded {
	if !rec.Known() {
		return nil
	}
	all, off := rec.TotalGapNs()
	out := &Recorded{JobNs: rec.JobNs(), GapNs: all, OffNs: off, GapKept: rec.GapsKept, Note: rec.Note(), StartSpreadNs: rec.StartSpreadNs()}
	for r := range n {
		rr := RankRecord{Rank: r, SpanNs: rec.RankNs(r)}
		if r < len(rec.StartNs) {
			rr.StartNs = rec.StartNs[r]
		}
		if r < len(rec.OffNs) {
			rr.OffNs = rec.OffNs[r]
		}
		if r < len(rec.OutsideNs) {
			rr.OutsideNs = rec.OutsideNs[r]
		}
		out.Ranks = append(out.Ranks, rr)
	}
	return out
}

// Saturated is the value of a count, byte or time sum that went past
// int64 (16 ranks of 9·10^17 ns each): it stays at math.MaxInt64 rather
// than wrapping to a negative total.
const Saturated = math.MaxInt64

// addSat adds d ≥ 0 to *x, saturating at Saturated.
func addSat(x *int64, d int64) {
	if d > 0 && *x > Saturated-d {
		*x = Saturated
		return
	}
	*x += d
}
