// Package arrowtrace reads and writes capsim's trace files: Apache Arrow
// IPC files holding an execution graph or an MPI trace, as specified in
// docs/trace-format.md. They are plain Arrow files (no extension types), so
// pyarrow, polars, DuckDB and arrow-js read them as they are.
package arrowtrace

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/traces/graph"
)

// Schema metadata keys and values.
const (
	MetaFormat   = "capsim.format"
	MetaVersion  = "capsim.version"
	MetaNumRanks = "capsim.num_ranks"
	MetaNumOps   = "capsim.num_ops"  // optional: lets readers size columns once
	MetaNumDeps  = "capsim.num_deps" // optional, likewise
	MetaUnits    = "capsim.units"

	FormatGraph = "execution-graph"
	FormatMPI   = "mpi-trace"
	Version     = "1"

	graphUnits = "size: ns for calc, bytes for send/recv"
)

// BatchRows is the number of rows per record batch the writers emit.
const BatchRows = 1 << 16

// FormatError is malformed input: it names the file, the row (0-based over
// the whole file; -1 when the problem is not in a row) and the field.
type FormatError struct {
	File  string
	Row   int64
	Field string
	Msg   string
}

func (e *FormatError) Error() string {
	s := e.File
	if e.Row >= 0 {
		s += ": row " + strconv.FormatInt(e.Row, 10)
	}
	if e.Field != "" {
		s += ": field " + e.Field
	}
	return s + ": " + e.Msg
}

// Kind is what a trace file holds.
type Kind int

// File kinds Detect tells apart.
const (
	KindUnknown Kind = iota
	KindGOAL         // GOAL text
	KindGraph        // Arrow execution graph
	KindMPI          // Arrow MPI trace
)

func (k Kind) String() string {
	return [...]string{"unknown", "GOAL text", "execution graph", "MPI trace"}[k]
}

var arrowMagic = []byte("ARROW1")

// Detect reports what the file at path holds: an Arrow execution graph, an
// Arrow MPI trace (by their schema metadata) or GOAL text.
//
// A corrupt Arrow file is an error, never a panic: the footer is checked
// first and the Arrow library's panics are recovered, as in readFile.
func Detect(path string) (kind Kind, err error) {
	f, err := os.Open(path)
	if err != nil {
		return KindUnknown, err
	}
	defer f.Close()
	head := make([]byte, 8)
	n, _ := io.ReadFull(f, head)
	if isStream(f) {
		defer func() {
			if p := recover(); p != nil {
				kind, err = KindUnknown, &FormatError{File: path, Row: -1, Msg: fmt.Sprintf("malformed Arrow data: %v", p)}
			}
		}()
		size, err := sizeOf(f)
		if err != nil {
			return KindUnknown, fmt.Errorf("read %s: %w", path, err)
		}
		if err := checkStreamSchema(f, size); err != nil {
			return KindUnknown, &FormatError{File: path, Row: -1, Msg: "not a readable Arrow IPC stream: " + err.Error()}
		}
		sr, err := ipc.NewReader(io.NewSectionReader(f, 0, size), ipc.WithMetadataSizeLimit(size), ipc.WithBodySizeLimit(size))
		if err != nil {
			return KindUnknown, &FormatError{File: path, Row: -1, Msg: "not a readable Arrow IPC stream: " + err.Error()}
		}
		defer sr.Release()
		return kindOf(path, sr.Schema())
	}
	if n >= 6 && bytes.Equal(head[:6], arrowMagic) {
		defer func() {
			if p := recover(); p != nil {
				kind, err = KindUnknown, &FormatError{File: path, Row: -1, Msg: fmt.Sprintf("malformed Arrow data: %v", p)}
			}
		}()
		size, err := sizeOf(f)
		if err != nil {
			return KindUnknown, fmt.Errorf("read %s: %w", path, err)
		}
		if err := checkFooter(f, size); err != nil {
			return KindUnknown, &FormatError{File: path, Row: -1, Msg: "not a readable Arrow IPC file: " + err.Error()}
		}
		fr, err := ipc.NewFileReader(f, ipc.WithMetadataSizeLimit(size), ipc.WithBodySizeLimit(size))
		if err != nil {
			return KindUnknown, &FormatError{File: path, Row: -1, Msg: "not a readable Arrow IPC file: " + err.Error()}
		}
		defer fr.Close()
		return kindOf(path, fr.Schema())
	}
	return KindGOAL, nil
}

// kindOf tells a capsim trace's kind by its schema metadata, or, for a
// table written without it (polars, DuckDB), by its columns.
func kindOf(path string, sc *arrow.Schema) (Kind, error) {
	v, ok := sc.Metadata().GetValue(MetaFormat)
	has := func(names ...string) bool {
		for _, n := range names {
			if len(sc.FieldIndices(n)) != 1 {
				return false
			}
		}
		return true
	}
	if !ok && has("rank", "kind") {
		switch {
		case has("requires", "irequires"):
			return KindGraph, nil
		case has("comm", "request", "list"):
			return KindMPI, nil
		}
	}
	switch v {
	case FormatGraph:
		return KindGraph, nil
	case FormatMPI:
		return KindMPI, nil
	default:
		return KindUnknown, &FormatError{File: path, Row: -1, Field: MetaFormat,
			Msg: fmt.Sprintf("Arrow data is not a capsim trace (metadata %s = %q; see docs/trace-format.md for the columns and metadata capsim needs)", MetaFormat, v)}
	}
}

var kindDictType = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
var regionDictType = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}

// graphSchemaFor is the execution-graph schema; numOps and numDeps < 0
// leave the optional counts out.
func graphSchemaFor(numRanks, numOps, numDeps int, labeled bool) *arrow.Schema {
	fields := []arrow.Field{
		{Name: "rank", Type: arrow.PrimitiveTypes.Int32},
		{Name: "kind", Type: kindDictType},
		{Name: "size", Type: arrow.PrimitiveTypes.Int64},
		{Name: "peer", Type: arrow.PrimitiveTypes.Int32},
		{Name: "tag", Type: arrow.PrimitiveTypes.Int32},
		{Name: "cpu", Type: arrow.PrimitiveTypes.Int32},
		{Name: "nic", Type: arrow.PrimitiveTypes.Int32},
		{Name: "region", Type: regionDictType, Nullable: true},
		{Name: "requires", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)},
		{Name: "irequires", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)},
	}
	if labeled {
		fields = append(fields, arrow.Field{Name: "label", Type: arrow.BinaryTypes.String, Nullable: true})
	}
	keys := []string{MetaFormat, MetaVersion, MetaNumRanks, MetaUnits}
	vals := []string{FormatGraph, Version, strconv.Itoa(numRanks), graphUnits}
	if numOps >= 0 {
		keys = append(keys, MetaNumOps, MetaNumDeps)
		vals = append(vals, strconv.Itoa(numOps), strconv.Itoa(numDeps))
	}
	md := arrow.NewMetadata(keys, vals)
	return arrow.NewSchema(fields, &md)
}

// WriteGraph writes g to path as an Arrow execution-graph file, atomically.
func WriteGraph(path string, g *graph.Graph) error {
	return atomicfile.Write(path, func(w io.Writer) error { return EncodeGraph(w, g) })
}

// EncodeGraph writes g as an Arrow IPC file to w.
func EncodeGraph(w io.Writer, g *graph.Graph) error {
	gw, err := newGraphWriter(w, graphSchemaFor(g.NumRanks(), g.NumOps(), g.NumDeps(), g.Labels != nil))
	if err != nil {
		return err
	}
	defer gw.release()
	var req, ireq []int32
	for r := 0; r < g.NumRanks(); r++ {
		lo, hi := g.RankStart[r], g.RankStart[r+1]
		for id := lo; id < hi; id++ {
			req, ireq = req[:0], ireq[:0]
			deps, kinds := g.Deps(id)
			for j, d := range deps {
				if kinds[j] == graph.Requires {
					req = append(req, d-lo)
				} else {
					ireq = append(ireq, d-lo)
				}
			}
			region := ""
			if reg := g.Region[id]; reg != graph.NoRegion {
				region = g.Regions[reg]
			}
			label := ""
			if g.Labels != nil {
				label = g.Labels[id]
			}
			op := graph.Op{Kind: g.Kind[id], Size: g.Size[id], Peer: g.Peer[id], Tag: g.Tag[id], CPU: g.CPU[id], NIC: g.NIC[id]}
			if err := gw.Op(int32(r), op, region, req, ireq, label); err != nil {
				return err
			}
		}
	}
	return gw.Close()
}

// GraphWriter writes an execution graph operation by operation, ranks in
// increasing order, holding one record batch in memory: the streaming
// counterpart of EncodeGraph (its files carry no capsim.num_ops and
// capsim.num_deps metadata).
type GraphWriter struct {
	fw      *ipc.FileWriter
	b       *array.RecordBuilder
	rankB   *array.Int32Builder
	kindB   *array.BinaryDictionaryBuilder
	sizeB   *array.Int64Builder
	peerB   *array.Int32Builder
	tagB    *array.Int32Builder
	cpuB    *array.Int32Builder
	nicB    *array.Int32Builder
	regB    *array.BinaryDictionaryBuilder
	reqB    *array.ListBuilder
	reqV    *array.Int32Builder
	ireqB   *array.ListBuilder
	ireqV   *array.Int32Builder
	labB    *array.StringBuilder
	rows    int
	written int64
	rank    int32
}

// NewGraphWriter starts an execution-graph file of numRanks ranks on w;
// labeled adds the label column.
func NewGraphWriter(w io.Writer, numRanks int, labeled bool) (*GraphWriter, error) {
	return newGraphWriter(w, graphSchemaFor(numRanks, -1, -1, labeled))
}

func newGraphWriter(w io.Writer, sc *arrow.Schema) (*GraphWriter, error) {
	fw, err := ipc.NewFileWriter(w, ipc.WithSchema(sc))
	if err != nil {
		return nil, err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	gw := &GraphWriter{fw: fw, b: b,
		rankB: b.Field(0).(*array.Int32Builder), kindB: b.Field(1).(*array.BinaryDictionaryBuilder),
		sizeB: b.Field(2).(*array.Int64Builder), peerB: b.Field(3).(*array.Int32Builder),
		tagB: b.Field(4).(*array.Int32Builder), cpuB: b.Field(5).(*array.Int32Builder),
		nicB: b.Field(6).(*array.Int32Builder), regB: b.Field(7).(*array.BinaryDictionaryBuilder),
		reqB: b.Field(8).(*array.ListBuilder), ireqB: b.Field(9).(*array.ListBuilder)}
	gw.reqV = gw.reqB.ValueBuilder().(*array.Int32Builder)
	gw.ireqV = gw.ireqB.ValueBuilder().(*array.Int32Builder)
	if len(sc.Fields()) > 10 {
		gw.labB = b.Field(10).(*array.StringBuilder)
	}
	return gw, nil
}

func (gw *GraphWriter) release() {
	if gw.b != nil {
		gw.b.Release()
		gw.b = nil
	}
}

// Op appends one operation of rank (ranks in increasing order): its region
// ("" for none), the indices within its rank of the operations it requires
// and irequires, and its label ("" for none).
func (gw *GraphWriter) Op(rank int32, op graph.Op, region string, requires, irequires []int32, label string) error {
	if rank < gw.rank {
		return fmt.Errorf("arrowtrace: operation of rank %d after rank %d (ranks must come in increasing order)", rank, gw.rank)
	}
	gw.rank = rank
	gw.rankB.Append(rank)
	if err := gw.kindB.AppendString(op.Kind.String()); err != nil {
		return err
	}
	gw.sizeB.Append(op.Size)
	gw.peerB.Append(op.Peer)
	gw.tagB.Append(op.Tag)
	gw.cpuB.Append(int32(op.CPU))
	gw.nicB.Append(int32(op.NIC))
	if region == "" {
		gw.regB.AppendNull()
	} else if err := gw.regB.AppendString(region); err != nil {
		return err
	}
	gw.reqB.Append(true)
	gw.reqV.AppendValues(requires, nil)
	gw.ireqB.Append(true)
	gw.ireqV.AppendValues(irequires, nil)
	if gw.labB != nil {
		if label == "" {
			gw.labB.AppendNull()
		} else {
			gw.labB.Append(label)
		}
	}
	gw.rows++
	if gw.rows == BatchRows {
		return gw.flush()
	}
	return nil
}

func (gw *GraphWriter) flush() error {
	rec := gw.b.NewRecordBatch()
	defer rec.Release()
	gw.written += int64(gw.rows)
	gw.rows = 0
	return gw.fw.Write(rec)
}

// Abort releases the writer's memory without finishing the file (what was
// written to w is not a valid file).
func (gw *GraphWriter) Abort() { gw.release() }

// Close writes the last batch and the file's footer.
func (gw *GraphWriter) Close() error {
	defer gw.release()
	if gw.rows > 0 || gw.written == 0 {
		if err := gw.flush(); err != nil {
			return err
		}
	}
	return gw.fw.Close()
}

// ReadGraph reads an Arrow execution-graph file, one record batch at a
// time.
//
// (arrow-go v18.8.0's zero-copy ipc.NewMappedFileReader cannot read files
// with dictionary columns: it leaves its dictionary memo unset and panics,
// so capsim reads through ipc.NewFileReader.)
func ReadGraph(path string) (*graph.Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	return decodeGraph(f, path)
}

// DecodeGraph reads an execution graph from the bytes of an Arrow IPC
// file; name is used in error messages.
func DecodeGraph(data []byte, name string) (*graph.Graph, error) {
	return decodeGraph(bytes.NewReader(data), name)
}

func decodeGraph(r sizer, name string) (*graph.Graph, error) {
	d := &graphDecoder{name: name}
	if err := readFile(r, name, d); err != nil {
		return nil, err
	}
	return d.finish()
}

type graphDecoder struct {
	name     string
	opsHint  int
	depsHint int
	col      map[string]int
	numRanks int
	g        *graph.Graph
	row      int64
	rank     int32 // rank of the previous row
	regions  map[string]int32
}

func (d *graphDecoder) errf(row int64, field, format string, a ...any) error {
	return &FormatError{File: d.name, Row: row, Field: field, Msg: fmt.Sprintf(format, a...)}
}

func (d *graphDecoder) rows() int64 { return d.row }

func (d *graphDecoder) format() string { return FormatGraph }

func (d *graphDecoder) schema(sc *arrow.Schema) error {
	n, err := header(sc, d.name, FormatGraph, "execution graph")
	if err != nil {
		return err
	}
	d.numRanks = n
	// Size hints; wrong or missing hints only cost reallocation.
	md := sc.Metadata()
	if v, ok := md.GetValue(MetaNumOps); ok {
		if h, err := strconv.Atoi(v); err == nil && h >= 0 && h < 1<<31-1 {
			d.opsHint = h
		}
	}
	if v, ok := md.GetValue(MetaNumDeps); ok {
		if h, err := strconv.Atoi(v); err == nil && h >= 0 && h < 1<<31-1 {
			d.depsHint = h
		}
	}
	d.col, err = columns(sc, d.name, []column{
		{name: "rank", typ: arrow.INT32}, {name: "kind", typ: arrow.STRING}, {name: "size", typ: arrow.INT64},
		{name: "peer", typ: arrow.INT32}, {name: "tag", typ: arrow.INT32}, {name: "cpu", typ: arrow.INT32},
		{name: "nic", typ: arrow.INT32}, {name: "region", typ: arrow.STRING},
		{name: "requires", typ: arrow.LIST, elem: arrow.INT32}, {name: "irequires", typ: arrow.LIST, elem: arrow.INT32},
	})
	if err != nil {
		return err
	}
	if idx := sc.FieldIndices("label"); len(idx) == 1 {
		if !isString(sc.Field(idx[0]).Type) {
			return d.errf(-1, "label", "has type %s, want a string", sc.Field(idx[0]).Type)
		}
		d.col["label"] = idx[0]
	}
	d.alloc()
	return nil
}

func (d *graphDecoder) alloc() {
	n := min(d.opsHint, 1<<26) // a hint from the file is not trusted beyond reason
	d.g = &graph.Graph{
		RankStart: make([]int32, d.numRanks+1),
		Kind:      make([]graph.OpKind, 0, n),
		Size:      make([]int64, 0, n),
		Peer:      make([]int32, 0, n),
		Tag:       make([]int32, 0, n),
		CPU:       make([]uint8, 0, n),
		NIC:       make([]uint8, 0, n),
		Region:    make([]int32, 0, n),
		DepStart:  make([]int32, 1, n+1),
		DepOp:     make([]int32, 0, min(d.depsHint, 1<<26)),
		DepKind:   make([]graph.DepKind, 0, min(d.depsHint, 1<<26)),
	}
	if _, ok := d.col["label"]; ok {
		d.g.Labels = make([]string, 0, n)
	}
	d.regions = map[string]int32{}
	d.rank = 0
}

// grow extends every per-operation column by n zeroed entries.
func (d *graphDecoder) grow(n int) {
	g := d.g
	g.Kind = extend(g.Kind, n)
	g.Size = extend(g.Size, n)
	g.Peer = extend(g.Peer, n)
	g.Tag = extend(g.Tag, n)
	g.CPU = extend(g.CPU, n)
	g.NIC = extend(g.NIC, n)
	g.Region = extend(g.Region, n)
	g.DepStart = extend(g.DepStart, n)
	if g.Labels != nil {
		g.Labels = extend(g.Labels, n)
	}
}

func extend[T any](s []T, n int) []T {
	return slices.Grow(s, n)[:len(s)+n]
}

// stringCol resolves a string column of any flavour (utf8, large_utf8,
// string_view) or a dictionary of one with any index type.
type stringCol struct {
	plain stringValues
	dict  *array.Dictionary
	vals  stringValues
}

type stringValues interface {
	IsNull(i int) bool
	Value(i int) string
}

func newStringCol(a arrow.Array) stringCol {
	if d, ok := a.(*array.Dictionary); ok {
		v, _ := d.Dictionary().(stringValues)
		return stringCol{dict: d, vals: v}
	}
	v, _ := a.(stringValues)
	return stringCol{plain: v}
}

func (s stringCol) isNull(i int) bool {
	if s.plain != nil {
		return s.plain.IsNull(i)
	}
	return s.dict.IsNull(i) || s.vals.IsNull(s.dict.GetValueIndex(i))
}

func (s stringCol) value(i int) string {
	if s.plain != nil {
		return s.plain.Value(i)
	}
	return s.vals.Value(s.dict.GetValueIndex(i))
}

func (d *graphDecoder) batch(rec arrow.RecordBatch) error {
	d.grow(int(rec.NumRows()))
	n := int(rec.NumRows())
	col := func(name string) arrow.Array { return rec.Column(d.col[name]) }
	var cols [5][]int32
	for k, name := range []string{"rank", "peer", "tag", "cpu", "nic"} {
		v, err := int32s(rec, d.col[name], name, d.name, d.row)
		if err != nil {
			return err
		}
		cols[k] = v
	}
	rv, pv, tv, cv, nv := cols[0], cols[1], cols[2], cols[3], cols[4]
	sv, err := int64s(rec, d.col["size"], "size", d.name, d.row)
	if err != nil {
		return err
	}
	kind := newStringCol(col("kind"))
	region := newStringCol(col("region"))
	req, err := newListCol[int32](col("requires"), "requires", d.name, d.row)
	if err != nil {
		return err
	}
	ireq, err := newListCol[int32](col("irequires"), "irequires", d.name, d.row)
	if err != nil {
		return err
	}
	var label stringCol
	if c, ok := d.col["label"]; ok {
		label = newStringCol(rec.Column(c))
	}
	g := d.g
	nr := int32(d.numRanks)
	for i := 0; i < n; i++ {
		row := d.row
		id := int32(row)
		r := rv[i]
		if r < 0 || r >= nr {
			return d.errf(row, "rank", "rank %d outside 0..%d", r, nr-1)
		}
		if r < d.rank {
			return d.errf(row, "rank", "rank %d after rank %d: rows must be grouped by rank in increasing order", r, d.rank)
		}
		for ; d.rank < r; d.rank++ {
			g.RankStart[d.rank+1] = id
		}
		if kind.isNull(i) {
			return d.errf(row, "kind", "is null")
		}
		k, err := graph.ParseOpKind(kind.value(i))
		if err != nil {
			return d.errf(row, "kind", "%v", err)
		}
		g.Kind[id] = k
		if sv[i] < 0 {
			return d.errf(row, "size", "negative size %d", sv[i])
		}
		g.Size[id] = sv[i]
		switch k {
		case graph.Send:
			if pv[i] < 0 || pv[i] >= nr {
				return d.errf(row, "peer", "peer %d is not a rank (0..%d)", pv[i], nr-1)
			}
			if tv[i] < 0 {
				return d.errf(row, "tag", "send tag %d is negative", tv[i])
			}
		case graph.Recv:
			if pv[i] < graph.AnySource || pv[i] >= nr {
				return d.errf(row, "peer", "peer %d is not a rank (0..%d) or -1 (any source)", pv[i], nr-1)
			}
			if tv[i] < graph.AnyTag {
				return d.errf(row, "tag", "recv tag %d is below -1 (any tag)", tv[i])
			}
		}
		g.Peer[id], g.Tag[id] = pv[i], tv[i]
		if k == graph.Calc {
			g.Peer[id], g.Tag[id] = -1, 0
		}
		if cv[i] < 0 || cv[i] > graph.MaxCPU {
			return d.errf(row, "cpu", "cpu %d outside 0..%d", cv[i], graph.MaxCPU)
		}
		if nv[i] < 0 || nv[i] > graph.MaxNIC {
			return d.errf(row, "nic", "nic %d outside 0..%d", nv[i], graph.MaxNIC)
		}
		g.CPU[id], g.NIC[id] = uint8(cv[i]), uint8(nv[i])
		g.Region[id] = graph.NoRegion
		if !region.isNull(i) {
			name := region.value(i)
			reg, ok := d.regions[name]
			if !ok {
				name = strings.Clone(name) // Value aliases the batch's buffer
				reg = int32(len(g.Regions))
				d.regions[name] = reg
				g.Regions = append(g.Regions, name)
			}
			g.Region[id] = reg
		}
		if g.Labels != nil && !label.isNull(i) {
			g.Labels[id] = strings.Clone(label.value(i))
		}
		for _, dl := range [...]struct {
			list listCol[int32]
			kind graph.DepKind
			name string
		}{{req, graph.Requires, "requires"}, {ireq, graph.Irequires, "irequires"}} {
			if dl.list.IsNull(i) {
				continue
			}
			a, b, ok := dl.list.Offsets(i)
			if !ok {
				return d.errf(row, dl.name, "list offsets %d..%d out of range", a, b)
			}
			base := g.RankStart[r]
			for _, local := range dl.list.Values[a:b] {
				if local < 0 {
					return d.errf(row, dl.name, "negative operation index %d", local)
				}
				dep := int64(base) + int64(local)
				if dep == int64(id) {
					return d.errf(row, dl.name, "operation depends on itself (index %d)", local)
				}
				if dep > 1<<31-2 {
					return d.errf(row, dl.name, "operation index %d out of range", local)
				}
				g.DepOp = append(g.DepOp, int32(dep))
				g.DepKind = append(g.DepKind, dl.kind)
			}
		}
		g.DepStart[id+1] = int32(len(g.DepOp))
		d.row++
	}
	return nil
}

func (d *graphDecoder) finish() (*graph.Graph, error) {
	g := d.g
	n := int32(len(g.Kind))
	for ; d.rank < int32(d.numRanks); d.rank++ {
		g.RankStart[d.rank+1] = n
	}
	// Dependencies must name operations of their own rank.
	for r := 0; r < d.numRanks; r++ {
		lo, hi := g.RankStart[r], g.RankStart[r+1]
		for id := lo; id < hi; id++ {
			for j := g.DepStart[id]; j < g.DepStart[id+1]; j++ {
				if dep := g.DepOp[j]; dep >= hi {
					field := "requires"
					if g.DepKind[j] == graph.Irequires {
						field = "irequires"
					}
					return nil, d.errf(int64(id), field, "operation index %d, but rank %d has only %d operations", dep-lo, r, hi-lo)
				}
			}
		}
	}
	if err := g.Validate(); err != nil {
		return nil, &FormatError{File: d.name, Row: -1, Msg: err.Error()}
	}
	return g, nil
}
