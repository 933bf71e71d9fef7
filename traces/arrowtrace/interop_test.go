package arrowtrace_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/gen"
)

// nodeInterop returns the path of the arrow-js interop script, skipping the
// test when node or the npm packages are missing (failing under CI, which
// installs them with `npm ci`).
func nodeInterop(t *testing.T) string {
	t.Helper()
	script, _ := filepath.Abs(filepath.Join("testdata", "js", "interop.mjs"))
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not installed"
	} else if _, err := os.Stat(filepath.Join("testdata", "js", "node_modules", "apache-arrow")); err != nil {
		missing = "apache-arrow is not installed (run scripts/deps.sh or npm ci in traces/arrowtrace/testdata/js)"
	}
	if missing != "" {
		if os.Getenv("CI") != "" {
			t.Fatal(missing)
		}
		t.Skip(missing)
	}
	return script
}

func TestArrowJSReadsCapsimGraph(t *testing.T) {
	script := nodeInterop(t)
	g, err := gen.GeneratePattern(gen.Dissemination, gen.PatternOptions{Ranks: 8, Bytes: 64})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "d8.arrow")
	if err := arrowtrace.WriteGraph(p, g); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("node", script, "read", p).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got struct {
		Format, Version string
		Ranks, Rows     int
		SumSize         string `json:"sum_size"`
		Sends, Requires int
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// 8 ranks × 3 rounds of a send and a receive of 64 bytes; every send but
	// the first requires the previous receive.
	if got.Format != "execution-graph" || got.Version != "1" || got.Ranks != 8 || got.Rows != 48 ||
		got.SumSize != "3072" || got.Sends != 24 || got.Requires != 16 {
		t.Errorf("arrow-js saw %+v", got)
	}
}

func TestCapsimReplaysArrowJSGraph(t *testing.T) {
	script := nodeInterop(t)
	p := filepath.Join(t.TempDir(), "js4.arrow")
	if out, err := exec.Command("node", script, "write", p).CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	g, err := arrowtrace.ReadGraph(p)
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for id := int32(0); id < int32(g.NumOps()); id++ {
		ops = append(ops, g.Describe(id)+" "+g.RegionName(id))
	}
	want := "rank 0 l1: send 64b to 1 tag 7 |rank 0 l2: recv 64b from 3 tag 7 |rank 0 l3: calc 1000 js.work|" +
		"rank 1 l1: recv 64b from 0 tag 7 |rank 1 l2: calc 1000 js.work|rank 1 l3: send 64b to 2 tag 7 "
	if got := strings.Join(ops[:6], "|"); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	res, err := sim.Run(g, network.DefaultLogGOPS(), sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The token goes round the ring. A hop is o + L in flight, then
	// o + 63·G to receive and the 1000 ns calc: 4000 + 1878 + 1000 = 6878.
	// Three hops reach rank 3's send at 20634; rank 0 receives and computes
	// the last one by 20634 + 6878 = 27512.
	if res.Makespan != 27512 {
		t.Errorf("makespan %d, want 27512", res.Makespan)
	}
}
