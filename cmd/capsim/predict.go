package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/models"
	"github.com/capsim/capsim/scenarios"
	"github.com/capsim/capsim/traces/graph"
)

type predictJSON struct {
	Models   string             `json:"models"`
	Region   string             `json:"region"`
	Pattern  string             `json:"pattern"`
	Kind     string             `json:"kind"`
	Recorded string             `json:"recorded"`
	Config   string             `json:"config"`
	Work     float64            `json:"work_s"`
	Seconds  float64            `json:"seconds"`
	Watts    float64            `json:"watts"`
	Energy   float64            `json:"energy_j"`
	Flags    string             `json:"flags,omitempty"`
	Offload  *scenarios.Offload `json:"offload,omitempty"`
}

func newPredictCmd() *cobra.Command {
	var (
		region, spec, device string
		ipcSamples           string
		params               []string
		work, freq, mem      float64
		threads              int
		asJSON               bool
	)
	c := &cobra.Command{
		Use:   "predict MODELS.json --region NAME [--config SPEC | --freq GHz --threads N --mem GHz --device NAME]",
		Short: "Predict a region's time, power and energy under a configuration",
		Long: `predict prices --work seconds of a region, recorded at the model file's
"recorded" configuration, under a target configuration, with the model the
file binds to the region, and prints the time, power and energy (time × power).
Fields of the target left unset are the recorded ones. For accelerator
(accel) models it also prints the host, device and transfer times and the
offload decision. For Eiger models, --param gives a non-configuration input
(e.g. the problem size) of the predicted work; the recorded work keeps the
model's fixed value. For phase-mlr models (Dong Li's Eq. 3.17 and 3.19) the
target must be one of the model's sample configurations or have a
coefficient set.

For an IPC model file (capsim fit --kind ipc-mlr: Dong Li's Eqs. 4.1-4.3),
--samples names the application's measurements under the sample patterns
(CSV: case, pattern, ipc, event rates; one case per task), and predict
prints every pattern's IPC averaged over the tasks; where the file also
measures a pattern, the measured average and Table 4.1's error rate.`,
		Example: `  capsim predict examples/models/stencil.json --region stencil.compute --work 0.001 --freq 1.6
  capsim predict examples/models/stencil.json --region stencil.compute --work 0.001 --device gpu0 --json
  capsim predict ipc.json --samples app.csv`,
		Args: nargs(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			// Read once: the file may be a pipe.
			b, err := os.ReadFile(a[0])
			if err != nil {
				return fmt.Errorf("model file: %w", err)
			}
			if models.IsIPCModel(b) {
				return predictIPC(cmd.OutOrStdout(), a[0], b, ipcSamples, asJSON)
			} else if ipcSamples != "" {
				return usagef("--samples applies to IPC model files (capsim fit --kind ipc-mlr); %s is not one", a[0])
			}
			_, set, err := models.Decode(bytes.NewReader(b), a[0])
			if err != nil {
				return err
			}
			cfg, err := compute.ParseConfig(spec)
			if err != nil {
				return usageError{err}
			}
			flags := cmd.Flags()
			if flags.Changed("freq") {
				cfg.CPUFreqGHz = freq
			}
			if flags.Changed("threads") {
				cfg.Threads = threads
			}
			if flags.Changed("mem") {
				cfg.MemFreqGHz = mem
			}
			if flags.Changed("device") {
				cfg.Device = device
			}
			if !(cfg.CPUFreqGHz >= 0) || cfg.Threads < 0 || !(cfg.MemFreqGHz >= 0) || math.IsInf(cfg.CPUFreqGHz+cfg.MemFreqGHz, 0) {
				return usagef("--freq, --threads and --mem must be finite and non-negative")
			}
			if !(work >= 0) || math.IsInf(work, 0) {
				return usagef("--work must be a finite non-negative number of seconds")
			}
			rp, err := models.PredictRegion(set, region, work, cfg, params)
			if errors.Is(err, models.ErrOption) {
				return usageError{err}
			}
			if err != nil {
				return err
			}
			p := rp.Pred
			if maxS := float64(graph.MaxTimeNs) / 1e9; !(p.Seconds <= maxS) || !(p.Energy() <= math.MaxFloat64) {
				what := fmt.Sprintf("%g s", p.Seconds)
				if math.IsInf(p.Seconds, 0) || math.IsNaN(p.Seconds) {
					what = "no finite time"
				}
				return fmt.Errorf("--work %g s of region %q predicts %s at %s, past %g s (graph.MaxTimeNs, about 31.7 years)", work, region, what, rp.Config, maxS)
			}
			out := predictJSON{Models: a[0], Region: region, Pattern: rp.Pattern, Recorded: set.Recorded.String(), Config: rp.Config.String(), Work: work,
				Kind: string(p.Kind), Seconds: p.Seconds, Watts: p.Watts, Energy: p.Energy(), Flags: p.Flags.String()}
			if rp.Offload != nil {
				out.Offload = scenarios.NewOffload(*rp.Offload)
			}
			wr := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(wr)
				enc.SetIndent("", "  ")
				return enc.Encode(out)
			}
			printPredict(wr, out)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&region, "region", "", "region name (matched against the file's patterns; unmatched names use the default model)")
	f.Float64Var(&work, "work", 1, "recorded seconds of the region at the file's recorded configuration")
	f.StringVar(&spec, "config", "", "target configuration, e.g. 'freq=1.6,threads=8,mem=1.2,device=gpu0'")
	f.Float64Var(&freq, "freq", 0, "target CPU frequency in GHz (overrides --config)")
	f.IntVar(&threads, "threads", 0, "target thread count (overrides --config)")
	f.Float64Var(&mem, "mem", 0, "target memory frequency in GHz (overrides --config)")
	f.StringVar(&device, "device", "", "target device: cpu or an accelerator of the region's profile (overrides --config)")
	f.StringArrayVar(&params, "param", nil, "fixed input of an Eiger model, name=value (repeatable)")
	f.BoolVar(&asJSON, "json", false, "print machine-readable JSON")
	f.StringVar(&ipcSamples, "samples", "", "IPC models: the application's measurements under the sample patterns (CSV: case, pattern, ipc, event rates)")
	return c
}

// ipcJSON is one pattern of predict's output for an IPC model.
type ipcJSON struct {
	Pattern       int     `json:"pattern"`
	Sample        bool    `json:"sample"`
	Tasks         int     `json:"tasks"`
	Pooled        int     `json:"pooled_tasks"`
	IPC           float64 `json:"ipc"`
	Measured      float64 `json:"measured_ipc,omitempty"`
	MeasuredTasks int     `json:"measured_tasks,omitempty"`
	ErrorPct      float64 `json:"error_pct,omitempty"`
}

// predictIPC prints every pattern's IPC of the application measured in
// samples under the IPC model at path.
func predictIPC(w io.Writer, path string, text []byte, samples string, asJSON bool) error {
	if samples == "" {
		return usagef("%s is an IPC model: predict needs --samples APP.csv (the tasks measured under the sample patterns)", path)
	}
	m, err := models.DecodeIPCMLR(bytes.NewReader(text), path)
	if err != nil {
		return err
	}
	_, ps, err := m.PredictFile(path, samples, "")
	if err != nil {
		return err
	}
	out := make([]ipcJSON, len(ps))
	for i, p := range ps {
		out[i] = ipcJSON{Pattern: p.Pattern, Sample: p.Sample, Tasks: p.Tasks, Pooled: p.Pooled, IPC: p.Predicted,
			Measured: p.Measured, MeasuredTasks: p.MeasuredTasks, ErrorPct: 100 * p.Error}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "pattern\tipc\tsource\ttasks\tpooled\tmeasured\terror_%\t")
	for _, p := range out {
		src, meas, e := "Eq. 4.1", "-", "-"
		if p.Sample {
			src = "sample"
		}
		if p.MeasuredTasks > 0 && !p.Sample {
			meas, e = fmt.Sprintf("%.4f", p.Measured), fmt.Sprintf("%.3f", p.ErrorPct)
		}
		fmt.Fprintf(tw, "P%d\t%.4f\t%s\t%d\t%d\t%s\t%s\t\n", p.Pattern, p.IPC, src, p.Tasks, p.Pooled, meas, e)
	}
	return tw.Flush()
}

func printPredict(w io.Writer, p predictJSON) {
	name := p.Region
	if name == "" {
		name = "(no region)"
	}
	pat := p.Pattern
	if pat == "" {
		pat = "default"
	}
	fmt.Fprintf(w, "region    %s (model %s, pattern %s)\n", name, p.Kind, pat)
	fmt.Fprintf(w, "recorded  %g s at %s\nconfig    %s\n", p.Work, p.Recorded, p.Config)
	fmt.Fprintf(w, "time      %.6g s\n", p.Seconds)
	if p.Watts > 0 {
		fmt.Fprintf(w, "power     %.4g W\nenergy    %.6g J\n", p.Watts, p.Energy)
	} else {
		fmt.Fprintln(w, "power     unknown (the model has no power)")
	}
	if p.Flags != "" {
		fmt.Fprintf(w, "flags     %s\n", p.Flags)
	}
	if o := p.Offload; o != nil {
		dec := "host"
		switch {
		case o.Offloaded:
			dec = "offload to " + o.Device
		case o.Device != "" && !o.Eligible:
			dec = "host (" + o.Device + " cannot run the idiom)"
		case o.Device != "":
			dec = "host (" + o.Device + " is not faster)"
		}
		if n := offloadedInstances(o); len(o.Instances) > 0 {
			dec = fmt.Sprintf("%d of %d instances on %s", n, len(o.Instances), o.Device)
		}
		fmt.Fprintf(w, "offload   %s, policy %s: cpu %.6g s, device %.6g s, transfer %.6g s\n",
			dec, o.Policy, float64(o.CPUNs)/1e9, float64(o.DeviceNs)/1e9, float64(o.TransferNs)/1e9)
		if len(o.Instances) > 0 {
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  instance\tdevice\ttime_s\thost_s\tdevice_s\ttransfer_s\t")
			for _, in := range o.Instances {
				fmt.Fprintf(tw, "  %s\t%s\t%.6g\t%.6g\t%.6g\t%.6g\t\n", in.Name, in.Device, float64(in.TimeNs)/1e9,
					float64(in.HostNs)/1e9, float64(in.DeviceNs)/1e9, float64(in.TransferNs)/1e9)
			}
			tw.Flush()
		}
	}
}

// offloadedInstances counts the instances of o that run on a device.
func offloadedInstances(o *scenarios.Offload) int {
	n := 0
	for _, in := range o.Instances {
		if in.Device != compute.DeviceCPU {
			n++
		}
	}
	return n
}
