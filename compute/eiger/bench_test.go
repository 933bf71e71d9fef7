package eiger

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func benchData(m, n int) ([]string, [][]float64, []float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := make([]string, n)
	for j := range names {
		names[j] = "p" + string(rune('a'+j))
	}
	X := make([][]float64, m)
	y := make([]float64, m)
	for i := range X {
		x := make([]float64, n)
		for j := range x {
			x[j] = 1 + 99*rng.Float64()
		}
		X[i] = x
		y[i] = 3 + 2*math.Log2(x[0]) + 0.01*x[1]*x[2] + 0.5*math.Sqrt(x[3]) + 0.01*rng.NormFloat64()
	}
	return names, X, y
}

// BenchmarkFit100kx10 fits 100,000 samples × 10 parameters (target < 10 s/op).
func BenchmarkFit100kx10(b *testing.B) {
	names, X, y := benchData(100000, 10)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Fit(names, X, y, Options{Threshold: 1e-4}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPredict measures one prediction after setup (target ≪ 200 ns).
func BenchmarkPredict(b *testing.B) {
	names, X, y := benchData(2000, 10)
	m, err := Fit(names, X, y, Options{K: 2, Threshold: 1e-4})
	if err != nil {
		b.Fatal(err)
	}
	p := m.NewPredictor()
	x := X[7]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Predict(x); err != nil {
			b.Fatal(err)
		}
	}
}

// The fit recovers the generating terms from noisy data and is byte-identical
// across runs.
func TestFitNoisyDeterministic(t *testing.T) {
	names, X, y := benchData(3000, 10)
	fit := func() (*Model, string) {
		m, err := Fit(names, X, y, Options{K: 2, Threshold: 1e-4})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := m.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		return m, b.String()
	}
	m, a := fit()
	if _, b := fit(); a != b {
		t.Fatal("two fits differ")
	}
	for i, c := range m.Clusters {
		if c.Stats.R2 < 0.999 || c.Stats.MAPE > 0.5 {
			t.Errorf("cluster %d: R2 %.5f MAPE %.3f%% terms %v", i, c.Stats.R2, c.Stats.MAPE, c.Terms)
		}
	}
}
