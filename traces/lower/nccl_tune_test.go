package lower

import (
	"math"

	"testing"

	"github.com/capsim/capsim/traces/mpi"
)

// block returns the ranks first, first+1, …, first+p−1.
func block(first, p int32) []int32 {
	m := make([]int32, p)
	for i := range m {
		m[i] = first + int32(i)
	}
	return m
}

// With the tuning inputs set, the nccl selector's allreduce is TuneNCCL's
// algorithm on every grid point, and the grid has both algorithms.
func TestNCCLSelectorFollowsTuning(t *testing.T) {
	seen := map[string]int{}
	for _, perNode := range []int{1, 2, 4, 8} {
		for _, nodes := range []int{1, 2, 4, 8, 16} {
			p := perNode * nodes
			if p < 2 {
				continue
			}
			for _, intra := range []Link{NVLink, PCI} {
				for _, bus := range []float64{12.5, 100} {
					for n := int64(64); n <= 1<<30; n *= 16 {
						opt := Options{RanksPerNode: perNode, IntraLink: intra, BusBytesPerNs: bus}
						want, err := TuneNCCL(mpi.Allreduce, n, p, nodes, intra, bus)
						if err != nil {
							t.Fatal(err)
						}
						got := opt.selected(SelectNCCL, mpi.Allreduce, block(0, int32(p)), n)
						if got != want.Algorithm {
							t.Errorf("%d ranks on %d nodes, link %d, %g B/ns, %d bytes: %s, want %s", p, nodes, intra, bus, n, got, want.Algorithm)
						}
						seen[got]++
					}
				}
			}
		}
	}
	if seen[ncclRing] == 0 || seen[ncclTree] == 0 {
		t.Errorf("grid chose %v; want both algorithms", seen)
	}
}

// Without the inputs, for other kinds, and for groups NCCL's model does
// not describe, the selector keeps its fixed choice.
func TestNCCLSelectorUntuned(t *testing.T) {
	tuned := Options{RanksPerNode: 8, BusBytesPerNs: 25}
	four := block(0, 32) // four nodes of four
	spread := make([]int32, 16)
	for i := range spread {
		spread[i] = int32(8 * i)
	}
	small := int64(64)
	if got, _ := TuneNCCL(mpi.Allreduce, small, 32, 4, NVLink, 25); got.Algorithm != ncclTree {
		t.Fatalf("precondition: NCCL's model takes %s for %d bytes over 4 nodes", got.Algorithm, small)
	}
	for _, c := range []struct {
		name    string
		opt     Options
		kind    mpi.Kind
		members []int32
		want    string
	}{
		{"tuned", tuned, mpi.Allreduce, four, ncclTree},
		{"no options", Options{}, mpi.Allreduce, four, ncclRing},
		{"no bandwidth", Options{RanksPerNode: 2}, mpi.Allreduce, four, ncclRing},
		{"no nodes", Options{BusBytesPerNs: 25}, mpi.Allreduce, four, ncclRing},
		{"allgather", tuned, mpi.Allgather, four, ncclRing},
		{"alltoall", tuned, mpi.Alltoall, four, ncclP2P},
		{"uneven nodes", tuned, mpi.Allreduce, block(4, 24), ncclRing},
		{"one rank a node", tuned, mpi.Allreduce, spread, ncclTree},
	} {
		if got := c.opt.selected(SelectNCCL, c.kind, c.members, small); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	// The other selectors ignore the inputs.
	if got := tuned.selected(SelectOpenMPI, mpi.Allreduce, four, small); got != choose(SelectOpenMPI, mpi.Allreduce, 32, small) {
		t.Errorf("openmpi: %s", got)
	}
}

func TestOptionsCheckTuning(t *testing.T) {
	for i, o := range []Options{{RanksPerNode: -1}, {IntraLink: Net + 1}, {BusBytesPerNs: -1}, {BusBytesPerNs: posInf()}} {
		if err := o.check(); err == nil {
			t.Errorf("%d %+v: no error", i, o)
		}
	}
}

func posInf() float64 { return math.Inf(1) }
