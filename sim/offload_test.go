package sim

import (
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/graph"
)

// TestOffload replays small graphs under the LogGP variant with the NIC
// in step with the CPU (LogGOPSim's) and apart from it (offload=1), at
// L = 1000 ns, o = 100 ns, g = 0 and G = 1 ns per byte, where a message
// of 1001 bytes takes 1000 ns of NIC time and arrives o + L + 1000 ns
// after it leaves.
func TestOffload(t *testing.T) {
	const spec = "loggp:L=1000,o=100,g=0,G=1,O=0,S=1073741824"
	for _, tc := range []struct {
		name          string
		build         func(b *graph.Builder)
		ranks         int
		step, offload int64
	}{
		// Rank 0 sends 1001 bytes to ranks 1 and 2, then computes for
		// 5000 ns. In step, the second send waits for the NIC until 1000
		// and the computation runs from 1100 to 6100; offloaded, the
		// second send takes the CPU from 100 to 200 and its bytes leave
		// at 1000 (arriving at 3100, rank 2 done at 3200), and the
		// computation runs from 200 to 5200.
		{"send queue", func(b *graph.Builder) {
			s1 := b.Add(0, graph.SendOp(1001, 1, 1))
			s2 := b.Add(0, graph.SendOp(1001, 2, 1))
			b.Dep(0, s2, s1, graph.Requires)
			b.Dep(0, b.Add(0, graph.CalcOp(5000)), s2, graph.Requires)
			b.Add(1, graph.RecvOp(1001, 0, 1))
			b.Add(2, graph.RecvOp(1001, 0, 1))
		}, 3, 6100, 5200},
		// Rank 1 computes for 5000 ns while rank 0's message arrives at
		// 2100 and rank 2's (sent at 2000) at 4100. In step, both wait
		// for the CPU; the first is received at 5000 and holds the NIC
		// until 6000, so the second is received at 6000 (done 6100).
		// Offloaded, the NIC takes each as it arrives, and the CPU
		// receives them at 5000 and 5100 (done 5200).
		{"receive while computing", func(b *graph.Builder) {
			b.Add(0, graph.SendOp(1001, 1, 1))
			c := b.Add(1, graph.CalcOp(5000))
			r1 := b.Add(1, graph.RecvOp(1001, 0, 1))
			b.Dep(1, r1, c, graph.Requires)
			b.Dep(1, b.Add(1, graph.RecvOp(1001, 2, 1)), r1, graph.Requires)
			b.Dep(2, b.Add(2, graph.SendOp(1001, 1, 1)), b.Add(2, graph.CalcOp(2000)), graph.Requires)
		}, 3, 6100, 5200},
		// Ranks 0 and 2 send 1001 bytes to rank 1 at 0: both arrive at
		// 2100, and in both forms the NIC takes one after the other, the
		// second from 2100 to 3100 (done 3200).
		{"receive FIFO", func(b *graph.Builder) {
			b.Add(0, graph.SendOp(1001, 1, 1))
			b.Add(2, graph.SendOp(1001, 1, 1))
			r := b.Add(1, graph.RecvOp(1001, 0, 1))
			b.Dep(1, b.Add(1, graph.RecvOp(1001, 2, 1)), r, graph.Requires)
		}, 3, 3200, 3200},
		// Rank 0 sends 4001 bytes to rank 1 (arriving at 5100), which
		// answers with 1 byte (sent at 5200, arriving at 6300); rank 0
		// then sends 1001 bytes (at 6400, arriving at 8500). In step,
		// rank 1's NIC counts the first message's 4000 ns from its
		// arrival, to 9100, and takes the second only then (done 9200);
		// offloaded, it counted them while they came in, and the second
		// message's bytes, from 7500, find it free (done 8600).
		{"smaller after larger", func(b *graph.Builder) {
			a := b.Add(0, graph.SendOp(4001, 1, 1))
			ack := b.Add(0, graph.RecvOp(1, 1, 2))
			b.Dep(0, ack, a, graph.Requires)
			b.Dep(0, b.Add(0, graph.SendOp(1001, 1, 3)), ack, graph.Requires)
			r := b.Add(1, graph.RecvOp(4001, 0, 1))
			s := b.Add(1, graph.SendOp(1, 0, 2))
			b.Dep(1, s, r, graph.Requires)
			b.Dep(1, b.Add(1, graph.RecvOp(1001, 0, 3)), s, graph.Requires)
		}, 2, 9200, 8600},
	} {
		b := graph.NewBuilder(tc.ranks)
		tc.build(b)
		g, err := b.Build()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, c := range []struct {
			spec string
			want int64
		}{{spec, tc.step}, {spec + ",offload=1", tc.offload}} {
			net, err := network.ParseSpec(c.spec)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Run(g, net, Options{})
			if err != nil {
				t.Fatalf("%s, %s: %v", tc.name, c.spec, err)
			}
			if r.Makespan != c.want {
				t.Errorf("%s, %s: makespan %d ns, want %d", tc.name, c.spec, r.Makespan, c.want)
			}
		}
	}
}
