package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/goal"
	"github.com/capsim/capsim/traces/graph"
)

func parse(t *testing.T, text string) *graph.Graph {
	t.Helper()
	g, err := goal.Parse(strings.NewReader(text), "test.goal")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Finish times below are worked out by hand from the LogGOPS rules in the
// package comment; with the defaults o=1500 L=2500 g=1000 G=6 O=0.
func TestHandComputed(t *testing.T) {
	def := network.DefaultLogGOPS()
	small := def
	small.EagerLimit = 4
	for _, tc := range []struct {
		name   string
		net    network.LogGOPS
		sched  string
		finish []int64
	}{
		{"eager message", def, `num_ranks 2
rank 0 { l1: send 8b to 1 tag 0
}
rank 1 { l1: recv 8b from 0 tag 0
}`,
			// sender: o. receiver: arrives o+L = 4000, then o + 7·G.
			[]int64{1500, 4000 + 1500 + 42}},
		{"rendezvous waits for the late receiver", small, `num_ranks 2
rank 0 {
l1: send 8b to 1 tag 0
l2: calc 100
l2 requires l1
}
rank 1 {
l1: calc 10000
l2: recv 8b from 0 tag 0
l2 requires l1
}`,
			// The message waits for rank 1's CPU (10000) and costs o+7G there;
			// the send completes when the receive is posted at 10000.
			[]int64{10100, 11542}},
		{"irequires same cpu", def, `num_ranks 1
rank 0 {
l1: calc 1000
l2: calc 500
l2 irequires l1
}`, []int64{1500}},
		{"irequires other cpu overlaps", def, `num_ranks 1
rank 0 {
l1: calc 1000
l2: calc 500 cpu 1
l2 irequires l1
}`, []int64{1000}},
		{"o and g serialize two sends", def, `num_ranks 2
rank 0 {
l1: send 1b to 1 tag 0
l2: send 1b to 1 tag 1
}
rank 1 {
l1: recv 1b from 0 tag 1
l2: recv 1b from 0 tag 0
}`,
			// sends at 0 and 1500 (o > g); arrivals 4000 and 5500;
			// the receiver handles each for o: 5500 and 7000.
			[]int64{3000, 7000}},
		{"any source and any tag", def, `num_ranks 3
rank 0 { l1: send 1b to 2 tag 7
}
rank 1 { l1: calc 5000
l2: send 1b to 2 tag 9
l2 requires l1
}
rank 2 {
l1: recv 1b from -1 tag -1
l2: recv 1b from -1 tag 9
l2 requires l1
}`,
			// rank 1 sends at 5000, arriving 9000; rank 2 handles it for o.
			[]int64{1500, 6500, 9000 + 1500}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(parse(t, tc.sched), tc.net, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for r, w := range tc.finish {
				if got := res.Ranks[r].Finish; got != w {
					t.Errorf("rank %d finishes at %d, want %d", r, got, w)
				}
			}
		})
	}
}

func TestStatsAddUp(t *testing.T) {
	res, err := Run(parse(t, `num_ranks 2
rank 0 { l1: calc 700
l2: send 8b to 1 tag 0
l2 requires l1
}
rank 1 { l1: recv 8b from 0 tag 0
}`), network.DefaultLogGOPS(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r0, r1 := res.Ranks[0], res.Ranks[1]
	if r0.Compute != 700 || r0.Comm != 1500 || r0.Wait != 0 || r0.Finish != 2200 {
		t.Errorf("rank 0 stats %+v", r0)
	}
	if r1.Compute != 0 || r1.Comm != 1542 || r1.Wait != 4700 || r1.Finish != 6242 {
		t.Errorf("rank 1 stats %+v", r1)
	}
	if res.Makespan != 6242 || res.Events != 4 {
		t.Errorf("makespan %d events %d", res.Makespan, res.Events)
	}
}

type double struct{ g *graph.Graph }

func (d double) CalcDuration(op int32, start int64) int64 { return 2 * d.g.Size[op] }

type recorder struct {
	busy []string
	msgs int
}

func (r *recorder) Busy(op int32, start, end int64) {
	r.busy = append(r.busy, strings.Repeat("x", int(end-start)/500))
}
func (r *recorder) Message(send, recv int32, sent, matched int64) { r.msgs++ }

func TestPricerAndObserver(t *testing.T) {
	g := parse(t, `num_ranks 2
rank 0 { l1: calc 1000
l2: send 8b to 1 tag 0
l2 requires l1
}
rank 1 { l1: recv 8b from 0 tag 0
}`)
	rec := &recorder{}
	res, err := Run(g, network.DefaultLogGOPS(), Options{Pricer: double{g}, Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ranks[0].Compute != 2000 || res.Ranks[0].Finish != 3500 {
		t.Errorf("priced calc: %+v", res.Ranks[0])
	}
	if len(rec.busy) != 3 || rec.msgs != 1 || rec.busy[0] != "xxxx" {
		t.Errorf("observer saw %v and %d messages", rec.busy, rec.msgs)
	}
}

// crossedReceives deadlocks: each rank receives before it sends.
const crossedReceives = `num_ranks 2
rank 0 { l1: recv 1b from 1 tag 0
l2: send 1b to 1 tag 0
l2 requires l1
}
rank 1 { l1: recv 1b from 0 tag 0
l2: send 1b to 0 tag 0
l2 requires l1
}`

func TestDeadlocks(t *testing.T) {
	for _, tc := range []struct {
		name, sched string
		want        []string
	}{
		{"crossed receives", crossedReceives, []string{"2 rank(s) blocked", "rank 0 l1: recv 1b from 1 tag 0: no matching message", "rank 1 l1: recv 1b from 0 tag 0: no matching message"}},
		{"message never received", `num_ranks 2
rank 0 { l1: send 1b to 1 tag 3
}
rank 1 { l1: calc 5
}`, []string{"1 message(s) never received", "rank 0 l1: send 1b to 1 tag 3 (arrived at rank 1)"}},
		{"dependency cycle", `num_ranks 1
rank 0 {
l1: calc 5
l2: calc 5
l1 requires l2
l2 requires l1
}`, []string{"rank 0 l1: calc 5: waits on itself through a dependency cycle"}},
		{"unmatched rendezvous", `num_ranks 2
rank 0 { l1: send 100000b to 1 tag 0
l2: calc 1
l2 requires l1
}
rank 1 { l1: recv 100000b from 0 tag 4
}`, []string{"rank 0 l1: send 100000b to 1 tag 0: rendezvous send never matched", "rank 1 l1: recv 100000b from 0 tag 4: no matching message"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(parse(t, tc.sched), network.DefaultLogGOPS(), Options{})
			var dl *DeadlockError
			if !errors.As(err, &dl) {
				t.Fatalf("err = %v, want a DeadlockError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	g := ringAllreduce(16, 4096)
	a, err := Run(g, network.DefaultLogGOPS(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Run(g, network.DefaultLogGOPS(), Options{})
	for r := range a.Ranks {
		if a.Ranks[r] != b.Ranks[r] {
			t.Fatalf("rank %d differs between runs", r)
		}
	}
}

// With LogGOPSim's unstable std::sort, a 16-rank ring allreduce frees 31
// operations per rank at once and posts its receives out of order, which
// deadlocks; capsim's default keeps program order and finishes.
func TestLibstdcxxOrderQuirk(t *testing.T) {
	g := ringAllreduce(16, 4096)
	if _, err := Run(g, network.DefaultLogGOPS(), Options{}); err != nil {
		t.Fatalf("default order: %v", err)
	}
	_, err := Run(g, network.DefaultLogGOPS(), Options{LibstdcxxOrder: true})
	var dl *DeadlockError
	if !errors.As(err, &dl) {
		t.Fatalf("libstdc++ order: err = %v, want the deadlock LogGOPSim's ordering causes", err)
	}
}

// TestLogGP checks the LogGP variant by hand: L=1000 o=100 g=0 G=2 O=1.
func TestLogGP(t *testing.T) {
	net := network.NewLogGOPS(1000, 100, 0, 2, 1, 1<<20)
	net.LogGP = true
	for _, tc := range []struct {
		name   string
		sched  string
		finish []int64
	}{
		{"one message", `num_ranks 2
rank 0 { l1: send 11b to 1 tag 0
}
rank 1 { l1: recv 11b from 0 tag 0
}`,
			// sender: o + 10·O = 110. Arrives o + L + 10·G = 1120; the
			// receiver then spends o + 10·O = 110: 1230.
			[]int64{110, 1230}},
		{"two sends share the sender's NIC", `num_ranks 3
rank 0 { l1: send 11b to 1 tag 0
l2: send 11b to 2 tag 0
}
rank 1 { l1: recv 11b from 0 tag 0
}
rank 2 { l1: recv 11b from 0 tag 0
}`,
			// The second send starts when the CPU (110) and the NIC (10·G =
			// 20) are free, at 110: it ends at 220 and arrives at 110 + 1120.
			[]int64{220, 1230, 1340}},
		{"the receiver's CPU pays O per byte, not G", `num_ranks 2
rank 0 { l1: send 11b to 1 tag 0
}
rank 1 {
l1: recv 11b from 0 tag 0
l2: calc 5
l2 requires l1
}`,
			// Received at 1120 + o + 10·O = 1230, then the calc: 1235. Under
			// LogGOPS: 1100 + o + 10·max(O, G) = 1220, then 1225.
			[]int64{110, 1235}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(parse(t, tc.sched), net, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for r, want := range tc.finish {
				if got := res.Ranks[r].Finish; got != want {
					t.Errorf("rank %d finishes at %d, want %d", r, got, want)
				}
			}
		})
	}
	// The same receive under LogGOPS holds the CPU for 10·max(O, G).
	loggops := net
	loggops.LogGP = false
	res, err := Run(parse(t, `num_ranks 2
rank 0 { l1: send 11b to 1 tag 0
}
rank 1 {
l1: recv 11b from 0 tag 0
l2: calc 5
l2 requires l1
}`), loggops, Options{})
	if err != nil || res.Ranks[1].Finish != 1225 {
		t.Errorf("LogGOPS: rank 1 finishes at %v (%v), want 1225", res.Ranks[1].Finish, err)
	}
	if got, want := net.Cost(11), int64(2*100+1000+10*2+10*1); got != want {
		t.Errorf("Cost(11) = %d, want %d", got, want)
	}
	if s := net.String(); s != "loggp:L=1000,o=100,g=0,G=2,O=1,S=1048576" {
		t.Errorf("String() = %q", s)
	}
	if p, err := network.ParseSpec(net.String()); err != nil || p != net {
		t.Errorf("ParseSpec(String()) = %v, %v", p, err)
	}
}
