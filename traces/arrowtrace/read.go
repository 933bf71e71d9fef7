package arrowtrace

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/capsim/capsim/traces/graph"
)

// decoder is what readFile drives: a schema check, then one call per
// record batch.
type decoder interface {
	// format is the capsim.format value the decoder reads ("" for tables
	// that are not traces): tables without capsim's metadata, as polars
	// and DuckDB write them, are completed for it (see completeSchema).
	format() string
	schema(sc *arrow.Schema) error
	batch(rec arrow.RecordBatch) error
	rows() int64 // rows read so far, for error messages
}

// readPath decodes the Arrow IPC file at path with decode, which names
// the file by path in its errors.
func readPath[T any](path string, decode func(r sizer, name string) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	return decode(f, path)
}

// readFile reads an Arrow IPC file batch by batch into d, turning every
// failure, panics of the Arrow library included, into a FormatError.
func readFile(r sizer, name string, d decoder) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &FormatError{File: name, Row: -1, Msg: fmt.Sprintf("malformed Arrow data: %v", p)}
		}
	}()
	size, err := sizeOf(r)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	if isStream(r) {
		return readStream(r, size, name, d)
	}
	if err := checkFooter(r, size); err != nil {
		return &FormatError{File: name, Row: -1, Msg: "not a readable Arrow IPC file: " + err.Error()}
	}
	fr, err := ipc.NewFileReader(r, ipc.WithMetadataSizeLimit(size), ipc.WithBodySizeLimit(size), ipc.WithAllocator(newRecycler(size)))
	if err != nil {
		return &FormatError{File: name, Row: -1, Msg: "not an Arrow IPC file: " + err.Error()}
	}
	defer fr.Close()
	sc, err := completeSchema(fr.Schema(), d.format(), func(visit func(arrow.RecordBatch) error) error {
		for i := 0; i < fr.NumRecords(); i++ {
			rec, err := fr.RecordBatch(i)
			if err != nil {
				return err
			}
			if err := visit(rec); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return &FormatError{File: name, Row: -1, Msg: err.Error()}
	}
	if err := d.schema(sc); err != nil {
		return err
	}
	for i := 0; i < fr.NumRecords(); i++ {
		// Each batch is released before the next is read, so that the
		// recycler serves the next one from its memory.
		rec, err := fr.RecordBatchAt(i)
		if err != nil {
			return &FormatError{File: name, Row: d.rows(), Msg: fmt.Sprintf("batch %d: %v", i, err)}
		}
		err = decodeBatch(d, rec, name)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// decodeBatch hands one record batch to d.
func decodeBatch(d decoder, rec arrow.RecordBatch, name string) error {
	if d.rows()+rec.NumRows() > 1<<31-2 {
		return &FormatError{File: name, Row: d.rows(), Msg: "more than 2^31-2 rows"}
	}
	return d.batch(rec)
}

// recycler is the memory.Allocator the readers read record batches with.
// A decoder copies what it keeps out of a batch, so once a batch is
// released its buffers can hold the next one: large buffers freed are
// kept (a few) and handed out again, and reading a file allocates about
// one batch's memory instead of the whole file's. Small buffers come from
// and go back to the Go heap.
//
// It also refuses (panics, which the readers turn into a FormatError) a
// buffer larger than its limit: a compressed buffer states its
// uncompressed length, and a corrupt one would otherwise make the Go
// runtime abort for want of memory.
type recycler struct {
	mu    sync.Mutex
	free  [][]byte
	limit int
}

const (
	recycleMin  = 64 << 10 // smaller buffers are not kept
	recycleKeep = 8        // at most this many buffers are kept
)

// newRecycler returns the allocator for reading a file of size bytes: no
// buffer may exceed 1 GiB or 1,024 times the file's size, whichever is
// larger (LZ4 compresses at most about 255:1; ZSTD more only on data as
// uniform as a column of one value).
func newRecycler(size int64) *recycler {
	return &recycler{limit: int(min(max(1<<30, 1024*size), math.MaxInt/2))}
}

// Allocate returns size zeroed bytes: the smallest kept buffer that holds
// them, or new memory (with room to spare when it is large).
func (r *recycler) Allocate(size int) []byte {
	if r.limit > 0 && size > r.limit {
		panic(fmt.Sprintf("a buffer of %d bytes, more than this file could hold (a corrupt compressed length?)", size))
	}
	if size >= recycleMin {
		r.mu.Lock()
		best := -1
		for i, b := range r.free {
			if cap(b) >= size && (best < 0 || cap(b) < cap(r.free[best])) {
				best = i
			}
		}
		if best >= 0 {
			b := r.free[best]
			r.free = slices.Delete(r.free, best, best+1)
			r.mu.Unlock()
			b = b[:cap(b)]
			clear(b)
			return b[:size]
		}
		r.mu.Unlock()
		// A quarter more, so that it can serve a next batch somewhat
		// larger than this one.
		return memory.DefaultAllocator.Allocate(size + size/4)[:size]
	}
	return memory.DefaultAllocator.Allocate(size)
}

// Reallocate resizes b to size bytes, keeping its contents.
func (r *recycler) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		return b[:size]
	}
	nb := r.Allocate(size)
	copy(nb, b)
	r.Free(b)
	return nb
}

// Free keeps b for a later Allocate when it is large and there is room.
func (r *recycler) Free(b []byte) {
	if cap(b) < recycleMin {
		return
	}
	r.mu.Lock()
	if len(r.free) < recycleKeep {
		r.free = append(r.free, b[:0])
	}
	r.mu.Unlock()
}

// streamMarker starts every message of an Arrow IPC stream (since Arrow
// 0.15; the older form without it is not read).
var streamMarker = []byte{0xff, 0xff, 0xff, 0xff}

// Sniff reports whether head, the first bytes of a file, start an Arrow
// IPC file ("ARROW1", Feather v2 included) or an Arrow IPC stream (a
// continuation marker and a positive metadata length).
func Sniff(head []byte) bool {
	if bytes.HasPrefix(head, arrowMagic) {
		return true
	}
	return len(head) >= 8 && bytes.HasPrefix(head, streamMarker) && int32(binary.LittleEndian.Uint32(head[4:8])) > 0
}

// isStream reports whether r holds an Arrow IPC stream.
func isStream(r io.ReaderAt) bool {
	var head [8]byte
	n, _ := r.ReadAt(head[:], 0)
	return !bytes.HasPrefix(head[:n], arrowMagic) && Sniff(head[:n])
}

// readStream reads an Arrow IPC stream batch by batch into d. Message
// sizes are bounded by the file's size, so a corrupt length cannot make
// the Arrow library allocate without bound.
func readStream(r io.ReaderAt, size int64, name string, d decoder) error {
	if err := checkStreamSchema(r, size); err != nil {
		return &FormatError{File: name, Row: -1, Msg: "not a readable Arrow IPC stream: " + err.Error()}
	}
	sr, err := ipc.NewReader(io.NewSectionReader(r, 0, size), ipc.WithMetadataSizeLimit(size), ipc.WithBodySizeLimit(size), ipc.WithAllocator(newRecycler(size)))
	if err != nil {
		return &FormatError{File: name, Row: -1, Msg: "not a readable Arrow IPC stream: " + err.Error()}
	}
	defer sr.Release()
	sc, err := completeSchema(sr.Schema(), d.format(), func(visit func(arrow.RecordBatch) error) error {
		// A second reader over the same bytes: a stream is read twice
		// only when it lacks capsim.num_ranks.
		pre, err := ipc.NewReader(io.NewSectionReader(r, 0, size), ipc.WithMetadataSizeLimit(size), ipc.WithBodySizeLimit(size))
		if err != nil {
			return err
		}
		defer pre.Release()
		for pre.Next() {
			if err := visit(pre.RecordBatch()); err != nil {
				return err
			}
		}
		return pre.Err()
	})
	if err != nil {
		return &FormatError{File: name, Row: -1, Msg: err.Error()}
	}
	if err := d.schema(sc); err != nil {
		return err
	}
	for sr.Next() {
		if err := decodeBatch(d, sr.RecordBatch(), name); err != nil {
			return err
		}
	}
	if err := sr.Err(); err != nil {
		return &FormatError{File: name, Row: d.rows(), Msg: "Arrow IPC stream: " + err.Error()}
	}
	return nil
}

// completeSchema returns sc with the capsim metadata that a table written
// by polars, DuckDB or pyarrow without it lacks, for a decoder of format
// want: capsim.format (want, when the table has none), capsim.version 1,
// and capsim.num_ranks, one more than the largest value of the rank
// column, found by a pass over the batches that each calls visit on.
func completeSchema(sc *arrow.Schema, want string, each func(visit func(arrow.RecordBatch) error) error) (*arrow.Schema, error) {
	md := sc.Metadata()
	if want == "" || md.FindKey(MetaFormat) >= 0 && md.FindKey(MetaNumRanks) >= 0 {
		return sc, nil
	}
	keys, vals := append([]string(nil), md.Keys()...), append([]string(nil), md.Values()...)
	if md.FindKey(MetaFormat) < 0 {
		keys, vals = append(keys, MetaFormat), append(vals, want)
	}
	if md.FindKey(MetaVersion) < 0 {
		keys, vals = append(keys, MetaVersion), append(vals, Version)
	}
	if md.FindKey(MetaNumRanks) < 0 {
		idx := sc.FieldIndices("rank")
		if len(idx) != 1 || !isInt(sc.Field(idx[0]).Type) {
			return nil, fmt.Errorf("no %s metadata and no integer rank column to count the ranks from", MetaNumRanks)
		}
		maxRank := int64(-1)
		var row int64
		err := each(func(rec arrow.RecordBatch) error {
			v, err := intsOf[int64](rec.Column(idx[0]), "rank", "", row)
			if err != nil {
				return err
			}
			for _, r := range v {
				maxRank = max(maxRank, r)
			}
			row += rec.NumRows()
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("counting ranks (no %s metadata): %v", MetaNumRanks, err)
		}
		keys, vals = append(keys, MetaNumRanks), append(vals, strconv.FormatInt(max(maxRank+1, 1), 10))
	}
	nmd := arrow.NewMetadata(keys, vals)
	return arrow.NewSchema(sc.Fields(), &nmd), nil
}

// header checks the metadata every capsim trace file has and returns its
// rank count.
func header(sc *arrow.Schema, name, format, what string) (int, error) {
	md := sc.Metadata()
	if v, _ := md.GetValue(MetaFormat); v != format {
		return 0, &FormatError{File: name, Row: -1, Field: MetaFormat, Msg: fmt.Sprintf("not a capsim %s (metadata %s = %q)", what, MetaFormat, v)}
	}
	if v, _ := md.GetValue(MetaVersion); v != Version {
		return 0, &FormatError{File: name, Row: -1, Field: MetaVersion, Msg: fmt.Sprintf("unsupported format version %q (this capsim reads %s)", v, Version)}
	}
	v, _ := md.GetValue(MetaNumRanks)
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > graph.MaxRanks {
		return 0, &FormatError{File: name, Row: -1, Field: MetaNumRanks, Msg: fmt.Sprintf("number of ranks %q is not an integer in 1..%d", v, graph.MaxRanks)}
	}
	return n, nil
}

// column names a required column and its type: an integer, a string or a
// list of integers. Every width and flavour pyarrow, polars and DuckDB
// write is accepted: int8…int64 and uint8…uint64 (range-checked as they
// are read), utf8, large_utf8 and string_view, dictionaries of those with
// any index type, and list, large_list, list_view and large_list_view.
type column struct {
	name string
	typ  arrow.Type // INT32 or INT64: any integer; STRING: any string; LIST: any list; else exactly typ
	elem arrow.Type // for lists: arrow.INT32 or INT64, any integer
}

func isInt(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return true
	}
	return false
}

func isString(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return true
	case arrow.DICTIONARY:
		return isString(t.(*arrow.DictionaryType).ValueType)
	}
	return false
}

func listElem(t arrow.DataType) (arrow.DataType, bool) {
	if l, ok := t.(arrow.ListLikeType); ok {
		switch t.ID() {
		case arrow.LIST, arrow.LARGE_LIST, arrow.LIST_VIEW, arrow.LARGE_LIST_VIEW:
			return l.Elem(), true
		}
	}
	return nil, false
}

// columns finds the required columns and checks their types.
func columns(sc *arrow.Schema, name string, want []column) (map[string]int, error) {
	idx := make(map[string]int, len(want))
	for _, w := range want {
		found := sc.FieldIndices(w.name)
		if len(found) != 1 {
			return nil, &FormatError{File: name, Row: -1, Field: w.name, Msg: "column missing (or repeated) in the schema"}
		}
		ft := sc.Field(found[0]).Type
		var ok bool
		switch w.typ {
		case arrow.STRING:
			ok = isString(ft)
		case arrow.LIST:
			e, isList := listElem(ft)
			ok = isList && isInt(e)
		case arrow.INT32, arrow.INT64:
			ok = isInt(ft)
		default:
			ok = ft.ID() == w.typ
		}
		if !ok {
			return nil, &FormatError{File: name, Row: -1, Field: w.name, Msg: fmt.Sprintf("has type %s", ft)}
		}
		idx[w.name] = found[0]
	}
	return idx, nil
}

// intsOf returns the values of a non-null integer array of any width as
// T, range-checked; a column already of type T is returned without copy.
func intsOf[T int32 | int64](a arrow.Array, name, file string, row int64) ([]T, error) {
	if a.NullN() > 0 {
		return nil, &FormatError{File: file, Row: row, Field: name, Msg: "has nulls; it must be a non-null integer column"}
	}
	var zero T
	switch c := any(a).(type) {
	case *array.Int32:
		if v, ok := any(c.Int32Values()).([]T); ok {
			return v, nil
		}
	case *array.Int64:
		if v, ok := any(c.Int64Values()).([]T); ok {
			return v, nil
		}
	}
	lo, hi := int64(math.MinInt32), int64(math.MaxInt32)
	if _, ok := any(zero).(int64); ok {
		lo, hi = math.MinInt64, math.MaxInt64
	}
	out := make([]T, a.Len())
	bad := func(i int, v string) error {
		return &FormatError{File: file, Row: row + int64(i), Field: name, Msg: fmt.Sprintf("value %s does not fit in %T", v, zero)}
	}
	conv := func(i int, v int64) error {
		if v < lo || v > hi {
			return bad(i, strconv.FormatInt(v, 10))
		}
		out[i] = T(v)
		return nil
	}
	var err error
	switch c := a.(type) {
	case *array.Int8:
		for i, v := range c.Int8Values() {
			out[i] = T(v)
		}
	case *array.Int16:
		for i, v := range c.Int16Values() {
			out[i] = T(v)
		}
	case *array.Int32:
		for i, v := range c.Int32Values() {
			out[i] = T(v)
		}
	case *array.Int64:
		for i, v := range c.Int64Values() {
			if err = conv(i, v); err != nil {
				return nil, err
			}
		}
	case *array.Uint8:
		for i, v := range c.Uint8Values() {
			out[i] = T(v)
		}
	case *array.Uint16:
		for i, v := range c.Uint16Values() {
			out[i] = T(v)
		}
	case *array.Uint32:
		for i, v := range c.Uint32Values() {
			if err = conv(i, int64(v)); err != nil {
				return nil, err
			}
		}
	case *array.Uint64:
		for i, v := range c.Uint64Values() {
			if v > math.MaxInt64 {
				return nil, bad(i, strconv.FormatUint(v, 10))
			}
			if err = conv(i, int64(v)); err != nil {
				return nil, err
			}
		}
	default:
		return nil, &FormatError{File: file, Row: row, Field: name, Msg: fmt.Sprintf("has type %s, want an integer", a.DataType())}
	}
	return out, nil
}

// int32s and int64s return a non-null integer column's values.
func int32s(rec arrow.RecordBatch, col int, name, file string, row int64) ([]int32, error) {
	return intsOf[int32](rec.Column(col), name, file, row)
}

func int64s(rec arrow.RecordBatch, col int, name, file string, row int64) ([]int64, error) {
	return intsOf[int64](rec.Column(col), name, file, row)
}

// listCol reads a list column of any flavour with integer values of any
// width: the offsets of row i into Values.
type listCol[T int32 | int64] struct {
	list   array.ListLike
	Values []T
	nulls  bool    // some rows are null
	off    []int32 // rows' offsets, 0..n, where the list has int32 offsets
}

func newListCol[T int32 | int64](a arrow.Array, name, file string, row int64) (listCol[T], error) {
	l, ok := a.(array.ListLike)
	if !ok {
		return listCol[T]{}, &FormatError{File: file, Row: row, Field: name, Msg: fmt.Sprintf("has type %s, want a list", a.DataType())}
	}
	vals := l.ListValues()
	if vals.NullN() > 0 {
		return listCol[T]{}, &FormatError{File: file, Row: row, Field: name, Msg: "list elements must not be null"}
	}
	v, err := intsOf[T](vals, name, file, row)
	if err != nil {
		return listCol[T]{}, err
	}
	lc := listCol[T]{list: l, Values: v, nulls: l.NullN() > 0}
	if pl, ok := a.(*array.List); ok {
		off, start := pl.Offsets(), pl.Data().Offset()
		if len(off) >= start+pl.Len()+1 {
			lc.off = off[start : start+pl.Len()+1]
		}
	}
	return lc, nil
}

func (l *listCol[T]) IsNull(i int) bool { return l.nulls && l.list.IsNull(i) }

// Offsets returns row i's range in Values, checked.
func (l *listCol[T]) Offsets(i int) (int64, int64, bool) {
	var a, b int64
	if l.off != nil {
		a, b = int64(l.off[i]), int64(l.off[i+1])
	} else {
		a, b = l.list.ValueOffsets(i)
	}
	return a, b, a >= 0 && a <= b && b <= int64(len(l.Values))
}
