package timeline_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/capsim/capsim/sim/timeline"
	"github.com/capsim/capsim/traces/graph"
)

func TestCounter(t *testing.T) {
	b := graph.NewBuilder(1)
	b.Add(0, graph.CalcOp(5))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tl := timeline.New(&buf, g)
	tl.Counter(`power "rank 0" (W)`, 1500, 42.5)
	tl.Counter("skipped", 0, math.NaN())
	if err := tl.Close(); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, buf.String())
	}
	var n int
	for _, e := range doc.TraceEvents {
		if e["ph"] != "C" {
			continue
		}
		n++
		args := e["args"].(map[string]any)
		if e["name"] != `power "rank 0" (W)` || e["ts"] != 1.5 || args["value"] != 42.5 {
			t.Errorf("counter event %v", e)
		}
	}
	if n != 1 {
		t.Errorf("%d counter events, want 1", n)
	}
}

// TestCounterWindow checks rank counters and the window: a sample before
// the window is shown at its start, one after it is dropped, and a hidden
// rank's counter is left out.
func TestCounterWindow(t *testing.T) {
	b := graph.NewBuilder(2)
	b.Add(0, graph.CalcOp(5000))
	b.Add(1, graph.CalcOp(5000))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tl, err := timeline.NewWith(&buf, g, timeline.Options{Ranks: []bool{true, false}, From: 1000, To: 3000})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		rank int
		ts   int64
		v    float64
	}{{0, 0, 10}, {0, 2000, 20}, {0, 4000, 30}, {1, 0, 5}, {-1, 500, 7}} {
		tl.CounterOn(s.rank, "c"+strconv.Itoa(s.rank), s.ts, s.v)
	}
	if err := tl.Close(); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []jsonEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range doc.TraceEvents {
		if e.Ph == "C" {
			got = append(got, fmt.Sprintf("%s pid %d at %g: %v", e.Name, e.Pid, e.Ts, e.Args["value"]))
		}
	}
	want := []string{"c0 pid 0 at 1: 10", "c0 pid 0 at 2: 20", "c-1 pid 2 at 1: 7"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("counters\n%v\nwant\n%v", got, want)
	}
}
