package chakra

import (
	"bufio"
	"errors"
	"io"
	"os"
	"testing"

	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
)

const sharedTrace = "../../../shared/traces/chakra/pytorch-kineto-1rank/chakra.0.et"

// refDescriptors builds, with the protobuf runtime, the descriptors of
// the messages the reference decoder needs: Node (id 1, type 3,
// data_deps 5, duration_micros 7, attr 10) and the attribute fields
// (name 1, bool 27, int64 9) the counts use. Unknown fields are skipped
// by the runtime, so the reference shares no code with decode.go.
func refDescriptors(t *testing.T) (node, meta protoreflect.MessageDescriptor) {
	t.Helper()
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	rep := descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
	typ := func(x descriptorpb.FieldDescriptorProto_Type) *descriptorpb.FieldDescriptorProto_Type {
		return x.Enum()
	}
	field := func(name string, num int32, l *descriptorpb.FieldDescriptorProto_Label, ty *descriptorpb.FieldDescriptorProto_Type, msg string) *descriptorpb.FieldDescriptorProto {
		f := &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(num), Label: l, Type: ty}
		if msg != "" {
			f.TypeName = proto.String(msg)
		}
		return f
	}
	fd := &descriptorpb.FileDescriptorProto{
		Name: proto.String("ref.proto"), Package: proto.String("ref"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{
			{Name: proto.String("Attr"), Field: []*descriptorpb.FieldDescriptorProto{
				field("name", 1, opt, typ(descriptorpb.FieldDescriptorProto_TYPE_STRING), ""),
				field("int64_val", 9, opt, typ(descriptorpb.FieldDescriptorProto_TYPE_INT64), ""),
				field("bool_val", 27, opt, typ(descriptorpb.FieldDescriptorProto_TYPE_BOOL), ""),
			}},
			{Name: proto.String("Meta"), Field: []*descriptorpb.FieldDescriptorProto{
				field("version", 1, opt, typ(descriptorpb.FieldDescriptorProto_TYPE_STRING), ""),
				field("attr", 2, rep, typ(descriptorpb.FieldDescriptorProto_TYPE_MESSAGE), ".ref.Attr"),
			}},
			{Name: proto.String("Node"), Field: []*descriptorpb.FieldDescriptorProto{
				field("id", 1, opt, typ(descriptorpb.FieldDescriptorProto_TYPE_UINT64), ""),
				field("type", 3, opt, typ(descriptorpb.FieldDescriptorProto_TYPE_INT32), ""),
				field("data_deps", 5, rep, typ(descriptorpb.FieldDescriptorProto_TYPE_UINT64), ""),
				field("duration_micros", 7, opt, typ(descriptorpb.FieldDescriptorProto_TYPE_UINT64), ""),
				field("attr", 10, rep, typ(descriptorpb.FieldDescriptorProto_TYPE_MESSAGE), ".ref.Attr"),
			}},
		},
	}
	file, err := protodesc.NewFile(fd, nil)
	if err != nil {
		t.Fatal(err)
	}
	return file.Messages().ByName("Node"), file.Messages().ByName("Meta")
}

// refNode is what the reference decoder keeps of a node.
type refNode struct {
	id, dur  uint64
	typ      int32
	deps     []uint64
	commType int64 // −1: none
	cpu      bool
}

// refDecode reads a trace with the protobuf runtime's delimited reader.
func refDecode(t *testing.T, path string) []refNode {
	t.Helper()
	nodeDesc, metaDesc := refDescriptors(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	opts := protodelim.UnmarshalOptions{MaxSize: -1}
	if err := opts.UnmarshalFrom(r, dynamicpb.NewMessage(metaDesc)); err != nil {
		t.Fatal(err)
	}
	fd := nodeDesc.Fields()
	var out []refNode
	for {
		m := dynamicpb.NewMessage(nodeDesc)
		err := opts.UnmarshalFrom(r, m)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		n := refNode{id: m.Get(fd.ByName("id")).Uint(), dur: m.Get(fd.ByName("duration_micros")).Uint(),
			typ: int32(m.Get(fd.ByName("type")).Int()), commType: -1}
		deps := m.Get(fd.ByName("data_deps")).List()
		for i := 0; i < deps.Len(); i++ {
			n.deps = append(n.deps, deps.Get(i).Uint())
		}
		attrs := m.Get(fd.ByName("attr")).List()
		for i := 0; i < attrs.Len(); i++ {
			a := attrs.Get(i).Message()
			af := a.Descriptor().Fields()
			switch a.Get(af.ByName("name")).String() {
			case "comm_type":
				n.commType = a.Get(af.ByName("int64_val")).Int()
			case "is_cpu_op":
				n.cpu = a.Get(af.ByName("bool_val")).Bool()
			}
		}
		out = append(out, n)
	}
}

// The shared PyTorch trace (one NPU, converted from a Kineto profile):
// node counts by type and collective kind, and the total COMP time, as
// the protobuf runtime decodes them; the replay's makespan lies between
// the longest dependency chain (and each stream's busy time) and the sum
// of all durations.
func TestSharedPyTorchTrace(t *testing.T) {
	if _, err := os.Stat(sharedTrace); err != nil {
		t.Skip("shared traces not available")
	}
	ref := refDecode(t, sharedTrace)
	f, err := ReadFile(sharedTrace)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Nodes) != len(ref) || len(ref) != 3664 {
		t.Fatalf("%d nodes, the reference decoder reads %d (want 3664)", len(f.Nodes), len(ref))
	}
	types, colls := map[NodeType]int{}, map[CollType]int{}
	refTypes, refColls := map[NodeType]int{}, map[CollType]int{}
	var comp, refComp uint64
	for i, nd := range f.Nodes {
		types[nd.Type]++
		if a, ok := nd.Attr("comm_type"); ok {
			colls[CollType(a.Int)]++
		}
		if nd.Type == CompNode {
			comp += nd.DurationMicros
		}
		r := ref[i]
		refTypes[NodeType(r.typ)]++
		if r.commType >= 0 {
			refColls[CollType(r.commType)]++
		}
		if r.typ == int32(CompNode) {
			refComp += r.dur
		}
		if r.id != nd.ID || r.dur != nd.DurationMicros || len(r.deps) != len(nd.DataDeps) {
			t.Fatalf("node %d: id %d dur %d deps %d, reference %d %d %d", i, nd.ID, nd.DurationMicros, len(nd.DataDeps), r.id, r.dur, len(r.deps))
		}
	}
	want := map[NodeType]int{CompNode: 3643, CommCollNode: 21}
	wantColls := map[CollType]int{AllReduce: 5, Broadcast: 2}
	for k, v := range want {
		if types[k] != v || refTypes[k] != v {
			t.Errorf("%s: %d nodes, reference %d, want %d", k, types[k], refTypes[k], v)
		}
	}
	for k, v := range wantColls {
		if colls[k] != v || refColls[k] != v {
			t.Errorf("%s: %d collectives, reference %d, want %d", k, colls[k], refColls[k], v)
		}
	}
	if len(colls) != len(wantColls) || comp != refComp {
		t.Errorf("collective kinds %v; COMP total %d µs, reference %d µs", colls, comp, refComp)
	}
	t.Logf("COMP total %d µs", comp)

	tr, err := Read(sharedTrace, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(tr.Graph, network.DefaultLogGOPS(), sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	chain, streams, total := refBounds(ref)
	got := int64(res.Makespan)
	t.Logf("makespan %d ns; longest chain %d ns, busiest stream %d ns, all durations %d ns", got, chain, streams, total)
	if lo := max(chain, streams); got < lo || got > total {
		t.Errorf("makespan %d ns outside [%d, %d]", got, lo, total)
	}
}

// refBounds computes from the reference decoding the longest chain of data
// dependencies weighted by duration (collectives of one NPU cost nothing),
// the busiest stream's total (host CPU or GPU) and the sum of durations,
// in ns.
func refBounds(ref []refNode) (chain, stream, total int64) {
	at := map[uint64]int{}
	for i, n := range ref {
		at[n.id] = i
	}
	dur := func(n refNode) int64 {
		if n.commType >= 0 {
			return 0
		}
		return int64(n.dur) * 1000
	}
	finish := make([]int64, len(ref))
	done := make([]bool, len(ref))
	var visit func(i int) int64
	visit = func(i int) int64 {
		if done[i] {
			return finish[i]
		}
		var start int64
		for _, d := range ref[i].deps {
			start = max(start, visit(at[d]))
		}
		done[i], finish[i] = true, start+dur(ref[i])
		return finish[i]
	}
	var cpu, gpu int64
	for i, n := range ref {
		chain = max(chain, visit(i))
		total += dur(n)
		if n.cpu {
			cpu += dur(n)
		} else {
			gpu += dur(n)
		}
	}
	return chain, max(cpu, gpu), total
}
