package arrowtrace

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/capsim/capsim/traces/graph"
)

// decoder is what readFile drives: a schema check, then one call per
// record batch.
type decoder interface {
	schema(sc *arrow.Schema) error
	batch(rec arrow.RecordBatch) error
	rows() int64 // rows read so far, for error messages
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
	if err := checkFooter(r, size); err != nil {
		return &FormatError{File: name, Row: -1, Msg: "not a readable Arrow IPC file: " + err.Error()}
	}
	fr, err := ipc.NewFileReader(r, ipc.WithMetadataSizeLimit(size), ipc.WithBodySizeLimit(size))
	if err != nil {
		return &FormatError{File: name, Row: -1, Msg: "not an Arrow IPC file: " + err.Error()}
	}
	defer fr.Close()
	if err := d.schema(fr.Schema()); err != nil {
		return err
	}
	for i := 0; i < fr.NumRecords(); i++ {
		rec, err := fr.RecordBatch(i)
		if err != nil {
			return &FormatError{File: name, Row: d.rows(), Msg: fmt.Sprintf("batch %d: %v", i, err)}
		}
		if d.rows()+rec.NumRows() > 1<<31-2 {
			return &FormatError{File: name, Row: d.rows(), Msg: "more than 2^31-2 rows"}
		}
		if err := d.batch(rec); err != nil {
			return err
		}
	}
	return nil
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

// column names a required column and its type: a primitive, a string
// (plain or dictionary-encoded), or a list of elem.
type column struct {
	name string
	typ  arrow.Type // arrow.STRING accepts dictionaries of strings too
	elem arrow.Type // for lists
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
		ok := ft.ID() == w.typ
		switch t := ft.(type) {
		case *arrow.DictionaryType:
			ok = w.typ == arrow.STRING && t.ValueType.ID() == arrow.STRING
		case *arrow.ListType:
			ok = w.typ == arrow.LIST && t.Elem().ID() == w.elem
		}
		if !ok {
			return nil, &FormatError{File: name, Row: -1, Field: w.name, Msg: fmt.Sprintf("has type %s", ft)}
		}
		idx[w.name] = found[0]
	}
	return idx, nil
}

// int32s and int64s return a non-null integer column's values.
func int32s(rec arrow.RecordBatch, col int, name, file string, row int64) ([]int32, error) {
	a, ok := rec.Column(col).(*array.Int32)
	if !ok || a.NullN() > 0 {
		return nil, &FormatError{File: file, Row: row, Field: name, Msg: "must be a non-null int32 column"}
	}
	return a.Int32Values(), nil
}

func int64s(rec arrow.RecordBatch, col int, name, file string, row int64) ([]int64, error) {
	a, ok := rec.Column(col).(*array.Int64)
	if !ok || a.NullN() > 0 {
		return nil, &FormatError{File: file, Row: row, Field: name, Msg: "must be a non-null int64 column"}
	}
	return a.Int64Values(), nil
}
