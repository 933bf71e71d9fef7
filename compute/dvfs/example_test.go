package dvfs_test

import (
	"fmt"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/dvfs"
)

func ExampleFit() {
	m, err := dvfs.Fit([]dvfs.Run{{GHz: 2.0, Seconds: 10}, {GHz: 1.0, Seconds: 16}}, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := m.Predict(compute.Work{Seconds: 10, At: compute.Config{CPUFreqGHz: 2}}, compute.Config{CPUFreqGHz: 1.5})
	fmt.Printf("beta %.2f at %g GHz; 10 s at 2 GHz takes %.1f s at 1.5 GHz\n", m.Beta, m.RefGHz, p.Seconds)
	// Output: beta 0.60 at 2 GHz; 10 s at 2 GHz takes 12.0 s at 1.5 GHz
}
