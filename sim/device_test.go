package sim

import (
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/graph"
)

// busyLog records the Busy intervals of calc operations.
type busyLog map[int32][2]int64

func (b busyLog) Busy(op int32, start, end int64)               { b[op] = [2]int64{start, end} }
func (b busyLog) Message(send, recv int32, sent, matched int64) {}

// Three ranks each run a 100 ns calc, then a 50 ns one. With the first
// calcs of all three on one shared device they run one after another in
// rank order (0–100, 100–200, 200–300); each rank's second calc follows
// its first. With two devices (ranks 0, 1 on device 0, rank 2 on device 1)
// only ranks 0 and 1 queue.
func TestSharedDevice(t *testing.T) {
	b := graph.NewBuilder(3)
	for r := 0; r < 3; r++ {
		first := b.Add(r, graph.CalcOp(100))
		second := b.Add(r, graph.CalcOp(50))
		b.Dep(r, second, first, graph.Requires)
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	first := func(r int) int32 { return g.RankStart[r] }
	cases := []struct {
		name   string
		device []int32
		start  [3]int64 // when each rank's first calc starts
		finish [3]int64
	}{
		{"no devices", nil, [3]int64{0, 0, 0}, [3]int64{150, 150, 150}},
		{"one device", []int32{0, -1, 0, -1, 0, -1}, [3]int64{0, 100, 200}, [3]int64{150, 250, 350}},
		{"two devices", []int32{0, -1, 0, -1, 1, -1}, [3]int64{0, 100, 0}, [3]int64{150, 250, 150}},
	}
	// Holding the device for the first 40 ns of each 100 ns calc only:
	// ranks start at 0, 40 and 80.
	part := []int64{40, -1, 40, -1, 40, -1}
	log := busyLog{}
	res, err := Run(g, network.LogGOPS{}, Options{Device: []int32{0, -1, 0, -1, 0, -1}, DeviceNs: part, Observer: log})
	if err != nil {
		t.Fatal(err)
	}
	for r, want := range []int64{0, 40, 80} {
		if got := log[first(r)][0]; got != want || res.Ranks[r].Finish != want+150 {
			t.Errorf("device held 40 ns: rank %d starts at %d and finishes at %d, want %d and %d", r, got, res.Ranks[r].Finish, want, want+150)
		}
	}
	for _, c := range cases {
		log := busyLog{}
		res, err := Run(g, network.LogGOPS{}, Options{Device: c.device, Observer: log})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for r := 0; r < 3; r++ {
			if got := log[first(r)][0]; got != c.start[r] {
				t.Errorf("%s: rank %d's first calc starts at %d, want %d", c.name, r, got, c.start[r])
			}
			if got := res.Ranks[r].Finish; got != c.finish[r] {
				t.Errorf("%s: rank %d finishes at %d, want %d", c.name, r, got, c.finish[r])
			}
			if got := res.Ranks[r].Compute; got != 150 {
				t.Errorf("%s: rank %d computes %d ns, want 150 (waiting for the device is not compute)", c.name, r, got)
			}
		}
	}
}

func TestSharedDeviceBadInput(t *testing.T) {
	b := graph.NewBuilder(1)
	b.Add(0, graph.CalcOp(1))
	b.Add(0, graph.SendOp(1, 0, 0))
	b.Add(0, graph.RecvOp(1, 0, 0))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, dev := range [][]int32{{0}, {-2, -1, -1}, {0, 0, -1}} {
		if _, err := Run(g, network.LogGOPS{}, Options{Device: dev}); err == nil {
			t.Errorf("device map %v accepted", dev)
		}
	}
	if _, err := Run(g, network.LogGOPS{}, Options{DeviceNs: []int64{1, 0, 0}}); err == nil {
		t.Error("device times without a device map accepted")
	}
	if _, err := Run(g, network.LogGOPS{}, Options{Device: []int32{0, -1, -1}, DeviceNs: []int64{1}}); err == nil {
		t.Error("a short device-time list accepted")
	}
}
