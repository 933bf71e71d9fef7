//go:build cgo && !nootf2

package bench

import (
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/network/calibrate"
	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/inspect"
	"github.com/capsim/capsim/traces/mpi"
)

// largestStamped reads the largest shared trace with timestamps,
// sstmacro-otf2test (10 ranks, 11,530 events, 1,440 messages), with its
// events' recorded times.
func largestStamped(b *testing.B) *mpi.Trace {
	path := filepath.Join(testenv.Shared(b, "traces/otf2/sstmacro-otf2test"), "traces.otf2")
	tr, err := importer.Read(path, importer.Options{}.WithStamps(true))
	if err != nil {
		b.Fatal(err)
	}
	return tr.MPI
}

// BenchmarkCalibrate fits the network to the largest shared trace with
// timestamps (capsim calibrate without the import), reporting events/s.
func BenchmarkCalibrate(b *testing.B) {
	tr := largestStamped(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := calibrate.Calibrate([]*mpi.Trace{tr}, calibrate.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(tr.NumEvents())*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkInspect summarises the same trace (capsim inspect without the
// import), reporting events/s.
func BenchmarkInspect(b *testing.B) {
	tr := largestStamped(b)
	b.ReportAllocs()
	for b.Loop() {
		if rep := inspect.MPI(tr); rep == nil {
			b.Fatal("no report")
		}
	}
	b.ReportMetric(float64(tr.NumEvents())*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
