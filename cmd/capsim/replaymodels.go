package main

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/scenarios"
)

// addModelFlags defines replay's compute- and power-model flags on fs.
func addModelFlags(fs *pflag.FlagSet, f *scenarios.ModelOptions) {
	fs.StringVar(&f.File, "models", "", "compute-model file pricing calc operations by region (docs/reference/models.md)")
	fs.StringVar(&f.Config, "config", "", "configuration for all regions, e.g. 'freq=1.6,threads=8' or 'device=gpu0' (unset fields: the model file's recorded configuration)")
	fs.StringArrayVar(&f.Regions, "config-region", nil, "configuration of the regions matching a glob, e.g. 'stencil.*=device=gpu0' (repeatable; first match wins)")
	fs.StringVar(&f.PowerFile, "power", "", "write the per-rank power timeline to this Arrow file (needs machine power)")
	fs.StringVar(&f.Machine, "machine-power", "", "machine power 'base=W,idle=W,active=W[,wait=task|idle|W]' (overrides the model file's \"machine\"; wait: what a rank draws between its tasks)")
	fs.Float64Var(&f.RecordedGHz, "recorded-ghz", 0, "with --models: core frequency the trace's compute times were measured at, in GHz (overrides the model file's recorded cpu_ghz)")
	fs.IntVar(&f.RanksPerDevice, "ranks-per-device", 0, "ranks sharing one accelerator (ranks r with equal r / N), which runs one offloaded call at a time; 0: a device per rank")
}

// checkModels reports model flag combinations that cannot work, before any file is
// read.
func checkModels(f *scenarios.ModelOptions) error {
	if f.File == "" && (f.Config != "" || len(f.Regions) > 0) {
		return usagef("--config and --config-region need --models")
	}
	if f.File == "" && f.Machine == "" && f.PowerFile != "" {
		return usagef("--power needs --models or --machine-power")
	}
	if f.File == "" && f.RanksPerDevice != 0 {
		return usagef("--ranks-per-device needs --models")
	}
	if f.File == "" && f.RecordedGHz != 0 {
		return usagef("--recorded-ghz needs --models (without models the trace's times are replayed as recorded)")
	}
	if f.RecordedGHz < 0 || math.IsInf(f.RecordedGHz, 0) || math.IsNaN(f.RecordedGHz) {
		return usagef("--recorded-ghz %g: want a finite frequency > 0", f.RecordedGHz)
	}
	if err := compute.CheckGHz(f.RecordedGHz); err != nil {
		return usagef("--recorded-ghz: %v", err)
	}
	if f.RanksPerDevice < 0 {
		return usagef("--ranks-per-device %d: want a positive number of ranks (0: a device per rank)", f.RanksPerDevice)
	}
	return nil
}

// printModels prints the region pricing and energy of a modeled replay.
func printModels(w io.Writer, m *scenarios.ModelsReport) {
	if m == nil {
		return
	}
	if m.RecordedConfig != nil {
		fmt.Fprintf(w, "\nrecorded: %s\n", m.RecordedConfig)
	}
	if len(m.Regions) > 0 {
		fmt.Fprintf(w, "\nregions priced by %s:\n", m.Models)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "region\tmodel\tconfig\tcalcs\trecorded_ns\tpriced_ns\tratio\twatts\tflags\t")
		for _, r := range m.Regions {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%.4f\t%.1f\t%s\t\n", r.Region, r.Kind, r.Config, r.Calcs, r.RecordedNs, r.PricedNs, r.Ratio, r.Watts, r.Flags)
		}
		tw.Flush()
		var off []scenarios.RegionReport
		for _, r := range m.Regions {
			if r.Offload != nil {
				off = append(off, r)
			}
		}
		if len(off) > 0 {
			fmt.Fprintln(w, "\naccelerator offload (summed over ranks):")
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "region\tdevice\tpolicy\tdecision\tcpu_ns\tdevice_ns\ttransfer_ns\t")
			for _, r := range off {
				o := r.Offload
				dec, dev := "host", o.Device
				switch {
				case dev == "":
					dev = "-"
				case o.Offloaded:
					dec = "offload"
				case !o.Eligible:
					dec = "host (device cannot run it)"
				}
				if len(o.Instances) > 0 {
					dec = fmt.Sprintf("%d of %d instances offloaded", offloadedInstances(o), len(o.Instances))
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t\n", r.Region, dev, o.Policy, dec, o.CPUNs, o.DeviceNs, o.TransferNs)
			}
			tw.Flush()
			var lines []string
			for _, r := range off {
				for _, in := range r.Offload.Instances {
					lines = append(lines, fmt.Sprintf("%s\t%s\t%s\t%d\t%d\t%d\t%d\t", r.Region, in.Name, in.Device, in.TimeNs, in.HostNs, in.DeviceNs, in.TransferNs))
				}
			}
			if len(lines) > 0 {
				fmt.Fprintln(w, "\nplacement per instance (summed over ranks):")
				tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "region\tinstance\tdevice\ttime_ns\thost_ns\tdevice_ns\ttransfer_ns\t")
				for _, l := range lines {
					fmt.Fprintln(tw, l)
				}
				tw.Flush()
			}
		}
	}
	for _, s := range m.Warnings {
		fmt.Fprintf(w, "warning: %s\n", s)
	}
	if e := m.Energy; e != nil && e.Model == "sockets" {
		fmt.Fprintf(w, "\nenergy    %.6g J = idle %.6g J + dynamic %.6g J (avg %.4g W, peak %.4g W; socket model, %d node(s) of %d ranks, node idle %g W)\n",
			e.TotalJ, e.IdleJ, e.DynamicJ, e.AvgW, e.PeakW, e.Nodes, e.RanksPerNode, e.IdleW)
	} else if e != nil {
		fmt.Fprintf(w, "\nenergy    %.6g J = idle %.6g J + dynamic %.6g J (avg %.4g W, peak %.4g W; base %g W, core idle %g W, active %g W)\n",
			e.TotalJ, e.IdleJ, e.DynamicJ, e.AvgW, e.PeakW, e.BaseW, e.IdleW, e.ActiveW)
	}
	if e := m.Energy; e != nil && e.OverCapNs != nil {
		fmt.Fprintf(w, "cap       %g W: the job drew more for %d ns\n", e.CapW, *e.OverCapNs)
	}
	if m.PowerFile != "" {
		fmt.Fprintf(w, "power     %s (per-rank power timeline, Arrow)\n", m.PowerFile)
	}
}
