package scenarios

import (
	"errors"
	"strings"

	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// inTraceTerms names the operations of the sim.OpError in err (a
// deadlock, a truncated message) in the trace's terms with the function
// that describer makes (lower.EventMap.Describer,
// importer.GraphDescriber); err as it is when it holds no such error or
// describer makes nil. describer runs on this error path only, so it may
// read or lower the trace again. Wrapping (fmt.Errorf's %w) fixes an
// error's text when it is made, so the text of err is rewritten too: the
// replay error's part of it replaced, the context around it kept, the
// chain unchanged.
func inTraceTerms(err error, describer func() func(op int32) string) error {
	var dl sim.OpError
	if !errors.As(err, &dl) {
		return err
	}
	describe := describer()
	if describe == nil {
		return err
	}
	before := dl.Error()
	dl.Rewrite(describe)
	if err == dl {
		return err
	}
	return &rewritten{msg: strings.Replace(err.Error(), before, dl.Error(), 1), err: err}
}

// mpiDescriber names each operation of the replay of MPI trace t lowered
// with options opt by its rank, MPI call, peer, tag, communicator and
// where it was read (FILE:LINE, FILE record K or its trace row), then as
// the lowered operation; nil when t does not lower. Lowering is
// deterministic, so the trace is lowered again here, on the error path
// only, to map operations back to events.
func mpiDescriber(t *mpi.Trace, opt lower.Options) func(op int32) string {
	g, em, err := lower.LowerMapped(t, opt)
	if err != nil {
		return nil
	}
	return em.Describer(t, g)
}

// rewritten is an error chain with its text rewritten.
type rewritten struct {
	msg string
	err error
}

func (e *rewritten) Error() string { return e.msg }
func (e *rewritten) Unwrap() error { return e.err }

// located is t, the scenario's workload, with where its events were
// recorded where the trace file keeps that only when asked (OTF2: read
// again, importer.Located); t itself for a generated workload.
func (sc *Scenario) located(t *mpi.Trace) *mpi.Trace {
	if sc.Workload.Trace == "" {
		return t
	}
	return importer.Located(t, sc.path(sc.Workload.Trace), sc.Workload.importOptions())
}

// inGraphTerms names the operations of the sim.OpError in err, from the
// replay of g, the scenario's workload read from a GOAL file, by the
// line each was read from (importer.GraphDescriber); err as it is for
// another workload.
func (sc *Scenario) inGraphTerms(err error, g *graph.Graph) error {
	if sc.Workload.Trace == "" || g == nil {
		return err
	}
	return inGraphTerms(err, sc.path(sc.Workload.Trace), g)
}

// inGraphTerms names the operations of the sim.OpError in err, from the
// replay of g read from the GOAL file at path, by the line each was read
// from; err as it is when path is no GOAL file.
func inGraphTerms(err error, path string, g *graph.Graph) error {
	return inTraceTerms(err, func() func(op int32) string { return importer.GraphDescriber(path, g) })
}

// deadlockInMPITerms names the operations of the sim.OpError in err, from
// the replay of the sweep's workload t at overrides, by their MPI calls
// (mpiDescriber; inGraphTerms for an execution graph g). It relowers with
// the algorithms build lowered with, the scenario's and then the trace
// format's own (liballprof's schedgen algorithms), so that operation ids
// map to the events they came from.
func (sc *Scenario) deadlockInMPITerms(err error, t *mpi.Trace, g *graph.Graph, overrides map[string]any) error {
	if t == nil {
		return sc.inGraphTerms(err, g)
	}
	return inTraceTerms(err, func() func(op int32) string {
		algs, err := lower.ParseAlgorithms(sc.Network.Collective)
		if err != nil {
			return nil
		}
		if sc.Workload.Trace != "" {
			_, _, formatColl, err := sc.workload(overrides)
			if err != nil {
				return nil
			}
			for k, a := range formatColl {
				if _, set := algs[k]; !set {
					algs[k] = a
				}
			}
		}
		opt, err := sc.lowerOptions(algs)
		if err != nil {
			return nil
		}
		return mpiDescriber(sc.located(t), opt)
	})
}
