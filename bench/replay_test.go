package bench

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/gen"
)

var (
	ringOnce sync.Once
	ringPath string
	ringErr  error
)

// ringFile writes the reference workload once per test binary.
func ringFile(b *testing.B) string {
	ringOnce.Do(func() {
		dir, err := os.MkdirTemp("", "capsim-bench-")
		if err != nil {
			ringErr = err
			return
		}
		g, err := gen.GeneratePattern(gen.RingAllreduce, gen.PatternOptions{Ranks: 1024, Bytes: 1 << 20})
		if err != nil {
			ringErr = err
			return
		}
		ringPath = filepath.Join(dir, "ring1024.arrow")
		ringErr = arrowtrace.WriteGraph(ringPath, g)
	})
	if ringErr != nil {
		b.Fatal(ringErr)
	}
	return ringPath
}

// BenchmarkReplayRingAllreduce: read the graph file and replay it. The
// events/s metric counts reading and replaying together.
func BenchmarkReplayRingAllreduce(b *testing.B) {
	path := ringFile(b)
	b.ReportAllocs()
	b.ResetTimer()
	var events int64
	for i := 0; i < b.N; i++ {
		g, err := arrowtrace.ReadGraph(path)
		if err != nil {
			b.Fatal(err)
		}
		res, err := sim.Run(g, network.DefaultLogGOPS(), sim.Options{})
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}

// BenchmarkReplayRSS runs `capsim replay FILE --json` on the reference
// workload and reports the peak RSS the process measured itself (VmHWM:
// the rusage of a child forked from this large test process would count
// the parent's pages too) and the engine's own events/s.
func BenchmarkReplayRSS(b *testing.B) {
	path := ringFile(b)
	bin := filepath.Join(b.TempDir(), "capsim")
	build := exec.Command("go", "build", "-o", bin, "./cmd/capsim")
	build.Dir = testenv.ModuleRoot(b)
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build capsim: %v\n%s", err, out)
	}
	b.ResetTimer()
	var maxRSS int64
	var evps float64
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin, "replay", path, "--json")
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("capsim replay: %v", err)
		}
		var res struct {
			EventsPerS float64 `json:"events_per_s"`
			PeakRSS    int64   `json:"peak_rss_bytes"`
		}
		if err := json.Unmarshal(out, &res); err != nil {
			b.Fatal(err)
		}
		evps = res.EventsPerS
		maxRSS = max(maxRSS, res.PeakRSS)
	}
	b.ReportMetric(float64(maxRSS)/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(evps, "engine-events/s")
}

// BenchmarkReadGraph reads the reference workload's Arrow file (the ring
// allreduce, 1,024 ranks, 4.2 M operations) into an execution graph, the
// part of a replay before the engine starts; B/op is the graph itself plus
// what reading costs on top of it.
func BenchmarkReadGraph(b *testing.B) {
	path := ringFile(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g, err := arrowtrace.ReadGraph(path)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(g.NumOps()), "ops")
	}
}
