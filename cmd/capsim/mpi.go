package main

import (
	"fmt"
	"io"
	"os"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
	"github.com/capsim/capsim/traces/otf2"
	"github.com/capsim/capsim/traces/simgrid"
)

// isOTF2 reports whether path is an OTF2 anchor file or a folder holding
// one. (Until the importer registry sniffs every format, replay asks here.)
func isOTF2(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return otf2.Sniff(nil, path)
	}
	head := make([]byte, 8)
	n, _ := f.Read(head)
	return otf2.Sniff(head[:n], path)
}

// loadMPIGraph reads an Arrow MPI trace or an OTF2 trace and lowers it with the collective
// algorithms of coll (e.g. "allreduce=ring").
func loadMPIGraph(path, coll string) (*graph.Graph, error) {
	g, _, err := loadMPIGraphComms(path, coll)
	return g, err
}

// loadMPIGraphComms is loadMPIGraph that also returns the trace's
// communicator names by number, for network overrides.
func loadMPIGraphComms(path, coll string) (*graph.Graph, func(int32) string, error) {
	algs, err := lower.ParseAlgorithms(coll)
	if err != nil {
		return nil, nil, usageError{err}
	}
	var t *mpi.Trace
	if isOTF2(path) {
		t, err = otf2.Read(path, otf2.Options{})
	} else {
		t, err = arrowtrace.ReadMPI(path)
	}
	if err != nil {
		return nil, nil, err
	}
	return lowerMPI(path, t, algs)
}

// isSimGrid reports whether the file at path looks like a SimGrid
// time-independent trace.
func isSimGrid(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	return simgrid.Sniff(head[:n])
}

// loadSimGrid reads a SimGrid time-independent trace (flops at speed
// flop/s, 0 for the trace's own) and lowers it with the collective
// algorithms of coll.
func loadSimGrid(path, coll string, speed float64) (*graph.Graph, func(int32) string, error) {
	algs, err := lower.ParseAlgorithms(coll)
	if err != nil {
		return nil, nil, usageError{err}
	}
	t, err := simgrid.Read(path, simgrid.Options{Speed: speed})
	if err != nil {
		return nil, nil, err
	}
	return lowerMPI(path, t, algs)
}

func lowerMPI(path string, t *mpi.Trace, algs map[mpi.Kind]string) (*graph.Graph, func(int32) string, error) {
	g, err := lower.Lower(t, lower.Options{Algorithm: algs})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	names := map[int32]string{}
	for _, c := range t.Comms {
		names[c.ID] = c.Name
	}
	return g, func(c int32) string { return names[c] }, nil
}

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
