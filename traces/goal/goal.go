// Package goal reads and writes GOAL, the text schedule language of
// LogGOPSim and ATLAHS, as capsim execution graphs.
//
// A GOAL file declares the number of ranks and one block per rank:
//
//	num_ranks 2
//	rank 0 {
//	  l1: calc 100 cpu 0
//	  l2: send 8b to 1 tag 5 cpu 0 nic 0
//	  l2 requires l1
//	}
//	rank 1 {
//	  l1: recv 8b from 0 tag 5
//	  recv 8b from -1 tag -1     // any source, any tag; labels are optional
//	}
//
// "a requires b" lets a start once b has completed; "a irequires b" once b
// has started. Comments run from // to the end of the line or sit between
// /* and */. Labels are local to their rank block and may be used before
// the line that defines them. The label l<n> on a block's nth operation
// (what Write and schedgen write) is implicit: it is not stored, and
// graph.Graph.Label gives it back.
//
// # Tags
//
// Tags are decimal numbers up to 2^64−1, as schedgen writes them. schedgen
// computes a tag as a C int (for traces, MAKE_TAG packs the communicator
// handle into its top byte, which makes it negative for large handles) and
// prints it as a 64-bit unsigned number, so -1 (MPI_ANY_TAG) appears as
// 18446744073709551615 and other negative tags as numbers just below it.
// The convention capsim reads:
//
//   - On a recv, "-1" and 18446744073709551615 are the wildcard
//     (graph.AnyTag): the receive matches any tag from its source.
//   - On a send there is no wildcard in MPI: 18446744073709551615 (and every
//     other value) is an ordinary tag that only a recv of the same tag, or a
//     wildcard recv, matches. ("-1" stays an error on a send.)
//   - Tags 0..2^31−1 are kept as they are. Larger tags are renumbered per
//     file, injectively, downwards from 2^31−1 in order of first appearance
//     (the first large tag becomes 2^31−1, the next 2^31−2, ...), so that
//     matching is unchanged and a file can be read in one pass; a file
//     whose small tags reach into the numbers so given is an error. Write
//     writes the renumbered values.
//
// LogGOPSim's txt2bin keeps the low 32 bits of a tag and treats 2^32−1 as a
// wildcard on sends as well as receives; tags that differ only above bit 31,
// or a send whose tag is 2^32−1 modulo 2^32, therefore match differently in
// LogGOPSim. schedgen's own tags are sign-extended 32-bit values and never
// collide that way.
//
// Sizes are decimal byte counts; values up to 2^64−1 are read, but sizes
// above MaxSize are rejected (the engine's nanosecond arithmetic would
// overflow; LogGOPSim's wraps silently).
package goal

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/capsim/capsim/traces/graph"
)

// SyntaxError is a malformed GOAL input: it names the file and line.
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// ReadFile parses the GOAL file at path.
func ReadFile(path string) (*graph.Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("goal: %w", err)
	}
	defer f.Close()
	return Parse(f, path)
}

// MaxSize is the largest message size and calc length a GOAL file may hold.
const MaxSize = 1 << 62

// maxSmallTag is the largest tag kept as it is; larger ones are renumbered.
const maxSmallTag = 1<<31 - 1

// anyTag64 is MPI_ANY_TAG (-1) as schedgen prints it, a 64-bit unsigned.
const anyTag64 = 1<<64 - 1

// maxTokenLine bounds the length of one GOAL line.
const maxTokenLine = 1 << 20

// pendingDep is a dependency line, resolved when its rank block closes
// (labels may be used before the line that defines them). Its labels are
// kept as [start, end) ranges of parser.names.
type pendingDep struct {
	op, on [2]int32
	kind   graph.DepKind
	line   int
}

// The parser works on the bytes of one line at a time: tokens are slices
// of the line, keywords are compared without conversion, numbers are
// parsed in place, and only labels other than the implicit l<n> become
// strings, so a schedule without such labels is read without allocating
// per line.
type parser struct {
	file     string
	line     int
	numRanks int
	rank     int // current rank block, -1 outside
	seen     []bool
	// labels maps the block's labels to their operations, except implicit
	// ones (l<n> on the block's nth operation); labeled marks the
	// operations that have a label.
	labels  map[string]int32
	labeled []bool
	deps    []pendingDep
	names   []byte // the labels of the block's dependency lines
	inBlock bool   // inside /* */
	toks    [][]byte
	clean   []byte // the current line without its comments
	blk     Block
	onRanks func(n int) error
	onBlock func(*Block) error

	// Tags above maxSmallTag get the numbers maxSmallTag, maxSmallTag-1,
	// ... (bigTags maps them); maxTag is the largest small tag seen.
	bigTags map[uint64]int32
	maxTag  int32

	// idx, when set (OpenWindows' pass), collects where each rank block
	// starts and whether the file is in windowed form; next is the
	// offset of the line after the current one.
	idx  *windowIndex
	next int64
}

// Block is one rank block of a GOAL file, as Scan hands it over.
type Block struct {
	Rank int
	Ops  []graph.Op
	// Labels holds each operation's label, or "" where its line has none
	// or its label is implicit: l<n> on the block's nth operation (counted
	// from 1), which graph.Graph.Label gives back.
	Labels []string
	// Deps are the block's dependency lines in declaration order, by
	// operation index within the block.
	Deps []Dep
	// Lines holds the line of each operation in the file, counted from 1.
	Lines []int32
	// Labeled reports whether each operation's line gives it a label
	// (implicit ones included).
	Labeled []bool
}

// OpSource is where an operation of a GOAL file was written: its line,
// counted from 1, and its label as written there ("" when the line has
// none).
type OpSource struct {
	Line  int32
	Label string
}

// OpSources returns where each operation of the GOAL file at path was
// written (the file may be gzipped): OpSources(path)[r][i] for the i-th
// operation of rank r's block, graph.Graph's operation RankStart[r]+i of the graph ReadFile
// returns. For error messages: it reads the file again, so that a replay
// keeps no line numbers, and tells a label the file gives (l3 included)
// from the implicit one graph.Graph.Label makes up for an operation
// without one.
func OpSources(path string) ([][]OpSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("goal: %w", err)
	}
	defer f.Close()
	var r io.Reader = bufio.NewReader(f)
	if head, _ := r.(*bufio.Reader).Peek(2); string(head) == "\x1f\x8b" { // a gzipped GOAL file
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("goal: %s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	var src [][]OpSource
	err = Scan(r, path, func(n int) error {
		src = make([][]OpSource, n)
		return nil
	}, func(b *Block) error {
		s := make([]OpSource, len(b.Lines))
		for i, l := range b.Lines {
			s[i].Line = l
			switch {
			case b.Labels[i] != "":
				s[i].Label = b.Labels[i]
			case b.Labeled[i]:
				s[i].Label = fmt.Sprintf("l%d", i+1)
			}
		}
		src[b.Rank] = s
		return nil
	})
	return src, err
}

// Dep is one dependency line: operation Op requires (or irequires) On.
type Dep struct {
	Op, On int32
	Kind   graph.DepKind
}

// Parse reads a GOAL schedule from r; name is used in error messages.
func Parse(r io.Reader, name string) (*graph.Graph, error) {
	var b *graph.Builder
	err := Scan(r, name, func(n int) error {
		b = graph.NewBuilder(n)
		return nil
	}, func(blk *Block) error {
		b.Grow(blk.Rank, len(blk.Ops))
		for i, op := range blk.Ops {
			id := b.Add(blk.Rank, op)
			if l := blk.Labels[i]; l != "" {
				b.SetLabel(blk.Rank, id, l)
			}
		}
		for _, d := range blk.Deps {
			b.Dep(blk.Rank, d.Op, d.On, d.Kind)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	g, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("goal: %s: %w", name, err)
	}
	return g, nil
}

// Scan reads a GOAL schedule from r in one pass, in memory bounded by its
// largest rank block: it calls numRanks with the num_ranks value, then
// block for each rank block as it closes, in file order (the Block is
// reused afterwards). Errors name the file (name) and line.
func Scan(r io.Reader, name string, numRanks func(n int) error, block func(*Block) error) error {
	p := &parser{file: name, rank: -1, labels: map[string]int32{}, maxTag: -1, onRanks: numRanks, onBlock: block}
	return p.scan(r)
}

// scan parses r to its end.
func (p *parser) scan(r io.Reader) error {
	name := p.file
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 256*1024), maxTokenLine)
	if p.idx != nil {
		sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
			adv, tok, err := bufio.ScanLines(data, atEOF)
			p.next += int64(adv)
			return adv, tok, err
		})
	}
	for sc.Scan() {
		p.line++
		if err := p.parseLine(sc.Bytes()); err != nil {
			return err
		}
		if p.idx != nil && p.inBlock && p.rank >= 0 {
			p.idx.not("a /* comment runs across lines of a rank block")
		}
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return p.errf("line longer than %d bytes", maxTokenLine)
		}
		return fmt.Errorf("goal: %s: %w", name, err)
	}
	if p.inBlock {
		return p.errf("unterminated /* comment")
	}
	if p.rank >= 0 {
		return p.errf("missing } at end of rank %d", p.rank)
	}
	if p.seen == nil {
		return p.errf("no num_ranks line")
	}
	return nil
}

// tag reads a send's or recv's tag (see the package documentation).
func (p *parser) tag(val []byte, send bool) (int32, error) {
	if !send && (string(val) == "-1" || string(val) == "18446744073709551615") {
		return graph.AnyTag, nil
	}
	if len(val) == 0 || val[0] < '0' || val[0] > '9' {
		return 0, p.errf("tag %q is not an integer in 0..2^64-1 (or -1, any tag, on a recv)", val)
	}
	v, ok := parseUint(val)
	if !ok {
		return 0, p.errf("tag %q is not an integer in 0..2^64-1 (or -1, any tag, on a recv)", val)
	}
	// The next large tag gets next; the ones before it have next+1 and up.
	next := int64(maxSmallTag) - int64(len(p.bigTags))
	if v <= maxSmallTag {
		if int64(v) > next {
			return 0, p.errf("tag %d is the number given to one of the %d tags above 2^31-1 read before it (they count down from 2^31-1)", v, len(p.bigTags))
		}
		if int32(v) > p.maxTag {
			p.maxTag = int32(v)
		}
		return int32(v), nil
	}
	t, ok := p.bigTags[v]
	if !ok {
		if next <= int64(p.maxTag) {
			return 0, p.errf("tag %d: no number left below 2^31 above the largest other tag, %d, to renumber it to", v, p.maxTag)
		}
		if p.bigTags == nil {
			p.bigTags = map[uint64]int32{}
		}
		t = int32(next)
		p.bigTags[v] = t
	}
	return t, nil
}

func (p *parser) errf(format string, a ...any) error {
	return &SyntaxError{File: p.file, Line: p.line, Msg: fmt.Sprintf(format, a...)}
}

// stripComments removes comments from one line, tracking /* */ across
// lines; the result is valid until the next line.
func (p *parser) stripComments(s []byte) []byte {
	out := p.clean[:0]
	defer func() { p.clean = out }()
	for len(s) > 0 {
		if p.inBlock {
			i := bytes.Index(s, []byte("*/"))
			if i < 0 {
				return out
			}
			s = s[i+2:]
			p.inBlock = false
			out = append(out, ' ')
			continue
		}
		i := bytes.IndexByte(s, '/')
		if i < 0 || i+1 >= len(s) {
			out = append(out, s...)
			break
		}
		switch s[i+1] {
		case '/':
			out = append(out, s[:i]...)
			return out
		case '*':
			out = append(out, s[:i]...)
			out = append(out, ' ')
			s = s[i+2:]
			p.inBlock = true
		default:
			out = append(out, s[:i+1]...)
			s = s[i+1:]
		}
	}
	return out
}

// Byte classes of the tokenizer.
const (
	classWord  = iota // part of a token
	classSpace        // separates tokens
	classPunct        // a token of its own
)

var tokenClass = [256]uint8{' ': classSpace, '\t': classSpace, '\r': classSpace, ':': classPunct, '{': classPunct, '}': classPunct}

// tokenize splits a line on white space and around ':', '{' and '}'; the
// tokens are slices of s. A number directly followed by the keyword tag,
// cpu or nic is two tokens, as LogGOPSim's scanner reads it (ATLAHS's
// generator writes "cpu 3nic 0").
func (p *parser) tokenize(s []byte) [][]byte {
	toks := p.toks[:0]
	for i := 0; i < len(s); {
		switch tokenClass[s[i]] {
		case classSpace:
			i++
		case classPunct:
			toks = append(toks, s[i:i+1])
			i++
		default:
			j := i + 1
			for j < len(s) && tokenClass[s[j]] == classWord {
				j++
			}
			if k := j - 3; k > i && numberThenKeyword(s[i:k], s[k:j]) {
				toks = append(toks, s[i:k])
				i = k
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	p.toks = toks
	return toks
}

// numberThenKeyword reports whether num is a decimal number (with an
// optional leading '-') and kw one of the keywords tag, cpu and nic.
func numberThenKeyword(num, kw []byte) bool {
	switch string(kw) {
	case "tag", "cpu", "nic":
	default:
		return false
	}
	if num[0] == '-' {
		num = num[1:]
	}
	if len(num) == 0 {
		return false
	}
	for _, c := range num {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func (p *parser) parseLine(raw []byte) error {
	if !p.inBlock && bytes.IndexByte(raw, '/') < 0 {
		return p.parseTokens(p.tokenize(raw))
	}
	return p.parseTokens(p.tokenize(p.stripComments(raw)))
}

func (p *parser) parseTokens(t [][]byte) error {
	for len(t) > 0 {
		switch string(t[0]) {
		case "num_ranks":
			if p.seen != nil {
				return p.errf("num_ranks given twice")
			}
			if len(t) < 2 {
				return p.errf("num_ranks needs a number")
			}
			n, err := p.count(t[1], "num_ranks", graph.MaxRanks)
			if err != nil {
				return err
			}
			if n == 0 {
				return p.errf("num_ranks must be at least 1")
			}
			p.numRanks = int(n)
			p.seen = make([]bool, p.numRanks)
			if err := p.onRanks(p.numRanks); err != nil {
				return err
			}
			t = t[2:]
		case "rank":
			if p.seen == nil {
				return p.errf("rank block before num_ranks")
			}
			if p.rank >= 0 {
				return p.errf("rank block inside rank %d (missing })", p.rank)
			}
			if len(t) < 3 || string(t[2]) != "{" {
				return p.errf("want 'rank N {'")
			}
			r, err := p.count(t[1], "rank", int64(p.numRanks)-1)
			if err != nil {
				return err
			}
			if p.seen[r] {
				return p.errf("rank %d defined twice", r)
			}
			p.seen[r] = true
			p.rank = int(r)
			clear(p.labels)
			p.labeled, p.deps, p.names = p.labeled[:0], p.deps[:0], p.names[:0]
			p.blk.Rank = p.rank
			p.blk.Ops, p.blk.Labels, p.blk.Deps = p.blk.Ops[:0], p.blk.Labels[:0], p.blk.Deps[:0]
			p.blk.Lines = p.blk.Lines[:0]
			t = t[3:]
			if p.idx != nil {
				p.idx.open(p.rank, p.next, p.line+1, len(t) > 0)
			}
		case "}":
			if p.rank < 0 {
				return p.errf("} outside a rank block")
			}
			if err := p.closeRank(); err != nil {
				return err
			}
			t = t[1:]
		default:
			if p.rank < 0 {
				return p.errf("unexpected %q outside a rank block", t[0])
			}
			return p.statement(t)
		}
	}
	return nil
}

// statement parses one operation or dependency; it runs to the end of the line.
func (p *parser) statement(t [][]byte) error {
	var label []byte
	if len(t) >= 2 && string(t[1]) == ":" {
		if !isIdent(t[0]) {
			return p.errf("bad label %q", t[0])
		}
		label = t[0]
		t = t[2:]
		if len(t) == 0 {
			return p.errf("label %s: without an operation", label)
		}
	} else if len(t) == 3 && (string(t[1]) == "requires" || string(t[1]) == "irequires") {
		if !isIdent(t[0]) {
			return p.errf("bad label %q in dependency", t[0])
		}
		if !isIdent(t[2]) {
			return p.errf("bad label %q in dependency", t[2])
		}
		d := pendingDep{kind: graph.Requires, line: p.line}
		if string(t[1]) == "irequires" {
			d.kind = graph.Irequires
		}
		d.op[0] = int32(len(p.names))
		p.names = append(p.names, t[0]...)
		d.op[1] = int32(len(p.names))
		p.names = append(p.names, t[2]...)
		d.on = [2]int32{d.op[1], int32(len(p.names))}
		p.deps = append(p.deps, d)
		if p.idx != nil {
			p.checkWindowed(t[0], t[2])
		}
		return nil
	}
	var op graph.Op
	var err error
	switch string(t[0]) {
	case "calc":
		op, err = p.calc(t[1:])
	case "send":
		op, err = p.msg(true, t[1:])
	case "recv":
		op, err = p.msg(false, t[1:])
	default:
		return p.errf("unknown statement %q (want calc, send, recv or a dependency)", bytes.Join(t, []byte(" ")))
	}
	if err != nil {
		return err
	}
	id := int32(len(p.blk.Ops))
	p.blk.Ops = append(p.blk.Ops, op)
	p.blk.Lines = append(p.blk.Lines, int32(min(p.line, 1<<31-1)))
	if label == nil {
		p.blk.Labels = append(p.blk.Labels, "")
		p.labeled = append(p.labeled, false)
		return nil
	}
	return p.define(label, id)
}

// define records label as the label of the block's operation id.
func (p *parser) define(label []byte, id int32) error {
	n, numbered := implicitNumber(label)
	_, dup := p.labels[string(label)]
	if !dup && numbered && n <= id {
		dup = p.implicit(n - 1)
	}
	if dup {
		return p.errf("label %s defined twice in rank %d", label, p.rank)
	}
	p.labeled = append(p.labeled, true)
	if numbered && n == id+1 {
		p.blk.Labels = append(p.blk.Labels, "")
		return nil
	}
	s := string(label)
	p.labels[s] = id
	p.blk.Labels = append(p.blk.Labels, s)
	return nil
}

// implicit reports whether the block's operation i has the label l<i+1>.
func (p *parser) implicit(i int32) bool {
	return p.labeled[i] && p.blk.Labels[i] == ""
}

// implicitNumber returns n for a label l<n> with n from 1 written without
// leading zeros and below 10^9.
func implicitNumber(label []byte) (int32, bool) {
	if len(label) < 2 || len(label) > 10 || label[0] != 'l' || label[1] == '0' {
		return 0, false
	}
	var n int32
	for _, c := range label[1:] {
		c -= '0'
		if c > 9 {
			return 0, false
		}
		n = 10*n + int32(c)
	}
	return n, true
}

// resolve returns the block's operation labeled label.
func (p *parser) resolve(label []byte) (int32, bool) {
	if n, ok := implicitNumber(label); ok && int(n) <= len(p.blk.Ops) && p.implicit(n-1) {
		return n - 1, true
	}
	id, ok := p.labels[string(label)]
	return id, ok
}

func (p *parser) calc(t [][]byte) (graph.Op, error) {
	if len(t) == 0 {
		return graph.Op{}, p.errf("calc needs a duration")
	}
	d, err := p.count(t[0], "calc duration", MaxSize)
	if err != nil {
		return graph.Op{}, err
	}
	op := graph.CalcOp(d)
	t = t[1:]
	if len(t) > 0 {
		if string(t[0]) != "cpu" || len(t) != 2 {
			return graph.Op{}, p.errf("after calc N only 'cpu C' may follow")
		}
		c, err := p.count(t[1], "cpu", graph.MaxCPU)
		if err != nil {
			return graph.Op{}, err
		}
		op.CPU = uint8(c)
	}
	return op, nil
}

func (p *parser) msg(send bool, t [][]byte) (graph.Op, error) {
	kw, dir, what := "recv", "from", "recv size"
	if send {
		kw, dir, what = "send", "to", "send size"
	}
	if len(t) == 0 {
		return graph.Op{}, p.errf("%s needs a size such as 8b", kw)
	}
	sz := t[0]
	if sz[len(sz)-1] == 'b' {
		sz = sz[:len(sz)-1]
		t = t[1:]
	} else if len(t) > 1 && string(t[1]) == "b" {
		t = t[2:]
	} else {
		return graph.Op{}, p.errf("%s size %q must end in b (bytes)", kw, t[0])
	}
	n, err := p.count(sz, what, MaxSize)
	if err != nil {
		return graph.Op{}, err
	}
	if len(t) < 2 || string(t[0]) != dir {
		return graph.Op{}, p.errf("%s %db needs '%s RANK'", kw, n, dir)
	}
	var peer int32
	if !send && string(t[1]) == "-1" {
		peer = graph.AnySource
	} else {
		r, err := p.count(t[1], "peer rank", int64(p.numRanks)-1)
		if err != nil {
			return graph.Op{}, err
		}
		peer = int32(r)
	}
	op := graph.SendOp(n, peer, 0)
	if !send {
		op = graph.RecvOp(n, peer, 0)
	}
	t = t[2:]
	order := 0 // tag, cpu, nic must come in this order
	for len(t) > 0 {
		if len(t) < 2 {
			return graph.Op{}, p.errf("%q needs a value", t[0])
		}
		key, val := t[0], t[1]
		var pos int
		switch string(key) {
		case "tag":
			pos = 1
			tag, err := p.tag(val, send)
			if err != nil {
				return graph.Op{}, err
			}
			op.Tag = tag
		case "cpu":
			pos = 2
			v, err := p.count(val, "cpu", graph.MaxCPU)
			if err != nil {
				return graph.Op{}, err
			}
			op.CPU = uint8(v)
		case "nic":
			pos = 3
			v, err := p.count(val, "nic", graph.MaxNIC)
			if err != nil {
				return graph.Op{}, err
			}
			op.NIC = uint8(v)
		default:
			return graph.Op{}, p.errf("unexpected %q in %s (want tag, cpu or nic)", key, kw)
		}
		if pos <= order {
			return graph.Op{}, p.errf("%s: %q out of order or repeated (order: tag, cpu, nic)", kw, key)
		}
		order = pos
		t = t[2:]
	}
	return op, nil
}

// count parses a non-negative decimal integer no larger than max.
func (p *parser) count(s []byte, what string, max int64) (int64, error) {
	if len(s) == 0 || s[0] == '+' || s[0] == '-' {
		return 0, p.errf("%s %q is not a non-negative integer", what, s)
	}
	u, ok := parseUint(s)
	if !ok {
		return 0, p.errf("%s %q is not a non-negative integer", what, s)
	}
	if u > uint64(max) {
		return 0, p.errf("%s %d out of range (0..%d)", what, u, max)
	}
	return int64(u), nil
}

// parseUint parses decimal digits as strconv.ParseUint(s, 10, 64) does,
// without allocating for numbers of up to 19 digits.
func parseUint(s []byte) (uint64, bool) {
	if len(s) == 0 {
		return 0, false
	}
	if len(s) > 19 { // may overflow: let strconv decide
		u, err := strconv.ParseUint(string(s), 10, 64)
		return u, err == nil
	}
	var u uint64
	for _, c := range s {
		c -= '0'
		if c > 9 {
			return 0, false
		}
		u = 10*u + uint64(c)
	}
	return u, true
}

func (p *parser) closeRank() error {
	for _, d := range p.deps {
		opl, onl := p.names[d.op[0]:d.op[1]], p.names[d.on[0]:d.on[1]]
		op, ok1 := p.resolve(opl)
		on, ok2 := p.resolve(onl)
		if !ok1 || !ok2 {
			missing := opl
			if ok1 {
				missing = onl
			}
			return &SyntaxError{File: p.file, Line: d.line, Msg: fmt.Sprintf("unknown label %s in rank %d", missing, p.rank)}
		}
		if op == on {
			return &SyntaxError{File: p.file, Line: d.line, Msg: fmt.Sprintf("%s depends on itself", opl)}
		}
		p.blk.Deps = append(p.blk.Deps, Dep{Op: op, On: on, Kind: d.kind})
	}
	p.rank = -1
	p.blk.Labeled = p.labeled
	return p.onBlock(&p.blk)
}

func isIdent[T string | []byte](s T) bool {
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '_'):
		default:
			return false
		}
	}
	switch string(s) {
	case "requires", "irequires", "calc", "send", "recv", "rank", "num_ranks":
		return false
	}
	return true
}

// Write writes g as GOAL text. Operations keep their labels where the
// graph has them and get l<n> labels otherwise; Parse reads the output
// back into an identical graph (regions, which GOAL cannot express, are
// dropped).
func Write(w io.Writer, g *graph.Graph) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, "num_ranks %d\n", g.NumRanks())
	for r := 0; r < g.NumRanks(); r++ {
		fmt.Fprintf(bw, "\nrank %d {\n", r)
		lo, hi := g.RankStart[r], g.RankStart[r+1]
		label := rankLabels(g, lo, hi)
		for id := lo; id < hi; id++ {
			bw.WriteString(label(id))
			bw.WriteString(": ")
			switch g.Kind[id] {
			case graph.Calc:
				fmt.Fprintf(bw, "calc %d", g.Size[id])
				if g.CPU[id] != 0 {
					fmt.Fprintf(bw, " cpu %d", g.CPU[id])
				}
			case graph.Send, graph.Recv:
				if g.Kind[id] == graph.Send {
					fmt.Fprintf(bw, "send %db to %d", g.Size[id], g.Peer[id])
				} else {
					fmt.Fprintf(bw, "recv %db from %d", g.Size[id], g.Peer[id])
				}
				fmt.Fprintf(bw, " tag %d", g.Tag[id])
				if g.CPU[id] != 0 || g.NIC[id] != 0 {
					fmt.Fprintf(bw, " cpu %d", g.CPU[id])
				}
				if g.NIC[id] != 0 {
					fmt.Fprintf(bw, " nic %d", g.NIC[id])
				}
			}
			bw.WriteByte('\n')
			if g.DepOrder != nil {
				continue // written below, in declaration order
			}
			deps, kinds := g.Deps(id)
			for j, d := range deps {
				fmt.Fprintf(bw, "%s %s %s\n", label(id), kinds[j], label(d))
			}
		}
		if g.DepOrder != nil {
			writeOrdered(bw, g, r, label)
		}
		bw.WriteString("}\n")
	}
	return bw.Flush()
}

// rankLabels returns the labels Write uses for a rank's operations: each
// operation's Graph.Label (its stored label, l<n> where it has none) when
// these are distinct GOAL identifiers, otherwise l1, l2, ... for all of them.
func rankLabels(g *graph.Graph, lo, hi int32) func(int32) string {
	gen := func(id int32) string { return "l" + strconv.Itoa(int(id-lo+1)) }
	if g.Labels == nil {
		return gen
	}
	label := func(id int32) string {
		if l := g.Labels[id]; l != "" {
			return l
		}
		return gen(id)
	}
	seen := make(map[string]bool, hi-lo)
	for id := lo; id < hi; id++ {
		l := label(id)
		if !isIdent(l) || seen[l] {
			return gen
		}
		seen[l] = true
	}
	return label
}

// writeOrdered writes rank r's dependency lines in their declaration order
// (Graph.DepOrder), after its operations.
func writeOrdered(w *bufio.Writer, g *graph.Graph, r int, label func(int32) string) {
	lo, hi := g.DepStart[g.RankStart[r]], g.DepStart[g.RankStart[r+1]]
	edge := make([]int32, hi-lo) // declaration position → edge index
	op := make([]int32, hi-lo)   // declaration position → dependent op
	for id := g.RankStart[r]; id < g.RankStart[r+1]; id++ {
		for j := g.DepStart[id]; j < g.DepStart[id+1]; j++ {
			edge[g.DepOrder[j]] = j
			op[g.DepOrder[j]] = id
		}
	}
	for k, j := range edge {
		fmt.Fprintf(w, "%s %s %s\n", label(op[k]), g.DepKind[j], label(g.DepOp[j]))
	}
}
