package gen

import (
	"math"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/mpi"
)

// Absurd sizes are refused from the parameters, before anything is
// allocated: before, these ran until the machine ran out of memory.
func TestGeneratorLimits(t *testing.T) {
	for _, tc := range []struct {
		name string
		gen  func() error
		want string
	}{
		{"stencil", func() error {
			_, err := Stencil{Dims: []int{2048, 2048}, Iterations: 1000, Balance: 1}.Generate()
			return err
		}, "4194304 ranks × 1000 iterations × up to 11 events per rank and iteration exceed 33554432 events (gen.MaxEvents)"},
		{"stencil compute", func() error {
			_, err := Stencil{Dims: []int{2, 2}, Iterations: 1, Balance: 1, ComputeNs: 4e18}.Generate()
			return err
		}, "compute_ns 4000000000000000000 exceeds"},
		{"stencil NaN sigma", func() error {
			_, err := Stencil{Dims: []int{2, 2}, Iterations: 1, Balance: 1, Sigma: math.NaN()}.Generate()
			return err
		}, "sigma NaN"},
		{"sweep", func() error {
			_, err := Sweep{Px: 1000, Py: 1000, Octants: 8, Blocks: 1000}.Generate()
			return err
		}, "1000×1000 ranks × 8 octants × 1000 blocks"},
		{"collective", func() error {
			_, err := Collective{Kind: mpi.Allreduce, Ranks: 1 << 20, Reps: 1 << 20}.Generate()
			return err
		}, "1048576 ranks × 1048576 repetitions"},
		{"alltoallv lists", func() error {
			_, err := Collective{Kind: mpi.Alltoallv, Ranks: 1 << 14, Reps: 1}.Generate()
			return err
		}, "gen.MaxEvents"},
		{"alltoall pattern", func() error {
			_, err := GeneratePattern(LinearAlltoall, PatternOptions{Ranks: 1 << 20})
			return err
		}, "pattern linear_alltoall: 1048576 ranks"},
		{"pipelined ring segments", func() error {
			_, err := GeneratePattern(PipelinedRing, PatternOptions{Ranks: 1024, Segments: 1 << 30})
			return err
		}, "gen.MaxPatternOps"},
	} {
		err := tc.gen()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
}
