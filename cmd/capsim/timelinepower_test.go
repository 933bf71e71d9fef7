package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// counterSample is one sample of a counter in a JSON timeline.
type counterSample struct {
	ts float64 // µs
	v  float64
}

// timelineCounters reads the counters of a JSON timeline by name.
func timelineCounters(t *testing.T, path string) map[string][]counterSample {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Ph   string         `json:"ph"`
			Name string         `json:"name"`
			Ts   float64        `json:"ts"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string][]counterSample{}
	for _, e := range doc.TraceEvents {
		if e.Ph == "C" {
			v, ok := e.Args["value"].(float64)
			if !ok {
				t.Fatalf("%s: counter %q at %g µs without a value", path, e.Name, e.Ts)
			}
			out[e.Name] = append(out[e.Name], counterSample{e.Ts, v})
		}
	}
	return out
}

// at returns the value of counter samples s in force at ts.
func at(s []counterSample, ts float64) float64 {
	i := sort.Search(len(s), func(i int) bool { return s[i].ts > ts })
	if i == 0 {
		return 0
	}
	return s[i-1].v
}

// TestTimelinePowerCounters replays a 16-rank stencil with per-core power
// (base 40 W, cores idle at 4 W and computing at 15 W: the job draws
// between 40 + 16·4 = 104 and 40 + 16·15 = 280 W, a node of 8 ranks
// between 52 and 140 W with half the base) and checks the power counters
// of its timeline: per rank, per node, for the job and for its cap. Under
// a 280 W cap the job counter never exceeds the cap; under 150 W it does,
// as over_cap_ns says.
func TestTimelinePowerCounters(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "stencil.arrow")
	if code, _, stderr := capsim(t, "gen", "stencil", "--dims", "4x4", "--iterations", "5", "--imbalance", "charged-field", "-o", trace); code != 0 {
		t.Fatal(stderr)
	}
	models := filepath.Join("..", "..", "examples", "models", "stencil.json")
	replay := func(capW, tl string) (makespan, overCap int64) {
		t.Helper()
		code, out, stderr := capsim(t, "replay", trace, "--models", models, "--machine-power", "base=40,idle=4,active=15,wait=idle",
			"--ranks-per-node", "8", "--cap", capW, "--timeline", tl, "--json")
		if code != 0 {
			t.Fatal(stderr)
		}
		var r struct {
			MakespanNs int64 `json:"makespan_ns"`
			Models     struct {
				Energy struct {
					CapW      float64 `json:"cap_w"`
					OverCapNs *int64  `json:"over_cap_ns"`
				} `json:"energy"`
			} `json:"models"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.Models.Energy.OverCapNs == nil {
			t.Fatalf("cap %s W: no over_cap_ns in %s", capW, out)
		}
		return r.MakespanNs, *r.Models.Energy.OverCapNs
	}

	tl := filepath.Join(dir, "tl.json")
	makespan, over := replay("280", tl)
	c := timelineCounters(t, tl)
	for _, name := range []string{"power rank 0 (W)", "power rank 15 (W)", "power node 0 (W)", "power node 1 (W)", "power job (W)", "power cap (W)"} {
		if len(c[name]) == 0 {
			t.Errorf("no %q counter (counters: %d names)", name, len(c))
		}
	}
	if len(c["power node 2 (W)"]) != 0 {
		t.Error("a third node's counter for 16 ranks of 8 per node")
	}
	if over != 0 {
		t.Errorf("280 W cap: over it for %d ns", over)
	}
	end := float64(makespan) / 1e3
	if cp := c["power cap (W)"]; len(cp) != 2 || cp[0] != (counterSample{0, 280}) || cp[1] != (counterSample{end, 280}) {
		t.Errorf("cap counter %v, want 280 W from 0 to %g µs", cp, end)
	}
	job := c["power job (W)"]
	for _, s := range job {
		if s.v > 280 || s.v < 104 {
			t.Errorf("job power %g W at %g µs, outside [104, 280]", s.v, s.ts)
		}
		// The nodes' counters add up to the job's.
		if n := at(c["power node 0 (W)"], s.ts) + at(c["power node 1 (W)"], s.ts); n != s.v {
			t.Errorf("at %g µs the nodes draw %g W, the job %g W", s.ts, n, s.v)
		}
	}
	for _, name := range []string{"power node 0 (W)", "power node 1 (W)"} {
		for _, s := range c[name] {
			if s.v > 140 || s.v < 52 {
				t.Errorf("%s: %g W at %g µs, outside [52, 140]", name, s.v, s.ts)
			}
		}
	}

	// Under 150 W the computing stencil is over the cap.
	tl150 := filepath.Join(dir, "tl150.json")
	_, over = replay("150", tl150)
	var above bool
	for _, s := range timelineCounters(t, tl150)["power job (W)"] {
		above = above || s.v > 150
	}
	if over <= 0 || !above {
		t.Errorf("150 W cap: over it for %d ns, a job sample above it: %v", over, above)
	}

	// The Perfetto trace names the same counter tracks.
	pf := filepath.Join(dir, "tl.perfetto-trace")
	replay("280", pf)
	data, err := os.ReadFile(pf)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"power rank 15 (W)", "power node 1 (W)", "power job (W)", "power cap (W)"} {
		if !bytes.Contains(data, []byte(name)) {
			t.Errorf("the Perfetto trace has no %q track", name)
		}
	}

	// A cap needs a power model (or a policy).
	if code, _, stderr := capsim(t, "replay", trace, "--cap", "280"); code != 2 || !strings.Contains(stderr, "--cap without --policy needs") {
		t.Errorf("--cap without a power model: exit %d, %s", code, stderr)
	}
}
