package gpu_test

import (
	"fmt"

	"github.com/capsim/capsim/compute/gpu"
)

// A GPU limited to 350 W (nvidia-smi -pl 350): the driver clocks it at
// 1305 MHz, where its power curve reaches the limit, and a kernel whose
// recorded time is one quarter memory-bound takes 6 % longer.
func ExampleModel_Limit() {
	m := &gpu.Model{Clocks: []gpu.Clock{{MHz: 1410, PowerW: 400}, {MHz: 1200, PowerW: 300}}, IdleW: 50, MemoryBound: 0.25}
	if err := m.Normalize(); err != nil {
		panic(err)
	}
	cs, err := m.Limit(350)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%g MHz at %g W, time ×%.4f\n", cs[0].MHz, cs[0].PowerW, m.Ratio(cs[0].MHz))
	// Output: 1305 MHz at 350 W, time ×1.0603
}
