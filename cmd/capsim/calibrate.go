package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/capsim/capsim/network/calibrate"
	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/mpi"
)

func newCalibrateCmd() *cobra.Command {
	var (
		format string
		model  string
		asJSON bool
	)
	c := &cobra.Command{
		Use:   "calibrate TRACE...",
		Short: "Fit network parameters to the point-to-point messages a trace recorded",
		Long: `calibrate fits the parameters of the LogGOPS (or LogGP) network model to the
point-to-point messages of traces with timestamps (OTF2, DUMPI): their
matched sends and receives, ping-pong round trips and send call durations.
Each fit is a least-squares line over the lower envelope of the recorded
times (the fastest instance of each size), since recorded times include
waiting. It prints the network spec, which --net takes as it is, the
[network] keys of a scenario file, the fits with their residuals, and the
parameters the traces cannot identify with the values they were given (see
docs/guide/validation.md).`,
		Example: `  capsim calibrate traces.otf2
  capsim calibrate run1/traces.otf2 run2/traces.otf2 --model loggp --json
  capsim replay traces.otf2 --net "$(capsim calibrate traces.otf2 --json | jq -r .net)"`,
		Args: nargs(1, -1),
		RunE: func(cmd *cobra.Command, a []string) error {
			var opt calibrate.Options
			switch model {
			case "loggops":
			case "loggp":
				opt.LogGP = true
			default:
				return usagef("--model %q: want loggops or loggp", model)
			}
			if err := distinctTraces(a, traceOptions(format, 0)); err != nil {
				return err
			}
			var trs []*mpi.Trace
			for _, path := range a {
				t, err := importer.Read(path, traceOptions(format, 0).WithStamps(true))
				if err != nil {
					return err
				}
				if t.MPI == nil || !t.MPI.Stamped() {
					return fmt.Errorf("%s: a %s trace has no recorded times to calibrate from (OTF2, DUMPI and liballprof traces have them)", path, t.Format)
				}
				trs = append(trs, t.MPI)
			}
			res, err := calibrate.Calibrate(trs, opt)
			if err != nil {
				return fmt.Errorf("%v: %w", a, err)
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(res.Report())
			}
			return calibrate.WriteText(w, res)
		},
	}
	f := c.Flags()
	f.StringVar(&format, "format", "", formatFlagHelp)
	f.StringVar(&model, "model", "loggops", "network model to fit: loggops or loggp")
	f.BoolVar(&asJSON, "json", false, `print machine-readable JSON: {"net": SPEC, "fit": {...}, "unidentified": [...]}`)
	return c
}

// distinctTraces refuses a trace given twice (by the same or another name:
// its folder and its anchor file, a link): its messages would count twice
// in the fits.
func distinctTraces(paths []string, opt importer.Options) error {
	type read struct {
		trace string
		st    os.FileInfo
	}
	var seen []read
	for _, path := range paths {
		files, err := importer.Files(path, opt)
		if err != nil {
			continue // Read names the error
		}
		for _, f := range files {
			st, err := os.Stat(f)
			if err != nil {
				continue
			}
			for _, r := range seen {
				if r.trace != path && os.SameFile(r.st, st) {
					return usagef("%s and %s are one trace (both read %s): give each trace once", r.trace, path, f)
				}
			}
			seen = append(seen, read{path, st})
		}
	}
	return nil
}
