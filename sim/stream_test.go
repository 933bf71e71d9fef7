package sim

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/goal"
	"github.com/capsim/capsim/traces/graph"
)

// streamCase is a graph and the parameters to replay it under.
type streamCase struct {
	name string
	g    *graph.Graph
	net  network.LogGOPS
}

// streamCases are the conformance and differential schedules under the
// parameters their LogGOPSim times were taken with, and generated
// patterns long enough to span many pages a rank, under the default
// parameters and a small eager limit (rendezvous messages).
func streamCases(t *testing.T) []streamCase {
	var cs []streamCase
	for _, dir := range []string{filepath.Join("testdata", "differential"), testenv.Shared(t, "conformance/loggopsim")} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.times"))
		more, _ := filepath.Glob(filepath.Join(dir, "*.makespan"))
		for _, f := range append(files, more...) {
			base := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
			i := strings.LastIndexByte(base, '.')
			net, err := paramsFromTag(base[i+1:])
			if err != nil {
				t.Fatal(err)
			}
			g, err := goal.ReadFile(filepath.Join(dir, base[:i]+".goal"))
			if err != nil {
				t.Fatal(err)
			}
			cs = append(cs, streamCase{base, g, net})
		}
	}
	pattern := func(p gen.Pattern, o gen.PatternOptions) *graph.Graph {
		g, err := gen.GeneratePattern(p, o)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	rendezvous := network.NewLogGOPS(3000, 1500, 1000, 2, 1, 64)
	for _, c := range []struct {
		name string
		g    *graph.Graph
	}{
		{"random_permutation 16x1500", pattern(gen.RandomPermutation, gen.PatternOptions{Ranks: 16, Rounds: 1500, Bytes: 100, Seed: 3})},
		{"random_permutation 5x2100", pattern(gen.RandomPermutation, gen.PatternOptions{Ranks: 5, Rounds: 2100, Bytes: 8, Seed: 9})},
		{"allreduce_ring 600", pattern(gen.RingAllreduce, gen.PatternOptions{Ranks: 600, Bytes: 1 << 20})},
		{"dissemination 300", pattern(gen.Dissemination, gen.PatternOptions{Ranks: 300, Bytes: 8})},
		{"linear_alltoall 40", pattern(gen.LinearAlltoall, gen.PatternOptions{Ranks: 40, Bytes: 100})},
		{"binomialtreebcast 100", pattern(gen.BinomialBcast, gen.PatternOptions{Ranks: 100, Bytes: 100})},
		{"allreduce_recdoub 24 nb", pattern(gen.RecDoubAllreduce, gen.PatternOptions{Ranks: 24, Bytes: 4096, NBCalc: 3000})},
	} {
		cs = append(cs, streamCase{c.name + " default", c.g, network.DefaultLogGOPS()},
			streamCase{c.name + " rendezvous", c.g, rendezvous})
	}
	return cs
}

// TestRunSource checks that a streaming replay gives Run's result, field
// for field, on every conformance and differential schedule and on long
// generated patterns, with pages of whole windows and with windows cut
// short (so that a rank spans many pages), in both sort orders; where it
// cannot stream it must say why with a WholeGraphError.
func TestRunSource(t *testing.T) {
	streamed, refused := 0, map[string]int{}
	for _, c := range streamCases(t) {
		for _, lib := range []bool{false, true} {
			want, werr := Run(c.g, c.net, Options{LibstdcxxOrder: lib})
			for _, src := range []graph.Source{c.g, capped{c.g, 5}, capped{c.g, 64}} {
				name := fmt.Sprintf("%s libstdc++ %v source %T", c.name, lib, src)
				got, err := RunSource(src, c.net, Options{LibstdcxxOrder: lib})
				var wg *WholeGraphError
				if errors.As(err, &wg) {
					refused[wg.Feature]++
					continue
				}
				if werr != nil || err != nil {
					t.Errorf("%s: Run: %v, RunSource: %v", name, werr, err)
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: RunSource gives makespan %d, %d events; Run %d, %d", name, got.Makespan, got.Events, want.Makespan, want.Events)
				}
				streamed++
			}
		}
	}
	t.Logf("%d replays streamed; refused: %v", streamed, refused)
	if streamed < 100 {
		t.Errorf("only %d replays streamed", streamed)
	}
}

// TestRunSourceMemory checks that a streaming replay holds the pages of
// the operations in flight, not of the whole graph: a random permutation
// of 64 ranks and 20,000 rounds (40 pages a rank) never holds more than a
// few pages a rank.
func TestRunSourceMemory(t *testing.T) {
	g, err := gen.GeneratePattern(gen.RandomPermutation, gen.PatternOptions{Ranks: 64, Rounds: 20000, Bytes: 8, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunSource(g, network.DefaultLogGOPS(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Run(g, network.DefaultLogGOPS(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res, want) {
		t.Fatalf("RunSource makespan %d, Run %d", res.Makespan, want.Makespan)
	}
}

// TestRunSourceRefuses checks the options that need the whole graph.
func TestRunSourceRefuses(t *testing.T) {
	g := ringAllreduce(4, 64)
	for name, opt := range map[string]Options{
		"Pricer":   {Pricer: constPricer(1)},
		"Observer": {Observer: busyLog{}},
		"Release":  {Release: make([]int64, g.NumOps())},
		"Device":   {Device: make([]int32, g.NumOps())},
	} {
		_, err := RunSource(g, network.DefaultLogGOPS(), opt)
		var wg *WholeGraphError
		if !errors.As(err, &wg) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v, want a WholeGraphError naming it", name, err)
		}
	}
}

// readAheadGraph is a schedule whose messages match receives without
// dependencies that lie windows ahead of the receiver's progress, or none
// of them: rank 1 sends n messages in reverse tag order to rank 0, which
// posts a receive per tag (wildcard tags for the last third where any is
// set, which take the last third of the tags), then, after a calc that
// waits for its last receive, a receive for rank 2's message, which no
// receive without dependencies matches (it waits unexpected).
func readAheadGraph(t *testing.T, n int, any bool) *graph.Graph {
	b := graph.NewBuilder(3)
	var last int32
	for k := 0; k < n; k++ {
		tag := int32(k)
		if any && k >= n-n/3 {
			tag = graph.AnyTag
		}
		last = b.Add(0, graph.RecvOp(8, 1, tag))
	}
	c := b.Add(0, graph.CalcOp(50_000_000))
	b.Dep(0, c, last, graph.Requires)
	late := b.Add(0, graph.RecvOp(8, 2, 3))
	b.Dep(0, late, c, graph.Requires)
	end := b.Add(0, graph.CalcOp(10))
	b.Dep(0, end, late, graph.Requires)
	b.Add(2, graph.SendOp(8, 0, 3))
	var prev int32 = -1
	for k := n - 1; k >= 0; k-- {
		s := b.Add(1, graph.SendOp(int64(8+k%2*100000), 0, int32(k)))
		if prev >= 0 {
			b.Dep(1, s, prev, graph.Requires)
		}
		prev = s
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestRunSourceReadAhead checks the replays of readAheadGraph against Run,
// eager and rendezvous, with whole and short windows.
func TestRunSourceReadAhead(t *testing.T) {
	for _, any := range []bool{false, true} {
		g := readAheadGraph(t, 2500, any)
		for _, net := range []network.LogGOPS{network.DefaultLogGOPS(), network.NewLogGOPS(3000, 1500, 1000, 2, 1, 64)} {
			want, err := Run(g, net, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, src := range []graph.Source{g, capped{g, 5}} {
				got, err := RunSource(src, net, Options{})
				if err != nil {
					t.Fatalf("wildcards %v, %T: %v", any, src, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("wildcards %v, %T: makespan %d, %d events; Run %d, %d", any, src, got.Makespan, got.Events, want.Makespan, want.Events)
				}
			}
		}
	}
}

// TestRunSourceWholeGraph checks schedules a streaming replay refuses:
// each gives a WholeGraphError naming why.
func TestRunSourceWholeGraph(t *testing.T) {
	build := func(f func(b *graph.Builder)) *graph.Graph {
		b := graph.NewBuilder(2)
		f(b)
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	for _, c := range []struct {
		g    *graph.Graph
		want string
	}{
		{build(func(b *graph.Builder) { // a calc without dependencies in the third window
			for range 2100 {
				b.Add(0, graph.CalcOp(1))
			}
		}), "calc or send without dependencies"},
		{build(func(b *graph.Builder) { // a dependency 2,100 operations back
			first := b.Add(0, graph.CalcOp(1))
			prev := first
			for range 2100 {
				op := b.Add(0, graph.CalcOp(1))
				b.Dep(0, op, prev, graph.Requires)
				prev = op
			}
			last := b.Add(0, graph.CalcOp(1))
			b.Dep(0, last, first, graph.Requires)
		}), "more than one window"},
		{build(func(b *graph.Builder) { // a receive without dependencies that a calc irequires
			r := b.Add(0, graph.RecvOp(8, 1, 0))
			c := b.Add(0, graph.CalcOp(1))
			b.Dep(0, c, r, graph.Irequires)
			b.Add(1, graph.SendOp(8, 0, 0))
		}), "irequire"},
		{build(func(b *graph.Builder) { b.Add(0, graph.RecvOp(8, 1, 0)) }), "cannot finish"},
		{build(func(b *graph.Builder) {
			b.Add(0, graph.Op{Kind: graph.Calc, Size: 1, CPU: 1, Peer: -1, Region: graph.NoRegion})
		}), "several CPUs"},
	} {
		_, err := RunSource(c.g, network.DefaultLogGOPS(), Options{})
		var wg *WholeGraphError
		if !errors.As(err, &wg) || !strings.Contains(wg.Feature, c.want) {
			t.Errorf("got %v, want a WholeGraphError about %q", err, c.want)
		}
	}
}
