package compute_test

import (
	"math"
	"testing"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/dvfs"
	"github.com/capsim/capsim/compute/eiger"
	"github.com/capsim/capsim/compute/models"
	"github.com/capsim/capsim/traces/graph"
)

// pricedGraph is one rank of n calcs cycling over four regions.
func pricedGraph(tb testing.TB, n int) *graph.Graph {
	b := graph.NewBuilder(1)
	regions := []string{"solve", "halo", "io_write", "eiger_region"}
	for i := 0; i < n; i++ {
		op := graph.CalcOp(int64(1000 + i))
		op.Region = b.Region(regions[i%len(regions)])
		b.Add(0, op)
	}
	g, err := b.Build()
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// fittedSet binds a DVFS model fitted from three runs, and an Eiger model
// fitted over frequency, to the regions of pricedGraph.
func fittedSet(tb testing.TB) (*compute.Set, compute.Target) {
	d, err := dvfs.Fit([]dvfs.Run{{GHz: 2.6, Seconds: 10}, {GHz: 2.0, Seconds: 12.4}, {GHz: 1.6, Seconds: 15}}, 2.6)
	if err != nil {
		tb.Fatal(err)
	}
	var X [][]float64
	var y []float64
	for _, f := range []float64{1.2, 1.6, 2.0, 2.4, 2.6} {
		X = append(X, []float64{f})
		y = append(y, 2+8/f)
	}
	e, err := eiger.Fit([]string{models.InputCPU}, X, y, eiger.Options{Threshold: 1e-6})
	if err != nil {
		tb.Fatal(err)
	}
	s := &compute.Set{Recorded: compute.Config{CPUFreqGHz: 2.6}, Rules: []compute.Rule{
		{Pattern: "eiger_*", Model: &models.Eiger{Time: e}},
		{Pattern: "*", Model: d},
	}}
	return s, compute.Target{Default: compute.Config{CPUFreqGHz: 1.6}}
}

// BenchmarkPricerCalcDurationFitted prices one calc through fitted models, as
// the replay engine does for every calc (target: under 200 ns, 0 allocs).
func BenchmarkPricerCalcDurationFitted(b *testing.B) {
	g := pricedGraph(b, 1<<16)
	s, t := fittedSet(b)
	p, err := compute.NewPricer(g, s, t)
	if err != nil {
		b.Fatal(err)
	}
	n := int32(g.NumOps())
	b.ReportAllocs()
	var sum int64
	op := int32(0)
	for b.Loop() {
		sum += p.CalcDuration(op, 0)
		if op++; op == n {
			op = 0
		}
	}
	if sum < 0 {
		b.Fatal(sum)
	}
}

// Pricing allocates nothing and applies the fitted DVFS ratio
// τ(1.6) = 0.8·2.6/1.6 + 0.2 = 1.5 and the Eiger ratio (2+8/1.6)/(2+8/2.6).
func TestPricerFittedModels(t *testing.T) {
	g := pricedGraph(t, 8)
	s, tg := fittedSet(t)
	p, err := compute.NewPricer(g, s, tg)
	if err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(100, func() { p.CalcDuration(3, 0) }); a != 0 {
		t.Errorf("%g allocations per priced calc", a)
	}
	if got := p.Duration(0); got != 1500 {
		t.Errorf("dvfs-priced calc of 1000 ns: %d ns, want 1500", got)
	}
	if got, want := p.Duration(3), int64(math.Round(1003*(2+8/1.6)/(2+8/2.6))); got != want {
		t.Errorf("eiger-priced calc of 1003 ns: %d ns, want %d", got, want)
	}
}
