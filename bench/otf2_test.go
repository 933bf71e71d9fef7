//go:build cgo && !nootf2

package bench

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	"github.com/capsim/capsim/internal/otf2write"
	"github.com/capsim/capsim/traces/mpi"
	"github.com/capsim/capsim/traces/otf2"
)

// writeOTF2Ring writes a Score-P-like OTF2 trace of ranks ranks that each
// run iters iterations of: a compute region, an isend to the right
// neighbour and an irecv from the left one completed by a waitall, an
// allreduce of 8 bytes, and a hardware-counter record (17 records per rank
// and iteration). It returns the anchor file and the record count.
func writeOTF2Ring(b *testing.B, dir string, ranks, iters int) (string, int) {
	const (
		rMain = iota
		rStep
		rIsend
		rIrecv
		rWaitall
		rAllreduce
	)
	regions := []otf2write.Region{{Name: "main"}, {Name: "step"}, {Name: "MPI_Isend", MPI: true},
		{Name: "MPI_Irecv", MPI: true}, {Name: "MPI_Waitall", MPI: true}, {Name: "MPI_Allreduce", MPI: true}}
	world := make([]uint64, ranks)
	for i := range world {
		world[i] = uint64(i)
	}
	w, err := otf2write.Create(dir, otf2write.Defs{Resolution: 1e9, Ranks: ranks, Regions: regions,
		Comms: []otf2write.Comm{{Name: "MPI_COMM_WORLD", Members: world}}})
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for r := 0; r < ranks; r++ {
		t := uint64(0)
		put := func(e otf2write.Event) {
			t += 10
			e.Time = t
			if err := w.Write(r, e); err != nil {
				b.Fatal(err)
			}
			n++
		}
		put(otf2write.Event{Kind: otf2write.Enter, Region: rMain})
		for i := 0; i < iters; i++ {
			req := uint64(2 * i)
			put(otf2write.Event{Kind: otf2write.Enter, Region: rStep})
			t += 1000
			put(otf2write.Event{Kind: otf2write.Leave, Region: rStep})
			put(otf2write.Event{Kind: otf2write.Enter, Region: rIsend})
			put(otf2write.Event{Kind: otf2write.Isend, Peer: uint32((r + 1) % ranks), Tag: 1, Bytes: 4096, Req: req})
			put(otf2write.Event{Kind: otf2write.Leave, Region: rIsend})
			put(otf2write.Event{Kind: otf2write.Enter, Region: rIrecv})
			put(otf2write.Event{Kind: otf2write.IrecvRequest, Req: req + 1})
			put(otf2write.Event{Kind: otf2write.Leave, Region: rIrecv})
			put(otf2write.Event{Kind: otf2write.Enter, Region: rWaitall})
			put(otf2write.Event{Kind: otf2write.IsendComplete, Req: req})
			put(otf2write.Event{Kind: otf2write.Irecv, Peer: uint32((r + ranks - 1) % ranks), Tag: 1, Bytes: 4096, Req: req + 1})
			put(otf2write.Event{Kind: otf2write.Leave, Region: rWaitall})
			put(otf2write.Event{Kind: otf2write.Enter, Region: rAllreduce})
			put(otf2write.Event{Kind: otf2write.CollBegin})
			put(otf2write.Event{Kind: otf2write.CollEnd, Op: 11, Root: ^uint32(0), Sent: 8 * uint64(ranks), Recv: 8 * uint64(ranks)})
			put(otf2write.Event{Kind: otf2write.Leave, Region: rAllreduce})
			put(otf2write.Event{Kind: otf2write.Metric, Value: uint64(i)})
		}
		put(otf2write.Event{Kind: otf2write.Leave, Region: rMain})
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return filepath.Join(dir, "traces.otf2"), n
}

// BenchmarkReadOTF2 imports OTF2 traces of 16 ranks written with the OTF2
// library, at two lengths. The library is read in batches of records and
// one rank's chunk buffers at a time, so the memory the import allocates
// beyond the resulting trace does not grow with the length: the reported
// alloc-B/trace-B (bytes allocated per byte of the returned events) stays
// the same at both lengths.
func BenchmarkReadOTF2(b *testing.B) {
	for _, iters := range []int{2000, 8000} {
		b.Run(fmt.Sprintf("ranks=16/iters=%d", iters), func(b *testing.B) {
			anchor, records := writeOTF2Ring(b, b.TempDir(), 16, iters)
			b.ReportAllocs()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			before := ms.TotalAlloc
			var tr *mpi.Trace
			for b.Loop() {
				var err error
				if tr, err = otf2.Read(anchor, otf2.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
			evBytes := float64(tr.NumEvents()) * float64(unsafe.Sizeof(mpi.Event{}))
			b.ReportMetric(evBytes, "trace-B")
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.TotalAlloc-before)/float64(b.N)/evBytes, "alloc-B/trace-B")
		})
	}
}
