package sim

import (
	"errors"
	"reflect"
	"runtime"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/graph"
)

// TestScratchReuse replays graphs of growing and shrinking sizes, a
// deadlock among them, through one Scratch and checks every result, error
// and observation against a replay with its own memory: what a replay
// leaves in the Scratch changes nothing of the next.
func TestScratchReuse(t *testing.T) {
	deadlock := parse(t, crossedReceives)
	unexpected := parse(t, `num_ranks 3
rank 0 { l1: send 8b to 2 tag 1
l2: send 100000b to 2 tag 2
l3: calc 700
l3 irequires l2
}
rank 1 { l1: calc 3000
l2: send 8b to 2 tag 1
l2 requires l1
}
rank 2 { l1: calc 5000
l2: recv 8b from -1 tag 1
l3: recv 8b from -1 tag 1
l4: recv 100000b from 0 tag 2
l2 requires l1
l3 requires l2
l4 requires l1
}`)
	graphs := []*graph.Graph{ringAllreduce(16, 4096), deadlock, unexpected, ringAllreduce(64, 1<<20), ringAllreduce(4, 64), deadlock, ringAllreduce(32, 100000), unexpected}
	var scr Scratch
	for i, g := range graphs {
		for _, observe := range []bool{false, true} {
			var own, shared recorder
			opts := func(r *recorder, s *Scratch) Options {
				o := Options{Pricer: double{g}, Scratch: s}
				if observe {
					o.Observer = r
				}
				return o
			}
			want, werr := Run(g, network.DefaultLogGOPS(), opts(&own, nil))
			got, gerr := Run(g, network.DefaultLogGOPS(), opts(&shared, &scr))
			var dl *DeadlockError
			if (werr == nil) != (gerr == nil) || werr != nil && (!errors.As(gerr, &dl) || werr.Error() != gerr.Error()) {
				t.Fatalf("graph %d: error %v with the scratch, %v without", i, gerr, werr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("graph %d (observed %v): %+v with the scratch, %+v without", i, observe, got, want)
			}
			if !reflect.DeepEqual(shared, own) {
				t.Fatalf("graph %d: observed %d busy spans and %d messages with the scratch, %d and %d without", i, len(shared.busy), shared.msgs, len(own.busy), own.msgs)
			}
		}
	}
	if cap(scr.ops) == 0 || cap(scr.run) == 0 {
		t.Error("the scratch kept no memory")
	}
}

// TestScratchAllocs checks that a replay given the Scratch of a replay of
// the same graph allocates nothing per operation: a few dozen small
// allocations (the seeds of each rank), against tens of bytes per
// operation without it; under LogGOPSim's NIC and under an offloading one
// (network.LogGOPS.Offload).
func TestScratchAllocs(t *testing.T) {
	g := ringAllreduce(256, 4096)
	for _, spec := range []string{"loggops", "loggp:offload=1"} {
		net, err := network.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		var scr Scratch
		run := func(s *Scratch) {
			if _, err := Run(g, net, Options{Scratch: s}); err != nil {
				t.Fatal(err)
			}
		}
		run(&scr)
		bytes := func(s *Scratch) uint64 {
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			run(s)
			runtime.ReadMemStats(&m1)
			return m1.TotalAlloc - m0.TotalAlloc
		}
		without, with := bytes(nil), bytes(&scr)
		if ops := uint64(g.NumOps()); with*100 > without || with > 128*uint64(g.NumRanks())+16384 {
			t.Errorf("%s: a replay of %d operations allocated %d bytes with the scratch, %d without", spec, ops, with, without)
		}
	}
}
