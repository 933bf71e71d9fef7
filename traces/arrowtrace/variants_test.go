package arrowtrace_test

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/lower"
)

// A variant rewrites capsim's columns into the types another writer uses
// by default, and writes them as an IPC file or stream.
type variant struct {
	name   string
	stream bool
	noMeta bool         // written without capsim's schema metadata, as polars and DuckDB do
	opts   []ipc.Option // compression
	// types maps a column's capsim type to the writer's.
	ints, strs, lists func(arrow.DataType) arrow.DataType
}

func same(t arrow.DataType) arrow.DataType { return t }

func variants() []variant {
	i64 := func(arrow.DataType) arrow.DataType { return arrow.PrimitiveTypes.Int64 }
	u64 := func(t arrow.DataType) arrow.DataType { // non-negative int64 columns as uint64
		if t.ID() == arrow.INT64 {
			return arrow.PrimitiveTypes.Uint64
		}
		return t
	}
	large := func(arrow.DataType) arrow.DataType { return arrow.BinaryTypes.LargeString }
	view := func(arrow.DataType) arrow.DataType { return arrow.BinaryTypes.StringView }
	catU32 := func(arrow.DataType) arrow.DataType {
		return &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint32, ValueType: arrow.BinaryTypes.LargeString}
	}
	catI8 := func(arrow.DataType) arrow.DataType {
		return &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}
	}
	largeList := func(t arrow.DataType) arrow.DataType { return arrow.LargeListOf(arrow.PrimitiveTypes.Int64) }
	listView := func(t arrow.DataType) arrow.DataType { return arrow.ListViewOf(t.(arrow.ListLikeType).Elem()) }
	largeListView := func(t arrow.DataType) arrow.DataType {
		return arrow.LargeListViewOf(arrow.PrimitiveTypes.Int64)
	}
	return []variant{
		{name: "capsim file", ints: same, strs: same, lists: same},
		{name: "stream", stream: true, ints: same, strs: same, lists: same},
		{name: "feather lz4", opts: []ipc.Option{ipc.WithLZ4()}, ints: same, strs: same, lists: same},
		{name: "feather zstd", opts: []ipc.Option{ipc.WithZstd()}, ints: same, strs: same, lists: same},
		// polars: Int64 integers, large_utf8 (older) or string_view (1.x)
		// strings, Categorical as dictionary<uint32, large_utf8>, large_list.
		{name: "polars large", ints: i64, strs: large, lists: largeList},
		{name: "polars view stream", stream: true, ints: i64, strs: view, lists: largeList},
		{name: "polars categorical zstd", opts: []ipc.Option{ipc.WithZstd()}, ints: i64, strs: catU32, lists: largeList},
		// pyarrow / DuckDB: int32 as written, utf8, dictionaries with other
		// index types, list views.
		{name: "dictionary int16, list_view", ints: same, strs: catI8, lists: listView},
		{name: "polars without metadata", noMeta: true, ints: i64, strs: view, lists: largeList},
		{name: "polars stream without metadata", noMeta: true, stream: true, ints: i64, strs: large, lists: largeList},
		{name: "uint64, large_list_view stream", stream: true, ints: u64, strs: view, lists: largeListView},
	}
}

// recast copies a into an array of type to.
func recast(t *testing.T, a arrow.Array, to arrow.DataType) arrow.Array {
	t.Helper()
	if arrow.TypeEqual(a.DataType(), to) {
		a.Retain()
		return a
	}
	mem := memory.DefaultAllocator
	if dt, ok := to.(*arrow.DictionaryType); ok {
		// Built by hand: arrow-go has no dictionary builder for every
		// value type (large_utf8).
		idx := array.NewBuilder(mem, dt.IndexType)
		vals := array.NewBuilder(mem, dt.ValueType)
		defer idx.Release()
		defer vals.Release()
		seen := map[string]int{}
		var words []string
		for i := 0; i < a.Len(); i++ {
			if a.IsNull(i) {
				idx.AppendNull()
				continue
			}
			w := strAt(a, i)
			k, ok := seen[w]
			if !ok {
				k = len(words)
				seen[w] = k
				words = append(words, w)
			}
			switch ib := idx.(type) {
			case *array.Uint32Builder:
				ib.Append(uint32(k))
			case *array.Int16Builder:
				ib.Append(int16(k))
			default:
				t.Fatalf("index builder %T", idx)
			}
		}
		for _, w := range words {
			vals.(interface{ Append(string) }).Append(w)
		}
		ia, va := idx.NewArray(), vals.NewArray()
		defer ia.Release()
		defer va.Release()
		return array.NewDictionaryArray(dt, ia, va)
	}
	b := array.NewBuilder(mem, to)
	defer b.Release()
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			b.AppendNull()
			continue
		}
		appendValue(t, b, a, i)
	}
	return b.NewArray()
}

func intAt(a arrow.Array, i int) int64 {
	switch c := a.(type) {
	case *array.Int8:
		return int64(c.Value(i))
	case *array.Int16:
		return int64(c.Value(i))
	case *array.Int32:
		return int64(c.Value(i))
	case *array.Int64:
		return c.Value(i)
	}
	panic(fmt.Sprintf("not an int: %T", a))
}

func strAt(a arrow.Array, i int) string {
	switch c := a.(type) {
	case *array.String:
		return c.Value(i)
	case *array.Dictionary:
		return strAt(c.Dictionary(), c.GetValueIndex(i))
	}
	panic(fmt.Sprintf("not a string: %T", a))
}

func appendValue(t *testing.T, b array.Builder, a arrow.Array, i int) {
	switch bb := b.(type) {
	case *array.Int64Builder:
		bb.Append(intAt(a, i))
	case *array.Int32Builder:
		bb.Append(int32(intAt(a, i)))
	case *array.Uint64Builder:
		bb.Append(uint64(intAt(a, i)))
	case *array.LargeStringBuilder:
		bb.Append(strAt(a, i))
	case *array.StringViewBuilder:
		bb.Append(strAt(a, i))
	case *array.StringBuilder:
		bb.Append(strAt(a, i))
	case *array.BinaryDictionaryBuilder:
		if err := bb.AppendString(strAt(a, i)); err != nil {
			t.Fatal(err)
		}
	case array.ListLikeBuilder:
		l := a.(array.ListLike)
		lo, hi := l.ValueOffsets(i)
		vals := l.ListValues()
		if lv, ok := bb.(*array.ListViewBuilder); ok {
			lv.AppendWithSize(true, int(hi-lo))
		} else if lv, ok := bb.(*array.LargeListViewBuilder); ok {
			lv.AppendWithSize(true, int(hi-lo))
		} else {
			bb.Append(true)
		}
		for j := lo; j < hi; j++ {
			appendValue(t, bb.ValueBuilder(), vals, int(j))
		}
	default:
		t.Fatalf("no conversion to %T", b)
	}
}

// rewrite re-encodes an Arrow IPC file (capsim's writer's output) as the
// variant writes it.
func rewrite(t *testing.T, data []byte, v variant) []byte {
	t.Helper()
	fr, err := ipc.NewFileReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	in := fr.Schema()
	var fields []arrow.Field
	for _, f := range in.Fields() {
		switch {
		case f.Type.ID() == arrow.INT32 || f.Type.ID() == arrow.INT64:
			f.Type = v.ints(f.Type)
		case f.Type.ID() == arrow.STRING || f.Type.ID() == arrow.DICTIONARY:
			f.Type = v.strs(f.Type)
		case f.Type.ID() == arrow.LIST:
			f.Type = v.lists(f.Type)
		}
		fields = append(fields, f)
	}
	md := in.Metadata()
	out := arrow.NewSchema(fields, &md)
	if v.noMeta {
		out = arrow.NewSchema(fields, nil)
	}
	var buf bytes.Buffer
	opts := append([]ipc.Option{ipc.WithSchema(out)}, v.opts...)
	type writer interface {
		Write(arrow.RecordBatch) error
		Close() error
	}
	var w writer
	if v.stream {
		w = ipc.NewWriter(&buf, opts...)
	} else {
		fw, err := ipc.NewFileWriter(&buf, opts...)
		if err != nil {
			t.Fatal(err)
		}
		w = fw
	}
	for i := 0; i < fr.NumRecords(); i++ {
		rec, err := fr.RecordBatch(i)
		if err != nil {
			t.Fatal(err)
		}
		cols := make([]arrow.Array, rec.NumCols())
		for c := range cols {
			cols[c] = recast(t, rec.Column(c), fields[c].Type)
		}
		nr := array.NewRecordBatch(out, cols, rec.NumRows())
		if err := w.Write(nr); err != nil {
			t.Fatal(err)
		}
		nr.Release()
		for _, c := range cols {
			c.Release()
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestWriterVariants writes an MPI trace and an execution graph the way
// pyarrow, polars and DuckDB do by default (wider or unsigned integers,
// large and view strings, dictionaries with other index types, large lists
// and list views, IPC streams, Feather v2 with LZ4 and ZSTD) and checks
// that each reads back to the same trace and replays to the same times.
func TestWriterVariants(t *testing.T) {
	tr, err := (&gen.Stencil{Dims: []int{3, 2}, Iterations: 3, HaloBytes: 4096, ComputeNs: 10000, AllreduceBytes: 8,
		Imbalance: gen.ImbalanceNone, Balance: 1, Intensity: 1}).Generate()
	if err != nil {
		t.Fatal(err)
	}
	var mbuf bytes.Buffer
	if err := arrowtrace.EncodeMPI(&mbuf, tr); err != nil {
		t.Fatal(err)
	}
	want, err := arrowtrace.DecodeMPI(mbuf.Bytes(), "capsim")
	if err != nil {
		t.Fatal(err)
	}
	g, err := lower.Lower(want, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := sim.Run(g, network.DefaultLogGOPS(), sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var gbuf bytes.Buffer
	if err := arrowtrace.EncodeGraph(&gbuf, g); err != nil {
		t.Fatal(err)
	}
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			data := rewrite(t, mbuf.Bytes(), v)
			if arrowtrace.Sniff(data) != true {
				t.Errorf("Sniff does not recognise it")
			}
			got, err := arrowtrace.DecodeMPI(data, v.name)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.WithoutSources(), want.WithoutSources()) {
				t.Errorf("MPI trace differs after the round trip")
			}
			gg, err := arrowtrace.DecodeGraph(rewrite(t, gbuf.Bytes(), v), v.name)
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.Run(gg, network.DefaultLogGOPS(), sim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for r := range ref.Ranks {
				if res.Ranks[r].Finish != ref.Ranks[r].Finish {
					t.Errorf("rank %d finishes at %d ns, %d ns from capsim's own file", r, res.Ranks[r].Finish, ref.Ranks[r].Finish)
				}
			}
		})
	}
}
