package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/chakra"
)

// BenchmarkChakraReplicate imports the shared PyTorch Chakra trace (one
// NPU) replicated to N data-parallel NPUs, every collective spanning all
// of them, and replays it: import-s and replay-s split the time of one
// iteration. The 1,024-NPU size is the bench table's row; the smaller
// ones check the path quickly (-bench 'ChakraReplicate/npus=64$').
func BenchmarkChakraReplicate(b *testing.B) {
	path := testenv.Shared(b, "traces/chakra/pytorch-kineto-1rank/chakra.0.et")
	for _, n := range []int{64, 256, 1024} {
		b.Run(fmt.Sprintf("npus=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var events, ops int64
			var imp, rep time.Duration
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				tr, err := chakra.Read(path, chakra.Options{Replicate: n})
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				res, err := sim.Run(tr.Graph, network.DefaultLogGOPS(), sim.Options{})
				if err != nil {
					b.Fatal(err)
				}
				imp, rep = imp+t1.Sub(t0), rep+time.Since(t1)
				events += res.Events
				ops += int64(tr.Graph.NumOps())
			}
			b.ReportMetric(float64(events)/float64(b.N), "events/op")
			b.ReportMetric(float64(ops)/float64(b.N), "graph-ops/op")
			b.ReportMetric(imp.Seconds()/float64(b.N), "import-s")
			b.ReportMetric(rep.Seconds()/float64(b.N), "replay-s")
		})
	}
}
