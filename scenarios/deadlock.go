package scenarios

import (
	"errors"

	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// inMPITerms rewrites the sim.DeadlockError dl in err, from the replay of
// MPI trace t lowered with the collective algorithms algs, in the trace's
// terms: each stuck operation is named by its rank, MPI call, peer, tag,
// communicator and trace row, then as the lowered operation. Lowering is
// deterministic, so the trace is lowered again here, on the error path
// only, to map operations back to events.
func inMPITerms(err error, dl *sim.DeadlockError, t *mpi.Trace, algs map[mpi.Kind]string) error {
	g, em, lerr := lower.LowerMapped(t, lower.Options{Algorithm: algs})
	if lerr != nil {
		return err
	}
	dl.Rewrite(em.Describer(t, g))
	return err
}

// deadlockInMPITerms is inMPITerms for the sweep's workload at overrides:
// it relowers with the algorithms build lowered with, the scenario's and
// then the trace format's own (liballprof's schedgen algorithms), so that
// operation ids map to the events they came from.
func (sc *Scenario) deadlockInMPITerms(err error, t *mpi.Trace, overrides map[string]any) error {
	var dl *sim.DeadlockError
	if t == nil || !errors.As(err, &dl) {
		return err
	}
	algs, aerr := lower.ParseAlgorithms(sc.Network.Collective)
	if aerr != nil {
		return err
	}
	if sc.Workload.Trace != "" {
		_, _, formatColl, werr := sc.workload(overrides)
		if werr != nil {
			return err
		}
		for k, a := range formatColl {
			if _, set := algs[k]; !set {
				algs[k] = a
			}
		}
	}
	return inMPITerms(err, dl, t, algs)
}
