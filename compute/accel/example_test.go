package accel_test

import (
	"fmt"

	"github.com/capsim/capsim/compute/accel"
)

// Offload an 8 MiB stream region to the FPGA profile of the paper's Eq. 2.
func Example() {
	dev := &accel.Device{
		Name:     "fpga",
		Idioms:   map[string]accel.Curve{"stream": {A: 13.59, B: -159.2, Sat: 4194304, Plateau: 53}},
		Transfer: accel.Transfer{Latency: 10e-6, GBps: 4},
	}
	g := accel.Region{Name: "loop1", Idiom: "stream", Footprint: 8388608, CPUTime: 8388608 / 10e9}
	for _, r := range []float64{0, 0.3, 0.4} {
		rep := dev.Decide(g, r, accel.WhenFaster)
		fmt.Printf("r=%.1f offload=%v cpu=%.3fµs dev=%.3fµs xfer=%.3fµs\n", r, rep.Offloaded,
			rep.CPUTime*1e6, rep.DeviceTime*1e6, rep.XferTime*1e6)
	}
	fmt.Printf("break-even r* = %.4f\n", dev.BreakEven(g))
	// Output:
	// r=0.0 offload=true cpu=838.861µs dev=158.276µs xfer=0.000µs
	// r=0.3 offload=true cpu=838.861µs dev=158.276µs xfer=639.146µs
	// r=0.4 offload=false cpu=838.861µs dev=158.276µs xfer=848.861µs
	// break-even r* = 0.3198
}
