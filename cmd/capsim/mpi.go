package main

import (
	"fmt"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/lower"
)

// loadGraph reads a trace in any format the importer registry reads
// (format forces one; "" sniffs the content) and returns its execution
// graph, MPI traces lowered with the collective algorithms of coll (e.g.
// "allreduce=ring"; kinds left out take the format's choice).
func loadGraph(path, format, coll string) (*graph.Graph, error) {
	g, _, err := loadGraphComms(path, format, coll)
	return g, err
}

// loadGraphComms is loadGraph that also names the communicators of an MPI
// trace, for network overrides.
func loadGraphComms(path, format, coll string) (*graph.Graph, func(int32) string, error) {
	algs, err := lower.ParseAlgorithms(coll)
	if err != nil {
		return nil, nil, usageError{err}
	}
	t, err := importer.Read(path, importer.Options{Format: format})
	if err != nil {
		return nil, nil, err
	}
	g, err := t.Lower(algs)
	if err != nil {
		return nil, nil, err
	}
	return g, t.CommName, nil
}

// loadMPI reads an MPI-level trace (any format the registry reads).
func loadMPI(path, format string) (*importer.Trace, error) {
	t, err := importer.Read(path, importer.Options{Format: format})
	if err != nil {
		return nil, err
	}
	if t.MPI == nil {
		return nil, fmt.Errorf("%s: a %s trace is an execution graph, but this needs an MPI trace (its phases come from the MPI calls)", path, t.Format)
	}
	return t, nil
}

// formatFlagHelp documents --format.
const formatFlagHelp = "trace format, when sniffing the content is not wanted: arrow, goal, liballprof (see docs/trace-formats.md)"

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
