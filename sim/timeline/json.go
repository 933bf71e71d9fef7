package timeline

import (
	"strconv"

	"github.com/capsim/capsim/traces/graph"
)

// jsonSink writes Chrome's trace-event JSON: process r is rank r, thread c
// of it the rank's CPU c; a rank's counters belong to its process,
// job-wide counters to a "job" process numbered after the ranks and link
// counters to a "network" process after it. Each event is one line.
type jsonSink struct {
	buf      []byte
	first    bool
	counters bool // the "job" process holding job-wide counters is named
	network  bool // the "network" process holding link counters is named
}

func (j *jsonSink) begin() []byte {
	b := j.buf[:0]
	if !j.first {
		b = append(b, ",\n"...)
	}
	j.first = false
	return b
}

func (j *jsonSink) end(t *Writer, b []byte) {
	j.buf = b
	t.write(b)
}

func (j *jsonSink) meta(t *Writer, kind string, pid, tid int, key, name string) {
	b := j.begin()
	b = append(b, `{"ph":"M","name":"`...)
	b = append(b, kind...)
	b = append(b, `","pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	if tid >= 0 {
		b = append(b, `,"tid":`...)
		b = strconv.AppendInt(b, int64(tid), 10)
	}
	b = append(b, `,"args":{"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	if key == "sort_index" {
		b = append(b, name...)
	} else {
		b = strconv.AppendQuote(b, name)
	}
	b = append(b, "}}"...)
	j.end(t, b)
}

func (j *jsonSink) header(t *Writer) {
	t.write([]byte(`{"displayTimeUnit":"ns","traceEvents":[`))
	for r, cs := range t.cpus() {
		if !t.shown(int32(r)) {
			continue
		}
		j.meta(t, "process_name", r, -1, "name", t.processName(r))
		j.meta(t, "process_sort_index", r, -1, "sort_index", strconv.Itoa(r))
		for _, c := range cs {
			j.meta(t, "thread_name", r, int(c), "name", "cpu "+strconv.Itoa(int(c)))
		}
	}
}

// appendMicros writes ns as microseconds with three decimals.
func appendMicros(b []byte, ns int64) []byte {
	if ns < 0 {
		b = append(b, '-')
		ns = -ns
	}
	b = strconv.AppendInt(b, ns/1000, 10)
	frac := ns % 1000
	b = append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
	return b
}

func (j *jsonSink) thread(b []byte, t *Writer, op int32, cpu uint8) []byte {
	b = append(b, `"pid":`...)
	b = strconv.AppendInt(b, int64(t.rank[op]), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(cpu), 10)
	return b
}

func (j *jsonSink) slice(t *Writer, op int32, cpu uint8, start, end int64) {
	g := t.g
	b := j.begin()
	b = append(b, `{"ph":"X",`...)
	b = j.thread(b, t, op, cpu)
	b = append(b, `,"ts":`...)
	b = appendMicros(b, start)
	b = append(b, `,"dur":`...)
	b = appendMicros(b, end-start)
	b = append(b, `,"name":`...)
	b = appendName(b, g, op)
	b = append(b, `,"args":{"op":`...)
	b = strconv.AppendQuote(b, g.Label(op))
	if g.Kind[op] != graph.Calc {
		b = append(b, `,"bytes":`...)
		b = strconv.AppendInt(b, g.Size[op], 10)
		b = append(b, `,"peer":`...)
		b = strconv.AppendInt(b, int64(g.Peer[op]), 10)
		b = append(b, `,"tag":`...)
		b = strconv.AppendInt(b, int64(g.Tag[op]), 10)
	}
	b = append(b, "}}"...)
	j.end(t, b)
}

// appendName appends op's slice name, quoted: its region, or its kind.
func appendName(b []byte, g *graph.Graph, op int32) []byte {
	if reg := g.Region[op]; reg != graph.NoRegion {
		return strconv.AppendQuote(b, g.Regions[reg])
	}
	b = append(b, '"')
	b = append(b, g.Kind[op].String()...)
	return append(b, '"')
}

func (j *jsonSink) flow(t *Writer, id uint64, send, recv int32, recvCPU uint8, sent, matched int64) {
	for i, ev := range [2]struct {
		ph  string
		op  int32
		cpu uint8
		ts  int64
	}{{"s", send, t.g.CPU[send], sent}, {"f", recv, recvCPU, matched}} {
		b := j.begin()
		b = append(b, `{"ph":"`...)
		b = append(b, ev.ph...)
		b = append(b, `","name":"message","cat":"msg",`...)
		b = j.thread(b, t, ev.op, ev.cpu)
		b = append(b, `,"ts":`...)
		b = appendMicros(b, ev.ts)
		b = append(b, `,"id":`...)
		b = strconv.AppendUint(b, id, 10)
		if i == 1 {
			b = append(b, `,"bp":"e"`...)
		}
		b = append(b, '}')
		j.end(t, b)
	}
}

// counterPid is the process that holds the counters of owner (a rank, or
// ownerJob, ownerNetwork): the rank, or the ranks' count for the job and
// one more for the network.
func counterPid(t *Writer, owner int) int {
	switch owner {
	case ownerJob:
		return t.g.NumRanks()
	case ownerNetwork:
		return t.g.NumRanks() + 1
	}
	return owner
}

func (j *jsonSink) counterTrack(t *Writer, track int, name string) {
	switch o := t.owner[track]; {
	case o == ownerJob && !j.counters:
		j.counters = true
		j.meta(t, "process_name", counterPid(t, o), -1, "name", "job")
		j.meta(t, "process_sort_index", counterPid(t, o), -1, "sort_index", "-1")
	case o == ownerNetwork && !j.network:
		j.network = true
		j.meta(t, "process_name", counterPid(t, o), -1, "name", "network")
		j.meta(t, "process_sort_index", counterPid(t, o), -1, "sort_index", "-1")
	}
}

func (j *jsonSink) counter(t *Writer, track int, ts int64, value float64) {
	name := t.names[track]
	pid := counterPid(t, t.owner[track])
	b := j.begin()
	b = append(b, `{"ph":"C","pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"name":`...)
	b = strconv.AppendQuote(b, name)
	b = append(b, `,"ts":`...)
	b = appendMicros(b, ts)
	b = append(b, `,"args":{"value":`...)
	b = strconv.AppendFloat(b, value, 'g', -1, 64)
	b = append(b, "}}"...)
	j.end(t, b)
}

func (j *jsonSink) trailer(t *Writer) { t.write([]byte("\n]}\n")) }
