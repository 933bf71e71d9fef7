package sim

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
)

// Interface checks: both replay errors that name operations are OpErrors.
var (
	_ OpError = (*DeadlockError)(nil)
	_ OpError = (*TruncationError)(nil)
)

// pairSchedule is one message from rank 0 to rank 1 of send bytes, which
// rank 1 receives with a receive of recv bytes from src with tag tag,
// posted after a calc of late ns (0: posted at once, before the message
// arrives; else after it, from the unexpected queue). Each side computes
// after its operation, so a sender held by a rendezvous shows.
func pairSchedule(send, recv int64, src, tag string, late int) string {
	return fmt.Sprintf(`num_ranks 2
rank 0 { l1: send %db to 1 tag 3
l2: calc 100
l2 requires l1
}
rank 1 { l1: calc %d
l2: recv %db from %s tag %s
l2 requires l1
l3: calc 5
l3 requires l2
}`, send, late, recv, src, tag)
}

// TestTruncatedReceive: a receive that names its source and tag and is
// smaller than the message it matches fails the replay with a
// TruncationError naming both operations, however the two met; a larger
// receive, a wildcard one and the LogGOPSim-compatible options replay,
// priced by the message's size (the same times as a receive of the
// message's size).
func TestTruncatedReceive(t *testing.T) {
	net := network.DefaultLogGOPS()
	net.EagerLimit = 10 // 8 bytes eager, 16 rendezvous
	for _, tc := range []struct {
		name       string
		send, recv int64
		src, tag   string
		late       int
		opt        Options
		want       []string // the error's parts; none: replays as a receive of send bytes
	}{
		{"smaller, message first", 16, 8, "0", "3", 100000, Options{},
			[]string{"a receive of 8 bytes matched a message of 16 bytes", "MPI_ERR_TRUNCATE", "receive: rank 1 l2: recv 8b from 0 tag 3", "message: rank 0 l1: send 16b to 1 tag 3"}},
		{"smaller, receive first", 16, 8, "0", "3", 0, Options{},
			[]string{"a receive of 8 bytes matched a message of 16 bytes", "receive: rank 1 l2: recv 8b from 0 tag 3", "message: rank 0 l1: send 16b to 1 tag 3"}},
		{"smaller by a byte, both eager", 8, 7, "0", "3", 100000, Options{}, []string{"a receive of 7 bytes matched a message of 8 bytes"}},
		{"smaller, both rendezvous", 1 << 20, 1000, "0", "3", 0, Options{}, []string{"a receive of 1000 bytes matched a message of 1048576 bytes"}},
		{"empty receive", 1, 0, "0", "3", 0, Options{}, []string{"a receive of 0 bytes matched a message of 1 bytes"}},
		{"larger across the eager limit, message first", 8, 16, "0", "3", 100000, Options{}, nil},
		{"larger across the eager limit, receive first", 8, 16, "0", "3", 0, Options{}, nil},
		{"larger, both rendezvous", 100, 1000, "0", "3", 100000, Options{}, nil},
		{"equal", 16, 16, "0", "3", 100000, Options{}, nil},
		{"smaller, any source", 16, 8, "-1", "3", 100000, Options{}, nil},
		{"smaller, any tag", 16, 8, "0", "-1", 100000, Options{}, nil},
		{"smaller, any source and tag, receive first", 16, 8, "-1", "-1", 0, Options{}, nil},
		{"smaller, libstdc++ order", 16, 8, "0", "3", 0, Options{LibstdcxxOrder: true}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := parse(t, pairSchedule(tc.send, tc.recv, tc.src, tc.tag, tc.late))
			res, err := Run(g, net, tc.opt)
			if tc.want != nil {
				var te *TruncationError
				if !errors.As(err, &te) {
					t.Fatalf("err = %v, want a TruncationError", err)
				}
				if te.SendBytes != tc.send || te.RecvBytes != tc.recv {
					t.Errorf("sizes %d, %d; want %d, %d", te.SendBytes, te.RecvBytes, tc.send, tc.recv)
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want, err := Run(parse(t, pairSchedule(tc.send, tc.send, "0", "3", tc.late)), net, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Ranks, want.Ranks) {
				t.Errorf("ranks %+v, want %+v as with a receive of the message's size", res.Ranks, want.Ranks)
			}
		})
	}
}

// TestTruncatedReceiveLogGOPSimSizes: with Options.LogGOPSimSizes no size
// is checked, and a message that arrived first is eager or rendezvous by
// its receive's size, as in LogGOPSim: a 16-byte receive of an 8-byte
// eager message holds the sender's clocks until it is posted.
func TestTruncatedReceiveLogGOPSimSizes(t *testing.T) {
	net := network.DefaultLogGOPS()
	net.EagerLimit = 10
	opt := Options{LogGOPSimSizes: true}
	if _, err := Run(parse(t, pairSchedule(8, 7, "0", "3", 100000)), net, opt); err != nil {
		t.Errorf("smaller receive: %v", err)
	}
	res, err := Run(parse(t, pairSchedule(8, 16, "0", "3", 100000)), net, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ranks[0].Finish < 100000 {
		t.Errorf("sender finishes at %d, want at least the receive's post at 100000", res.Ranks[0].Finish)
	}
}

// TestTruncatedReceiveStreamed: a streaming replay leaves naming the
// truncated receive to a replay of the whole graph.
func TestTruncatedReceiveStreamed(t *testing.T) {
	g := parse(t, pairSchedule(16, 8, "0", "3", 100000))
	_, err := RunSource(g, network.DefaultLogGOPS(), Options{})
	var wg *WholeGraphError
	if !errors.As(err, &wg) || !strings.Contains(err.Error(), "a receive smaller than its message") {
		t.Errorf("err = %v, want a WholeGraphError naming the truncated receive", err)
	}
}

// TestTruncationRewrite: Rewrite names both operations anew.
func TestTruncationRewrite(t *testing.T) {
	_, err := Run(parse(t, pairSchedule(16, 8, "0", "3", 0)), network.DefaultLogGOPS(), Options{})
	var oe OpError
	if !errors.As(err, &oe) {
		t.Fatalf("err = %v, want an OpError", err)
	}
	oe.Rewrite(func(op int32) string { return fmt.Sprintf("op %d", op) })
	for _, w := range []string{"receive: op 3", "message: op 0"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}
