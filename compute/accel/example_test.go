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

// Place the basic blocks of one region per block:
// B1 and B3 run faster on the GPU, B2 on the CPU, so the per-block optimum
// (11 s) beats both the CPU alone (23 s) and the GPU alone (26 s), which
// one decision for the whole region cannot.
func ExampleProfile_Place() {
	p := &accel.Profile{Version: 1, Devices: []accel.Device{{
		Name:     "gpu",
		Idioms:   map[string]accel.Curve{"stream": accel.Constant(1)}, // 1 GB/s: V bytes take V/1e9 s
		Transfer: accel.Transfer{GBps: 16},
	}}}
	blocks := []accel.Instance{
		{Name: "B1", Idiom: "stream", Footprint: 1 << 20, Bytes: 2e9, CPUTime: 10},
		{Name: "B2", Idiom: "stream", Footprint: 1 << 20, Bytes: 20e9, CPUTime: 5},
		{Name: "B3", Idiom: "stream", Footprint: 1 << 20, Bytes: 4e9, CPUTime: 8},
	}
	for _, pol := range []accel.Placement{accel.HostOnly, accel.Blind, accel.PerRegion, accel.PerInstance} {
		plan, err := p.Place(blocks, []string{"gpu"}, 0, pol)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-12s %4.1f s:", pol, plan.Time)
		for _, c := range plan.Choices {
			dev := c.Device
			if dev == "" {
				dev = "cpu"
			}
			fmt.Printf(" %s→%s", c.Instance, dev)
		}
		fmt.Println()
	}
	// Output:
	// never        23.0 s: B1→cpu B2→cpu B3→cpu
	// blind        26.0 s: B1→gpu B2→gpu B3→gpu
	// per-region   23.0 s: B1→cpu B2→cpu B3→cpu
	// per-instance 11.0 s: B1→gpu B2→cpu B3→gpu
}
