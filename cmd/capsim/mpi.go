package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/capsim/capsim/scenarios"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/mpi"
	"github.com/capsim/capsim/traces/simgrid"
)

// traceOptions gives the importer registry the trace flags: --format
// (forcing a format; "" sniffs the content) and --speed (the flop/s of a
// SimGrid time-independent trace; 0 for the trace's own).
func traceOptions(format string, speed float64) importer.Options {
	return importer.Options{Format: format, SimGrid: simgrid.Options{Speed: speed}}
}

// loadGraph reads a trace in any format the importer registry reads and
// returns its execution graph (scenarios.LoadGraph); an unknown
// collective algorithm in coll is a usage error.
func loadGraph(path string, opt importer.Options, coll string) (*graph.Graph, error) {
	g, _, err := scenarios.LoadGraph(path, opt, coll)
	if errors.Is(err, scenarios.ErrOption) {
		return nil, usageError{err}
	}
	return g, err
}

// lpInputs reads what an LP command (bound, frontier) runs on: the
// scenario's machine mach (its first where empty) and, where args names a
// trace, that MPI trace with its format's own collective algorithms, or
// the execution graph of a graph-level trace (Chakra, GOAL; both nil: the
// scenario's workload).
func lpInputs(sc *scenarios.Scenario, mach string, args []string, opt importer.Options) (*scenarios.Machine, *mpi.Trace, *graph.Graph, map[mpi.Kind]string, error) {
	m, _, err := sc.MachineByName(mach)
	if err != nil {
		return nil, nil, nil, nil, usageError{err}
	}
	if len(args) == 0 {
		return m, nil, nil, nil, nil
	}
	it, err := importer.Read(args[0], opt)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if it.MPI == nil {
		return m, nil, it.Graph, nil, nil
	}
	return m, it.MPI, nil, it.Collectives, nil
}

// inTrace names the trace of args, when one is given, in err (a lowering
// error or a deadlock says rank and event, not which file), unless err
// names it already.
func inTrace(args []string, err error) error {
	if err == nil || len(args) == 0 || strings.HasPrefix(err.Error(), args[0]+":") {
		return err
	}
	return fmt.Errorf("%s: %w", args[0], err)
}

// formatFlagHelp documents --format.
const formatFlagHelp = "trace format, when sniffing the content is not wanted: arrow, goal, liballprof, otf2, dumpi, simgrid (see docs/reference/trace-formats.md)"
