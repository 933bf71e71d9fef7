// Package gen generates synthetic workloads: MPI traces (*mpi.Trace) of
// halo-exchange stencils, sweep3d-like wavefronts and collective
// micro-benchmarks, and LogGOPSim schedgen patterns directly as execution
// graphs (*graph.Graph).
//
// Every generator takes an options struct whose zero fields mean the
// documented defaults, validates it with clear errors, and is
// deterministic: the same options (including Seed) give the same trace.
// Randomness comes from math/rand/v2's PCG seeded with the Seed field.
package gen
