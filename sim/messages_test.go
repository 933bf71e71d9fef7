package sim

import (
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/goal"
	"github.com/capsim/capsim/traces/graph"
)

// TestMessageCounter replays two point-to-point messages (0→1: 100 B,
// 1→0: 7 B) and one message tagged as a collective's (0→1: 5 B).
func TestMessageCounter(t *testing.T) {
	const coll = 1 << 30
	b := graph.NewBuilder(2)
	b.Add(0, graph.SendOp(100, 1, 3))
	b.Add(1, graph.RecvOp(100, 0, 3))
	b.Add(1, graph.SendOp(7, 0, 4))
	b.Add(0, graph.RecvOp(7, graph.AnySource, graph.AnyTag))
	b.Add(0, graph.SendOp(5, 1, coll|9))
	b.Add(1, graph.RecvOp(5, 0, coll|9))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	m := NewMessageCounter(g, coll)
	if _, err := Run(g, network.NewLogGOPS(10, 1, 1, 1, 0, 1<<20), Options{Observer: m}); err != nil {
		t.Fatal(err)
	}
	want := []MessageStats{
		{Sent: 1, SentBytes: 100, Recv: 1, RecvBytes: 7, CollSent: 1, CollSentBytes: 5},
		{Sent: 1, SentBytes: 7, Recv: 1, RecvBytes: 100, CollRecv: 1, CollRecvBytes: 5},
	}
	counted := CountMessages(g, coll)
	for r := range want {
		if m.Ranks[r] != want[r] {
			t.Errorf("rank %d: %+v, want %+v", r, m.Ranks[r], want[r])
		}
		if counted[r] != want[r] {
			t.Errorf("CountMessages: rank %d: %+v, want %+v", r, counted[r], want[r])
		}
	}
}

// TestCountMessages checks that the counts taken from the graph alone
// equal those a MessageCounter observes, on the hand-checked case above
// and on every random schedule of testdata/differential (wildcards,
// rendezvous and eager messages, several CPUs and NICs) that completes,
// under both parameter sets.
func TestCountMessages(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "differential", "*.goal"))
	if len(files) == 0 {
		t.Fatal("no schedules in testdata/differential")
	}
	completed := 0
	for _, f := range files {
		g, err := goal.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, net := range []network.LogGOPS{network.DefaultLogGOPS(), network.NewLogGOPS(5000, 200, 100, 2, 1, 4096)} {
			for _, coll := range []int32{0, 1 << 3} {
				m := NewMessageCounter(g, coll)
				if _, err := Run(g, net, Options{Observer: m}); err != nil {
					continue
				}
				completed++
				got := CountMessages(g, coll)
				for r := range got {
					if got[r] != m.Ranks[r] {
						t.Errorf("%s, %v, coll tag %d: rank %d: %+v, the replay matched %+v", f, net, coll, r, got[r], m.Ranks[r])
					}
				}
			}
		}
	}
	if completed < len(files) {
		t.Errorf("only %d replays of %d schedules completed", completed, len(files))
	}
}
