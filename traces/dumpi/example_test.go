package dumpi

import (
	"fmt"
	"os"
	"path/filepath"
)

// ExampleRead writes a 2-rank DUMPI trace (rank 0 computes 1.5 µs, then
// sends 8 doubles to rank 1; both call MPI_Allreduce) and reads it: the
// events, then each rank's recorded span from MPI_Init's return to
// MPI_Finalize's entry.
func ExampleRead() {
	dir, err := os.MkdirTemp("", "dumpi-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	for r := range 2 {
		w := newBinWriter([3]byte{8, 1, 0})
		w.call(idInit, 0, 10, strs{"./app"})
		if r == 0 {
			w.call(idSend, 1500, 100, i32(8), h16(tDouble), i32(1), i32(7), h16(world))
		} else {
			w.call(idRecv, 200, 1400, i32(8), h16(tDouble), i32(0), i32(7), h16(world), sts(1))
		}
		w.call(idAllreduce, 50, 20, i32(1), h16(tInt), u8(3), h16(world))
		w.call(idFinalize, 10, 10)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("app-%04d.bin", r)), w.bytes(), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "app.meta"), []byte("hostname=h\nnumprocs=2\nfileprefix=app\nversion=8\nsubversion=1\nsubsubversion=0\n"), 0o644)

	t, err := Read(filepath.Join(dir, "app.meta"), Options{})
	if err != nil {
		panic(err)
	}
	for r, rk := range t.Ranks {
		for _, e := range rk.Events {
			switch {
			case e.Kind.IsPointToPoint():
				fmt.Printf("rank %d: %s peer %d, %d bytes\n", r, e.Kind, e.Peer, e.Bytes)
			case e.Kind.IsCollective():
				fmt.Printf("rank %d: %s, %d bytes\n", r, e.Kind, e.Bytes)
			default:
				fmt.Printf("rank %d: %q %d ns\n", r, t.Regions[e.Region], e.Duration)
			}
		}
	}
	fmt.Printf("recorded: %v ns\n", t.Recorded.SpanNs)
	// Output:
	// rank 0: "after MPI_Init" 1500 ns
	// rank 0: send peer 1, 64 bytes
	// rank 0: "after MPI_Send" 50 ns
	// rank 0: allreduce, 4 bytes
	// rank 0: "after MPI_Allreduce" 10 ns
	// rank 1: "after MPI_Init" 200 ns
	// rank 1: recv peer 0, 64 bytes
	// rank 1: "after MPI_Recv" 50 ns
	// rank 1: allreduce, 4 bytes
	// rank 1: "after MPI_Allreduce" 10 ns
	// recorded: [1680 1680] ns
}
