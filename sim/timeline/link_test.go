package timeline_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/network/topo"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/sim/timeline"
	"github.com/capsim/capsim/traces/graph"
)

// linkSample is one sample of a link counter.
type linkSample struct {
	ts    int64
	value float64
}

// linkReplay replays a 16-rank pairwise all-to-all of 64 KiB on a 4-ary
// 2-tree with 2:1 oversubscription under the flow model, with a timeline
// in format f, and returns the timeline and the replay's result.
func linkReplay(t *testing.T, f timeline.Format, window [2]int64) ([]byte, *sim.Result) {
	t.Helper()
	const p = 16
	b := graph.NewBuilder(p)
	for r := range p {
		prev := int32(-1)
		for k := 1; k < p; k++ {
			s := b.Add(r, graph.SendOp(64<<10, int32((r+k)%p), int32(k)))
			if prev >= 0 {
				b.Dep(r, s, prev, graph.Requires)
			}
			prev = b.Add(r, graph.RecvOp(64<<10, int32((r-k+p)%p), int32(k)))
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	top, err := topo.Parse("fattree:k=4,n=2,oversub=2")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tl, err := timeline.NewWith(&buf, g, timeline.Options{Format: f, From: window[0], To: window[1]})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(g, network.DefaultLogGOPS(), sim.Options{Observer: tl, Flow: &sim.FlowNetwork{Topology: top}})
	if err != nil {
		t.Fatal(err)
	}
	if err := tl.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), res
}

// linkCountersJSON returns the link counters of a JSON timeline by link,
// checking they sit in the "network" process.
func linkCountersJSON(t *testing.T, b []byte, ranks int) map[int32][]linkSample {
	t.Helper()
	var doc struct {
		TraceEvents []jsonEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	out := map[int32][]linkSample{}
	named := false
	for _, e := range doc.TraceEvents {
		if e.Ph == "M" && e.Name == "process_name" && e.Pid == ranks+1 {
			named = e.Args["name"] == "network"
		}
		if e.Ph != "C" || !strings.HasPrefix(e.Name, "link ") {
			continue
		}
		id, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(e.Name, "link "), " flows"))
		if err != nil || !strings.HasSuffix(e.Name, " flows") || e.Pid != ranks+1 {
			t.Fatalf("link counter %q in process %d", e.Name, e.Pid)
		}
		v, ok := e.Args["value"].(float64)
		if !ok {
			t.Fatalf("link counter %q: value %v", e.Name, e.Args["value"])
		}
		out[int32(id)] = append(out[int32(id)], linkSample{int64(math.Round(e.Ts * 1000)), v})
	}
	if !named {
		t.Error(`no "network" process named for the link counters`)
	}
	return out
}

// linkCountersProto returns the link counters of a Perfetto timeline by
// link, checking they hang off the "network" process.
func linkCountersProto(t *testing.T, b []byte) map[int32][]linkSample {
	t.Helper()
	tracks := map[uint64]int32{} // counter track uuid → link
	var network uint64
	out := map[int32][]linkSample{}
	for _, p := range decodeProto(t, b) {
		pk := decodeProto(t, p.b)
		if d, ok := field(pk, 60); ok {
			fs := decodeProto(t, d.b)
			u, _ := field(fs, 1)
			if pr, ok := field(fs, 3); ok {
				if n, _ := field(decodeProto(t, pr.b), 6); string(n.b) == "network" {
					network = u.v
				}
			}
			if _, ok := field(fs, 8); !ok {
				continue
			}
			n, _ := field(fs, 2)
			name := string(n.b)
			if !strings.HasPrefix(name, "link ") {
				continue
			}
			id, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "link "), " flows"))
			if par, _ := field(fs, 5); err != nil || network == 0 || par.v != network {
				t.Fatalf("counter track %q (parent %d, network process %d)", name, par.v, network)
			}
			tracks[u.v] = int32(id)
			continue
		}
		ev, _ := field(pk, 11)
		fs := decodeProto(t, ev.b)
		if typ, _ := field(fs, 9); typ.v != 4 {
			continue
		}
		tr, _ := field(fs, 11)
		id, ok := tracks[tr.v]
		if !ok {
			continue // not a link counter
		}
		ts, _ := field(pk, 8)
		v, ok := field(fs, 44)
		if !ok || v.wire != 1 {
			t.Fatalf("link %d: counter event without a double value", id)
		}
		out[id] = append(out[id], linkSample{int64(ts.v), math.Float64frombits(v.v)})
	}
	return out
}

// TestLinkCounters checks the link counters of a flow-model replay in
// both formats against the replay's per-link statistics (computed by the
// flow model, not from the counters): a track for exactly the links that
// carried flows, whole non-negative values in time order, the peak equal
// to the link's peak concurrent flows, back to 0 at the end, and the time
// spent above 0 equal to the link's busy time. The Perfetto samples are
// the JSON ones.
func TestLinkCounters(t *testing.T) {
	js, res := linkReplay(t, timeline.JSON, [2]int64{})
	pb, _ := linkReplay(t, timeline.Perfetto, [2]int64{})
	byJSON := linkCountersJSON(t, js, 16)
	byProto := linkCountersProto(t, pb)
	busyLinks := 0
	for id, st := range res.Links {
		s := byJSON[int32(id)]
		if st.Flows == 0 {
			if len(s) > 0 {
				t.Errorf("link %d carried no flow but has %d samples", id, len(s))
			}
			continue
		}
		busyLinks++
		if len(s) == 0 {
			t.Errorf("link %d carried %d flows but has no counter", id, st.Flows)
			continue
		}
		var peak, busy int64
		for i, x := range s {
			if x.value < 0 || x.value != math.Trunc(x.value) || (i > 0 && x.ts < s[i-1].ts) {
				t.Fatalf("link %d: sample %d %+v after %+v", id, i, x, s[max(i-1, 0)])
			}
			peak = max(peak, int64(x.value))
			// The last sample at a time is the one in force.
			if i+1 < len(s) && x.value > 0 {
				busy += s[i+1].ts - x.ts
			}
		}
		if last := s[len(s)-1].value; peak != int64(st.Peak) || last != 0 || busy != st.BusyNs {
			t.Errorf("link %d: counter peak %d, last %g, busy %d ns; stats peak %d, busy %d ns", id, peak, last, busy, st.Peak, st.BusyNs)
		}
	}
	if busyLinks == 0 || len(byJSON) != busyLinks {
		t.Errorf("%d link tracks for %d links that carried flows", len(byJSON), busyLinks)
	}
	if fmt.Sprint(byProto) != fmt.Sprint(byJSON) {
		t.Errorf("Perfetto link counters differ from the JSON ones:\n%v\n%v", byProto, byJSON)
	}
	// A window keeps the value in force at its start and nothing after
	// its end.
	from, to := res.Makespan/3, 2*res.Makespan/3
	js, _ = linkReplay(t, timeline.JSON, [2]int64{from, to})
	windowed := linkCountersJSON(t, js, 16)
	if len(windowed) == 0 {
		t.Error("no link counters in the window")
	}
	for id, s := range windowed {
		full := byJSON[id]
		for _, x := range s {
			if x.ts < from || x.ts > to {
				t.Fatalf("link %d: sample at %d ns outside the window %d:%d", id, x.ts, from, to)
			}
		}
		var want float64 // in force at from in the full timeline
		for _, x := range full {
			if x.ts <= from {
				want = x.value
			}
		}
		if s[0].ts == from && s[0].value != want {
			t.Errorf("link %d: %g flows at the window's start, want %g", id, s[0].value, want)
		}
	}
}
