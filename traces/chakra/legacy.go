package chakra

import (
	"bufio"
	"fmt"
	"io"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Chakra's schema before 0.0.4 (mlcommons/chakra, June to October 2023,
// the traces of ASTRA-sim 2.0's first releases) had another Node message:
// 1 id, 2 name, 3 type, 4 parent (the data dependencies), 5 inputs, 6–10
// the shapes and types of inputs and outputs as strings, 11 attributes;
// an AttributeProto of 1 name, 2 type (an AttributeType enum), 3 a doc
// string and its value in field 4 + type; durations in a "runtime"
// attribute (µs, as duration_micros now); comm_type numbered ALL_REDUCE 0,
// ALL_TO_ALL 1, ALL_GATHER 2, REDUCE_SCATTER 3, BROADCAST 4. Three
// revisions differ:
//
//   - 0.0.2 (June 2023): no METADATA node type (MEM_LOAD 1 … COMM_COLL 6)
//     and AttributeType FLOAT 0, INT 1, STRING 2, FLOATS 3, INTS 4,
//     STRINGS 5; no global metadata.
//   - 0.0.3 (July 2023): node types as now; AttributeType BOOL 0, FLOAT 1,
//     INT 2, STRING 3, BOOLS 4, FLOATS 5, INTS 6, STRINGS 7.
//   - August 2023: a global metadata message of attributes opens the file,
//     and AttributeType BOOL 0, FLOAT 1, UINT 2, INT 3, STRING 4, BOOLS 5,
//     FLOATS 6, UINTS 7, INTS 8, STRINGS 9.
//
// The field numbers of these revisions collide with today's, so they are
// told apart before decoding: a file whose first message is a node (its
// field 1 a varint) has no global metadata (0.0.2 or 0.0.3, told by the
// wire types of its attributes); one whose metadata's field 1 is an
// attribute (a name and an AttributeType) is of August 2023.

// legacySchema is a revision of Chakra's schema before 0.0.4.
type legacySchema uint8

const (
	schemaCurrent legacySchema = iota
	schema002                  // June 2023
	schema003                  // July 2023
	schemaAug2023              // global metadata, uint attributes
)

func (s legacySchema) String() string {
	return [...]string{"0.0.4", "0.0.2", "0.0.3", "August 2023"}[s]
}

// legacyKinds gives, per revision, what each AttributeType value holds:
// 'b' bool, 'f' float, 'i' integer, 's' string, and their lists in upper
// case.
var legacyKinds = [...]string{schema002: "fisFIS", schema003: "bfisBFIS", schemaAug2023: "bfiisBFIIS"}

// legacyFirst tells, from a file's first message, whether the file is of
// a revision before 0.0.4: schema003 stands for "0.0.2 or 0.0.3" (no
// global metadata), schemaAug2023 for a metadata message of attributes.
func legacyFirst(msg []byte) legacySchema {
	num, typ, n := protowire.ConsumeTag(msg)
	if n < 0 || num != 1 {
		return schemaCurrent
	}
	switch typ {
	case protowire.VarintType:
		return schema003
	case protowire.BytesType:
		raw, k := protowire.ConsumeBytes(msg[n:])
		if k < 0 {
			return schemaCurrent
		}
		named, typed := false, false
		err := fields(raw, func(num protowire.Number, typ protowire.Type, v uint64, _ []byte) error {
			named = named || num == 1 && typ == protowire.BytesType
			typed = typed || num == 2 && typ == protowire.VarintType
			return nil
		})
		if err == nil && named && typed {
			return schemaAug2023
		}
	}
	return schemaCurrent
}

// rawAttr is an attribute of a legacy revision before its type is known.
type rawAttr struct {
	name  string
	typ   uint64
	value []rawValue
}

type rawValue struct {
	num protowire.Number
	typ protowire.Type
	v   uint64
	raw []byte
}

func decodeRawAttr(b []byte) (rawAttr, error) {
	var a rawAttr
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
		switch {
		case num == 1:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			a.name = string(raw)
		case num == 2:
			if err := want(num, typ, protowire.VarintType); err != nil {
				return err
			}
			a.typ = v
		case num >= 4:
			a.value = append(a.value, rawValue{num, typ, v, raw})
		}
		return nil
	})
	return a, err
}

// convert decodes the attribute's value as revision s defines its type.
func (ra *rawAttr) convert(s legacySchema) (Attr, error) {
	a := Attr{Name: ra.name}
	kinds := legacyKinds[s]
	if ra.typ >= uint64(len(kinds)) {
		return a, fmt.Errorf("attribute %q: unknown attribute type %d of Chakra %s", ra.name, ra.typ, s)
	}
	kind := kinds[ra.typ]
	field := protowire.Number(4 + ra.typ)
	for _, x := range ra.value {
		if x.num != field {
			continue
		}
		a.Kind = legacyKind(kind)
		switch kind {
		case 'b', 'i':
			if err := want(x.num, x.typ, protowire.VarintType); err != nil {
				return a, fmt.Errorf("attribute %q: %w", ra.name, err)
			}
			a.Int, a.Float = int64(x.v), float64(int64(x.v))
		case 'f':
			if err := want(x.num, x.typ, protowire.Fixed32Type); err != nil {
				return a, fmt.Errorf("attribute %q: %w", ra.name, err)
			}
			a.Float = float64(math.Float32frombits(uint32(x.v)))
			a.Int = int64(a.Float)
		case 's':
			if err := want(x.num, x.typ, protowire.BytesType); err != nil {
				return a, fmt.Errorf("attribute %q: %w", ra.name, err)
			}
			a.Str = string(x.raw)
		case 'S':
			if err := want(x.num, x.typ, protowire.BytesType); err != nil {
				return a, fmt.Errorf("attribute %q: %w", ra.name, err)
			}
			a.Strs = append(a.Strs, string(x.raw))
		case 'B', 'I':
			if err := a.addList(9, x.typ, x.v, x.raw); err != nil { // as int64 values
				return a, fmt.Errorf("attribute %q: %w", ra.name, err)
			}
		case 'F':
			if err := a.addList(5, x.typ, x.v, x.raw); err != nil { // as float values
				return a, fmt.Errorf("attribute %q: %w", ra.name, err)
			}
		}
	}
	return a, nil
}

// legacyKind is the value field of Chakra 0.0.4's AttributeProto of the
// type a legacy AttributeType kind (legacyKinds) holds: bool_val,
// float_val, int64_val, string_val and their lists.
func legacyKind(kind byte) protowire.Number {
	switch kind {
	case 'b':
		return 27
	case 'f':
		return 5
	case 's':
		return 29
	case 'B':
		return 28
	case 'F':
		return 6
	case 'I':
		return 10
	case 'S':
		return 30
	}
	return 9
}

// legacyNode is a node of a legacy revision with its attributes undecoded.
type legacyNode struct {
	Node
	typ   uint64
	attrs []rawAttr
}

func decodeLegacyNode(b []byte) (legacyNode, error) {
	var nd legacyNode
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
		var err error
		switch num {
		case 1, 3:
			if err := want(num, typ, protowire.VarintType); err != nil {
				return err
			}
			if num == 1 {
				nd.ID = v
			} else {
				nd.typ = v
			}
		case 2, 5:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			if num == 2 {
				nd.Name = string(raw)
			} else {
				nd.Inputs = string(raw)
			}
		case 4:
			nd.DataDeps, err = uints(nd.DataDeps, num, typ, v, raw)
		case 11:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			var a rawAttr
			if a, err = decodeRawAttr(raw); err != nil {
				return fmt.Errorf("attribute %d: %w", len(nd.attrs), err)
			}
			nd.attrs = append(nd.attrs, a)
		}
		return err
	})
	return nd, err
}

// detect002 reports whether the attributes of a metadata-less file are of
// 0.0.2: an INT (type 1) in a varint, a STRING (type 2) in bytes or a
// FLOAT (type 0) in a fixed32 only 0.0.2 writes.
func detect002(nodes []legacyNode) bool {
	for _, nd := range nodes {
		for _, a := range nd.attrs {
			for _, x := range a.value {
				if x.num != protowire.Number(4+a.typ) {
					continue
				}
				switch {
				case a.typ == 1 && x.typ == protowire.VarintType, a.typ == 2 && x.typ == protowire.BytesType,
					a.typ == 0 && x.typ == protowire.Fixed32Type:
					return true
				case a.typ == 1 && x.typ == protowire.Fixed32Type, a.typ == 2 && x.typ == protowire.VarintType,
					a.typ == 0 && x.typ == protowire.VarintType:
					return false
				}
			}
		}
	}
	return false
}

// legacyCommTypes maps the comm_type numbers of the revisions before 0.0.4
// onto today's.
var legacyCommTypes = [...]CollType{AllReduce, AllToAll, AllGather, ReduceScatter, Broadcast}

// finishLegacy turns the nodes of revision s into today's: node types
// renumbered (0.0.2), the "runtime" attribute into DurationMicros,
// comm_type renumbered. INVALID nodes (operations the converter could not
// classify, with no duration) become METADATA nodes: they take no time
// and keep their dependencies.
func finishLegacy(ln legacyNode, s legacySchema) (Node, error) {
	nd := ln.Node
	t := ln.typ
	if s == schema002 && t > 0 {
		t++ // no METADATA type: MEM_LOAD was 1
	}
	switch {
	case t == 0:
		nd.Type = MetadataNode
	case t <= uint64(CommCollNode):
		nd.Type = NodeType(t)
	default:
		return nd, fmt.Errorf("id %d: unknown node type %d of Chakra %s", nd.ID, ln.typ, s)
	}
	for i := range ln.attrs {
		a, err := ln.attrs[i].convert(s)
		if err != nil {
			return nd, fmt.Errorf("id %d: %w", nd.ID, err)
		}
		if err := checkAttr(nd.ID, &a, intAttrs[a.Name] || a.Name == "runtime"); err != nil {
			return nd, err
		}
		switch a.Name {
		case "runtime":
			if a.Int < 0 {
				return nd, fmt.Errorf("id %d: runtime %d µs", nd.ID, a.Int)
			}
			nd.DurationMicros = uint64(a.Int)
			continue
		case "comm_type":
			if a.Int < 0 || a.Int >= int64(len(legacyCommTypes)) {
				return nd, fmt.Errorf("id %d: unknown comm_type %d of Chakra %s", nd.ID, a.Int, s)
			}
			a.Int = int64(legacyCommTypes[a.Int])
			a.Float = float64(a.Int)
		}
		nd.Attrs = append(nd.Attrs, a)
	}
	return nd, nil
}

// decodeLegacy reads the rest of a file of a revision before 0.0.4 whose
// first message, first, legacyFirst classified as s; off is the offset
// after it.
func decodeLegacy(br *bufio.Reader, name string, first []byte, s legacySchema, off int64) (*File, error) {
	file := &File{Path: name}
	var nodes []legacyNode
	var offs []int64
	add := func(msg []byte, at int64) error {
		nd, err := decodeLegacyNode(msg)
		if err != nil {
			return fmt.Errorf("%s: byte %d: node %d: %w", name, at, len(nodes), err)
		}
		nodes, offs = append(nodes, nd), append(offs, at)
		return nil
	}
	if s == schemaAug2023 {
		err := fields(first, func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
			if num != 1 || typ != protowire.BytesType {
				return nil
			}
			ra, err := decodeRawAttr(raw)
			if err != nil {
				return err
			}
			a, err := ra.convert(s)
			file.Meta.Attrs = append(file.Meta.Attrs, a)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("%s: byte 0: global metadata of Chakra %s: %w", name, s, err)
		}
	} else if err := add(first, 0); err != nil {
		return nil, err
	}
	for {
		// A new slice per node: its undecoded attributes keep theirs.
		msg, err := readMessage(br, name, fmt.Sprintf("node %d", len(nodes)), &off, nil)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := add(msg, off); err != nil {
			return nil, err
		}
		off += int64(len(msg))
	}
	if s == schema003 && detect002(nodes) {
		s = schema002
	}
	file.Meta.Version = s.String()
	file.Nodes = make([]Node, len(nodes))
	for i := range nodes {
		nd, err := finishLegacy(nodes[i], s)
		if err != nil {
			return nil, fmt.Errorf("%s: byte %d: node %d: %w", name, offs[i], i, err)
		}
		file.Nodes[i] = nd
	}
	return file, nil
}

// sniffLegacyNode reports whether msg, a file's first message, is a node
// of Chakra 0.0.2 or 0.0.3: an id, a name and a node type, every field
// well formed.
func sniffLegacyNode(msg []byte) bool {
	var id, named, typed bool
	err := fields(msg, func(num protowire.Number, typ protowire.Type, v uint64, _ []byte) error {
		switch num {
		case 1:
			id = typ == protowire.VarintType
		case 2:
			named = typ == protowire.BytesType
		case 3:
			typed = typ == protowire.VarintType && v <= uint64(CommCollNode)
		}
		return nil
	})
	return err == nil && id && named && typed
}
