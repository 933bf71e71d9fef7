package simgrid

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/capsim/capsim/traces/mpi"
)

// maxLine bounds one line of a trace (an alltoallv line of a large job
// lists two counts per rank).
const maxLine = 64 << 20

// anySource and anyTag are SMPI's MPI_ANY_SOURCE and MPI_ANY_TAG. SimGrid
// 3.32 records a receive from MPI_ANY_SOURCE as -333 (MPI_UNDEFINED, the
// world rank of no process); Read takes any negative source of a receive as
// a wildcard.
const (
	anySource = -555
	anyTag    = -444
)

// SMPI's tracer records a send to MPI_PROC_NULL with the destination
// -333 (MPI_UNDEFINED, the world rank of no process); SMPI's own
// MPI_PROC_NULL is -666. Read takes a send to either as the no-op that
// MPI makes of it.
const (
	undefinedRank = -333
	procNull      = -666
)

// nullReq marks a pending request to MPI_PROC_NULL: its wait is a no-op.
const nullReq = -1

// Read reads the TI trace at path: an index file that lists one action
// file per rank (relative to the index's folder), or a single action file
// with the lines of every rank. The result has one rank per listed file, or
// as many ranks as the single file names (ranks 0 to the largest).
func Read(path string, opt Options) (*mpi.Trace, error) {
	if opt.Speed < 0 || math.IsNaN(opt.Speed) || math.IsInf(opt.Speed, 0) {
		return nil, fmt.Errorf("simgrid: host speed %g flop/s is not a positive number", opt.Speed)
	}
	files, err := layout(path)
	if err != nil {
		return nil, err
	}
	p := &parser{speed: opt.Speed}
	if p.speed == 0 {
		if p.speed, err = speedComment(files[0]); err != nil {
			return nil, err
		}
	}
	if len(files) == 1 {
		n, err := countRanks(files[0])
		if err != nil {
			return nil, err
		}
		p.init(n)
		if err := p.readFile(files[0], -1); err != nil {
			return nil, err
		}
	} else {
		p.init(len(files))
		p.files = files
		for r, f := range files {
			if err := p.readFile(f, r); err != nil {
				return nil, err
			}
		}
	}
	if err := p.resolveProbes(); err != nil {
		return nil, err
	}
	if err := p.checkTruncation(); err != nil {
		return nil, err
	}
	p.finish()
	return p.t, nil
}

// layout returns the action files of the trace at path: the files its
// index lists, or path itself when it is an action file.
func layout(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("simgrid: %w", err)
	}
	defer f.Close()
	sc := newScanner(f)
	var files []string
	line := 0
	for sc.Scan() {
		line++
		l := bytes.TrimSpace(sc.Bytes())
		if len(l) == 0 || l[0] == '#' {
			continue
		}
		if len(files) == 0 && !firstIndexLine(l) {
			return []string{path}, nil // the first action: an action file
		}
		if actionLine(l) {
			return nil, &Error{File: path, Line: line, Msg: fmt.Sprintf("an index lists one file per line, not the action %q", truncate(l))}
		}
		name := string(l)
		if !filepath.IsAbs(name) {
			name = filepath.Join(filepath.Dir(path), name)
		}
		if _, err := os.Stat(name); err != nil {
			return nil, &Error{File: path, Line: line, Msg: fmt.Sprintf("the index lists %q, which cannot be read: %v", truncate(l), err)}
		}
		files = append(files, name)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("simgrid: %s: %w", path, err)
	}
	if len(files) == 0 {
		return nil, &Error{File: path, Msg: "no actions and no files listed: not a SimGrid time-independent trace"}
	}
	return files, nil
}

// An index line is a whole path, spaces included, as SimGrid's replay
// takes each line of the index it is given.

// firstIndexLine reports whether l, the first line of a file that is not
// blank or a comment, trimmed, makes the file an index: it does not read
// as an action, and it is one field or names a .txt file as SimGrid's
// indexes do. Any other line starts an action file, whose parser names
// what is wrong with it.
func firstIndexLine(l []byte) bool {
	return !actionLine(l) && (len(bytes.Fields(l)) == 1 || bytes.HasSuffix(l, []byte(".txt")))
}

// actionLine reports whether l, trimmed, reads as an action: a rank, then
// an action capsim knows.
func actionLine(l []byte) bool {
	f := bytes.Fields(l)
	if len(f) < 2 {
		return false
	}
	_, rank := parseUint(f[0])
	_, known := actions[string(f[1])]
	return rank && known
}

func newScanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	return sc
}

// speedComment returns the speed stated by the SpeedComment line among
// the leading comments of file, or DefaultSpeed.
func speedComment(file string) (float64, error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, fmt.Errorf("simgrid: %w", err)
	}
	defer f.Close()
	sc := newScanner(f)
	line := 0
	for sc.Scan() {
		line++
		l := strings.TrimSpace(sc.Text())
		if l == "" {
			continue
		}
		if !strings.HasPrefix(l, "#") {
			break
		}
		if v, ok := strings.CutPrefix(l, SpeedComment); ok {
			s, err := ParseSpeed(strings.TrimSpace(v))
			if err != nil {
				return 0, &Error{File: file, Line: line, Msg: err.Error()}
			}
			return s, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("simgrid: %s: %w", file, err)
	}
	return DefaultSpeed, nil
}

// ParseSpeed reads a host speed in flop/s as SimGrid writes it: a number
// with an optional unit, "f" (flop/s) with an SI prefix (k, M, G, T, P, E)
// or an IEC one (Ki, Mi, …), e.g. "1Gf", "20000f", "2.5e9".
func ParseSpeed(s string) (float64, error) {
	num := strings.TrimSuffix(strings.TrimSuffix(s, "f"), "flops")
	mult := 1.0
	for _, u := range []struct {
		p string
		m float64
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40}, {"Pi", 1 << 50}, {"Ei", 1 << 60},
		{"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18}} {
		if v, ok := strings.CutSuffix(num, u.p); ok {
			num, mult = v, u.m
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("host speed %q is not a positive number of flop/s (e.g. 1Gf)", s)
	}
	return v * mult, nil
}

// countRanks returns 1 + the largest rank of a single-file trace.
func countRanks(file string) (int, error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, fmt.Errorf("simgrid: %w", err)
	}
	defer f.Close()
	sc := newScanner(f)
	n, line := 0, 0
	var seen []bool // ranks with lines, so that a gap is found before a trace is allocated
	for sc.Scan() {
		line++
		l := bytes.TrimSpace(sc.Bytes())
		if len(l) == 0 || l[0] == '#' {
			continue
		}
		tok := l
		if i := bytes.IndexAny(l, " \t"); i >= 0 {
			tok = l[:i]
		}
		r, ok := parseUint(tok)
		if ok && r >= 1<<24 {
			// A number, but not a rank of any run: say so rather than
			// that the line does not start with a rank.
			return 0, &Error{File: file, Line: line, Msg: fmt.Sprintf("rank %s is past the most ranks a trace may have (%d)", truncate(tok), 1<<24)}
		}
		if !ok {
			return 0, &Error{File: file, Line: line, Msg: fmt.Sprintf("a line starts with its rank, not %q", truncate(tok))}
		}
		n = max(n, int(r)+1)
		if n > len(seen) {
			seen = append(seen, make([]bool, n-len(seen))...)
		}
		seen[r] = true
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("simgrid: %s: %w", file, err)
	}
	if n == 0 {
		return 0, &Error{File: file, Msg: "no actions"}
	}
	for r, ok := range seen {
		if !ok {
			return 0, &Error{File: file, Msg: fmt.Sprintf("rank %d has no actions but rank %d has: is this one rank's file of a per-rank trace? Pass the index file that lists them all", r, n-1)}
		}
	}
	return n, nil
}

// pending is a started isend or irecv that no wait has completed yet,
// identified as SimGrid's replay does by (source, destination, tag) in
// world ranks; src is -1 for a receive from any source.
type pending struct {
	src, dst, tag int64
	req           int64
}

type rankState struct {
	dtype   int64 // size of the default datatype (MPI_BYTE, or MPI_DOUBLE after "init x")
	nextReq int64
	pending []pending
	region  int32 // region of the next compute (named by "location")
	seen    bool
	colls   []collRec // its gathers, scatters, allgathers and alltoalls, for checkTruncation
	lists   []int64   // their per-peer sizes
}

type parser struct {
	t       *mpi.Trace
	speed   float64
	n       int64
	ranks   []rankState
	compute int32   // region "compute"
	cur     collRec // the collective being read
	curRank int     // and its rank
	probes  []probe // receives of unknown size
	sleep   int32   // region "sleep"
	list    []int64
	// dl is the trace's dialect, decided while its first file is read;
	// the lines read before are held until it is.
	dl    dialect
	held  heldLines
	files []string // the action file of each rank, where an index lists them

	// position, for errors
	file   string
	line   int
	action string
}

func (p *parser) init(n int) {
	p.t = mpi.NewTrace(n)
	p.n = int64(n)
	p.ranks = make([]rankState, n)
	p.compute = p.t.Region("compute")
	p.sleep = p.t.Region("sleep")
	for i := range p.ranks {
		p.ranks[i] = rankState{dtype: 1, region: p.compute}
	}
}

// finish completes every request still pending at a rank's end, as
// SimGrid's replay does after the last action.
func (p *parser) finish() {
	for r := range p.ranks {
		st := &p.ranks[r]
		p.waitPending(r, st)
	}
}

// waitPending appends a waitall for every pending request of rank r but
// those to MPI_PROC_NULL, and empties the pending list.
func (p *parser) waitPending(r int, st *rankState) {
	p.list = p.list[:0]
	for _, q := range st.pending {
		if q.req != nullReq {
			p.list = append(p.list, q.req)
		}
	}
	st.pending = st.pending[:0]
	if len(p.list) > 0 {
		p.t.AppendList(r, mpi.Event{Kind: mpi.Waitall, Comm: mpi.World}, p.list)
	}
}

// readFile parses an action file; rank is the rank the index gives it, or
// -1 for a single-file trace. The lines of the trace's first file are held
// until they decide its dialect (p.dl), then parsed in their order.
func (p *parser) readFile(file string, rank int) error {
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("simgrid: %w", err)
	}
	defer f.Close()
	p.file, p.line = file, 0
	for r := range p.t.Ranks {
		if r == rank || rank < 0 {
			p.t.Ranks[r].File = file
		}
	}
	sc := newScanner(f)
	var fields [][]byte
	for sc.Scan() {
		p.line++
		fields = splitFields(fields[:0], sc.Bytes())
		if len(fields) == 0 || fields[0][0] == '#' {
			continue
		}
		if !p.dl.decided {
			if !p.dl.see(fields) {
				p.held.add(p.line, sc.Bytes())
				continue
			}
			if err := p.flush(rank); err != nil {
				return err
			}
		}
		if err := p.parseLine(fields, rank); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if !p.dl.decided {
			return fmt.Errorf("simgrid: %s: %w", file, err)
		}
		return fmt.Errorf("simgrid: %s:%d: %w", file, p.line+1, err)
	}
	if !p.dl.decided { // no line told: today's dialect
		p.dl.decided = true
		if err := p.flush(rank); err != nil {
			return err
		}
	}
	if rank >= 0 && !p.ranks[rank].seen {
		p.line = 0
		return p.errorf("no actions for rank %d", rank)
	}
	if rank < 0 {
		for r := range p.ranks {
			if !p.ranks[r].seen {
				p.line = 0
				return p.errorf("rank %d has no actions but rank %d has: is this one rank's file of a per-rank trace? Pass the index file that lists them all", r, p.n-1)
			}
		}
	}
	return nil
}

// parseLine applies one action line of the file the index gives rank
// (-1: a single-file trace), split into fields.
func (p *parser) parseLine(fields [][]byte, rank int) error {
	p.action = ""
	r, ok := parseUint(fields[0])
	if !ok || int64(r) >= p.n {
		if rank >= 0 {
			return p.errorf("a line starts with the rank of its file (%d), not %q", rank, truncate(fields[0]))
		}
		return p.errorf("a line starts with its rank (0..%d), not %q", p.n-1, truncate(fields[0]))
	}
	if rank >= 0 && int(r) != rank {
		return p.errorf("line of rank %d in the file the index lists for rank %d; the index lists %s for rank %d: a rank file copied over another?", r, rank, p.files[r], r)
	}
	if len(fields) < 2 {
		return p.errorf("rank %d with no action", r)
	}
	if err := p.do(int(r), fields); err != nil {
		return err
	}
	p.t.Mark(int(r), int32(p.line))
	return nil
}

// flush parses the held lines, each at its own line number, and empties
// the hold.
func (p *parser) flush(rank int) error {
	at := p.line
	var fields [][]byte
	for i := range p.held.lines {
		p.line = p.held.lines[i]
		fields = splitFields(fields[:0], p.held.line(i))
		if err := p.parseLine(fields, rank); err != nil {
			return err
		}
	}
	p.line = at
	p.held = heldLines{}
	return nil
}

// heldLines are lines read before the dialect was decided, back to back.
type heldLines struct {
	text  []byte
	ends  []int // the end of each line in text
	lines []int // its line number
}

func (h *heldLines) add(line int, text []byte) {
	h.text = append(h.text, text...)
	h.ends = append(h.ends, len(h.text))
	h.lines = append(h.lines, line)
}

// line returns held line i.
func (h *heldLines) line(i int) []byte {
	start := 0
	if i > 0 {
		start = h.ends[i-1]
	}
	return h.text[start:h.ends[i]]
}

// splitFields appends the space- or tab-separated fields of line to dst.
func splitFields(dst [][]byte, line []byte) [][]byte {
	for i := 0; i < len(line); {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		if j > i {
			dst = append(dst, line[i:j])
		}
		i = j
	}
	return dst
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

func (p *parser) errorf(format string, a ...any) error {
	return &Error{File: p.file, Line: p.line, Action: p.action, Msg: fmt.Sprintf(format, a...)}
}

// truncate shortens a token for an error message.
func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// parseUint parses a non-negative decimal integer without allocating.
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// number parses argument i of f (f[0] is the rank, f[1] the action) as
// SimGrid does: a decimal number, integral or not.
func (p *parser) number(f [][]byte, i int, what string) (float64, error) {
	if i >= len(f) {
		return 0, p.errorf("missing %s (argument %d)", what, i-1)
	}
	if v, ok := parseUint(f[i]); ok {
		return float64(v), nil
	}
	if len(f[i]) > 1 && f[i][0] == '-' {
		if v, ok := parseUint(f[i][1:]); ok {
			return -float64(v), nil
		}
	}
	v, err := strconv.ParseFloat(string(f[i]), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, p.errorf("%s %q is not a number", what, truncate(f[i]))
	}
	return v, nil
}

// integer parses argument i as an integer in [lo, hi].
func (p *parser) integer(f [][]byte, i int, what string, lo, hi int64) (int64, error) {
	v, err := p.number(f, i, what)
	if err != nil {
		return 0, err
	}
	v = math.Trunc(v)
	if v < float64(lo) || v > float64(hi) {
		return 0, p.errorf("%s %s outside %d..%d", what, f[i], lo, hi)
	}
	return int64(v), nil
}

// maxCount bounds element counts so that count × datatype size fits.
const maxCount = 1 << 40

func (p *parser) count(f [][]byte, i int, what string) (int64, error) {
	return p.integer(f, i, what, 0, maxCount)
}

// dtype returns the size of the datatype named by argument i, or def when
// the trace leaves it out.
func (p *parser) dtype(f [][]byte, i int, def int64) (int64, error) {
	if i >= len(f) {
		return def, nil
	}
	id, ok := parseUint(f[i])
	if !ok || id >= uint64(len(datatypeSize)) {
		return 0, p.errorf("unknown datatype id %q (SMPI's predefined datatypes are 0..%d)", truncate(f[i]), len(datatypeSize)-1)
	}
	return datatypeSize[id], nil
}

// duration turns flops into nanoseconds at the host speed.
func (p *parser) duration(flops float64, what string) (int64, error) {
	if flops < 0 {
		return 0, p.errorf("negative %s %g", what, flops)
	}
	ns := math.Round(flops / p.speed * 1e9)
	if ns > 1<<62 {
		return 0, p.errorf("%s %g lasts more than 2^62 ns at %g flop/s", what, flops, p.speed)
	}
	return int64(ns), nil
}

// nullPeer reports whether argument i is the destination SMPI records for
// MPI_PROC_NULL.
func (p *parser) nullPeer(f [][]byte, i int) bool {
	if i >= len(f) {
		return false
	}
	v := string(f[i])
	return v == strconv.Itoa(undefinedRank) || v == strconv.Itoa(procNull)
}

// doNullSend checks a send or isend to MPI_PROC_NULL and keeps an isend's
// request pending, so that its wait finds it, without sending anything.
func (p *parser) doNullSend(r int, f [][]byte) error {
	st := &p.ranks[r]
	at := 4
	var tag int32
	if p.dl.legacy {
		at = 3
	} else {
		var err error
		if tag, err = p.tag(f, 3, false); err != nil {
			return err
		}
	}
	if _, err := p.integer(f, at, "size", 0, maxCount); err != nil {
		return err
	}
	if _, err := p.dtype(f, at+1, st.dtype); err != nil {
		return err
	}
	if p.action == "isend" {
		dst, _ := strconv.ParseInt(string(f[2]), 10, 64)
		st.pending = append(st.pending, pending{src: int64(r), dst: dst, tag: int64(tag), req: nullReq})
	}
	return nil
}

// peer parses a rank argument; a receive's negative rank is any source.
func (p *parser) peer(f [][]byte, i int, recv bool) (int32, error) {
	v, err := p.integer(f, i, "rank", math.MinInt32, math.MaxInt32)
	if err != nil {
		return 0, err
	}
	if v >= p.n {
		if p.n == 1 {
			return 0, p.errorf("rank %d is not a rank of this one-rank trace: is this one rank's file of a per-rank trace? Pass the index file that lists them all", v)
		}
		return 0, p.errorf("rank %d is not a rank (0..%d)", v, p.n-1)
	}
	if v < 0 {
		if recv {
			return mpi.AnySource, nil
		}
		return 0, p.errorf("rank %d is not a rank (0..%d), nor MPI_PROC_NULL as SMPI records it (%d or %d)", v, p.n-1, undefinedRank, procNull)
	}
	return int32(v), nil
}

func (p *parser) tag(f [][]byte, i int, recv bool) (int32, error) {
	v, err := p.integer(f, i, "tag", math.MinInt32, math.MaxInt32)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		if recv && v == anyTag {
			return mpi.AnyTag, nil
		}
		return 0, p.errorf("tag %d is negative", v)
	}
	return int32(v), nil
}

// root parses an optional root argument (0 when left out).
func (p *parser) root(f [][]byte, i int) (int32, error) {
	if i >= len(f) {
		return 0, nil
	}
	v, err := p.integer(f, i, "root", 0, p.n-1)
	return int32(v), err
}

// counts parses the n per-rank counts starting at argument i into p.list
// (times size) and returns their sum.
func (p *parser) counts(f [][]byte, i int, size int64, what string) (int64, error) {
	if i+int(p.n) > len(f) {
		return 0, p.errorf("%d %s for %d ranks, want one per rank", max(0, len(f)-i), what, p.n)
	}
	p.list = p.list[:0]
	var sum int64
	for k := range int(p.n) {
		c, err := p.count(f, i+k, what)
		if err != nil {
			return 0, err
		}
		p.list = append(p.list, c*size)
		sum += c * size
	}
	return sum, nil
}

var errUnknown = errors.New("unknown action")

// do applies the action on fields f of rank r.
func (p *parser) do(r int, f [][]byte) error {
	name := f[1]
	a, ok := actions[string(name)]
	if !ok {
		p.action = truncate(name)
		return p.errorf("unknown action (SimGrid's replay knows %s)", actionList())
	}
	p.action = a.name
	st := &p.ranks[r]
	st.seen = true
	want, usage := a.min, a.usage
	if p.dl.legacy {
		want, usage = legacyUsage(a)
	}
	if len(f)-2 < want {
		return p.errorf("%d arguments, want at least %d (%s)", len(f)-2, want, usage)
	}
	switch a.kind {
	case actInit:
		if len(f) > 2 {
			st.dtype = datatypeSize[0] // MPI_DOUBLE, as SimGrid's replay
		}
	case actIgnore:
	case actCompute, actSleep:
		return p.doCompute(r, a, f)
	case actLocation:
		line, err := p.integer(f, 3, "line", 0, math.MaxInt32)
		if err != nil {
			return err
		}
		st.region = p.t.Region(fmt.Sprintf("%s:%d", f[2], line))
	case actP2P:
		return p.doP2P(r, f)
	case actWait:
		return p.doWait(r, a, f)
	case actWaitall:
		p.doWaitall(r)
	case actSendRecv:
		return p.doSendRecv(r, f)
	default:
		return p.collective(r, a, f)
	}
	return nil
}

// doCompute appends a compute (flops at the host's speed) or a sleep
// (seconds).
func (p *parser) doCompute(r int, a *action, f [][]byte) error {
	st := &p.ranks[r]
	t := p.t
	v, err := p.number(f, 2, a.args[0])
	if err != nil {
		return err
	}
	if a.kind == actSleep {
		if v < 0 || v > 1<<62/1e9 {
			return p.errorf("sleep of %g s", v)
		}
		t.Append(r, mpi.Event{Kind: mpi.Compute, Region: p.sleep, Duration: int64(math.Round(v * 1e9))})
		return nil
	}
	ns, err := p.duration(v, "flops")
	if err != nil {
		return err
	}
	t.Append(r, mpi.Event{Kind: mpi.Compute, Region: st.region, Duration: ns})
	return nil
}

// doP2P appends a blocking or nonblocking send or receive; a nonblocking
// one stays pending until a wait or waitall completes it.
func (p *parser) doP2P(r int, f [][]byte) error {
	name := p.action // today's name, also of SimGrid 3.16's "Isend" and "Irecv"
	st := &p.ranks[r]
	t, world := p.t, mpi.World
	recv := name == "recv" || name == "irecv"
	if !recv && p.nullPeer(f, 2) {
		return p.doNullSend(r, f)
	}
	peer, err := p.peer(f, 2, recv)
	if err != nil {
		return err
	}
	// SimGrid 3.16 and older: "send dst size [datatype]", every tag 0.
	var tag int32
	at := 3
	if !p.dl.legacy {
		if tag, err = p.tag(f, 3, recv); err != nil {
			return err
		}
		at = 4
	}
	v, err := p.number(f, at, "size")
	if err != nil {
		return err
	}
	if v = math.Trunc(v); v > maxCount {
		return p.errorf("size %s is past 2^40 (%d) elements", f[at], int64(maxCount))
	}
	n := int64(max(v, math.MinInt32))
	if n < 0 {
		if !recv {
			return p.errorf("negative size %d", n)
		}
		if peer == mpi.AnySource || tag == mpi.AnyTag {
			return p.errorf("a receive of unknown size (%s) from any source or with any tag: capsim cannot tell which message it receives, and so its size", f[at])
		}
		// A receive of unknown size, whose message SimGrid's replay
		// probes for: sized by resolveProbes.
		p.probes = append(p.probes, probe{rank: r, event: len(p.t.Ranks[r].Events), line: p.line, file: p.file})
		n = 0
	}
	dt, err := p.dtype(f, at+1, st.dtype)
	if err != nil {
		return err
	}
	e := mpi.Event{Comm: world, Peer: peer, Tag: tag, Bytes: n * dt}
	switch name {
	case "send":
		e.Kind = mpi.Send
	case "recv":
		e.Kind = mpi.Recv
	default:
		e.Kind, e.Req = mpi.Isend, st.nextReq
		q := pending{src: int64(r), dst: int64(peer), tag: int64(tag), req: st.nextReq}
		if recv {
			e.Kind = mpi.Irecv
			q.src, q.dst = int64(peer), int64(r)
		}
		st.nextReq++
		st.pending = append(st.pending, q)
	}
	t.Append(r, e)
	return nil
}

// doWait appends the wait for the pending request that (src, dst, tag)
// names; a test leaves the request pending.
func (p *parser) doWait(r int, a *action, f [][]byte) error {
	name := f[1]
	st := &p.ranks[r]
	if p.dl.legacy {
		// SimGrid 3.16's wait completes the last request started; its
		// test leaves it pending for a later wait.
		if n := len(st.pending); n > 0 && name[0] == 'w' {
			p.t.Append(r, mpi.Event{Kind: mpi.Wait, Comm: mpi.World, Req: st.pending[n-1].req})
			st.pending = st.pending[:n-1]
		}
		return nil
	}
	var key [3]int64
	for i := range key {
		v, err := p.integer(f, 2+i, a.args[i], math.MinInt32, math.MaxInt32)
		if err != nil {
			return err
		}
		key[i] = v
	}
	if name[0] == 't' {
		return nil // a test: the request stays pending until a wait
	}
	if len(st.pending) == 0 {
		// SimGrid's replay stops here too ("action wait not preceded by
		// any irecv or isend"); a test with none pending it passes over.
		return p.errorf("no request of rank %d is pending (every isend and irecv before it has been waited for): a wait for a request never started, or waited for twice", r)
	}
	if req, ok := st.take(key[0], key[1], key[2]); ok && req != nullReq {
		p.t.Append(r, mpi.Event{Kind: mpi.Wait, Comm: mpi.World, Req: req})
	}
	// Like SimGrid's replay, a wait for no pending request does nothing
	// (the request may have completed in an earlier test).
	return nil
}

// doWaitall appends a waitall for every pending request of rank r.
func (p *parser) doWaitall(r int) {
	p.waitPending(r, &p.ranks[r])
}

// doSendRecv appends a sendrecv as SimGrid's replay runs it: an isend and
// an irecv, then a waitall for both.
func (p *parser) doSendRecv(r int, f [][]byte) error {
	st := &p.ranks[r]
	t, world := p.t, mpi.World
	sc, err := p.count(f, 2, "send count")
	if err != nil {
		return err
	}
	dst, err := p.peer(f, 3, false)
	if err != nil {
		return err
	}
	rc, err := p.count(f, 4, "receive count")
	if err != nil {
		return err
	}
	src, err := p.peer(f, 5, true)
	if err != nil {
		return err
	}
	dt1, err := p.dtype(f, 6, st.dtype)
	if err != nil {
		return err
	}
	dt2, err := p.dtype(f, 7, st.dtype)
	if err != nil {
		return err
	}
	// SimGrid's replay sends and receives with tag 0.
	s, q := st.nextReq, st.nextReq+1
	st.nextReq += 2
	t.Append(r, mpi.Event{Kind: mpi.Isend, Comm: world, Peer: dst, Bytes: sc * dt1, Req: s})
	t.Append(r, mpi.Event{Kind: mpi.Irecv, Comm: world, Peer: src, Bytes: rc * dt2, Req: q})
	p.list = append(p.list[:0], s, q)
	t.AppendList(r, mpi.Event{Kind: mpi.Waitall, Comm: world}, p.list)
	return nil
}

// take removes and returns the first pending request that a wait for
// (src, dst, tag) completes: the same triple, or else a receive from any
// source (or with any tag) into dst.
func (st *rankState) take(src, dst, tag int64) (int64, bool) {
	at := -1
	for i, q := range st.pending {
		if q.src == src && q.dst == dst && q.tag == tag {
			at = i
			break
		}
	}
	if at < 0 {
		for i, q := range st.pending {
			if q.dst == dst && (q.src < 0 || src < 0 || q.src == src) && (q.tag < 0 || tag < 0 || q.tag == tag) {
				at = i
				break
			}
		}
	}
	if at < 0 {
		return 0, false
	}
	req := st.pending[at].req
	st.pending = append(st.pending[:at], st.pending[at+1:]...)
	return req, true
}

// collective maps a collective action: its arguments give the event's
// size and root (one step per argument layout), and a reduction's flops
// follow it as a compute.
func (p *parser) collective(r int, a *action, f [][]byte) error {
	dtype := p.ranks[r].dtype
	e := mpi.Event{Kind: a.mpi, Comm: mpi.World}
	p.cur, p.curRank = collRec{act: a, line: int32(p.line), root: -1}, r
	var comp float64 // flops of the reduction, run after the collective
	var err error
	switch a.kind {
	case actBarrier:
	case actBcast:
		err = p.bcastArgs(f, dtype, &e)
	case actReduce:
		comp, err = p.reduceArgs(a, f, dtype, &e)
	case actGather:
		err = p.gatherArgs(a, f, dtype, &e)
	case actGatherv:
		err = p.gathervArgs(a, f, dtype, &e)
	case actScatterv:
		err = p.scattervArgs(f, dtype, &e)
	case actAlltoallv:
		if err := p.alltoallvArgs(a, f, dtype, &e); err != nil {
			return err
		}
		p.t.AppendList(r, e, p.list)
		p.record(r, a, &e)
		return nil
	case actReduceScatter:
		comp, err = p.reduceScatterArgs(f, dtype, &e)
	}
	if err != nil {
		return err
	}
	p.t.Append(r, e)
	p.record(r, a, &e)
	if comp != 0 {
		ns, err := p.duration(comp, "flops")
		if err != nil {
			return err
		}
		p.t.Append(r, mpi.Event{Kind: mpi.Compute, Region: p.compute, Duration: ns})
	}
	return nil
}

// bcastArgs reads bcast count [root [dt]].
func (p *parser) bcastArgs(f [][]byte, dtype int64, e *mpi.Event) error {
	var err error
	var c, dt int64
	if c, err = p.count(f, 2, "count"); err != nil {
		return err
	}
	if e.Peer, err = p.root(f, 3); err != nil {
		return err
	}
	if dt, err = p.dtype(f, 4, dtype); err != nil {
		return err
	}
	e.Bytes = c * dt
	return nil
}

// reduceArgs reads reduce count flops [root [dt]], and allreduce and
// scan count flops [dt]; it returns the flops.
func (p *parser) reduceArgs(a *action, f [][]byte, dtype int64, e *mpi.Event) (comp float64, err error) {
	var c, dt int64
	if c, err = p.count(f, 2, "count"); err != nil {
		return 0, err
	}
	if comp, err = p.number(f, 3, "flops"); err != nil {
		return 0, err
	}
	dti := 4
	if a.mpi == mpi.Reduce {
		if e.Peer, err = p.root(f, 4); err != nil {
			return 0, err
		}
		dti = 5
	}
	if dt, err = p.dtype(f, dti, dtype); err != nil {
		return 0, err
	}
	e.Bytes = c * dt
	return comp, nil
}

// gatherArgs reads gather and scatter send recv [root [dt1 dt2]], and
// allgather and alltoall send recv [dt1 dt2].
func (p *parser) gatherArgs(a *action, f [][]byte, dtype int64, e *mpi.Event) error {
	var err error
	var sc, rc, dt1, dt2 int64
	if sc, err = p.count(f, 2, "send count"); err != nil {
		return err
	}
	if rc, err = p.count(f, 3, "receive count"); err != nil {
		return err
	}
	dti := 4
	if a.mpi.IsRooted() {
		if e.Peer, err = p.root(f, 4); err != nil {
			return err
		}
		dti = 5
	}
	if dt1, err = p.dtype(f, dti, dtype); err != nil {
		return err
	}
	if dt2, err = p.dtype(f, dti+1, dtype); err != nil {
		return err
	}
	e.Bytes = sc * dt1
	p.cur.send, p.cur.recv = sc*dt1, rc*dt2
	if a.mpi == mpi.Scatter {
		e.Bytes = rc * dt2 // what every rank receives; the root's send count is per rank too
	}
	return nil
}

// gathervArgs reads gatherv send counts×n [root [dt1 dt2]] and allgatherv
// send counts×n [dt1 dt2 [displs×n]].
func (p *parser) gathervArgs(a *action, f [][]byte, dtype int64, e *mpi.Event) error {
	n := int(p.n)
	sc, err := p.count(f, 2, "send count")
	if err != nil {
		return err
	}
	dti := 3 + n
	if a.mpi.IsRooted() {
		if e.Peer, err = p.root(f, 3+n); err != nil {
			return err
		}
		dti++
	} else if len(f) <= 3+2*n && len(f) > 5+n {
		dti = len(f) // displacements without datatypes (SimGrid's reading)
	}
	dt1, err := p.dtype(f, dti, dtype)
	if err != nil {
		return err
	}
	dt2, err := p.dtype(f, dti+1, dtype)
	if err != nil {
		return err
	}
	sum, err := p.counts(f, 3, dt2, "receive counts")
	if err != nil {
		return err
	}
	p.cur.send = sc * dt1
	if !a.mpi.IsRooted() || e.Peer == int32(p.curRank) { // the receive counts are the root's
		p.cur.recvs = p.keep(p.curRank)
	}
	e.Bytes = ceilDiv(sum, p.n) // capsim's gather moves one size per rank: the mean
	return nil
}

// scattervArgs reads scatterv counts×n recv [root [dt1 dt2]].
func (p *parser) scattervArgs(f [][]byte, dtype int64, e *mpi.Event) error {
	n := int(p.n)
	rc, err := p.count(f, 2+n, "receive count")
	if err != nil {
		return err
	}
	if e.Peer, err = p.root(f, 3+n); err != nil {
		return err
	}
	dt1, err := p.dtype(f, 4+n, dtype)
	if err != nil {
		return err
	}
	dt2, err := p.dtype(f, 5+n, dtype)
	if err != nil {
		return err
	}
	sum, err := p.counts(f, 2, dt1, "send counts")
	if err != nil {
		return err
	}
	p.cur.recv = rc * dt2
	if e.Peer == int32(p.curRank) { // the send counts are the root's
		p.cur.sends = p.keep(p.curRank)
	}
	e.Bytes = ceilDiv(sum, p.n)
	return nil
}

// alltoallvArgs reads alltoallv sendbuf counts×n recvbuf counts×n [dt1 dt2].
func (p *parser) alltoallvArgs(a *action, f [][]byte, dtype int64, e *mpi.Event) error {
	n := int(p.n)
	if len(f) < 4+2*n {
		return p.errorf("%d arguments for %d ranks, want %d (%s)", len(f)-2, n, 2+2*n, a.usage)
	}
	dt1, err := p.dtype(f, 4+2*n, dtype)
	if err != nil {
		return err
	}
	if _, err = p.count(f, 2, "send buffer size"); err != nil {
		return err
	}
	if _, err = p.count(f, 3+n, "receive buffer size"); err != nil {
		return err
	}
	dt2, err := p.dtype(f, 5+2*n, dtype)
	if err != nil {
		return err
	}
	if _, err = p.counts(f, 4+n, dt2, "receive counts"); err != nil {
		return err
	}
	p.cur.recvs = p.keep(p.curRank)
	sum, err := p.counts(f, 3, dt1, "send counts")
	if err != nil {
		return err
	}
	e.Bytes = sum
	return nil
}

// reduceScatterArgs reads reducescatter counts×n flops [dt]; it returns
// the flops.
func (p *parser) reduceScatterArgs(f [][]byte, dtype int64, e *mpi.Event) (comp float64, err error) {
	n := int(p.n)
	dt, err := p.dtype(f, 3+n, dtype)
	if err != nil {
		return 0, err
	}
	if comp, err = p.number(f, 2+n, "flops"); err != nil {
		return 0, err
	}
	if e.Bytes, err = p.counts(f, 2, dt, "receive counts"); err != nil {
		return 0, err
	}
	p.cur.sends = p.keep(p.curRank) // each member's block, which every member sends it
	return comp, nil
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
