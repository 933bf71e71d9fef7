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
// the line that defines them.
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
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

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

type pendingDep struct {
	op, on string
	kind   graph.DepKind
	line   int
}

type parser struct {
	file     string
	line     int
	numRanks int
	rank     int // current rank block, -1 outside
	seen     []bool
	labels   map[string]int32
	deps     []pendingDep
	inBlock  bool // inside /* */
	toks     []string
	blk      Block
	onRanks  func(n int) error
	onBlock  func(*Block) error

	// Tags above maxSmallTag get the numbers maxSmallTag, maxSmallTag-1,
	// ... (bigTags maps them); maxTag is the largest small tag seen.
	bigTags map[uint64]int32
	maxTag  int32
}

// Block is one rank block of a GOAL file, as Scan hands it over.
type Block struct {
	Rank   int
	Ops    []graph.Op
	Labels []string // per operation; "" where the line has no label
	// Deps are the block's dependency lines in declaration order, by
	// operation index within the block.
	Deps []Dep
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
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxTokenLine)
	for sc.Scan() {
		p.line++
		if err := p.parseLine(sc.Text()); err != nil {
			return err
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
func (p *parser) tag(val string, send bool) (int32, error) {
	if !send && (val == "-1" || val == "18446744073709551615") {
		return graph.AnyTag, nil
	}
	if val == "" || val[0] < '0' || val[0] > '9' {
		return 0, p.errf("tag %q is not an integer in 0..2^64-1 (or -1, any tag, on a recv)", val)
	}
	v, err := strconv.ParseUint(val, 10, 64)
	if err != nil {
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

// stripComments removes comments from one line, tracking /* */ across lines.
func (p *parser) stripComments(s string) string {
	var out strings.Builder
	for len(s) > 0 {
		if p.inBlock {
			i := strings.Index(s, "*/")
			if i < 0 {
				return out.String()
			}
			s = s[i+2:]
			p.inBlock = false
			out.WriteByte(' ')
			continue
		}
		i := strings.IndexByte(s, '/')
		if i < 0 || i+1 >= len(s) {
			out.WriteString(s)
			break
		}
		switch s[i+1] {
		case '/':
			out.WriteString(s[:i])
			return out.String()
		case '*':
			out.WriteString(s[:i])
			out.WriteByte(' ')
			s = s[i+2:]
			p.inBlock = true
		default:
			out.WriteString(s[:i+1])
			s = s[i+1:]
		}
	}
	return out.String()
}

// tokenize splits a line on white space and around ':', '{' and '}'.
func (p *parser) tokenize(s string) []string {
	toks := p.toks[:0]
	start := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\r':
			if start >= 0 {
				toks = append(toks, s[start:i])
				start = -1
			}
		case ':', '{', '}':
			if start >= 0 {
				toks = append(toks, s[start:i])
				start = -1
			}
			toks = append(toks, s[i:i+1])
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		toks = append(toks, s[start:])
	}
	p.toks = toks
	return toks
}

func (p *parser) parseLine(raw string) error {
	if !p.inBlock && strings.IndexByte(raw, '/') < 0 {
		return p.parseTokens(p.tokenize(raw))
	}
	return p.parseTokens(p.tokenize(p.stripComments(raw)))
}

func (p *parser) parseTokens(t []string) error {
	for len(t) > 0 {
		switch t[0] {
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
			if len(t) < 3 || t[2] != "{" {
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
			p.deps = p.deps[:0]
			p.blk.Rank = p.rank
			p.blk.Ops, p.blk.Labels, p.blk.Deps = p.blk.Ops[:0], p.blk.Labels[:0], p.blk.Deps[:0]
			t = t[3:]
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
func (p *parser) statement(t []string) error {
	label := ""
	if len(t) >= 2 && t[1] == ":" {
		if !isIdent(t[0]) {
			return p.errf("bad label %q", t[0])
		}
		label = t[0]
		t = t[2:]
		if len(t) == 0 {
			return p.errf("label %s: without an operation", label)
		}
	} else if len(t) == 3 && (t[1] == "requires" || t[1] == "irequires") {
		for _, l := range []string{t[0], t[2]} {
			if !isIdent(l) {
				return p.errf("bad label %q in dependency", l)
			}
		}
		kind := graph.Requires
		if t[1] == "irequires" {
			kind = graph.Irequires
		}
		p.deps = append(p.deps, pendingDep{op: t[0], on: t[2], kind: kind, line: p.line})
		return nil
	}
	var op graph.Op
	var err error
	switch t[0] {
	case "calc":
		op, err = p.calc(t[1:])
	case "send", "recv":
		op, err = p.msg(t[0] == "send", t[1:])
	default:
		return p.errf("unknown statement %q (want calc, send, recv or a dependency)", strings.Join(t, " "))
	}
	if err != nil {
		return err
	}
	id := int32(len(p.blk.Ops))
	p.blk.Ops = append(p.blk.Ops, op)
	p.blk.Labels = append(p.blk.Labels, label)
	if label != "" {
		if _, dup := p.labels[label]; dup {
			return p.errf("label %s defined twice in rank %d", label, p.rank)
		}
		p.labels[label] = id
	}
	return nil
}

func (p *parser) calc(t []string) (graph.Op, error) {
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
		if t[0] != "cpu" || len(t) != 2 {
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

func (p *parser) msg(send bool, t []string) (graph.Op, error) {
	kw, dir, what := "recv", "from", "recv size"
	if send {
		kw, dir, what = "send", "to", "send size"
	}
	if len(t) == 0 {
		return graph.Op{}, p.errf("%s needs a size such as 8b", kw)
	}
	sz := t[0]
	if strings.HasSuffix(sz, "b") {
		sz = sz[:len(sz)-1]
		t = t[1:]
	} else if len(t) > 1 && t[1] == "b" {
		t = t[2:]
	} else {
		return graph.Op{}, p.errf("%s size %q must end in b (bytes)", kw, t[0])
	}
	n, err := p.count(sz, what, MaxSize)
	if err != nil {
		return graph.Op{}, err
	}
	if len(t) < 2 || t[0] != dir {
		return graph.Op{}, p.errf("%s %db needs '%s RANK'", kw, n, dir)
	}
	var peer int32
	if !send && t[1] == "-1" {
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
		switch key {
		case "tag":
			pos = 1
			tag, err := p.tag(val, send)
			if err != nil {
				return graph.Op{}, err
			}
			op.Tag = tag
		case "cpu", "nic":
			pos = 2
			if key == "nic" {
				pos = 3
			}
			v, err := p.count(val, key, graph.MaxCPU)
			if err != nil {
				return graph.Op{}, err
			}
			if key == "cpu" {
				op.CPU = uint8(v)
			} else {
				op.NIC = uint8(v)
			}
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
func (p *parser) count(s, what string, max int64) (int64, error) {
	if s == "" || s[0] == '+' || s[0] == '-' {
		return 0, p.errf("%s %q is not a non-negative integer", what, s)
	}
	u, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, p.errf("%s %q is not a non-negative integer", what, s)
	}
	if u > uint64(max) {
		return 0, p.errf("%s %d out of range (0..%d)", what, u, max)
	}
	return int64(u), nil
}

func (p *parser) closeRank() error {
	for _, d := range p.deps {
		op, ok1 := p.labels[d.op]
		on, ok2 := p.labels[d.on]
		if !ok1 || !ok2 {
			missing := d.op
			if ok1 {
				missing = d.on
			}
			return &SyntaxError{File: p.file, Line: d.line, Msg: fmt.Sprintf("unknown label %s in rank %d", missing, p.rank)}
		}
		if op == on {
			return &SyntaxError{File: p.file, Line: d.line, Msg: fmt.Sprintf("%s depends on itself", d.op)}
		}
		p.blk.Deps = append(p.blk.Deps, Dep{Op: op, On: on, Kind: d.kind})
	}
	p.rank = -1
	return p.onBlock(&p.blk)
}

func isIdent(s string) bool {
	if s == "" {
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
	return s != "requires" && s != "irequires" && s != "calc" && s != "send" && s != "recv" && s != "rank" && s != "num_ranks"
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

// rankLabels returns the labels Write uses for a rank's operations: the
// stored labels when every one is a distinct GOAL identifier, otherwise
// l1, l2, ... for all of them.
func rankLabels(g *graph.Graph, lo, hi int32) func(int32) string {
	gen := func(id int32) string { return "l" + strconv.Itoa(int(id-lo+1)) }
	if g.Labels == nil {
		return gen
	}
	seen := make(map[string]bool, hi-lo)
	for id := lo; id < hi; id++ {
		l := g.Labels[id]
		if !isIdent(l) || seen[l] {
			return gen
		}
		seen[l] = true
	}
	return func(id int32) string { return g.Labels[id] }
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
