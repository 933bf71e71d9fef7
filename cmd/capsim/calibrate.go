package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

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
			// A piped trace is copied once, so that it can be compared
			// with the others and then read.
			copies, renames := make([]string, len(a)), make([]func(error) error, len(a))
			for i, path := range a {
				p, rename, done, err := importer.Reopenable(path)
				if err != nil {
					return err
				}
				defer done()
				copies[i], renames[i] = p, rename
			}
			if err := distinctTraces(a, copies, traceOptions(format, 0)); err != nil {
				return err
			}
			var trs []*mpi.Trace
			for i, path := range a {
				t, err := importer.Read(copies[i], traceOptions(format, 0).WithStamps(true))
				if err != nil {
					return renames[i](err)
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
// its folder and its anchor file, a link, a copy or a pipe of the same
// recording): its messages would count twice in the fits. copies are the
// paths the traces are read from (a piped trace's copy, Reopenable).
func distinctTraces(paths, copies []string, opt importer.Options) error {
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
	// Every file of the trace with the same content: one recording
	// copied (cp -r run1 run2) or piped twice.
	content := map[string]string{}
	for i, p := range copies {
		ins, err := importer.Inputs(p, opt)
		if err != nil {
			continue // Read names the error
		}
		var b strings.Builder
		for _, in := range ins {
			fmt.Fprintf(&b, "%s %s\n", in.Rel, in.Hash)
		}
		if other, ok := content[b.String()]; ok {
			return usagef("%s and %s hold the same recording (every file they read has the same content): give each trace once", other, paths[i])
		}
		content[b.String()] = paths[i]
	}
	return nil
}
