//go:build cgo && !nootf2

package otf2_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/capsim/capsim/internal/otf2write"
	"github.com/capsim/capsim/traces/otf2"
)

// ExampleRead writes a two-rank OTF2 trace with the OTF2 library (rank 0
// computes in region "solve" for 2 µs, then sends 4 KiB to rank 1) and
// imports it.
func ExampleRead() {
	dir, err := os.MkdirTemp("", "otf2-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	w, err := otf2write.Create(dir, otf2write.Defs{Resolution: 1e9, Ranks: 2,
		Regions: []otf2write.Region{{Name: "solve"}, {Name: "MPI_Send", MPI: true}, {Name: "MPI_Recv", MPI: true}},
		Comms:   []otf2write.Comm{{Name: "MPI_COMM_WORLD", Members: []uint64{0, 1}}}})
	if err != nil {
		log.Fatal(err)
	}
	for r, rec := range []otf2write.Event{
		{Kind: otf2write.Send, Peer: 1, Tag: 3, Bytes: 4096, Time: 2100},
		{Kind: otf2write.Recv, Peer: 0, Tag: 3, Bytes: 4096, Time: 2100},
	} {
		call := uint32(1 + r)
		for _, e := range []otf2write.Event{
			{Kind: otf2write.Enter, Region: 0, Time: 0},
			{Kind: otf2write.Enter, Region: call, Time: 2000},
			rec,
			{Kind: otf2write.Leave, Region: call, Time: 2500},
			{Kind: otf2write.Leave, Region: 0, Time: 2600},
		} {
			if err := w.Write(r, e); err != nil {
				log.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	tr, err := otf2.Read(filepath.Join(dir, "traces.otf2"), otf2.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for r, rk := range tr.Ranks {
		for _, e := range rk.Events {
			fmt.Printf("rank %d: %-7s region %-5q peer %d bytes %4d duration %d ns\n", r, e.Kind, tr.Regions[e.Region], e.Peer, e.Bytes, e.Duration)
		}
	}
	// Output:
	// rank 0: compute region "solve" peer 0 bytes    0 duration 2000 ns
	// rank 0: send    region "solve" peer 1 bytes 4096 duration 500 ns
	// rank 0: compute region "solve" peer 0 bytes    0 duration 100 ns
	// rank 1: compute region "solve" peer 0 bytes    0 duration 2000 ns
	// rank 1: recv    region "solve" peer 0 bytes 4096 duration 500 ns
	// rank 1: compute region "solve" peer 0 bytes    0 duration 100 ns
}
