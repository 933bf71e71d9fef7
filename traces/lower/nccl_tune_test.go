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
						got, w := opt.selected(SelectNCCL, mpi.Allreduce, block(0, int32(p)), n)
						if got != want.Algorithm || w == nil || w.alg != got || w.proto != want.Protocol || w.nodes != nodes {
							t.Errorf("%d ranks on %d nodes, link %d, %g B/ns, %d bytes: %s %+v, want %s/%s", p, nodes, intra, bus, n, got, w, want.Algorithm, want.Protocol)
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
		wired   bool // its messages take a protocol's parameters
	}{
		{"tuned", tuned, mpi.Allreduce, four, ncclTree, true},
		{"no options", Options{}, mpi.Allreduce, four, ncclRing, false},
		{"no bandwidth", Options{RanksPerNode: 2}, mpi.Allreduce, four, ncclRing, false},
		{"no nodes", Options{BusBytesPerNs: 25}, mpi.Allreduce, four, ncclRing, false},
		{"allgather", tuned, mpi.Allgather, four, ncclRing, true},
		{"reduce-scatter", tuned, mpi.ReduceScatter, four, ncclRing, true},
		{"bcast", tuned, mpi.Bcast, four, ncclRing, true},
		{"reduce", tuned, mpi.Reduce, four, ncclRing, true},
		{"alltoall", tuned, mpi.Alltoall, four, ncclP2P, false},
		{"uneven nodes", tuned, mpi.Allreduce, block(4, 24), ncclRing, false},
		{"one rank a node", tuned, mpi.Allreduce, spread, ncclTree, true},
	} {
		if got, w := c.opt.selected(SelectNCCL, c.kind, c.members, small); got != c.want || (w != nil) != c.wired {
			t.Errorf("%s: %s with wire %+v, want %s (wired %v)", c.name, got, w, c.want, c.wired)
		}
	}
	// The other selectors ignore the inputs.
	if got, w := tuned.selected(SelectOpenMPI, mpi.Allreduce, four, small); got != choose(SelectOpenMPI, mpi.Allreduce, 32, small) || w != nil {
		t.Errorf("openmpi: %s, wire %+v", got, w)
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
