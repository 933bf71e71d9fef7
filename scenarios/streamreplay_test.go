package scenarios

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/capsim/capsim/internal/atomicfile"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/goal"
	"github.com/capsim/capsim/traces/graph"
)

// TestReplayStreamed checks that a plain replay of an Arrow graph file
// streams and reports what the replay of the whole graph reports, but
// for its timings; and that a replay the engine cannot stream (here one
// that deadlocks) is left to the whole graph.
func TestReplayStreamed(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, g *graph.Graph) string {
		path := filepath.Join(dir, name)
		if err := arrowtrace.WriteGraph(path, g); err != nil {
			t.Fatal(err)
		}
		return path
	}
	pattern := func(p gen.Pattern, o gen.PatternOptions) *graph.Graph {
		g, err := gen.GeneratePattern(p, o)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	writeGOAL := func(name string, g *graph.Graph) string {
		path := filepath.Join(dir, name)
		if err := atomicfile.Write(path, func(w io.Writer) error { return goal.Write(w, g) }); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, c := range []struct {
		path string
		lib  bool
		net  network.LogGOPS
	}{
		{writeGOAL("perm.goal", pattern(gen.RandomPermutation, gen.PatternOptions{Ranks: 32, Rounds: 700, Bytes: 100, Seed: 5})), false, network.DefaultLogGOPS()},
		{writeGOAL("bcast.goal", pattern(gen.BinomialBcast, gen.PatternOptions{Ranks: 50, Bytes: 1000})), true, network.DefaultLogGOPS()},
		{write("perm.arrow", pattern(gen.RandomPermutation, gen.PatternOptions{Ranks: 32, Rounds: 700, Bytes: 100, Seed: 5})), false, network.DefaultLogGOPS()},
		{write("ring.arrow", pattern(gen.RingAllreduce, gen.PatternOptions{Ranks: 64, Bytes: 1 << 20})), false, network.NewLogGOPS(3000, 1500, 1000, 2, 1, 64)},
		{write("bcast.arrow", pattern(gen.BinomialBcast, gen.PatternOptions{Ranks: 50, Bytes: 1000})), true, network.DefaultLogGOPS()},
	} {
		r := TraceReplay{Trace: c.path, Net: c.net, Libstdcxx: c.lib}
		got, ok := replayStreamed(r)
		if !ok {
			t.Errorf("%s: not streamed", c.path)
			continue
		}
		want, err := replayGraph(r)
		if err != nil {
			t.Fatal(err)
		}
		got.ReplayS, got.EventsPerSec, want.ReplayS, want.EventsPerSec = 0, 0, 0, 0
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: streamed report %+v, whole graph %+v", c.path, got, want)
		}
	}
	b := graph.NewBuilder(2)
	b.Add(0, graph.RecvOp(8, 1, 0))
	b.Add(1, graph.RecvOp(8, 0, 0))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	r := TraceReplay{Trace: write("deadlock.arrow", g), Net: network.DefaultLogGOPS()}
	if _, ok := replayStreamed(r); ok {
		t.Error("a deadlocked replay reported as streamed")
	}
	if _, err := ReplayTrace(r); err == nil {
		t.Error("ReplayTrace of a deadlock: no error")
	}
	// A GOAL file whose dependency lines come long after their
	// operations is read whole.
	long := "num_ranks 1\nrank 0 {\n"
	for i := 1; i <= 300; i++ {
		long += fmt.Sprintf("l%d: calc 1\n", i)
	}
	long += "l2 requires l1\n}\n"
	path := filepath.Join(dir, "long.goal")
	if err := os.WriteFile(path, []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	r = TraceReplay{Trace: path, Net: network.DefaultLogGOPS()}
	if _, ok := replayStreamed(r); ok {
		t.Error("a GOAL file outside windowed form reported as streamed")
	}
	if rep, err := ReplayTrace(r); err != nil || rep.MakespanNs != 300 {
		t.Errorf("ReplayTrace of it: %v, %v", rep, err)
	}
}
