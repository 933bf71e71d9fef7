package bench

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/traces/dumpi"
)

// BenchmarkReadDUMPI reads the real DUMPI traces of the shared folder
// (DUMPI 1.0, 1.1 and 8.1) and reports heap bytes allocated per trace
// event. traces/dumpi's BenchmarkRead reads test-written traces of 160k
// and 1.6M events (about 77 and 75 B per event: the cost per event does
// not grow with the trace's length).
func BenchmarkReadDUMPI(b *testing.B) {
	dir := testenv.Shared(b, "traces/dumpi")
	metas, err := filepath.Glob(filepath.Join(dir, "*", "*.meta"))
	if err != nil || len(metas) == 0 {
		b.Skipf("no DUMPI traces in %s", dir)
	}
	var events int
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, m := range metas {
			t, err := dumpi.Read(m, dumpi.Options{})
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range t.Ranks {
				events += len(r.Events)
			}
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(events), "B/event")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}
