package gen

import (
	"testing"

	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// BenchmarkPatternRingAllreduce1024 generates the replay benchmark's
// 1024-rank ring allreduce of 1 MiB (4,190,208 operations).
func BenchmarkPatternRingAllreduce1024(b *testing.B) {
	for b.Loop() {
		g, err := GeneratePattern(RingAllreduce, PatternOptions{Ranks: 1024, Bytes: 1 << 20})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(g.NumOps()), "ops")
	}
}

// BenchmarkPatternDissemination65536 generates a 65,536-rank dissemination
// barrier (2,097,152 operations).
func BenchmarkPatternDissemination65536(b *testing.B) {
	for b.Loop() {
		g, err := GeneratePattern(Dissemination, PatternOptions{Ranks: 65536, Bytes: 8})
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
		tr, err := Collective{Kind: mpi.Allreduce, Ranks: 1024, Bytes: 1 << 20, Reps: 1}.Generate()
		if err != nil {
			b.Fatal(err)
		}
		g, err := lower.Lower(tr, lower.Options{Algorithm: map[mpi.Kind]string{mpi.Allreduce: "ring"}})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(g.NumOps()), "ops")
	}
}

// BenchmarkLowerBarrier65536 lowers a 65,536-rank dissemination barrier.
func BenchmarkLowerBarrier65536(b *testing.B) {
	for b.Loop() {
		tr, err := Collective{Kind: mpi.Barrier, Ranks: 65536, Reps: 1}.Generate()
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

// BenchmarkStencil3D generates a 16×16×16 wavefront stencil of 20 iterations.
func BenchmarkStencil3D(b *testing.B) {
	for b.Loop() {
		_, err := Stencil{Dims: []int{16, 16, 16}, Iterations: 20, HaloBytes: 8192, ComputeNs: 1e6,
			AllreduceBytes: 8, Imbalance: ImbalanceWavefront}.Generate()
		if err != nil {
			b.Fatal(err)
		}
	}
}
