package chakra

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

func lfloat(name string, typ uint64, v float32) lattr {
	return lattr{name, typ, func(b []byte, num protowire.Number) []byte {
		return protowire.AppendFixed32(protowire.AppendTag(b, num, protowire.Fixed32Type), math.Float32bits(v))
	}}
}

// TestLegacyAttributesChecked reads attributes of Chakra's revisions
// before 0.0.4 whose values are not of the type capsim reads them as:
// each is refused as the same attribute in a 0.0.4 file is, naming the
// file, the node and the attribute, in every revision.
func TestLegacyAttributesChecked(t *testing.T) {
	type rev struct {
		name                      string
		meta                      bool
		coll                      uint64
		tFloat, tInt, tStr, tInts uint64
	}
	revs := []rev{
		{name: "0.0.2", coll: 6, tFloat: 0, tInt: 1, tStr: 2, tInts: 4},
		{name: "0.0.3", coll: 7, tFloat: 1, tInt: 2, tStr: 3, tInts: 6},
		{name: "2023-08", meta: true, coll: 7, tFloat: 1, tInt: 3, tStr: 4, tInts: 8},
	}
	cases := []struct {
		name  string
		attrs func(r rev) []lattr
		want  string
	}{
		{"comm_type string", func(r rev) []lattr {
			return []lattr{lstr("comm_type", r.tStr, "ALL_GATHER"), lint("comm_size", r.tInt, 64)}
		}, `attribute comm_type is the string "ALL_GATHER", want an integer`},
		{"comm_size string", func(r rev) []lattr {
			return []lattr{lint("comm_type", r.tInt, 0), lstr("comm_size", r.tStr, "1MB")}
		}, `attribute comm_size is the string "1MB", want an integer`},
		{"comm_size list", func(r rev) []lattr {
			return []lattr{lint("comm_type", r.tInt, 0), lints("comm_size", r.tInts, 8, 8)}
		}, "attribute comm_size is a list, want an integer"},
		{"comm_size NaN", func(r rev) []lattr {
			return []lattr{lint("comm_type", r.tInt, 0), lfloat("comm_size", r.tFloat, float32(math.NaN()))}
		}, "attribute comm_size is NaN, want an integer"},
		{"comm_size infinite", func(r rev) []lattr {
			return []lattr{lint("comm_type", r.tInt, 0), lfloat("comm_size", r.tFloat, float32(math.Inf(1)))}
		}, "attribute comm_size is +Inf, want an integer"},
		{"comm_type float beyond int64", func(r rev) []lattr {
			return []lattr{lfloat("comm_type", r.tFloat, 1e30), lint("comm_size", r.tInt, 8)}
		}, "attribute comm_type is 1.00000001"},
		{"pg_name number", func(r rev) []lattr {
			return []lattr{lint("comm_type", r.tInt, 0), lint("comm_size", r.tInt, 8), lint("pg_name", r.tInt, 3)}
		}, "attribute pg_name is an integer, want a string"},
		{"runtime string", func(r rev) []lattr {
			return []lattr{lint("comm_type", r.tInt, 0), lint("comm_size", r.tInt, 8), lstr("runtime", r.tStr, "7us")}
		}, `attribute runtime is the string "7us", want an integer`},
		{"runtime NaN", func(r rev) []lattr {
			return []lattr{lint("comm_type", r.tInt, 0), lint("comm_size", r.tInt, 8), lfloat("runtime", r.tFloat, float32(math.NaN()))}
		}, "attribute runtime is NaN, want an integer"},
		{"comm_size fractional", func(r rev) []lattr {
			return []lattr{lint("comm_type", r.tInt, 0), lfloat("comm_size", r.tFloat, 2.5)}
		}, "attribute comm_size is 2.5, want an integer"},
		{"comm_type unknown", func(r rev) []lattr {
			return []lattr{lint("comm_type", r.tInt, 5), lint("comm_size", r.tInt, 8)}
		}, "unknown comm_type 5"},
	}
	for _, r := range revs {
		for _, c := range cases {
			t.Run(r.name+"/"+c.name, func(t *testing.T) {
				var file []byte
				if r.meta {
					m := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), encLegacyAttr(lstr("schema", r.tStr, "1.0.2-chakra.0.0.4")))
					file = protowire.AppendBytes(file, m)
				}
				file = protowire.AppendBytes(file, encLegacyNode(1, "aten::mm", r.coll-3, nil, lint("runtime", r.tInt, 7)))
				file = protowire.AppendBytes(file, encLegacyNode(42, "c10d::allreduce_", r.coll, []uint64{1}, c.attrs(r)...))
				_, err := Decode(bytes.NewReader(file), "x.0.et")
				if err == nil {
					t.Fatalf("read; want an error with %q", c.want)
				}
				for _, s := range []string{"x.0.et", "node 1", "id 42", c.want} {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q lacks %q", err, s)
					}
				}
			})
		}
	}
}

// TestStringAttributeChecked refuses a 0.0.4 collective whose pg_name is
// a number, which would read as "" (every NPU) rather than its group.
func TestStringAttributeChecked(t *testing.T) {
	meta := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "0.0.4")
	nd := kindColl(3, 9, AllReduce, 64)
	nd = protowire.AppendBytes(protowire.AppendTag(nd, 10, protowire.BytesType), kindAttr(3, "pg_name", 2))
	file := protowire.AppendBytes(protowire.AppendBytes(nil, meta), nd)
	_, err := Decode(bytes.NewReader(file), "y.0.et")
	if err == nil || !strings.Contains(err.Error(), "y.0.et") || !strings.Contains(err.Error(), "id 9: attribute pg_name is an integer, want a string") {
		t.Errorf("got %v, want pg_name refused", err)
	}
}
