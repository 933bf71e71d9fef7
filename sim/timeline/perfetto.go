package timeline

import (
	"encoding/binary"
	"math"
	"sort"
	"strconv"

	"github.com/capsim/capsim/traces/graph"
)

// protoSink writes Perfetto's protobuf trace: a stream of TracePacket
// messages, each field 1 of the Trace message. Tracks are declared with
// TrackDescriptor packets (a process track per rank, a thread track per
// CPU, a counter track per counter name) and events are TrackEvent
// packets: a slice is a SLICE_BEGIN and a SLICE_END on its CPU's track, a
// message a flow from the send's slice to the receive's.
//
// The engine reports some slices late (a message processed before its
// receive was posted is reported when the receive matches it), and
// Perfetto nests slices of one track by timestamp, so slices are buffered
// (32 bytes each plus their flows) and written per track in time order at
// Close. Counters are streamed.
//
// Field numbers are those of Perfetto's trace protos
// (protos/perfetto/trace/trace_packet.proto and track_event/*.proto).
type protoSink struct {
	buf    []byte
	msg    []byte // scratch for nested messages
	slices []pslice
	at     []int32 // slice index + 1 of each op's last slice (for flows)
	flows  []pflow
	// network: the "network" process (parent of link counters) is
	// declared.
	network bool
}

type pslice struct {
	op         int32
	cpu        uint8
	start, end int64
}

type pflow struct {
	slice int32 // index into slices
	id    uint64
	end   bool // terminating flow (the receive's side)
}

// Protobuf field numbers.
const (
	fTracePacket = 1 // Trace.packet

	fPacketTimestamp  = 8  // TracePacket.timestamp
	fPacketSequenceID = 10 // TracePacket.trusted_packet_sequence_id
	fPacketTrackEvent = 11 // TracePacket.track_event
	fPacketTrackDesc  = 60 // TracePacket.track_descriptor

	fDescUUID    = 1 // TrackDescriptor.uuid
	fDescName    = 2 // TrackDescriptor.name
	fDescProcess = 3 // TrackDescriptor.process
	fDescThread  = 4 // TrackDescriptor.thread
	fDescParent  = 5 // TrackDescriptor.parent_uuid
	fDescCounter = 8 // TrackDescriptor.counter

	fProcessPid  = 1 // ProcessDescriptor.pid
	fProcessName = 6 // ProcessDescriptor.process_name

	fThreadPid  = 1 // ThreadDescriptor.pid
	fThreadTid  = 2 // ThreadDescriptor.tid
	fThreadName = 5 // ThreadDescriptor.thread_name

	fEventAnnotation = 4  // TrackEvent.debug_annotations
	fEventType       = 9  // TrackEvent.type
	fEventTrack      = 11 // TrackEvent.track_uuid
	fEventName       = 23 // TrackEvent.name
	fEventDouble     = 44 // TrackEvent.double_counter_value
	fEventFlow       = 47 // TrackEvent.flow_ids (fixed64)
	fEventEndFlow    = 48 // TrackEvent.terminating_flow_ids (fixed64)

	fAnnotationInt    = 4  // DebugAnnotation.int_value
	fAnnotationString = 6  // DebugAnnotation.string_value
	fAnnotationName   = 10 // DebugAnnotation.name

	typeSliceBegin = 1
	typeSliceEnd   = 2
	typeCounter    = 4

	sequenceID = 1
)

// Track uuids: rank r's process track is (r+1)<<9, its CPU c's thread
// track that | (c+1); counter k's track is counterBase + k.
func processUUID(r int) uint64   { return uint64(r+1) << 9 }
func threadUUID(r, c int) uint64 { return processUUID(r) | uint64(c+1) }
func counterUUID(k int) uint64   { return 1<<62 + uint64(k) }
func threadID(r, c int) int64    { return int64(r)*(maxCPUs) + int64(c) + 1 }

const maxCPUs = 256

func appendVarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

func appendTag(b []byte, field, wire int) []byte {
	return appendVarint(b, uint64(field)<<3|uint64(wire))
}

func appendUint(b []byte, field int, v uint64) []byte {
	return appendVarint(appendTag(b, field, 0), v)
}

func appendInt(b []byte, field int, v int64) []byte { return appendUint(b, field, uint64(v)) }

func appendBytes(b []byte, field int, v []byte) []byte {
	b = appendVarint(appendTag(b, field, 2), uint64(len(v)))
	return append(b, v...)
}

func appendString(b []byte, field int, v string) []byte {
	b = appendVarint(appendTag(b, field, 2), uint64(len(v)))
	return append(b, v...)
}

func appendFixed64(b []byte, field int, v uint64) []byte {
	return binary.LittleEndian.AppendUint64(appendTag(b, field, 1), v)
}

func appendDouble(b []byte, field int, v float64) []byte {
	return appendFixed64(b, field, math.Float64bits(v))
}

// packet writes one TracePacket whose body is body.
func (p *protoSink) packet(t *Writer, body []byte) {
	b := appendBytes(p.buf[:0], fTracePacket, body)
	p.buf = b
	t.write(b)
}

// descriptor writes a TrackDescriptor packet.
func (p *protoSink) descriptor(t *Writer, desc []byte) {
	body := appendBytes(nil, fPacketTrackDesc, desc)
	p.packet(t, body)
}

func (p *protoSink) header(t *Writer) {
	p.at = make([]int32, t.g.NumOps())
	for r, cs := range t.cpus() {
		if !t.shown(int32(r)) {
			continue
		}
		proc := appendInt(nil, fProcessPid, int64(r)+1)
		proc = appendString(proc, fProcessName, t.processName(r))
		d := appendUint(nil, fDescUUID, processUUID(r))
		d = appendBytes(d, fDescProcess, proc)
		p.descriptor(t, d)
		for _, c := range cs {
			th := appendInt(nil, fThreadPid, int64(r)+1)
			th = appendInt(th, fThreadTid, threadID(r, int(c)))
			th = appendString(th, fThreadName, "cpu "+strconv.Itoa(int(c)))
			d := appendUint(nil, fDescUUID, threadUUID(r, int(c)))
			d = appendUint(d, fDescParent, processUUID(r))
			d = appendBytes(d, fDescThread, th)
			p.descriptor(t, d)
		}
	}
}

func (p *protoSink) slice(t *Writer, op int32, cpu uint8, start, end int64) {
	p.slices = append(p.slices, pslice{op, cpu, start, end})
	p.at[op] = int32(len(p.slices))
}

func (p *protoSink) flow(t *Writer, id uint64, send, recv int32, recvCPU uint8, sent, matched int64) {
	s, r := p.at[send], p.at[recv]
	if s == 0 || r == 0 { // a slice cut by the window
		return
	}
	p.flows = append(p.flows, pflow{s - 1, id, false}, pflow{r - 1, id, true})
}

func (p *protoSink) counterTrack(t *Writer, track int, name string) {
	d := appendUint(nil, fDescUUID, counterUUID(track))
	switch r := t.owner[track]; {
	case r >= 0:
		d = appendUint(d, fDescParent, processUUID(r))
	case r == ownerNetwork:
		// Link counters hang off a "network" process after the ranks.
		net := t.g.NumRanks()
		if !p.network {
			p.network = true
			proc := appendInt(nil, fProcessPid, int64(net)+1)
			proc = appendString(proc, fProcessName, "network")
			pd := appendUint(nil, fDescUUID, processUUID(net))
			pd = appendBytes(pd, fDescProcess, proc)
			p.descriptor(t, pd)
		}
		d = appendUint(d, fDescParent, processUUID(net))
	}
	d = appendString(d, fDescName, name)
	d = appendBytes(d, fDescCounter, nil)
	p.descriptor(t, d)
}

func (p *protoSink) counter(t *Writer, track int, ts int64, value float64) {
	ev := appendUint(p.msg[:0], fEventType, typeCounter)
	ev = appendUint(ev, fEventTrack, counterUUID(track))
	ev = appendDouble(ev, fEventDouble, value)
	p.msg = ev
	body := appendUint(nil, fPacketTimestamp, uint64(ts))
	body = appendBytes(body, fPacketTrackEvent, ev)
	body = appendUint(body, fPacketSequenceID, sequenceID)
	p.packet(t, body)
}

func (p *protoSink) trailer(t *Writer) {
	g := t.g
	order := make([]int32, len(p.slices))
	for i := range order {
		order[i] = int32(i)
	}
	track := func(s pslice) uint64 { return threadUUID(int(t.rank[s.op]), int(s.cpu)) }
	sort.SliceStable(order, func(a, b int) bool {
		x, y := p.slices[order[a]], p.slices[order[b]]
		if tx, ty := track(x), track(y); tx != ty {
			return tx < ty
		}
		if x.start != y.start {
			return x.start < y.start
		}
		return x.end < y.end
	})
	sort.SliceStable(p.flows, func(a, b int) bool { return p.flows[a].slice < p.flows[b].slice })
	var body, ev []byte
	for _, i := range order {
		s := p.slices[i]
		tr := track(s)
		ev = appendUint(ev[:0], fEventType, typeSliceBegin)
		ev = appendUint(ev, fEventTrack, tr)
		ev = appendString(ev, fEventName, sliceName(g, s.op))
		ann := appendString(nil, fAnnotationName, "op")
		ann = appendString(ann, fAnnotationString, g.Label(s.op))
		ev = appendBytes(ev, fEventAnnotation, ann)
		if g.Kind[s.op] != graph.Calc {
			for _, kv := range [3]struct {
				k string
				v int64
			}{{"bytes", g.Size[s.op]}, {"peer", int64(g.Peer[s.op])}, {"tag", int64(g.Tag[s.op])}} {
				ann := appendString(nil, fAnnotationName, kv.k)
				ann = appendInt(ann, fAnnotationInt, kv.v)
				ev = appendBytes(ev, fEventAnnotation, ann)
			}
		}
		// flows of this slice (p.flows is sorted by slice; find its run)
		lo := sort.Search(len(p.flows), func(k int) bool { return p.flows[k].slice >= i })
		for fl := lo; fl < len(p.flows) && p.flows[fl].slice == i; fl++ {
			f := p.flows[fl]
			field := fEventFlow
			if f.end {
				field = fEventEndFlow
			}
			ev = appendFixed64(ev, field, f.id)
		}
		body = appendUint(body[:0], fPacketTimestamp, uint64(s.start))
		body = appendBytes(body, fPacketTrackEvent, ev)
		body = appendUint(body, fPacketSequenceID, sequenceID)
		p.packet(t, body)
		ev = appendUint(ev[:0], fEventType, typeSliceEnd)
		ev = appendUint(ev, fEventTrack, tr)
		body = appendUint(body[:0], fPacketTimestamp, uint64(s.end))
		body = appendBytes(body, fPacketTrackEvent, ev)
		body = appendUint(body, fPacketSequenceID, sequenceID)
		p.packet(t, body)
	}
}

// sliceName is op's slice name: its region, or its kind.
func sliceName(g *graph.Graph, op int32) string {
	if n := g.RegionName(op); n != "" {
		return n
	}
	return g.Kind[op].String()
}
