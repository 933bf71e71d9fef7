package timeline_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/sim/timeline"
	"github.com/capsim/capsim/traces/goal"
	"github.com/capsim/capsim/traces/graph"
)

func TestParseRanks(t *testing.T) {
	for _, c := range []struct {
		spec string
		want []int // selected ranks; nil for all
		err  string
	}{
		{"", nil, ""},
		{"0-2,5", []int{0, 1, 2, 5}, ""},
		{" 3 , 1-1 ", []int{1, 3}, ""},
		{"7", []int{7}, ""},
		{"8", nil, "trace has 8 ranks"},
		{"2-1", nil, "not a range"},
		{"a", nil, "not a rank"},
		{"-1", nil, "not a rank"},
	} {
		sel, err := timeline.ParseRanks(c.spec, 8)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.spec, err)
			continue
		}
		var got []int
		for r, ok := range sel {
			if ok {
				got = append(got, r)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%q: ranks %v, want %v", c.spec, got, c.want)
		}
	}
}

func TestParseWindow(t *testing.T) {
	for _, c := range []struct {
		spec     string
		from, to int64
		err      bool
	}{
		{"2ms:3.5ms", 2e6, 3.5e6, false},
		{"1.5s:", 1.5e9, 0, false},
		{":250us", 0, 250e3, false},
		{"100:200", 100, 200, false},
		{"10µs:20ns", 0, 0, true},
		{"3ms", 0, 0, true},
		{"x:1", 0, 0, true},
		{"-1:5", 0, 0, true},
		{"nan:", 0, 0, true},
	} {
		from, to, err := timeline.ParseWindow(c.spec)
		if (err != nil) != c.err || from != c.from || to != c.to {
			t.Errorf("%q: %d %d %v, want %d %d error %v", c.spec, from, to, err, c.from, c.to, c.err)
		}
	}
	if timeline.FormatFor("x.perfetto-trace") != timeline.Perfetto || timeline.FormatFor("x.json") != timeline.JSON {
		t.Error("FormatFor")
	}
}

type jsonEvent struct {
	Ph   string         `json:"ph"`
	Name string         `json:"name"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur"`
	ID   int            `json:"id"`
	Args map[string]any `json:"args"`
}

func replayJSON(t *testing.T, g *graph.Graph, net network.LogGOPS, opt timeline.Options) []jsonEvent {
	t.Helper()
	var buf bytes.Buffer
	tl, err := timeline.NewWith(&buf, g, opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Run(g, net, sim.Options{Observer: tl}); err != nil {
		t.Fatal(err)
	}
	if err := tl.Close(); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []jsonEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return doc.TraceEvents
}

// differential returns the multi-CPU GOAL schedules of sim's differential
// test set (random schedules that use several CPUs and NICs per host).
func differential(t *testing.T) map[string]*graph.Graph {
	t.Helper()
	files, err := filepath.Glob("../testdata/differential/*.goal")
	if err != nil || len(files) == 0 {
		t.Fatalf("no differential schedules: %v", err)
	}
	out := map[string]*graph.Graph{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(src, []byte(" cpu ")) {
			continue
		}
		g, err := goal.Parse(bytes.NewReader(src), f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sim.Run(g, network.DefaultLogGOPS(), sim.Options{}); err != nil {
			continue // some schedules of the set deadlock on purpose
		}
		out[filepath.Base(f)] = g
	}
	if len(out) < 10 {
		t.Fatalf("only %d multi-CPU schedules", len(out))
	}
	return out
}

// TestSlicesNest checks that the slices of every track of a JSON timeline
// are disjoint, on schedules whose hosts use several CPUs (before CPUs got
// their own tracks, 1 in 3 of these overlapped on the rank's one track).
func TestSlicesNest(t *testing.T) {
	for name, g := range differential(t) {
		evs := replayJSON(t, g, network.DefaultLogGOPS(), timeline.Options{RanksPerNode: 4})
		type key struct{ pid, tid int }
		tracks := map[key][][2]float64{}
		names := map[int]string{}
		for _, e := range evs {
			switch {
			case e.Ph == "X":
				tracks[key{e.Pid, e.Tid}] = append(tracks[key{e.Pid, e.Tid}], [2]float64{e.Ts, e.Ts + e.Dur})
			case e.Ph == "M" && e.Name == "process_name":
				names[e.Pid] = e.Args["name"].(string)
			}
		}
		for k, s := range tracks {
			sort.Slice(s, func(i, j int) bool { return s[i][0] < s[j][0] })
			for i := 1; i < len(s); i++ {
				if s[i][0] < s[i-1][1]-1e-9 {
					t.Errorf("%s: rank %d cpu %d: slice %v overlaps %v", name, k.pid, k.tid, s[i], s[i-1])
				}
			}
			if want := fmt.Sprintf("rank %d (node %d)", k.pid, k.pid/4); names[k.pid] != want {
				t.Errorf("%s: process %d named %q, want %q", name, k.pid, names[k.pid], want)
			}
		}
	}
}

// TestRanksAndWindow checks rank filtering and window cutting against the
// full timeline of the same replay.
func TestRanksAndWindow(t *testing.T) {
	g := differential(t)["big_032.goal"]
	if g == nil {
		t.Skip("big_032.goal not in the differential set")
	}
	net := network.DefaultLogGOPS()
	full := replayJSON(t, g, net, timeline.Options{})
	sel, err := timeline.ParseRanks("0-9,30", g.NumRanks())
	if err != nil {
		t.Fatal(err)
	}
	from, to, err := timeline.ParseWindow("1us:1500us")
	if err != nil {
		t.Fatal(err)
	}
	cut := replayJSON(t, g, net, timeline.Options{Ranks: sel, From: from, To: to})
	// Expected: every full slice of a selected rank that intersects the
	// window, cut to it.
	type sl struct {
		pid, tid int
		a, b     float64
		op       string
	}
	var want, got []sl
	for _, e := range full {
		if e.Ph != "X" || !sel[e.Pid] {
			continue
		}
		a, b := e.Ts, e.Ts+e.Dur
		if b < 1 || (b == 1 && a < b) || a > 1500 {
			continue
		}
		want = append(want, sl{e.Pid, e.Tid, math.Max(a, 1), math.Min(b, 1500), e.Args["op"].(string)})
	}
	flows := 0
	for _, e := range cut {
		switch e.Ph {
		case "X":
			got = append(got, sl{e.Pid, e.Tid, e.Ts, e.Ts + e.Dur, e.Args["op"].(string)})
		case "s", "f":
			flows++
			if !sel[e.Pid] || e.Ts < 1 || e.Ts > 1500 {
				t.Errorf("flow event %+v outside the selection", e)
			}
		case "M":
			if e.Name == "process_name" && !sel[e.Pid] {
				t.Errorf("process %d named but not selected", e.Pid)
			}
		}
	}
	less := func(s []sl) func(i, j int) bool {
		return func(i, j int) bool {
			if s[i].pid != s[j].pid {
				return s[i].pid < s[j].pid
			}
			if s[i].a != s[j].a {
				return s[i].a < s[j].a
			}
			return s[i].op < s[j].op
		}
	}
	sort.Slice(want, less(want))
	sort.Slice(got, less(got))
	if len(want) == 0 || len(got) != len(want) {
		t.Fatalf("%d slices, want %d (non-zero)", len(got), len(want))
	}
	for i := range want {
		if math.Abs(got[i].a-want[i].a) > 1e-9 || math.Abs(got[i].b-want[i].b) > 1e-9 || got[i].op != want[i].op || got[i].tid != want[i].tid {
			t.Errorf("slice %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if flows == 0 || flows%2 != 0 {
		t.Errorf("%d flow events", flows)
	}
}

// protoField is one decoded protobuf field.
type protoField struct {
	num  int
	wire int
	v    uint64 // varint, fixed64
	b    []byte // length-delimited
}

func decodeProto(t *testing.T, b []byte) []protoField {
	t.Helper()
	var out []protoField
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			t.Fatalf("bad key varint")
		}
		b = b[n:]
		f := protoField{num: int(key >> 3), wire: int(key & 7)}
		switch f.wire {
		case 0:
			f.v, n = binary.Uvarint(b)
			if n <= 0 {
				t.Fatalf("bad varint in field %d", f.num)
			}
			b = b[n:]
		case 1:
			f.v = binary.LittleEndian.Uint64(b)
			b = b[8:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				t.Fatalf("bad length in field %d", f.num)
			}
			f.b = b[n : n+int(l)]
			b = b[n+int(l):]
		default:
			t.Fatalf("wire type %d", f.wire)
		}
		out = append(out, f)
	}
	return out
}

func field(fs []protoField, num int) (protoField, bool) {
	for _, f := range fs {
		if f.num == num {
			return f, true
		}
	}
	return protoField{}, false
}

// perfettoSummary is what TestPerfetto checks of a Perfetto trace: the
// tracks declared (uuid → name), the slices per track, the flows begun
// and ended (id → count), and the counter samples.
type perfettoSummary struct {
	declared          map[uint64]string
	slices            map[uint64]int
	flowsOut, flowsIn map[uint64]int
	counters          int
}

// decodePerfetto decodes a Perfetto protobuf trace, failing t where a
// slice begins inside another or before the last one ended, or an event
// is on an undeclared track.
func decodePerfetto(t *testing.T, data []byte) perfettoSummary {
	t.Helper()
	ps := perfettoSummary{declared: map[uint64]string{}, slices: map[uint64]int{}, flowsOut: map[uint64]int{}, flowsIn: map[uint64]int{}}
	declared := ps.declared
	open := map[uint64]int{}
	last := map[uint64]uint64{}
	for _, p := range decodeProto(t, data) {
		if p.num != 1 || p.wire != 2 {
			t.Fatalf("top-level field %d, want packets (1)", p.num)
		}
		pk := decodeProto(t, p.b)
		if d, ok := field(pk, 60); ok {
			uuid, name := trackDescriptor(t, d.b)
			declared[uuid] = name
			continue
		}
		ev, ok := field(pk, 11)
		if !ok {
			t.Fatal("packet with neither a track descriptor nor a track event")
		}
		ts, _ := field(pk, 8)
		fs := decodeProto(t, ev.b)
		typ, _ := field(fs, 9)
		tr, _ := field(fs, 11)
		if _, ok := declared[tr.v]; !ok {
			t.Fatalf("event on undeclared track %d", tr.v)
		}
		switch typ.v {
		case 1:
			if open[tr.v] != 0 {
				t.Fatalf("track %s: slice begins at %d inside another", declared[tr.v], ts.v)
			}
			if ts.v < last[tr.v] {
				t.Fatalf("track %s: slice begins at %d before the last ended (%d)", declared[tr.v], ts.v, last[tr.v])
			}
			open[tr.v]++
			ps.slices[tr.v]++
			for _, f := range fs {
				switch f.num {
				case 47:
					ps.flowsOut[f.v]++
				case 48:
					ps.flowsIn[f.v]++
				}
			}
		case 2:
			open[tr.v]--
			last[tr.v] = ts.v
		case 4:
			ps.counters++
		default:
			t.Fatalf("event type %d", typ.v)
		}
	}
	return ps
}

// trackDescriptor returns the uuid of a track descriptor and its name:
// the process's, the thread's or its own.
func trackDescriptor(t *testing.T, b []byte) (uint64, string) {
	fs := decodeProto(t, b)
	u, _ := field(fs, 1)
	name := "?"
	if pr, ok := field(fs, 3); ok {
		n, _ := field(decodeProto(t, pr.b), 6)
		name = string(n.b)
	} else if th, ok := field(fs, 4); ok {
		n, _ := field(decodeProto(t, th.b), 5)
		name = string(n.b)
	} else if n, ok := field(fs, 2); ok {
		name = string(n.b)
	}
	return u.v, name
}

// TestPerfetto decodes a Perfetto protobuf timeline on the wire and checks
// it against the JSON timeline of the same replay: the same slices per
// track, begin/end nested in time order, every flow begun and ended once,
// tracks declared before use, processes named.
func TestPerfetto(t *testing.T) {
	g := differential(t)["big_032.goal"]
	if g == nil {
		t.Skip("big_032.goal not in the differential set")
	}
	net := network.DefaultLogGOPS()
	var buf bytes.Buffer
	tl, err := timeline.NewWith(&buf, g, timeline.Options{Format: timeline.Perfetto, RanksPerNode: 8})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Run(g, net, sim.Options{Observer: tl}); err != nil {
		t.Fatal(err)
	}
	tl.Counter("power job (W)", 0, 100)
	tl.Counter("power job (W)", 5000, 120.5)
	if err := tl.Close(); err != nil {
		t.Fatal(err)
	}
	ps := decodePerfetto(t, buf.Bytes())
	if ps.counters != 2 {
		t.Errorf("%d counter samples, want 2", ps.counters)
	}
	full := replayJSON(t, g, net, timeline.Options{})
	want := map[[2]int]int{}
	jflows := 0
	for _, e := range full {
		switch e.Ph {
		case "X":
			want[[2]int{e.Pid, e.Tid}]++
		case "s":
			jflows++
		}
	}
	got := map[[2]int]int{}
	for u, n := range ps.slices {
		got[[2]int{int(u>>9) - 1, int(u&511) - 1}] = n
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("slices per track %v, want %v", got, want)
	}
	if len(ps.flowsOut) != jflows || len(ps.flowsIn) != jflows {
		t.Errorf("%d flows begun, %d ended, want %d", len(ps.flowsOut), len(ps.flowsIn), jflows)
	}
	for id, n := range ps.flowsOut {
		if n != 1 || ps.flowsIn[id] != 1 {
			t.Errorf("flow %d begun %d and ended %d times", id, n, ps.flowsIn[id])
		}
	}
	if ps.declared[1<<9] != "rank 0 (node 0)" || ps.declared[9<<9] != "rank 8 (node 1)" {
		t.Errorf("process names %q, %q", ps.declared[1<<9], ps.declared[9<<9])
	}
}
