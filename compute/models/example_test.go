package models_test

import (
	"fmt"
	"strings"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/modelfile"
	"github.com/capsim/capsim/compute/models"
)

// A model file binding a region to an accelerator offload model (an 8 MiB
// stream on the FPGA curve of Meswani et al. Eq. 2 at r = 0.3) whose host
// side is a DVFS model.
func Example() {
	const file = `{"format": "capsim-compute-model", "version": 1, "recorded": {"cpu_ghz": 2.6},
  "regions": [{"pattern": "triad", "kind": "accel", "params": {
    "profile": {"version": 1, "cpu": {"stream": {"plateau_gbps": 10}},
      "devices": [{"name": "fpga", "idioms": {"stream": {"a": 13.59, "b": -159.2, "sat_bytes": 4194304, "plateau_gbps": 53}},
                   "transfer": {"latency_s": 1e-5, "gbps": 4}}]},
    "idiom": "stream", "footprint_bytes": 8388608, "ratio": 0.3, "policy": "when-faster",
    "cpu": {"kind": "dvfs", "params": {"beta": 0.5, "ref_ghz": 2.6}}}}]}`
	_, set, err := modelfile.Decode(strings.NewReader(file), "triad.json", models.Decoders())
	if err != nil {
		fmt.Println(err)
		return
	}
	m, _, _ := set.Lookup("triad")
	work := compute.Work{Seconds: 838.861e-6, At: set.Recorded} // one instance on the host
	for _, c := range []compute.Config{{CPUFreqGHz: 1.3}, {CPUFreqGHz: 2.6, Device: "fpga"}} {
		d, err := m.(*models.Offload).Decide(work, c)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-14s offloaded %-5v %.3f µs (device %.3f µs + transfer %.3f µs)\n",
			c, d.Offloaded, d.Pred.Seconds*1e6, d.DeviceS*1e6, d.TransferS*1e6)
	}
	// Output:
	// cpu 1.3GHz     offloaded false 1258.292 µs (device 0.000 µs + transfer 0.000 µs)
	// fpga 2.6GHz    offloaded true  797.421 µs (device 158.276 µs + transfer 639.146 µs)
}

// Dong Li's phase-time regression (thesis Eq. 3.17) and IPS power model
// (Eq. 3.19): a phase observed at two sample configurations, predicted at
// 8 threads with one coefficient set (the hand case of docs/reference/models.md).
func ExamplePhaseMLR() {
	const params = `{"events": ["l2_miss_rate"],
  "samples": [{"config": {"cpu_ghz": 2, "threads": 16}, "time_s": 1.0, "rates": [0.1], "instructions": 1.15e10},
              {"config": {"cpu_ghz": 1, "threads": 1}, "time_s": 2.0, "rates": [0.3], "instructions": 1.0e10}],
  "targets": [{"config": {"cpu_ghz": 2, "threads": 8},
               "alpha": [{"x": [2], "y": [0.1], "z": 0.4}, {"x": [1], "z": 0.2}],
               "mu_events": [[0.5]], "mu_time": [0.1], "l": 0.05, "sigma": 0.035}],
  "power": {"k1": 2e-8, "k0": 150}}`
	m, err := models.DecodePhaseMLR([]byte(params))
	if err != nil {
		fmt.Println(err)
		return
	}
	rec := compute.Config{CPUFreqGHz: 2, Threads: 16}
	p, err := m.Predict(compute.Work{Seconds: 1, At: rec}, compute.Config{CPUFreqGHz: 2, Threads: 8})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.3g s at %.4g W: %.4g J\n", p.Seconds, p.Watts, p.Energy())
	// Output: 2 s at 257 W: 514 J
}
