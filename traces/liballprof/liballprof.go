// Package liballprof reads the text traces of liballprof, the MPI tracer
// of LogGOPSim (one file per rank, e.g. trace-0.dat … trace-3.dat), into an
// MPI trace (package traces/mpi).
//
// # Format
//
// Lines starting with # are comments ("# collprof 0.9 output file",
// clock differences). Every other non-empty line is one MPI call: its name
// and the call's arguments, separated by ':', with composite arguments
// (datatypes, communicators) split by ','. Times are microseconds, from
// any origin: small numbers (1.0) or the Unix epoch (1237666046950106.0);
// the first argument is the start time, the last the end time:
//
//	MPI_Init:-:ARGC:ARGV:TEND
//	MPI_Send:TSTART:BUF:COUNT:TYPE,SIZE,X:DEST:TAG:COMM,CRANK,CSIZE:TEND
//	MPI_Recv:TSTART:BUF:COUNT:TYPE,SIZE,X:SRC:TAG:COMM,CRANK,CSIZE:STATUS:TEND
//	MPI_Isend, MPI_Irecv: as MPI_Send, then REQUEST:TEND
//	MPI_Wait:TSTART:REQUEST:STATUS:TEND
//	MPI_Waitall:TSTART:N:REQUESTS:STATUSES:TEND
//	MPI_Sendrecv:TSTART:SBUF:SCOUNT:STYPE,SSIZE,X:DEST:STAG:RBUF:RCOUNT:RTYPE,RSIZE,X:SRC:RTAG:COMM,CRANK,CSIZE:STATUS:TEND
//	MPI_Barrier:TSTART:COMM,CRANK,CSIZE:TEND
//	MPI_Bcast:TSTART:BUF:COUNT:TYPE,SIZE,X:ROOT:COMM,CRANK,CSIZE:TEND
//	MPI_Reduce:TSTART:SBUF:RBUF:COUNT:TYPE,SIZE,X:OP:ROOT:COMM,CRANK,CSIZE:TEND
//	MPI_Allreduce:TSTART:SBUF:RBUF:COUNT:TYPE,SIZE,X:OP:COMM,CRANK,CSIZE:TEND
//	MPI_Allgather, MPI_Alltoall:TSTART:SBUF:SCOUNT:STYPE,SSIZE,X:RBUF:RCOUNT:RTYPE,RSIZE,X:COMM,CRANK,CSIZE:TEND
//	MPI_Finalize:TSTART:-
//
// # What is imported
//
// The reading follows what LogGOPSim's schedgen does with these traces, so
// that a replay matches LogGOPSim's after schedgen:
//
//   - The time between the end of one call and the start of the next
//     becomes a compute event (rounded to whole nanoseconds), named
//     "before MPI_X" after the call that ends it, so per-region models can
//     tell the phases before each kind of call apart. Times are read as
//     exact decimals and only their differences are used, so epoch
//     timestamps, which float64 cannot hold to the nanosecond, lose
//     nothing.
//   - The trace's Recorded holds each rank's recorded span: from the end
//     of MPI_Init to the start of MPI_Finalize (or the end of the last
//     call). Nothing of a rank's timeline lies outside it, so liballprof
//     traces have no measurement gaps.
//   - Point-to-point peers are taken as world ranks, as schedgen does;
//     MPI_Rsend is a send, MPI_Sendrecv an Isend and an Irecv completed by
//     a Waitall. A Waitall's requests are the REQUESTS address and the
//     following ones, 8 bytes apart (4 where the 8-byte reading names a
//     request that is not pending).
//   - Collectives must span all ranks (CSIZE equal to the number of rank
//     files): liballprof does not record who is in other communicators
//     (schedgen drops such collectives; this reader reports them).
//   - MPI_Comm_rank, MPI_Comm_size, MPI_Get_count, MPI_Iprobe, MPI_Test and
//     MPI_Testall take no simulated time and are skipped, as in schedgen,
//     and so are the calls that move no data and complete no request
//     (timers, queries, datatype, group and communicator constructors,
//     MPI_Probe; the list is skipped's): their time stays in the compute
//     gap around them. Other calls are errors that name the line.
//
// The collective algorithms are chosen when the trace is lowered (package
// traces/lower); schedgen's are binomial trees for MPI_Bcast and
// MPI_Reduce and dissemination for MPI_Barrier, which are lower's defaults.
package liballprof

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// Error is malformed input: it names the file and the line.
type Error struct {
	File string
	Line int // 0 when the problem is not on one line
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// GapError is a trace whose rank files skip a rank: rank Missing has no
// file, but Later, a file of a higher rank, is there. Reading the ranks up
// to the gap would silently lose the others.
type GapError struct {
	File    string // the rank-0 file
	Missing int
	Later   string
}

func (e *GapError) Error() string {
	return fmt.Sprintf("%s: the rank file of rank %d is missing, but %s is there (a trace's ranks are numbered from 0 without gaps)", e.File, e.Missing, e.Later)
}

// MaxLine bounds the length of one trace line.
const MaxLine = 1 << 16

// Sniff reports whether head, the first bytes of a file, look like a
// liballprof trace: a "# collprof" header, or comment lines followed by an
// MPI_Init record.
func Sniff(head []byte) bool {
	if bytes.HasPrefix(head, []byte("# collprof")) || bytes.HasPrefix(head, []byte("# liballprof")) {
		return true
	}
	for len(head) > 0 {
		line := head
		i := bytes.IndexByte(head, '\n')
		if i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0 || line[0] == '#':
			continue
		case bytes.HasPrefix(line, []byte("MPI_Init:")):
			return true
		default:
			return false
		}
	}
	return false
}

// rankFile matches a rank's file name: PREFIX-N.dat (N with optional
// zero padding); schedgen is given the rank-0 file and finds the others by
// replacing its 0s.
var rankFile = regexp.MustCompile(`^(.*-)(0*)([0-9]+)(\.[^/]*)?$`)

// Files returns the per-rank files of the trace that path names: the
// rank-0 file (as schedgen takes it) or the folder holding the files.
func Files(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		ents, err := os.ReadDir(path)
		if err != nil {
			return nil, err
		}
		var zeros []string
		for _, e := range ents {
			m := rankFile.FindStringSubmatch(e.Name())
			if m != nil && !e.IsDir() && strings.Trim(m[2]+m[3], "0") == "" {
				zeros = append(zeros, e.Name())
			}
		}
		switch len(zeros) {
		case 0:
			return nil, &Error{File: path, Msg: "folder holds no rank-0 file (NAME-0.dat)"}
		case 1:
			return Files(filepath.Join(path, zeros[0]))
		}
		sort.Strings(zeros)
		return nil, &Error{File: path, Msg: fmt.Sprintf("folder holds several traces (%s): pass one rank-0 file", strings.Join(zeros, ", "))}
	}
	dir, base := filepath.Split(path)
	m := rankFile.FindStringSubmatch(base)
	if m == nil {
		return []string{path}, nil // a single-rank trace
	}
	if strings.Trim(m[2]+m[3], "0") != "" {
		n, _ := strconv.Atoi(m[3])
		zero := m[1] + strings.Repeat("0", len(m[2])+len(m[3])) + m[4]
		return nil, &Error{File: path, Msg: fmt.Sprintf("this is the liballprof trace of rank %d: pass the rank-0 file %s (or the folder) and the other ranks are found", n, filepath.Join(dir, zero))}
	}
	width := len(m[2]) + len(m[3])
	var files []string
	for r := 0; ; r++ {
		f := filepath.Join(dir, fmt.Sprintf("%s%0*d%s", m[1], width, r, m[4]))
		if _, err := os.Stat(f); err != nil {
			break
		}
		files = append(files, f)
		if len(files) > 1<<20 {
			return nil, &Error{File: path, Msg: "more than 2^20 rank files"}
		}
	}
	if last := laterRank(dir, m[1], m[4], len(files)); last != "" {
		return nil, &GapError{File: path, Missing: len(files), Later: last}
	}
	return files, nil
}

// laterRank returns the name of a rank file in dir of the trace with
// prefix and suffix (PREFIX-N.SUFFIX) whose rank is above n, or "": a
// rank file found after a gap in the numbering.
func laterRank(dir, prefix, suffix string, n int) string {
	ents, err := os.ReadDir(filepath.Clean(dir + "."))
	if err != nil {
		return ""
	}
	for _, e := range ents {
		m := rankFile.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() || m[1] != prefix || m[4] != suffix {
			continue
		}
		if r, err := strconv.Atoi(m[3]); err == nil && r > n {
			return e.Name()
		}
	}
	return ""
}

// ReadFile reads the trace that path names: its rank-0 file or its folder.
func ReadFile(path string) (*mpi.Trace, error) {
	return ReadFileWith(path, Options{})
}

// Options controls ReadFileWith.
type Options struct {
	// Stamps keeps each event's recorded time (mpi.Rank.Stamps): the
	// entry into and the return from its MPI call, or its compute
	// stretch, in ns on the trace's clock (its µs times × 1000).
	// Calibration needs them; replay does not.
	Stamps bool
}

// ReadFileWith is ReadFile with options.
func ReadFileWith(path string, opt Options) (*mpi.Trace, error) {
	files, err := Files(path)
	if err != nil {
		return nil, err
	}
	t := mpi.NewTrace(len(files))
	inits := make([]usTime, len(files))
	sizes := make([][]mpi.CollSizes, len(files))
	for r, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		inits[r], sizes[r], err = readRank(t, r, f, name, opt)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	if err := checkSizes(t, sizes); err != nil {
		return nil, err
	}
	recordStarts(t, inits)
	return t, nil
}

// checkSizes refuses an allgather or alltoall in which a rank sends
// another more than that rank receives from it (mpi.CheckSizes), naming
// both calls by file and line.
func checkSizes(t *mpi.Trace, sizes [][]mpi.CollSizes) error {
	if err := mpi.CheckSizes(t, sizes); err != nil {
		return fmt.Errorf("liballprof: %w", err)
	}
	return nil
}

// Read reads one reader per rank (named by names, for errors) into a trace.
func Read(rs []io.Reader, names []string) (*mpi.Trace, error) {
	t := mpi.NewTrace(len(rs))
	inits := make([]usTime, len(rs))
	sizes := make([][]mpi.CollSizes, len(rs))
	for r := range rs {
		var err error
		if inits[r], sizes[r], err = readRank(t, r, rs[r], names[r], Options{}); err != nil {
			return nil, err
		}
	}
	if err := checkSizes(t, sizes); err != nil {
		return nil, err
	}
	recordStarts(t, inits)
	return t, nil
}

// recordStarts keeps each rank's recorded start (graph.Recorded.StartNs):
// the end of its MPI_Init, inits[r], relative to the earliest rank's.
// liballprof writes every rank's times on one clock (its files' "Init
// clockdiff" lines are the correction it applied).
func recordStarts(t *mpi.Trace, inits []usTime) {
	if len(inits) == 0 {
		return
	}
	lo := inits[0]
	for _, u := range inits {
		if u.before(lo) {
			lo = u
		}
	}
	at := make([]int64, len(inits))
	for r, u := range inits {
		d := u.us - lo.us // both ≥ 0: no overflow
		if d > maxSpanUs {
			at[r] = graph.MaxTimeNs
			continue
		}
		at[r] = max(0, d*1000+int64(math.Round((u.frac-lo.frac)*1000)))
	}
	if starts := graph.RelativeStarts(at); starts != nil {
		if t.Recorded == nil {
			t.Recorded = &graph.Recorded{}
		}
		t.Recorded.StartNs = starts
	}
}

// rankReader holds the state of one rank's file.
type rankReader struct {
	t      *mpi.Trace
	rank   int
	name   string
	line   int
	toks   []string
	first  usTime // end of MPI_Init
	last   usTime // end of the previous call
	init   bool
	done   bool
	reqs   map[uint64]int64 // pending request handle → request id
	nreq   int64
	ended  string // the previous call, for region names
	stamps bool   // keep each event's recorded time (Options.Stamps)
	sizes  []mpi.CollSizes
}

// ReadRank appends rank r's calls, read from f, to t. It keeps no
// recorded start (graph.Recorded.StartNs): that needs every rank (Read).
func ReadRank(t *mpi.Trace, r int, f io.Reader, name string) error {
	_, _, err := readRank(t, r, f, name, Options{})
	return err
}

// readRank is ReadRank with options that also returns the end of the
// rank's MPI_Init and what its allgathers and alltoalls send and receive.
func readRank(t *mpi.Trace, r int, f io.Reader, name string, opt Options) (usTime, []mpi.CollSizes, error) {
	rd := &rankReader{t: t, rank: r, name: name, reqs: map[uint64]int64{}, stamps: opt.Stamps}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), MaxLine)
	t.Ranks[r].File = name
	for sc.Scan() {
		rd.line++
		if err := rd.record(sc.Text()); err != nil {
			return usTime{}, nil, err
		}
		t.Mark(r, int32(rd.line))
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return usTime{}, nil, &Error{File: name, Line: rd.line + 1, Msg: fmt.Sprintf("line longer than %d bytes", MaxLine)}
		}
		return usTime{}, nil, fmt.Errorf("%s: %w", name, err)
	}
	if !rd.init {
		return usTime{}, nil, &Error{File: name, Msg: "no MPI_Init record: not a liballprof trace"}
	}
	return rd.first, rd.sizes, nil
}

func (rd *rankReader) errf(format string, a ...any) error {
	return &Error{File: rd.name, Line: rd.line, Msg: fmt.Sprintf(format, a...)}
}

// split cuts a record into its name and arguments at ':' and ','.
func (rd *rankReader) split(s string) {
	rd.toks = rd.toks[:0]
	for {
		i := strings.IndexAny(s, ":,")
		if i < 0 {
			rd.toks = append(rd.toks, strings.TrimSpace(s))
			return
		}
		rd.toks = append(rd.toks, strings.TrimSpace(s[:i]))
		s = s[i+1:]
	}
}

// layout gives, per call, the number of fields and the positions of the
// fields the reader uses (0 = unused).
type layout struct {
	n                          int
	start, end                 int
	count, size, peer, tag     int
	csize, req                 int
	rcount, rsize, rpeer, rtag int
}

var layouts = map[string]layout{
	"MPI_Send":      {n: 13, start: 1, end: 12, count: 3, size: 5, peer: 7, tag: 8, csize: 11},
	"MPI_Rsend":     {n: 13, start: 1, end: 12, count: 3, size: 5, peer: 7, tag: 8, csize: 11},
	"MPI_Recv":      {n: 14, start: 1, end: 13, count: 3, size: 5, peer: 7, tag: 8, csize: 11},
	"MPI_Isend":     {n: 14, start: 1, end: 13, count: 3, size: 5, peer: 7, tag: 8, csize: 11, req: 12},
	"MPI_Irecv":     {n: 14, start: 1, end: 13, count: 3, size: 5, peer: 7, tag: 8, csize: 11, req: 12},
	"MPI_Wait":      {n: 5, start: 1, end: 4, req: 2},
	"MPI_Waitall":   {n: 6, start: 1, end: 5, count: 2, req: 3},
	"MPI_Sendrecv":  {n: 21, start: 1, end: 20, count: 3, size: 5, peer: 7, tag: 8, rcount: 10, rsize: 12, rpeer: 14, rtag: 15, csize: 18},
	"MPI_Barrier":   {n: 6, start: 1, end: 5, csize: 4},
	"MPI_Bcast":     {n: 12, start: 1, end: 11, count: 3, size: 5, peer: 7, csize: 10},
	"MPI_Reduce":    {n: 14, start: 1, end: 13, count: 4, size: 6, peer: 9, csize: 12},
	"MPI_Allreduce": {n: 13, start: 1, end: 12, count: 4, size: 6, csize: 11},
	"MPI_Allgather": {n: 16, start: 1, end: 15, count: 3, size: 5, rcount: 8, rsize: 10, csize: 14},
	"MPI_Alltoall":  {n: 16, start: 1, end: 15, count: 3, size: 5, rcount: 8, rsize: 10, csize: 14},
}

var kinds = map[string]mpi.Kind{
	"MPI_Send": mpi.Send, "MPI_Rsend": mpi.Send, "MPI_Recv": mpi.Recv, "MPI_Isend": mpi.Isend, "MPI_Irecv": mpi.Irecv,
	"MPI_Wait": mpi.Wait, "MPI_Waitall": mpi.Waitall, "MPI_Barrier": mpi.Barrier, "MPI_Bcast": mpi.Bcast,
	"MPI_Reduce": mpi.Reduce, "MPI_Allreduce": mpi.Allreduce, "MPI_Allgather": mpi.Allgather, "MPI_Alltoall": mpi.Alltoall,
}

// skipped are the calls schedgen ignores, and the calls real
// applications make that move no data and complete no request: queries,
// timers, datatype and group constructors, error handlers, attributes,
// topology helpers, blocking probes (the receive that follows waits for
// the message) and communicator constructors (whose communicators
// liballprof does not describe: a collective on one is refused). Their
// time is part of the compute gap between the calls around them, as for
// the calls schedgen skips.
var skipped = map[string]bool{"MPI_Comm_rank": true, "MPI_Comm_size": true, "MPI_Get_count": true,
	"MPI_Iprobe": true, "MPI_Test": true, "MPI_Testall": true,
	"MPI_Wtime": true, "MPI_Wtick": true, "MPI_Initialized": true, "MPI_Finalized": true,
	"MPI_Get_processor_name": true, "MPI_Get_version": true, "MPI_Probe": true,
	"MPI_Comm_group": true, "MPI_Group_incl": true, "MPI_Group_excl": true, "MPI_Group_free": true,
	"MPI_Group_rank": true, "MPI_Group_size": true, "MPI_Group_translate_ranks": true,
	"MPI_Type_contiguous": true, "MPI_Type_vector": true, "MPI_Type_hvector": true, "MPI_Type_indexed": true,
	"MPI_Type_hindexed": true, "MPI_Type_struct": true, "MPI_Type_create_struct": true, "MPI_Type_commit": true,
	"MPI_Type_free": true, "MPI_Type_size": true, "MPI_Type_extent": true, "MPI_Type_get_extent": true,
	"MPI_Op_create": true, "MPI_Op_free": true, "MPI_Errhandler_set": true, "MPI_Comm_set_errhandler": true,
	"MPI_Attr_get": true, "MPI_Comm_get_attr": true, "MPI_Comm_set_name": true, "MPI_Comm_get_name": true,
	"MPI_Comm_compare": true, "MPI_Comm_test_inter": true, "MPI_Dims_create": true, "MPI_Cart_coords": true,
	"MPI_Cart_rank": true, "MPI_Cart_shift": true, "MPI_Cart_get": true, "MPI_Cartdim_get": true,
	"MPI_Comm_dup": true, "MPI_Comm_split": true, "MPI_Comm_create": true, "MPI_Comm_free": true,
	"MPI_Cart_create": true, "MPI_Cart_sub": true}

func (rd *rankReader) record(s string) error {
	s = strings.TrimSpace(s)
	if s == "" || s[0] == '#' {
		return nil
	}
	rd.split(s)
	call := rd.toks[0]
	if rd.done {
		return rd.errf("%s after MPI_Finalize", quote(call))
	}
	switch {
	case call == "MPI_Init":
		if rd.init {
			return rd.errf("MPI_Init twice")
		}
		if len(rd.toks) != 5 {
			return rd.errf("MPI_Init has %d fields, want 5 (MPI_Init:-:ARGC:ARGV:TEND)", len(rd.toks))
		}
		end, err := rd.time(4)
		if err != nil {
			return err
		}
		rd.init, rd.first, rd.last, rd.ended = true, end, end, call
		return nil
	case !rd.init:
		if !strings.HasPrefix(call, "MPI_") {
			return rd.errf("%s is not an MPI call record: not a liballprof trace", quote(s))
		}
		return rd.errf("%s before MPI_Init", quote(call))
	case call == "MPI_Finalize":
		if len(rd.toks) < 2 {
			return rd.errf("MPI_Finalize needs its start time")
		}
		start, err := rd.time(1)
		if err != nil {
			return err
		}
		if err := rd.compute(start, call); err != nil {
			return err
		}
		rd.done = true
		return rd.span(start)
	case skipped[call]:
		return nil
	}
	l, ok := layouts[call]
	if !ok {
		if strings.HasPrefix(call, "MPI_") {
			return rd.errf("%s is not supported (capsim reads %s)", quote(call), supported())
		}
		return rd.errf("%s is not an MPI call record", quote(s))
	}
	if len(rd.toks) != l.n {
		return rd.errf("%s has %d fields, want %d", call, len(rd.toks), l.n)
	}
	if null, err := rd.nullCall(call, l); null || err != nil {
		return err
	}
	start, err := rd.time(l.start)
	if err != nil {
		return err
	}
	end, err := rd.time(l.end)
	if err != nil {
		return err
	}
	if end.before(start) {
		return rd.errf("%s ends (%s µs) before it starts (%s µs)", call, rd.toks[l.end], rd.toks[l.start])
	}
	if err := rd.compute(start, call); err != nil {
		return err
	}
	if rd.stamps {
		defer rd.stampFrom(len(rd.t.Ranks[rd.rank].Events), start, end)
	}
	dur, err := rd.ns(end, start, call)
	if err != nil {
		return err
	}
	rd.last, rd.ended = end, call
	if err := rd.span(end); err != nil {
		return err
	}
	e := mpi.Event{Kind: kinds[call], Comm: mpi.World, Duration: dur}
	n := len(rd.t.Ranks)
	if l.csize > 0 {
		p, err := rd.int(l.csize, "communicator size", 1, math.MaxInt32)
		if err != nil {
			return err
		}
		if p != int64(n) {
			return rd.errf("%s on a communicator of %d ranks, but the trace has %d rank files: liballprof does not record who is in other communicators", call, p, n)
		}
	}
	if l.count > 0 && call != "MPI_Waitall" {
		if e.Bytes, err = rd.bytes(l.count, l.size); err != nil {
			return err
		}
	}
	switch call {
	case "MPI_Send", "MPI_Rsend", "MPI_Recv", "MPI_Isend", "MPI_Irecv":
		if e.Peer, e.Tag, err = rd.peerTag(l.peer, l.tag, e.Kind == mpi.Recv || e.Kind == mpi.Irecv); err != nil {
			return err
		}
		if l.req > 0 {
			h, err := rd.handle(l.req)
			if err != nil {
				return err
			}
			if _, ok := rd.reqs[h]; ok {
				return rd.errf("request %d started again before an MPI_Wait or MPI_Waitall completed it (capsim does not follow requests that MPI_Test or MPI_Testall complete)", h)
			}
			rd.nreq++
			rd.reqs[h], e.Req = rd.nreq, rd.nreq
		}
	case "MPI_Wait":
		h, err := rd.handle(l.req)
		if err != nil {
			return err
		}
		id, ok := rd.reqs[h]
		if !ok {
			return rd.errf("MPI_Wait on request %d, which no MPI_Isend or MPI_Irecv started", h)
		}
		delete(rd.reqs, h)
		e.Req = id
	case "MPI_Waitall":
		cnt, err := rd.int(l.count, "request count", 0, 1<<24)
		if err != nil {
			return err
		}
		base, err := rd.handle(l.req)
		if err != nil {
			return err
		}
		ids, err := rd.waitall(base, cnt)
		if err != nil {
			return err
		}
		rd.t.AppendList(rd.rank, e, ids)
		return nil
	case "MPI_Sendrecv":
		send := mpi.Event{Kind: mpi.Isend, Comm: mpi.World, Bytes: e.Bytes}
		if rd.nullPeer(l.peer) { // to MPI_PROC_NULL: the receive alone
			recv := mpi.Event{Kind: mpi.Recv, Comm: mpi.World, Duration: e.Duration}
			if recv.Bytes, err = rd.bytes(l.rcount, l.rsize); err != nil {
				return err
			}
			if recv.Peer, recv.Tag, err = rd.peerTag(l.rpeer, l.rtag, true); err != nil {
				return err
			}
			rd.t.Append(rd.rank, recv)
			return nil
		}
		if send.Peer, send.Tag, err = rd.peerTag(l.peer, l.tag, false); err != nil {
			return err
		}
		recv := mpi.Event{Kind: mpi.Irecv, Comm: mpi.World}
		if recv.Bytes, err = rd.bytes(l.rcount, l.rsize); err != nil {
			return err
		}
		if recv.Peer, recv.Tag, err = rd.peerTag(l.rpeer, l.rtag, true); err != nil {
			return err
		}
		send.Req, recv.Req = rd.nreq+1, rd.nreq+2
		rd.nreq += 2
		rd.t.Append(rd.rank, send)
		rd.t.Append(rd.rank, recv)
		rd.t.AppendList(rd.rank, mpi.Event{Kind: mpi.Waitall, Duration: e.Duration}, []int64{send.Req, recv.Req})
		return nil
	case "MPI_Bcast", "MPI_Reduce":
		root, err := rd.int(l.peer, "root", 0, int64(n)-1)
		if err != nil {
			return err
		}
		e.Peer = int32(root)
	case "MPI_Allgather", "MPI_Alltoall":
		// The send side is the event's; the receive side only checks
		// the members' counts against each other (-1 where unreadable).
		recv, err := rd.bytes(l.rcount, l.rsize)
		if err != nil {
			recv = -1
		}
		rd.sizes = append(rd.sizes, mpi.CollSizes{Event: int32(len(rd.t.Ranks[rd.rank].Events)), Send: e.Bytes, Recv: recv})
	}
	rd.t.Append(rd.rank, e)
	return nil
}

// waitall resolves the n requests an MPI_Waitall names by the address of
// its request array: consecutive 8-byte handles, or 4-byte ones. Requests
// to MPI_PROC_NULL complete without a wait and are left out.
func (rd *rankReader) waitall(base uint64, n int64) ([]int64, error) {
	for _, step := range []uint64{8, 4} {
		ids := make([]int64, 0, n)
		found := int64(0)
		for i := int64(0); i < n; i++ {
			id, ok := rd.reqs[base+uint64(i)*step]
			if !ok {
				break
			}
			found++
			if id != nullReq {
				ids = append(ids, id)
			}
		}
		if found == n {
			for i := int64(0); i < n; i++ {
				delete(rd.reqs, base+uint64(i)*step)
			}
			return ids, nil
		}
	}
	return nil, rd.errf("MPI_Waitall of %d requests at %d: not all of them were started by MPI_Isend or MPI_Irecv (read 8 and 4 bytes apart)", n, base)
}

// compute adds the gap before a call that starts at start.
func (rd *rankReader) compute(start usTime, call string) error {
	if start.before(rd.last) {
		return rd.errf("%s starts at %s µs, before the previous call ended (%s µs)", call, start, rd.last)
	}
	gap, err := rd.ns(start, rd.last, call)
	if err != nil {
		return err
	}
	n := len(rd.t.Ranks[rd.rank].Events)
	rd.t.AppendCompute(rd.rank, "before "+call, gap)
	if rd.stamps {
		rd.stampFrom(n, rd.last, start)
	}
	return nil
}

// stampFrom gives the rank's events from index i on the recorded time
// from..to (Options.Stamps).
func (rd *rankReader) stampFrom(i int, from, to usTime) {
	rk := &rd.t.Ranks[rd.rank]
	for len(rk.Stamps) < len(rk.Events) {
		rk.Stamps = append(rk.Stamps, mpi.Stamp{})
	}
	st := mpi.Stamp{Start: from.ns(), End: to.ns()}
	for ; i < len(rk.Stamps); i++ {
		rk.Stamps[i] = st
	}
}

// span records the rank's recorded span as ending at t.
func (rd *rankReader) span(t usTime) error {
	ns, err := rd.ns(t, rd.first, rd.toks[0])
	if err != nil {
		return err
	}
	if rd.t.Recorded == nil {
		rd.t.Recorded = &graph.Recorded{SpanNs: make([]int64, len(rd.t.Ranks))}
	}
	if rd.t.Recorded.SpanNs == nil {
		rd.t.Recorded.SpanNs = make([]int64, len(rd.t.Ranks))
	}
	rd.t.Recorded.SpanNs[rd.rank] = ns
	return nil
}

// usTime is a time in microseconds held exactly as written: whole
// microseconds and the fraction of one.
type usTime struct {
	us   int64
	frac float64 // in [0, 1)
}

// ns returns a in ns: exact for the times up to 9.2·10¹⁵ µs (year 2262
// as epoch microseconds), the largest for later ones.
func (a usTime) ns() int64 {
	if a.us > (math.MaxInt64-1000)/1000 {
		return math.MaxInt64
	}
	return a.us*1000 + int64(math.Round(a.frac*1000))
}

func (a usTime) before(b usTime) bool { return a.us < b.us || a.us == b.us && a.frac < b.frac }

func (a usTime) String() string {
	if a.frac == 0 {
		return strconv.FormatInt(a.us, 10)
	}
	f := strconv.FormatFloat(a.frac, 'f', -1, 64)
	return strconv.FormatInt(a.us, 10) + f[1:]
}

// maxSpanUs is the longest difference of two times, in µs: graph.MaxTimeNs.
const maxSpanUs = graph.MaxTimeNs / 1000

// ns returns a−b (a not before b) in whole nanoseconds, rounded as
// schedgen does (round(µs × 1000)), or an error naming call when it is
// beyond graph.MaxTimeNs.
func (rd *rankReader) ns(a, b usTime, call string) (int64, error) {
	d := a.us - b.us // both ≥ 0: no overflow
	if d > maxSpanUs {
		return 0, rd.errf("%s: %s µs is more than %d µs (about 31.7 years) after %s µs", call, a, maxSpanUs, b)
	}
	return max(0, d*1000+int64(math.Round((a.frac-b.frac)*1000))), nil
}

// time reads field i as a time in microseconds: a plain decimal (digits,
// optionally a point and more digits) is read exactly, whatever its size;
// other forms (1.5e3) as float64, up to 2^53 µs.
func (rd *rankReader) time(i int) (usTime, error) {
	s := rd.toks[i]
	if t, ok := parseDecimal(s); ok {
		return t, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v >= 0) || v > 1<<53 {
		return usTime{}, rd.errf("%s: time %s is not a number of microseconds (a non-negative decimal such as 12.5 or 1237666046950106.0)", rd.toks[0], quote(s))
	}
	w := math.Floor(v)
	return usTime{us: int64(w), frac: v - w}, nil
}

// parseDecimal reads digits[.digits] exactly: the whole microseconds as
// an integer (up to 2^63−1) and the fraction from its digits.
func parseDecimal(s string) (usTime, bool) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || strings.TrimLeft(whole, "0123456789") != "" || strings.TrimLeft(frac, "0123456789") != "" {
		return usTime{}, false
	}
	us, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return usTime{}, false
	}
	var f float64
	if strings.Trim(frac, "0") != "" {
		if f, err = strconv.ParseFloat("0."+frac, 64); err != nil {
			return usTime{}, false
		}
	}
	if f >= 1 { // .99999999999999999 rounds to 1
		if us == math.MaxInt64 {
			return usTime{}, false
		}
		us, f = us+1, 0
	}
	return usTime{us: us, frac: f}, true
}

func (rd *rankReader) int(i int, what string, lo, hi int64) (int64, error) {
	v, err := strconv.ParseInt(rd.toks[i], 10, 64)
	if err != nil || v < lo || v > hi {
		return 0, rd.errf("%s: %s %s is not an integer in %d..%d", rd.toks[0], what, quote(rd.toks[i]), lo, hi)
	}
	return v, nil
}

func (rd *rankReader) handle(i int) (uint64, error) {
	v, err := strconv.ParseUint(rd.toks[i], 10, 64)
	if err != nil {
		return 0, rd.errf("%s: request %s is not an unsigned integer", rd.toks[0], quote(rd.toks[i]))
	}
	return v, nil
}

func (rd *rankReader) bytes(count, size int) (int64, error) {
	c, err := rd.int(count, "count", 0, math.MaxInt32)
	if err != nil {
		return 0, err
	}
	s, err := rd.int(size, "datatype size", 0, math.MaxInt32)
	if err != nil {
		return 0, err
	}
	return c * s, nil
}

func (rd *rankReader) peerTag(peer, tag int, recv bool) (int32, int32, error) {
	lo := int64(0)
	if recv {
		lo = -1
	}
	p, err := rd.int(peer, "peer", lo, int64(len(rd.t.Ranks))-1)
	if err != nil {
		return 0, 0, err
	}
	t, err := rd.int(tag, "tag", lo, math.MaxInt32)
	if err != nil {
		return 0, 0, err
	}
	if recv && p < 0 {
		p = int64(mpi.AnySource)
	}
	if recv && t < 0 {
		t = int64(mpi.AnyTag)
	}
	return int32(p), int32(t), nil
}

// nullReq is the request id of a send to MPI_PROC_NULL (ids start at 1).
const nullReq = 0

// nullPeer reports whether the peer field of a send is negative: the
// value of MPI_PROC_NULL (-2 in Open MPI, -1 in MPICH), the only negative
// destination MPI allows. A receive's negative source is left to peerTag:
// -1 is MPI_ANY_SOURCE in Open MPI but MPI_PROC_NULL in MPICH.
func (rd *rankReader) nullPeer(peer int) bool {
	v, err := strconv.ParseInt(rd.toks[peer], 10, 64)
	return err == nil && v < 0
}

// nullCall reports whether call moves no data because it sends to
// MPI_PROC_NULL, or waits only for such a send: it is then skipped as the
// local calls are, its time part of the compute gap, and an isend's
// request is kept so that its wait finds it.
func (rd *rankReader) nullCall(call string, l layout) (bool, error) {
	switch call {
	case "MPI_Send", "MPI_Rsend", "MPI_Isend":
		if !rd.nullPeer(l.peer) {
			return false, nil
		}
		if l.req > 0 {
			h, err := rd.handle(l.req)
			if err != nil {
				return true, err
			}
			if _, ok := rd.reqs[h]; ok {
				return true, rd.errf("request %d started again before an MPI_Wait or MPI_Waitall completed it (capsim does not follow requests that MPI_Test or MPI_Testall complete)", h)
			}
			rd.reqs[h] = nullReq
		}
		return true, nil
	case "MPI_Wait":
		h, err := rd.handle(l.req)
		if err != nil {
			return true, err
		}
		if id, ok := rd.reqs[h]; ok && id == nullReq {
			delete(rd.reqs, h)
			return true, nil
		}
	}
	return false, nil
}

func supported() string {
	var s []string
	for k := range layouts {
		s = append(s, k)
	}
	sort.Strings(s)
	return "MPI_Init, MPI_Finalize, " + strings.Join(s, ", ")
}

// quote quotes at most 40 bytes of s for an error message.
func quote(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:40]) + "…"
	}
	return strconv.Quote(s)
}
