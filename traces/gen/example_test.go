package gen_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/capsim/capsim/traces/gen"
)

func ExampleGeneratePattern() {
	g, err := gen.GeneratePattern(gen.Dissemination, gen.PatternOptions{Ranks: 4, Bytes: 8})
	if err != nil {
		panic(err)
	}
	fmt.Println(g.NumOps(), "ops,", g.NumDeps(), "deps")
	fmt.Println(g.Describe(2))
	// Output:
	// 16 ops, 4 deps
	// rank 0 l3: send 8b to 2 tag 0
}

func ExampleStencil() {
	tr, err := gen.Stencil{Dims: []int{4, 4}, Iterations: 2, HaloBytes: 1024, ComputeNs: 1e6,
		AllreduceBytes: 8, Imbalance: gen.ImbalanceCharged}.Generate()
	if err != nil {
		panic(err)
	}
	// Per iteration: 48 directed faces → 48 irecv + 48 isend, and per rank
	// one compute, one waitall and one allreduce.
	fmt.Println(len(tr.Ranks), "ranks,", tr.NumEvents(), "events,", tr.ParamNames)
	// Output:
	// 16 ranks, 288 events, [work intensity]
}

// Generators are deterministic given their options (and seed).
func TestGeneratorsDeterministic(t *testing.T) {
	for _, imb := range []string{gen.ImbalanceNone, gen.ImbalanceRandom, gen.ImbalanceCharged, gen.ImbalanceWavefront} {
		s := gen.Stencil{Dims: []int{3, 2, 2}, Iterations: 4, HaloBytes: 10, ComputeNs: 1000, Imbalance: imb, Seed: 9}
		a, err := s.Generate()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := s.Generate()
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two generations differ", imb)
		}
	}
	s := gen.Stencil{Dims: []int{4, 4}, Iterations: 2, ComputeNs: 1000, Imbalance: gen.ImbalanceRandom}
	s.Seed = 1
	a, _ := s.Generate()
	s.Seed = 2
	b, _ := s.Generate()
	if reflect.DeepEqual(a, b) {
		t.Error("random imbalance ignores the seed")
	}
	for _, p := range gen.Patterns() {
		a, err := gen.GeneratePattern(p, gen.PatternOptions{Ranks: 13, Bytes: 100})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := gen.GeneratePattern(p, gen.PatternOptions{Ranks: 13, Bytes: 100})
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two generations differ", p)
		}
	}
}
