package eiger

import (
	"math"
	"strings"
	"testing"
)

func grid(a, b []float64, f func(x1, x2 float64) float64) ([][]float64, []float64) {
	var X [][]float64
	var y []float64
	for _, x1 := range a {
		for _, x2 := range b {
			X = append(X, []float64{x1, x2})
			y = append(y, f(x1, x2))
		}
	}
	return X, y
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.10g, want %.10g", what, got, want)
	}
}

// A noise-free fit worked out by hand, y = 5 + 3·log₂x₁ + 0.25·x₂²;
// Anger's thesis Algorithm 1 line 19 in its corrected form
// (maximum − current > threshold), the returned β being the last accepted model's.
func TestForwardSelectionLog2ThenSquare_Erratum2Corrected(t *testing.T) {
	X, y := grid([]float64{1, 2, 4, 8, 16}, []float64{1, 2, 3, 4}, func(x1, x2 float64) float64 {
		return 5 + 3*math.Log2(x1) + 0.25*x2*x2
	})
	// Step 1 alone.
	m1, err := Fit([]string{"x1", "x2"}, X, y, Options{Threshold: 1e-6, MaxTerms: 1})
	if err != nil {
		t.Fatal(err)
	}
	c1 := m1.Clusters[0]
	if len(c1.Terms) != 1 || c1.Terms[0] != (Term{Kind: Log2, I: 0}) {
		t.Fatalf("step 1 picked %v", c1.Terms)
	}
	near(t, "step 1 adjR2", c1.Stats.AdjR2, 0.8937028363, 1e-9)
	near(t, "step 1 b0", c1.Beta[0], 6.875, 1e-9)
	near(t, "step 1 b1", c1.Beta[1], 3, 1e-9)

	m, err := Fit([]string{"x1", "x2"}, X, y, Options{Threshold: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	c := m.Clusters[0]
	want := []Term{{Kind: Log2, I: 0}, {Kind: Pow2, I: 1}}
	if len(c.Terms) != 2 || c.Terms[0] != want[0] || c.Terms[1] != want[1] {
		t.Fatalf("terms %v, want %v", c.Terms, want)
	}
	for i, b := range []float64{5, 3, 0.25} {
		near(t, "beta", c.Beta[i], b, 1e-9)
	}
	near(t, "adjR2", c.Stats.AdjR2, 1, 1e-12)
	near(t, "MAPE", c.Stats.MAPE, 0, 1e-9)
}

// A noise-free fit worked out by hand, y = 10 + 2·x₁x₂: the product term
// alone.
func TestForwardSelectionProduct(t *testing.T) {
	X, y := grid([]float64{2, 3, 4, 5, 6}, []float64{10, 20, 30}, func(x1, x2 float64) float64 { return 10 + 2*x1*x2 })
	m, err := Fit([]string{"x1", "x2"}, X, y, Options{Threshold: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	c := m.Clusters[0]
	if len(c.Terms) != 1 || c.Terms[0] != (Term{Kind: Product, I: 0, J: 1}) {
		t.Fatalf("terms %v", c.Terms)
	}
	near(t, "b0", c.Beta[0], 10, 1e-9)
	near(t, "b1", c.Beta[1], 2, 1e-9)
	p := m.NewPredictor()
	v, err := p.Predict([]float64{7, 40})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "predict", v, 570, 1e-8)
}

func TestZeroVarianceRemoved(t *testing.T) {
	X, y := grid([]float64{2, 3, 4, 5, 6}, []float64{10, 20, 30}, func(x1, x2 float64) float64 { return 10 + 2*x1*x2 })
	for i := range X {
		X[i] = []float64{X[i][0], 7, X[i][1]}
	}
	m, err := Fit([]string{"x1", "c", "x2"}, X, y, Options{Threshold: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Params) != 2 || m.Params[0] != 0 || m.Params[1] != 2 {
		t.Fatalf("params %v", m.Params)
	}
}

func TestTwoClusters(t *testing.T) {
	// Two regimes separated in x1: y = x1 for small, y = 100 + x2² for large.
	var X [][]float64
	var y []float64
	for _, x2 := range []float64{1, 2, 3, 4} {
		for _, x1 := range []float64{1, 101, 2, 102, 3, 103} {
			X = append(X, []float64{x1, x2})
			if x1 < 50 {
				y = append(y, 3*x1)
			} else {
				y = append(y, 100+x2*x2)
			}
		}
	}
	// Seeds are the first two rows, (1,1) and (101,1): one per regime.
	m, err := Fit([]string{"x1", "x2"}, X, y, Options{K: 2, Threshold: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	p := m.NewPredictor()
	for _, c := range []struct{ x1, x2, want float64 }{{2, 2, 6}, {102, 3, 109}} {
		v, _ := p.Predict([]float64{c.x1, c.x2})
		near(t, "predict", v, c.want, 1e-6)
	}
}

// TestTooFewSamplesPerCluster: a cluster of one sample has no adjusted R²
// (its -Inf failed the model file's JSON); more clusters than half the
// samples, or one sample, are refused naming the counts.
func TestTooFewSamplesPerCluster(t *testing.T) {
	X := [][]float64{{1}, {2}, {3}, {4}}
	y := []float64{1, 2, 3, 4}
	for _, tc := range []struct {
		n, k int
		want string
	}{
		{4, 3, "eiger: 3 clusters of 4 samples: a cluster needs at least 2 samples to fit (at most 2 clusters)"},
		{4, 100000000, "100000000 clusters of 4 samples"},
		{1, 1, "eiger: 1 sample: need at least 2 to fit"},
	} {
		_, err := Fit([]string{"x"}, X[:tc.n], y[:tc.n], Options{K: tc.k, Threshold: 1e-6})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("n %d k %d: err %v, want %q", tc.n, tc.k, err, tc.want)
		}
	}
	if _, err := Fit([]string{"x"}, X, y, Options{K: 2, Threshold: 1e-6}); err != nil {
		t.Errorf("2 clusters of 4 samples: %v", err)
	}
}
