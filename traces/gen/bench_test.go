package gen

import (
	"testing"

	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// BenchmarkSchedgenRingAllreduce1024 generates the replay benchmark's
// 1024-rank ring allreduce of 1 MiB (about 4.2 M operations).
func BenchmarkSchedgenRingAllreduce1024(b *testing.B) {
	for b.Loop() {
		g, err := Schedgen(SchedgenOptions{Pattern: AllreduceRing, Ranks: 1024, DataSize: 1 << 20})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(g.NumOps()), "ops")
	}
}

// BenchmarkSchedgenDissemination65536 generates a 65,536-rank
// dissemination barrier (about 2.1 M operations).
func BenchmarkSchedgenDissemination65536(b *testing.B) {
	for b.Loop() {
		g, err := Schedgen(SchedgenOptions{Pattern: Dissemination, Ranks: 65536, DataSize: 8})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(g.NumOps()), "ops")
	}
}

// BenchmarkLowerRingAllreduce1024 builds the same allreduce as an MPI
// micro-benchmark trace and lowers it with the ring algorithm.
func BenchmarkLowerRingAllreduce1024(b *testing.B) {
	for b.Loop() {
		tr, err := Bench(BenchOptions{Kind: mpi.Allreduce, Ranks: 1024, Bytes: 1 << 20})
		if err != nil {
			b.Fatal(err)
		}
		g, err := lower.Lower(tr, lower.Options{Algorithms: map[mpi.Kind]lower.Algorithm{mpi.Allreduce: lower.Ring}})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(g.NumOps()), "ops")
	}
}

// BenchmarkLowerBarrier65536 lowers a 65,536-rank barrier (dissemination).
func BenchmarkLowerBarrier65536(b *testing.B) {
	for b.Loop() {
		tr, err := Bench(BenchOptions{Kind: mpi.Barrier, Ranks: 65536})
		if err != nil {
			b.Fatal(err)
		}
		g, err := lower.Lower(tr, lower.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(g.NumOps()), "ops")
	}
}

// BenchmarkStencil3D generates a 16×16×16 stencil, 20 iterations, wavefront.
func BenchmarkStencil3D(b *testing.B) {
	for b.Loop() {
		if _, err := Stencil(StencilOptions{Dims: []int{16, 16, 16}, Iterations: 20, Imbalance: Wavefront}); err != nil {
			b.Fatal(err)
		}
	}
}
