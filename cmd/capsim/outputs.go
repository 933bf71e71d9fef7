package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// outputFlags are the flags that name a file a command writes (results
// directories excepted: sweep and merge check their own).
var outputFlags = []string{"output", "output-file", "timeline", "csv", "mps", "power", "write-profiles", "write-dag", "plot"}

// inputFlags are the flags that name a file a command reads; the
// positional arguments are read too (but for gen, whose argument names a
// pattern).
var inputFlags = []string{"models", "scenario", "table", "samples", "ipc-model", "ipc-samples", "profiles", "mapping"}

// checkOutputs refuses a command line that would write a file over one it
// reads (the trace, a model file; symbolic and hard links resolved), or
// write two outputs into one file: the input would be lost, or one output
// would silently replace the other.
func checkOutputs(cmd *cobra.Command, args []string) error {
	type named struct{ what, path string }
	var ins, outs []named
	flags := cmd.Flags()
	given := func(name string) (*pflag.Flag, bool) {
		f := flags.Lookup(name)
		return f, f != nil && f.Changed && f.Value.Type() == "string" && f.Value.String() != ""
	}
	for _, n := range outputFlags {
		if f, ok := given(n); ok {
			outs = append(outs, named{"--" + n, f.Value.String()})
		}
	}
	if len(outs) == 0 {
		return nil
	}
	if cmd.Parent() == nil || cmd.Parent().Name() != "gen" {
		for _, a := range args {
			ins = append(ins, named{"the input", a})
		}
	}
	for _, n := range inputFlags {
		if f, ok := given(n); ok {
			ins = append(ins, named{"--" + n, f.Value.String()})
		}
	}
	for i, o := range outs {
		st, err := os.Stat(o.path)
		if err == nil && !st.Mode().IsRegular() {
			continue // a directory is refused by the command itself; a device (/dev/null) is written into
		}
		for _, in := range ins {
			if err == nil && sameFile(st, in.path) {
				return usagef("%s %s is %s %s: writing it would destroy what the command reads; name another file", o.what, o.path, in.what, in.path)
			}
		}
		for _, p := range outs[:i] {
			if samePath(o.path, p.path) || err == nil && sameFile(st, p.path) {
				return usagef("%s %s and %s %s name one file: one output would replace the other", p.what, p.path, o.what, o.path)
			}
		}
	}
	return nil
}

// stdoutNames are the names of standard output an output flag may give.
var stdoutNames = map[string]bool{"-": true, "/dev/stdout": true, "/dev/fd/1": true, "/proc/self/fd/1": true}

// stdoutOutputs makes an output flag given as "-" standard output, as an
// argument "-" is standard input, and where an output goes to standard
// output, sends what the command prints for its reader to standard error:
// a line such as "wrote t.arrow" after an Arrow file on a pipe made it
// unreadable. A results directory (sweep, merge) is no stream, and two
// outputs on standard output would interleave: both are refused.
func stdoutOutputs(cmd *cobra.Command) error {
	var on []string
	for _, n := range outputFlags {
		f := cmd.Flags().Lookup(n)
		if f == nil || !f.Changed || f.Value.Type() != "string" || !stdoutNames[f.Value.String()] {
			continue
		}
		if n == "output" && (cmd.Name() == "sweep" || cmd.Name() == "merge") {
			return usagef("--%s %s: %s writes a results directory, not a stream; name a directory", n, f.Value.String(), cmd.Name())
		}
		if f.Value.String() == "-" {
			if err := f.Value.Set("/dev/stdout"); err != nil {
				return err
			}
		}
		on = append(on, "--"+n)
	}
	switch {
	case len(on) > 1:
		return usagef("%s write to standard output: one output would mix into the other; name files", strings.Join(on, " and "))
	case len(on) == 1:
		cmd.SetOut(cmd.ErrOrStderr())
	}
	return nil
}

// outputFormats names, per output flag (as "COMMAND --FLAG", COMMAND the
// command's path below capsim, or "* --FLAG" for every command), the
// format the command writes there and the name endings of other formats
// it refuses: the file is written in its own format whatever its name,
// so "gen … -o x.goal" handed LogGOPSim an Arrow file, "replay --power
// p.csv" a spreadsheet an Arrow file, and "-o x.goal.gz" was not gzipped.
var outputFormats = map[string]struct {
	format string
	other  []string
}{
	"gen * --output":            {"an Arrow trace (capsim export goal writes GOAL)", []string{".goal", ".csv", ".json", ".txt", ".gz"}},
	"import * --output":         {"an Arrow trace (capsim export goal writes GOAL)", []string{".goal", ".csv", ".json", ".txt", ".gz"}},
	"export goal --output":      {"GOAL text (capsim import trace writes Arrow)", []string{".arrow", ".csv", ".json", ".gz"}},
	"replay --power":            {"an Arrow table", []string{".csv", ".json", ".goal", ".gz"}},
	"replay --timeline":         {"a Perfetto or trace-event JSON timeline", []string{".arrow", ".csv", ".goal", ".gz"}},
	"schedule --write-profiles": {"an Arrow table", []string{".csv", ".json", ".goal", ".gz"}},
	"schedule --timeline":       {"a CSV table", []string{".arrow", ".json", ".goal", ".gz"}},
	"* --csv":                   {"a CSV table", []string{".arrow", ".json", ".goal", ".gz"}},
	"fit --output-file":         {"a JSON model file", []string{".csv", ".arrow", ".goal", ".gz"}},
}

// checkOutputFormat refuses an output file whose name ends as another
// format's (outputFormats), naming the flag, the file and what the
// command writes there.
func checkOutputFormat(cmd *cobra.Command) error {
	path := strings.Fields(cmd.CommandPath())[1:] // below "capsim"
	for _, n := range outputFlags {
		f := cmd.Flags().Lookup(n)
		if f == nil || !f.Changed || f.Value.Type() != "string" {
			continue
		}
		var keys []string
		switch len(path) {
		case 1:
			keys = []string{path[0] + " --" + n, "* --" + n}
		case 2:
			keys = []string{path[0] + " " + path[1] + " --" + n, path[0] + " * --" + n, "* --" + n}
		}
		for _, k := range keys {
			spec, ok := outputFormats[k]
			if !ok {
				continue
			}
			name := strings.ToLower(f.Value.String())
			for _, ext := range spec.other {
				if strings.HasSuffix(name, ext) {
					what := "file"
					if ext == ".gz" {
						what = "compressed file (capsim writes it uncompressed; gzip it afterwards, capsim reads it so)"
					}
					return usagef("--%s %s: %s writes %s there, not a %s %s", n, f.Value.String(), cmd.CommandPath(), spec.format, ext, what)
				}
			}
			break
		}
	}
	return nil
}

// sameFile reports whether path is the file st describes.
func sameFile(st os.FileInfo, path string) bool {
	other, err := os.Stat(path)
	return err == nil && os.SameFile(st, other)
}

// samePath reports whether a and b name one path once made absolute and
// clean (for files that do not exist yet).
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}
