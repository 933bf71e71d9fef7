package main

import (
	"fmt"

	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
)

// loadMPIGraph reads an Arrow MPI trace and lowers it with the collective
// algorithms of coll (e.g. "allreduce=ring").
func loadMPIGraph(path, coll string) (*graph.Graph, error) {
	algs, err := lower.ParseAlgorithms(coll)
	if err != nil {
		return nil, usageError{err}
	}
	t, err := arrowtrace.ReadMPI(path)
	if err != nil {
		return nil, err
	}
	g, err := lower.Lower(t, lower.Options{Algorithm: algs})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}
