package timeline_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/sim/timeline"
	"github.com/capsim/capsim/traces/goal"
)

func TestTimelineJSON(t *testing.T) {
	g, err := goal.Parse(strings.NewReader(`num_ranks 2
rank 0 { l1: calc 1234
l2: send 8b to 1 tag 0
l2 requires l1
}
rank 1 { l1: recv 8b from 0 tag 0
}`), "t.goal")
	if err != nil {
		t.Fatal(err)
	}
	run := func() []byte {
		var buf bytes.Buffer
		tl := timeline.New(&buf, g)
		if _, err := sim.Run(g, network.DefaultLogGOPS(), sim.Options{Observer: tl}); err != nil {
			t.Fatal(err)
		}
		if err := tl.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	out := run()
	if !bytes.Equal(out, run()) {
		t.Error("timeline not deterministic")
	}
	var doc struct {
		TraceEvents []struct {
			Ph   string  `json:"ph"`
			Pid  int     `json:"pid"`
			Tid  int     `json:"tid"`
			Ts   float64 `json:"ts"`
			Dur  float64 `json:"dur"`
			Name string  `json:"name"`
			ID   int     `json:"id"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	var slices, flows, meta int
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "X":
			slices++
			if e.Name == "calc" && (e.Ts != 0 || e.Dur != 1.234 || e.Pid != 0 || e.Tid != 0) {
				t.Errorf("calc slice %+v", e)
			}
			if e.Name == "recv" && (e.Pid != 1 || e.Tid != 0 || e.Ts != 5.234 || e.Dur != 1.542) {
				t.Errorf("recv slice %+v", e)
			}
		case "s", "f":
			flows++
		case "M":
			meta++
		}
	}
	if slices != 3 || flows != 2 || meta != 6 { // per rank: process name, sort index, one CPU thread
		t.Errorf("%d slices, %d flow events, %d metadata events", slices, flows, meta)
	}
}
