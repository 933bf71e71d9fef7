package compute_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/traces/graph"
)

// freqModel scales time by recorded/target CPU frequency (fully
// frequency-sensitive work) at 10 W per GHz.
type freqModel struct{}

func (freqModel) Kind() compute.Kind { return "test-freq" }
func (freqModel) Predict(w compute.Work, t compute.Config) (compute.Prediction, error) {
	if t.CPUFreqGHz <= 0 || w.At.CPUFreqGHz <= 0 {
		return compute.Prediction{}, fmt.Errorf("frequency not set")
	}
	return compute.Prediction{Seconds: w.Seconds * w.At.CPUFreqGHz / t.CPUFreqGHz, Watts: 10 * t.CPUFreqGHz, Kind: "test-freq"}, nil
}

func testGraph(t testing.TB) *graph.Graph {
	b := graph.NewBuilder(2)
	solve := b.Region("solve_x")
	io := b.Region("io")
	op := graph.CalcOp(1000)
	op.Region = solve
	b.Add(0, op)                       // 0: solve 1000 ns
	b.Add(0, graph.SendOp(4096, 1, 0)) // 1: send, size is bytes
	b.Add(0, graph.CalcOp(777))        // 2: no region
	op = graph.CalcOp(333)
	op.Region = io
	b.Add(1, graph.RecvOp(4096, 0, 0)) // 3
	b.Add(1, op)                       // 4: io 333 ns
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestPricer(t *testing.T) {
	g := testGraph(t)
	set := &compute.Set{
		Recorded: compute.Config{CPUFreqGHz: 2.0},
		Default:  compute.Measured{Scale: 3},
		Rules:    []compute.Rule{{Pattern: "solve_*", Model: freqModel{}}},
	}
	tests := []struct {
		name   string
		target compute.Target
		want   []int64
		watts  []float64
	}{
		{"all 1GHz", compute.Target{Default: compute.Config{CPUFreqGHz: 1}}, []int64{2000, 4096, 777, 4096, 999}, []float64{10, 0, 0, 0, 0}},
		{"solve at 4GHz", compute.Target{Default: compute.Config{CPUFreqGHz: 1},
			Rules: []compute.ConfigRule{{Pattern: "solve*", Config: compute.Config{CPUFreqGHz: 4}}}}, []int64{500, 4096, 777, 4096, 999}, []float64{40, 0, 0, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := compute.NewPricer(g, set, tc.target)
			if err != nil {
				t.Fatal(err)
			}
			for op := range int32(g.NumOps()) {
				if got := p.CalcDuration(op, 0); got != tc.want[op] {
					t.Errorf("op %d: duration %d, want %d", op, got, tc.want[op])
				}
				if got := p.Watts(op); got != tc.watts[op] {
					t.Errorf("op %d: watts %g, want %g", op, got, tc.watts[op])
				}
			}
		})
	}
}

func TestPricerErrors(t *testing.T) {
	g := testGraph(t)
	set := &compute.Set{Rules: []compute.Rule{{Pattern: "solve_*", Model: freqModel{}}}}
	if _, err := compute.NewPricer(g, set, compute.Target{}); err == nil {
		t.Error("missing frequency: want error")
	}
	set = &compute.Set{Rules: []compute.Rule{{Pattern: "[", Model: freqModel{}}}}
	if _, err := compute.NewPricer(g, set, compute.Target{}); err == nil {
		t.Error("bad pattern: want error")
	}
}

func BenchmarkPricerCalcDuration(b *testing.B) {
	const n = 1 << 16
	bl := graph.NewBuilder(1)
	regs := []int32{bl.Region("a"), bl.Region("b"), bl.Region("c")}
	for i := range n {
		op := graph.CalcOp(int64(1000 + i))
		op.Region = regs[i%3]
		bl.Add(0, op)
	}
	g, err := bl.Build()
	if err != nil {
		b.Fatal(err)
	}
	set := &compute.Set{Recorded: compute.Config{CPUFreqGHz: 2}, Default: freqModel{}}
	p, err := compute.NewPricer(g, set, compute.Target{Default: compute.Config{CPUFreqGHz: 2.5}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var sum int64
	i := int32(0)
	for b.Loop() {
		sum += p.CalcDuration(i, 0)
		i = (i + 1) & (n - 1)
	}
	_ = sum
}

func ExamplePricer() {
	b := graph.NewBuilder(1)
	op := graph.CalcOp(1_000_000) // 1 ms recorded
	op.Region = b.Region("solve")
	b.Add(0, op)
	g, _ := b.Build()

	set := &compute.Set{
		Recorded: compute.Config{CPUFreqGHz: 2.0},
		Default:  compute.Measured{Scale: 1.5, Watts: 80},
	}
	p, err := compute.NewPricer(g, set, compute.Target{Default: compute.Config{CPUFreqGHz: 1.0}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.CalcDuration(0, 0), "ns at", p.Watts(0), "W")
	// Output: 1500000 ns at 80 W
}

// TestConfigRulesSelectSomething: a --config-region rule whose glob
// configures no compute region (none matches, or an earlier rule takes
// them) is refused naming the regions; it was silently a no-op.
func TestConfigRulesSelectSomething(t *testing.T) {
	g := testGraph(t)
	set := &compute.Set{Recorded: compute.Config{CPUFreqGHz: 2.0}, Default: compute.Measured{Scale: 1}}
	for _, tc := range []struct {
		patterns []string
		want     string
	}{
		{[]string{"solve_*"}, ""},
		{[]string{"solve_*", "io"}, ""},
		{[]string{"solv_*"}, `config pattern "solv_*" configures no compute region of the trace: it matches none, or an earlier pattern takes them (the first match wins); the regions of its compute operations: "solve_x", "io"`},
		{[]string{"*", "io"}, `config pattern "io" configures no compute region`},
		{[]string{"["}, `config pattern "["`},
	} {
		var tg compute.Target
		for _, p := range tc.patterns {
			tg.Rules = append(tg.Rules, compute.ConfigRule{Pattern: p, Config: compute.Config{CPUFreqGHz: 1}})
		}
		_, err := compute.NewPricer(g, set, tg)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%q: %v, want %q", tc.patterns, err, tc.want)
		}
	}
}
