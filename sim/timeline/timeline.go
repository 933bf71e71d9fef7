// Package timeline writes a replay as a timeline that Perfetto
// (ui.perfetto.dev) opens: Chrome's trace-event JSON, or Perfetto's own
// protobuf trace format (a .perfetto-trace file, far smaller and faster to
// load). Each rank is a process ("rank 12 (node 1)") with one thread per
// CPU the trace uses, each operation's CPU time is a slice on its CPU's
// thread (so slices on one track never overlap), a flow arrow joins each
// send to the receive that matched it, and counters (power per rank, per
// node, for the job against its cap; under the flow model, the flows
// crossing each link) are counter tracks. A Writer is a sim.Observer and
// a sim.LinkObserver.
//
// Options select ranks (ParseRanks: "0-15,512") and a time window
// (ParseWindow: "2ms:3.5ms"): slices are cut at the window's edges, flows
// are kept when both ends are shown, and counters keep the value in force
// at the window's start.
package timeline

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/capsim/capsim/traces/graph"
)

// Format is a timeline file format.
type Format uint8

// The timeline formats.
const (
	// JSON is Chrome's trace-event JSON (chrome://tracing, Perfetto).
	JSON Format = iota
	// Perfetto is Perfetto's protobuf trace (TracePacket stream).
	Perfetto
)

// FormatFor returns the format a file name asks for: Perfetto for names
// ending in .perfetto-trace, .pftrace or .pb, JSON otherwise.
func FormatFor(path string) Format {
	p := strings.ToLower(path)
	for _, ext := range []string{".perfetto-trace", ".pftrace", ".pb"} {
		if strings.HasSuffix(p, ext) {
			return Perfetto
		}
	}
	return JSON
}

// Options selects what a timeline shows and how it is written. The zero
// value shows every rank over the whole run as JSON.
type Options struct {
	// Ranks, when not nil, has an entry per rank of the graph: true for
	// the ranks to show (see ParseRanks).
	Ranks []bool
	// From and To bound the window shown, in ns; To ≤ 0 means the end of
	// the run (see ParseWindow).
	From, To int64
	// RanksPerNode, when > 0, names each rank's node in its process name
	// ("rank 12 (node 1)"), with ranks numbered onto nodes in blocks.
	RanksPerNode int
	// Format is the file format.
	Format Format
}

// Writer streams a timeline as the engine reports it. Create it with New
// or NewWith, pass it as sim.Options.Observer, and Close it after the
// replay.
type Writer struct {
	w    *bufio.Writer
	g    *graph.Graph
	rank []int32 // rank of each op
	opt  Options
	out  sink
	// counters maps a counter name to its track number and to the last
	// sample before the window (emitted at From when the window opens).
	counters map[string]int
	names    []string // counter names by track number
	owner    []int    // the rank of each counter track, or ownerJob, ownerNetwork
	links    []int    // counter track + 1 of each link (LinkFlows), 0 for none yet
	before   []sample
	flows    uint64
	recv     pending // a receive's slice waiting for its message's report
	err      error
}

// Counter track owners other than a rank.
const (
	ownerJob     = -1 // job-wide counters (Counter)
	ownerNetwork = -2 // the links' counters (LinkFlows)
)

type pending struct {
	op         int32
	start, end int64
	set        bool
}

type sample struct {
	ts    int64
	value float64
	set   bool
}

// sink is one file format.
type sink interface {
	header(t *Writer)
	slice(t *Writer, op int32, cpu uint8, start, end int64)
	// flow joins send's slice to recv's; recvCPU is the CPU that
	// processed the message.
	flow(t *Writer, id uint64, send, recv int32, recvCPU uint8, sent, matched int64)
	counterTrack(t *Writer, track int, name string)
	counter(t *Writer, track int, ts int64, value float64)
	trailer(t *Writer)
}

// New returns a Writer producing a JSON timeline of every rank of g on w.
func New(w io.Writer, g *graph.Graph) *Writer {
	t, _ := NewWith(w, g, Options{})
	return t
}

// NewWith returns a Writer producing a timeline of g on w as opt says.
func NewWith(w io.Writer, g *graph.Graph, opt Options) (*Writer, error) {
	if opt.Ranks != nil && len(opt.Ranks) != g.NumRanks() {
		return nil, fmt.Errorf("timeline: rank selection has %d entries for %d ranks", len(opt.Ranks), g.NumRanks())
	}
	if opt.From < 0 || (opt.To > 0 && opt.To <= opt.From) {
		return nil, fmt.Errorf("timeline: window %d:%d ns is empty or negative", opt.From, opt.To)
	}
	if opt.RanksPerNode < 0 {
		return nil, fmt.Errorf("timeline: %d ranks per node", opt.RanksPerNode)
	}
	t := &Writer{w: bufio.NewWriterSize(w, 1<<16), g: g, rank: g.OpRanks(), opt: opt, counters: map[string]int{}}
	switch opt.Format {
	case JSON:
		t.out = &jsonSink{first: true}
	case Perfetto:
		t.out = &protoSink{}
	default:
		return nil, fmt.Errorf("timeline: unknown format %d", opt.Format)
	}
	t.out.header(t)
	return t, nil
}

func (t *Writer) write(b []byte) {
	if t.err == nil {
		_, t.err = t.w.Write(b)
	}
}

// shown reports whether rank r is shown.
func (t *Writer) shown(r int32) bool { return t.opt.Ranks == nil || t.opt.Ranks[r] }

// clip cuts [start, end] to the window; ok is false when the slice lies
// outside it (a slice that only touches the window's start is outside).
func (t *Writer) clip(start, end int64) (int64, int64, bool) {
	if end < t.opt.From || (end == t.opt.From && start < end) || (t.opt.To > 0 && start > t.opt.To) {
		return 0, 0, false
	}
	start = max(start, t.opt.From)
	if t.opt.To > 0 {
		end = min(end, t.opt.To)
	}
	return start, end, true
}

func (t *Writer) inWindow(ts int64) bool {
	return ts >= t.opt.From && (t.opt.To <= 0 || ts <= t.opt.To)
}

// processName is the name of rank r's process.
func (t *Writer) processName(r int) string {
	if t.opt.RanksPerNode > 0 {
		return fmt.Sprintf("rank %d (node %d)", r, r/t.opt.RanksPerNode)
	}
	return fmt.Sprintf("rank %d", r)
}

// cpus returns, per rank, the CPUs that do its work, in increasing order:
// those of its calcs and sends, and those that process the messages sent
// to it (the engine, like LogGOPSim, processes a message on the
// receiver's CPU numbered as the send's).
func (t *Writer) cpus() [][]uint8 {
	g := t.g
	used := make([][graph.MaxCPU + 1]bool, g.NumRanks())
	for id, k := range g.Kind {
		switch k {
		case graph.Calc:
			used[t.rank[id]][g.CPU[id]] = true
		case graph.Send:
			used[t.rank[id]][g.CPU[id]] = true
			if p := g.Peer[id]; p >= 0 && int(p) < len(used) {
				used[p][g.CPU[id]] = true
			}
		}
	}
	out := make([][]uint8, g.NumRanks())
	for r := range out {
		for c, u := range used[r] {
			if u {
				out[r] = append(out[r], uint8(c))
			}
		}
		if len(out[r]) == 0 {
			out[r] = []uint8{0}
		}
	}
	return out
}

// Busy records a slice for operation op on the track of the CPU that ran
// it. A receive's slice is the processing of its message, which ran on
// the CPU the message's send names; the engine reports the message (see
// Message) right after, so the slice waits for it.
func (t *Writer) Busy(op int32, start, end int64) {
	t.flushRecv()
	if t.g.Kind[op] == graph.Recv {
		t.recv = pending{op, start, end, true}
		return
	}
	t.busy(op, t.g.CPU[op], start, end)
}

func (t *Writer) busy(op int32, cpu uint8, start, end int64) {
	if !t.shown(t.rank[op]) {
		return
	}
	s, e, ok := t.clip(start, end)
	if !ok {
		return
	}
	t.out.slice(t, op, cpu, s, e)
}

// flushRecv writes a receive's slice that no message report followed, on
// the receive's own CPU.
func (t *Writer) flushRecv() {
	if p := t.recv; p.set {
		t.recv.set = false
		t.busy(p.op, t.g.CPU[p.op], p.start, p.end)
	}
}

// Message records a flow arrow from the send's slice to the receive's,
// when both ranks are shown and both ends lie in the window.
func (t *Writer) Message(send, recv int32, sent, matched int64) {
	if p := t.recv; p.set && p.op == recv {
		t.recv.set = false
		t.busy(recv, t.g.CPU[send], p.start, p.end)
	}
	if !t.shown(t.rank[send]) || !t.shown(t.rank[recv]) || !t.inWindow(sent) || !t.inWindow(matched) {
		return
	}
	t.flows++
	t.out.flow(t, t.flows, send, recv, t.g.CPU[send], sent, matched)
}

// Counter adds a sample of a job-wide counter to the timeline: track name
// shows value from ts (ns) until the next sample of the same name.
// Perfetto draws one counter track per name, e.g. the job's power. Call it
// before Close, in increasing ts per name. Non-finite values are skipped
// (JSON cannot hold them); a sample before the window is held back and
// shown at the window's start, one after it is dropped.
func (t *Writer) Counter(name string, ts int64, value float64) {
	t.CounterOn(ownerJob, name, ts, value)
}

// CounterOn is Counter for a counter of one rank (its power, say), shown
// with that rank's process; rank −1 is Counter. Samples of ranks that are
// not shown are dropped.
func (t *Writer) CounterOn(rank int, name string, ts int64, value float64) {
	if math.IsNaN(value) || math.IsInf(value, 0) {
		return
	}
	if rank < ownerJob || rank >= 0 && (rank >= t.g.NumRanks() || !t.shown(int32(rank))) {
		return
	}
	k, ok := t.counters[name]
	if !ok {
		k = t.track(rank, name)
		t.counters[name] = k
	}
	t.sample(k, ts, value)
}

// LinkFlows implements sim.LinkObserver: under the flow model, each link
// that carries a flow gets a counter track "link ID flows" (in a
// "network" process after the ranks) showing how many flows cross it.
// Like every counter, it is cut to the window; it does not depend on the
// ranks shown.
func (t *Writer) LinkFlows(link int32, ts int64, flows int32) {
	if link < 0 {
		return
	}
	for int(link) >= len(t.links) {
		t.links = append(t.links, 0)
	}
	k := t.links[link] - 1
	if k < 0 {
		k = t.track(ownerNetwork, "link "+strconv.Itoa(int(link))+" flows")
		t.links[link] = k + 1
	}
	t.sample(k, ts, float64(flows))
}

// track declares a new counter track of owner and returns its number.
func (t *Writer) track(owner int, name string) int {
	k := len(t.names)
	t.names = append(t.names, name)
	t.owner = append(t.owner, owner)
	t.before = append(t.before, sample{})
	t.out.counterTrack(t, k, name)
	return k
}

// sample adds a sample to counter track k, holding back one before the
// window and dropping one after it.
func (t *Writer) sample(k int, ts int64, value float64) {
	switch {
	case ts < t.opt.From:
		t.before[k] = sample{ts, value, true}
		return
	case t.opt.To > 0 && ts > t.opt.To:
		return
	}
	if b := t.before[k]; b.set {
		t.before[k].set = false
		if ts > t.opt.From {
			t.out.counter(t, k, t.opt.From, b.value)
		}
	}
	t.out.counter(t, k, ts, value)
}

// Close finishes the document and flushes it. It returns the first write
// error.
func (t *Writer) Close() error {
	t.flushRecv()
	for k := range t.names { // counters whose samples all preceded the window
		if b := t.before[k]; b.set {
			t.before[k].set = false
			t.out.counter(t, k, t.opt.From, b.value)
		}
	}
	t.out.trailer(t)
	if t.err == nil {
		t.err = t.w.Flush()
	}
	return t.err
}

// ParseRanks parses a rank selection such as "0-15,512" for a graph of n
// ranks: comma-separated ranks and inclusive ranges. An empty spec selects
// every rank (nil).
func ParseRanks(spec string, n int) ([]bool, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, nil
	}
	sel := make([]bool, n)
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil || a < 0 {
			return nil, fmt.Errorf("timeline ranks %q: %q is not a rank or a range like 0-15", spec, part)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil || b < a {
				return nil, fmt.Errorf("timeline ranks %q: %q is not a range like 0-15", spec, part)
			}
		}
		if b >= n {
			return nil, fmt.Errorf("timeline ranks %q: rank %d, but the trace has %d ranks (0-%d)", spec, b, n, n-1)
		}
		for r := a; r <= b; r++ {
			sel[r] = true
		}
	}
	return sel, nil
}

// ParseWindow parses a time window FROM:TO, each a time with a unit (ns,
// us or µs, ms, s; a bare number is ns) or empty for the start or end of
// the run, e.g. "2ms:3.5ms", "1.5s:", ":250us". It returns ns; to is 0 for
// the end of the run.
func ParseWindow(spec string) (from, to int64, err error) {
	a, b, ok := strings.Cut(strings.TrimSpace(spec), ":")
	if !ok {
		return 0, 0, fmt.Errorf("timeline window %q: want FROM:TO, e.g. 2ms:3.5ms", spec)
	}
	if from, err = parseTime(a, 0); err != nil {
		return 0, 0, fmt.Errorf("timeline window %q: %w", spec, err)
	}
	if to, err = parseTime(b, 0); err != nil {
		return 0, 0, fmt.Errorf("timeline window %q: %w", spec, err)
	}
	if strings.TrimSpace(b) != "" && to <= from {
		return 0, 0, fmt.Errorf("timeline window %q: its end is not after its start", spec)
	}
	return from, to, nil
}

// parseTime parses a time with a unit into ns; empty gives def.
func parseTime(s string, def int64) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return def, nil
	}
	num, scale := s, 1.0
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}} {
		if strings.HasSuffix(s, u.suffix) {
			num, scale = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.scale
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || v < 0 || v*scale > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is not a time such as 2.5ms (units ns, us, ms, s)", s)
	}
	return int64(math.Round(v * scale)), nil
}
