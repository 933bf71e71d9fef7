package chakra

import (
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// NodeType is the kind of a node, numbered as in Chakra's schema.
type NodeType int32

// The node kinds of Chakra execution traces.
const (
	InvalidNode NodeType = iota
	MetadataNode
	MemLoadNode
	MemStoreNode
	CompNode
	CommSendNode
	CommRecvNode
	CommCollNode
)

var nodeTypeNames = [...]string{"INVALID", "METADATA", "MEM_LOAD", "MEM_STORE", "COMP", "COMM_SEND", "COMM_RECV", "COMM_COLL"}

// String returns the schema's name of the kind without its _NODE suffix.
func (t NodeType) String() string {
	if t >= 0 && int(t) < len(nodeTypeNames) {
		return nodeTypeNames[t]
	}
	return fmt.Sprintf("NodeType(%d)", int32(t))
}

// CollType is the kind of a collective (the comm_type attribute).
type CollType int32

// The collective kinds of Chakra execution traces.
const (
	AllReduce CollType = iota
	Reduce
	AllGather
	Gather
	Scatter
	Broadcast
	AllToAll
	ReduceScatter
	ReduceScatterBlock
	Barrier
)

var collNames = [...]string{"ALL_REDUCE", "REDUCE", "ALL_GATHER", "GATHER", "SCATTER", "BROADCAST", "ALL_TO_ALL",
	"REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK", "BARRIER"}

// String returns the schema's name of the collective kind.
func (c CollType) String() string {
	if c >= 0 && int(c) < len(collNames) {
		return collNames[c]
	}
	return fmt.Sprintf("CollType(%d)", int32(c))
}

// Attr is one attribute of a node or of the global metadata. Scalars of
// every integer and boolean type are kept in Int (booleans as 0 or 1),
// floating-point ones in Float, strings and bytes in Str; lists in Ints,
// Floats and Strs.
type Attr struct {
	Name   string
	Int    int64
	Float  float64
	Str    string
	Ints   []int64
	Floats []float64
	Strs   []string
	// Kind is the field number of the value in Chakra 0.0.4's
	// AttributeProto (0: no value); a legacy revision's value has the
	// number of its type there.
	Kind protowire.Number
}

// Node is one node of an execution trace, with the attributes capsim uses
// decoded into fields.
type Node struct {
	ID       uint64
	Name     string
	Type     NodeType
	CtrlDeps []uint64
	DataDeps []uint64
	// StartMicros and DurationMicros are the recorded start time and
	// duration, in µs.
	StartMicros, DurationMicros uint64
	// Inputs is the inputs' value string (a METADATA node's process-group
	// table lives there).
	Inputs string
	Attrs  []Attr
}

// Attr returns the node's attribute called name.
func (n *Node) Attr(name string) (Attr, bool) {
	for _, a := range n.Attrs {
		if a.Name == name {
			return a, true
		}
	}
	return Attr{}, false
}

// Metadata is the global metadata that opens a trace.
type Metadata struct {
	Version string
	Attrs   []Attr
}

var errTrunc = errors.New("truncated field")

// fields walks the fields of one message, calling f with each field's
// number, wire type and raw value (the bytes of a length-delimited field,
// nil otherwise with the varint or fixed value in v).
func fields(b []byte, f func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("bad field tag: %w", protowire.ParseError(n))
		}
		b = b[n:]
		var v uint64
		var raw []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var x uint32
			x, n = protowire.ConsumeFixed32(b)
			v = uint64(x)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			raw, n = protowire.ConsumeBytes(b)
		default:
			return fmt.Errorf("field %d has unsupported wire type %d", num, typ)
		}
		if n < 0 {
			return fmt.Errorf("field %d: %w", num, protowire.ParseError(n))
		}
		b = b[n:]
		if err := f(num, typ, v, raw); err != nil {
			return err
		}
	}
	return nil
}

func want(num protowire.Number, typ, w protowire.Type) error {
	if typ != w {
		return fmt.Errorf("field %d has wire type %d, want %d", num, typ, w)
	}
	return nil
}

// uints decodes a repeated uint64 field, packed or not, appending to dst.
func uints(dst []uint64, num protowire.Number, typ protowire.Type, v uint64, raw []byte) ([]uint64, error) {
	switch typ {
	case protowire.VarintType:
		return append(dst, v), nil
	case protowire.BytesType:
		for len(raw) > 0 {
			x, n := protowire.ConsumeVarint(raw)
			if n < 0 {
				return dst, fmt.Errorf("field %d: %w", num, protowire.ParseError(n))
			}
			dst = append(dst, x)
			raw = raw[n:]
		}
		return dst, nil
	}
	return dst, fmt.Errorf("field %d has wire type %d, want a varint list", num, typ)
}

// decodeMetadata decodes a GlobalMetadata message.
func decodeMetadata(b []byte) (Metadata, error) {
	var m Metadata
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
		switch num {
		case 1:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			m.Version = string(raw)
		case 2:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			a, err := decodeAttr(raw)
			if err != nil {
				return fmt.Errorf("attribute %d: %w", len(m.Attrs), err)
			}
			m.Attrs = append(m.Attrs, a)
		}
		return nil
	})
	return m, err
}

// decodeNode decodes a Node message.
func decodeNode(b []byte) (Node, error) {
	var nd Node
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
		var err error
		switch num {
		case 1, 3, 6, 7:
			if err := want(num, typ, protowire.VarintType); err != nil {
				return err
			}
			switch num {
			case 1:
				nd.ID = v
			case 3:
				nd.Type = NodeType(int32(v))
			case 6:
				nd.StartMicros = v
			case 7:
				nd.DurationMicros = v
			}
		case 2:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			nd.Name = string(raw)
		case 4:
			nd.CtrlDeps, err = uints(nd.CtrlDeps, num, typ, v, raw)
		case 5:
			nd.DataDeps, err = uints(nd.DataDeps, num, typ, v, raw)
		case 8:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			err = fields(raw, func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
				if num == 1 && typ == protowire.BytesType {
					nd.Inputs = string(raw)
				}
				return nil
			})
		case 9:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			err = fields(raw, func(protowire.Number, protowire.Type, uint64, []byte) error { return nil })
		case 10:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			var a Attr
			a, err = decodeAttr(raw)
			if err != nil {
				return fmt.Errorf("attribute %d: %w", len(nd.Attrs), err)
			}
			nd.Attrs = append(nd.Attrs, a)
		}
		return err
	})
	return nd, err
}

// decodeAttr decodes an AttributeProto message: field 1 the name, 2 a doc
// string, 3..32 the value (odd numbers scalars, even numbers lists of the
// scalar type one below).
func decodeAttr(b []byte) (Attr, error) {
	var a Attr
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
		switch {
		case num == 1:
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			a.Name = string(raw)
			return nil
		case num == 2 || num < 1 || num > 32:
			return nil
		}
		a.Kind = num
		if num%2 == 0 { // a list message: its field 1 holds the values
			if err := want(num, typ, protowire.BytesType); err != nil {
				return err
			}
			return fields(raw, func(n protowire.Number, t protowire.Type, v uint64, raw []byte) error {
				if n != 1 {
					return nil
				}
				return a.addList(num-1, t, v, raw)
			})
		}
		return a.setScalar(num, typ, v, raw)
	})
	return a, err
}

// scalarWire returns the wire type of scalar value field num.
func scalarWire(num protowire.Number) protowire.Type {
	switch num {
	case 3, 21, 25: // double, fixed64, sfixed64
		return protowire.Fixed64Type
	case 5, 19, 23: // float, fixed32, sfixed32
		return protowire.Fixed32Type
	case 29, 31: // string, bytes
		return protowire.BytesType
	}
	return protowire.VarintType
}

// scalar converts one raw scalar of value field num.
func scalar(num protowire.Number, v uint64) (i int64, f float64) {
	switch num {
	case 3:
		f = math.Float64frombits(v)
		return int64(f), f
	case 5:
		f = float64(math.Float32frombits(uint32(v)))
		return int64(f), f
	case 7, 23: // int32, sfixed32
		i = int64(int32(v))
	case 15: // sint32
		i = int64(protowire.DecodeZigZag(v & math.MaxUint32))
	case 17: // sint64
		i = protowire.DecodeZigZag(v)
	case 27:
		if v != 0 {
			i = 1
		}
	default:
		i = int64(v)
	}
	return i, float64(i)
}

func (a *Attr) setScalar(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
	if err := want(num, typ, scalarWire(num)); err != nil {
		return err
	}
	if typ == protowire.BytesType {
		a.Str = string(raw)
		return nil
	}
	a.Int, a.Float = scalar(num, v)
	return nil
}

// addList appends the list elements of one field-1 entry of a list
// message whose elements have scalar field number num (packed or not).
func (a *Attr) addList(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
	w := scalarWire(num)
	if w == protowire.BytesType {
		if typ != protowire.BytesType {
			return fmt.Errorf("list field %d has wire type %d, want %d", num+1, typ, w)
		}
		a.Strs = append(a.Strs, string(raw))
		return nil
	}
	add := func(v uint64) {
		i, f := scalar(num, v)
		a.Ints = append(a.Ints, i)
		a.Floats = append(a.Floats, f)
	}
	if typ == w {
		add(v)
		return nil
	}
	if typ != protowire.BytesType {
		return fmt.Errorf("list field %d has wire type %d, want %d", num+1, typ, w)
	}
	for len(raw) > 0 {
		var x uint64
		var n int
		switch w {
		case protowire.VarintType:
			x, n = protowire.ConsumeVarint(raw)
		case protowire.Fixed32Type:
			var y uint32
			y, n = protowire.ConsumeFixed32(raw)
			x = uint64(y)
		default:
			x, n = protowire.ConsumeFixed64(raw)
		}
		if n < 0 {
			return fmt.Errorf("list field %d: %w", num+1, protowire.ParseError(n))
		}
		add(x)
		raw = raw[n:]
	}
	return nil
}

// intAttrs are the attributes capsim reads as integers: collective
// kinds, sizes, peers, tags, the host flag and operation counts.
var intAttrs = map[string]bool{"comm_type": true, "comm_size": true, "tensor_size": true, "comm_src": true,
	"comm_dst": true, "comm_tag": true, "is_cpu_op": true, "num_ops": true}

// strAttrs are the attributes capsim reads as strings: the process group
// a collective runs on.
var strAttrs = map[string]bool{"pg_name": true}

// checkAttrs refuses an attribute capsim reads (intAttrs, strAttrs) whose
// value is not of the type it is read as.
func checkAttrs(nd *Node) error {
	for i := range nd.Attrs {
		if err := checkAttr(nd.ID, &nd.Attrs[i], intAttrs[nd.Attrs[i].Name]); err != nil {
			return err
		}
	}
	return nil
}

// checkAttr refuses attribute a of node id when capsim reads it (asInt:
// as an integer; strAttrs: as a string) and its value is of another
// type: for an integer a string, bytes or a list, which would read as 0,
// a floating-point number that is no integer (1.5, NaN, ±Inf, beyond
// ±2^63), which would be cut, or a bool where the attribute is no flag
// (a comm_size of true, read as 1 byte); for a string a number or a list, which would read as "". Legacy
// revisions' values carry the field number of the same type in Chakra
// 0.0.4 (legacyKind), so every revision is checked here alike.
func checkAttr(id uint64, a *Attr, asInt bool) error {
	if strAttrs[a.Name] {
		if a.Kind != 0 && a.Kind != 29 {
			return fmt.Errorf("id %d: attribute %s is %s, want a string", id, a.Name, valueType(a.Kind))
		}
		return nil
	}
	if !asInt {
		return nil
	}
	switch {
	case a.Kind == 29:
		return fmt.Errorf("id %d: attribute %s is the string %q, want an integer", id, a.Name, a.Str)
	case a.Kind == 31:
		return fmt.Errorf("id %d: attribute %s holds bytes, want an integer", id, a.Name)
	case a.Kind > 0 && a.Kind%2 == 0:
		return fmt.Errorf("id %d: attribute %s is a list, want an integer", id, a.Name)
	case (a.Kind == 3 || a.Kind == 5) && !(math.Abs(a.Float) < 1<<63 && a.Float == math.Trunc(a.Float)):
		return fmt.Errorf("id %d: attribute %s is %g, want an integer", id, a.Name, a.Float)
	case a.Kind == 27 && a.Name != "is_cpu_op":
		return fmt.Errorf("id %d: attribute %s is a bool, want an integer", id, a.Name)
	}
	return nil
}

// valueType names the type of value field num of AttributeProto.
func valueType(num protowire.Number) string {
	switch {
	case num == 31:
		return "bytes"
	case num > 0 && num%2 == 0:
		return "a list"
	case num == 3 || num == 5:
		return "a floating-point number"
	case num == 27:
		return "a bool"
	}
	return "an integer"
}
