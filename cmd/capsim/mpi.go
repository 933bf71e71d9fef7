package main

import (
	"fmt"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/simgrid"
)

// traceOptions gives the importer registry the trace flags: --format
// (forcing a format; "" sniffs the content) and --speed (the flop/s of a
// SimGrid time-independent trace; 0 for the trace's own).
func traceOptions(format string, speed float64) importer.Options {
	return importer.Options{Format: format, SimGrid: simgrid.Options{Speed: speed}}
}

// loadGraph reads a trace in any format the importer registry reads and
// returns its execution graph, MPI traces lowered with the collective
// algorithms of coll (e.g. "allreduce=ring"; kinds left out take the
// format's choice).
func loadGraph(path string, opt importer.Options, coll string) (*graph.Graph, error) {
	g, _, err := loadGraphComms(path, opt, coll)
	return g, err
}

// loadGraphComms is loadGraph that also names the communicators of an MPI
// trace, for network overrides (nil for graph-level traces).
func loadGraphComms(path string, opt importer.Options, coll string) (*graph.Graph, func(int32) string, error) {
	algs, err := lower.ParseAlgorithms(coll)
	if err != nil {
		return nil, nil, usageError{err}
	}
	t, err := importer.Read(path, opt)
	if err != nil {
		return nil, nil, err
	}
	g, err := t.Lower(algs)
	if err != nil {
		return nil, nil, err
	}
	if t.MPI == nil {
		return g, nil, nil
	}
	return g, t.CommName, nil
}

// loadMPI reads an MPI-level trace (any format the registry reads).
func loadMPI(path string, opt importer.Options) (*importer.Trace, error) {
	t, err := importer.Read(path, opt)
	if err != nil {
		return nil, err
	}
	if t.MPI == nil {
		return nil, fmt.Errorf("%s: a %s trace is an execution graph, but this needs an MPI trace (its phases come from the MPI calls)", path, t.Format)
	}
	return t, nil
}

// formatFlagHelp documents --format.
const formatFlagHelp = "trace format, when sniffing the content is not wanted: arrow, goal, liballprof, otf2, dumpi, simgrid (see docs/trace-formats.md)"

// netClasses parses --net-override specs over net and classifies g's
// messages; nil when there are none.
func netClasses(g *graph.Graph, net network.LogGOPS, specs []string, comms func(int32) string) (*network.Classes, error) {
	var ovs []network.Override
	for _, s := range specs {
		o, err := network.ParseOverride(s, net)
		if err != nil {
			return nil, usageError{err}
		}
		ovs = append(ovs, o)
	}
	return network.Classify(g, net, ovs, comms)
}
