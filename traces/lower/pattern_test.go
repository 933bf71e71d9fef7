package lower

import (
	"fmt"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// schedule writes rank r's part of g as rounds: an operation's round is
// one more than the latest round among the operations it requires. Each
// round lists its messages as "s<peer>:<bytes>" (send) and
// "r<peer>:<bytes>" (receive), in the order they were added; rounds are
// separated by " | ". Calc operations do not appear.
func schedule(g *graph.Graph, r int) string {
	lo, hi := g.RankStart[r], g.RankStart[r+1]
	level := make([]int, hi-lo)
	var rounds [][]string
	for id := lo; id < hi; id++ {
		deps, _ := g.Deps(id)
		l := 0
		for _, d := range deps {
			l = max(l, level[d-lo]+1)
		}
		level[id-lo] = l
		if g.Kind[id] == graph.Calc {
			continue
		}
		for len(rounds) <= l {
			rounds = append(rounds, nil)
		}
		c := "s"
		if g.Kind[id] == graph.Recv {
			c = "r"
		}
		rounds[l] = append(rounds[l], fmt.Sprintf("%s%d:%d", c, g.Peer[id], g.Size[id]))
	}
	var parts []string
	for _, ops := range rounds {
		if len(ops) > 0 {
			parts = append(parts, strings.Join(ops, " "))
		}
	}
	return strings.Join(parts, " | ")
}

// TestPatterns pins who sends what to whom in which round for small p,
// powers of two and not, one rank at a time.
func TestPatterns(t *testing.T) {
	cases := []struct {
		kind       mpi.Kind
		alg        string
		p          int
		n          int64
		root, rank int32
		want       string
	}{
		// Partners rank XOR k.
		{mpi.Alltoall, "pairwise-xor", 4, 10, 0, 1, "s0:10 r0:10 | s3:10 r3:10 | s2:10 r2:10"},
		// Not a power of two: MPICH's shift.
		{mpi.Alltoall, "pairwise-xor", 3, 10, 0, 0, "s1:10 r2:10 | s2:10 r1:10"},
		{mpi.Alltoall, "pairwise", 3, 10, 0, 0, "s1:10 r2:10 | s2:10 r1:10"},
		// Bruck on 5: distances 1, 2, 4 carry the blocks whose index has
		// that bit: {1,3}, {2,3}, {4}.
		{mpi.Alltoall, "bruck", 5, 10, 0, 0, "s1:20 r4:20 | s2:20 r3:20 | s4:10 r1:10"},
		{mpi.Alltoall, "bruck", 4, 10, 0, 2, "s3:20 r1:20 | s0:20 r0:20"},
		// Bruck allgather on 6: 1 and 2 blocks, then the 2 left over.
		{mpi.Allgather, "bruck", 6, 10, 0, 0, "s5:10 r1:10 | s4:20 r2:20 | s2:20 r4:20"},
		{mpi.Allgather, "recdoub", 4, 10, 0, 2, "s3:10 r3:10 | s0:20 r0:20"},
		{mpi.Allgather, "recdoub", 3, 10, 0, 0, "s2:10 r1:10 | s1:10 r2:10"}, // Bruck
		{mpi.Allgather, "ring", 3, 10, 0, 1, "s2:10 r0:10 | s2:10 r0:10"},
		// SimGrid's "ring": the own block to me+k, from me−k.
		{mpi.Allgather, "shift", 4, 10, 0, 1, "s2:10 r0:10 | s3:10 r3:10 | s0:10 r2:10"},
		// Neighbour exchange on 6: one block with the first neighbour
		// (right for even ranks, left for odd), then pairs alternately.
		{mpi.Allgather, "neighbor", 6, 10, 0, 2, "s3:10 r3:10 | s1:20 r1:20 | s3:20 r3:20"},
		{mpi.Allgather, "neighbor", 6, 10, 0, 3, "s2:10 r2:10 | s4:20 r4:20 | s2:20 r2:20"},
		{mpi.Allgather, "neighbor", 3, 10, 0, 1, "s2:10 r0:10 | s2:10 r0:10"}, // ring: odd p
		// Rabenseifner on 6 (pof2 4, rem 2), 120 bytes in blocks of 30:
		// rank 1 takes rank 0's vector, halves with ranks 3 and 4, doubles
		// back, and returns the result to rank 0.
		{mpi.Allreduce, "rabenseifner", 6, 120, 0, 1, "r0:120 | s3:60 r3:60 | s4:30 r4:30 | s4:30 r4:30 | s3:60 r3:60 | s0:120"},
		{mpi.Allreduce, "rabenseifner", 6, 120, 0, 0, "s1:120 | r1:120"},
		{mpi.Allreduce, "rabenseifner", 4, 100, 0, 3, "s2:50 r2:50 | s1:25 r1:25 | s1:25 r1:25 | s2:50 r2:50"},
		{mpi.Allreduce, "recdoub", 3, 8, 0, 2, "s1:8 r1:8"},
		// Recursive halving on 6, 60 bytes (blocks of 10): rank 1 stands
		// for ranks 0 and 1 (20 bytes of blocks), halves at distance 2
		// then 1, and hands rank 0 its block.
		{mpi.ReduceScatter, "rechalving", 6, 60, 0, 1, "r0:60 | s4:20 r4:40 | s3:20 r3:20 | s0:10"},
		{mpi.ReduceScatter, "rechalving", 6, 60, 0, 0, "s1:60 | r1:10"},
		{mpi.ReduceScatter, "rechalving", 4, 40, 0, 2, "s0:20 r0:20 | s3:10 r3:10"},
		// Scatter (binomial, 25-byte chunks) then recursive doubling.
		{mpi.Bcast, "scatter-rdb-allgather", 4, 100, 0, 0, "s2:50 | s1:25 | s1:25 r1:25 | s2:50 r2:50"},
		{mpi.Bcast, "scatter-rdb-allgather", 4, 100, 0, 3, "r2:25 | s2:25 r2:25 | s1:50 r1:50"},
		// Root 1 on 3: rank 0 is relative rank 2 and gets the short last
		// chunk (32 bytes of 34), then the ring brings the other two.
		{mpi.Bcast, "scatter-ring-allgather", 3, 100, 1, 0, "r1:32 | s1:32 r2:34 | s1:34 r2:34"},
		{mpi.Bcast, "scatter-rdb-allgather", 3, 100, 1, 0, "r1:32 | s1:32 r2:34 | s1:34 r2:34"}, // ring: not a power of two
		// Chain 2 → 0 → 1 with 16 KiB segments of 40000 bytes.
		{mpi.Bcast, "pipeline", 3, 40000, 2, 0, "r2:16384 | s1:16384 r2:16384 | s1:16384 r2:7232 | s1:7232"},
		{mpi.Bcast, "pipeline", 3, 40000, 2, 2, "s0:16384 | s0:16384 | s0:7232"},
		{mpi.Bcast, "pipeline", 3, 40000, 2, 1, "r0:16384 | r0:16384 | r0:7232"},
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s/%s/p%d/n%d/root%d/rank%d", c.kind, c.alg, c.p, c.n, c.root, c.rank)
		tr := collTrace(c.p, nil, c.kind, c.root, c.n)
		g, err := Lower(tr, Options{Algorithm: map[mpi.Kind]string{c.kind: c.alg}, ReduceNsPerByte: 1})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := schedule(g, int(c.rank)); got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", name, got, c.want)
		}
	}
}

// TestPipelineSegment pins Open MPI's segment sizes at the edges of its fits.
func TestPipelineSegment(t *testing.T) {
	for _, c := range []struct {
		p    int32
		n    int64
		want int64
	}{
		{8, 1200000, 16 << 10},  // 8 < 3.2118e-6·n + 8.79
		{4, 1300000, 128 << 10}, // 4 < 1.6134e-6·n + 2.11
		{16, 1200000, 128 << 10},
		{64, 30000000, 64 << 10},
	} {
		if got := pipelineSegment(c.p, c.n); got != c.want {
			t.Errorf("pipelineSegment(%d, %d) = %d, want %d", c.p, c.n, got, c.want)
		}
	}
}
