// Command capsim replays HPC traces under compute, power and network
// models, bounds their power-constrained performance with a linear program,
// and runs sweeps over power caps.
//
// Run "capsim --help" for the subcommands. Exit status: 0 on success, 1 on a
// runtime error, 2 on a usage error, 130 (143) when SIGINT (Ctrl-C) or
// SIGTERM stopped a sweep or an LP solve (a sweep keeps its finished points).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/capsim/capsim/internal/gctune"
	"github.com/spf13/cobra"
)

func main() {
	// The collector's target follows the live heap (internal/gctune):
	// Go's default while it is small, as in sweeps and bounds, which
	// replay one small workload many times, down to 25 % for large
	// replays, whose peak RSS then stays close to their live data.
	// GOGC, where set, overrides it.
	if os.Getenv("GOGC") == "" {
		gctune.Start()
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError marks an error in how capsim was called (exit status 2).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// usagef returns a usage error.
func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// run executes the command line args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "capsim: %v\n", err)
	var ie interruptedError
	if errors.As(err, &ie) {
		return ie.cause.status()
	}
	var u usageError
	if errors.As(err, &u) || strings.HasPrefix(err.Error(), "unknown command") ||
		strings.HasPrefix(err.Error(), "unknown flag") || strings.HasPrefix(err.Error(), "required flag") {
		if cmd != nil {
			fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		}
		return 2
	}
	return 1
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "capsim",
		Short: "Trace-replay simulator for power-constrained HPC",
		Long: `capsim replays MPI and task-graph traces (Apache Arrow or GOAL text) on a
discrete-event engine with LogGOPS network models and per-region compute and
power models, computes the power-constrained optimal schedule of a trace with a
linear program (Bailey et al., SC'15) solved by COIN-OR CLP, and runs sweeps
over power caps, policies and machines.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		stdinArgs(args)
		if err := stdoutOutputs(c); err != nil {
			return err
		}
		if err := checkNumberFlags(c); err != nil {
			return err
		}
		if err := checkFlagNeeds(c); err != nil {
			return err
		}
		if err := checkOutputs(c, args); err != nil {
			return err
		}
		return checkOutputFormat(c)
	}
	root.Version = capsimVersion()
	root.SetVersionTemplate(versionTemplate)
	root.AddCommand(
		newGenCmd(),
		newReplayCmd(),
		newImportCmd(),
		newExportCmd(),
		newBoundCmd(),
		newFrontierCmd(),
		newSweepCmd(),
		newReportCmd(),
		newScenarioCmd(),
		newMergeCmd(),
		newFitCmd(),
		newCalibrateCmd(),
		newPredictCmd(),
		newPolicyCmd(),
		newSteeringGridCmd(),
		newScheduleCmd(),
		newAggregateCmd(),
		newInspectCmd(),
		newGendocsCmd(),
	)
	// Cobra adds its completion command (bash, zsh, fish, powershell) on
	// Execute; added here, the command tree that gendocs walks has it too.
	root.InitDefaultCompletionCmd()
	noticesTo(root, stderr)
	return root
}

// stdinArgs names standard input /dev/stdin where an argument is "-", the
// usual name of standard input, which capsim reads as any other pipe.
// Cobra passes the same slice to the command's RunE, so the command sees
// the new name.
func stdinArgs(args []string) {
	for i, a := range args {
		if a == "-" {
			args[i] = "/dev/stdin"
		}
	}
}

// args returns a cobra argument validator that reports a usage error.
func nargs(min, max int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if len(a) < min || (max >= 0 && len(a) > max) {
			switch {
			case min == max:
				return usagef("%s takes %d argument(s), got %d", cmd.Name(), min, len(a))
			case max < 0:
				return usagef("%s takes at least %d argument(s), got %d", cmd.Name(), min, len(a))
			default:
				return usagef("%s takes %d to %d arguments, got %d", cmd.Name(), min, max, len(a))
			}
		}
		return nil
	}
}
