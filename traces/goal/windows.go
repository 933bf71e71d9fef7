package goal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/capsim/capsim/traces/graph"
)

// ErrNotWindowed reports a GOAL file that Windows cannot read window by
// window; ReadFile reads it whole.
//
// A replay (sim.RunSource) of a file that Windows reads may still need
// the whole graph, for a dependency on a later operation, say: it names
// what in a *sim.WholeGraphError.
var ErrNotWindowed = errors.New("not readable window by window")

// Windows reads a GOAL file window by window: a graph.Source that holds
// where each rank block starts and reads a window's lines from the file
// when asked, so that its memory does not grow with the file.
//
// It reads files in windowed form, the form schedgen gives, and Write for
// graphs whose dependencies are on earlier operations, without
// declaration order: a dependency line names both
// operations by their implicit labels l<n>, both declared before it, and
// it comes before the line of the maxLag+1st operation after the one that
// depends (schedgen's come right after it or a few lines later); a rank
// block starts on the line after its "rank N {" and no /* */ comment
// spans lines inside one. Its windows equal those of ReadFile's graph,
// with each dependency's declaration position (graph.Window.DepOrder).
type Windows struct {
	f        *os.File
	name     string
	size     int64
	numRanks int
	p        parser // reads operation lines: ranks, tags, errors
	blocks   []blockAt
	cur      []cursor
	numOps   int64
	numDeps  int64
	lag      int32 // the most operations a dependency line comes after its operation's

	// The dependency lines of the window's operations, as read.
	lines []depLine

	// The file's bytes [bufOff, bufOff+len(buf)).
	buf    []byte
	bufOff int64

	// The current window's columns, reused.
	kind            []graph.OpKind
	sizes           []int64
	peer, tag       []int32
	cpu, nic        []uint8
	depStart, depOp []int32
	depKind         []graph.DepKind
	depOrder        []int32
	next            []int32 // per operation, where its next dependency goes
}

// maxLag is the most operations a dependency line of a file in windowed
// form may come after the operation that depends: each window reads the
// lines of up to that many operations after its own again.
const maxLag = 256

// depLine is a dependency line: operation op (rank-relative) requires or
// irequires on; pos is its declaration position within the rank.
type depLine struct {
	op, on, pos int32
	kind        graph.DepKind
}

// blockAt is where a rank block's body starts (off −1: the rank has no
// block) and how many operations it has.
type blockAt struct {
	off  int64
	line int
	ops  int32
}

// cursor is where a rank's next operation line is, and how many
// dependency lines of the rank come before it.
type cursor struct {
	off  int64
	line int
	op   int32
	deps int32
}

// windowIndex is what OpenWindows' pass over the file collects.
type windowIndex struct {
	blocks []blockAt
	why    string // why the file is not in windowed form; "" when it is
	ops    int64
	deps   int64
	lag    int32
}

func (x *windowIndex) not(why string) {
	if x.why == "" {
		x.why = why
	}
}

// open records the block of rank r, whose body starts at offset off on
// line line; inline means the "rank N {" line holds more.
func (x *windowIndex) open(r int, off int64, line int, inline bool) {
	if inline {
		x.not(fmt.Sprintf("rank %d's block goes on after its \"{\" on the same line", r))
	}
	x.blocks[r] = blockAt{off: off, line: line}
}

// checkWindowed checks that the dependency line "op requires on" being
// read is in windowed form (see Windows).
func (p *parser) checkWindowed(op, on []byte) {
	last := int32(len(p.blk.Ops)) - 1
	a, okA := p.resolveNow(op)
	_, okB := p.resolveNow(on)
	switch {
	case !okA || !okB:
		p.idx.not(fmt.Sprintf("line %d names an operation by a label other than its l<n> or before the operation's line", p.line))
	case last-a > maxLag:
		p.idx.not(fmt.Sprintf("line %d declares a dependency %d operations after the operation's line (at most %d)", p.line, last-a, maxLag))
	default:
		p.idx.lag = max(p.idx.lag, last-a)
	}
}

// resolveNow returns the operation label names by its implicit label
// l<n>, where that operation is already declared.
func (p *parser) resolveNow(label []byte) (int32, bool) {
	if n, ok := implicitNumber(label); ok && int(n) <= len(p.blk.Ops) && p.implicit(n-1) {
		return n - 1, true
	}
	return 0, false
}

// OpenWindows reads the GOAL file at path once, checking it as ReadFile
// does in memory bounded by its largest rank block, and opens it for
// reading window by window; an error wrapping ErrNotWindowed means it is
// not in windowed form and ReadFile must read it. Close the result when
// done.
func OpenWindows(path string) (*Windows, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("goal: %w", err)
	}
	w, err := openWindows(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

func openWindows(f *os.File, path string) (*Windows, error) {
	idx := &windowIndex{}
	p := &parser{file: path, rank: -1, labels: map[string]int32{}, maxTag: -1, idx: idx}
	p.onRanks = func(n int) error {
		idx.blocks = make([]blockAt, n)
		for r := range idx.blocks {
			idx.blocks[r].off = -1
		}
		return nil
	}
	p.onBlock = func(b *Block) error {
		idx.blocks[b.Rank].ops = int32(len(b.Ops))
		idx.ops += int64(len(b.Ops))
		idx.deps += int64(len(b.Deps))
		return nil
	}
	if err := p.scan(f); err != nil {
		return nil, err
	}
	if idx.why != "" {
		return nil, fmt.Errorf("goal: %s: %s: %w", path, idx.why, ErrNotWindowed)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("goal: %w", err)
	}
	w := &Windows{f: f, name: path, size: st.Size(), numRanks: p.numRanks, blocks: idx.blocks,
		cur: make([]cursor, p.numRanks), numOps: idx.ops, numDeps: idx.deps, lag: idx.lag}
	// Operation lines are read with the tags the pass renumbered: every
	// large tag is in bigTags, so each gets the number it got there.
	w.p = parser{file: path, rank: -1, numRanks: p.numRanks, bigTags: p.bigTags, maxTag: p.maxTag}
	for r, b := range w.blocks {
		w.cur[r] = cursor{off: b.off, line: b.line}
	}
	return w, nil
}

// Close closes the file.
func (w *Windows) Close() error { return w.f.Close() }

// NumRanks returns the number of ranks.
func (w *Windows) NumRanks() int { return w.numRanks }

// NumOps returns the number of operations.
func (w *Windows) NumOps() int { return int(w.numOps) }

// NumDeps returns the number of dependencies.
func (w *Windows) NumDeps() int { return int(w.numDeps) }

// Window returns at most max operations of rank r from its operation
// first on. Reading a rank's windows in order reads each line once.
func (w *Windows) Window(r int, first int32, max int) (graph.Window, error) {
	if r < 0 || r >= w.numRanks {
		return graph.Window{}, fmt.Errorf("goal: %s: window of rank %d, file has %d ranks", w.name, r, w.numRanks)
	}
	b := w.blocks[r]
	if first < 0 || first > b.ops || max < 1 {
		return graph.Window{}, fmt.Errorf("goal: %s: window at %d (max %d) of rank %d, which has %d operations", w.name, first, max, r, b.ops)
	}
	w.kind, w.sizes, w.peer, w.tag = w.kind[:0], w.sizes[:0], w.peer[:0], w.tag[:0]
	w.cpu, w.nic = w.cpu[:0], w.nic[:0]
	w.lines = w.lines[:0]
	c := &w.cur[r]
	if first < c.op {
		*c = cursor{off: b.off, line: b.line}
	}
	if first < b.ops {
		if err := w.read(c, first, int32(min(int64(max), int64(b.ops-first)))); err != nil {
			return graph.Window{}, err
		}
	}
	w.sortDeps(first)
	return graph.Window{
		Rank: r, First: first,
		Kind: w.kind, Size: w.sizes, Peer: w.peer, Tag: w.tag, CPU: w.cpu, NIC: w.nic,
		DepStart: w.depStart, DepOp: w.depOp, DepKind: w.depKind, DepOrder: w.depOrder,
	}, nil
}

// read reads the lines from c on: the n operations from first into the
// window's columns, and the dependency lines of those operations, which
// end before the line of operation first+n+w.lag. It leaves c at the line
// of operation first+n (or the block's end).
func (w *Windows) read(c *cursor, first, n int32) error {
	p := &w.p
	at := *c // the line being read
	end := first + n
	for {
		line, next, err := w.line(at.off)
		if err != nil {
			return err
		}
		p.line = at.line
		if bytes.IndexByte(line, '/') >= 0 {
			line = p.stripComments(line)
		}
		t := p.tokenize(line)
		switch {
		case len(t) == 0:
		case string(t[0]) == "}":
			if at.op < end {
				return p.errf("the rank block ended after %d operations, where its first reading found more (the file changed?)", at.op)
			}
			if c.op < end {
				*c = at
			}
			return nil
		case len(t) == 3 && (string(t[1]) == "requires" || string(t[1]) == "irequires"):
			if err := w.dep(t, at, first, end); err != nil {
				return err
			}
			at.deps++
		default:
			if at.op == end {
				*c = at // the next window's first operation
			}
			if at.op >= end+w.lag {
				return nil
			}
			if at.op >= first && at.op < end {
				if err := w.op(t); err != nil {
					return err
				}
			}
			at.op++
		}
		at.off, at.line = next, at.line+1
	}
}

// op appends the operation of line t (tokens) to the window.
func (w *Windows) op(t [][]byte) error {
	p := &w.p
	if len(t) >= 2 && string(t[1]) == ":" {
		t = t[2:]
	}
	var op graph.Op
	var err error
	switch {
	case len(t) == 0:
		err = p.errf("label without an operation")
	case string(t[0]) == "calc":
		op, err = p.calc(t[1:])
	case string(t[0]) == "send" || string(t[0]) == "recv":
		op, err = p.msg(string(t[0]) == "send", t[1:])
	default:
		err = p.errf("unknown statement %q", bytes.Join(t, []byte(" ")))
	}
	if err != nil {
		return err
	}
	w.kind = append(w.kind, op.Kind)
	w.sizes = append(w.sizes, op.Size)
	w.peer = append(w.peer, op.Peer)
	w.tag = append(w.tag, op.Tag)
	w.cpu = append(w.cpu, op.CPU)
	w.nic = append(w.nic, op.NIC)
	return nil
}

// dep notes the dependency line t, read at at (after at.op operations of
// the rank), where the operation that depends is in [first, end).
func (w *Windows) dep(t [][]byte, at cursor, first, end int32) error {
	a, okA := implicitNumber(t[0])
	b, okB := implicitNumber(t[2])
	if !okA || !okB || a > at.op || b > at.op || a == b || at.op-a > w.lag {
		return w.p.errf("dependency %s not in the form the first reading found (the file changed?)", bytes.Join(t, []byte(" ")))
	}
	if a-1 < first || a-1 >= end {
		return nil
	}
	kind := graph.Requires
	if string(t[1]) == "irequires" {
		kind = graph.Irequires
	}
	w.lines = append(w.lines, depLine{op: a - 1, on: b - 1, pos: at.deps, kind: kind})
	return nil
}

// sortDeps fills the window's dependency columns from its dependency
// lines, the window starting at the rank's operation first: by
// operation, each operation's in declaration order, as graph.Builder
// stores them.
func (w *Windows) sortDeps(first int32) {
	n := len(w.kind)
	w.depStart = append(w.depStart[:0], make([]int32, n+1)...)
	for _, d := range w.lines {
		w.depStart[d.op-first+1]++
	}
	for i := 1; i <= n; i++ {
		w.depStart[i] += w.depStart[i-1]
	}
	m := len(w.lines)
	w.depOp = append(w.depOp[:0], make([]int32, m)...)
	w.depKind = append(w.depKind[:0], make([]graph.DepKind, m)...)
	w.depOrder = append(w.depOrder[:0], make([]int32, m)...)
	w.next = append(w.next[:0], w.depStart[:n]...)
	for _, d := range w.lines { // in declaration order
		k := w.next[d.op-first]
		w.next[d.op-first]++
		w.depOp[k], w.depKind[k], w.depOrder[k] = d.on, d.kind, d.pos
	}
}

// line returns the line at offset off (without its line break) and the
// offset of the next, reading the file into w.buf as needed.
func (w *Windows) line(off int64) ([]byte, int64, error) {
	if off >= w.size {
		return nil, 0, w.p.errf("unexpected end of file (the file changed?)")
	}
	for grow := false; ; grow = true {
		if off >= w.bufOff && off <= w.bufOff+int64(len(w.buf)) {
			rest := w.buf[off-w.bufOff:]
			if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				return bytes.TrimSuffix(rest[:i], []byte("\r")), off + int64(i) + 1, nil
			}
			if w.bufOff+int64(len(w.buf)) == w.size { // the last line, without a break
				return bytes.TrimSuffix(rest, []byte("\r")), w.size, nil
			}
		}
		size := max(cap(w.buf), 64<<10)
		if grow && off == w.bufOff {
			if size >= maxTokenLine+1 {
				return nil, 0, w.p.errf("line longer than %d bytes", maxTokenLine)
			}
			size *= 2
		}
		if cap(w.buf) < size {
			w.buf = make([]byte, size)
		}
		n, err := w.f.ReadAt(w.buf[:size], off)
		if err != nil && err != io.EOF {
			return nil, 0, fmt.Errorf("goal: %s: %w", w.name, err)
		}
		w.buf, w.bufOff = w.buf[:n], off
		if n == 0 {
			return nil, 0, w.p.errf("unexpected end of file (the file changed?)")
		}
	}
}
