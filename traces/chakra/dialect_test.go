package chakra

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// valueKinds are the scalar value fields of AttributeProto (Chakra 0.0.4's
// schema) that converters use for integers: each encodes v its own way.
var valueKinds = []struct {
	name string
	num  protowire.Number
	enc  func(b []byte, v int64) []byte
}{
	{"double_val", 3, func(b []byte, v int64) []byte { return protowire.AppendFixed64(b, math.Float64bits(float64(v))) }},
	{"float_val", 5, func(b []byte, v int64) []byte { return protowire.AppendFixed32(b, math.Float32bits(float32(v))) }},
	{"int32_val", 7, func(b []byte, v int64) []byte { return protowire.AppendVarint(b, uint64(int32(v))) }},
	{"int64_val", 9, func(b []byte, v int64) []byte { return protowire.AppendVarint(b, uint64(v)) }},
	{"uint32_val", 11, func(b []byte, v int64) []byte { return protowire.AppendVarint(b, uint64(uint32(v))) }},
	{"uint64_val", 13, func(b []byte, v int64) []byte { return protowire.AppendVarint(b, uint64(v)) }},
	{"sint32_val", 15, func(b []byte, v int64) []byte {
		return protowire.AppendVarint(b, protowire.EncodeZigZag(int64(int32(v))))
	}},
	{"sint64_val", 17, func(b []byte, v int64) []byte { return protowire.AppendVarint(b, protowire.EncodeZigZag(v)) }},
	{"fixed32_val", 19, func(b []byte, v int64) []byte { return protowire.AppendFixed32(b, uint32(v)) }},
	{"fixed64_val", 21, func(b []byte, v int64) []byte { return protowire.AppendFixed64(b, uint64(v)) }},
	{"sfixed32_val", 23, func(b []byte, v int64) []byte { return protowire.AppendFixed32(b, uint32(int32(v))) }},
	{"sfixed64_val", 25, func(b []byte, v int64) []byte { return protowire.AppendFixed64(b, uint64(v)) }},
}

// kindAttr encodes attribute name with value v in value field k.
func kindAttr(k int, name string, v int64) []byte {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, name)
	b = protowire.AppendTag(b, valueKinds[k].num, scalarWire(valueKinds[k].num))
	return valueKinds[k].enc(b, v)
}

// kindColl is a COMM_COLL node whose comm_type and comm_size are of value
// kind k, with no duration, start time or inputs (fields a converter may
// leave out).
func kindColl(k int, id uint64, kind CollType, size int64) []byte {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, id)
	b = protowire.AppendTag(b, 3, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(CommCollNode))
	for _, a := range [][]byte{kindAttr(k, "comm_type", int64(kind)), kindAttr(k, "comm_size", size)} {
		b = protowire.AppendTag(b, 10, protowire.BytesType)
		b = protowire.AppendBytes(b, a)
	}
	return b
}

// TestAttributeValueKinds reads collectives whose comm_type and comm_size
// come in every integer-carrying value kind of AttributeProto: each must
// import as the same collective of the same size.
func TestAttributeValueKinds(t *testing.T) {
	meta := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "0.0.4")
	for k, vk := range valueKinds {
		t.Run(vk.name, func(t *testing.T) {
			var file []byte
			file = protowire.AppendBytes(file, meta)
			file = protowire.AppendBytes(file, kindColl(k, 1, AllGather, 1<<20))
			f, err := Decode(bytes.NewReader(file), "x.0.et")
			if err != nil {
				t.Fatal(err)
			}
			c, err := collOf(f, 0)
			if err != nil {
				t.Fatal(err)
			}
			if c.kind != AllGather || c.bytes != 1<<20 {
				t.Errorf("%s: collective %+v, want ALL_GATHER of 1 MiB", vk.name, c)
			}
		})
	}
}

// TestEveryCollectiveKind replays, on 4 NPUs, one collective of every
// CollectiveCommType, each with its attributes in another value kind.
func TestEveryCollectiveKind(t *testing.T) {
	meta := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "0.0.4")
	var files [][]byte
	for r := 0; r < 4; r++ {
		file := protowire.AppendBytes(nil, meta)
		for c := AllReduce; c <= Barrier; c++ {
			file = protowire.AppendBytes(file, kindColl(int(c)%len(valueKinds), uint64(c)+1, c, 4096))
		}
		files = append(files, file)
	}
	tr, err := Read(writeNPUs(t, files...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := replay(t, writeNPUs(t, files...), Options{}, 1); got <= 0 {
		t.Errorf("makespan %d", got)
	}
	if n := len(tr.Files[0].Nodes); n != int(Barrier)+1 {
		t.Errorf("%d nodes, want %d", n, Barrier+1)
	}
	// An unknown kind is refused, naming the node.
	bad := protowire.AppendBytes(protowire.AppendBytes(nil, meta), kindColl(3, 1, Barrier+1, 8))
	if _, err := Read(writeNPUs(t, bad, bad), Options{}); err == nil || !bytesContains(err.Error(), "unknown comm_type 10") {
		t.Errorf("got %v, want an unknown comm_type error", err)
	}
}

func bytesContains(s, sub string) bool { return bytes.Contains([]byte(s), []byte(sub)) }

var _ = fmt.Sprint

// A legacy attribute (Chakra before 0.0.4): name, AttributeType and the
// value in field 4 + type.
type lattr struct {
	name string
	typ  uint64
	enc  func(b []byte, num protowire.Number) []byte
}

func lint(name string, typ uint64, v int64) lattr {
	return lattr{name, typ, func(b []byte, num protowire.Number) []byte {
		return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), uint64(v))
	}}
}

func lstr(name string, typ uint64, s string) lattr {
	return lattr{name, typ, func(b []byte, num protowire.Number) []byte {
		return protowire.AppendString(protowire.AppendTag(b, num, protowire.BytesType), s)
	}}
}

func lints(name string, typ uint64, vs ...int64) lattr { // packed, as protobuf 3 writes repeated scalars
	return lattr{name, typ, func(b []byte, num protowire.Number) []byte {
		var p []byte
		for _, v := range vs {
			p = protowire.AppendVarint(p, uint64(v))
		}
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), p)
	}}
}

func encLegacyAttr(a lattr) []byte {
	b := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), a.name)
	b = protowire.AppendVarint(protowire.AppendTag(b, 2, protowire.VarintType), a.typ)
	return a.enc(b, protowire.Number(4+a.typ))
}

func encLegacyNode(id uint64, name string, typ uint64, parents []uint64, attrs ...lattr) []byte {
	b := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), id)
	b = protowire.AppendString(protowire.AppendTag(b, 2, protowire.BytesType), name)
	b = protowire.AppendVarint(protowire.AppendTag(b, 3, protowire.VarintType), typ)
	for _, p := range parents {
		b = protowire.AppendVarint(protowire.AppendTag(b, 4, protowire.VarintType), p)
	}
	b = protowire.AppendString(protowire.AppendTag(b, 5, protowire.BytesType), "[[1, 2]]")
	b = protowire.AppendString(protowire.AppendTag(b, 6, protowire.BytesType), "[[4, 4]]")
	for _, a := range attrs {
		b = protowire.AppendBytes(protowire.AppendTag(b, 11, protowire.BytesType), encLegacyAttr(a))
	}
	return b
}

// TestLegacySchemas reads one NPU trace in each revision of Chakra's
// schema before 0.0.4, as its PyTorch converter wrote them: an operation
// it could not classify (INVALID), a computation of 7 µs ("runtime"), an
// all-reduce of 1 MiB and an all-to-all of 4 KiB (the old comm_type
// numbers 0 and 1), chained by parent dependencies.
func TestLegacySchemas(t *testing.T) {
	type rev struct {
		name                string
		meta                bool
		invalid, comp, coll uint64 // node types
		tInt, tStr, tInts   uint64 // AttributeTypes
		wantVersion         string
	}
	for _, r := range []rev{
		{name: "0.0.2", comp: 3, coll: 6, tInt: 1, tStr: 2, tInts: 4, wantVersion: "0.0.2"},
		{name: "0.0.3", comp: 4, coll: 7, tInt: 2, tStr: 3, tInts: 6, wantVersion: "0.0.3"},
		{name: "2023-08", meta: true, comp: 4, coll: 7, tInt: 3, tStr: 4, tInts: 8, wantVersion: "August 2023"},
	} {
		t.Run(r.name, func(t *testing.T) {
			var file []byte
			if r.meta {
				m := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), encLegacyAttr(lstr("schema", r.tStr, "1.0.2-chakra.0.0.4")))
				file = protowire.AppendBytes(file, m)
			}
			nodes := [][]byte{
				encLegacyNode(1, "aten::empty", r.invalid, nil, lint("rf_id", r.tInt, 3), lstr("op_schema", r.tStr, "")),
				encLegacyNode(2, "aten::mm", r.comp, []uint64{1}, lint("rf_id", r.tInt, 4), lint("runtime", r.tInt, 7)),
				encLegacyNode(3, "c10d::allreduce_", r.coll, []uint64{2}, lint("comm_type", r.tInt, 0), lint("comm_size", r.tInt, 1<<20),
					lints("involved_dim", r.tInts, 1, 1)),
				encLegacyNode(4, "c10d::alltoall_", r.coll, []uint64{3}, lint("comm_type", r.tInt, 1), lint("comm_size", r.tInt, 4096)),
			}
			for _, n := range nodes {
				file = protowire.AppendBytes(file, n)
			}
			if !Sniff(file) {
				t.Fatalf("not sniffed as Chakra")
			}
			f, err := Decode(bytes.NewReader(file), "x.0.et")
			if err != nil {
				t.Fatal(err)
			}
			if f.Meta.Version != r.wantVersion || len(f.Nodes) != 4 {
				t.Fatalf("version %q, %d nodes", f.Meta.Version, len(f.Nodes))
			}
			if r.meta && (len(f.Meta.Attrs) != 1 || f.Meta.Attrs[0].Str != "1.0.2-chakra.0.0.4") {
				t.Errorf("metadata %+v", f.Meta.Attrs)
			}
			n := f.Nodes
			if n[0].Type != MetadataNode || n[1].Type != CompNode || n[1].DurationMicros != 7 || n[2].Type != CommCollNode ||
				fmt.Sprint(n[1].DataDeps) != "[1]" || n[1].Inputs != "[[1, 2]]" {
				t.Errorf("nodes %+v", n)
			}
			for i, want := range []call{{kind: AllReduce, bytes: 1 << 20}, {kind: AllToAll, bytes: 4096}} {
				if c, err := collOf(f, 2+i); err != nil || c != want {
					t.Errorf("node %d: %+v, %v; want %+v", 2+i, c, err, want)
				}
			}
			if a, _ := n[2].Attr("involved_dim"); fmt.Sprint(a.Ints) != "[1 1]" {
				t.Errorf("involved_dim %+v", a)
			}
			dir := writeNPUs(t, file, file)
			if got := replay(t, dir, Options{}, 1); got <= 7000 {
				t.Errorf("makespan %d ns, want more than the 7 µs of compute", got)
			}
		})
	}
}
