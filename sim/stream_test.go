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
