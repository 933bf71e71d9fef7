// Package arrowtab reads and writes the flat sample tables that capsim fit
// takes as Arrow IPC files: named columns of strings (utf8, large utf8 or
// dictionary-encoded strings) and numbers (any integer or floating-point
// type, read as float64), without nulls.
package arrowtab

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/capsim/capsim/traces/arrowtrace"
)

// MaxRows bounds the rows of a table, so a corrupt file cannot ask for
// unbounded memory.
const MaxRows = 1 << 28

// Column is one named column: Strings for a string column, else Numbers.
type Column struct {
	Name    string
	Strings []string
	Numbers []float64
}

// IsString reports whether c holds strings.
func (c *Column) IsString() bool { return c.Strings != nil }

// Table is a set of equally long columns, in file order.
type Table struct {
	Columns []Column
	Rows    int
}

// Column returns the column called name, or nil.
func (t *Table) Column(name string) *Column {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return &t.Columns[i]
		}
	}
	return nil
}

// ReadFile reads the Arrow IPC file at path.
func ReadFile(path string) (*Table, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read samples: %w", err)
	}
	return Decode(b, path)
}

// Decode reads a table from the bytes of an Arrow IPC file; name labels
// errors, which give the column and row of bad values.
func Decode(data []byte, name string) (t *Table, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("%s: malformed Arrow data: %v", name, p)
		}
	}()
	size := int64(len(data))
	if err := arrowtrace.CheckFooter(bytes.NewReader(data), size); err != nil {
		return nil, fmt.Errorf("%s: not a readable Arrow IPC file: %w", name, err)
	}
	fr, err := ipc.NewFileReader(bytes.NewReader(data), ipc.WithMetadataSizeLimit(size), ipc.WithBodySizeLimit(size))
	if err != nil {
		return nil, fmt.Errorf("%s: not an Arrow IPC file: %w", name, err)
	}
	defer fr.Close()
	sc := fr.Schema()
	t = &Table{}
	seen := map[string]bool{}
	for i, f := range sc.Fields() {
		if f.Name == "" || seen[f.Name] {
			return nil, fmt.Errorf("%s: column %d: empty or duplicate name %q", name, i+1, f.Name)
		}
		seen[f.Name] = true
		c := Column{Name: f.Name}
		switch {
		case isString(f.Type):
			c.Strings = []string{}
		case isNumber(f.Type):
			c.Numbers = []float64{}
		default:
			return nil, fmt.Errorf("%s: column %q: type %s is neither a string nor a number", name, f.Name, f.Type)
		}
		t.Columns = append(t.Columns, c)
	}
	for b := 0; b < fr.NumRecords(); b++ {
		rec, err := fr.RecordBatch(b)
		if err != nil {
			return nil, fmt.Errorf("%s: batch %d: %w", name, b, err)
		}
		n := int(rec.NumRows())
		if n < 0 || t.Rows+n > MaxRows {
			return nil, fmt.Errorf("%s: more than %d rows", name, MaxRows)
		}
		if int(rec.NumCols()) != len(t.Columns) {
			return nil, fmt.Errorf("%s: batch %d has %d columns, want %d", name, b, rec.NumCols(), len(t.Columns))
		}
		for j := range t.Columns {
			c := &t.Columns[j]
			a := rec.Column(j)
			if a.Len() != n {
				return nil, fmt.Errorf("%s: batch %d column %q has %d rows, want %d", name, b, c.Name, a.Len(), n)
			}
			for i := 0; i < n; i++ {
				if a.IsNull(i) {
					return nil, fmt.Errorf("%s: column %q row %d: null value", name, c.Name, t.Rows+i+1)
				}
				if c.IsString() {
					c.Strings = append(c.Strings, stringAt(a, i))
					continue
				}
				v := numberAt(a, i)
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("%s: column %q row %d: %g is not finite", name, c.Name, t.Rows+i+1, v)
				}
				c.Numbers = append(c.Numbers, v)
			}
		}
		t.Rows += n
	}
	return t, nil
}

func isString(dt arrow.DataType) bool {
	switch d := dt.(type) {
	case *arrow.StringType, *arrow.LargeStringType:
		return true
	case *arrow.DictionaryType:
		return isString(d.ValueType)
	}
	return false
}

func isNumber(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT32, arrow.FLOAT64:
		return true
	}
	return false
}

func stringAt(a arrow.Array, i int) string {
	switch c := a.(type) {
	case *array.String:
		return c.Value(i)
	case *array.LargeString:
		return c.Value(i)
	case *array.Dictionary:
		return stringAt(c.Dictionary(), c.GetValueIndex(i))
	}
	panic(fmt.Sprintf("arrowtab: unexpected string array %T", a))
}

func numberAt(a arrow.Array, i int) float64 {
	switch c := a.(type) {
	case *array.Int8:
		return float64(c.Value(i))
	case *array.Int16:
		return float64(c.Value(i))
	case *array.Int32:
		return float64(c.Value(i))
	case *array.Int64:
		return float64(c.Value(i))
	case *array.Uint8:
		return float64(c.Value(i))
	case *array.Uint16:
		return float64(c.Value(i))
	case *array.Uint32:
		return float64(c.Value(i))
	case *array.Uint64:
		return float64(c.Value(i))
	case *array.Float32:
		return float64(c.Value(i))
	case *array.Float64:
		return c.Value(i)
	}
	panic(fmt.Sprintf("arrowtab: unexpected number array %T", a))
}

// Encode writes t as an Arrow IPC file: string columns as utf8, number
// columns as float64, in one record batch.
func Encode(w io.Writer, t *Table) error {
	fields := make([]arrow.Field, len(t.Columns))
	for i, c := range t.Columns {
		n := len(c.Numbers)
		fields[i] = arrow.Field{Name: c.Name, Type: arrow.PrimitiveTypes.Float64}
		if c.IsString() {
			fields[i].Type, n = arrow.BinaryTypes.String, len(c.Strings)
		}
		if n != t.Rows {
			return fmt.Errorf("arrowtab: column %q has %d rows, want %d", c.Name, n, t.Rows)
		}
	}
	sc := arrow.NewSchema(fields, nil)
	fw, err := ipc.NewFileWriter(w, ipc.WithSchema(sc))
	if err != nil {
		return err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i, c := range t.Columns {
		if c.IsString() {
			b.Field(i).(*array.StringBuilder).AppendValues(c.Strings, nil)
		} else {
			b.Field(i).(*array.Float64Builder).AppendValues(c.Numbers, nil)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	if err := fw.Write(rec); err != nil {
		return err
	}
	return fw.Close()
}
