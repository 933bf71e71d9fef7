package lower_test

import (
	"fmt"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// replayColl lowers one collective of kind on p ranks with bytes (as
// mpi.Event.Bytes counts them) and replays it on a network that charges
// only G ns per byte; it returns the makespan.
func replayColl(t *testing.T, kind mpi.Kind, alg string, p int, bytes int64, G int64, opt lower.Options) int64 {
	t.Helper()
	tr := mpi.NewTrace(p)
	for r := 0; r < p; r++ {
		tr.Append(r, mpi.Event{Kind: kind, Bytes: bytes})
	}
	opt.Algorithm = map[mpi.Kind]string{kind: alg}
	g, err := lower.Lower(tr, opt)
	if err != nil {
		t.Fatal(err)
	}
	net := network.LogGOPS{GapPerByte: network.NsPerByte(G), EagerLimit: 1 << 40}
	res, err := sim.Run(g, net, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return int64(res.Makespan)
}

// Under a bandwidth-only network (L = o = g = 0) NCCL's ring algorithms
// take their closed forms: allreduce of S bytes on p ranks 2(p−1) steps of
// S/p bytes, allgather and reduce-scatter p−1 steps. The engine prices a
// message of s bytes (s−1)·G (LogGOPSim's convention), so a step of s
// bytes costs (s−1)·G instead of s·G.
func TestNCCLRingClosedForms(t *testing.T) {
	const G = 3
	for _, p := range []int{2, 3, 4, 8} {
		for _, ch := range []int{1, 2, 4} {
			S := int64(p * ch * 4096)
			chunk := S / int64(p*ch) // bytes of one channel's step
			step := int64(ch) * (chunk - 1) * G
			cases := []struct {
				kind  mpi.Kind
				bytes int64
				want  int64
			}{
				{mpi.Allreduce, S, 2 * int64(p-1) * step},
				{mpi.Allgather, S / int64(p), int64(p-1) * step},
				{mpi.ReduceScatter, S, int64(p-1) * step},
			}
			for _, c := range cases {
				t.Run(fmt.Sprintf("%s/p=%d/C=%d", c.kind, p, ch), func(t *testing.T) {
					got := replayColl(t, c.kind, "nccl-ring", p, c.bytes, G, lower.Options{Channels: ch})
					if got != c.want {
						t.Errorf("makespan %d ns, want %d (S=%d)", got, c.want, S)
					}
				})
			}
		}
	}
}

// The pipelined chain broadcast and reduce of K chunks of x bytes cross
// p−1 links, a chunk a link per step: (K + p − 2)·(x−1)·G; NCCL's
// all-to-all sends its p−1 blocks back to back on each rank's NIC.
func TestNCCLChainAndP2PClosedForms(t *testing.T) {
	const G, x = 2, 1024
	for _, p := range []int{2, 3, 5, 8} {
		for _, K := range []int64{1, 4, 8} {
			want := (K + int64(p) - 2) * (x - 1) * G
			for _, kind := range []mpi.Kind{mpi.Bcast, mpi.Reduce} {
				got := replayColl(t, kind, "nccl-ring", p, K*x, G, lower.Options{ChunkBytes: x})
				if got != want {
					t.Errorf("%s p=%d K=%d: makespan %d, want %d", kind, p, K, got, want)
				}
			}
		}
		if got, want := replayColl(t, mpi.Alltoall, "nccl-p2p", p, x, G, lower.Options{}), int64(p-1)*(x-1)*G; got != want {
			t.Errorf("alltoall p=%d: makespan %d, want %d", p, got, want)
		}
	}
}

// The double binary tree moves each half of S up and down a tree of
// depth ⌈log2 p⌉, pipelined: at least S/2 bytes cross a link per tree, and
// no more than the unpipelined 2·depth·(S/2)·G plus a chunk a level.
func TestNCCLTreeAllreduceBounds(t *testing.T) {
	const G, chunk = 1, 4096
	for _, p := range []int{2, 3, 4, 7, 8, 16} {
		S := int64(64 * chunk)
		got := replayColl(t, mpi.Allreduce, "nccl-tree", p, S, G, lower.Options{ChunkBytes: chunk})
		depth := int64(0)
		for 1<<depth < p {
			depth++
		}
		lo, hi := S/2*G-S/chunk, 2*depth*S*G
		if got < lo || got > hi {
			t.Errorf("p=%d: makespan %d outside [%d, %d]", p, got, lo, hi)
		}
		ring := replayColl(t, mpi.Allreduce, "nccl-ring", p, S, G, lower.Options{})
		t.Logf("p=%d: tree %d ns, ring %d ns", p, got, ring)
	}
}
