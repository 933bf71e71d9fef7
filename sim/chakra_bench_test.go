package sim

import (
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/chakra"
)

// BenchmarkChakraPyTorch replays the shared PyTorch Chakra trace (one
// NPU, 5,885 operations on three streams): kernels that become ready while
// their stream is busy wait in its ready queue.
func BenchmarkChakraPyTorch(b *testing.B) {
	tr, err := chakra.Read(testenv.Shared(b, "traces/chakra/pytorch-kineto-1rank/chakra.0.et"), chakra.Options{})
	if err != nil {
		b.Fatal(err)
	}
	benchReplayNet(b, tr.Graph, network.DefaultLogGOPS())
}
