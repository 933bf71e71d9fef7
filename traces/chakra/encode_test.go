package chakra

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// The test writer: it encodes traces with protowire field by field, as a
// converter would, to build synthetic inputs.

type tattr struct {
	name string
	i    int64
	s    string
	b    *bool
	f    *float64
}

func intAttr(name string, v int64) tattr   { return tattr{name: name, i: v} }
func strAttr(name, v string) tattr         { return tattr{name: name, s: v} }
func boolAttr(name string, v bool) tattr   { return tattr{name: name, b: &v} }
func dblAttr(name string, v float64) tattr { return tattr{name: name, f: &v} }

type tnode struct {
	id         uint64
	name       string
	typ        NodeType
	data, ctrl []uint64
	start, dur uint64
	inputs     string
	attrs      []tattr
}

func encAttr(a tattr) []byte {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, a.name)
	switch {
	case a.b != nil:
		b = protowire.AppendTag(b, 27, protowire.VarintType)
		b = protowire.AppendVarint(b, protowire.EncodeBool(*a.b))
	case a.f != nil:
		b = protowire.AppendTag(b, 3, protowire.Fixed64Type)
		b = protowire.AppendFixed64(b, math.Float64bits(*a.f))
	case a.s != "":
		b = protowire.AppendTag(b, 29, protowire.BytesType)
		b = protowire.AppendString(b, a.s)
	default:
		b = protowire.AppendTag(b, 9, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(a.i))
	}
	return b
}

func encNode(n tnode) []byte {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, n.id)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendString(b, n.name)
	b = protowire.AppendTag(b, 3, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(n.typ))
	for _, d := range n.ctrl { // unpacked
		b = protowire.AppendTag(b, 4, protowire.VarintType)
		b = protowire.AppendVarint(b, d)
	}
	if len(n.data) > 0 { // packed
		var p []byte
		for _, d := range n.data {
			p = protowire.AppendVarint(p, d)
		}
		b = protowire.AppendTag(b, 5, protowire.BytesType)
		b = protowire.AppendBytes(b, p)
	}
	if n.start > 0 {
		b = protowire.AppendTag(b, 6, protowire.VarintType)
		b = protowire.AppendVarint(b, n.start)
	}
	b = protowire.AppendTag(b, 7, protowire.VarintType)
	b = protowire.AppendVarint(b, n.dur)
	if n.inputs != "" {
		var io []byte
		io = protowire.AppendTag(io, 1, protowire.BytesType)
		io = protowire.AppendString(io, n.inputs)
		b = protowire.AppendTag(b, 8, protowire.BytesType)
		b = protowire.AppendBytes(b, io)
	}
	for _, a := range n.attrs {
		b = protowire.AppendTag(b, 10, protowire.BytesType)
		b = protowire.AppendBytes(b, encAttr(a))
	}
	return b
}

// encTrace encodes a whole file: metadata (schema version and a pid),
// then the nodes, each preceded by its length.
func encTrace(nodes ...tnode) []byte {
	var meta []byte
	meta = protowire.AppendTag(meta, 2, protowire.BytesType)
	meta = protowire.AppendBytes(meta, encAttr(strAttr("schema", "1.0.2")))
	meta = protowire.AppendTag(meta, 2, protowire.BytesType)
	meta = protowire.AppendBytes(meta, encAttr(intAttr("pid", math.MaxInt32)))
	b := protowire.AppendBytes(nil, meta)
	for _, n := range nodes {
		b = protowire.AppendBytes(b, encNode(n))
	}
	return b
}

func comp(id uint64, us uint64, cpu bool, deps ...uint64) tnode {
	return tnode{id: id, name: "k", typ: CompNode, dur: us, data: deps, attrs: []tattr{boolAttr("is_cpu_op", cpu)}}
}

func coll(id uint64, kind CollType, bytes int64, pg string, deps ...uint64) tnode {
	n := tnode{id: id, name: "nccl", typ: CommCollNode, dur: 999, data: deps,
		attrs: []tattr{boolAttr("is_cpu_op", false), intAttr("comm_type", int64(kind)), intAttr("comm_size", bytes)}}
	if pg != "" {
		n.attrs = append(n.attrs, strAttr("pg_name", pg))
	}
	return n
}

func p2pNode(id uint64, typ NodeType, peer, bytes, tag int64, deps ...uint64) tnode {
	peerAttr := "comm_dst"
	if typ == CommRecvNode {
		peerAttr = "comm_src"
	}
	return tnode{id: id, name: "p2p", typ: typ, data: deps,
		attrs: []tattr{intAttr(peerAttr, peer), intAttr("comm_size", bytes), intAttr("comm_tag", tag)}}
}
