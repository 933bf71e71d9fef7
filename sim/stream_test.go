package sim

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
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
// posts a receive per tag, of its message's size (wildcard tags for the
// last third where any is set, which take the last third of the tags),
// then, after a calc that
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
		last = b.Add(0, graph.RecvOp(int64(8+k%2*100000), 1, tag))
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

// affineSource is a graph.Source shaped like random_permutation that
// generates its windows as asked, so that a streaming replay of any length
// needs no graph and no file: in round k rank r sends 1,024 bytes to
// (a_k·r + b_k) mod n (n a power of two, a_k odd, so a permutation) and
// receives from the inverse image, its send requiring its previous
// receive.
type affineSource struct {
	n, rounds int
	a, b, ai  []uint32

	kind      []graph.OpKind
	size      []int64
	peer, tag []int32
	cpu       []uint8
	ds, dop   []int32
	dk        []graph.DepKind
}

func newAffineSource(n, rounds int, seed uint64) *affineSource {
	s := &affineSource{n: n, rounds: rounds}
	rng := rand.New(rand.NewPCG(seed, 2))
	for range rounds {
		a := rng.Uint32() | 1
		inv := a // Newton's iteration for a⁻¹ mod 2^32
		for range 5 {
			inv *= 2 - a*inv
		}
		s.a, s.b, s.ai = append(s.a, a), append(s.b, rng.Uint32()), append(s.ai, inv)
	}
	return s
}

func (s *affineSource) NumRanks() int { return s.n }

func (s *affineSource) Window(r int, first int32, max int) (graph.Window, error) {
	end := min(int(first)+max, 2*s.rounds)
	m := uint32(s.n - 1)
	s.kind, s.size, s.peer, s.tag, s.cpu = s.kind[:0], s.size[:0], s.peer[:0], s.tag[:0], s.cpu[:0]
	s.ds, s.dop, s.dk = append(s.ds[:0], 0), s.dop[:0], s.dk[:0]
	for j := int(first); j < end; j++ {
		k := j / 2
		if j%2 == 0 {
			s.kind = append(s.kind, graph.Send)
			s.peer = append(s.peer, int32((s.a[k]*uint32(r)+s.b[k])&m))
			if k > 0 {
				s.dop, s.dk = append(s.dop, int32(j-1)), append(s.dk, graph.Requires)
			}
		} else {
			s.kind = append(s.kind, graph.Recv)
			s.peer = append(s.peer, int32((s.ai[k]*(uint32(r)-s.b[k]))&m))
		}
		s.size, s.tag, s.cpu = append(s.size, 1024), append(s.tag, 0), append(s.cpu, 0)
		s.ds = append(s.ds, int32(len(s.dop)))
	}
	return graph.Window{Rank: r, First: first, Kind: s.kind, Size: s.size, Peer: s.peer, Tag: s.tag,
		CPU: s.cpu, NIC: s.cpu, DepStart: s.ds, DepOp: s.dop, DepKind: s.dk}, nil
}

// TestRunSourceGenerated replays affineSource from its windows and from
// the graph built of them.
func TestRunSourceGenerated(t *testing.T) {
	src := newAffineSource(64, 1500, 7)
	b := graph.NewBuilder(src.n)
	for r := 0; r < src.n; r++ {
		w, err := src.Window(r, 0, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		for i := range w.Kind {
			op := b.Add(r, graph.Op{Kind: w.Kind[i], Size: w.Size[i], Peer: w.Peer[i], Tag: w.Tag[i], Region: graph.NoRegion})
			deps, _ := w.Deps(i)
			for _, d := range deps {
				b.Dep(r, op, d, graph.Requires)
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	want, err := Run(g, network.DefaultLogGOPS(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := RunSource(src, network.DefaultLogGOPS(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RunSource makespan %d, %d events; Run %d, %d", got.Makespan, got.Events, want.Makespan, want.Events)
	}
}

var generatedRounds = flag.Int("generated-rounds", 814, "BenchmarkRunSourceGenerated: rounds of its 4,096 ranks (814: about 10^7 events; 81380: 10^9)")

// BenchmarkRunSourceGenerated streams affineSource on 4,096 ranks for
// -generated-rounds rounds (3 events a rank and round) and reports the
// process's peak RSS.
func BenchmarkRunSourceGenerated(b *testing.B) {
	src := newAffineSource(4096, *generatedRounds, 1)
	var events int64
	for range b.N {
		res, err := RunSource(src, network.DefaultLogGOPS(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
	}
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
	// The peak RSS (VmHWM, Linux only) of the whole test process.
	if st, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(st), "\n") {
			if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
				kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
				b.ReportMetric(kb/1024, "peak-RSS-MiB")
			}
		}
	}
}
