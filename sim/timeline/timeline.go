// Package timeline writes a replay as a Chrome trace-event JSON file, the
// format Perfetto (ui.perfetto.dev) and chrome://tracing open: one track
// per rank, one slice per operation's CPU time, and a flow arrow from each
// send to the receive that matched it. It is a sim.Observer.
package timeline

import (
	"bufio"
	"io"
	"strconv"

	"github.com/capsim/capsim/traces/graph"
)

// Writer streams trace events as the engine reports them. Create it with
// New, pass it as sim.Options.Observer, and Close it after the replay.
type Writer struct {
	w     *bufio.Writer
	g     *graph.Graph
	rank  []int32 // rank of each op
	buf   []byte
	first bool
	flows int64
	err   error
}

// New returns a Writer producing a timeline of g on w.
func New(w io.Writer, g *graph.Graph) *Writer {
	t := &Writer{w: bufio.NewWriterSize(w, 1<<16), g: g, first: true, rank: g.OpRanks()}
	t.write([]byte(`{"displayTimeUnit":"ns","traceEvents":[`))
	for r := 0; r < g.NumRanks(); r++ {
		b := t.begin()
		b = append(b, `{"ph":"M","name":"thread_name","pid":0,"tid":`...)
		b = strconv.AppendInt(b, int64(r), 10)
		b = append(b, `,"args":{"name":"rank `...)
		b = strconv.AppendInt(b, int64(r), 10)
		b = append(b, `"}}`...)
		t.end(b)
	}
	return t
}

func (t *Writer) write(b []byte) {
	if t.err == nil {
		_, t.err = t.w.Write(b)
	}
}

func (t *Writer) begin() []byte {
	b := t.buf[:0]
	if !t.first {
		b = append(b, ",\n"...)
	}
	t.first = false
	return b
}

func (t *Writer) end(b []byte) {
	t.buf = b
	t.write(b)
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

// Busy records a slice for operation op on its rank's track.
func (t *Writer) Busy(op int32, start, end int64) {
	g := t.g
	b := t.begin()
	b = append(b, `{"ph":"X","pid":0,"tid":`...)
	b = strconv.AppendInt(b, int64(t.rank[op]), 10)
	b = append(b, `,"ts":`...)
	b = appendMicros(b, start)
	b = append(b, `,"dur":`...)
	b = appendMicros(b, end-start)
	b = append(b, `,"name":"`...)
	if reg := g.Region[op]; reg != graph.NoRegion {
		b = strconv.AppendQuote(b[:len(b)-1], g.Regions[reg])
	} else {
		b = append(b, g.Kind[op].String()...)
		b = append(b, '"')
	}
	b = append(b, `,"cat":"`...)
	b = append(b, g.Kind[op].String()...)
	b = append(b, `","args":{"op":`...)
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
	t.end(b)
}

// Message records a flow arrow from the send's slice to the receive's.
func (t *Writer) Message(send, recv int32, sent, matched int64) {
	t.flows++
	for i, ev := range [2]struct {
		ph   string
		rank int32
		ts   int64
	}{{"s", t.rank[send], sent}, {"f", t.rank[recv], matched}} {
		b := t.begin()
		b = append(b, `{"ph":"`...)
		b = append(b, ev.ph...)
		b = append(b, `","name":"message","cat":"msg","pid":0,"tid":`...)
		b = strconv.AppendInt(b, int64(ev.rank), 10)
		b = append(b, `,"ts":`...)
		b = appendMicros(b, ev.ts)
		b = append(b, `,"id":`...)
		b = strconv.AppendInt(b, t.flows, 10)
		if i == 1 {
			b = append(b, `,"bp":"e"`...)
		}
		b = append(b, '}')
		t.end(b)
	}
}

// Close finishes the JSON document and flushes it. It returns the first
// write error.
func (t *Writer) Close() error {
	t.write([]byte("\n]}\n"))
	if t.err == nil {
		t.err = t.w.Flush()
	}
	return t.err
}
