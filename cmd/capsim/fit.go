package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/eiger"
	"github.com/capsim/capsim/compute/modelfile"
	"github.com/capsim/capsim/compute/models"
	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/optimize/aggregate"
)

type fitFlags struct {
	kind, out, recorded, machine string
	intercept                    bool
	// eiger
	region, output, powerOut, inputs string
	fixed                            []string
	clusters, maxTerms               int
	threshold                        float64
	// phase-mlr, ipc-mlr
	samples []string
	// ipc-mlr
	bins, topology string
}

func newFitCmd() *cobra.Command {
	var f fitFlags
	c := &cobra.Command{
		Use:   "fit SAMPLES --kind table|dvfs|cos|eiger|phase-mlr|ipc-mlr -o MODELS.json",
		Short: "Fit compute models to measured samples and write a model file",
		Long: `fit reads measured samples of code regions (CSV or an Arrow table; schemas in
docs/reference/models.md), fits one model per region and writes a model file for
capsim replay --models and capsim predict. It prints the fit statistics:

  table  the measured (configuration → time, power) rows themselves
  dvfs   T(f) = T(ref)·(β·ref/f + 1 − β) from runs at ≥ 2 frequencies; prints
         β and the memory-bound fraction 1 − β, R², residual sd
  cos    COS Eq. 9 (Intel DVFS + DMT), α by least squares over sample pairs;
         prints α, rank and condition number and warns when rank-deficient
  eiger  statistical model (Anger Ch. 3): zero-variance reduction, k-means,
         forward selection over the Table 1 pool by adjusted R²; prints R²,
         adjusted R², MAPE and the chosen terms per cluster. Reads lwperf
         CSV (numbers only; name the region with --region) or an Arrow
         table with an optional string column "region".
  phase-mlr  Dong Li's phase-time regression (Li, PhD thesis 2011, Eq. 3.17) and IPS
         power model (Eq. 3.19): --sample names each sample configuration
         (in order); every other configuration measured gets a coefficient
         set fitted over the phases measured there; prints R² per target
         and the power fit. Every region measured at all samples gets a
         model, also those measured nowhere else (the phases to predict).
         CSV or Arrow columns: region, cpu_ghz, threads, time_s,
         [mem_ghz, instructions, watts,] one column per event rate.
  ipc-mlr  Dong Li's piecewise IPC regression for task aggregation (Li, PhD
         thesis 2011, Eqs. 4.1-4.3): --sample names each sample aggregation pattern (the
         thesis: 4 and 5); every other pattern measured gets one coefficient
         set per IPC category (--ipc-bins, default the thesis's 1,1.5,2)
         fitted over the training cases of that category, and one over all
         categories that stands in where a category has too few. Writes an
         IPC model file (not a compute-model file) for capsim predict,
         capsim aggregate --ipc-model and [aggregate] ipc_model. CSV columns:
         case, pattern, ipc, one column per event rate.`,
		Example: `  capsim fit examples/models/dvfs-runs.csv --kind dvfs --recorded cpu=2.6 -o solve.json
  capsim fit examples/models/phases.csv --kind phase-mlr --sample cpu=2.0,threads=16 --sample cpu=1.0,threads=1 -o mlr.json
  capsim fit examples/models/ipc-training.csv --kind ipc-mlr --sample 4 --sample 5 --sockets 2x2x2 -o ipc.json
  capsim fit examples/models/lwperf.csv --kind eiger --region stencil.compute --time-column time_s --recorded cpu=2.6 -o eiger.json`,
		Args: nargs(1, 1),
		RunE: func(cmd *cobra.Command, a []string) error {
			if f.out == "" {
				return usagef("fit needs -o MODELS.json")
			}
			if compute.Kind(f.kind) == models.KindIPCMLR {
				return fitIPCMLR(cmd.OutOrStdout(), a[0], &f)
			}
			o, err := f.fitOptions()
			if err != nil {
				return err
			}
			file, lines, err := models.FitFile(a[0], o)
			if errors.Is(err, models.ErrOption) {
				return usageError{err}
			}
			if err != nil {
				return err
			}
			if f.machine != "" {
				m, err := modelfile.ParseMachine(f.machine)
				if err != nil {
					return usageError{err}
				}
				file.Machine = &m
			}
			if _, err := file.Set(models.Decoders()); err != nil {
				return fmt.Errorf("fitted model file does not load: %w", err)
			}
			if err := atomicfile.Write(f.out, file.Encode); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			for _, l := range lines {
				fmt.Fprintln(w, l)
			}
			fmt.Fprintf(w, "wrote %s: %d region model(s), recorded at %s\n", f.out, len(file.Regions), file.Recorded)
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.kind, "kind", "", "model kind: table, dvfs, cos, eiger, phase-mlr or ipc-mlr")
	fl.StringVarP(&f.out, "output-file", "o", "", "model file to write")
	fl.StringVar(&f.recorded, "recorded", "", "configuration the traces to be replayed were recorded at, e.g. 'cpu=2.6,threads=8'")
	fl.StringVar(&f.machine, "machine-power", "", "machine power 'base=W,idle=W,active=W' to store in the model file")
	fl.BoolVar(&f.intercept, "intercept", false, "cos: fit an intercept (not the paper's form)")
	fl.StringVar(&f.region, "region", "", "eiger: region name of samples without a region column")
	fl.StringVar(&f.output, "time-column", "", "eiger: column of the time in seconds (default time_s, else seconds)")
	deprecatedAlias(fl, "output", "time-column")
	fl.StringVar(&f.powerOut, "power-column", "", "eiger: column of the average power in W, to fit a power model too")
	deprecatedAlias(fl, "power-output", "power-column")
	fl.StringVar(&f.inputs, "inputs", "", "eiger: comma-separated input columns (default: every number column but the outputs and rank)")
	fl.StringArrayVar(&f.fixed, "fixed", nil, "eiger: value of a non-configuration input when replaying, name=value (default: its sample mean)")
	fl.IntVar(&f.clusters, "clusters", 1, "eiger: k-means clusters")
	fl.IntVar(&f.maxTerms, "max-terms", 0, "eiger: at most this many terms per cluster (0 = no limit)")
	fl.Float64Var(&f.threshold, "min-gain", 1e-6, "eiger: minimum gain in adjusted R² to add a term (0 adds spurious terms after a perfect fit)")
	deprecatedAlias(fl, "threshold", "min-gain")
	fl.StringArrayVar(&f.samples, "sample", nil, "phase-mlr: a sample configuration, e.g. 'cpu=2.0,threads=16' (repeatable; the first is the default --recorded); ipc-mlr: a sample pattern, e.g. 4")
	fl.StringVar(&f.bins, "ipc-bins", "", "ipc-mlr: IPC category boundaries, ascending (default 1,1.5,2: the thesis's four categories)")
	fl.StringVar(&f.topology, "sockets", "", "ipc-mlr: the node layout SOCKETSxDIESxCORES the pattern numbers refer to, recorded in the model")
	deprecatedAlias(fl, "topology", "sockets")
	return c
}

// fitIPCMLR fits Li's piecewise IPC regression (PhD thesis 2011, Eqs.
// 4.1–4.3) and writes the IPC model file.
func fitIPCMLR(w io.Writer, path string, f *fitFlags) error {
	if f.out == "" {
		return usagef("fit needs -o MODELS.json")
	}
	if len(f.samples) == 0 {
		return usagef("ipc-mlr needs --sample for each sample pattern (the thesis: --sample 4 --sample 5)")
	}
	samples := make([]int, len(f.samples))
	for i, s := range f.samples {
		id, err := models.ParsePatternID(s)
		if err != nil {
			return usageError{fmt.Errorf("--sample: %w", err)}
		}
		samples[i] = id
	}
	var bins []float64
	if f.bins != "" {
		for _, s := range strings.Split(f.bins, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return usagef("--ipc-bins: %q is not a number", s)
			}
			bins = append(bins, v)
		}
	}
	if f.topology != "" {
		if _, err := aggregate.ParseTopology(f.topology); err != nil {
			return usageError{err}
		}
	}
	rows, events, err := models.ReadIPCRowsFile(path)
	if err != nil {
		return err
	}
	m, lines, err := models.FitIPCMLR(rows, events, samples, bins)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	m.Topology = f.topology
	if err := atomicfile.Write(f.out, m.Encode); err != nil {
		return err
	}
	fmt.Fprintf(w, "ipc-mlr: samples %v, %d event(s): %s\n", samples, len(events), strings.Join(events, ", "))
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintf(w, "wrote %s: %d coefficient set(s) for patterns %v\n", f.out, len(m.Sets), m.Patterns())
	return nil
}

// fitOptions reads the flags of the model kinds FitFile fits.
func (f *fitFlags) fitOptions() (models.FitFileOptions, error) {
	rec, err := compute.ParseConfig(f.recorded)
	if err != nil {
		return models.FitFileOptions{}, usageError{err}
	}
	o := models.FitFileOptions{Kind: compute.Kind(f.kind), Recorded: rec, Intercept: f.intercept, Region: f.region,
		TimeColumn: f.output, PowerColumn: f.powerOut, Fixed: map[string]float64{},
		Eiger: eiger.Options{K: f.clusters, Threshold: f.threshold, MaxTerms: f.maxTerms}}
	if f.inputs != "" {
		o.Inputs = strings.Split(f.inputs, ",")
	}
	for _, s := range f.fixed {
		k, v, ok := strings.Cut(s, "=")
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return o, usagef("--fixed %q: want name=finite number", s)
		}
		o.Fixed[strings.TrimSpace(k)] = x
	}
	if o.Kind == models.KindPhaseMLR {
		for _, s := range f.samples {
			c, err := compute.ParseConfig(s)
			if err != nil {
				return o, usageError{fmt.Errorf("--sample: %w", err)}
			}
			o.Samples = append(o.Samples, c)
		}
	}
	return o, nil
}
