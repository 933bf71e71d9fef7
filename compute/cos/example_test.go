package cos_test

import (
	"fmt"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/cos"
)

func ExampleFitIntel() {
	rows := []cos.Row{ // noise-free rows of Eq. 9 with α = (2, 1.5, −0.5, −1)
		{LLCM: 1, TPI: 1, CPUGHz: 1.2, MemGHz: 1.333, Y: 1.567},
		{LLCM: 2, TPI: 1, CPUGHz: 1.2, MemGHz: 1.333, Y: 3.567},
		{LLCM: 1, TPI: 2, CPUGHz: 1.2, MemGHz: 1.333, Y: 3.067},
		{LLCM: 1, TPI: 1, CPUGHz: 3.0, MemGHz: 1.333, Y: 0.667},
		{LLCM: 1, TPI: 1, CPUGHz: 1.2, MemGHz: 1.866, Y: 1.034},
	}
	m, err := cos.FitIntel(rows, cos.FitOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("alpha %.3f rank %d\n", m.Alpha, m.Fit.Rank)

	base := cos.Baseline{At: compute.Config{CPUFreqGHz: 1.2, MemFreqGHz: 1.333}, T: 10, Ts: 4, LLCM: 1.5, TPI: 0.8}
	p, _ := m.Eval(base, compute.Config{CPUFreqGHz: 2.4, MemFreqGHz: 1.6})
	fmt.Printf("T' = %.2f s (scaled %.2f + correction %.2f)\n", p.Seconds, p.Scaled, p.Correction)
	// Output:
	// alpha [2.000 1.500 -0.500 -1.000] rank 4
	// T' = 4.40 s (scaled 3.00 + correction 1.40)
}

func ExampleBGQ() {
	m := cos.BGQ{AlphaKnee: 2000, C1: 20, Beta: 1, L2M: 5e6, Inst: 2.5e8, ClockGHz: 1.6}
	for _, fm := range []float64{50, 61, 100} {
		fmt.Printf("%3.0f idle cycles: %.4g cycles\n", fm, m.Eval(1e9, fm))
	}
	// Output:
	//  50 idle cycles: 1e+09 cycles
	//  61 idle cycles: 1.005e+09 cycles
	// 100 idle cycles: 1.2e+09 cycles
}
