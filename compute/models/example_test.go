package models_test

import (
	"fmt"
	"strings"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/modelfile"
	"github.com/capsim/capsim/compute/models"
)

// A model file binding a region to an accelerator offload model (note 004
// §3.8 T3 at r = 0.3) whose host side is a DVFS model.
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
