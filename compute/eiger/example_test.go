package eiger_test

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/compute/eiger"
)

// Fit y = 5 + 3·log2(x1) + 0.25·x2² from 20 noise-free samples and predict.
func Example() {
	var X [][]float64
	var y []float64
	for _, x1 := range []float64{1, 2, 4, 8, 16} {
		for _, x2 := range []float64{1, 2, 3, 4} {
			X = append(X, []float64{x1, x2})
			y = append(y, 5+3*math.Log2(x1)+0.25*x2*x2)
		}
	}
	names := []string{"x1", "x2"}
	m, err := eiger.Fit(names, X, y, eiger.Options{Threshold: 1e-6})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := m.Clusters[0]
	for i, t := range c.Terms {
		fmt.Printf("%s β=%.4f\n", t.String(names), c.Beta[i+1])
	}
	fmt.Printf("intercept %.4f adjR2 %.4f\n", c.Beta[0], c.Stats.AdjR2)
	v, _ := m.NewPredictor().Predict([]float64{32, 6})
	fmt.Printf("predict(32, 6) = %.4f\n", v)
	// Output:
	// log2(x1) β=3.0000
	// x2^2 β=0.2500
	// intercept 5.0000 adjR2 1.0000
	// predict(32, 6) = 29.0000
}
