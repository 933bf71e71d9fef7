package modelfile_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/modelfile"
)

// Example_fitAndPredict is the flow of `capsim fit` then `capsim predict`.
func Example_fitAndPredict() {
	runs := `region,cpu_ghz,seconds,watts
solve,2.0,10,100
solve,1.0,16,60
`
	samples, err := modelfile.ReadSamples(strings.NewReader(runs), "runs.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	f, reports, err := modelfile.Fit(samples, modelfile.FitOptions{Kind: compute.KindDVFS, Recorded: compute.Config{CPUFreqGHz: 2.0}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range reports {
		fmt.Println(r)
	}
	set, err := f.Set(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _, err := modelfile.Predict(set, "solve", 10, compute.Config{CPUFreqGHz: 1.5})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.1f s at %.0f W (%s)\n", p.Seconds, p.Watts, p.Kind)
	// Output:
	// solve: dvfs, 2 samples, beta 0.6 at 2 GHz (memory-bound fraction 0.4), R² 1, resid sd 0 s
	// 12.0 s at 80 W (dvfs)
}

func ExampleFile_Encode() {
	f := modelfile.New(compute.Config{CPUFreqGHz: 2.6, Threads: 8})
	e, _ := modelfile.NewEntry("io_*", compute.Measured{Scale: 1, Watts: 40})
	f.Regions = append(f.Regions, e)
	_ = f.Encode(os.Stdout)
	// Output:
	// {
	//   "format": "capsim-compute-model",
	//   "version": 1,
	//   "recorded": {
	//     "cpu_ghz": 2.6,
	//     "threads": 8
	//   },
	//   "regions": [
	//     {
	//       "pattern": "io_*",
	//       "kind": "measured",
	//       "params": {
	//         "scale": 1,
	//         "watts": 40
	//       }
	//     }
	//   ]
	// }
}
