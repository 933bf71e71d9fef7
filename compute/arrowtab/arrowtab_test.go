package arrowtab

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func sample() *Table {
	return &Table{Rows: 2, Columns: []Column{
		{Name: "region", Strings: []string{"a", "b"}},
		{Name: "cpu_ghz", Numbers: []float64{2.6, 1.2}},
		{Name: "seconds", Numbers: []float64{1, 2.5}},
	}}
}

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(buf.Bytes(), "s.arrow")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sample()) {
		t.Errorf("round trip %+v", got)
	}
	if got.Column("seconds").Numbers[1] != 2.5 || got.Column("nope") != nil {
		t.Error("Column lookup")
	}
}

// Integer, dictionary and null columns as other writers produce them.
func TestDecodeTypes(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "region", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}},
		{Name: "threads", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	write := func(null bool) []byte {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		defer b.Release()
		d := b.Field(0).(*array.BinaryDictionaryBuilder)
		_ = d.AppendString("solve")
		_ = d.AppendString("solve")
		th := b.Field(1).(*array.Int32Builder)
		th.Append(8)
		if null {
			th.AppendNull()
		} else {
			th.Append(16)
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		var buf bytes.Buffer
		fw, err := ipc.NewFileWriter(&buf, ipc.WithSchema(sc))
		if err != nil {
			t.Fatal(err)
		}
		if err := fw.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := fw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	got, err := Decode(write(false), "d.arrow")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Column("region").Strings, []string{"solve", "solve"}) || !reflect.DeepEqual(got.Column("threads").Numbers, []float64{8, 16}) {
		t.Errorf("decoded %+v", got)
	}
	if _, err := Decode(write(true), "n.arrow"); err == nil || !strings.Contains(err.Error(), `column "threads" row 2: null`) {
		t.Errorf("null: %v", err)
	}
	if _, err := Decode([]byte("region,seconds\n"), "x.csv"); err == nil || !strings.Contains(err.Error(), "x.csv") {
		t.Errorf("not arrow: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	var buf bytes.Buffer
	if err := Encode(&buf, sample()); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("ARROW1\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := Decode(data, "fuzz.arrow")
		if err != nil {
			return
		}
		for _, c := range tab.Columns {
			if len(c.Strings)+len(c.Numbers) != tab.Rows {
				t.Fatalf("column %q length differs from %d rows", c.Name, tab.Rows)
			}
		}
	})
}
