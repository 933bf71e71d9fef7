package bench

import (
	"flag"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/models"
	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
)

var stencilIters = flag.Int("stencil-iters", 190, "iterations of the 32×32 stencil of BenchmarkReplayModeled (190 ≈ 10 million events)")

// BenchmarkReplayModeled replays a stencil of about 10 million events
// twice per iteration, with recorded calc durations and with every calc
// priced through the example model file (examples/models/stencil.json)
// at 1.6 GHz, and reports the modeled/unmodeled wall-time ratio (target:
// under 2). Run it with -benchtime=1x; -stencil-iters scales the size.
func BenchmarkReplayModeled(b *testing.B) {
	g, err := StencilGraph(*stencilIters)
	if err != nil {
		b.Fatal(err)
	}
	_, set, err := models.Load(filepath.Join(testenv.ModuleRoot(b), "examples", "models", "stencil.json"))
	if err != nil {
		b.Fatal(err)
	}
	t := compute.Target{Default: compute.Config{CPUFreqGHz: 1.6}.Merge(set.Recorded)}
	net := network.DefaultLogGOPS()
	// Warm up (page in the graph, settle the heap after generating it).
	if _, err := sim.Run(g, net, sim.Options{}); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var plain, modeled time.Duration
	var events int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := sim.Run(g, net, sim.Options{})
		plain += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
		start = time.Now()
		p, err := compute.NewPricer(g, set, t)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := sim.Run(g, net, sim.Options{Pricer: p}); err != nil {
			b.Fatal(err)
		}
		modeled += time.Since(start)
	}
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
	b.ReportMetric(plain.Seconds()/float64(b.N), "unmodeled-s/op")
	b.ReportMetric(modeled.Seconds()/float64(b.N), "modeled-s/op")
	b.ReportMetric(modeled.Seconds()/plain.Seconds(), "modeled/unmodeled")
}
