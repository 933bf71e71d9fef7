package chakra

import (
	"testing"

	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// A small allreduce over four nodes of eight NPUs lowers to NCCL's tree
// when the lowering knows the nodes and the bus bandwidth, as NCCL's
// tuning model picks it; without them it stays the ring.
func TestTunedAllreduceTakesTree(t *testing.T) {
	const npus, perNode, S, G = 32, 8, 4096, 1
	tuned, err := lower.TuneNCCL(mpi.Allreduce, S, npus, npus/perNode, lower.NVLink, 1.0/G)
	if err != nil || tuned.Algorithm != "nccl-tree" {
		t.Fatalf("precondition: NCCL's model takes %q (%v)", tuned.Algorithm, err)
	}
	var files [][]byte
	for r := 0; r < npus; r++ {
		files = append(files, encTrace(comp(1, 5, false), coll(2, AllReduce, S, "", 1), comp(3, 5, false, 2)))
	}
	dir := writeNPUs(t, files...)
	lo := lower.Options{ChunkBytes: 1024, RanksPerNode: perNode, IntraLink: lower.NVLink, BusBytesPerNs: 1.0 / G}
	with := func(alg string, lo lower.Options) int64 {
		opt := Options{Lower: lo}
		if alg != "" {
			opt.Algorithm = map[mpi.Kind]string{mpi.Allreduce: alg}
		}
		return replay(t, dir, opt, G)
	}
	got, tree, ring := with("", lo), with("nccl-tree", lo), with("nccl-ring", lo)
	if got != tree || tree == ring {
		t.Errorf("tuned nccl: makespan %d ns; explicit tree %d ns, ring %d ns", got, tree, ring)
	}
	lo.BusBytesPerNs = 0
	if got := with("", lo); got != ring {
		t.Errorf("untuned nccl: makespan %d ns, want the ring's %d", got, ring)
	}
}
