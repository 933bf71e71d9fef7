package timeline_test

import (
	"bytes"
	"encoding/json"
	"math"
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
