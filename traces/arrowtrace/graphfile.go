// Package arrowtrace reads and writes capsim's trace files: Apache Arrow
// IPC files holding an execution graph or an MPI trace, as specified in
// docs/reference/trace-formats.md. They are plain Arrow files (no extension types), so
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

	// MetaCausal, "true" in an execution graph whose CPUs are
	// concurrent streams of one device (graph.Graph.Causal, a Chakra
	// trace's), makes every dependency hold across a rank's CPUs when
	// it is replayed; absent or "false": LogGOPSim's release order.
	MetaCausal = "capsim.causal"

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
			Msg: fmt.Sprintf("Arrow data is not a capsim trace (metadata %s = %q; see docs/reference/trace-formats.md for the columns and metadata capsim needs)", MetaFormat, v)}
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
	sc, err := withRecorded(graphSchemaFor(g.NumRanks(), g.NumOps(), g.NumDeps(), g.Labels != nil), g.Recorded)
	if err != nil {
		return err
	}
	if g.Causal {
		md := sc.Metadata()
		keys := append(append([]string(nil), md.Keys()...), MetaCausal)
		vals := append(append([]string(nil), md.Values()...), "true")
		nmd := arrow.NewMetadata(keys, vals)
		sc = arrow.NewSchema(sc.Fields(), &nmd)
	}
	gw, err := newGraphWriter(w, sc, g.Regions)
	if err != nil {
		return err
	}
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
			label := ""
			if g.Labels != nil {
				label = g.Labels[id]
			}
			op := graph.Op{Kind: g.Kind[id], Size: g.Size[id], Peer: g.Peer[id], Tag: g.Tag[id], CPU: g.CPU[id], NIC: g.NIC[id], Region: g.Region[id]}
			if err := gw.Op(int32(r), op, req, ireq, label); err != nil {
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
//
// A batch's columns are kept as Go slices and handed to the Arrow writer
// as they are; the kind and region columns are dictionary indices into
// dictionaries fixed when the writer starts (an Arrow IPC file holds one
// dictionary per column), so appending an operation allocates nothing.
type GraphWriter struct {
	fw       *ipc.FileWriter
	schema   *arrow.Schema
	kindDict *array.Data
	regDict  *array.Data
	regions  int32
	labeled  bool

	// The current batch.
	rank, peer, tag, cpu, nic []int32
	kind                      []int8
	size                      []int64
	region                    []int32
	regValid                  []byte // validity bitmap of region
	regNulls                  int
	reqOff, ireqOff           []int32 // list offsets, from 0
	req, ireq                 []int32
	labOff                    []int32
	labData                   []byte
	labValid                  []byte
	labNulls                  int

	written  int64
	lastRank int32
}

// NewGraphWriter starts an execution-graph file of numRanks ranks on w.
// Operations name their code region by index into regions (the file's
// region dictionary) or graph.NoRegion; labeled adds the label column.
func NewGraphWriter(w io.Writer, numRanks int, regions []string, labeled bool) (*GraphWriter, error) {
	return newGraphWriter(w, graphSchemaFor(numRanks, -1, -1, labeled), regions)
}

// kindNames is the kind column's dictionary: graph.OpKind indexes it.
var kindNames = []string{graph.Calc.String(), graph.Send.String(), graph.Recv.String()}

// newStrings returns vals as an Arrow string array.
func newStrings(vals []string) *array.String {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewStringArray()
}

// stringArray returns vals as the data of an Arrow string array.
func stringArray(vals []string) *array.Data {
	a := newStrings(vals)
	defer a.Release()
	d := a.Data().(*array.Data)
	d.Retain()
	return d
}

func newGraphWriter(w io.Writer, sc *arrow.Schema, regions []string) (*GraphWriter, error) {
	if int64(len(regions)) > 1<<31-1 {
		return nil, fmt.Errorf("arrowtrace: %d regions, more than a region column indexes", len(regions))
	}
	fw, err := ipc.NewFileWriter(w, ipc.WithSchema(sc))
	if err != nil {
		return nil, err
	}
	gw := &GraphWriter{fw: fw, schema: sc, kindDict: stringArray(kindNames), regDict: stringArray(regions),
		regions: int32(len(regions)), labeled: len(sc.Fields()) > 10}
	gw.reset()
	return gw, nil
}

// reset empties the batch, keeping its storage.
func (gw *GraphWriter) reset() {
	gw.rank, gw.peer, gw.tag, gw.cpu, gw.nic = gw.rank[:0], gw.peer[:0], gw.tag[:0], gw.cpu[:0], gw.nic[:0]
	gw.kind, gw.size, gw.region = gw.kind[:0], gw.size[:0], gw.region[:0]
	gw.regValid = append(gw.regValid[:0], make([]byte, BatchRows/8)...)
	gw.regNulls = 0
	gw.reqOff, gw.ireqOff = append(gw.reqOff[:0], 0), append(gw.ireqOff[:0], 0)
	gw.req, gw.ireq = gw.req[:0], gw.ireq[:0]
	if gw.labeled {
		gw.labOff, gw.labData = append(gw.labOff[:0], 0), gw.labData[:0]
		gw.labValid = append(gw.labValid[:0], make([]byte, BatchRows/8)...)
		gw.labNulls = 0
	}
}

func (gw *GraphWriter) release() {
	if gw.kindDict != nil {
		gw.kindDict.Release()
		gw.regDict.Release()
		gw.kindDict, gw.regDict = nil, nil
	}
}

// Op appends one operation of rank (ranks in increasing order): its code
// region (op.Region, an index into the writer's regions, or
// graph.NoRegion), the indices within its rank of the operations it
// requires and irequires, and its label ("" for none).
func (gw *GraphWriter) Op(rank int32, op graph.Op, requires, irequires []int32, label string) error {
	if rank < gw.lastRank {
		return fmt.Errorf("arrowtrace: operation of rank %d after rank %d (ranks must come in increasing order)", rank, gw.lastRank)
	}
	if op.Kind > graph.Recv {
		return fmt.Errorf("arrowtrace: operation of rank %d has kind %d, not calc, send or recv", rank, op.Kind)
	}
	if op.Region != graph.NoRegion && (op.Region < 0 || op.Region >= gw.regions) {
		return fmt.Errorf("arrowtrace: operation of rank %d has region %d, but the writer has %d regions", rank, op.Region, gw.regions)
	}
	if int64(len(gw.req))+int64(len(requires)) > 1<<31-1 || int64(len(gw.ireq))+int64(len(irequires)) > 1<<31-1 ||
		int64(len(gw.labData))+int64(len(label)) > 1<<31-1 {
		return fmt.Errorf("arrowtrace: the dependencies or labels of one record batch exceed 2^31 entries")
	}
	gw.lastRank = rank
	i := len(gw.rank)
	gw.rank = append(gw.rank, rank)
	gw.kind = append(gw.kind, int8(op.Kind))
	gw.size = append(gw.size, op.Size)
	gw.peer = append(gw.peer, op.Peer)
	gw.tag = append(gw.tag, op.Tag)
	gw.cpu = append(gw.cpu, int32(op.CPU))
	gw.nic = append(gw.nic, int32(op.NIC))
	if op.Region == graph.NoRegion {
		gw.region = append(gw.region, 0)
		gw.regNulls++
	} else {
		gw.region = append(gw.region, op.Region)
		gw.regValid[i>>3] |= 1 << (i & 7)
	}
	gw.req = append(gw.req, requires...)
	gw.reqOff = append(gw.reqOff, int32(len(gw.req)))
	gw.ireq = append(gw.ireq, irequires...)
	gw.ireqOff = append(gw.ireqOff, int32(len(gw.ireq)))
	if gw.labeled {
		if label == "" {
			gw.labNulls++
		} else {
			gw.labData = append(gw.labData, label...)
			gw.labValid[i>>3] |= 1 << (i & 7)
		}
		gw.labOff = append(gw.labOff, int32(len(gw.labData)))
	}
	if len(gw.rank) == BatchRows {
		return gw.flush()
	}
	return nil
}

// buf wraps b as an Arrow buffer (no copy).
func buf(b []byte) *memory.Buffer { return memory.NewBufferBytes(b) }

// validity returns the bitmap of a column of n rows with nulls null ones:
// nil when there are none.
func validity(bits []byte, n, nulls int) *memory.Buffer {
	if nulls == 0 {
		return nil
	}
	return buf(bits[:(n+7)/8])
}

// flush writes the batch.
func (gw *GraphWriter) flush() error {
	n := len(gw.rank)
	fields := gw.schema.Fields()
	i32 := func(v []int32) arrow.ArrayData {
		return array.NewData(arrow.PrimitiveTypes.Int32, n, []*memory.Buffer{nil, buf(arrow.Int32Traits.CastToBytes(v))}, nil, 0, 0)
	}
	list := func(typ arrow.DataType, off, vals []int32) arrow.ArrayData {
		v := array.NewData(arrow.PrimitiveTypes.Int32, len(vals), []*memory.Buffer{nil, buf(arrow.Int32Traits.CastToBytes(vals))}, nil, 0, 0)
		defer v.Release()
		return array.NewData(typ, n, []*memory.Buffer{nil, buf(arrow.Int32Traits.CastToBytes(off))}, []arrow.ArrayData{v}, 0, 0)
	}
	data := []arrow.ArrayData{
		i32(gw.rank),
		array.NewDataWithDictionary(fields[1].Type, n, []*memory.Buffer{nil, buf(arrow.Int8Traits.CastToBytes(gw.kind))}, 0, 0, gw.kindDict),
		array.NewData(arrow.PrimitiveTypes.Int64, n, []*memory.Buffer{nil, buf(arrow.Int64Traits.CastToBytes(gw.size))}, nil, 0, 0),
		i32(gw.peer), i32(gw.tag), i32(gw.cpu), i32(gw.nic),
		array.NewDataWithDictionary(fields[7].Type, n, []*memory.Buffer{validity(gw.regValid, n, gw.regNulls), buf(arrow.Int32Traits.CastToBytes(gw.region))}, gw.regNulls, 0, gw.regDict),
		list(fields[8].Type, gw.reqOff, gw.req),
		list(fields[9].Type, gw.ireqOff, gw.ireq),
	}
	if gw.labeled {
		data = append(data, array.NewData(arrow.BinaryTypes.String, n,
			[]*memory.Buffer{validity(gw.labValid, n, gw.labNulls), buf(arrow.Int32Traits.CastToBytes(gw.labOff)), buf(gw.labData)}, nil, gw.labNulls, 0))
	}
	cols := make([]arrow.Array, len(data))
	for k, d := range data {
		cols[k] = array.MakeFromData(d)
		d.Release()
	}
	rec := array.NewRecordBatch(gw.schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	err := gw.fw.Write(rec) // writes the batch's bytes to w before it returns
	rec.Release()
	gw.written += int64(n)
	gw.reset()
	return err
}

// Abort releases the writer's memory without finishing the file (what was
// written to w is not a valid file).
func (gw *GraphWriter) Abort() { gw.release() }

// Close writes the last batch and the file's footer.
func (gw *GraphWriter) Close() error {
	defer gw.release()
	if len(gw.rank) > 0 || gw.written == 0 {
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
	return readPath(path, decodeGraph)
}

// DecodeGraph reads an execution graph from the bytes of an Arrow IPC
// file; name is used in error messages.
func DecodeGraph(data []byte, name string) (*graph.Graph, error) {
	return decodeGraph(bytes.NewReader(data), name)
}

func decodeGraph(r sizer, name string) (*graph.Graph, error) {
	return decodeGraphWith(r, name, false)
}

// decodeGraphWith is decodeGraph, decoding every batch row by row when
// rowByRow is set (tests compare both ways).
func decodeGraphWith(r sizer, name string, rowByRow bool) (*graph.Graph, error) {
	d := &graphDecoder{name: name, rowByRow: rowByRow}
	if size, err := sizeOf(r); err == nil {
		// Without capsim.num_ops (files written as they stream have
		// none), the file's size bounds the operations: uncompressed, a
		// row of the graph schema takes at least minRowBytes. Capacity
		// reserved beyond what is used is never touched, so it costs
		// address space, not memory, while growing by appending would
		// copy every column several times.
		d.opsHint = int(min(size/minRowBytes, 1<<31-2))
	}
	if err := readFile(r, name, d); err != nil {
		return nil, err
	}
	return d.finish()
}

// minRowBytes is the least an operation takes in an uncompressed file
// of capsim's graph schema: rank, peer, tag, cpu, nic and region index (4
// bytes each), size (8), kind (1) and the two list offsets (4 each).
const minRowBytes = 41

type graphDecoder struct {
	name     string
	rowByRow bool // never decode column by column (fastBatch)
	opsHint  int
	depsHint int
	col      map[string]int
	numRanks int
	g        *graph.Graph
	rec      *graph.Recorded
	causal   bool // MetaCausal
	row      int64
	rank     int32 // rank of the previous row
	regions  map[string]int32

	kindBuf   []graph.OpKind // kinds' result, reused
	kindTable []graph.OpKind // kinds' dictionary entries, reused
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
	md := sc.Metadata()
	if d.rec, err = readRecorded(md, n, d.name); err != nil {
		return err
	}
	if d.causal, err = readCausal(md, d.name); err != nil {
		return err
	}
	// Size hints; wrong or missing hints only cost reallocation.
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
	d.g.AdviseHugePages()
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

// graphBatch is one record batch's columns, as graphDecoder.batch reads
// them.
type graphBatch struct {
	n                  int
	rv, pv, tv, cv, nv []int32 // rank, peer, tag, cpu, nic
	sv                 []int64 // size
	kind, region       stringCol
	label              stringCol // only if labeled
	labeled            bool
	req, ireq          listCol[int32]
	kinds              []graph.OpKind
}

func (d *graphDecoder) batch(rec arrow.RecordBatch) error {
	d.grow(int(rec.NumRows()))
	b, err := d.columns(rec)
	if err != nil {
		return err
	}
	if !d.rowByRow && (!b.labeled || b.label.allNull(b.n)) {
		if d.fastBatch(&b) {
			return nil
		}
	}
	for i := 0; i < b.n; i++ {
		if err := d.decodeRow(&b, i); err != nil {
			return err
		}
	}
	return nil
}

// columns reads the columns of rec.
func (d *graphDecoder) columns(rec arrow.RecordBatch) (graphBatch, error) {
	b := graphBatch{n: int(rec.NumRows())}
	col := func(name string) arrow.Array { return rec.Column(d.col[name]) }
	var cols [5][]int32
	for k, name := range []string{"rank", "peer", "tag", "cpu", "nic"} {
		v, err := int32s(rec, d.col[name], name, d.name, d.row)
		if err != nil {
			return b, err
		}
		cols[k] = v
	}
	b.rv, b.pv, b.tv, b.cv, b.nv = cols[0], cols[1], cols[2], cols[3], cols[4]
	var err error
	if b.sv, err = int64s(rec, d.col["size"], "size", d.name, d.row); err != nil {
		return b, err
	}
	b.kind = newStringCol(col("kind"))
	b.region = newStringCol(col("region"))
	if b.req, err = newListCol[int32](col("requires"), "requires", d.name, d.row); err != nil {
		return b, err
	}
	if b.ireq, err = newListCol[int32](col("irequires"), "irequires", d.name, d.row); err != nil {
		return b, err
	}
	if c, ok := d.col["label"]; ok {
		b.labeled, b.label = true, newStringCol(rec.Column(c))
	}
	b.kinds = d.kinds(b.kind, b.n)
	return b, nil
}

// decodeRow checks row i of b and adds its operation to the graph.
func (d *graphDecoder) decodeRow(b *graphBatch, i int) error {
	g := d.g
	nr := int32(d.numRanks)
	row := d.row
	id := int32(row)
	r := b.rv[i]
	if r < 0 || r >= nr {
		return d.errf(row, "rank", "rank %d outside 0..%d", r, nr-1)
	}
	if r < d.rank {
		return d.errf(row, "rank", "rank %d after rank %d: rows must be grouped by rank in increasing order", r, d.rank)
	}
	for ; d.rank < r; d.rank++ {
		g.RankStart[d.rank+1] = id
	}
	if err := d.setOp(b, i, id); err != nil {
		return err
	}
	g.Region[id] = graph.NoRegion
	if !b.region.isNull(i) {
		g.Region[id] = d.regionID(b.region.value(i))
	}
	if b.labeled && !b.label.isNull(i) {
		if g.Labels == nil {
			// Labels are kept from the first one on: a column of
			// nulls (implicit labels) costs no memory.
			g.Labels = make([]string, len(g.Kind), cap(g.Kind))
		}
		g.Labels[id] = strings.Clone(b.label.value(i))
	}
	if err := d.deps(&b.req, i, r, graph.Requires, "requires"); err != nil {
		return err
	}
	if err := d.deps(&b.ireq, i, r, graph.Irequires, "irequires"); err != nil {
		return err
	}
	g.DepStart[id+1] = int32(len(g.DepOp))
	d.row++
	return nil
}

// setOp checks and sets the kind, size, peer, tag, cpu and nic of
// operation id from row i of b.
func (d *graphDecoder) setOp(b *graphBatch, i int, id int32) error {
	g := d.g
	nr := int32(d.numRanks)
	row := d.row
	k := b.kinds[i]
	if k > graph.Recv {
		return d.kindErr(row, b.kind, i, k)
	}
	g.Kind[id] = k
	if b.sv[i] < 0 {
		return d.errf(row, "size", "negative size %d", b.sv[i])
	}
	g.Size[id] = b.sv[i]
	pv, tv, cv, nv := b.pv, b.tv, b.cv, b.nv
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
	return nil
}

// regionID returns the id of region name, adding it on first use.
func (d *graphDecoder) regionID(name string) int32 {
	return internRegion(d.regions, &d.g.Regions, name)
}

// internRegion returns the id of region name in names (ids indexes
// them), appending it on first use.
func internRegion(ids map[string]int32, names *[]string, name string) int32 {
	reg, ok := ids[name]
	if !ok {
		name = strings.Clone(name) // Value aliases the batch's buffer
		reg = int32(len(*names))
		ids[name] = reg
		*names = append(*names, name)
	}
	return reg
}

// allNull reports whether the first n rows of s are all null.
func (s stringCol) allNull(n int) bool {
	if s.plain == nil && s.dict == nil {
		return false
	}
	if s.plain != nil {
		return s.plain.(arrow.Array).NullN() == n
	}
	return s.dict.NullN() == n
}

// fastBatch decodes a batch of n rows column by column, where every row is
// valid and the batch has a common form (int32 list offsets, no null
// lists, regions all null or a dictionary of non-null names): it checks each
// column in a tight loop, then copies it. Where it finds anything else it
// returns false, having changed only what the row-by-row decoding of the
// same batch sets again, which then finds the error (or decodes what this
// does not).
func (d *graphDecoder) fastBatch(b *graphBatch) bool {
	if !d.fastValid(b) {
		return false
	}
	regIdx, regNone, regNulls, ok := fastRegions(b)
	if !ok || !fastOffsets(b) {
		return false
	}
	// Every row is valid but for its dependencies: fill the rank offsets
	// and the dependencies, which are checked as they are appended.
	if !d.fastDeps(b) {
		return false
	}
	d.fastCopy(b, regIdx, regNone, regNulls)
	d.row += int64(b.n)
	return true
}

// fastValid checks the lengths, ranks, kinds, peers, tags, sizes, CPUs
// and NICs of b column by column.
func (d *graphDecoder) fastValid(b *graphBatch) bool {
	n := b.n
	nr := int32(d.numRanks)
	rv, pv, tv, cv, nv, sv, kinds := b.rv, b.pv, b.tv, b.cv, b.nv, b.sv, b.kinds
	if len(rv) != n || len(pv) != n || len(tv) != n || len(cv) != n || len(nv) != n || len(sv) != n || len(kinds) != n {
		return false
	}
	req, ireq := &b.req, &b.ireq
	if req.nulls || ireq.nulls || req.off == nil || ireq.off == nil || len(req.off) != n+1 || len(ireq.off) != n+1 {
		return false
	}
	prev := d.rank
	for _, r := range rv {
		if r < prev || r >= nr {
			return false
		}
		prev = r
	}
	for i, k := range kinds {
		switch k {
		case graph.Calc:
		case graph.Send:
			if pv[i] < 0 || pv[i] >= nr || tv[i] < 0 {
				return false
			}
		case graph.Recv:
			if pv[i] < graph.AnySource || pv[i] >= nr || tv[i] < graph.AnyTag {
				return false
			}
		default:
			return false
		}
	}
	for i := range sv {
		if sv[i] < 0 || uint32(cv[i]) > graph.MaxCPU || uint32(nv[i]) > graph.MaxNIC {
			return false
		}
	}
	return true
}

// fastRegions checks the region column: all null (regNone), or a
// dictionary with int32 indices of non-null names, some rows possibly
// null (regNulls); ok is false for any other form.
func fastRegions(b *graphBatch) (regIdx []int32, regNone, regNulls, ok bool) {
	region, n := b.region, b.n
	regNone = region.allNull(n)
	regNulls = !regNone && region.dict != nil && region.dict.NullN() > 0
	if regNone {
		return nil, true, false, true
	}
	if region.dict == nil || region.vals == nil {
		return nil, false, false, false
	}
	ix, isInt32 := region.dict.Indices().(*array.Int32)
	if !isInt32 || ix.Len() != n {
		return nil, false, false, false
	}
	regIdx = ix.Int32Values()
	m := region.dict.Dictionary().Len()
	for i, v := range regIdx {
		if regNulls && region.dict.IsNull(i) {
			continue
		}
		if v < 0 || int(v) >= m || region.vals.IsNull(int(v)) {
			return nil, false, false, false
		}
	}
	return regIdx, false, regNulls, true
}

// fastOffsets checks that both dependency lists' offsets increase within
// their values.
func fastOffsets(b *graphBatch) bool {
	n := b.n
	for _, l := range []*listCol[int32]{&b.req, &b.ireq} {
		if l.off[0] < 0 || int(l.off[n]) > len(l.Values) {
			return false
		}
		for i := 0; i < n; i++ {
			if l.off[i] > l.off[i+1] {
				return false
			}
		}
	}
	return true
}

// fastDeps fills the rank offsets and appends the dependencies of b's
// rows, checking each; on a bad one it undoes what it appended and
// returns false.
func (d *graphDecoder) fastDeps(b *graphBatch) bool {
	g, n, rv := d.g, b.n, b.rv
	req, ireq := &b.req, &b.ireq
	base := int32(d.row)
	rank0, deps0 := d.rank, len(g.DepOp)
	for i, r := range rv {
		for ; d.rank < r; d.rank++ {
			g.RankStart[d.rank+1] = base + int32(i)
		}
	}
	g.DepOp = slices.Grow(g.DepOp, int(req.off[n]-req.off[0]+ireq.off[n]-ireq.off[0]))
	g.DepKind = slices.Grow(g.DepKind, int(req.off[n]-req.off[0]+ireq.off[n]-ireq.off[0]))
	for i := 0; i < n; i++ {
		id := base + int32(i)
		lo := int64(g.RankStart[rv[i]])
		for _, local := range req.Values[req.off[i]:req.off[i+1]] {
			dep := lo + int64(local)
			if local < 0 || dep == int64(id) || dep > 1<<31-2 {
				d.rank, g.DepOp, g.DepKind = rank0, g.DepOp[:deps0], g.DepKind[:deps0]
				return false
			}
			g.DepOp = append(g.DepOp, int32(dep))
			g.DepKind = append(g.DepKind, graph.Requires)
		}
		for _, local := range ireq.Values[ireq.off[i]:ireq.off[i+1]] {
			dep := lo + int64(local)
			if local < 0 || dep == int64(id) || dep > 1<<31-2 {
				d.rank, g.DepOp, g.DepKind = rank0, g.DepOp[:deps0], g.DepKind[:deps0]
				return false
			}
			g.DepOp = append(g.DepOp, int32(dep))
			g.DepKind = append(g.DepKind, graph.Irequires)
		}
		g.DepStart[id+1] = int32(len(g.DepOp))
	}
	return true
}

// fastCopy copies b's checked columns into the graph, giving the regions
// ids in the order rows first name them (as the row-by-row decoding does).
func (d *graphDecoder) fastCopy(b *graphBatch, regIdx []int32, regNone, regNulls bool) {
	g := d.g
	base := int32(d.row)
	end := int(base) + b.n
	kinds, cv, nv := b.kinds, b.cv, b.nv
	copy(g.Kind[base:end], kinds)
	copy(g.Size[base:end], b.sv)
	copy(g.Peer[base:end], b.pv)
	copy(g.Tag[base:end], b.tv)
	peer, tag, cpu, nic := g.Peer[base:end], g.Tag[base:end], g.CPU[base:end], g.NIC[base:end]
	for i, k := range kinds {
		if k == graph.Calc {
			peer[i], tag[i] = -1, 0
		}
		cpu[i], nic[i] = uint8(cv[i]), uint8(nv[i])
	}
	reg := g.Region[base:end]
	if regNone {
		for i := range reg {
			reg[i] = graph.NoRegion
		}
		return
	}
	region := b.region
	table := make([]int32, region.dict.Dictionary().Len())
	for j := range table {
		table[j] = -2 // not yet named
	}
	for i, v := range regIdx {
		if regNulls && region.dict.IsNull(i) {
			reg[i] = graph.NoRegion
			continue
		}
		if table[v] == -2 {
			table[v] = d.regionID(region.vals.Value(int(v)))
		}
		reg[i] = table[v]
	}
}

// deps appends the dependencies in row i of list (of the operation in
// row d.row, of rank r) to the graph.
func (d *graphDecoder) deps(list *listCol[int32], i int, r int32, kind graph.DepKind, name string) error {
	if list.IsNull(i) {
		return nil
	}
	a, b, ok := list.Offsets(i)
	if !ok {
		return d.errf(d.row, name, "list offsets %d..%d out of range", a, b)
	}
	g, id := d.g, d.row
	base := int64(g.RankStart[r])
	for _, local := range list.Values[a:b] {
		if local < 0 {
			return d.errf(d.row, name, "negative operation index %d", local)
		}
		dep := base + int64(local)
		if dep == id {
			return d.errf(d.row, name, "operation depends on itself (index %d)", local)
		}
		if dep > 1<<31-2 {
			return d.errf(d.row, name, "operation index %d out of range", local)
		}
		g.DepOp = append(g.DepOp, int32(dep))
		g.DepKind = append(g.DepKind, kind)
	}
	return nil
}

// Markers of kinds(): a null kind, a string that is no kind, a dictionary
// index outside the dictionary.
const (
	kindNull graph.OpKind = 255 - iota
	kindUnknown
	kindBadIndex
)

// kinds returns a batch's kind column (n rows) as operation kinds, each
// distinct string of a dictionary parsed once; rows that are not a kind
// hold a marker that kindErr explains. The slice is reused by the next
// batch.
func (d *graphDecoder) kinds(col stringCol, n int) []graph.OpKind {
	out := slices.Grow(d.kindBuf[:0], n)[:n]
	d.kindBuf = out
	parse := func(s string) graph.OpKind {
		k, err := graph.ParseOpKind(s)
		if err != nil {
			return kindUnknown
		}
		return k
	}
	if col.dict == nil {
		for i := range out {
			if col.plain.IsNull(i) {
				out[i] = kindNull
			} else {
				out[i] = parse(col.plain.Value(i))
			}
		}
		return out
	}
	table := d.kindTable[:0]
	for j := 0; j < col.dict.Dictionary().Len(); j++ {
		if col.vals.IsNull(j) {
			table = append(table, kindNull)
		} else {
			table = append(table, parse(col.vals.Value(j)))
		}
	}
	d.kindTable = table
	switch ix := col.dict.Indices().(type) {
	case *array.Int8:
		lookupKinds(ix.Int8Values(), table, out)
	case *array.Int16:
		lookupKinds(ix.Int16Values(), table, out)
	case *array.Int32:
		lookupKinds(ix.Int32Values(), table, out)
	case *array.Int64:
		lookupKinds(ix.Int64Values(), table, out)
	case *array.Uint8:
		lookupKinds(ix.Uint8Values(), table, out)
	case *array.Uint16:
		lookupKinds(ix.Uint16Values(), table, out)
	case *array.Uint32:
		lookupKinds(ix.Uint32Values(), table, out)
	case *array.Uint64:
		lookupKinds(ix.Uint64Values(), table, out)
	default:
		for i := range out {
			out[i] = kindBadIndex
		}
	}
	if col.dict.NullN() > 0 {
		for i := range out {
			if col.dict.IsNull(i) {
				out[i] = kindNull
			}
		}
	}
	return out
}

func lookupKinds[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](idx []T, table, out []graph.OpKind) {
	for i, v := range idx {
		if uint64(v) < uint64(len(table)) {
			out[i] = table[v]
		} else {
			out[i] = kindBadIndex
		}
	}
}

// kindErr explains the marker k that kinds() left in row i of col.
func (d *graphDecoder) kindErr(row int64, col stringCol, i int, k graph.OpKind) error {
	switch k {
	case kindNull:
		return d.errf(row, "kind", "is null")
	case kindUnknown:
		_, err := graph.ParseOpKind(col.value(i))
		return d.errf(row, "kind", "%v", err)
	}
	return d.errf(row, "kind", "dictionary index %d outside the dictionary", col.dict.GetValueIndex(i))
}

func (d *graphDecoder) finish() (*graph.Graph, error) {
	g := d.g
	n := int32(len(g.Kind))
	for ; d.rank < int32(d.numRanks); d.rank++ {
		g.RankStart[d.rank+1] = n
	}
	g.Recorded, g.Causal = d.rec, d.causal
	verr := g.Validate()
	if verr == nil {
		return g, nil
	}
	// Dependencies must name operations of their own rank: said in the
	// file's terms (row, field, index) before Validate's terms.
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
	return nil, &FormatError{File: d.name, Row: -1, Msg: verr.Error()}
}

// readCausal reads MetaCausal: true, false or absent (false).
func readCausal(md arrow.Metadata, name string) (bool, error) {
	v, ok := md.GetValue(MetaCausal)
	if !ok {
		return false, nil
	}
	c, err := strconv.ParseBool(v)
	if err != nil {
		return false, &FormatError{File: name, Row: -1, Field: MetaCausal, Msg: fmt.Sprintf("%q is neither true nor false", v)}
	}
	return c, nil
}
